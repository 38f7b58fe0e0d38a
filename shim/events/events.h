// SPDX-License-Identifier: MIT
/*
 * The event layer: every event of the probe contract (dtrace/PROBES.md, dtrace/taskprobe.d)
 * goes through here (the MPI adapter's in mpi_events.h), and nothing else in the shim fires a
 * probe. Whoever takes an event is a listener: a tracer (it raised the probe's USDT semaphore
 * when it attached) or an in-process consumer (the recorder, the live statistics, the exit
 * report). One word each:
 *
 *   tp_listeners_EVENT()   nonzero when anybody listens (tp_listeners_*: any listener);
 *   tp_tracers_EVENT()     nonzero when a tracer listens (tp_tracers_*: tracers only);
 *   tp_fire_EVENT(...)     the event itself: the probe, and each in-process consumer's share.
 *
 * Both are inline, so that an event nobody listens to costs one load and one branch where it
 * happens, and callers compute arguments only after the check. Callers that guard several events
 * with one branch OR the listeners' values. A probe fires through TP_PROBE_NAME (probes.h): its
 * one site is out of line, called only while a tracer is on the probe, so that an event inlined
 * into its callers adds no site.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "in_process_consumers.h"
#include "listeners.h"
#include "probes.h"
#include "taskprobe_live.h" /* enum tp_roi_marker */

#define TP_EVENT_LISTENERS(event, PROBE)                                                           \
	static inline unsigned tp_listeners_##event(void)                                          \
	{                                                                                          \
		return TASKPROBE_##PROBE##_ENABLED() | tp_listeners_consumers();                   \
	}

/* Whether a tracer listens to an event whose probe carries a name (made only for a tracer). */
#define TP_EVENT_TRACERS(event, PROBE)                                                             \
	static inline unsigned tp_tracers_##event(void)                                            \
	{                                                                                          \
		return TASKPROBE_##PROBE##_ENABLED();                                              \
	}

/* The block's first 24 bytes: the task-state semaphores, task-dependence's, the in-process word. */
#define TP_TASK_STATE_BYTES 24
_Static_assert(
	__builtin_offsetof(struct tp_listener_block, in_process) + sizeof(unsigned short) ==
		TP_TASK_STATE_BYTES,
	"the task-state check reads the semaphores, task-dependence's and the in-process word");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the in-process word's place below");

/* Where the in-process word's bits land in tp_listeners_task_state's value. */
#define TP_IN_PROCESS_AS_LISTENERS(bits)                                                           \
	((uint64_t)(bits) << (8 * (__builtin_offsetof(struct tp_listener_block, in_process) - 16)))

/*
 * Nonzero when anybody listens to an event that the executors' task state feeds (task-*, the
 * worker parks, the waits' task argument), in the process or by a tracer. Three loads, two ORs.
 */
static inline uint64_t tp_listeners_task_state(void)
{
	uint64_t a, b, c;
	__builtin_memcpy(&a, (const char *)&tp_listener_block, sizeof a);
	__builtin_memcpy(&b, (const char *)&tp_listener_block + 8, sizeof b);
	__builtin_memcpy(&c, (const char *)&tp_listener_block + 16, sizeof c);
	return a | b | c;
}

/* The same, tracers only: whether a task-state semaphore is raised. */
static inline uint64_t tp_tracers_task_state(void)
{
	return tp_listeners_task_state() & ~TP_IN_PROCESS_AS_LISTENERS(0xffff);
}

TP_EVENT_LISTENERS(task_spawn, TASK_SPAWN)
TP_EVENT_LISTENERS(task_stack, TASK_STACK)
TP_EVENT_LISTENERS(task_wake, TASK_WAKE)
TP_EVENT_LISTENERS(task_poll_start, TASK_POLL_START)
TP_EVENT_LISTENERS(task_poll_end, TASK_POLL_END)
TP_EVENT_LISTENERS(task_terminate, TASK_TERMINATE)
TP_EVENT_LISTENERS(task_dependence, TASK_DEPENDENCE)
TP_EVENT_LISTENERS(worker_start, WORKER_THREAD_START)
TP_EVENT_LISTENERS(worker_stop, WORKER_THREAD_STOP)
TP_EVENT_LISTENERS(worker_park, WORKER_THREAD_PARK)
TP_EVENT_LISTENERS(worker_unpark, WORKER_THREAD_UNPARK)
TP_EVENT_LISTENERS(thread_start, THREAD_START)
TP_EVENT_LISTENERS(thread_stop, THREAD_STOP)
TP_EVENT_LISTENERS(wait_start, WAIT_START)
TP_EVENT_LISTENERS(wait_end, WAIT_END)
TP_EVENT_LISTENERS(wait_stack, WAIT_STACK)
TP_EVENT_LISTENERS(task_acquire, TASK_ACQUIRE)
TP_EVENT_LISTENERS(task_release, TASK_RELEASE)
TP_EVENT_LISTENERS(region_of_interest, REGION_OF_INTEREST)
TP_EVENT_LISTENERS(mpi_init, MPI_INIT)
TP_EVENT_LISTENERS(mpi_send, MPI_SEND)
TP_EVENT_LISTENERS(mpi_recv, MPI_RECV)
TP_EVENT_LISTENERS(mpi_collective, MPI_COLLECTIVE)

TP_EVENT_TRACERS(task_spawn, TASK_SPAWN)
TP_EVENT_TRACERS(task_stack, TASK_STACK)
TP_EVENT_TRACERS(task_poll_end, TASK_POLL_END)
TP_EVENT_TRACERS(thread_start, THREAD_START)
TP_EVENT_TRACERS(wait_start, WAIT_START)
TP_EVENT_TRACERS(wait_stack, WAIT_STACK)

#undef TP_EVENT_LISTENERS
#undef TP_EVENT_TRACERS

/* Anybody listening to task-spawn or task-stack (the in-process word read once). */
static inline unsigned tp_listeners_task_spawn_or_stack(void)
{
	return TASKPROBE_TASK_SPAWN_ENABLED() | TASKPROBE_TASK_STACK_ENABLED() |
	       tp_listeners_consumers();
}

/*
 * Nonzero when anybody listens to a worker's parks or to the waits: the four semaphores, in a
 * row in the block (listeners.c), read as one word, and the in-process word with wait-stack's
 * semaphore after it as another. The only check an interposed wait makes when nobody listens.
 */
/* The in-process word's events and wait-stack's semaphore, in the two read as one. */
#define TP_IN_PROCESS_EVENTS_AND_WAIT_STACK (TP_IN_PROCESS_EVENTS | 0xffff0000u)
_Static_assert(__builtin_offsetof(struct tp_listener_block, wait_stack) ==
		       __builtin_offsetof(struct tp_listener_block, in_process) + 2,
	       "wait-stack's semaphore is the high half of the word the waits' check reads");
static inline uint64_t tp_listeners_parks_and_waits(void)
{
	uint64_t semaphores;
	__builtin_memcpy(&semaphores,
			 (const char *)&tp_listener_block + TP_PARK_AND_WAIT_SEMAPHORES_AT,
			 sizeof semaphores);
	/* atomic, as the in-process word changes with atomics (a failed write stops recording) */
	uint32_t in_process_and_wait_stack = __atomic_load_n(
		(const uint32_t *)(const void *)&tp_listener_block.in_process, __ATOMIC_RELAXED);
	return semaphores | (in_process_and_wait_stack & TP_IN_PROCESS_EVENTS_AND_WAIT_STACK);
}

/* Anybody listening to a worker's parks and unparks. */
static inline unsigned tp_listeners_park(void)
{
	return tp_listeners_worker_park() | tp_listeners_worker_unpark();
}

/*
 * Anybody listening to a worker's parks, unparks, start or stop: the events of a thread found to
 * be a worker at its waits. Park's and unpark's semaphores are read as one word, start's and
 * stop's (the first two of the others) as another, then the in-process word.
 */
_Static_assert(__builtin_offsetof(struct tp_listener_block, other) == 26,
	       "worker-thread-start's and -stop's semaphores, the first two of the others");
static inline uint32_t tp_listeners_workers(void)
{
	uint32_t parks, lifetimes;
	__builtin_memcpy(&parks, (const char *)&tp_listener_block + TP_PARK_AND_WAIT_SEMAPHORES_AT,
			 sizeof parks);
	__builtin_memcpy(&lifetimes, &tp_listener_block.other[0], sizeof lifetimes);
	return parks | lifetimes | tp_listeners_consumers();
}

/*
 * Whether an in-process consumer that is on wants the stack of the calling thread's spawn at site
 * `key`, each by its own policy: the recorder every one when asked for stacks, the live
 * statistics a sample (live.c), which the exit report shares (kept in memory for it: it counts
 * the tasks never terminated by their spawn's site, and by stack those the sample caught). A
 * stack costs a few hundred ns: one at every spawn doubled BOTS uts's time under the report.
 */
static inline bool tp_consumers_want_spawn_stack(uint32_t key)
{
	return (tp_recording() && tp_record_wants_stacks()) ||
	       (tp_live() && tp_live_wants_stack(key));
}

/* Whether one wants every wait's stack: the recorder when asked (the live statistics sample). */
static inline bool tp_consumers_want_every_wait_stack(void)
{
	return tp_recording() && tp_record_wants_stacks();
}

/*
 * The in-process consumers' share of an event: the record while recording, the live statistics'
 * update while they are on, the exit report's count while it counts (the events it counts; for
 * the others TP_NOT_REPORTED), each after `first` (a declaration or a statement). One load and one
 * branch when none is on.
 */
#define TP_IN_PROCESS_AFTER(first, record, live, report)                                           \
	do {                                                                                       \
		unsigned on_ = tp_listeners_consumers();                                           \
		if (on_) {                                                                         \
			first;                                                                     \
			if (on_ & TP_IN_PROCESS_RECORD)                                            \
				record;                                                            \
			if (on_ & TP_IN_PROCESS_LIVE)                                              \
				live;                                                              \
			if (on_ & TP_IN_PROCESS_REPORT)                                            \
				report;                                                            \
		}                                                                                  \
	} while (0)
/* TP_IN_PROCESS_AT's shares for those on, `on` (TP_IN_PROCESS_ALONE_AT's out-of-line calls). */
#define TP_IN_PROCESS_OF(on, at, record, live, report)                                             \
	do {                                                                                       \
		uint64_t at = tp_clock_now();                                                      \
		if ((on)&TP_IN_PROCESS_RECORD)                                                     \
			record;                                                                    \
		if ((on)&TP_IN_PROCESS_LIVE)                                                       \
			live;                                                                      \
		if ((on)&TP_IN_PROCESS_REPORT)                                                     \
			report;                                                                    \
	} while (0)
#define TP_IN_PROCESS(record, live, report) TP_IN_PROCESS_AFTER((void)0, record, live, report)
#define TP_NOT_REPORTED                     ((void)0)

/*
 * The same for an event the recorder and the live statistics both time: the consumers' clock
 * (tp_clock_now) read once, as `at`, which both are handed (issue 37: the recording's analysis
 * and the live statistics decide near-ties from the same moments).
 */
#define TP_IN_PROCESS_AT(at, record, live, report)                                                 \
	TP_IN_PROCESS_AFTER(uint64_t at = tp_clock_now(), record, live, report)

/*
 * The same for the events every task has (its switches, its end), when more than the probe's
 * cost counts: the recorder alone, or the live statistics, the exit report's count on or not
 * (`run`, TASKPROBE_REPORT), `at` read for them alone and the live statistics' call last (a tail
 * call: no registers kept for the others); with the recorder and another, `shared`, a call out of
 * line that reads `at` once for all (and `on_`: those on). An event the report does not count (a
 * switch) has one way to the live statistics, the report on or not; one it counts (a task's end),
 * `report` its count (reading no `at`), a way for the live statistics alone with no call before.
 */
#define TP_IN_PROCESS_ALONE_AT(at, record, live, shared)                                           \
	TP_IN_PROCESS_ALONE_WAYS(at, 0, record, live, (void)0, shared)
#define TP_IN_PROCESS_ALONE_REPORTED_AT(at, record, live, report, shared)                          \
	TP_IN_PROCESS_ALONE_WAYS(at, 1, record, live, report, shared)
/* Their ways; `reported` (a constant) says whether `report` counts the event. */
#define TP_IN_PROCESS_ALONE_WAYS(at, reported, record, live, report, shared)                       \
	do {                                                                                       \
		unsigned on_ = tp_listeners_consumers();                                           \
		if (on_ == TP_IN_PROCESS_RECORD) {                                                 \
			uint64_t at = tp_clock_now();                                              \
			record;                                                                    \
		} else if ((reported ? on_ : on_ & ~TP_IN_PROCESS_REPORT) == TP_IN_PROCESS_LIVE) { \
			uint64_t at = tp_clock_now();                                              \
			live;                                                                      \
		} else if (reported && on_ == (TP_IN_PROCESS_LIVE | TP_IN_PROCESS_REPORT)) {       \
			report;                                                                    \
			uint64_t at = tp_clock_now();                                              \
			live;                                                                      \
		} else if (on_) {                                                                  \
			shared;                                                                    \
		}                                                                                  \
	} while (0)

/*
 * site_id and site are the probe's (a tracer's: named); site_key the in-process consumers',
 * named where they are read (spawn_site.h). by_program: the program spawned the task, else its
 * executor started it (for the live view). undeferred: run at once, its parent switched out
 * until it ends (no probe argument: the recording's spawn record alone keeps it). ready: woken
 * by its parent at once, for the in-process consumers at the spawn's moment (the task-wake
 * probe follows, tp_fire_task_wake_probe). Inlined into its two callers (executor.c): kept out
 * of line, its frame cost a recorded or live spawn 27 instructions.
 */
static inline __attribute__((always_inline)) void
tp_fire_task_spawn(uint64_t task, uint64_t parent, uint64_t site_id, const char *site,
		   uint32_t site_key, uint64_t stack_id, uint32_t executor, bool by_program,
		   bool undeferred, bool ready)
{
	TP_PROBE_TASK_SPAWN(task, parent, site_id, site, stack_id, executor);
	/* the recorder alone, or the live statistics with or without the report's count (the
	 * common cases): the live statistics' call last, no registers kept for more */
	unsigned on = tp_listeners_consumers();
	if (on == TP_IN_PROCESS_RECORD) {
		tp_record_task_spawn(task, parent, site_key, stack_id,
				     tp_record_spawn_small(executor, undeferred, by_program), ready,
				     tp_clock_now());
		return;
	}
	if (on == TP_IN_PROCESS_LIVE) {
		tp_live_task_spawn(task, parent, site_key, by_program, undeferred, ready,
				   tp_clock_now());
		return;
	}
	if (on == (TP_IN_PROCESS_LIVE | TP_IN_PROCESS_REPORT)) {
		tp_report_task_spawned(tp_spawn_stack_of(by_program, stack_id, site_key));
		tp_live_task_spawn(task, parent, site_key, by_program, undeferred, ready,
				   tp_clock_now());
		return;
	}
	TP_IN_PROCESS_AT(
		at,
		tp_record_task_spawn(task, parent, site_key, stack_id,
				     tp_record_spawn_small(executor, undeferred, by_program), ready,
				     at),
		tp_live_task_spawn(task, parent, site_key, by_program, undeferred, ready, at),
		tp_report_task_spawned(tp_spawn_stack_of(by_program, stack_id, site_key)));
}

/*
 * The child of fork, to the in-process consumers alone, which start the child afresh: its one
 * thread is an executor's worker (`worker`: it was one at the fork), and polls `task` (0: none),
 * its parent's poll of it going on: a task spawned by its executor with neither parent nor site
 * (the child's root, as OpenMP's initial task is the program's), polled from now. Without it the
 * child's serial code up to its first region and after it was in no task (a forked child's
 * 100 ms before its region read as nothing). No probe fires: the child's tracers see the poll
 * going on, as they see the state of its thread.
 */
static inline void tp_fire_in_process_inherited(bool worker, uint64_t task)
{
	if (worker)
		TP_IN_PROCESS(tp_record(TP_RECORD_WORKER_START, 0, 0, 0, 0, 0, 0),
			      tp_live_worker(1), tp_report_executor_thread_started());
	if (task == 0)
		return;
	TP_IN_PROCESS_AT(
		at,
		(tp_record_task_spawn(task, 0, 0, 0,
				      tp_record_spawn_small(TP_EXECUTOR_OPENMP, false, false), true,
				      at),
		 tp_record_task_poll_start(task, at)),
		(tp_live_task_spawn(task, 0, 0, false, false, true, at),
		 tp_live_task_poll_start(task, at)),
		tp_report_task_spawned(tp_spawn_stack_of(false, 0, 0)));
}

static inline void tp_fire_task_stack(uint64_t task, uint64_t stack_id, const uintptr_t *pcs,
				      uint32_t depth)
{
	TP_PROBE_TASK_STACK(task, stack_id, (uintptr_t *)pcs, depth);
	TP_IN_PROCESS(tp_record_task_stack(task, stack_id, pcs, depth),
		      tp_live_task_stack(stack_id, pcs, depth), TP_NOT_REPORTED);
}

/* The task-wake probe alone: the in-process consumers took the wake with the spawn. */
static inline void tp_fire_task_wake_probe(uint64_t task, uint64_t waker)
{
	TP_PROBE_TASK_WAKE(task, waker);
}

static inline void tp_fire_task_wake(uint64_t task, uint64_t waker)
{
	TP_PROBE_TASK_WAKE(task, waker);
	TP_IN_PROCESS_AT(at, tp_record_task_wake(task, waker, at), tp_live_task_wake(task, at),
			 TP_NOT_REPORTED);
}

static inline void tp_fire_task_poll_start(uint64_t task)
{
	TP_PROBE_TASK_POLL_START(task);
	TP_IN_PROCESS_AT(at, tp_record_task_poll_start(task, at), tp_live_task_poll_start(task, at),
			 TP_NOT_REPORTED);
}

/*
 * An executor unparks the calling thread for the poll of `task` it starts at once:
 * worker-thread-unpark and task-poll-start, the two probes in that order, at one moment for the
 * in-process consumers (one clock read).
 */
__attribute__((noinline, unused)) static void tp_fire_unpark_poll_start_shared(unsigned on,
									       uint64_t task)
{
	TP_IN_PROCESS_OF(on, at, tp_record_unpark_poll_start(task, at),
			 tp_live_unpark_poll_start(task, at), TP_NOT_REPORTED);
}

static inline void tp_fire_unpark_poll_start(uint64_t task)
{
	TP_PROBE_WORKER_THREAD_UNPARK();
	TP_PROBE_TASK_POLL_START(task);
	TP_IN_PROCESS_ALONE_AT(at, tp_record_unpark_poll_start(task, at),
			       tp_live_unpark_poll_start(task, at),
			       tp_fire_unpark_poll_start_shared(on_, task));
}

/*
 * A task woken as it is first scheduled (its dependences ended: OMPT reports no moment for it),
 * on a thread that polls no task: task-wake (by no task), worker-thread-unpark if `unparked`,
 * then task-poll-start, the probes in that order, at one moment for the in-process consumers.
 */
static inline void tp_fire_wake_poll_start(uint64_t task, bool unparked)
{
	TP_PROBE_TASK_WAKE(task, 0);
	if (unparked)
		TP_PROBE_WORKER_THREAD_UNPARK();
	TP_PROBE_TASK_POLL_START(task);
	TP_IN_PROCESS_AT(at, tp_record_wake_poll_start(task, unparked, at),
			 (tp_live_task_wake(task, at), unparked ? tp_live_park(0) : (void)0,
			  tp_live_task_poll_start(task, at)),
			 TP_NOT_REPORTED);
}

/*
 * sync: the sync region the task waits in when done is 0 (enum tp_sync_kind), else 0; site_id and
 * site are the probe's (a tracer's: the sync construct's, named), site_key the in-process
 * consumers' (0: none, and always when sync is 0).
 */
static inline void tp_fire_task_poll_end(uint64_t task, uint32_t done, uint32_t sync,
					 uint64_t site_id, const char *site, uint32_t site_key)
{
	TP_PROBE_TASK_POLL_END(task, done, sync, site_id, site);
	TP_IN_PROCESS_AT(at, tp_record_task_poll_end(task, done, sync, site_key, at),
			 tp_live_task_poll_end(task, done, sync, site_key, at), TP_NOT_REPORTED);
}

/*
 * tp_fire_task_poll_end (sync none), then the calling thread's park by its executor
 * (tp_fire_worker_park, not by a wait): the two probes in that order, at one moment for the
 * in-process consumers (the recorder's park record folds into the poll's end).
 */
static inline void tp_fire_task_poll_end_park(uint64_t task, uint32_t done)
{
	TP_PROBE_TASK_POLL_END(task, done, 0, 0, NULL);
	TP_PROBE_WORKER_THREAD_PARK();
	TP_IN_PROCESS_AT(at, tp_record_task_poll_end_park(task, done, at),
			 tp_live_task_poll_end_park(task, done, at), TP_NOT_REPORTED);
}

/*
 * tp_fire_task_poll_end of a task that waits in sync region `sync` (not 0) at the construct of site
 * key `site_key`, with no site for a tracer (none reads it: tp_tracers_task_poll_end), then the
 * calling thread's park by its executor (tp_fire_worker_park): the two probes in that order, the
 * in-process consumers' shares of both with one read of the word, in the same order.
 */
static inline void tp_fire_task_poll_end_in_sync_park(uint64_t task, uint32_t sync,
						      uint32_t site_key)
{
	TP_PROBE_TASK_POLL_END(task, 0, sync, 0, NULL);
	TP_PROBE_WORKER_THREAD_PARK();
	TP_IN_PROCESS_AT(at,
			 (tp_record_task_poll_end(task, 0, sync, site_key, at),
			  tp_record_worker_park(false)),
			 (tp_live_task_poll_end(task, 0, sync, site_key, at), tp_live_park(1)),
			 TP_NOT_REPORTED);
}

/* The in-process consumers' shares of a task switch (tp_fire_task_switch_of), several on. */
__attribute__((noinline, unused)) static void
tp_fire_task_switch_shared(unsigned on, uint64_t ending, uint32_t done, uint64_t next, bool woken)
{
	TP_IN_PROCESS_OF(on, at,
			 woken ? tp_record_task_switch_woken(ending, done, next, at)
			       : tp_record_task_switch(ending, done, next, at),
			 woken ? tp_live_task_switch_woken(ending, done, next, at)
			       : tp_live_task_switch(ending, done, next, at),
			 TP_NOT_REPORTED);
}

/*
 * A task switch on the calling thread: task-poll-end of `ending` (`done`: it finished, after its
 * task-terminate; sync none), task-wake of `next` when `woken` (a constant: no waker), and
 * task-poll-start of `next`, the probes in that order, at one moment for the in-process
 * consumers (one clock read, one call to each).
 */
static inline void tp_fire_task_switch_of(uint64_t ending, uint32_t done, uint64_t next, bool woken)
{
	TP_PROBE_TASK_POLL_END(ending, done, 0, 0, NULL);
	if (woken)
		TP_PROBE_TASK_WAKE(next, 0);
	TP_PROBE_TASK_POLL_START(next);
	TP_IN_PROCESS_ALONE_AT(at,
			       woken ? tp_record_task_switch_woken(ending, done, next, at)
				     : tp_record_task_switch(ending, done, next, at),
			       woken ? tp_live_task_switch_woken(ending, done, next, at)
				     : tp_live_task_switch(ending, done, next, at),
			       tp_fire_task_switch_shared(on_, ending, done, next, woken));
}

/* The in-process consumers' shares of a task's end with its switch, several on. */
__attribute__((noinline, unused)) static void
tp_fire_task_end_switch_shared(unsigned on, uint64_t task, uint32_t reason, uint32_t spawn_stack,
			       uint64_t next)
{
	TP_IN_PROCESS_OF(on, at, tp_record_task_end_switch(task, reason, next, at),
			 tp_live_task_end_switch(task, next, at),
			 tp_report_task_terminated(spawn_stack));
}

/*
 * A task's end and the switch from its last poll (tp_fire_task_terminate, then
 * tp_fire_task_switch_of with done 1): the three probes in that order, one moment and one call to
 * each in-process consumer (the recorder's three records fold into two).
 */
static inline void tp_fire_task_end_switch(uint64_t task, uint32_t reason, uint32_t spawn_stack,
					   uint64_t next)
{
	TP_PROBE_TASK_TERMINATE(task, reason);
	TP_PROBE_TASK_POLL_END(task, 1, 0, 0, NULL);
	TP_PROBE_TASK_POLL_START(next);
	TP_IN_PROCESS_ALONE_REPORTED_AT(
		at, tp_record_task_end_switch(task, reason, next, at),
		tp_live_task_end_switch(task, next, at), tp_report_task_terminated(spawn_stack),
		tp_fire_task_end_switch_shared(on_, task, reason, spawn_stack, next));
}

/*
 * A task's end and the end of its last poll (tp_fire_task_terminate, then tp_fire_task_poll_end
 * with done 1, sync none): the two probes in that order, at one moment for the in-process
 * consumers.
 */
static inline void tp_fire_task_end(uint64_t task, uint32_t reason, uint32_t spawn_stack)
{
	TP_PROBE_TASK_TERMINATE(task, reason);
	TP_PROBE_TASK_POLL_END(task, 1, 0, 0, NULL);
	TP_IN_PROCESS_AT(at,
			 (tp_record_task_terminate(task, reason, at),
			  tp_record_task_poll_end(task, 1, 0, 0, at)),
			 tp_live_task_end(task, at), tp_report_task_terminated(spawn_stack));
}

/*
 * tp_fire_task_end, then the calling thread's park by its executor (tp_fire_worker_park, not by
 * a wait): the three probes in that order, one call to each in-process consumer but the
 * recorder (its park record folds into the end's).
 */
__attribute__((noinline, unused)) static void
tp_fire_task_end_park_shared(unsigned on, uint64_t task, uint32_t reason, uint32_t spawn_stack)
{
	TP_IN_PROCESS_OF(on, at, tp_record_task_end_park(task, reason, at),
			 tp_live_task_end_park(task, at), tp_report_task_terminated(spawn_stack));
}

static inline void tp_fire_task_end_park(uint64_t task, uint32_t reason, uint32_t spawn_stack)
{
	TP_PROBE_TASK_TERMINATE(task, reason);
	TP_PROBE_TASK_POLL_END(task, 1, 0, 0, NULL);
	TP_PROBE_WORKER_THREAD_PARK();
	TP_IN_PROCESS_ALONE_REPORTED_AT(
		at, tp_record_task_end_park(task, reason, at), tp_live_task_end_park(task, at),
		tp_report_task_terminated(spawn_stack),
		tp_fire_task_end_park_shared(on_, task, reason, spawn_stack));
}

/* The task holds mutual exclusion `object` of `kind` (enum tp_exclusion_kind) from now. */
static inline void tp_fire_task_acquire(uint64_t task, uint32_t kind, uintptr_t object)
{
	TP_PROBE_TASK_ACQUIRE(task, kind, object);
	TP_IN_PROCESS_AT(at, tp_record_at(TP_RECORD_TASK_ACQUIRE, kind, 2, task, object, 0, 0, at),
			 tp_live_task_acquire(task, kind, object, at), TP_NOT_REPORTED);
}

/* The task lets `object` go: its next acquire, by any task, comes after. */
static inline void tp_fire_task_release(uint64_t task, uint32_t kind, uintptr_t object)
{
	TP_PROBE_TASK_RELEASE(task, kind, object);
	TP_IN_PROCESS_AT(at, tp_record_at(TP_RECORD_TASK_RELEASE, kind, 2, task, object, 0, 0, at),
			 tp_live_task_release(task, kind, object, at), TP_NOT_REPORTED);
}

/*
 * The program's region of interest starts (on 1) or stops (0), marked by the call `marker` (enum
 * tp_roi_marker: the in-process consumers' words; the probe carries `on` alone).
 */
static inline void tp_fire_region_of_interest(uint32_t on, uint32_t marker)
{
	TP_PROBE_REGION_OF_INTEREST(on);
	TP_IN_PROCESS(tp_record(TP_RECORD_REGION_OF_INTEREST, tp_record_roi_small(on, marker), 0, 0,
				0, 0, 0),
		      tp_live_region_of_interest(on, marker), TP_NOT_REPORTED);
}

/* spawn_stack: the task's, of tp_spawn_stack_of at its spawn (no probe argument: the report's) */
static inline void tp_fire_task_terminate(uint64_t task, uint32_t reason, uint32_t spawn_stack)
{
	TP_PROBE_TASK_TERMINATE(task, reason);
	TP_IN_PROCESS_AT(at, tp_record_task_terminate(task, reason, at),
			 tp_live_task_terminate(task, at), tp_report_task_terminated(spawn_stack));
}

/* The live statistics keep it for the span (work_span.h), the recorder for the converter's. */
static inline void tp_fire_task_dependence(uint64_t predecessor, uint64_t successor)
{
	TP_PROBE_TASK_DEPENDENCE(predecessor, successor);
	TP_IN_PROCESS(tp_record(TP_RECORD_TASK_DEPENDENCE, 0, 2, predecessor, successor, 0, 0),
		      tp_live_task_dependence(predecessor, successor), TP_NOT_REPORTED);
}

static inline void tp_fire_worker_start(void)
{
	TP_PROBE_WORKER_THREAD_START();
	TP_IN_PROCESS(tp_record(TP_RECORD_WORKER_START, 0, 0, 0, 0, 0, 0), tp_live_worker(1),
		      tp_report_executor_thread_started());
}

static inline void tp_fire_worker_stop(void)
{
	TP_PROBE_WORKER_THREAD_STOP();
	TP_IN_PROCESS(tp_record(TP_RECORD_WORKER_STOP, 0, 0, 0, 0, 0, 0), tp_live_worker(0),
		      tp_report_executor_thread_stopped());
}

/*
 * by_wait: an interposed wait parks the thread, right after its wait-start; else its executor,
 * right after the poll it ends (the recorder keeps the park in that event's record).
 */
static inline void tp_fire_worker_park(bool by_wait)
{
	TP_PROBE_WORKER_THREAD_PARK();
	TP_IN_PROCESS(tp_record_worker_park(by_wait), tp_live_park(1), TP_NOT_REPORTED);
}

/*
 * by_wait: the wait that parked the thread ends (right after its wait-end, or a jump out of it);
 * else its executor unparks it, for the poll it starts right after.
 */
static inline void tp_fire_worker_unpark(bool by_wait)
{
	TP_PROBE_WORKER_THREAD_UNPARK();
	TP_IN_PROCESS(tp_record_worker_unpark(by_wait), tp_live_park(0), TP_NOT_REPORTED);
}

/* start_routine_name is the probe's (a tracer's: named); the in-process consumers name the address.
 */
static inline void tp_fire_thread_start(uint64_t tid, uintptr_t start_routine, uint64_t creator_tid,
					const char *start_routine_name)
{
	TP_PROBE_THREAD_START(tid, start_routine, creator_tid, start_routine_name);
	TP_IN_PROCESS(tp_record_thread_start(tid, start_routine, creator_tid),
		      tp_live_thread_start(start_routine), TP_NOT_REPORTED);
}

/*
 * `by_itself`: the calling thread is the one that ends (its last event: the recorder writes its
 * buffer out); false when the exiting thread ends the others at exit.
 */
static inline void tp_fire_thread_stop(uint64_t tid, bool by_itself)
{
	TP_PROBE_THREAD_STOP(tid);
	TP_IN_PROCESS(tp_record_thread_stop(tid, by_itself), tp_live_thread_stop(tid),
		      TP_NOT_REPORTED);
}

/*
 * The in-process consumers' shares of wait-start, as TP_IN_PROCESS (`on`: those on): out of line,
 * as the wait events' are when more than the recorder is on (tp_fire_wait_start).
 */
__attribute__((noinline, unused)) static uint64_t
tp_fire_wait_start_shared(unsigned on, uint32_t kind, uintptr_t object, int64_t timeout_ns,
			  uint64_t task, uint32_t site_key, uint64_t *moment)
{
	uint64_t since = 0, at = tp_clock_now();
	*moment = at;
	if (on & TP_IN_PROCESS_RECORD)
		tp_record_wait_start(kind, object, timeout_ns, task, site_key, at);
	if (on & TP_IN_PROCESS_LIVE)
		tp_live_wait_start(kind, object, task, site_key, at);
	if (on & TP_IN_PROCESS_REPORT)
		since = tp_report_waits_enter(kind, site_key, at);
	return since;
}

/*
 * site_id and site are the probe's (a tracer's: named, as a task's site); site_key the in-process
 * consumers' (spawn_site.h: one per call address, named where it is read). Returns what the
 * wait's wait-end hands the in-process consumers back (`since`): the exit report's start of the
 * wait, 0 when it does not count it. The in-process consumers as TP_IN_PROCESS, the recorder
 * alone (recording's common case) with one call and no registers kept for the others; the wait
 * events are in line in their one caller (waits.c). `*moment`: the moment the in-process
 * consumers were given (tp_clock_now's), 0 when none listens: a wait taken at once ends at it.
 */
static inline __attribute__((always_inline)) uint64_t
tp_fire_wait_start(uint32_t kind, uintptr_t object, int64_t timeout_ns, uint64_t task,
		   uint64_t site_id, const char *site, uint32_t site_key, uint64_t *moment)
{
	TP_PROBE_WAIT_START(kind, object, timeout_ns, task, site_id, site);
	unsigned on = tp_listeners_consumers();
	*moment = 0;
	if (on == TP_IN_PROCESS_RECORD) {
		*moment = tp_clock_now();
		tp_record_wait_start(kind, object, timeout_ns, task, site_key, *moment);
		return 0;
	}
	return on ? tp_fire_wait_start_shared(on, kind, object, timeout_ns, task, site_key, moment)
		  : 0;
}

/*
 * Right after wait-start, on the same thread: the program's stack at the wait. `*since`: what
 * wait-start returned, the exit report's start of the wait, which a stack unwound after the
 * start (`unwound_after`: the live statistics' sample) moves past the unwinding.
 */
static inline void tp_fire_wait_stack(uint32_t kind, uintptr_t object, uint64_t stack_id,
				      const uintptr_t *pcs, uint32_t depth, bool unwound_after,
				      uint64_t *since)
{
	TP_PROBE_WAIT_STACK(kind, object, stack_id, (uintptr_t *)pcs, depth);
	TP_IN_PROCESS(tp_record_wait_stack(kind, object, stack_id, pcs, depth),
		      tp_live_wait_stack(stack_id, pcs, depth),
		      *since = unwound_after ? tp_report_waits_unwound(*since) : *since);
}

/* The in-process consumers' shares of wait-end, as wait-start's (tp_fire_wait_start_shared). */
__attribute__((noinline, unused)) static void
tp_fire_wait_end_shared(unsigned on, uint32_t kind, uintptr_t object, int64_t result, uint64_t task,
			uint32_t site_key, uint64_t since, uint64_t moment)
{
	uint64_t at = moment != 0 ? moment : tp_clock_now();
	if (on & TP_IN_PROCESS_RECORD)
		tp_record_wait_end(kind, object, result, task, at);
	if (on & TP_IN_PROCESS_LIVE)
		tp_live_wait_end(task, at);
	if (on & TP_IN_PROCESS_REPORT)
		tp_report_waits_leave(kind, site_key, since, at);
}

/*
 * site_key and since: the wait's wait-start's (its call site's key, and what it returned).
 * `moment`: the in-process consumers' moment of the wait's end, 0 to read the clock now (a wait
 * taken at once whose wait-start had to come alone, with its stack: its start's moment). The
 * recorder alone as wait-start's: then a tail call.
 */
static inline __attribute__((always_inline)) void tp_fire_wait_end(uint32_t kind, uintptr_t object,
								   int64_t result, uint64_t task,
								   uint32_t site_key,
								   uint64_t since, uint64_t moment)
{
	TP_PROBE_WAIT_END(kind, object, result, task);
	unsigned on = tp_listeners_consumers();
	if (on == TP_IN_PROCESS_RECORD)
		tp_record_wait_end(kind, object, result, task,
				   moment != 0 ? moment : tp_clock_now());
	else if (on)
		tp_fire_wait_end_shared(on, kind, object, result, task, site_key, since, moment);
}

/* The in-process consumers' shares of a wait taken at once, as wait-start's and wait-end's. */
__attribute__((noinline, unused)) static void
tp_fire_wait_at_once_shared(unsigned on, uint32_t kind, uintptr_t object, int64_t timeout_ns,
			    uint64_t task, uint32_t site_key)
{
	uint64_t at = tp_clock_now();
	if (on & TP_IN_PROCESS_RECORD)
		tp_record_wait_at_once(kind, object, timeout_ns, task, site_key, at);
	if (on & TP_IN_PROCESS_LIVE) {
		tp_live_wait_start(kind, object, task, site_key, at);
		tp_live_wait_end(task, at);
	}
	if (on & TP_IN_PROCESS_REPORT)
		tp_report_waits_at_once(kind, site_key);
}

/*
 * A wait that took what it waited for at once (a semaphore that could be taken: semaphore.c):
 * wait-start, then wait-end with result 0, each probe as for any wait (their arguments
 * tp_fire_wait_start's and tp_fire_wait_end's); the in-process consumers are given both at one
 * moment, one clock read (the time between is the shim's own, not the program's wait), the
 * recorder with one call that makes one record.
 */
static inline __attribute__((always_inline)) void
tp_fire_wait_at_once(uint32_t kind, uintptr_t object, int64_t timeout_ns, uint64_t task,
		     uint64_t site_id, const char *site, uint32_t site_key)
{
	TP_PROBE_WAIT_START(kind, object, timeout_ns, task, site_id, site);
	TP_PROBE_WAIT_END(kind, object, 0, task);
	unsigned on = tp_listeners_consumers();
	if (on == TP_IN_PROCESS_RECORD)
		tp_record_wait_at_once(kind, object, timeout_ns, task, site_key, tp_clock_now());
	else if (on)
		tp_fire_wait_at_once_shared(on, kind, object, timeout_ns, task, site_key);
}
