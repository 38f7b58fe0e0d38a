// SPDX-License-Identifier: MIT
/*
 * The in-process recorder (TASKPROBE_RECORD=FILE): every event of the contract, as the probes
 * see it, written to FILE (dtrace/taskprobe_recording.h) without a tracer or privileges. The
 * event layer (events.h) hands it each event it fires while recording.
 *
 * Each thread records into a buffer of its own (TP_RECORD_BUFFER_BYTES, mapped at its first
 * event): no lock, no allocation, no system call per event; the time is the CPU's time-stamp
 * counter where the kernel keeps time by it (else CLOCK_MONOTONIC). A full buffer is written out
 * by its thread with one write(2) (an appended chunk); a thread's last one when it ends; every
 * thread's at exit. Events are dropped and counted (in the next chunk, and said at exit) only
 * when a signal handler's event interrupts one of its thread, or the file cannot be written.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "taskprobe_recording.h"

/* A recording thread's buffer: one chunk, its header included. Stated in the README. */
#define TP_RECORD_BUFFER_BYTES (256u * 1024u)

/* Whether events are being recorded: tp_recording(), in events.h. */

/* Records an event of the calling thread: `nargs` (0 to 4) of a0..a3, and `small`. */
void tp_record(enum tp_record_type type, uint32_t small, unsigned nargs, uint64_t a0, uint64_t a1,
	       uint64_t a2, uint64_t a3);

/* task-spawn, preceded by its site's text the first time the site is recorded. */
/* A wait's start, with its call site's key (whose text is recorded once, as a task site's). */
void tp_record_wait_start(uint32_t kind, uintptr_t object, int64_t timeout_ns, uint64_t task,
			  uint32_t site);
/* `small`: tp_record_spawn_small (the executor, and whether the task was created undeferred) */
void tp_record_task_spawn(uint64_t task, uint64_t parent, uint32_t site, uint64_t stack_id,
			  uint32_t small);

/*
 * A thread's start, with its start routine's key (a site of the recording: the routine named at
 * exit, as wait sites are, "function (file:line)" at its entry).
 */
void tp_record_thread_start(uint64_t tid, uintptr_t routine, uint64_t creator_tid);

/* task-stack with its return addresses. */
void tp_record_task_stack(uint64_t task, uint64_t stack_id, const uintptr_t *pcs, uint32_t depth);

/* The calling thread renamed itself: its chunks from now on carry the new name. */
void tp_recorder_thread_renamed(void);

/*
 * Thread `tid` ends (thread-stop); `by_itself`: it is the calling thread, whose buffer is
 * written out and given back.
 */
void tp_record_thread_stop(uint64_t tid, bool by_itself);

/* The lifecycle's steps for this module (lifecycle.c calls them, in the order it states). */
void tp_recorder_start(void);        /* TASKPROBE_RECORD's file opened, recording */
void tp_recorder_prepare_fork(void); /* the buffers' lists locked */
void tp_recorder_parent_after_fork(void);
void tp_recorder_child_after_fork(void); /* its own file (%p) or none; the parent's data dropped */
void tp_recorder_before_exec(void);      /* every buffer written, the file marked */
void tp_recorder_before_seccomp(void);   /* every buffer written, recording stopped */
void tp_recorder_before_destructors(void); /* every thread's records written */
void tp_recorder_at_exit(void);            /* every thread's buffer written out */
