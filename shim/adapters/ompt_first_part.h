// SPDX-License-Identifier: MIT
/*
 * clang's first part of an untied task only schedules the task again: libomp reports a switch into
 * it and, at once, a switch back (BOTS uts: two of a task's four switches). With no tracer on the
 * task state, such a switch (from the thread's poll, or from its park by the executor) is held
 * back, and the switch back drops both: no event, no clock read (what the recorder undid, and the
 * live statistics took in full). Whatever else the thread's executor reports first fires the held
 * switch, at that moment, before itself (tp_ompt_first_part_fire). Waits interposed in between
 * (none in clang's first part: libomp's deque lock spins) go to the task the thread polled before.
 * A task is such a first part's while its word says FIRST_PART (ompt_task_word.h), from its
 * creation (ompt.c) to its first schedule.
 */
#pragma once

#include <omp-tools.h>
#include <stdbool.h>
#include <stdint.h>

#include "events.h"
#include "ompt_task_word.h"
#include "thread_state.h"

/* The calling thread's held switch. */
struct tp_ompt_held_first_part {
	const ompt_data_t *task; /* the task whose first part runs; NULL: none held */
	const ompt_data_t *from; /* the task it was switched to from */
	uint64_t id, from_id;    /* their ids; from_id 0: the thread was parked by its executor */
	uint64_t epoch;          /* tp_task_epoch when held: tracing stopped since, it is dropped */
};
extern __thread struct tp_ompt_held_first_part tp_ompt_held
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Whether `prior`'s switch to `next` is held switch `h`'s switch back (its drop), in its epoch. */
static inline bool tp_ompt_held_switch_back(const struct tp_ompt_held_first_part *h,
					    const ompt_data_t *prior, ompt_task_status_t status,
					    const ompt_data_t *next)
{
	return prior == h->task && next == h->from && status == ompt_task_switch &&
	       h->epoch == __atomic_load_n(&tp_task_epoch, __ATOMIC_RELAXED);
}

/* Ends the held switch: dropped if `prior`'s switch to `next` is its switch back (true), else
 * fired now (false). */
__attribute__((visibility("hidden"))) bool
tp_ompt_held_ends(const ompt_data_t *prior, ompt_task_status_t status, const ompt_data_t *next);

/*
 * A switch into `next`, whose word says FIRST_PART (cleared now): held (true) when it is the
 * thread's own switch from its poll or from its executor's park, and no tracer listens.
 */
__attribute__((visibility("hidden"))) bool
tp_ompt_first_part_held(const ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next);

/* Whether a schedule into `next` has a held switch to end, or may hold one. */
static inline bool tp_ompt_first_part_maybe(const ompt_data_t *next)
{
	return tp_ompt_held.task != NULL || (next != NULL && (word(next) & FIRST_PART));
}

/* Any OpenMP event of the thread but a task switch: a held switch fires first. */
static inline __attribute__((always_inline)) void tp_ompt_first_part_fire(void)
{
	if (__builtin_expect(tp_ompt_held.task != NULL, 0))
		(void)tp_ompt_held_ends(NULL, ompt_task_switch, NULL);
}

/*
 * tp_ompt_first_part_held's switch into first part `next`, its word `to` before FIRST_PART was
 * cleared, no switch held: held now (true) when it is the thread's own switch from its poll or
 * from its executor's park, and no tracer listens.
 */
static inline __attribute__((always_inline)) bool
tp_ompt_first_part_holds(const ompt_data_t *prior, ompt_task_status_t status,
			 const ompt_data_t *next, uint64_t to)
{
	if (prior == NULL || status != ompt_task_switch || (to & (SYNC_WAITING | WAKE_PENDING)))
		return false;
	const struct tp_thread *self = tp_thread_self();
	if (self->acquiring_task != 0 || tp_tracers_task_state() != 0)
		return false;
	uint64_t current = tp_thread_task(self), done = id_of(prior), id = to & ID_BITS;
	bool from_park = current == 0 && self->parked && self->parked_by == NULL;
	if (id == 0 || id == done ||
	    (!from_park && (current == 0 || current != done || self->parked)))
		return false;
	tp_ompt_held = (struct tp_ompt_held_first_part){
		next, prior, id, from_park ? 0 : done,
		__atomic_load_n(&tp_task_epoch, __ATOMIC_RELAXED)};
	return true;
}

/*
 * The common ends of schedule_first_part, in line, with nothing but a tail call (its caller saves
 * no registers for them): the switch back that drops the held switch, as tp_ompt_held_ends drops
 * it, or a switch into a first part held, no switch held before. True when taken; false leaves
 * everything to tp_ompt_held_ends and tp_ompt_first_part_held.
 */
static inline __attribute__((always_inline)) bool
tp_ompt_first_part_quick(const ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
	if (next == NULL)
		return false;
	if (tp_ompt_held.task != NULL) {
		if (!tp_ompt_held_switch_back(&tp_ompt_held, prior, status, next))
			return false;
		tp_ompt_held.task = NULL;
		return true;
	}
	uint64_t to = word(next);
	if (!(to & FIRST_PART) || !tp_ompt_first_part_holds(prior, status, next, to))
		return false;
	set_word(next, to & ~FIRST_PART);
	return true;
}
