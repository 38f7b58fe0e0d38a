// SPDX-License-Identifier: MIT
/*
 * A path's time by site, as every reader of the live statistics takes it (taskprobe_figures.h
 * includes it): its places, and the snapshot of the commit its committed place stands for
 * (taskprobe_live.h's struct tp_live_commits), whatever a torn read gave never more than the
 * path.
 */
#pragma once

#include "taskprobe_figures.h"

/* Sites of a path: its places and every row of its commit's snapshot at most. */
#define TP_LIVE_PATH_SITES_READ (TP_LIVE_PATH_SITES + TP_LIVE_SITES)
struct tp_live_path_sites {
	unsigned n;
	struct tp_live_path_site sites[TP_LIVE_PATH_SITES_READ];
	uint64_t committed_ns; /* of them, the commit's (its snapshot read) */
	uint64_t other_ns;     /* the path's time in sites not kept */
};

/*
 * How many commits back from the last of `count` made commit `label` (TP_LIVE_PATH_LABEL_MASK's
 * bits) is, or UINT32_MAX when it is none of them: the one rule for which snapshots a label still
 * has, the reader's (one of the last TP_LIVE_COMMITS) and the writer's (tp_span_commit builds
 * only on one its new snapshot does not overwrite).
 */
static inline uint32_t tp_live_commits_back(uint32_t count, uint32_t label)
{
	uint32_t back = (count - label) & TP_LIVE_PATH_LABEL_MASK;
	return count == 0 || back >= count ? UINT32_MAX : back;
}

/* The snapshot of commit `label`, while it is one of the last TP_LIVE_COMMITS made (`count`),
 * else NULL. */
static inline const struct tp_live_commit *tp_live_commit_of(const struct tp_live_commits *c,
							     uint32_t count, uint32_t label)
{
	if (tp_live_commits_back(count, label) >= TP_LIVE_COMMITS)
		return NULL;
	return &c->snapshots[label % TP_LIVE_COMMITS];
}

/*
 * The sites of commit `label`'s snapshot in `c` into `out` (after its `n` sites), `ns` of the path
 * at most: false, `out` as it was, when the snapshot is not one of the last commits' or a commit
 * rewrote it meanwhile (TP_LIVE_PATH_READ_TRIES reads).
 */
static inline bool tp_live_commit_read(const struct tp_live_commits *c, uint32_t label, uint64_t ns,
				       struct tp_live_path_sites *out)
{
	for (unsigned tries = 0; tries < TP_LIVE_PATH_READ_TRIES; tries++) {
		unsigned n = out->n;
		uint32_t before = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		const struct tp_live_commit *s = tp_live_commit_of(
			c, __atomic_load_n(&c->count, __ATOMIC_RELAXED), label);
		if (before % 2 != 0)
			continue;
		if (s == NULL)
			return false;
		uint32_t rows = __atomic_load_n(&c->rows, __ATOMIC_RELAXED);
		uint64_t other = __atomic_load_n(&s->other_ns, __ATOMIC_RELAXED), kept = other;
		for (uint32_t row = 0; row < rows && row < TP_LIVE_SITES; row++) {
			uint64_t v = __atomic_load_n(&s->ns[row], __ATOMIC_RELAXED);
			uint32_t f = __atomic_load_n(&s->fragments[row], __ATOMIC_RELAXED);
			if (v == 0 && (f & TP_LIVE_PATH_FRAGMENTS_MASK) == 0)
				continue;
			out->sites[n++] = (struct tp_live_path_site){
				.row = row,
				.ns = v,
				.fragments = f & TP_LIVE_PATH_FRAGMENTS_MASK,
				.at_least = (f & TP_LIVE_PATH_SINCE_LOSS) != 0,
			};
			kept += v;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&c->seq, __ATOMIC_RELAXED) != before)
			continue;
		if (kept != ns) /* a commit's snapshot is all its path's time: not this one's */
			return false;
		out->committed_ns = kept - other;
		out->n = n;
		return true;
	}
	return false;
}

/*
 * Path `p`'s time by site into `out`: its places, its committed place's snapshot's sites (`c`:
 * the file's commits; NULL: none read), and the rest of its time in sites not kept. A site may
 * come twice, from the commit and from a place: a reader adds both. A site's time is a lower
 * bound (at_least) wherever time in sites not kept may have been its own: every site's when the
 * committed place's snapshot is gone (older than the last TP_LIVE_COMMITS: its time is in sites
 * not kept) or gave up a site before (its other_ns), each place's then too (its site may have run
 * before the commit); the snapshot's when the path gave a place up since the commit (a site of
 * the snapshot's may have been it). A second root's path joined into the main thread's, of more
 * sites than a path keeps, read 5.8% of a construct's 9.1%, exact to the eye, without.
 */
static inline void tp_live_path_sites_read(const struct tp_live_commits *c,
					   const struct tp_live_path *p,
					   struct tp_live_path_sites *out)
{
	out->n = 0;
	out->committed_ns = 0;
	uint64_t kept = 0, committed = 0;
	bool lost = false;         /* a committed place whose snapshot is gone */
	unsigned from = 0, to = 0; /* the snapshot's sites in out->sites */
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++) {
		if (TP_LIVE_PATH_COMMITTED_PLACE(p->sites[k])) {
			uint64_t ns = p->sites[k] & TP_LIVE_PATH_NS_MASK;
			from = out->n;
			if (c != NULL && committed == 0 && kept + ns <= p->ns &&
			    tp_live_commit_read(c, p->fragments[k] & TP_LIVE_PATH_LABEL_MASK, ns,
						out))
				committed = ns;
			else
				lost = true;
			to = out->n;
			continue;
		}
		struct tp_live_path_site s;
		if (!tp_live_path_site_read(p, k, kept + committed, &s))
			continue;
		out->sites[out->n++] = s;
		kept += s.ns;
	}
	bool lost_before = lost || committed > out->committed_ns, /* the snapshot's other_ns */
		lost_since = p->ns > kept + committed;
	for (unsigned i = 0; i < out->n; i++)
		out->sites[i].at_least |= lost_before || (lost_since && i >= from && i < to);
	kept += out->committed_ns;
	out->other_ns = p->ns > kept ? p->ns - kept : 0;
}
