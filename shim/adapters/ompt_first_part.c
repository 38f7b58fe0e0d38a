// SPDX-License-Identifier: MIT
/* clang's first part of an untied task, held back and dropped (ompt_first_part.h). */
#define _GNU_SOURCE
#include "ompt_first_part.h"

#include "events.h"
#include "executor.h"

__thread struct tp_ompt_held_first_part tp_ompt_held __attribute__((tls_model("initial-exec")));

bool tp_ompt_held_ends(const ompt_data_t *prior, ompt_task_status_t status, const ompt_data_t *next)
{
	struct tp_ompt_held_first_part h = tp_ompt_held;
	tp_ompt_held.task = NULL;
	if (h.epoch != __atomic_load_n(&tp_task_epoch, __ATOMIC_RELAXED))
		return false; /* tracing stopped since: dropped */
	if (tp_ompt_held_switch_back(&h, prior, status, next))
		return true;
	if (h.from_id != 0)
		tp_task_poll_switch(h.from_id, false, h.id);
	else
		tp_task_unpark_poll_start(h.id);
	return false;
}

bool tp_ompt_first_part_held(const ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
	uint64_t to = word(next);
	set_word(next, to & ~FIRST_PART);
	return tp_ompt_first_part_holds(prior, status, next, to);
}
