// SPDX-License-Identifier: MIT
/*
 * The parallel regions' figures every reader makes of the live statistics and of a recording's
 * analysis alike (taskprobe_figures.h includes it): a region's computation, threads, load
 * balance, time and efficiency, a barrier's phases', their words, and their reading from the
 * slots' rows.
 */
#pragma once

#include "taskprobe_figures.h"

/*
 * A parallel region's figures (the row of its implicit tasks' site): the computation of the
 * threads that ran its tasks, how many, and their load balance (tp_live_factors_of's: average
 * over maximum); and its time, its instances' from their fork to their join (on their primary
 * threads) added up, those going on counted up to the reader's now, 0 when none was forked (a
 * barrier's phases have none).
 */
struct tp_live_region {
	uint64_t computation_ns;
	unsigned threads;
	double load_balance;
	uint64_t time_ns;
	bool nested; /* it holds nested regions or is one (region_nested): no efficiency */
};

/*
 * A parallel region's efficiency, the POP factors' parallel efficiency of its own: its threads'
 * average computation over its time, its load balance times its maximum computation over its
 * time (what its fork, its join and its waits for each other leave of its threads' time: the
 * regions of a time-step loop whose threads compute for a few microseconds lose most of theirs).
 * At most 1 (a reader of the live statistics counts the fragments and instances going on at
 * moments apart); negative when it has no time or no computation, or holds nested regions or is
 * one (its instances run at once on several threads, its computation is not the outer region's).
 */
static inline double tp_live_region_efficiency(const struct tp_live_region *r)
{
	if (r->time_ns == 0 || r->computation_ns == 0 || r->threads == 0 || r->nested)
		return -1;
	double e = (double)r->computation_ns / r->threads / (double)r->time_ns;
	return e < 1 ? e : 1;
}

/* A region's time in a table, as every reader writes it: "25.00 ms", "-" when none forked. */
static inline const char *tp_live_region_time_words(uint64_t ns, char *buf, size_t size)
{
	return ns == 0 ? "-" : tp_live_duration_words(ns, buf, size);
}

/* A region's efficiency in a table, as every reader writes it: "0.667", "-" when it has none. */
static inline const char *tp_live_efficiency_words(const struct tp_live_region *r, char *buf,
						   size_t size)
{
	double e = tp_live_region_efficiency(r);
	if (e < 0)
		return "-";
	snprintf(buf, size, "%.3f", e);
	return buf;
}

/* The figures of `threads` threads' computations, as every reader makes them (a barrier's phases
 * too: sync_waited.h). */
static inline struct tp_live_region tp_live_region_of(const uint64_t *computation_ns,
						      unsigned threads)
{
	struct tp_live_region r = {.threads = threads};
	for (unsigned t = 0; t < threads; t++)
		r.computation_ns += computation_ns[t];
	struct tp_live_factors f = tp_live_factors_of(computation_ns, threads, 0, 1);
	r.load_balance = f.valid ? f.load_balance : 0;
	return r;
}

/* A load balance in a table, as every reader writes it: "0.667", "-" when nothing was computed
 * (a balance of nothing is none). */
static inline const char *tp_live_balance_words(const struct tp_live_region *r, char *buf,
						size_t size)
{
	if (r->computation_ns == 0 || r->threads == 0)
		return "-";
	snprintf(buf, size, "%.3f", r->load_balance);
	return buf;
}

/*
 * The computation of rows `rows[0..n)` read from the slots and their rows (`rows` of slot i at
 * `map` + `rows_offset` + i * `rows_stride`, when the slot's rows_ready). Several rows are one
 * construct's call addresses (an unrolled loop's copies, two constructs on one line: one name):
 * a thread's computation is its sum over them, as --analyze counts a site's, so the balance is
 * the construct's, not a copy's. `phases`: the phases a barrier's rows ended (phase_ns), of
 * every thread that passed the barrier (a thread that computed nothing before it is as
 * imbalanced as one that computed all); else a region's (region_ns), the fragments going on
 * now counted to `now`, of every thread that computed in it, and its time (region_time_ns), the
 * instances going on (a slot's fork_row) counted to `now` too.
 */
static inline struct tp_live_region tp_live_computation_read(const struct tp_live_thread *slots,
							     const char *map, uint64_t rows_offset,
							     uint64_t rows_stride,
							     const uint32_t *rows, unsigned n,
							     uint64_t now, bool phases)
{
	uint64_t computation[TP_LIVE_THREADS], time = 0, nested = 0;
	unsigned threads = 0;
	for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
		const struct tp_live_thread *t = &slots[i];
		const struct tp_live_site_stats *stats = tp_live_slot_rows(
			slots, i, map, rows_offset, rows_stride);
		if (stats == NULL)
			continue;
		uint32_t open = __atomic_load_n(&t->open_region, __ATOMIC_RELAXED),
			 forked = __atomic_load_n(&t->fork_row, __ATOMIC_ACQUIRE);
		uint64_t ns = 0, passed = 0,
			 fork_ns = forked != 0 ? __atomic_load_n(&t->fork_ns, __ATOMIC_RELAXED) : 0;
		for (unsigned k = 0; k < n; k++) {
			const struct tp_live_site_stats *row = &stats[rows[k]];
			if (phases) {
				ns += __atomic_load_n(&row->phase_ns, __ATOMIC_RELAXED);
				passed += __atomic_load_n(&row->sync_waits, __ATOMIC_RELAXED);
				continue;
			}
			ns += __atomic_load_n(&row->region_ns, __ATOMIC_RELAXED);
			time += __atomic_load_n(&row->region_time_ns, __ATOMIC_RELAXED);
			/* the instance the thread forked, going on: its time so far */
			if (forked == rows[k] && now > fork_ns)
				time += now - fork_ns;
			nested += __atomic_load_n(&row->region_nested, __ATOMIC_RELAXED);
			if (open == rows[k]) {
				uint64_t uncounted, ran, path, placed;
				/* its whole poll so far: region_ns counts polls once ended */
				if (tp_live_open_fragment(t, now, &uncounted, &ran, &path, &placed))
					ns += ran;
			}
		}
		if (phases ? passed == 0 : ns == 0)
			continue;
		computation[threads++] = ns;
	}
	struct tp_live_region r = tp_live_region_of(computation, threads);
	r.time_ns = time;
	r.nested = nested != 0;
	return r;
}

/* A parallel region's figures, from the rows of its implicit tasks' site (its call addresses). */
static inline struct tp_live_region tp_live_region_read(const struct tp_live_thread *slots,
							const char *map, uint64_t rows_offset,
							uint64_t rows_stride, const uint32_t *rows,
							unsigned n, uint64_t now)
{
	return tp_live_computation_read(slots, map, rows_offset, rows_stride, rows, n, now, false);
}

/* The phases' figures of a barrier's site: its threads' computation before it, their balance. */
static inline struct tp_live_region tp_live_phase_read(const struct tp_live_thread *slots,
						       const char *map, uint64_t rows_offset,
						       uint64_t rows_stride, const uint32_t *rows,
						       unsigned n)
{
	return tp_live_computation_read(slots, map, rows_offset, rows_stride, rows, n, 0, true);
}
