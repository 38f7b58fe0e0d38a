// SPDX-License-Identifier: MIT
/*
 * The POP efficiencies across the ranks of an MPI job (ranks.h's), from MPI_Init's end to
 * MPI_Finalize's start of each rank's thread that called MPI_Init: its useful time is the time
 * outside MPI calls. Load balance: the mean useful time over the largest; communication
 * efficiency: the largest over the run's time; their product the parallel efficiency. The
 * communication efficiency splits into serialisation (the largest useful time over the run's
 * time on an ideal network, where a message arrives when it is sent: the ranks' bursts replayed
 * through their messages and collectives) and transfer (that ideal time over the real one).
 * Only the ranks' MPI-calling threads count there.
 *
 * The hybrid efficiencies (MPI + OpenMP, POP's multiplicative model, as OTF-CPT prints them):
 * every thread of every rank, its useful time its polls' (task fragments', OpenMP's initial
 * task's serial code among them) outside MPI calls, in its rank's window:
 *   parallel efficiency = load balance x communication efficiency = the mean over the run time
 *   load balance        = the mean useful time of a thread over the largest
 *   communication       = the largest over the run time
 * each the product of its MPI factor and its OpenMP factor, which is the quotient of the two.
 * The MPI factors there are the ranks' (not the line above's MPI threads'): load balance the
 * thread-weighted mean of each rank's busiest thread's useful time over the largest (OTF-CPT's),
 * communication the largest time a rank did not lose to MPI (one of its threads in an MPI call,
 * none computing) over the run time.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "scaling.h"
#include "taskprobe_recording.h"

struct ranks_pop;

/* The passes of the clocks' alignment by messages and collectives, at most (ranks.c): each a pass
 * over them, a move of one rank at least. */
#define RANKS_MAX_PASSES 64

struct ranks_pop *ranks_pop_new(void);
void ranks_pop_free(struct ranks_pop *p);

/* Record `rec` of thread `tid` of segment `segment` at `time` (its clock), in the file's order:
 * kept only for a thread once its mpi-init is seen. False when out of memory. */
bool ranks_pop_note(struct ranks_pop *p, uint32_t segment, uint32_t tid, uint64_t time,
		    const struct tp_record *rec);

/*
 * A message's send or receive, for matching: its sender, receiver, tag and communicator (its
 * identity; 0: not told), and `order`, its place among the ends of its key (its time, or its
 * place in its rank's calls).
 */
struct ranks_message_end {
	int32_t from, to, tag;
	uint64_t communicator, order;
};

/* Sorts `n` ends by key, then order: what ranks_messages_pair reads. */
void ranks_message_ends_sort(struct ranks_message_end *ends, size_t n);

/*
 * The n-th send of each key (from, to, tag, communicator: MPI's order) is received by the n-th
 * receive of the same key:
 * `pair(context, send, receive)` for each such pair, of the sorted `sends` and `receives`.
 */
void ranks_messages_pair(const struct ranks_message_end *sends, size_t n_sends,
			 const struct ranks_message_end *receives, size_t n_receives,
			 void (*pair)(void *context, const struct ranks_message_end *send,
				      const struct ranks_message_end *receive),
			 void *context);

/* A rank: its number, its segment and the thread whose records count (the mpi-init's). */
struct ranks_pop_rank {
	int32_t number;
	uint32_t segment, tid;
	int64_t offset; /* its clock's, ns */
};

/*
 * The `n` ranks' offsets (by number) moved later, as little as needed, so that no rank leaves a
 * blocking collective before what it waits for arrived there (ranks_causality.c). Returns how
 * many collectives moved a rank (in the first pass).
 */
size_t ranks_pop_causality(struct ranks_pop *p, struct ranks_pop_rank *ranks, size_t n,
			   uint64_t (*to_ns)(const void *context, uint32_t segment, uint64_t time),
			   const void *context);

/*
 * Where the efficiencies are said: on `figures`, the analysis's output (`taskprobe-timeline
 * --analyze`: the job's figures first, as a line of their own), or, when NULL, on `errors` among
 * the converter's other notes, `*lead` their prefix.
 */
static inline FILE *ranks_pop_figures(FILE *errors, FILE *figures, const char **lead)
{
	*lead = figures != NULL ? "" : "taskprobe-timeline: ";
	return figures != NULL ? figures : errors;
}

/* Says the efficiencies of the `n` ranks (sorted by number) (ranks_pop_figures); nothing when
 * fewer than two ranks ran from MPI_Init to MPI_Finalize. Keeps each rank's window (in the
 * merged clock: its offset added) for the hybrid efficiencies. */
void ranks_pop_say(struct ranks_pop *p, const struct ranks_pop_rank *ranks, size_t n,
		   uint64_t (*to_ns)(const void *context, uint32_t segment, uint64_t time),
		   const void *context, FILE *errors, FILE *figures);

/* An event of the merge (in the merged clock, in its order) on thread `tid` of the rank at
 * `rank` in the ranks given to ranks_pop_say, which is said once, before the first: polls and
 * MPI waits count, and spawns find OpenMP's initial task. `arg`: its first three arguments (a
 * spawn's task, parent and site; a poll's task; a wait's kind). False when out of memory. */
bool ranks_pop_event(struct ranks_pop *p, size_t rank, uint32_t tid, uint64_t ns, unsigned type,
		     const int64_t arg[3]);

/* Says the hybrid efficiencies (ranks_pop_figures), once every event is in; nothing when no
 * thread of a rank polled a task (no OpenMP), or ranks_pop_say said nothing. */
void ranks_pop_say_hybrid(struct ranks_pop *p, FILE *errors, FILE *figures);

/* The job's efficiencies' basis (scaling.h), once ranks_pop_say_hybrid has run: the hybrid one
 * when OpenMP ran in its ranks, else the MPI threads'; not known when ranks_pop_say found none
 * (one rank too: said for none, known all the same). */
void ranks_pop_basis(const struct ranks_pop *p, struct scaling_basis *basis);
