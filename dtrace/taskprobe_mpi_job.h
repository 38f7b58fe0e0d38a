// SPDX-License-Identifier: MIT
/*
 * An MPI job's POP factors across its ranks, read from the ranks' live files while the job runs
 * (the console's job line): each rank's window, from its MPI_Init's end to its MPI_Finalize's
 * start, and its useful time there, the time its thread that called MPI_Init spent outside MPI
 * calls (an MPI_Test loop's time between its calls MPI's, as the recorder makes one wait of
 * them). As `taskprobe-timeline --analyze`'s line of the ranks (ranks_pop.h), on the same
 * clock (the ranks of one host share it):
 *
 *   load balance             = the mean useful time of a rank / the largest
 *   communication efficiency = the largest / the job's time (the first window's start to the
 *                              last one's end, or now)
 *   parallel efficiency      = their product
 *
 * Serialisation and transfer need the ranks' messages replayed (the recordings': --analyze).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "taskprobe_figures.h"

/* The ranks' job and host identities (the header's mpi_job, mpi_host): FNV-1a of their text. */
#define TP_LIVE_MPI_HASH_START 14695981039346656037ull
#define TP_LIVE_MPI_HASH_PRIME 1099511628211ull
static inline uint64_t tp_live_mpi_hash(uint64_t hash, const char *text)
{
	for (const char *c = text; *c != '\0'; c++)
		hash = (hash ^ (unsigned char)*c) * TP_LIVE_MPI_HASH_PRIME;
	return hash;
}

/*
 * Slot `t`'s time in MPI calls at `now`: the ended calls', and the one going on up to `now`. Read
 * whole (mpi_seq even and the same before and after); after TP_LIVE_PATH_READ_TRIES a torn read
 * is taken as read (a reader never waits on the program).
 */
static inline uint64_t tp_live_mpi_time(const struct tp_live_thread *t, uint64_t now)
{
	uint64_t ns = 0, since = 0;
	for (unsigned tries = 0; tries < TP_LIVE_PATH_READ_TRIES; tries++) {
		uint32_t seq = __atomic_load_n(&t->mpi_seq, __ATOMIC_ACQUIRE);
		ns = __atomic_load_n(&t->mpi_ns, __ATOMIC_RELAXED);
		since = __atomic_load_n(&t->mpi_since_ns, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if ((seq & 1) == 0 && __atomic_load_n(&t->mpi_seq, __ATOMIC_RELAXED) == seq)
			break;
	}
	return ns + tp_live_since(now, since != 0 ? since : now);
}

/* A rank's figures for its job's line. */
struct tp_live_mpi_rank {
	uint32_t rank, size;
	uint64_t on_ns, off_ns; /* its window, in its clock: MPI_Init's end to MPI_Finalize's
				   start (or its exit, or `now`: `open`) */
	uint64_t useful_ns;
	bool open; /* neither its MPI_Finalize started nor did it exit */
};

/*
 * The rank of live file header `h` (its slots `slots`) at `now` (its exit time once it exited: a
 * rank that exits without MPI_Finalize, by MPI_Abort or exit, ends its window there): false
 * before its MPI_Init ended, or for a process of no MPI job.
 */
static inline bool tp_live_mpi_rank_read(const struct tp_live_header *h,
					 const struct tp_live_thread *slots, uint64_t now,
					 struct tp_live_mpi_rank *r)
{
	*r = (struct tp_live_mpi_rank){0};
	uint64_t on = __atomic_load_n(&h->mpi_on_ns, __ATOMIC_ACQUIRE),
		 off = __atomic_load_n(&h->mpi_off_ns, __ATOMIC_ACQUIRE);
	uint32_t slot = __atomic_load_n(&h->mpi_slot, __ATOMIC_RELAXED);
	r->size = __atomic_load_n(&h->mpi_size, __ATOMIC_ACQUIRE);
	if (on == 0 || r->size == 0 || slot == 0 || slot > TP_LIVE_THREADS)
		return false;
	r->rank = __atomic_load_n(&h->mpi_rank, __ATOMIC_RELAXED);
	r->on_ns = on;
	r->open = off == 0 && __atomic_load_n(&h->exited, __ATOMIC_ACQUIRE) == 0;
	r->off_ns = off == 0 ? (now > on ? now : on) : off;
	uint64_t at_on = __atomic_load_n(&h->mpi_at_on_ns, __ATOMIC_RELAXED),
		 at_off = off == 0 ? tp_live_mpi_time(&slots[slot - 1], r->off_ns)
				   : __atomic_load_n(&h->mpi_at_off_ns, __ATOMIC_RELAXED);
	uint64_t in_mpi = tp_live_since(at_off, at_on), window = r->off_ns - on;
	r->useful_ns = in_mpi < window ? window - in_mpi : 0;
	return true;
}

/* The job's figures over `n` ranks (`ranks`, by number), and their factors. */
struct tp_live_mpi_job {
	unsigned ranks;
	unsigned gone; /* ranks killed unseen (no exit, no MPI_Finalize): left out, said */
	uint32_t first, last, size; /* the lowest and highest rank read, of `size` */
	uint64_t least_ns, most_ns, run_ns;
	bool open; /* a rank's window goes on */
	struct tp_live_factors factors;
};

/* `useful_ns`: room for `n` useful times (tp_live_factors_of's input). */
static inline struct tp_live_mpi_job tp_live_mpi_job_of(const struct tp_live_mpi_rank *ranks,
							unsigned n, uint64_t *useful_ns)
{
	struct tp_live_mpi_job j = {.ranks = n, .least_ns = UINT64_MAX};
	uint64_t start = UINT64_MAX, end = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct tp_live_mpi_rank *r = &ranks[i];
		useful_ns[i] = r->useful_ns;
		j.least_ns = r->useful_ns < j.least_ns ? r->useful_ns : j.least_ns;
		j.most_ns = r->useful_ns > j.most_ns ? r->useful_ns : j.most_ns;
		start = r->on_ns < start ? r->on_ns : start;
		end = r->off_ns > end ? r->off_ns : end;
		j.first = i == 0 || r->rank < j.first ? r->rank : j.first;
		j.last = r->rank > j.last ? r->rank : j.last;
		j.size = r->size;
		j.open |= r->open;
	}
	if (n == 0)
		return (struct tp_live_mpi_job){0};
	j.run_ns = tp_live_since(end, start);
	/* no critical path: serialisation 1, the communication efficiency all transfer */
	j.factors = tp_live_factors_of(useful_ns, n, 0, j.run_ns);
	return j;
}

/*
 * The job's line, as --analyze's of the ranks (without serialisation and transfer): "MPI
 * efficiency of ranks 0 to 3 from MPI_Init to MPI_Finalize (their MPI threads): parallel
 * efficiency 0.600 = load balance 0.600 x communication efficiency 1.000; useful time per rank
 * 0.100 to 0.500 s of 0.500 s", "to now" while a rank's window goes on, "ranks 0 to 3 (4 of 8:
 * those of this host)" when ranks of the job are not read (another host's: its clock is another),
 * "(3 of 4: 1 killed before MPI_Finalize left out)". Empty for fewer than two ranks.
 */
static inline void tp_live_mpi_job_words(char *out, size_t size, const struct tp_live_mpi_job *j)
{
	if (j->ranks < 2 || !j->factors.valid) {
		snprintf(out, size, "%s", "");
		return;
	}
	char of[128] = "";
	if (j->gone > 0)
		snprintf(of, sizeof of, " (%u of %u: %u killed before MPI_Finalize left out)",
			 j->ranks, j->size, j->gone);
	else if (j->ranks < j->size)
		snprintf(of, sizeof of, " (%u of %u: those of this host)", j->ranks, j->size);
	snprintf(out, size,
		 "MPI efficiency of ranks %u to %u%s from MPI_Init to %s (their MPI threads): "
		 "parallel efficiency %.3f = load balance %.3f x communication efficiency %.3f; "
		 "useful time per rank %.3f to %.3f s of %.3f s",
		 j->first, j->last, of, j->open ? "now" : "MPI_Finalize", j->factors.parallel,
		 j->factors.load_balance, j->factors.communication, (double)j->least_ns / 1e9,
		 (double)j->most_ns / 1e9, (double)j->run_ns / 1e9);
}
