// SPDX-License-Identifier: MIT
/*
 * The paths the live statistics' threads share (live_private.h): a barrier's join of every
 * slot's longest path, and the initial task's path for a worker's implicit task that starts
 * before its region's primary published the region's fork.
 */
#define _GNU_SOURCE
#include "live_private.h"

#include <string.h>

#include "spin_lock.h"

/*
 * For a task that leaves a barrier: the longest path ended before the barrier completed (every
 * slot's longest), taken by the first to leave it, which entered it after the last one was
 * taken (`suspended_ns`). The others read it: only the first takes the lock (or the few that
 * leave with it, which then find it taken).
 */
void live_barrier_join(uint64_t suspended_ns, uint64_t now, struct tp_live_path *out)
{
	if (!tp_span_barrier_freezes(tp_span_shared_read(&last_barrier, out), suspended_ns))
		return;
	tp_spin_lock(&last_barrier.lock);
	if (tp_span_barrier_freezes(last_barrier.at_ns, suspended_ns)) {
		memset(out, 0, sizeof *out);
		uint32_t bound = __atomic_load_n(&slots_bound, __ATOMIC_ACQUIRE);
		for (unsigned i = 0; i < bound; i++) {
			struct tp_live_path p;
			if (__atomic_load_n(&slots[i].in_use, __ATOMIC_ACQUIRE) ==
			    TP_LIVE_SLOT_FREE)
				continue;
			tp_live_read_longest(&slots[i], &p);
			/* everything ended before the barrier completed joins it: the last of
			 * them is the last poll any slot ended (--analyze's, the same) */
			uint64_t last = __atomic_load_n(&slots[i].graph_last_ns, __ATOMIC_RELAXED);
			p.ended_ns = last > p.ended_ns ? last : p.ended_ns;
			tp_span_path_max(out, &p);
		}
		tp_span_shared_write(&last_barrier, out, now);
	} else {
		*out = last_barrier.path; /* written only under the lock, which this thread holds */
	}
	tp_spin_unlock(&last_barrier.lock);
}

/*
 * The initial task's path up to `now` when a thread polls it now (its path to that fragment's
 * start, as its thread published it, extended by the fragment so far): where an outermost
 * region's worker's implicit task starts when the executor released the worker before its
 * primary published the region's fork (tp_span_fork, joined later too). With its sites: the
 * worker's path is the region's longest as often as the primary's, and a path without them
 * (the slot's lengths alone) left every region before it out of the critical path's sites (NPB
 * MG: its three largest sites, 80% of the path, said "-"). False when no thread polls it, when
 * its thread started another fragment meanwhile, or when the worker's region published its fork
 * in this fragment (at `fork_at`: tp_span_fork_waits_initial).
 */
bool live_initial_so_far(uint64_t now, uint64_t fork_at, struct tp_live_path *p)
{
	const struct tp_live_thread *t = __atomic_load_n(&initial_slot, __ATOMIC_ACQUIRE);
	if (t == NULL || __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != TP_LIVE_POLLING ||
	    __atomic_load_n(&t->site, __ATOMIC_RELAXED) != TP_LIVE_NO_SITE)
		return false;
	uint64_t start = tp_span_shared_read(&initial_path, p);
	/* paused (its thread in MPI: no computation since), it stopped when last counted */
	if (__atomic_load_n(&t->open_paused, __ATOMIC_ACQUIRE) != 0)
		now = __atomic_load_n(&t->open_counted_ns, __ATOMIC_RELAXED);
	if (start == 0 || start != __atomic_load_n(&t->open_start_ns, __ATOMIC_RELAXED) ||
	    now < start || !tp_span_fork_waits_initial(fork_at, start))
		return false;
	tp_span_path_add(p, tp_span_path_site(p, TP_LIVE_NO_SITE), now - start);
	p->ended_ns = now;
	return p->ns > 0;
}

uint64_t live_initial_first_poll(struct task_entry *e, uint64_t now)
{
	struct tp_span_task *t = span_of(e);
	if (t->started || t->parent != 0)
		return now;
	set64(&t->ready_ns, 0); /* made ready after the start it is given: no delay */
	return tp_span_initial_start(now, ns_at_start, local.waited_to);
}

/* The initial task's poll starts at `now` on this thread: its path published
 * (live_initial_so_far). */
void live_initial_path_is(uint64_t now)
{
	tp_spin_lock(&initial_path.lock);
	tp_span_shared_write(&initial_path, &local.span.in, now);
	tp_spin_unlock(&initial_path.lock);
}

void live_initial_path_moves(uint64_t start, uint64_t moved)
{
	tp_spin_lock(&initial_path.lock);
	if (initial_path.at_ns == start)
		tp_span_shared_write(&initial_path, &initial_path.path, moved);
	tp_spin_unlock(&initial_path.lock);
}
