// SPDX-License-Identifier: MIT
/*
 * The ranks' offsets before the messages (ranks.c's alignment): each host's ranks by its
 * system clock, each other host as a whole by its ranks' ends of MPI_Init and MPI_Finalize.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "ranks_private.h"

/*
 * The offsets before the messages: ranks of one host by their host's system clock, which they
 * share whatever their monotonic clocks (time namespaces), each other host as a whole by the
 * ends of MPI_Init and MPI_Finalize of its ranks and the first host's: the mean of the
 * estimates, each sync's weighed by how closely the ranks of one host (aligned exactly) end it,
 * the inverse of the square of their widest spread (struct host_syncs). Open MPI 4's ranks leave
 * MPI_Init within a millisecond of each other, MPI_Finalize 30 to 65 ms apart: a plain mean put
 * another host's rank 23 ms early, its broadcast ending before its root began it. With one rank
 * a host, nothing says how closely: the plain mean. Returns the uncertainty: half the widest
 * disagreement of a host's estimates of the sync weighed most (of both, when equal), or half
 * that sync's spread on one host when more.
 */
static int by_host_then_number(const void *a, const void *b, void *ranks)
{
	const struct rank *x = &((const struct rank *)ranks)[*(const size_t *)a],
			  *y = &((const struct rank *)ranks)[*(const size_t *)b];
	int c = strcmp(x->host, y->host);
	return c != 0 ? c : (x->number > y->number) - (x->number < y->number);
}

/* A rank's end of MPI_Init (`sync` 0) or MPI_Finalize (1), in its clock. */
static uint64_t sync_end(const struct rank *k, int sync)
{
	return sync == 0 ? k->init_ns : k->finalize_ns;
}

/* The host syncs of ranks `order` grouped by host (`hosts`: each host's first index, n_hosts). */
static struct host_syncs host_syncs_of(const struct rank *ranks, size_t n, const size_t *order,
				       const size_t *hosts, size_t n_hosts)
{
	struct host_syncs h = {{-1, -1}, {1, 1}};
	for (size_t i = 0; i < n_hosts; i++) {
		size_t end = i + 1 < n_hosts ? hosts[i + 1] : n;
		const struct rank *base = &ranks[order[hosts[i]]];
		for (int s = 0; s < 2; s++) {
			int64_t lo = INT64_MAX, hi = INT64_MIN;
			unsigned made = 0;
			for (size_t j = hosts[i]; j < end; j++) {
				const struct rank *m = &ranks[order[j]];
				if (s == 1 && !m->finalized)
					continue;
				int64_t at = clamped((__int128)sync_end(m, s) +
						     sub(m->system_minus_monotonic,
							 base->system_minus_monotonic));
				lo = at < lo ? at : lo;
				hi = at > hi ? at : hi;
				made++;
			}
			if (made >= 2 && sub(hi, lo) > h.spread[s])
				h.spread[s] = sub(hi, lo);
		}
	}
	if (h.spread[0] >= 0 && h.spread[1] >= 0)
		for (int s = 0; s < 2; s++) {
			double d = (double)h.spread[s] + 1e3; /* the clock's reads: a microsecond */
			h.weight[s] = 1 / (d * d);
		}
	return h;
}

int64_t ranks_align_hosts(struct rank *ranks, size_t n, size_t *n_hosts, bool *ok,
			  struct host_syncs *syncs)
{
	size_t *order = calloc(n, sizeof *order), *hosts = calloc(n, sizeof *hosts);
	int64_t uncertainty = 0;
	*ok = order != NULL && hosts != NULL;
	if (!*ok) {
		free(order);
		free(hosts);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof *order, by_host_then_number, ranks);
	*n_hosts = 0;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(ranks[order[i]].host, ranks[order[i - 1]].host) != 0)
			hosts[(*n_hosts)++] = i;
	*syncs = host_syncs_of(ranks, n, order, hosts, *n_hosts);
	const struct rank *first = &ranks[0];
	for (size_t h = 0; h < *n_hosts; h++) {
		/* a host's ranks: order[i, end); its first rank (in rank order) its reference */
		size_t i = hosts[h], end = h + 1 < *n_hosts ? hosts[h + 1] : n;
		const struct rank *base = &ranks[order[i]];
		int64_t offset = 0; /* the first rank's host: its clock is the timeline's */
		if (strcmp(base->host, first->host) != 0) {
			/* the estimates of its reference's offset, one per rank and sync,
			 * summed relative to the first (`pivot`): exact in a double however
			 * far apart the clocks */
			int64_t lo[2] = {INT64_MAX, INT64_MAX}, hi[2] = {INT64_MIN, INT64_MIN};
			int64_t pivot = 0;
			double sum = 0, weights = 0;
			for (size_t j = i; j < end; j++) {
				const struct rank *m = &ranks[order[j]];
				int64_t own = sub(m->system_minus_monotonic,
						  base->system_minus_monotonic);
				for (int s = 0; s < (m->finalized && first->finalized ? 2 : 1);
				     s++) {
					int64_t e = clamped((__int128)sync_end(first, s) -
							    sync_end(m, s) - own);
					pivot = weights == 0 ? e : pivot;
					sum += syncs->weight[s] * (double)sub(e, pivot);
					weights += syncs->weight[s];
					lo[s] = e < lo[s] ? e : lo[s];
					hi[s] = e > hi[s] ? e : hi[s];
				}
			}
			double mean = sum / weights;
			/* within int64_t before the cast (hostile estimates: +-INT64_MAX) */
			offset = mean >= 0x1p62    ? add(pivot, INT64_MAX)
				 : mean <= -0x1p62 ? add(pivot, -INT64_MAX)
						   : add(pivot, (int64_t)(mean < 0 ? mean - 0.5
										   : mean + 0.5));
			/* the disagreement of the sync weighed most (both when equal; MPI_Init's
			 * when only it was made) */
			int most = syncs->weight[1] > syncs->weight[0] && lo[1] != INT64_MAX;
			int64_t low = lo[most], high = hi[most];
			if (syncs->weight[0] == syncs->weight[1] && lo[1] != INT64_MAX) {
				low = lo[1] < low ? lo[1] : low;
				high = hi[1] > high ? hi[1] : high;
			}
			if (sub(high, low) / 2 > uncertainty)
				uncertainty = sub(high, low) / 2;
		}
		for (size_t j = i; j < end; j++) {
			struct rank *k = &ranks[order[j]];
			k->offset = add(offset, sub(k->system_minus_monotonic,
						    base->system_minus_monotonic));
		}
	}
	/* one host's ranks end the sync weighed most that far apart: each estimate is as unsure */
	int most = syncs->weight[1] > syncs->weight[0];
	if (*n_hosts > 1 && syncs->spread[most] / 2 > uncertainty)
		uncertainty = syncs->spread[most] / 2;
	free(order);
	free(hosts);
	return uncertainty;
}
