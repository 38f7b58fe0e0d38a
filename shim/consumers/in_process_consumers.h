// SPDX-License-Identifier: MIT
/*
 * The in-process consumers' entry points for the events they take, which the event layer above
 * them calls (events.h): defined by the consumers (recorder.c, live.c and the files
 * live_private.h names, report.c, report_waits.c), which take every argument by value. Whether
 * each consumer is on: tp_recording(), tp_live(), tp_reporting() in the core's listeners.h,
 * whose bits each consumer raises and lowers itself.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "stack_table.h"
#include "taskprobe_recording.h"

/* ---- the recorder (recorder.h): every event, into TASKPROBE_RECORD's file ---- */

/* Records an event of the calling thread: `nargs` (0 to 4) of a0..a3, and `small`. */
void tp_record(enum tp_record_type type, uint32_t small, unsigned nargs, uint64_t a0, uint64_t a1,
	       uint64_t a2, uint64_t a3);

/*
 * An entry point with `at` takes its event's moment from the event layer (tp_clock_now's, read
 * once for every consumer of the event: events.h) instead of reading the clock itself.
 */
void tp_record_at(enum tp_record_type type, uint32_t small, unsigned nargs, uint64_t a0,
		  uint64_t a1, uint64_t a2, uint64_t a3, uint64_t at);

/*
 * The events a compact record may hold (taskprobe_recording.h, version 9): each folds into the
 * thread's last record when it continues it, else starts a record of its own.
 */
void tp_record_task_wake(uint64_t task, uint64_t waker, uint64_t at);
void tp_record_task_poll_start(uint64_t task, uint64_t at);
void tp_record_task_terminate(uint64_t task, uint32_t reason, uint64_t at);
void tp_record_worker_park(bool by_wait);
void tp_record_worker_unpark(bool by_wait);
/* An executor's worker-thread-unpark and the task-poll-start it makes at once, timed `at`. */
void tp_record_unpark_poll_start(uint64_t task, uint64_t at);
void tp_record_wake_poll_start(uint64_t task, bool unparked, uint64_t at);
void tp_record_wait_end(uint32_t kind, uintptr_t object, int64_t result, uint64_t task,
			uint64_t at);

/* mpi-init: rank and size, then host and job as text (one record). */
void tp_record_mpi_init(uint32_t rank, uint32_t size, const char *host, const char *job);

/* task-poll-end, with the sync construct's site key (0: none; its code recorded once). */
void tp_record_task_poll_end(uint64_t task, uint32_t done, uint32_t sync, uint32_t site,
			     uint64_t at);
/* task-poll-end of `ending` (sync none) and task-poll-start of `next`, at one moment: one call. */
void tp_record_task_switch(uint64_t ending, uint32_t done, uint64_t next, uint64_t at);
/* The same with task-wake of `next` (no waker) between: a task made not ready, first polled now. */
void tp_record_task_switch_woken(uint64_t ending, uint32_t done, uint64_t next, uint64_t at);
/* task-terminate of `task`, its last poll's end and task-poll-start of `next`, at one moment. */
void tp_record_task_end_switch(uint64_t task, uint32_t reason, uint64_t next, uint64_t at);
/* task-poll-end of `task` (sync none), then its thread's park by its executor: one call. */
void tp_record_task_poll_end_park(uint64_t task, uint32_t done, uint64_t at);
/* task-terminate of `task` and its last poll's end, then its thread's park by its executor. */
void tp_record_task_end_park(uint64_t task, uint32_t reason, uint64_t at);

/* A wait's start, with its call site's key (whose text is recorded once, as a task site's). */
void tp_record_wait_start(uint32_t kind, uintptr_t object, int64_t timeout_ns, uint64_t task,
			  uint32_t site, uint64_t at);
/* A wait's start and its end, result 0, at one moment: a wait that took what it waited for at
 * once (a semaphore's); one record. */
void tp_record_wait_at_once(uint32_t kind, uintptr_t object, int64_t timeout_ns, uint64_t task,
			    uint32_t site, uint64_t at);
/*
 * task-spawn, with its site's key (the site's address recorded the first time it is seen);
 * `small`: tp_record_spawn_small (the executor, whether the program spawned the task, and whether
 * it was created undeferred);
 * `woken`: task-wake of the task by its parent right after, at the same moment.
 */
void tp_record_task_spawn(uint64_t task, uint64_t parent, uint32_t site, uint64_t stack_id,
			  uint32_t small, bool woken, uint64_t at);

/*
 * A thread's start, with its start routine's key (a site of the recording: the routine named at
 * exit, as wait sites are, "function (file:line)" at its entry).
 */
void tp_record_thread_start(uint64_t tid, uintptr_t routine, uint64_t creator_tid);

/* task-stack with its return addresses. */
void tp_record_task_stack(uint64_t task, uint64_t stack_id, const uintptr_t *pcs, uint32_t depth);
/* wait-stack with its return addresses. */
void tp_record_wait_stack(uint32_t kind, uintptr_t object, uint64_t stack_id, const uintptr_t *pcs,
			  uint32_t depth);

/* The calling thread renamed itself: its chunks from now on carry the new name. */
void tp_recorder_thread_renamed(void);

/*
 * Whether the recorder takes every spawn's and every wait's stack (asked to:
 * TASKPROBE_RECORD_STACKS): the setting, read as the recorder starts (a load, not a call: every
 * wait asks while recording).
 */
extern bool tp_record_stacks __attribute__((visibility("hidden")));
static inline bool tp_record_wants_stacks(void)
{
	return tp_record_stacks;
}

/*
 * Thread `tid` ends (thread-stop); `by_itself`: it is the calling thread, whose buffer is
 * written out and given back.
 */
void tp_record_thread_stop(uint64_t tid, bool by_itself);

/*
 * ---- the live statistics (live.h): every event, for taskprobe top and the report ----
 * `at` as the recorder's: the event's moment, in tp_clock_now's units.
 */

/* ready: woken at once by its parent (task-wake, at the spawn's moment) */
void tp_live_task_spawn(uint64_t task, uint64_t parent, uint32_t site, bool by_program,
			bool undeferred, bool ready, uint64_t at);
/* Whether the calling thread's next spawn at `site` should capture its stack (sampled). */
int tp_live_wants_stack(uint32_t site);
void tp_live_task_stack(uint64_t stack_id, const uintptr_t *pcs, uint32_t depth);
void tp_live_task_wake(uint64_t task, uint64_t at);
void tp_live_task_poll_start(uint64_t task, uint64_t at);
/* the calling thread's unpark (tp_live_park(0)) and task-poll-start of `task`, at one moment */
void tp_live_unpark_poll_start(uint64_t task, uint64_t at);
/* site: the sync construct's key when sync is not 0 (a site row, as a task's), else 0 */
void tp_live_task_poll_end(uint64_t task, uint32_t done, uint32_t sync, uint32_t site, uint64_t at);
/* task-poll-end of `task` (sync none), then the calling thread's park (tp_live_park(1)) */
void tp_live_task_poll_end_park(uint64_t task, uint32_t done, uint64_t at);
/* task-poll-end of `ending` (sync none) and task-poll-start of `next`, at one moment */
void tp_live_task_switch(uint64_t ending, uint32_t done, uint64_t next, uint64_t at);
/* the same, with task-wake of `next` between (its first poll, once its dependences ended) */
void tp_live_task_switch_woken(uint64_t ending, uint32_t done, uint64_t next, uint64_t at);
void tp_live_task_acquire(uint64_t task, uint32_t kind, uintptr_t object, uint64_t at);
void tp_live_task_release(uint64_t task, uint32_t kind, uintptr_t object, uint64_t at);
void tp_live_region_of_interest(uint32_t on, uint32_t marker);
/* an MPI rank's identity in MPI_COMM_WORLD (its MPI_Init's end), which readers name it by, and
 * its job's and host's (the launcher's identity and the host name, NUL-terminated: mpi-init's) */
void tp_live_mpi_rank(uint32_t rank, uint32_t size, const char *job, const char *host);
/* its MPI window's start (on: MPI_Init's end) or end (MPI_Finalize's start), for its job's line */
void tp_live_mpi_window(uint32_t on);
void tp_live_task_dependence(uint64_t predecessor, uint64_t successor);
void tp_live_task_terminate(uint64_t task, uint64_t at);
/* task-terminate of `task` and its last poll's end (done, sync none), at one moment */
void tp_live_task_end(uint64_t task, uint64_t at);
/* the same, then the calling thread's park (tp_live_park(1)) */
void tp_live_task_end_park(uint64_t task, uint64_t at);
/* task-terminate of `task`, its last poll's end and task-poll-start of `next`, at one moment */
void tp_live_task_end_switch(uint64_t task, uint64_t next, uint64_t at);
void tp_live_worker(int started);
void tp_live_park(int parked);
void tp_live_thread_start(uintptr_t start_routine);
void tp_live_thread_renamed(void);
void tp_live_thread_stop(uint64_t tid);
void tp_live_wait_start(uint32_t kind, uintptr_t object, uint64_t task, uint32_t site, uint64_t at);
void tp_live_wait_end(uint64_t task, uint64_t at);
/* Whether the calling thread's wait, just started, should capture its stack (sampled). */
int tp_live_wants_wait_stack(void);
void tp_live_wait_stack(uint64_t stack_id, const uintptr_t *pcs, uint32_t depth);

/* ---- the exit report (report.h): tasks alive by spawn stack, executor threads, waits ---- */

/*
 * A task spawned and terminated, by its spawn stack (stack_table.h: its id, 0 when none was
 * captured, or TP_SPAWN_STACK_OF_EXECUTOR). The report groups stacks under their sites.
 */
void tp_report_task_spawned(uint32_t spawn_stack);
void tp_report_task_terminated(uint32_t spawn_stack);

/*
 * An executor adapter's thread (a worker, or a thread running the executor's initial task)
 * starts and ends: at exit, executor threads still there mean that the executor did not shut
 * down in order, and may still be running.
 */
void tp_report_executor_thread_started(void);
void tp_report_executor_thread_stopped(void);

/*
 * A wait of kind `kind` at call site `site_key` begins and ends on the calling thread
 * (wait-start's and wait-end's events, each at its moment `at`, tp_clock_now's): `enter` returns
 * its start (nonzero), which the wait's `leave` is handed back as `since` with the wait's kind
 * and call site's key (a wait taken at once whose start came alone ends at its start's moment);
 * `since` 0: the wait began before the report counted, and is not. Between the two the wait is
 * going on: at exit it is counted up to then. `at_once`: a wait that took what it waited for at
 * once (both events at one moment), of no time.
 */
uint64_t tp_report_waits_enter(uint32_t kind, uint32_t site_key, uint64_t at);
void tp_report_waits_leave(uint32_t kind, uint32_t site_key, uint64_t since, uint64_t at);
void tp_report_waits_at_once(uint32_t kind, uint32_t site_key);
/*
 * The wait entered at `since` (enter's) had its stack unwound after its start, for the live
 * statistics' sample: it is timed from now, which it returns (the unwinding, hundreds of us
 * cold, is the shim's, not the wait's); `since` 0 stays 0.
 */
uint64_t tp_report_waits_unwound(uint64_t since);
