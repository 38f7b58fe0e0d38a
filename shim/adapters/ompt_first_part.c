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
		return false;
	if (prior == h.task && next == h.from && status == ompt_task_switch)
		return true;
	if (h.from_id != 0)
		tp_task_poll_switch(h.from_id, false, h.id);
	else
		tp_task_unpark_poll_start(h.id);
	return false;
}

bool tp_ompt_first_part_held(struct tp_thread *self, const ompt_data_t *prior,
			     ompt_task_status_t status, ompt_data_t *next)
{
	uint64_t to = word(next);
	set_word(next, to & ~FIRST_PART);
	if (prior == NULL || status != ompt_task_switch || (to & (SYNC_WAITING | WAKE_PENDING)) ||
	    self->acquiring_task != 0 || tp_tracers_task_state() != 0)
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
