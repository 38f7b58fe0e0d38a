// SPDX-License-Identifier: MIT
/*
 * The live statistics' sync sites, at a poll's start (live.c's poll_started): the wait that ends
 * (counted in its site's row) and the calling thread's time waited since its last poll
 * (sync_waited.h's rule, into the innermost suspended task's site's row). Static inline, as
 * every event's helpers are (live_private.h).
 */
#ifndef TP_LIVE_SYNC_WAITS_H
#define TP_LIVE_SYNC_WAITS_H

#include "live_private.h"
#include "sync_waited.h"
#include "work_span.h"

#pragma GCC visibility push(hidden)

/*
 * Task `t` is polled again: a wait at a sync construct's site ended (counted in the site's row;
 * its time is its thread's, sync_waited_time's; a barrier's ends the thread's phase), and a mutual exclusion's is the one whose
 * section the poll's acquire begins (tp_live_task_acquire, tp_span_section_site).
 */
static inline __attribute__((always_inline)) void sync_wait_ends(struct tp_span_task *t)
{
	uint32_t row = t->sync_row;
	local.mutex_row = 0;
	if (row == 0)
		return;
	t->sync_row = 0;
	add(&local.rows[row].sync_waits, 1);
	uint64_t phase = tp_phase_ends(&local.phase_ns, t->sync);
	if (phase != 0)
		add(&local.rows[row].phase_ns, phase);
	/* a section at a site in no line (the overflow row's) is its task's on the path */
	local.mutex_row = row != TP_LIVE_OVERFLOW ? tp_span_section_site(t->sync, row) : 0;
}

/* Whether the task of entry `task` (sync_waited.h's key: its address) is suspended still, and,
 * at a barrier (its state's sync, its wait's kind: its row `where`'s), whether its region joined
 * since (tp_sync_wait_joined). */
static inline __attribute__((always_inline)) bool
entry_suspended(const void *context, uint64_t task, uint32_t since, uint32_t where, uint64_t *until)
{
	(void)context;
	(void)where;
	const struct task_entry *e = (const struct task_entry *)(uintptr_t)task;
	const struct tp_span_task *t = span_of(e);
	uint64_t suspended = __atomic_load_n(&t->suspended_ns, __ATOMIC_RELAXED);
	if (suspended == 0 || (uint32_t)suspended != since)
		return false;
	if (__builtin_expect(__atomic_load_n(&t->sync, __ATOMIC_RELAXED) == TP_SYNC_BARRIER, 0))
		*until = tp_sync_wait_joined(
			suspended,
			&live_region_joins[__atomic_load_n(&e->region, __ATOMIC_RELAXED)]);
	return true;
}

/*
 * The calling thread starts polling the task of entry `e` (NULL: untracked) at `now`: its time
 * since its last poll's end was a wait at the site of the innermost task it suspended that is
 * suspended still (sync_waited.h), into that site's row. Before `e`'s suspension is cleared.
 */
static inline __attribute__((always_inline)) void sync_waited_time(const struct task_entry *e,
								   uint64_t now)
{
	uint32_t row;
	uint64_t ns = tp_sync_waited_poll_start(local.sync_waited, (uintptr_t)e, now,
						entry_suspended, NULL, &row);
	if (row != 0)
		add(&local.rows[row].sync_waited_ns, ns);
}

#pragma GCC visibility pop

#endif
