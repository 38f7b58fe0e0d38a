// SPDX-License-Identifier: MIT
/*
 * The time threads waited at a sync site (issue 35: "per synchronisation site the time threads
 * waited there"), one rule for the live statistics (live.c) and the recording's analysis
 * (contrib/timeline/analysis.c), which include this header.
 *
 * A task suspended in a barrier, taskwait, taskgroup's end or mutual exclusion waits there until
 * its next poll, but its thread goes on meanwhile: it runs the children its taskwait waits for,
 * which suspend in their own taskwaits, and so on. Summing each task's suspension counts the
 * same stretch of a thread's time once per level of that nesting (two threads of BOTS fib
 * "waited" 21.6 s in a 0.71 s run). So a thread's time outside its polls is one wait only: that
 * of the innermost task it suspended that is still suspended. Nested taskwaits that always find
 * a child to run wait nothing; a taskwait whose thread finds none waits until its children end
 * elsewhere; no site's time is more than its threads' time.
 *
 * Each thread keeps the tasks whose polls it ended waiting at a sync site, innermost last
 * (struct tp_sync_waited): pushed at the poll's end, popped at that task's next poll on the same
 * thread. A task switched out at no sync site (to run a child undeferred, at once) is not kept:
 * its thread goes straight into another poll. A task polled again elsewhere (an untied task)
 * leaves its entry behind, found out of date (the engine's `suspended` test) when it comes to
 * the top. The deepest nesting kept is TP_SYNC_WAITED_DEPTH: a deeper one forgets its outermost
 * waits, whose time is then in no site. What a thread whose tasks never wait at a sync site pays
 * (its entries empty): a store at each poll's end and start, and a test.
 *
 * And what a barrier waited for (issue 35: "per parallel region / worksharing loop its load
 * balance"): a thread's phase is its computation inside parallel regions since the last barrier
 * it passed (or the outermost region it forked: tp_phase_forks), the explicit tasks it ran while it waited there included; the next barrier it
 * passes ends it, into that barrier's site's figures, a sum per thread. The site's load balance is
 * those sums' average over their most, of every thread that passed it (tp_live_phase_read). A
 * worksharing loop's implicit barrier is a site of its own (ompt_constructs.h), so its phases are
 * the loop's computation (a loop without a barrier of its own, `nowait` or a region's last loop
 * built by GCC, is the next barrier's); a region's own barrier ends what its threads did after
 * the last loop's.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "taskprobe_contract.h" /* enum tp_sync_kind */

#define TP_SYNC_WAITED_DEPTH 64 /* a power of two: the entries are a ring */

struct tp_sync_waited_entry {
	uint64_t task;  /* the engine's key for the task (its entry's address, its id) */
	uint32_t since; /* its suspension's start, its low 32 bits (as `suspended` tests it) */
	uint32_t where; /* the engine's key for its sync site (never 0) */
};

struct tp_sync_waited {
	uint64_t free_since; /* its last poll's end (0: it polls, or has not polled yet) */
	uint32_t top;        /* the innermost entry's index */
	uint32_t count;      /* the entries kept (at most TP_SYNC_WAITED_DEPTH) */
	struct tp_sync_waited_entry entries[TP_SYNC_WAITED_DEPTH];
};

/*
 * The thread's poll ended at `now`; its task, unless it ended (`task` 0), is suspended since then
 * at `where` (0: at no sync site, not kept).
 */
static inline void tp_sync_waited_poll_end(struct tp_sync_waited *w, uint64_t task, uint32_t where,
					   uint64_t now)
{
	w->free_since = now;
	if (task == 0 || where == 0)
		return;
	w->top = (w->top + 1) & (TP_SYNC_WAITED_DEPTH - 1);
	w->entries[w->top] = (struct tp_sync_waited_entry){task, (uint32_t)now, where};
	if (w->count < TP_SYNC_WAITED_DEPTH)
		w->count++;
}

static inline void tp_sync_waited_pop(struct tp_sync_waited *w)
{
	w->count--;
	w->top = (w->top - 1) & (TP_SYNC_WAITED_DEPTH - 1);
}

/* How many of a region's last joins a region's row keeps (struct tp_sync_joins). */
#define TP_SYNC_JOINS 4

/*
 * A parallel region's last instances' joins (their primaries' implicit tasks' ends), for the
 * waits at its barrier (tp_sync_wait_joined): TP_SYNC_JOINS of them, written by the primaries'
 * threads (two of a nested region's instances may join at once), read by its workers'.
 */
struct tp_sync_joins {
	uint64_t at[TP_SYNC_JOINS];
	uint32_t next;
};

/* A region instance of the row of `j` joined at `now`. */
static inline void tp_sync_joins_add(struct tp_sync_joins *j, uint64_t now)
{
	uint32_t i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED) % TP_SYNC_JOINS;
	__atomic_store_n(&j->at[i], now, __ATOMIC_RELAXED);
}

/*
 * The latest moment a wait at a barrier since `suspended_ns` ended, its task's region's last
 * instances joined at `j`'s: its instance's join, the first after the wait began, else none
 * (UINT64_MAX). libomp tells a worker's wait at its region's barrier over only when the next
 * region wakes it (or the runtime ends): until then it idled between regions, waiting at no
 * site, for the initial task's serial code (on the span, where the exit report shows it);
 * counted, the barrier read 80 ms waited of five balanced regions with 20 ms of serial code
 * between them. Not the last join: a pool's thread left idle by a nested region's team while
 * its instances went on joining read 91 ms waited at a balanced barrier. When every join kept
 * is after the wait began (more instances joined since than are kept), the earliest kept. Two
 * instances of one nested site at once (an outer team's threads each forking it) are not told
 * apart: a sibling instance's join may come first and cut the wait short (a lower bound then).
 */
static inline uint64_t tp_sync_wait_joined(uint64_t suspended_ns, const struct tp_sync_joins *j)
{
	uint64_t first = UINT64_MAX;
	for (unsigned i = 0; i < TP_SYNC_JOINS; i++) {
		uint64_t at = __atomic_load_n(&j->at[i], __ATOMIC_RELAXED);
		if (at > suspended_ns && at < first)
			first = at;
	}
	return first;
}

/*
 * The thread starts polling `task` at `now`: the time since its last poll's end was the wait of
 * the innermost task on it still suspended (`suspended(context, task, since, where, &until)`: that
 * task is suspended still, since then, waiting at `where`; its wait ended by `until` at the
 * latest, left UINT64_MAX when none: tp_sync_wait_joined), its site's key put in `where` (0:
 * none), and returned. `task`'s own entry, its wait now over, is popped.
 */
static inline uint64_t
tp_sync_waited_poll_start(struct tp_sync_waited *w, uint64_t task, uint64_t now,
			  bool (*suspended)(const void *context, uint64_t task, uint32_t since,
					    uint32_t where, uint64_t *until),
			  const void *context, uint32_t *where)
{
	uint64_t since = w->free_since;
	w->free_since = 0;
	*where = 0;
	if (w->count == 0)
		return 0;
	uint64_t until = UINT64_MAX;
	while (w->count > 0) {
		const struct tp_sync_waited_entry *e = &w->entries[w->top];
		if (suspended(context, e->task, e->since, e->where, &until)) {
			*where = e->where;
			if (e->task == task)
				tp_sync_waited_pop(w);
			break;
		}
		tp_sync_waited_pop(w); /* polled again elsewhere since */
	}
	if (*where == 0 || since == 0)
		return 0;
	uint64_t end = now < until ? now : until;
	return end > since ? end - since : 0;
}

/* A polled fragment's `ns` in the thread's `phase`, when it lies inside a parallel region
 * (`region`, its row or site: 0 none; the initial task's serial code waits for no barrier). */
static inline void tp_phase_computes(uint64_t *phase, uint32_t region, uint64_t ns)
{
	if (region != 0)
		*phase += ns;
}

/* The thread forks an outermost parallel region: its phase starts. What it computed inside
 * regions since its last barrier was a team of one's (a region of one thread has no barrier),
 * which no barrier waited for: counted, it took the next region's barrier for imbalanced. */
static inline void tp_phase_forks(uint64_t *phase)
{
	*phase = 0;
}

/* A task of the thread is polled again after a wait in `sync` (enum tp_sync_kind) at a site with
 * a row: the phase it ended, for the site's figures (0: none ended, not a barrier), the next
 * begun. */
static inline uint64_t tp_phase_ends(uint64_t *phase, uint32_t sync)
{
	if (sync != TP_SYNC_BARRIER)
		return 0;
	uint64_t ended = *phase;
	*phase = 0;
	return ended;
}
