// SPDX-License-Identifier: MIT
/*
 * What the ranks' alignment's files share (ranks.c, ranks_hosts.c, ranks_causality.c): a rank
 * as the alignment keeps it, and the offsets' arithmetic.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HOST_MAX 64
#define JOB_MAX  128

/*
 * Offsets are sums and differences of times a recording says (hostile ones too): kept within
 * [-INT64_MAX, INT64_MAX], so that none overflows and each can be negated.
 */
static inline int64_t clamped(__int128 v)
{
	return v > INT64_MAX ? INT64_MAX : v < -INT64_MAX ? -INT64_MAX : (int64_t)v;
}

static inline int64_t add(int64_t a, int64_t b)
{
	return clamped((__int128)a + b);
}

static inline int64_t sub(int64_t a, int64_t b)
{
	return clamped((__int128)a - b);
}

/* A rank: its MPI_Init's record, and what the alignment finds. */
struct rank {
	uint32_t segment, tid, size;
	int32_t number;
	uint64_t time;                  /* its mpi-init's, in its segment's clock */
	int64_t system_minus_monotonic; /* CLOCK_REALTIME - CLOCK_MONOTONIC then: its host's */
	char host[HOST_MAX + 1], job[JOB_MAX + 1];
	const char *input;
	uint64_t process;
	uint32_t pid;
	uint64_t init_ns, finalize_ns; /* its own clock's */
	bool finalized;
	int64_t offset, moved; /* moved: by messages and collectives, beyond the hosts' offset */
};

/* How closely the ranks of one host end each sync: its widest spread on a host (`spread`, -1
 * when no host has two ranks that made it), and the weights of their estimates. */
struct host_syncs {
	int64_t spread[2];
	double weight[2];
};

/*
 * The offsets before the messages (ranks_hosts.c): the `n` ranks' (by number), each host's as a
 * whole, their count in *n_hosts, how closely one host's ranks end each sync in *syncs. Returns
 * the uncertainty between hosts; *ok false when out of memory.
 */
int64_t ranks_align_hosts(struct rank *ranks, size_t n, size_t *n_hosts, bool *ok,
			  struct host_syncs *syncs);
