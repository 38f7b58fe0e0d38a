// SPDX-License-Identifier: MIT
/*
 * The ranks' clocks moved by their blocking collectives (ranks.c's alignment, after the
 * messages'): no rank leaves a collective before what it waits for (ranks_collective_flow)
 * arrived there: a broadcast's or scatter's ranks before their root arrived, a reduction's or
 * gather's root before the others, any other collective's rank before every other (a scan's are
 * left out: its rank 0 may leave first). A rank that would is moved later, as little as needed,
 * as a message's receiver is. MPI_Init's and MPI_Finalize's ends place a host only as well as
 * its ranks leave them together: a rank on another host that left MPI_Init 5 ms after its
 * host's others was placed 5 ms early, its broadcast ending before the root began it, where a
 * job with no messages had nothing else to correct it.
 */
#include <stdlib.h>

#include "ranks_pop_private.h"
#include "ranks_private.h"

/* A blocking collective on a rank: its arrival and departure (the rank's clock, ns), its rank
 * (index), its operation. */
struct passage {
	uint64_t arrive, leave;
	size_t rank, op;
};

/* Whether operation `i` of ops is a blocking collective whose passage is known: a burst before
 * it (the call's start), and it ended no earlier (a file that says otherwise is not followed:
 * a rank's own arrival would move it on each pass). */
static bool passage_known(const struct op *ops, size_t i)
{
	return ops[i].type == OP_COLLECTIVE && ops[i - 1].type == OP_BURST &&
	       ops[i].end >= ops[i - 1].end;
}

/* The collectives' passages by group (`at[g]` to `at[g + 1]`): those whose passage is known.
 * NULL when out of memory. */
static struct passage *passages_of(const struct op *ops, const struct groups *g, size_t n,
				   const size_t *first, const size_t *end,
				   const struct ranks_pop_rank *ranks,
				   uint64_t (*to_ns)(const void *, uint32_t, uint64_t),
				   const void *context, size_t *at)
{
	for (size_t r = 0; r < n; r++)
		for (size_t i = first[r] + 1; i < end[r]; i++)
			if (passage_known(ops, i))
				at[g->of[i] + 1]++;
	for (size_t k = 0; k < g->n; k++)
		at[k + 1] += at[k];
	struct passage *p = calloc(at[g->n] + 1, sizeof *p);
	size_t *next = calloc(g->n + 1, sizeof *next);
	if (p != NULL && next != NULL)
		for (size_t r = 0; r < n; r++)
			for (size_t i = first[r] + 1; i < end[r]; i++)
				if (passage_known(ops, i))
					p[at[g->of[i]] + next[g->of[i]]++] = (struct passage){
						to_ns(context, ranks[r].segment, ops[i - 1].end),
						to_ns(context, ranks[r].segment, ops[i].end), r, i};
	free(next);
	if (next == NULL) {
		free(p);
		return NULL;
	}
	return p;
}

/* Whether a passage of rank `rank` is waited for (`waited`) or waits (else) in a collective of
 * flow `flow` whose root is `root`. */
static bool takes_part(enum ranks_flow flow, size_t root, size_t rank, bool waited)
{
	switch (flow) {
	case RANKS_ONE_TO_ALL:
		return waited == (rank == root);
	case RANKS_ALL_TO_ONE:
		return waited != (rank == root);
	case RANKS_ALL_TO_ALL:
		return true;
	default:
		return false;
	}
}

/* One pass over the groups: each rank that leaves one before what it waits for arrived moved.
 * Returns how many groups moved a rank. */
static size_t causality_pass(const struct op *ops, const struct groups *g, const size_t *at,
			     const struct passage *p, struct ranks_pop_rank *ranks, size_t n)
{
	size_t moved = 0;
	for (size_t k = 0; k < g->n; k++) {
		if (at[k + 1] == at[k])
			continue;
		size_t root;
		const struct op *op = &ops[p[at[k]].op];
		enum ranks_flow flow = ranks_collective_flow(g, k, op, ranks, n, &root);
		/* a rooted one whose root is not told, or not recorded: its ranks need not wait
		 * for each other (the ideal run takes it for all to all, a bound; here it would
		 * move ranks) */
		if (flow == RANKS_ALL_TO_ALL && ranks_call_flow(op->tag) != RANKS_ALL_TO_ALL)
			continue;
		int64_t latest = INT64_MIN;
		for (size_t i = at[k]; i < at[k + 1]; i++)
			if (takes_part(flow, root, p[i].rank, true)) {
				int64_t arrived = clamped((__int128)p[i].arrive +
							  ranks[p[i].rank].offset);
				latest = arrived > latest ? arrived : latest;
			}
		bool moves = false;
		for (size_t i = at[k]; latest != INT64_MIN && i < at[k + 1]; i++) {
			int64_t need = clamped((__int128)latest - p[i].leave);
			if (takes_part(flow, root, p[i].rank, false) &&
			    ranks[p[i].rank].offset < need) {
				ranks[p[i].rank].offset = need;
				moves = true;
			}
		}
		moved += moves;
	}
	return moved;
}

size_t ranks_causality(const struct op *ops, size_t n_ops, struct ranks_pop_rank *ranks, size_t n,
		       const size_t *first, const size_t *end,
		       uint64_t (*to_ns)(const void *context, uint32_t segment, uint64_t time),
		       const void *context)
{
	struct groups g;
	size_t moved = 0;
	bool paired = ranks_collectives_grouped(ops, n_ops, n, first, end, &g);
	size_t *at = paired ? calloc(g.n + 2, sizeof *at) : NULL;
	struct passage *p = at != NULL
				    ? passages_of(ops, &g, n, first, end, ranks, to_ns, context, at)
				    : NULL;
	/* the moves only grow, and the true offsets satisfy every collective: a pass per rank */
	for (size_t pass = 0; p != NULL && pass <= n && pass < RANKS_MAX_PASSES; pass++) {
		size_t now = causality_pass(ops, &g, at, p, ranks, n);
		moved += pass == 0 ? now : 0;
		if (now == 0)
			break;
	}
	free(p);
	free(at);
	ranks_groups_free(&g);
	return moved;
}
