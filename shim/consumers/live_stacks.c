// SPDX-License-Identifier: MIT
/* Live statistics (live_private.h): the file's tables that name code: modules, sampled stacks. */
#define _GNU_SOURCE
#include "live_private.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "code_map.h"
#include "spin_lock.h"

/*
 * The file's entry of the module holding `address` (the code map's index), published if it is
 * not yet; TP_LIVE_NO_MODULE when none holds it. Entries are made whole once, by whichever thread
 * first needs one, and never change: a reader names addresses with them.
 */
uint32_t live_module_entry(uintptr_t address)
{
	uint32_t found = tp_code_module_of(address);
	if (found == 0 || found > TP_LIVE_MODULES)
		return TP_LIVE_NO_MODULE;
	struct tp_live_module *entry = &modules[found - 1];
	uint32_t empty = TP_LIVE_ENTRY_EMPTY;
	if (__atomic_load_n(&entry->state, __ATOMIC_ACQUIRE) == TP_LIVE_ENTRY_EMPTY &&
	    __atomic_compare_exchange_n(&entry->state, &empty, TP_LIVE_ENTRY_WRITING, false,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		const struct tp_code_module *m = tp_code_module(found - 1);
		entry->bias = m->bias;
		entry->start = m->start;
		entry->end = m->end;
		entry->build_id_size = m->build_id_size;
		memcpy(entry->build_id, m->build_id, sizeof entry->build_id);
		snprintf(entry->path, sizeof entry->path, "%s", m->path);
		__atomic_store_n(&entry->state, TP_LIVE_ENTRY_READY, __ATOMIC_RELEASE);
	}
	return found - 1;
}

/*
 * The entry of stack `stack_id` under site row `row`, else the first empty one (entries are
 * filled in order, under stacks_lock), else TP_LIVE_STACKS when the table is full.
 */
static unsigned stack_entry(uint32_t row, uint64_t stack_id)
{
	unsigned i = 0;
	while (i < TP_LIVE_STACKS &&
	       __atomic_load_n(&stacks[i].state, __ATOMIC_ACQUIRE) == TP_LIVE_ENTRY_READY &&
	       !(stacks[i].site == row && stacks[i].stack_id == stack_id))
		i++;
	return i;
}

static bool stack_entry_is(unsigned i, uint32_t row, uint64_t stack_id)
{
	return i < TP_LIVE_STACKS &&
	       __atomic_load_n(&stacks[i].state, __ATOMIC_ACQUIRE) == TP_LIVE_ENTRY_READY &&
	       stacks[i].site == row && stacks[i].stack_id == stack_id;
}

/*
 * Stack `stack_id` sampled under `row` (a site's row, or a wait site's: tp_live_stack). A new
 * stack is kept once, by one thread at a time: a spawning thread that finds another keeping one
 * skips its sample (a task's spawn never waits for the shim); a thread about to wait (`may_wait`)
 * waits for it, a new stack being rare and the thread about to block anyway.
 */
void live_keep_stack(uint32_t row, uint64_t stack_id, const uintptr_t *pcs, uint32_t depth,
		     bool may_wait)
{
	unsigned i = stack_entry(row, stack_id);
	if (stack_entry_is(i, row, stack_id)) {
		__atomic_fetch_add(&stacks[i].samples, 1, __ATOMIC_RELAXED);
		return;
	}
	if (may_wait)
		tp_spin_lock(&stacks_lock);
	else if (!tp_spin_try_lock(&stacks_lock))
		return;
	int saved_errno = errno, cancel_state;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state); /* space may be given */
	tp_guard_enter(&local.busy);
	i = stack_entry(row, stack_id); /* again: another thread may have named it meanwhile */
	if (!stacks_ready)
		stacks_ready = live_give_space(TP_LIVE_STACKS_SPACE_OFFSET, TP_LIVE_STACKS_SPACE);
	if (stack_entry_is(i, row, stack_id)) {
		__atomic_fetch_add(&stacks[i].samples, 1, __ATOMIC_RELAXED);
	} else if (i == TP_LIVE_STACKS || !stacks_ready) {
		count(&header->stacks_dropped);
	} else {
		struct tp_live_stack *s = &stacks[i];
		s->site = row;
		s->stack_id = (uint32_t)stack_id;
		s->samples = 1;
		s->depth = depth < TP_LIVE_STACK_FRAMES ? depth : TP_LIVE_STACK_FRAMES;
		for (uint32_t f = 0; f < s->depth; f++) {
			s->pcs[f] = pcs[f];
			(void)live_module_entry(pcs[f]); /* the reader names the frame with it */
		}
		__atomic_store_n(&s->state, TP_LIVE_ENTRY_READY, __ATOMIC_RELEASE);
	}
	tp_guard_leave(&local.busy, false);
	tp_spin_unlock(&stacks_lock);
	pthread_setcancelstate(cancel_state, NULL);
	errno = saved_errno;
}

void tp_live_task_stack(uint64_t stack_id, const uintptr_t *pcs, uint32_t depth)
{
	/* only the spawns it sampled: others' stacks (a tracer's, the recorder's) are not */
	if (local.rows == NULL || stack_id == 0 || local.busy || !local.sample_stack)
		return;
	local.sample_stack = false;
	live_keep_stack(local.spawn_row, stack_id, pcs, depth, false);
}
