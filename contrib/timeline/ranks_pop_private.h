// SPDX-License-Identifier: MIT
/*
 * What ranks_pop.c (the MPI factors across ranks) and ranks_hybrid.c (the hybrid MPI + OpenMP
 * efficiencies, from the windows the first found) share: the state they keep.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "table.h"

/* Threads kept, at most (under the converter's bound, with its others). */
#define MAX_THREADS (1u << 16)

struct op;     /* an MPI operation of a thread (ranks_pop.c) */
struct thread; /* a thread whose mpi-init was seen (ranks_pop.c) */

/* A rank's window in the merged clock, and its MPI thread's time outside MPI calls in it. */
struct window {
	double on, off, outside_mpi;
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
	bool regions;
	double runtime, mpi_balance, mpi_communication;
	/* the ranks' threads by (rank, tid), at most MAX_THREADS */
	struct table busy;
	bool busy_full;
};

static inline uint64_t thread_key_hash(uint32_t segment, uint32_t tid)
{
	return (size_t)segment * 2654435761u ^ tid * 40503u;
}

/* The hash of a struct busy's slot (ranks_hybrid.c's table). */
uint64_t ranks_busy_hash(const void *context, const void *slot);
