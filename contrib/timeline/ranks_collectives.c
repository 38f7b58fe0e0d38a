// SPDX-License-Identifier: MIT
/*
 * The MPI collectives of a job's ranks paired for the ideal run (ranks_pop_private.h): the k-th
 * collective of each rank on a communicator is one, whether each rank made it blocking or started
 * it (a nonblocking one, which its completion then waits for), as MPI orders them.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "ranks_pop_private.h"
#include "taskprobe_contract.h"

/* A collective of a rank, for pairing: its communicator, its place among the rank's collectives
 * on it, its rank and its operation. */
struct collective_end {
	uint64_t communicator;
	size_t place, rank, op;
};

static int by_communicator_then_rank(const void *a, const void *b)
{
	const struct collective_end *x = a, *y = b;
	if (x->communicator != y->communicator)
		return x->communicator < y->communicator ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->op > y->op) - (x->op < y->op);
}

static int by_communicator_then_place(const void *a, const void *b)
{
	const struct collective_end *x = a, *y = b;
	if (x->communicator != y->communicator)
		return x->communicator < y->communicator ? -1 : 1;
	if (x->place != y->place)
		return x->place < y->place ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

void ranks_groups_free(struct groups *g)
{
	free(g->of);
	free(g->members);
	free(g->at);
}

/* Whether operation `op` is a collective's arrival: a blocking one, or a nonblocking one's start. */
static bool arrives(const struct op *op)
{
	return op->type == OP_COLLECTIVE || op->type == OP_COLLECTIVE_START;
}

/*
 * Each nonblocking collective's completion of rank r (ops[first] to ops[end]) in the group of its
 * start: the rank's first not completed yet of the same communicator and call (a wait completes
 * such collectives in the order they started, as a rule). `done`: the starts completed (by
 * operation). False when a completion has no start.
 */
static bool completions_grouped(const struct op *ops, size_t first, size_t end, bool *done,
				struct groups *g)
{
	size_t oldest = first; /* before it every start is completed */
	for (size_t i = first; i < end; i++) {
		if (ops[i].type != OP_COLLECTIVE_DONE)
			continue;
		size_t j = oldest;
		for (; j < i; j++)
			if (ops[j].type == OP_COLLECTIVE_START && !done[j] &&
			    ops[j].communicator == ops[i].communicator && ops[j].tag == ops[i].tag)
				break;
		if (j == i)
			return false;
		done[j] = true;
		g->of[i] = g->of[j];
		while (oldest < i && (ops[oldest].type != OP_COLLECTIVE_START || done[oldest]))
			oldest++;
	}
	return true;
}

bool ranks_collectives_grouped(const struct op *ops, size_t n_ops, size_t n, const size_t *first,
			       const size_t *end, struct groups *g)
{
	size_t count = 0;
	for (size_t r = 0; r < n; r++)
		for (size_t i = first[r]; i < end[r]; i++)
			count += arrives(&ops[i]);
	struct collective_end *ends = calloc(count + 1, sizeof *ends);
	bool *done = calloc(n_ops + 1, sizeof *done);
	*g = (struct groups){.of = calloc(n_ops + 1, sizeof *g->of),
			     .members = calloc(count + 1, sizeof *g->members),
			     .at = calloc(count + 2, sizeof *g->at)};
	bool paired = ends != NULL && done != NULL && g->of != NULL && g->members != NULL &&
		      g->at != NULL;
	for (size_t r = 0, c = 0; paired && r < n; r++)
		for (size_t i = first[r]; i < end[r]; i++)
			if (arrives(&ops[i]))
				ends[c++] = (struct collective_end){ops[i].communicator, 0, r, i};
	if (paired) {
		qsort(ends, count, sizeof *ends, by_communicator_then_rank);
		for (size_t c = 1; c < count; c++)
			if (ends[c].communicator == ends[c - 1].communicator &&
			    ends[c].rank == ends[c - 1].rank)
				ends[c].place = ends[c - 1].place + 1;
		qsort(ends, count, sizeof *ends, by_communicator_then_place);
	}
	/* a group: the same place on one communicator, each rank it expects (its communicator's,
	 * as told, or every rank's; at most the `n` analysed), one kind (blocking collectives
	 * and nonblocking ones do not match) */
	for (size_t c = 0, next; paired && c < count; c = next) {
		const struct op *first_op = &ops[ends[c].op];
		for (next = c + 1;
		     next < count && ends[next].communicator == ends[c].communicator &&
		     ends[next].place == ends[c].place;
		     next++)
			paired &= ops[ends[next].op].type == first_op->type;
		uint32_t told = first_op->members;
		paired &= next - c == (told != 0 && told < n ? told : n);
		g->at[g->n] = c;
		for (size_t m = c; m < next; m++) {
			g->members[m] = ends[m].rank;
			g->of[ends[m].op] = g->n;
		}
		g->n++;
	}
	g->at[g->n] = count;
	for (size_t r = 0; paired && r < n; r++)
		paired = completions_grouped(ops, first[r], end[r], done, g);
	free(ends);
	free(done);
	return paired;
}

enum ranks_flow ranks_call_flow(int32_t call)
{
	if (tp_mpi_call_nonblocking_collective((unsigned)call))
		call = (int32_t)tp_mpi_call_blocking((unsigned)call);
	switch (call) {
	case TP_MPI_CALL_SCAN:
	case TP_MPI_CALL_EXSCAN:
		return RANKS_PREFIX;
	case TP_MPI_CALL_BCAST:
	case TP_MPI_CALL_SCATTER:
	case TP_MPI_CALL_SCATTERV:
		return RANKS_ONE_TO_ALL;
	case TP_MPI_CALL_REDUCE:
	case TP_MPI_CALL_GATHER:
	case TP_MPI_CALL_GATHERV:
		return RANKS_ALL_TO_ONE;
	default:
		return RANKS_ALL_TO_ALL;
	}
}

/* The index of rank `number` among the `n` ranks (sorted by number), or SIZE_MAX. */
static size_t root_index(const struct ranks_pop_rank *ranks, size_t n, int32_t number)
{
	size_t low = 0, high = n;
	while (number >= 0 && low < high) {
		size_t mid = low + (high - low) / 2;
		if (ranks[mid].number == number)
			return mid;
		if (ranks[mid].number < number)
			low = mid + 1;
		else
			high = mid;
	}
	return SIZE_MAX;
}

enum ranks_flow ranks_collective_flow(const struct groups *g, size_t group, const struct op *op,
				      const struct ranks_pop_rank *ranks, size_t n, size_t *root)
{
	size_t told = root_index(ranks, n, op->peer);
	*root = SIZE_MAX;
	for (size_t m = g->at[group]; m < g->at[group + 1]; m++)
		if (g->members[m] == told)
			*root = told;
	if (ranks_call_flow(op->tag) == RANKS_PREFIX)
		return RANKS_PREFIX;
	return *root == SIZE_MAX ? RANKS_ALL_TO_ALL : ranks_call_flow(op->tag);
}
