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

/* Ends the held switch: dropped if `prior`'s switch to `next` is its switch back (true), else
 * fired now (false). */
__attribute__((visibility("hidden"))) bool
tp_ompt_held_ends(const ompt_data_t *prior, ompt_task_status_t status, const ompt_data_t *next);

/*
 * A switch into `next`, whose word says FIRST_PART (cleared now): held (true) when it is the
 * thread's own switch from its poll or from its executor's park, and no tracer listens.
 */
__attribute__((visibility("hidden"))) bool tp_ompt_first_part_held(struct tp_thread *self,
								   const ompt_data_t *prior,
								   ompt_task_status_t status,
								   ompt_data_t *next);

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
