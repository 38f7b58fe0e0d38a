// SPDX-License-Identifier: MIT
/*
 * A snapshot's sites of one name made one (live_snapshot.c's): the shim keeps a site per call
 * address, and one construct or one line may have several (an unrolled loop's copies, GCC's
 * closing barrier named by the next construct's line, both branches of a condition).
 */
#include "live_private.h"
#include "live_view.h"

#include <string.h>

/* Adds the figures of site `from` to site `to`'s (two call addresses of one construct, or of
 * one sync construct). */
static void merge_site(struct site_view *to, const struct site_view *from)
{
	to->spawned += from->spawned;
	to->done += from->done;
	to->polls += from->polls;
	to->busy_ns += from->busy_ns;
	to->idle_ns += from->idle_ns;
	to->delay_ns += from->delay_ns;
	to->delays += from->delays;
	to->long_polls += from->long_polls;
	to->blocking_waits += from->blocking_waits;
	to->blocking_ns += from->blocking_ns;
	to->polling_now += from->polling_now;
	to->path_ns += from->path_ns;
	to->path_fragments += from->path_fragments;
	to->path_at_least |= from->path_at_least;
	to->sync_waited_ns += from->sync_waited_ns;
	to->sync_waits += from->sync_waits;
	/* a region of two call addresses (an unrolled loop's): read again over both
	 * (read_merged_regions) */
	if (from->longest_poll_ns > to->longest_poll_ns)
		to->longest_poll_ns = from->longest_poll_ns;
	if (from->longest_now_ns > to->longest_now_ns)
		to->longest_now_ns = from->longest_now_ns;
	if (from->first_spawn_ns != 0 &&
	    (to->first_spawn_ns == 0 || from->first_spawn_ns < to->first_spawn_ns))
		to->first_spawn_ns = from->first_spawn_ns;
	for (unsigned b = 0; b < TP_LIVE_BUCKETS; b++) {
		to->poll_histogram[b] += from->poll_histogram[b];
		to->delay_histogram[b] += from->delay_histogram[b];
	}
	tp_live_costs_merge(&to->costs, &from->costs);
}

/*
 * The sites `v[0..n)` of one name (a sync site's: of one kind too) made one: the shim keeps a
 * site per call address, and a compiler that unrolls a loop copies its one construct's call (GCC
 * names a loop's closing barrier by the next construct's line, whose own call is another). Each
 * row merged away is kept in `kept_row` (if given) as the row it went into. Returns the sites
 * left.
 */
static unsigned merge_of_one_name(struct site_view *v, unsigned n, uint32_t *kept_row)
{
	unsigned left = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = 0;
		while (k < left &&
		       !(v[i].address != 0 && v[k].address != 0 &&
			 v[i].sync_kind == v[k].sync_kind && v[i].mutex_kind == v[k].mutex_kind &&
			 strcmp(v[k].text, v[i].text) == 0))
			k++;
		if (k < left) {
			merge_site(&v[k], &v[i]);
			if (kept_row != NULL)
				kept_row[v[i].row] = v[k].row;
		} else {
			if (k != i)
				v[left] = v[i];
			left++;
		}
	}
	return left;
}

/* The task sites and the sync sites of one name made one; the threads' and the stacks' rows of a
 * task site merged away point to the one kept, as `kept_row` says of each row. */
void live_merge_sites_of_one_name(struct live_snapshot *out, uint32_t *kept_row)
{
	for (uint32_t row = 0; row < TP_LIVE_SITES; row++)
		kept_row[row] = row;
	out->n_sites = merge_of_one_name(out->sites, out->n_sites, kept_row);
	out->n_syncs = merge_of_one_name(out->syncs, out->n_syncs, kept_row);
	for (unsigned i = 0; i < out->n_threads; i++)
		out->threads[i].site = kept_row[out->threads[i].site % TP_LIVE_SITES];
	for (unsigned i = 0; i < out->n_stacks; i++)
		if (!(out->stacks[i].row & TP_LIVE_STACK_OF_WAIT_SITE))
			out->stacks[i].row = kept_row[out->stacks[i].row % TP_LIVE_SITES];
}

/*
 * Wait sites of one text (one kind) made one: the shim keeps a site per call address, and one
 * source line may hold two calls of a wait (both branches of a condition, an unrolled loop). The
 * stacks of those merged away are the kept one's.
 */
void live_merge_wait_sites_of_one_name(struct live_snapshot *out)
{
	unsigned n = 0;
	for (unsigned i = 0; i < out->n_waits; i++) {
		const struct wait_view *w = &out->waits[i];
		unsigned k = 0;
		while (k < n &&
		       !(w->address != 0 && out->waits[k].address != 0 &&
			 w->kind == out->waits[k].kind && strcmp(out->waits[k].text, w->text) == 0))
			k++;
		if (k == n) {
			out->waits[n++] = *w;
			continue;
		}
		struct wait_view *to = &out->waits[k];
		to->waits += w->waits;
		to->total_ns += w->total_ns;
		to->waiting += w->waiting;
		if (w->longest_ns > to->longest_ns)
			to->longest_ns = w->longest_ns;
		to->thread_bits |= w->thread_bits;
		to->threads = (unsigned)__builtin_popcountll(to->thread_bits);
		for (unsigned s = 0; s < out->n_stacks; s++)
			if (out->stacks[s].row == w->entry)
				out->stacks[s].row = to->entry;
	}
	out->n_waits = n;
}
