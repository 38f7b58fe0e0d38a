// SPDX-License-Identifier: MIT
/*
 * The in-process recorder's moments (recorder_private.h): its start, a thread's rename and end,
 * the exit, an exec, a system call filter, and fork.
 */
#define _GNU_SOURCE
#include "recorder_private.h"

#include "in_process_consumers.h"
#include "listeners.h"

#include <errno.h>
#include <string.h>

#include "recorder_file.h"
#include "reentry.h"
#include "settings.h"
#include "spin_lock.h"
#include "thread_identity.h"
#include "warn.h"

/* Opens this process's file (a new image's codes and modules recorded again in it). */
static bool open_recording(const char *pattern)
{
	memset(site_recorded, 0, sizeof site_recorded);
	memset(module_recorded, 0, sizeof module_recorded);
	return tp_record_file_open(pattern);
}

bool tp_record_stacks;

void tp_recorder_start(void)
{
	const char *pattern = tp_settings()->record;
	if (pattern == NULL)
		return;
	tp_record_stacks = tp_settings()->record_stacks; /* before recording is seen on */
	if (open_recording(pattern))
		tp_listeners_in_process_add(TP_IN_PROCESS_RECORD);
}

void tp_recorder_thread_renamed(void)
{
	struct tp_record_buffer *b = mine.buffer;
	if (b == NULL || mine.busy)
		return; /* a buffer taken later reads the name then */
	tp_guard_enter(&mine.busy);
	tp_spin_lock(&b->writing); /* the exit may be writing it out */
	tp_thread_read_name(b->comm);
	tp_spin_unlock(&b->writing);
	tp_guard_leave(&mine.busy, false);
}

static void thread_stopped(void)
{
	struct tp_record_buffer *b = mine.buffer;
	if (mine.busy)
		return;
	mine.stopped = true; /* a later event (a TLS destructor's wait) is counted, not kept */
	if (b == NULL)
		return;
	tp_guard_enter(&mine.busy);
	int saved_errno = errno;
	buffer_write(b);
	mine.buffer = NULL;
	tp_spin_lock(&buffers_lock);
	list_remove(b);
	list_add(&spare, b);
	tp_spin_unlock(&buffers_lock);
	errno = saved_errno;
	tp_guard_leave(&mine.busy, false);
}

void tp_record_thread_stop(uint64_t tid, bool by_itself)
{
	tp_record(TP_RECORD_THREAD_STOP, 0, 1, tid, 0, 0, 0);
	if (by_itself)
		thread_stopped();
}

static bool written_before_destructors;

/*
 * At the start of exit, while every library is in place: its moment, read once for the live
 * statistics too (lifecycle.c), is recorded (where the analysis ends the polls still open, as
 * the exit report, written now, and the live statistics do: the destructors after it are not
 * the program's tasks' time), and what is recorded so far
 * is written then, so that little is left for the process's last moment, after the destructors
 * (see exit_hook.h: libomp's may leave threads running on freed state until the process ends).
 */
void tp_recorder_before_destructors(uint64_t clock_time)
{
	if (!tp_record_file_here())
		return;
	/* not by a thread whose recording ended (the last thread, after main's pthread_exit) or
	 * that recorded nothing (a track of its own for it alone): no mark then, nothing dropped
	 * (the analysis ends at the last event) */
	if (mine.buffer != NULL && !mine.stopped && !mine.busy) {
		struct tp_record *r = record_begin_at(TP_RECORD_PROCESS_EXIT, 0, 1, clock_time);
		if (r != NULL)
			record_done(r);
	}
	record_claimed_codes();
	write_all_buffers(false);
	written_before_destructors = true;
}

bool tp_recorder_has_file(void)
{
	return tp_record_file_here();
}

void tp_recorder_at_exit(void)
{
	if (!tp_record_file_here())
		return;
	int saved_errno = errno;
	record_claimed_codes();
	if (written_before_destructors) {
		write_own_close_others();
	} else {
		write_all_buffers(true);
	}
	errno = saved_errno;
	uint64_t dropped = __atomic_load_n(&dropped_unrecorded, __ATOMIC_RELAXED) +
			   __atomic_load_n(&dropped_at_exit, __ATOMIC_RELAXED) +
			   __atomic_load_n(&dropped_in_chunks, __ATOMIC_RELAXED);
	if (dropped > 0)
		tp_warn("TASKPROBE_RECORD: %llu events were not recorded in %.300s",
			(unsigned long long)dropped, tp_record_file_path());
}

/*
 * The records so far written, for the image that follows continues the file (it has the same
 * pid); if the exec fails, recording goes on.
 */
void tp_recorder_before_exec(void)
{
	if (!tp_record_file_here())
		return;
	int saved_errno = errno;
	record_claimed_codes();
	write_all_buffers(false);
	errno = saved_errno;
}

/*
 * A system call filter comes, which may kill the process for a write of the recorder's: the
 * records so far are written while nothing refuses them, and recording stops, said.
 */
void tp_recorder_before_seccomp(void)
{
	if (!tp_record_file_here() || tp_record_file_stopped())
		return;
	int saved_errno = errno;
	record_claimed_codes();
	write_all_buffers(true);
	tp_warn("TASKPROBE_RECORD: the program installs a system call filter (seccomp): recording "
		"stops here, so that no call of taskprobe's can be refused; %.300s holds what came "
		"before",
		tp_record_file_path());
	tp_record_file_stop();
	errno = saved_errno;
}

/*
 * Fork takes the lists' lock, so that the child has them whole; not when this thread is inside
 * the recorder (a fork from a signal handler that interrupted it, which may hold the lock).
 */
static __thread bool fork_took_lock;

void tp_recorder_prepare_fork(void)
{
	fork_took_lock = !mine.busy;
	if (fork_took_lock)
		tp_spin_lock(&buffers_lock);
}

void tp_recorder_parent_after_fork(void)
{
	if (fork_took_lock)
		tp_spin_unlock(&buffers_lock);
}

/*
 * The child records into a file of its own when the path has %p, else not at all: never into
 * its parent's. What the parent's threads had not written out is the parent's: dropped here.
 */
void tp_recorder_child_after_fork(void)
{
	while (in_use.next != &in_use) {
		struct tp_record_buffer *b = in_use.next;
		list_remove(b);
		list_add(&spare, b);
	}
	if (mine.buffer != NULL) {
		list_remove(mine.buffer);
		list_add(&in_use, mine.buffer);
		buffer_reset(mine.buffer);
		mine.buffer->tid = tp_thread_tid();
		tp_thread_read_name(mine.buffer->comm);
		mine.buffer->writing = 0;
		mine.buffer->closed = false;
	}
	buffers_lock = 0;
	int saved_errno = errno;
	if (tp_record_file_child_after_fork()) {
		__atomic_store_n(&dropped_unrecorded, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&dropped_at_exit, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&dropped_in_chunks, 0, __ATOMIC_RELAXED);
		const char *pattern = tp_settings()->record;
		if (strstr(pattern, "%p") == NULL || !open_recording(pattern))
			tp_listeners_in_process_remove(TP_IN_PROCESS_RECORD);
	}
	errno = saved_errno;
}
