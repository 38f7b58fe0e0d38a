// SPDX-License-Identifier: MIT
/*
 * Jobs made up for the unit tests of the factors across ranks (test_ranks_pop.c, the MPI ones;
 * test_ranks_hybrid.c, the hybrid ones): four ranks' records, each rank's thread its own, times
 * in milliseconds on one clock, and what ranks_pop_say says of them.
 */
#pragma once

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "ranks_pop.h"
#include "taskprobe_contract.h"

#define MS    1000000ull
#define RANKS 4

static struct ranks_pop *p;

/* A record of `type` with arguments a0..a3 and `small`, by rank `rank`'s thread at `ms`. */
static inline void note(int rank, uint64_t ms, unsigned type, unsigned small, uint64_t a0,
			uint64_t a1, uint64_t a2, uint64_t a3)
{
	uint64_t words[5] = {tp_record_word(type, 5, small, 0), a0, a1, a2, a3};
	cr_assert(ranks_pop_note(p, 0, 100 + (uint32_t)rank, ms * MS,
				 (const struct tp_record *)words));
}

static inline void init(int rank)
{
	note(rank, 0, TP_RECORD_MPI_INIT, 0, (uint64_t)rank, RANKS, 0, 0);
}

/* An MPI call from `from` to `to` (its wait); a collective's communicator told when `members`. */
static inline void call(int rank, uint64_t from, uint64_t to, unsigned number,
			uint64_t communicator, uint32_t members)
{
	if (members != 0)
		note(rank, from, TP_RECORD_MPI_COLLECTIVE, 0, number, (uint64_t)-1, communicator,
		     members);
	note(rank, from, TP_RECORD_WAIT_START, TP_WAIT_MPI, number, (uint64_t)-1, 0, 0);
	note(rank, to, TP_RECORD_WAIT_END, TP_WAIT_MPI, number, 0, 0, 0);
}

static inline uint64_t to_ns(const void *context, uint32_t segment, uint64_t time)
{
	(void)context;
	(void)segment;
	return time;
}

/* What ranks_pop_say says of the four ranks. */
static inline char *said(void)
{
	struct ranks_pop_rank ranks[RANKS];
	for (int r = 0; r < RANKS; r++)
		ranks[r] = (struct ranks_pop_rank){.number = r, .tid = 100 + (uint32_t)r};
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	cr_assert_not_null(out);
	ranks_pop_say(p, ranks, RANKS, to_ns, NULL, NULL, out);
	fclose(out);
	return text;
}

static inline void setup(void)
{
	p = ranks_pop_new();
	cr_assert_not_null(p);
}

static inline void teardown(void)
{
	ranks_pop_free(p);
}
