// SPDX-License-Identifier: MIT
/*
 * The interface between executor adapters (one file each in shim/adapters/, such as OpenMP's
 * ompt.c) and the task and worker probes. An adapter translates its executor's callbacks into these
 * calls; the shim keeps the per-thread current task, which feeds the parent, waker and wait-task
 * arguments. They are inline because an executor calls them for every task: with no tracer attached
 * each is a few instructions. Nothing fires on a thread that the process's exit already reported
 * stopped. How to add an adapter: docs/contributing.md, "Adding an executor".
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "spawn_site.h"
#include "thread_state.h"

/* enum tp_executor (task-spawn's) and tp_terminate_reason (task-terminate's) are the contract's:
 * taskprobe_contract.h, through events.h. */

/*
 * Whether any probe is on that fires task events or reads the current task (wait-start/wait-end's
 * task argument, the park rule), or the exit report counts tasks. With none, nobody can see task
 * state, so an adapter keeps none: a tracer that attaches later sees each task from its next
 * event on, under an id given then.
 *
 * In two steps, for the callbacks an executor makes for every task: tp_listeners_task_state_maybe
 * (three loads and a branch, inline) and, only when it says yes, tp_listeners_task_state_confirmed
 * (what is left may be only the held mark of a traced period that ended, which it drops: that
 * rare case out of line, the check a compare at every traced event). A callback that calls the
 * second from a function of its own (tail-called) saves no registers on its untraced path.
 * tp_listeners_task_state_checked is both at once.
 */
static inline bool tp_listeners_task_state_maybe(void)
{
	return __builtin_expect(tp_listeners_task_state() != 0, 0);
}

/* tp_listeners_task_state_confirmed's when the held mark alone shows: false when tracing
 * stopped (the state held is dropped), true when a probe listens still (tp_task_state_drop). */
bool tp_listeners_task_state_unless_dropped(void);

static inline bool tp_listeners_task_state_confirmed(void)
{
	if (__builtin_expect(
		    tp_listeners_task_state() == TP_IN_PROCESS_AS_LISTENERS(TP_TASK_STATE_HELD), 0))
		return tp_listeners_task_state_unless_dropped();
	return true;
}

static inline bool tp_listeners_task_state_checked(void)
{
	return tp_listeners_task_state_maybe() && tp_listeners_task_state_confirmed();
}

/* Gives the calling thread a new block of task ids. */
void tp_task_id_block(struct tp_thread *self);

/* A new task id: nonzero, never reused in this process. Ids come from per-thread blocks. */
static inline uint64_t tp_task_new_id(void)
{
	struct tp_thread *self = tp_thread_self();
	if (__builtin_expect(self->next_task_id == self->task_id_limit, 0))
		tp_task_id_block(self);
	return self->next_task_id++;
}

/* Whether a task comes from a spawn call in the program, or the executor starts it itself. */
enum tp_spawn_kind {
	TP_SPAWNED_BY_PROGRAM,  /* its spawn stack is captured */
	TP_STARTED_BY_EXECUTOR, /* no spawn stack: the program made no call for it */
};

/* task-wake, with the calling thread's current task as waker. */
static inline void tp_task_woken(uint64_t task)
{
	struct tp_thread *self = tp_thread_self();
	if (tp_listeners_task_wake() && tp_thread_live(self))
		tp_fire_task_wake(task, tp_thread_task(self));
}

uint32_t tp_task_spawn_traced(uint64_t task, enum tp_executor executor, enum tp_spawn_kind kind,
			      const void *site_address, bool undeferred, bool ready);

/*
 * task-spawn, with the calling thread's current task as parent, and task-stack. `site_address`
 * is the return address of the program's spawn call (NULL: none), named as the task's spawn site
 * (spawn_site.h). For a task the program spawned, the spawn stack is captured while a tracer is
 * on either probe or an in-process consumer wants it (tp_consumers_want_spawn_stack: the exit
 * report every one, the recorder every one when asked for stacks, the live statistics a sample).
 * Returns the task's spawn stack (stack_table.h: its id, 0 when none was captured, or
 * TP_SPAWN_STACK_OF_EXECUTOR), to hand to tp_task_terminated.
 * `undeferred`: the executor runs the task at once, its parent switched out until it ends (the
 * recording keeps it: no probe argument). `ready`: the task is ready at once, its task-wake (by
 * its parent) right after (after its task-stack): the in-process consumers take it with the
 * spawn, at its moment.
 */
static inline uint32_t tp_task_spawned(uint64_t task, enum tp_executor executor,
				       enum tp_spawn_kind kind, const void *site_address,
				       bool undeferred, bool ready)
{
	if (tp_listeners_task_spawn_or_stack() == 0) {
		if (ready)
			tp_task_woken(task);
		return 0;
	}
	return tp_task_spawn_traced(task, executor, kind, site_address, undeferred, ready);
}

/*
 * The contract's site id of key `key` (spawn_site.h), named now if it is new, for a tracer that
 * reads the site's text. Naming reads debug information (milliseconds), and that is taskprobe's
 * time, not the program's: when the calling thread polls a task, that poll ends before the
 * naming (task-poll-end, done 0, sync none) and starts again after it (PROBES.md), so no
 * task's poll, wait or delay counts it.
 */
uint32_t tp_site_named_outside_poll(uint32_t key);

/* task-poll-start; the task becomes the calling thread's current task. */
static inline void tp_task_poll_start(uint64_t task)
{
	struct tp_thread *self = tp_thread_self();
	tp_thread_set_task(self, task);
	if (tp_listeners_task_poll_start() && tp_thread_live(self))
		tp_fire_task_poll_start(task);
}

/*
 * task-poll-start for an executor that unparks the calling thread to poll `task` (if it is
 * parked): worker-thread-unpark, then task-poll-start, at one moment.
 */
static inline void tp_task_unpark_poll_start(uint64_t task)
{
	struct tp_thread *self = tp_thread_self();
	if (!tp_listeners_task_poll_start() || !tp_thread_unpark_unfired(self)) {
		tp_thread_unpark(self);
		tp_task_poll_start(task);
		return;
	}
	tp_thread_set_task(self, task);
	tp_fire_unpark_poll_start(task);
}

/*
 * task-wake of `task` (tp_task_woken), then its poll's start (tp_task_unpark_poll_start), at one
 * moment: a task woken as it is first scheduled, on a thread that polls no task.
 */
static inline void tp_task_wake_poll_start(uint64_t task)
{
	struct tp_thread *self = tp_thread_self();
	if (!tp_listeners_task_wake() || !tp_listeners_task_poll_start() || !tp_thread_live(self) ||
	    tp_thread_task(self) != 0 || (self->parked && self->parked_by != NULL)) {
		tp_task_woken(task);
		tp_task_unpark_poll_start(task);
		return;
	}
	bool unparked = tp_thread_unpark_unfired(self);
	tp_thread_set_task(self, task);
	tp_fire_wake_poll_start(task, unparked);
}

/*
 * task-poll-end; the thread polls no task afterwards. `sync`: the sync region the task waits in
 * (a poll that does not finish it), else TP_SYNC_NONE.
 */
static inline void tp_task_poll_end(uint64_t task, bool done, enum tp_sync_kind sync)
{
	struct tp_thread *self = tp_thread_self();
	tp_thread_set_task(self, 0);
	if (tp_listeners_task_poll_end() && tp_thread_live(self))
		tp_fire_task_poll_end(task, (uint32_t)done, (uint32_t)sync, 0, NULL, 0);
}

/*
 * tp_task_poll_switch's and tp_task_poll_switch_woken's: `woken` a constant, so that each is the
 * code of its own events alone.
 */
static inline __attribute__((always_inline)) void tp_task_poll_switch_of(uint64_t ending, bool done,
									 uint64_t next, bool woken)
{
	struct tp_thread *self = tp_thread_self();
	if (__builtin_expect(self->parked, 0)) {
		tp_task_poll_end(ending, done, TP_SYNC_NONE);
		if (woken)
			tp_task_woken(next);
		tp_thread_unpark(self);
		tp_task_poll_start(next);
		return;
	}
	tp_thread_set_task(self, next);
	if ((tp_listeners_task_poll_end() | tp_listeners_task_poll_start() |
	     (woken ? tp_listeners_task_wake() : 0)) &&
	    tp_thread_live(self))
		tp_fire_task_switch_of(ending, (uint32_t)done, next, woken);
}

/*
 * A task switch: task-poll-end of `ending` (`done`: it finished, tp_task_terminated said so
 * before; sync none), then task-poll-start of `next`, at one moment; a parked thread is unparked
 * between the two. `next` becomes the calling thread's current task.
 */
static inline __attribute__((always_inline)) void tp_task_poll_switch(uint64_t ending, bool done,
								      uint64_t next)
{
	tp_task_poll_switch_of(ending, done, next, false);
}

/*
 * The same to a task made not ready (its dependences) and polled now for the first time: its
 * task-wake between the two (no waker: the thread polls no task then), at the same moment.
 */
static inline void tp_task_poll_switch_woken(uint64_t ending, bool done, uint64_t next)
{
	tp_task_poll_switch_of(ending, done, next, true);
}

void tp_task_poll_end_in_sync_traced(uint64_t task, enum tp_sync_kind sync,
				     const void *site_address);

/*
 * task-poll-end of a task that waits in sync region `sync` (not TP_SYNC_NONE) of the construct
 * whose call in the program returns to `site_address` (NULL: none), named as a task's site (for
 * a tracer, outside the poll: tp_site_named_outside_poll). The thread polls no task afterwards.
 */
static inline void tp_task_poll_end_in_sync(uint64_t task, enum tp_sync_kind sync,
					    const void *site_address)
{
	if (tp_listeners_task_poll_end() && tp_thread_live(tp_thread_self()))
		tp_task_poll_end_in_sync_traced(task, sync, site_address);
	else
		tp_thread_set_task(tp_thread_self(), 0);
}

/*
 * task-acquire: the calling thread's task `task` holds mutual exclusion `object` (of `kind`)
 * from now; task-release: it lets it go.
 */
static inline void tp_task_acquired(uint64_t task, enum tp_exclusion_kind kind, uintptr_t object)
{
	if (tp_listeners_task_acquire() && tp_thread_live(tp_thread_self()))
		tp_fire_task_acquire(task, (uint32_t)kind, object);
}

static inline void tp_task_released(uint64_t task, enum tp_exclusion_kind kind, uintptr_t object)
{
	if (tp_listeners_task_release() && tp_thread_live(tp_thread_self()))
		tp_fire_task_release(task, (uint32_t)kind, object);
}

/*
 * region-of-interest: the program marks where the part of its run to analyse starts or stops, by
 * the call `marker` (enum tp_roi_marker).
 */
static inline void tp_region_of_interest(bool on, uint32_t marker)
{
	if (tp_listeners_region_of_interest() && tp_thread_live(tp_thread_self()))
		tp_fire_region_of_interest(on, marker);
}

/* task-dependence: `successor` may start only once `predecessor` has ended. */
static inline void tp_task_dependence(uint64_t predecessor, uint64_t successor)
{
	if (tp_listeners_task_dependence() && tp_thread_live(tp_thread_self()))
		tp_fire_task_dependence(predecessor, successor);
}

/*
 * task-terminate: call before the final tp_task_poll_end(task, true), with the spawn stack
 * tp_task_spawned returned.
 */
static inline void tp_task_terminated(uint64_t task, enum tp_terminate_reason reason,
				      uint32_t spawn_stack)
{
	if (tp_listeners_task_terminate() && tp_thread_live(tp_thread_self()))
		tp_fire_task_terminate(task, (uint32_t)reason, spawn_stack);
}

/*
 * A task's end (tp_task_terminated, `spawn_stack` its spawn's) and the end of its last poll on
 * the calling thread (tp_task_poll_end, done), at one moment.
 */
static inline void tp_task_ended(uint64_t task, enum tp_terminate_reason reason,
				 uint32_t spawn_stack)
{
	struct tp_thread *self = tp_thread_self();
	tp_thread_set_task(self, 0);
	if ((tp_listeners_task_terminate() | tp_listeners_task_poll_end()) && tp_thread_live(self))
		tp_fire_task_end(task, (uint32_t)reason, spawn_stack);
}

/*
 * A task's end (tp_task_terminated, `spawn_stack` its spawn's) and the switch from its last poll
 * to `next`'s (tp_task_poll_switch), at one moment.
 */
static inline void tp_task_end_switch(uint64_t task, enum tp_terminate_reason reason,
				      uint32_t spawn_stack, uint64_t next)
{
	struct tp_thread *self = tp_thread_self();
	if (__builtin_expect(self->parked, 0)) {
		tp_task_terminated(task, reason, spawn_stack);
		tp_task_poll_switch(task, true, next);
		return;
	}
	tp_thread_set_task(self, next);
	if ((tp_listeners_task_terminate() | tp_listeners_task_poll_end() |
	     tp_listeners_task_poll_start()) &&
	    tp_thread_live(self))
		tp_fire_task_end_switch(task, (uint32_t)reason, spawn_stack, next);
}

/*
 * Whether the calling thread's task events may take the quick way (the *_quick calls below), as
 * nearly all do: an in-process consumer is on (so every task event is listened to, and the task
 * state is held: nothing to drop) and the thread may fire. Then the thread's task
 * (tp_thread_task) and its park (parked, parked_by) tell which quick call an event is, each
 * stating what it needs; else the calls above, which take every case. A few loads, no call: for
 * the callbacks an executor makes for every task.
 */
static inline bool tp_task_events_quick(const struct tp_thread *self)
{
	unsigned in_process = tp_listeners_in_process();
	return (in_process & TP_TASK_STATE_HELD) && (in_process & TP_IN_PROCESS_EVENTS) &&
	       tp_thread_live(self);
}

/*
 * tp_task_poll_switch(ending, false, next) and tp_task_end_switch, the thread polling `ending`
 * (tp_thread_task, so in the current epoch) and not parked: its task set in that epoch, the
 * events fired (the consumers' share a tail call when one is on alone).
 */
static inline __attribute__((always_inline)) void
tp_task_poll_switch_quick(struct tp_thread *self, uint64_t ending, uint64_t next)
{
	self->task = next;
	tp_fire_task_switch_of(ending, 0, next, false);
}

static inline __attribute__((always_inline)) void
tp_task_end_switch_quick(struct tp_thread *self, uint64_t task, enum tp_terminate_reason reason,
			 uint32_t spawn_stack, uint64_t next)
{
	self->task = next;
	tp_fire_task_end_switch(task, (uint32_t)reason, spawn_stack, next);
}

/* tp_task_poll_switch_woken, after tp_task_terminated when `finished` (`reason`,
 * `spawn_stack`): the thread as tp_task_poll_switch_quick's. */
static inline __attribute__((always_inline)) void
tp_task_switch_woken_quick(struct tp_thread *self, uint64_t ending, bool finished,
			   enum tp_terminate_reason reason, uint32_t spawn_stack, uint64_t next)
{
	if (finished)
		tp_fire_task_terminate(ending, (uint32_t)reason, spawn_stack);
	self->task = next;
	tp_fire_task_switch_of(ending, finished, next, true);
}

/* tp_task_ended_park: the thread as tp_task_poll_switch_quick's. */
static inline __attribute__((always_inline)) void
tp_task_ended_park_quick(struct tp_thread *self, uint64_t task, enum tp_terminate_reason reason,
			 uint32_t spawn_stack)
{
	self->task = 0;
	tp_thread_parked_by_executor(self);
	tp_fire_task_end_park(task, (uint32_t)reason, spawn_stack);
}

/*
 * tp_task_unpark_poll_start: the thread polls no task, parked by its executor (parked_by NULL).
 * Its task set as tp_thread_set_task sets it, the held mark up already (tp_task_events_quick).
 */
static inline __attribute__((always_inline)) void
tp_task_unpark_poll_start_quick(struct tp_thread *self, uint64_t task)
{
	self->parked = false;
	self->task = task;
	self->task_epoch = __atomic_load_n(&tp_task_epoch, __ATOMIC_ACQUIRE);
	tp_fire_unpark_poll_start(task);
}

/*
 * tp_task_poll_end_in_sync, then tp_worker_park: the thread polls `task` and is not parked, and no
 * tracer reads the sync construct's site (tp_tracers_task_poll_end: it is not named).
 */
static inline __attribute__((always_inline)) void
tp_task_poll_end_in_sync_park_quick(struct tp_thread *self, uint64_t task, enum tp_sync_kind sync,
				    const void *site_address)
{
	uint32_t key = tp_spawn_site_key(site_address);
	self->task = 0;
	tp_thread_parked_by_executor(self);
	tp_fire_task_poll_end_in_sync_park(task, (uint32_t)sync, key);
}

/* The executor's runtime starts, before its first task (OMPT: the tool's initialize). */
void tp_executor_started(void);

/*
 * An adapter's leaf spin lock (spin_lock.h; no other lock is taken while it is held), held by the
 * lifecycle's fork steps across every fork: the child gets it free and what it guards whole.
 * Once per lock, before the executor's first task; at most TP_EXECUTOR_FORK_LOCKS_MAX.
 */
#define TP_EXECUTOR_FORK_LOCKS_MAX 4
void tp_executor_lock_across_fork(int *lock);

/* The calling thread is a worker of an executor from now until tp_worker_stopped. */
static inline void tp_worker_started(void)
{
	struct tp_thread *self = tp_thread_self();
	self->adapter_worker = true;
	if (tp_thread_live(self))
		tp_fire_worker_start();
}

static inline void tp_worker_stopped(void)
{
	struct tp_thread *self = tp_thread_self();
	if (tp_thread_live(self))
		tp_fire_worker_stop();
	self->adapter_worker = false;
}

/* An executor's own idle report; the park is skipped if the thread is parked already. */
static inline void tp_worker_park(void)
{
	(void)tp_thread_park(tp_thread_self(), NULL);
}

static inline void tp_worker_unpark(void)
{
	tp_thread_unpark(tp_thread_self());
}

/*
 * task-poll-end of `task` (tp_task_poll_end, sync none), then the calling thread's park
 * (tp_worker_park), at one moment: a poll that ends into a task waiting in a sync region.
 */
static inline void tp_task_poll_end_park(uint64_t task, bool done)
{
	struct tp_thread *self = tp_thread_self();
	if (!tp_listeners_task_poll_end() || !tp_thread_live(self) ||
	    !tp_thread_park_unfired(self)) {
		tp_task_poll_end(task, done, TP_SYNC_NONE);
		tp_worker_park();
		return;
	}
	tp_thread_set_task(self, 0);
	tp_fire_task_poll_end_park(task, (uint32_t)done);
}

/*
 * A task's end and the end of its last poll (tp_task_ended), then the calling thread's park
 * (tp_worker_park), at one moment: a task that ends into one waiting in a sync region.
 */
static inline void tp_task_ended_park(uint64_t task, enum tp_terminate_reason reason,
				      uint32_t spawn_stack)
{
	struct tp_thread *self = tp_thread_self();
	if (!(tp_listeners_task_terminate() | tp_listeners_task_poll_end()) ||
	    !tp_thread_live(self) || !tp_thread_park_unfired(self)) {
		tp_task_ended(task, reason, spawn_stack);
		tp_worker_park();
		return;
	}
	tp_thread_set_task(self, 0);
	tp_fire_task_end_park(task, (uint32_t)reason, spawn_stack);
}

/* The lifecycle's steps for this module (lifecycle.c calls them, in the order it states). */
void tp_executor_prepare_fork(void); /* the adapters' leaf locks held */
void tp_executor_after_fork(void);
