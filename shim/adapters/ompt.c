// SPDX-License-Identifier: MIT
/*
 * The OpenMP adapter: libomp looks up ompt_start_tool through the dynamic linker, so this
 * preloaded definition becomes its OMPT tool, and OpenMP's tasks become traced tasks (executor 1).
 *
 * What is a task: every OMPT task. The initial task (the program outside parallel regions), the
 * implicit task each thread runs in a parallel region, and explicit tasks; so every explicit
 * task has a parent, and a task that blocks inside a parallel region's body shows up.
 * Each OMPT thread (initial or worker) is a worker: worker-thread-start/stop at thread begin/end.
 *
 * With nobody listening (tp_listeners_task_state_checked), the task callbacks do next to nothing: a
 * task is given its id when a tracer first sees it, and the threads' current tasks of a traced
 * period are dropped all at once when it ends (thread_state.h, tp_task_epoch).
 *
 * A task's id, its spawn stack's id and three flags live in its ompt_data_t (0: no id yet):
 *   WAKE_PENDING  created with dependences: its wake fires when it is first scheduled, since OMPT
 *                 reports no moment at which dependences are satisfied;
 *   SYNC_WAITING  the task waits in a sync region (barrier, taskwait, taskgroup); while the thread
 *                 runs other tasks inside that wait, switching back to it means parking again;
 *   SPAWNED       the task spawned a task since its last taskwait began (sync_region_wait_traced);
 *   FIRST_PART    clang's untied task not yet scheduled: its first part only schedules it again
 *                 (ompt_first_part.h).
 * A task waiting in a sync region ends its poll (done 0, with the region's kind) and its thread
 * parks until the wait ends. A dependence on a task not yet ended is task-dependence.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp-tools.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>

#include "executor.h"
#include "gomp.h"
#include "ompt_constructs.h"
#include "ompt_first_part.h"
#include "ompt_kinds.h"
#include "ompt_sites.h"
#include "ompt_task_word.h"
#include "probes.h"
#include "spawn_site.h"
#include "spawn_stack.h"
#include "thread_state.h"
#include "warn.h"

/* id_given's for a task made while nobody traced: its id given now. */
__attribute__((noinline, cold)) static uint64_t id_given_now(ompt_data_t *data)
{
	set_word(data, tp_task_new_id());
	return word(data) & ID_BITS;
}

/* The id of a task seen while tracing, given now if it was made while nobody traced. Inline:
 * a task switch asks it twice. */
static inline __attribute__((always_inline)) uint64_t id_given(ompt_data_t *data)
{
	if (data == NULL)
		return 0;
	uint64_t w = word(data);
	if (__builtin_expect(w == 0, 0))
		return id_given_now(data);
	return w & ID_BITS;
}

/*
 * The calling thread starts polling `task`, ending any other poll and any park first, at one
 * moment (one clock read). The poll it ends is most often an untied task's parent's: clang's
 * first part of an untied task only schedules the task again, and libomp reports a switch back
 * to the parent, then one to the task.
 */
static inline __attribute__((always_inline)) void poll_begin(uint64_t task)
{
	struct tp_thread *self = tp_thread_self();
	uint64_t current = tp_thread_task(self);
	if (current == task) {
		tp_worker_unpark();
	} else if (current == 0) {
		tp_task_unpark_poll_start(task);
	} else if (!self->parked) {
		tp_task_poll_switch(current, false, task);
	} else {
		tp_worker_unpark();
		tp_task_poll_end(current, false, TP_SYNC_NONE);
		tp_task_poll_start(task);
	}
}

/* The calling thread stops polling `task` for now, if it polls it. */
static inline __attribute__((always_inline)) void poll_suspend(uint64_t task)
{
	if (task != 0 && tp_thread_task(tp_thread_self()) == task)
		tp_task_poll_end(task, false, TP_SYNC_NONE);
}

/* The same, the task waiting in `sync` at the construct whose call returns to `site`. */
static void poll_suspend_in(uint64_t task, enum tp_sync_kind sync, const void *site)
{
	if (task != 0 && tp_thread_task(tp_thread_self()) == task)
		tp_task_poll_end_in_sync(task, sync, site);
}

/* The task of `data` finished: terminate before its last poll ends. */
static inline __attribute__((always_inline)) void poll_finish(ompt_data_t *data,
							      enum tp_terminate_reason reason)
{
	uint64_t task = id_of(data);
	if (tp_thread_task(tp_thread_self()) == task)
		tp_task_ended(task, reason, stack_of(data));
	else
		tp_task_terminated(task, reason, stack_of(data));
}

/*
 * The task that waited to acquire (if any) is polled again, on the same thread. libomp reports an
 * omp_test_lock as an acquire, and says nothing when the test fails: the thread's next OpenMP
 * event ends that wait (a new acquire, a release, a sync region, a task switch).
 */
__attribute__((noinline)) static void acquiring_ended(struct tp_thread *self, uint64_t task)
{
	self->acquiring_task = 0;
	poll_begin(task);
}

/* acquiring_ended when a wait to acquire is open (rarely); the thread's task. Inline: every task
 * switch asks it. */
static inline __attribute__((always_inline)) uint64_t acquiring_ends(void)
{
	struct tp_thread *self = tp_thread_self();
	uint64_t task = self->acquiring_task;
	if (__builtin_expect(task != 0, 0))
		acquiring_ended(self, task);
	return tp_thread_task(self);
}

/*
 * Makes `data` a new task, spawned by (and so a child of) the thread's current task, at the
 * construct whose call returns to `codeptr`; its word's flags `flags` besides (FIRST_PART).
 */
static inline __attribute__((always_inline)) uint64_t spawn(ompt_data_t *data,
							    enum tp_spawn_kind kind, bool wake_now,
							    const void *codeptr, bool undeferred,
							    uint64_t flags)
{
	uint64_t task = tp_task_new_id();
	/* a wake_now task's wake goes with its spawn (tp_task_spawned) */
	uint64_t stack = tp_task_spawned(task, TP_EXECUTOR_OPENMP, kind, codeptr, undeferred,
					 wake_now);
	set_word(data, task | stack << STACK_SHIFT | (wake_now ? 0 : WAKE_PENDING) | flags);
	return task;
}

/* on_task_create's encountering task's first spawn since its last taskwait began. */
__attribute__((noinline)) static void spawned_first(ompt_data_t *encountering)
{
	if (id_given(encountering) != 0)
		set_word(encountering, word(encountering) | SPAWNED);
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread)
{
	(void)type;
	(void)thread;
	tp_worker_started();
}

static void on_thread_end(ompt_data_t *thread)
{
	(void)thread;
	tp_ompt_first_part_fire();
	tp_worker_unpark();
	tp_worker_stopped();
}

/*
 * A task OMPT never told (its word 0) while its thread polls the task it polled at a fork: a
 * forked child's initial task, which its libomp started again without telling it (OMPT tells
 * the initial task once a process), is the task the child's consumers were told its thread
 * polls (lifecycle.c). Only that one: a task made while nobody traced gets an id of its own.
 */
static void untold_is_inherited(ompt_data_t *data)
{
	struct tp_thread *self = tp_thread_self();
	uint64_t current = tp_thread_task(self);
	if (data != NULL && word(data) == 0 && current != 0 && current == self->inherited_task)
		set_word(data, current | (uint64_t)TP_SPAWN_STACK_OF_EXECUTOR << STACK_SHIFT);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
			     ompt_data_t *task, unsigned int team_size, unsigned int index,
			     int flags)
{
	(void)index;
	if (!tp_listeners_task_state_checked()) {
		set_word(task, 0);
		return;
	}
	tp_ompt_first_part_fire();
	if (endpoint == ompt_scope_begin) {
		/*
		 * On the primary thread the encountering task is its parent and is suspended. The
		 * site is the parallel construct's (on_parallel_begin); the initial task has none.
		 * A team of one thread runs in its encountering task's place: created undeferred
		 * (tp_span_region_task: nested in another region, it is no region of its own).
		 */
		const void *site = parallel != NULL && !(flags & ompt_task_initial) ? parallel->ptr
										    : NULL;
		poll_begin(spawn(task, TP_STARTED_BY_EXECUTOR, true, site,
				 site != NULL && team_size == 1, 0));
	} else if (endpoint == ompt_scope_end) {
		if (flags & ompt_task_initial) /* a child's that ran no region */
			untold_is_inherited(task);
		id_given(task);
		poll_finish(task, TP_TASK_COMPLETED);
	}
}

/*
 * A parallel region keeps its construct's call address: its implicit tasks' spawn site. A region
 * begun by a tail call from an outlined region is reported at libomp's call of that region's code
 * (tp_ompt_construct_site).
 */
static void on_parallel_begin(ompt_data_t *encountering, const ompt_frame_t *frame,
			      ompt_data_t *parallel, unsigned int requested, int flags,
			      const void *codeptr)
{
	(void)frame;
	(void)requested;
	(void)flags;
	untold_is_inherited(encountering);
	parallel->ptr = (void *)tp_ompt_construct_site(encountering, codeptr, TP_OMPT_PARALLEL);
	tp_ompt_region_forked(codeptr);
}

/* The encountering task resumes on the primary thread once the region's implicit task ended. */
static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *encountering, int flags,
			    const void *codeptr)
{
	(void)parallel;
	(void)flags;
	(void)codeptr;
	tp_ompt_region_joined();
	tp_ompt_first_part_fire();
	if (tp_listeners_task_state_checked() && encountering != NULL && word(encountering) != 0)
		poll_begin(id_of(encountering));
}

static void on_task_create(ompt_data_t *encountering, const ompt_frame_t *frame, ompt_data_t *task,
			   int flags, int has_dependences, const void *codeptr)
{
	(void)frame;
	/* untraced, the word stays 0 (no id yet): libomp zeroes a new task's data (__ompt_task_init).
	 * Undeferred (if(0), a final task's descendant, a team of one thread: libomp runs it now,
	 * its parent switched out) and without dependences: said in the recording, for the analysis
	 * to nest it in its parent rather than put it before its parent's next fragment. With
	 * dependences it stays after what its thread ran before it: libomp reports no dependence
	 * on a task already ended, which on one thread is every one. */
	if (!tp_listeners_task_state_checked())
		return;
	tp_ompt_first_part_fire();
	/* marked before the spawn, which reads no such mark: nothing is kept across its call */
	if (encountering != NULL && __builtin_expect(!(word(encountering) & SPAWNED), 0))
		spawned_first(encountering);
	/* clang's (made outside a GCC construct's call: tp_ompt_construct_site takes that) */
	bool first_part = (flags & ompt_task_untied) && !has_dependences && tp_gomp_none_pending();
	spawn(task, TP_SPAWNED_BY_PROGRAM, !has_dependences,
	      tp_ompt_construct_site(encountering, codeptr, TP_OMPT_TASK),
	      (flags & ompt_task_undeferred) != 0 && !has_dependences, first_part ? FIRST_PART : 0);
}

/*
 * The switch from the poll that ends (`done`'s, `finished`) to a task made not ready (its
 * dependences: WAKE_PENDING) and polled now for the first time: its wake with the switch, one
 * event; a finished task's end before it. Apart from schedule_listened: its common switch saves
 * no registers for it.
 */
__attribute__((noinline)) static void switch_to_woken(uint64_t done, bool finished,
						      enum tp_terminate_reason reason,
						      const ompt_data_t *prior, ompt_data_t *next)
{
	set_word(next, word(next) & ~WAKE_PENDING);
	if (finished)
		tp_task_terminated(done, reason, stack_of(prior));
	tp_task_poll_switch_woken(done, finished, id_of(next));
}

__attribute__((noinline)) static void
schedule_listened(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
	if (!tp_listeners_task_state_confirmed())
		return;
	uint64_t current = acquiring_ends();
	uint64_t done = id_given(prior);
	bool finished = status == ompt_task_complete || status == ompt_task_early_fulfill ||
			status == ompt_taskwait_complete || status == ompt_task_cancel;
	enum tp_terminate_reason reason = status == ompt_task_cancel ? TP_TASK_CANCELLED
								     : TP_TASK_COMPLETED;
	/* its poll ends: finished, or (switch, yield, detach) suspended */
	bool polled = status != ompt_task_late_fulfill && current == done &&
		      (finished || done != 0);
	uint64_t following = id_given(next);
	/* the common switch, from the poll that ends (and its task, finished) to the next task's:
	 * one event (one moment) */
	if (polled && next != NULL && following != done &&
	    __builtin_expect(!(word(next) & (SYNC_WAITING | WAKE_PENDING)), 1)) {
		if (finished)
			tp_task_end_switch(done, reason, stack_of(prior), following);
		else
			tp_task_poll_switch(done, false, following);
		return;
	}
	if (polled && next != NULL && following != done &&
	    (word(next) & (SYNC_WAITING | WAKE_PENDING)) == WAKE_PENDING) {
		switch_to_woken(done, finished, reason, prior, next);
		return;
	}
	/* late fulfill: a detached task's event fulfilled after its body ended, it ends unpolled */
	if (finished && polled) {
		/* into a task still waiting in a sync region (below), the common end on two threads
		 * and more: the thread's park with the end, one event */
		if (next != NULL && (word(next) & SYNC_WAITING)) {
			tp_task_ended_park(done, reason, stack_of(prior));
			return;
		}
		tp_task_ended(done, reason, stack_of(prior));
	} else {
		if (finished || status == ompt_task_late_fulfill)
			tp_task_terminated(done, reason, stack_of(prior));
		/* the same: an untied task's first part (it only schedules the task again) most
		 * often ends so on two threads and more */
		if (polled && next != NULL && (word(next) & SYNC_WAITING)) {
			tp_task_poll_end_park(done, finished);
			return;
		}
		if (polled)
			tp_task_poll_end(done, finished, TP_SYNC_NONE);
	}

	if (next == NULL)
		return;
	if (__builtin_expect(word(next) & (SYNC_WAITING | WAKE_PENDING), 0)) {
		if (word(next) & SYNC_WAITING) {
			/* Back in a task that is still waiting in a sync region: idle again. */
			poll_suspend(tp_thread_task(tp_thread_self()));
			tp_worker_park();
			return;
		}
		/* its wake, and its poll's start at the same moment */
		set_word(next, word(next) & ~WAKE_PENDING);
		poll_suspend(tp_thread_task(tp_thread_self()));
		tp_task_wake_poll_start(id_of(next));
		return;
	}
	poll_begin(id_of(next));
}

/* schedule_traced's switch to a task made not ready, polled now for the first time (woken now):
 * apart, as its events are more than one call. `from`: the word of the task whose poll ends. */
__attribute__((noinline)) static void switch_woken_quick(struct tp_thread *self, uint64_t done,
							 bool finished, uint64_t from,
							 ompt_data_t *next)
{
	set_word(next, word(next) & ~WAKE_PENDING);
	tp_task_switch_woken_quick(self, done, finished, TP_TASK_COMPLETED, stack_in(from),
				   id_of(next));
}

__attribute__((noinline)) static void
schedule_first_part(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next);

/*
 * The common schedules first, with nothing but tail calls (no registers saved), on a thread whose
 * task events may be quick (tp_task_events_quick): a task of this thread completes or switches
 * out (complete, switch) into a task with an id that is ready (polled before, or made not ready
 * for its dependences and woken now), or (complete) that waits in a sync region; or a task not
 * polled on this thread switches out into a ready task. They are taken as schedule_listened takes
 * them; every other case goes there.
 */
__attribute__((noinline)) static void schedule_traced(ompt_data_t *prior, ompt_task_status_t status,
						      ompt_data_t *next)
{
	if (__builtin_expect(tp_ompt_first_part_maybe(next), 0)) {
		schedule_first_part(prior, status, next);
		return;
	}
	if (prior == NULL || next == NULL ||
	    (status != ompt_task_complete && status != ompt_task_switch)) {
		schedule_listened(prior, status, next);
		return;
	}
	struct tp_thread *self = tp_thread_self();
	uint64_t from = word(prior), to = word(next);
	uint64_t done = from & ID_BITS, following = to & ID_BITS;
	if (done == 0 || following == 0 || self->acquiring_task != 0 ||
	    !tp_task_events_quick(self)) {
		schedule_listened(prior, status, next);
		return;
	}
	bool finished = status == ompt_task_complete;
	uint64_t current = tp_thread_task(self);
	if (current == done && !self->parked) {
		if (to & SYNC_WAITING) {
			/* into a task waiting in a sync region: the thread parks with the end */
			if (finished) {
				tp_task_ended_park_quick(self, done, TP_TASK_COMPLETED,
							 stack_in(from));
				return;
			}
		} else if (following != done) {
			if (__builtin_expect(to & WAKE_PENDING, 0))
				switch_woken_quick(self, done, finished, from, next);
			else if (finished)
				tp_task_end_switch_quick(self, done, TP_TASK_COMPLETED,
							 stack_in(from), following);
			else
				tp_task_poll_switch_quick(self, done, following);
			return;
		}
	} else if (!finished && !(to & (SYNC_WAITING | WAKE_PENDING)) && following != current) {
		/* a task not polled here switches out into a ready task: the thread's poll, if any,
		 * switches to it (an untied task's first part ends so), or (the task waits in a sync
		 * region) the thread unparks for it */
		if (current != 0 && !self->parked) {
			tp_task_poll_switch_quick(self, current, following);
			return;
		}
		if (current == 0 && self->parked && self->parked_by == NULL) {
			tp_task_unpark_poll_start_quick(self, following);
			return;
		}
	}
	schedule_listened(prior, status, next);
}

/* schedule_first_part's way when neither of its common ends is taken: the held switch fired, or
 * a first part not held; then schedule_traced again, neither so. */
__attribute__((noinline)) static void
schedule_first_part_fired(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
	if (tp_ompt_held.task != NULL && tp_ompt_held_ends(prior, status, next))
		return;
	if (next != NULL && (word(next) & FIRST_PART) &&
	    tp_ompt_first_part_held(prior, status, next))
		return;
	schedule_traced(prior, status, next);
}

/* schedule_traced's way when a switch is held or one may be (ompt_first_part.h): its common
 * ends in line, with nothing but a tail call (no registers saved). */
__attribute__((noinline)) static void
schedule_first_part(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
	if (!tp_ompt_first_part_quick(prior, status, next))
		schedule_first_part_fired(prior, status, next);
}

/*
 * A dependence of a task being created on one not yet ended (libomp reports none on a task that
 * has ended): task-dependence, both tasks given ids if they have none.
 */
__attribute__((noinline)) static void dependence_listened(ompt_data_t *predecessor,
							  ompt_data_t *successor)
{
	if (tp_listeners_task_state_confirmed() && tp_listeners_task_dependence())
		tp_task_dependence(id_given(predecessor), id_given(successor));
}

/* Kept apart from the traced path, so that the untraced one saves no registers. */
static void on_task_dependence(ompt_data_t *predecessor, ompt_data_t *successor)
{
	if (tp_listeners_task_state_maybe())
		dependence_listened(predecessor, successor);
}

/* Kept apart from the traced path, so that the untraced one saves no registers. */
static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
	if (tp_listeners_task_state_maybe())
		schedule_traced(prior, status, next);
}

/* A wait that began while traced ends untraced: the flag must not outlive it. */
static void sync_region_wait_untraced(ompt_data_t *task)
{
	if (__builtin_expect(word(task) & SYNC_WAITING, 0))
		set_word(task, word(task) & ~SYNC_WAITING);
}

/* A taskgroup's wait was marked while traced: its end, untraced, must find the task's own data
 * to clear the mark (the copy it is given never had it). */
static bool taskgroup_marked;

/* libomp's ompt_get_task_info, from the tool's lookup at initialize (NULL: not found). */
static ompt_get_task_info_t get_task_info;

/*
 * The data of the task that waits in a sync region: `given`, unless it is a copy. libomp hands
 * a taskgroup's wait a copy of its task's data (kmp_tasking.cpp keeps it on its stack), so a mark
 * made there would never reach the task when it is scheduled again: the calling thread's current
 * task's data, when it is the same task (its id, or neither has one yet).
 */
static ompt_data_t *waiting_task_data(ompt_data_t *given)
{
	ompt_data_t *current = NULL, *parallel = NULL;
	ompt_frame_t *frame = NULL;
	int flags = 0, thread_num = 0;
	if (get_task_info == NULL ||
	    get_task_info(0, &flags, &current, &frame, &parallel, &thread_num) == 0 ||
	    current == NULL || id_of(current) != id_of(given))
		return given;
	return current;
}

__attribute__((noinline)) static void
sync_region_wait_listened(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
			  const ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
	if (kind == ompt_sync_region_taskgroup)
		task = waiting_task_data(task);
	if (!tp_listeners_task_state_confirmed())
		sync_region_wait_untraced(task);
	else if (endpoint == ompt_scope_begin) {
		if (kind == ompt_sync_region_taskgroup)
			__atomic_store_n(&taskgroup_marked, true, __ATOMIC_RELAXED);
		(void)acquiring_ends();
		id_given(task);
		set_word(task, (word(task) | SYNC_WAITING) &
				       ~(kind == ompt_sync_region_taskwait ? SPAWNED : 0));
		poll_suspend_in(id_of(task), tp_ompt_sync_kind(kind),
				tp_ompt_sync_site(kind, parallel, task, codeptr));
		tp_worker_park();
	} else if (endpoint == ompt_scope_end) {
		set_word(task, word(task) & ~SYNC_WAITING);
		poll_begin(id_given(task));
	}
}

/*
 * A taskwait of a task (its word `w`) that spawned nothing since its last one began (SPAWNED)
 * waits for nothing and joins nothing: the taskwait at each of a tree's leaves, most of BOTS
 * uts's tasks. With no tracer on the task state, the in-process consumers are told nothing of it,
 * and its poll, on the calling thread `self`, goes on through it: its time (the runtime's call,
 * about as long as two events' records) is the task's.
 */
static inline __attribute__((always_inline)) bool
empty_taskwait(ompt_sync_region_t kind, uint64_t w, const struct tp_thread *self)
{
	uint64_t id = w & ID_BITS;
	return kind == ompt_sync_region_taskwait && id != 0 && !(w & (SPAWNED | SYNC_WAITING)) &&
	       self->acquiring_task == 0 && !self->parked && tp_task_events_quick(self) &&
	       tp_thread_task(self) == id && tp_tracers_task_state() == 0;
}

/*
 * A task's wait in a sync region other than a taskgroup (whose data is a copy: waiting_task_data)
 * begins or ends the quick way (tp_task_events_quick), the task having an id: at its begin, the
 * task polled on this thread, not parked, and no tracer naming the site; an empty taskwait after
 * a held switch fired. As sync_region_wait_listened takes it; every other case goes there.
 */
__attribute__((noinline)) static void sync_region_wait_quick(ompt_sync_region_t kind,
							     ompt_scope_endpoint_t endpoint,
							     const ompt_data_t *parallel,
							     ompt_data_t *task, const void *codeptr)
{
	tp_ompt_first_part_fire();
	struct tp_thread *self = tp_thread_self();
	uint64_t w = word(task), id = w & ID_BITS;
	if (empty_taskwait(kind, w, self))
		return;
	if (kind != ompt_sync_region_taskgroup && id != 0 && self->acquiring_task == 0 &&
	    tp_task_events_quick(self)) {
		uint64_t current = tp_thread_task(self);
		if (endpoint == ompt_scope_begin && current == id && !self->parked &&
		    !tp_tracers_task_poll_end()) {
			set_word(task, (w | SYNC_WAITING) & ~SPAWNED);
			tp_task_poll_end_in_sync_park_quick(
				self, id, tp_ompt_sync_kind(kind),
				tp_ompt_sync_site(kind, parallel, task, codeptr));
			return;
		}
		if (endpoint == ompt_scope_end && current == 0 && self->parked &&
		    self->parked_by == NULL) {
			set_word(task, w & ~SYNC_WAITING);
			tp_task_unpark_poll_start_quick(self, id);
			return;
		}
	}
	sync_region_wait_listened(kind, endpoint, parallel, task, codeptr);
}

/* A wait in a sync region, traced: an empty taskwait with no switch held in line, with nothing
 * but a tail call (no registers saved), as most of BOTS uts's taskwaits are. */
__attribute__((noinline)) static void
sync_region_wait_traced(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
			const ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
	if (tp_ompt_held.task == NULL && empty_taskwait(kind, word(task), tp_thread_self()))
		return;
	sync_region_wait_quick(kind, endpoint, parallel, task, codeptr);
}

/* Kept apart from the traced path, so that the untraced one saves no registers. */
static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
				ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
	if (task == NULL)
		return;
	if (tp_listeners_task_state_maybe())
		sync_region_wait_traced(kind, endpoint, parallel, task, codeptr);
	else if (__builtin_expect(kind == ompt_sync_region_taskgroup &&
					  __atomic_load_n(&taskgroup_marked, __ATOMIC_RELAXED),
				  0))
		sync_region_wait_untraced(waiting_task_data(task));
	else
		sync_region_wait_untraced(task);
}

/*
 * A task is about to acquire a mutual exclusion: its poll ends (sync mutex) until it holds it,
 * for the wait is the runtime's, not the program's work. A test reported as one (ompt_mutex_test_*)
 * does not wait, and may not acquire at all: its poll goes on. libomp reports omp_test_lock as a
 * plain lock's acquire, though: acquiring_ends says how that wait ends when the test fails.
 */
__attribute__((noinline)) static void mutex_acquire_listened(ompt_mutex_t kind, const void *codeptr)
{
	tp_ompt_first_part_fire();
	if (!tp_listeners_task_state_confirmed() || tp_ompt_exclusion_kind(kind) == 0 ||
	    kind == ompt_mutex_test_lock || kind == ompt_mutex_test_nest_lock)
		return;
	struct tp_thread *self = tp_thread_self();
	uint64_t task = acquiring_ends();
	if (task == 0)
		return;
	self->acquiring_task = task;
	tp_task_poll_end_in_sync(task, TP_SYNC_MUTEX, tp_ompt_lock_site(codeptr));
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
			     ompt_wait_id_t wait_id, const void *codeptr)
{
	(void)hint;
	(void)impl;
	(void)wait_id;
	if (tp_listeners_task_state_maybe())
		mutex_acquire_listened(kind, codeptr);
}

__attribute__((noinline)) static void mutex_acquired_listened(ompt_mutex_t kind,
							      ompt_wait_id_t wait_id)
{
	tp_ompt_first_part_fire();
	if (!tp_listeners_task_state_confirmed()) {
		tp_thread_self()->acquiring_task = 0;
		return;
	}
	uint64_t task = acquiring_ends();
	if (task != 0 && tp_ompt_exclusion_kind(kind) != 0)
		tp_task_acquired(task, tp_ompt_exclusion_kind(kind), (uintptr_t)wait_id);
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
	(void)codeptr;
	if (tp_listeners_task_state_maybe() || tp_thread_self()->acquiring_task != 0)
		mutex_acquired_listened(kind, wait_id);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
	(void)codeptr;
	if (!tp_listeners_task_state_maybe() || !tp_listeners_task_state_confirmed() ||
	    tp_ompt_exclusion_kind(kind) == 0)
		return;
	tp_ompt_first_part_fire();
	uint64_t task = acquiring_ends();
	if (task != 0)
		tp_task_released(task, tp_ompt_exclusion_kind(kind), (uintptr_t)wait_id);
}

/* A nested lock its task holds already, set again (or unset, not for the last time): the
 * acquire's wait ends at once; the lock stays held. */
static void on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id,
			 const void *codeptr)
{
	(void)wait_id;
	(void)codeptr;
	if (endpoint == ompt_scope_begin && tp_thread_self()->acquiring_task != 0) {
		if (tp_listeners_task_state_checked())
			(void)acquiring_ends();
		else
			tp_thread_self()->acquiring_task = 0;
	}
}

/* omp_control_tool's commands and its no-tool result (the OpenMP standard's omp.h numbers: the
 * shim includes only omp-tools.h) */
enum {
	CONTROL_TOOL_START = 1,
	CONTROL_TOOL_PAUSE = 2,
	CONTROL_TOOL_END = 4,
	CONTROL_TOOL_NOTOOL = -2
};

/*
 * omp_control_tool: start marks where the region of interest starts, pause and end where it
 * stops. The program gets what it would get with no tool at all (notool), as
 * without taskprobe.
 */
static int on_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *codeptr)
{
	(void)modifier;
	(void)arg;
	(void)codeptr;
	if (command == CONTROL_TOOL_START)
		tp_region_of_interest(true, TP_ROI_BY_OMP_CONTROL_TOOL);
	else if (command == CONTROL_TOOL_PAUSE || command == CONTROL_TOOL_END)
		tp_region_of_interest(false, TP_ROI_BY_OMP_CONTROL_TOOL);
	return CONTROL_TOOL_NOTOOL;
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *tool)
{
	(void)device;
	(void)tool;
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	if (set == NULL)
		return 0;
	get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
	/* libomp's frames between a spawn call and the task_create callback are not the program's. */
	tp_spawn_stack_skip_module((const void *)lookup);
	tp_ompt_constructs_start();
	set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
	set(ompt_callback_thread_end, (ompt_callback_t)on_thread_end);
	set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
	set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
	set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
	set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
	set(ompt_callback_work, (ompt_callback_t)tp_ompt_on_work);
	set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
	set(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region_wait);
	set(ompt_callback_task_dependence, (ompt_callback_t)on_task_dependence);
	set(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
	set(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired);
	set(ompt_callback_mutex_released, (ompt_callback_t)on_mutex_released);
	set(ompt_callback_nest_lock, (ompt_callback_t)on_nest_lock);
	set(ompt_callback_control_tool, (ompt_callback_t)on_control_tool);
	tp_executor_started();
	return 1; /* keep the tool */
}

static void finalize(ompt_data_t *tool)
{
	(void)tool;
}

/* Says on stderr why taskprobe fires no task probes in this process. */
static void say_other_tool(const char *which)
{
	tp_warn("%.300s gets OpenMP's tool interface, and taskprobe fires no task probes (libomp "
		"runs one tool)",
		which);
}

/*
 * libomp starts one tool, and a second one chained behind this one would keep its own values in
 * the same ompt_data_t slots as the task ids. So a tool the user chose wins: one named by
 * OMP_TOOL_LIBRARIES, or one the program links (the next ompt_start_tool after the shim's that
 * returns a tool; libomp's own returns none).
 */
TP_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
						    const char *runtime_version)
{
	static ompt_start_tool_result_t result = {initialize, finalize, {0}};
	const char *named = getenv("OMP_TOOL_LIBRARIES");
	if (named != NULL && named[0] != '\0') {
		char which[400];
		snprintf(which, sizeof which, "OMP_TOOL_LIBRARIES=\"%.300s\"", named);
		say_other_tool(which);
		return NULL;
	}
	ompt_start_tool_result_t *(*next)(unsigned int, const char *) =
		(ompt_start_tool_result_t * (*)(unsigned int, const char *))
			dlsym(RTLD_NEXT, "ompt_start_tool");
	ompt_start_tool_result_t *other = next != NULL ? next(omp_version, runtime_version) : NULL;
	if (other != NULL) {
		Dl_info info;
		say_other_tool(dladdr((void *)next, &info) != 0 && info.dli_fname != NULL
				       ? info.dli_fname
				       : "another OMPT tool");
		return other;
	}
	return &result;
}
