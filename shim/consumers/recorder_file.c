// SPDX-License-Identifier: MIT
/*
 * The recording's file (recorder_file.h): made or continued with its header, appended to in
 * whole chunks by one writer at a time, given up at the first failure.
 */
#define _GNU_SOURCE
#include "recorder_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <pthread.h>
#include <unistd.h>

#include "clock.h"
#include "listeners.h"
#include "own_files.h"
#include "process.h"
#include "real_symbol.h"
#include "spin_lock.h"
#include "taskprobe_recording.h"
#include "thread_identity.h"
#include "warn.h"

static int file_lock;     /* held while the file is written */
static pid_t file_writer; /* the thread that holds file_lock, 0 when none */
static struct tp_own_fd record_fd = TP_OWN_FD_NONE;
static pid_t record_pid;        /* the process whose file record_fd is (a vfork child shares it) */
static struct stat record_file; /* what record_fd must still be, before each write */
static char record_path[PATH_MAX]; /* TASKPROBE_RECORD with %p replaced */
static bool write_failed;

/* Stops recording (the reason said once, with errno's); nothing more is written. */
static void recording_failed(void)
{
	if (!__atomic_exchange_n(&write_failed, true, __ATOMIC_RELAXED))
		tp_warn("TASKPROBE_RECORD: writing %.300s failed (%s); recording stopped",
			record_path, strerror(errno));
	tp_listeners_in_process_remove(TP_IN_PROCESS_RECORD);
}

/*
 * Whether the file (one writer: this process, under file_lock) has space for `size` bytes after
 * its end at `end`: reserved first, so that a full disk stops the recording before a chunk,
 * never half way through one. A file system that cannot reserve (no fallocate) is written as is.
 */
static bool space_for(int fd, off_t end, size_t size)
{
	int err = fallocate(fd, FALLOC_FL_KEEP_SIZE, end, (off_t)size) == 0 ? 0 : errno;
	return err == 0 || err == EOPNOTSUPP || err == ENOSYS || err == EINTR;
}

bool tp_record_file_write(const struct iovec *parts, int n_parts)
{
	size_t size = 0;
	for (int i = 0; i < n_parts; i++)
		size += parts[i].iov_len;
	/* after a failure; in a child made without the fork handlers (_Fork, clone): nothing */
	if (size == 0 || __atomic_load_n(&write_failed, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&record_fd.fd, __ATOMIC_RELAXED) < 0 || record_pid != getpid())
		return size == 0;
	/*
	 * One writer at a time, so that the size checked against RLIMIT_FSIZE is the size written
	 * at; a thread that holds the lock already (a signal handler that interrupted it here
	 * calls exit) does not wait for itself: the write is skipped.
	 */
	pid_t tid = tp_thread_tid();
	if (__atomic_load_n(&file_writer, __ATOMIC_RELAXED) == tid)
		return false;
	tp_spin_lock(&file_lock);
	__atomic_store_n(&file_writer, tid, __ATOMIC_RELAXED);
	int cancel_state;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	struct stat now;
	struct rlimit file_size;
	ssize_t n = -1;
	int fd = tp_own_fd_use(&record_fd);
	if (fd < 0 || fstat(fd, &now) != 0 || now.st_dev != record_file.st_dev ||
	    now.st_ino != record_file.st_ino) {
		/* given up for a program's dup2 that found no other number for it (own_files.h) */
		errno = EBADF;
	} else if (getrlimit(RLIMIT_FSIZE, &file_size) == 0 &&
		   file_size.rlim_cur != RLIM_INFINITY &&
		   (uint64_t)now.st_size + size > file_size.rlim_cur) {
		errno = EFBIG; /* writing past it would raise SIGXFSZ, which kills by default */
	} else if (!space_for(fd, now.st_size, size)) {
		errno = ENOSPC; /* nothing written: the file stays whole */
	} else {
		do
			n = writev(fd, parts, n_parts);
		while (n < 0 && errno == EINTR);
		if (n >= 0 && n != (ssize_t)size)
			errno = ENOSPC;
	}
	tp_own_fd_done(&record_fd);
	if (n != (ssize_t)size)
		recording_failed();
	pthread_setcancelstate(cancel_state, NULL);
	__atomic_store_n(&file_writer, 0, __ATOMIC_RELAXED);
	tp_spin_unlock(&file_lock);
	return n == (ssize_t)size;
}

/*
 * Whether the file open at `fd` was begun by this process: an earlier image of it, which then
 * exec'ed this one (the pid stays). This image continues it in a new segment.
 */
static bool begun_by_this_process(int fd)
{
	struct tp_recording_header header;
	const struct tp_process *self = tp_process();
	return pread(fd, &header, sizeof header, 0) == (ssize_t)sizeof header &&
	       memcmp(header.magic, TP_RECORDING_MAGIC, sizeof header.magic) == 0 &&
	       header.version == TP_RECORDING_VERSION && header.pid == (uint32_t)self->pid &&
	       header.start_ticks == self->start_ticks &&
	       header.pid_namespace == self->pid_namespace;
}

bool tp_record_file_open(const char *pattern)
{
	if (!tp_output_path(pattern, record_path, sizeof record_path)) {
		tp_warn("TASKPROBE_RECORD=\"%.300s\" is too long; not recording", pattern);
		return false;
	}
	bool made;
	const char *why = NULL;
	int fd = tp_output_open(record_path, O_RDWR | O_APPEND, false, &made, &why);
	if (fd < 0) {
		tp_warn("TASKPROBE_RECORD=\"%.300s\" cannot be written: %s; not recording",
			record_path, why);
		return false;
	}
	/*
	 * Held while the file is recorded into: another process given the same path (an exec'ed
	 * child, where the path has no %p) must not write into it.
	 */
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		tp_warn("TASKPROBE_RECORD=\"%.300s\": another process records into it (give each "
			"its own file with %%p); not recording",
			record_path);
		tp_real_close(fd);
		return false;
	}
	/*
	 * A file this run did not make is continued only by the process that began it (an image
	 * it exec'ed: the same pid, start and pid namespace); any other is never overwritten.
	 */
	if (!made && !begun_by_this_process(fd)) {
		tp_warn("TASKPROBE_RECORD=\"%.300s\" exists and was not made by this process: not "
			"overwritten (remove it, or give each run its own name, as with %%p); not "
			"recording",
			record_path);
		tp_real_close(fd);
		return false;
	}
	if (!tp_own_fd_keep(&record_fd, fd)) {
		tp_warn("TASKPROBE_RECORD=\"%.300s\": no room for its descriptor; not recording",
			record_path);
		return false;
	}
	record_pid = tp_process()->pid;
	__atomic_store_n(&write_failed, false, __ATOMIC_RELAXED);
	fstat(record_fd.fd, &record_file);
	struct tp_recording_header header = {
		.magic = TP_RECORDING_MAGIC,
		.version = TP_RECORDING_VERSION,
		.header_size = sizeof header,
		.pid = (uint32_t)tp_process()->pid,
		.start_ticks = tp_process()->start_ticks,
		.pid_namespace = tp_process()->pid_namespace,
		.clock = tp_clock_is_tsc ? TP_CLOCK_TSC : TP_CLOCK_MONOTONIC,
	};
	tp_clock_pair(&header.clock_time, &header.ns);
	tp_thread_read_name(header.comm);
	return tp_record_file_write(&(struct iovec){&header, sizeof header}, 1);
}

bool tp_record_file_here(void)
{
	return __atomic_load_n(&record_fd.fd, __ATOMIC_RELAXED) >= 0 && record_pid == getpid();
}

const char *tp_record_file_path(void)
{
	return record_path;
}

bool tp_record_file_stopped(void)
{
	return __atomic_load_n(&write_failed, __ATOMIC_RELAXED);
}

void tp_record_file_stop(void)
{
	__atomic_store_n(&write_failed, true, __ATOMIC_RELAXED);
	tp_listeners_in_process_remove(TP_IN_PROCESS_RECORD);
	tp_own_fd_close(&record_fd);
}

bool tp_record_file_child_after_fork(void)
{
	/* a thread the child does not have may have been writing the file at the fork */
	file_lock = 0;
	file_writer = 0;
	if (record_fd.fd < 0)
		return false;
	tp_own_fd_close(&record_fd); /* the parent's; its lock was reset for the child */
	return true;
}
