// SPDX-License-Identifier: MIT
/*
 * What ranks_pop.c (the MPI factors across ranks) and ranks_hybrid.c (the hybrid MPI + OpenMP
 * efficiencies, from the windows the first found) share: the state they keep.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ranks_pop.h"
#include "scaling.h"
#include "table.h"

/* Threads kept, at most (under the converter's bound, with its others). */
#define MAX_THREADS (1u << 16)

struct thread; /* a thread whose mpi-init was seen (ranks_pop.c) */

/*
 * An MPI operation of a thread: a burst from `start` to `end` (its clock's), or at `start` a
 * message, a blocking collective, a nonblocking collective's start or its completion (in the wait
 * or test that completed its request). A collective's peer: its root, -1 when none is told; its
 * tag: its call; its communicator's identity and ranks, 0 when not told: MPI_COMM_WORLD.
 */
enum op_type {
	OP_BURST,
	OP_SEND,
	OP_RECV,
	OP_COLLECTIVE,
	OP_COLLECTIVE_START,
	OP_COLLECTIVE_DONE,
	OP_END
};
struct op {
	uint64_t start, end;
	uint64_t communicator;
	uint32_t thread; /* its thread's index */
	int32_t peer, tag;
	uint32_t members;
	uint8_t type;
};

/* The collectives in groups, each one collective of its communicator's ranks: an operation's
 * group (of[op], a nonblocking one's completion its start's); group g's ranks, members[at[g]] to
 * members[at[g + 1]]. */
struct groups {
	size_t *of, *members, *at, n;
};

/*
 * The `n` ranks' collectives (rank r's operations: ops[first[r]] to ops[end[r]]) paired: the
 * k-th of each rank on a communicator, blocking or not, are one (ranks_collectives.c). False when
 * they do not pair up, or out of memory.
 */
bool ranks_collectives_grouped(const struct op *ops, size_t n_ops, size_t n, const size_t *first,
			       const size_t *end, struct groups *g);
void ranks_groups_free(struct groups *g);

/* What a collective waits for: every rank for every other, the others for its root (one to
 * all), its root for the others (all to one), or each rank for those numbered below it (a
 * prefix: MPI_Scan's and MPI_Exscan's, whose rank 0 may leave at once; taken for a barrier, the
 * ideal run of a rank 0 that goes on working after it came out longer than the real one). */
enum ranks_flow { RANKS_ALL_TO_ALL, RANKS_ONE_TO_ALL, RANKS_ALL_TO_ONE, RANKS_PREFIX };

/* A collective call's flow as the call alone says (a rooted one's whatever its root). */
enum ranks_flow ranks_call_flow(int32_t call);

/* The flow of collective `op` of group `group` of `g` among the `n` ranks (by number), and in
 * *root its root's index (SIZE_MAX: none told, or not of the group: every rank waits for every
 * other). */
enum ranks_flow ranks_collective_flow(const struct groups *g, size_t group, const struct op *op,
				      const struct ranks_pop_rank *ranks, size_t n, size_t *root);

/*
 * The `n` ranks' offsets (`ranks`, by number) moved later, as little as needed, so that no rank
 * leaves a blocking collective of its operations (ops[first[r]] to ops[end[r]]) before what it
 * waits for arrived (ranks_causality.c). Returns how many collectives moved a rank in the first
 * pass.
 */
size_t ranks_causality(const struct op *ops, size_t n_ops, struct ranks_pop_rank *ranks, size_t n,
		       const size_t *first, const size_t *end,
		       uint64_t (*to_ns)(const void *context, uint32_t segment, uint64_t time),
		       const void *context);

/* A rank's window in the merged clock, and its MPI thread's time outside MPI calls in it. */
struct window {
	double on, off, outside_mpi;
	/* the rank's OpenMP initial task (0: not spawned yet), and whether it was polled */
	uint64_t initial;
	bool initial_polled;
	/* for the hybrid efficiencies: the rank's threads in an MPI call now and those computing
	 * (polling outside MPI calls), since when, and the rank's time so far with some in MPI
	 * and none computing: its time lost to MPI; at the end, its busiest thread's useful time
	 * and its threads that polled (ranks_pop_say_hybrid) */
	int32_t in_mpi, computing;
	uint64_t since;
	double lost_to_mpi, busiest;
	uint32_t threads;
};

/* A thread of a rank, for the hybrid efficiencies: its useful time so far (polling, outside
 * MPI calls), counted up to `since` (the merged clock's). */
struct busy {
	uint64_t key; /* (rank + 1) << 32 | tid: never 0 (table.h) */
	uint32_t rank, tid;
	uint32_t polls; /* open */
	bool in_mpi, polled;
	uint64_t since;
	double useful;
};

/* The ranks' windows: their regions of interest or MPI_Init to MPI_Finalize (ranks_pop_say). */
struct ranks_window {
	bool regions;     /* the windows are the ranks' regions of interest */
	unsigned markers; /* the calls that marked them (bit 1 << enum tp_roi_marker) */
	bool pairs_apart; /* a rank marked several: its window holds what lies between them */
	bool left_open;   /* a rank's region ends at MPI_Finalize's start */
	/* ranks that marked no region while others did (their regions unused), the first's number */
	uint32_t unmarked;
	int32_t first_unmarked;
};

struct ranks_pop {
	struct op *ops;
	size_t n_ops, cap_ops;
	struct thread *threads;
	size_t n_threads;
	/* the threads by (segment, tid): 1 + an index (uint32_t); twice MAX_THREADS slots */
	struct table slots;
	bool full;
	/* what ranks_pop_say found, for the hybrid efficiencies (windows NULL: nothing) */
	struct window *windows;
	size_t n_windows;
	int32_t first_number, last_number;
	struct ranks_window window;
	double runtime;
	/* the ranks' threads by (rank, tid), at most MAX_THREADS */
	struct table busy;
	bool busy_full;
	/* the job's efficiencies' basis, for a comparison of runs (scaling.h): the MPI threads',
	 * then every thread's when OpenMP ran (ranks_pop_say_hybrid) */
	struct scaling_basis basis;
};

static inline uint64_t thread_key_hash(uint32_t segment, uint32_t tid)
{
	return (size_t)segment * 2654435761u ^ tid * 40503u;
}

/* The hash of a struct busy's slot (ranks_hybrid.c's table). */
uint64_t ranks_busy_hash(const void *context, const void *slot);

/*
 * The ideal network's run time (ns) of the `n` ranks' operations [first[r], end[r]) of `p`, their
 * bursts `burst` and each receive's send `sender` (ranks_replay.c), or -1 when the replay cannot
 * finish (a receive whose send never comes, collectives that do not pair up).
 */
struct ranks_pop_rank;
double ranks_ideal_run(const struct ranks_pop *p, const struct ranks_pop_rank *ranks, size_t n,
		       const size_t *first, const size_t *end, const double *burst,
		       const size_t *sender);

/* Where the ranks' windows lie, in words: "MPI_Pcontrol(1) to MPI_Pcontrol(0)" (the calls that
 * marked the regions of interest; none told: MPI_Pcontrol), "MPI_Init to MPI_Finalize" without. */
const char *ranks_window_words(const struct ranks_window *w);
/* What else the windows are, in words, into `buf`: "" but where a rank marked several regions
 * (its window from its first start to its last stop), left one open (it ends at MPI_Finalize's
 * start), or marked none while others did (no rank's region is then used). */
const char *ranks_window_more_words(const struct ranks_window *w, char *buf, size_t size);
