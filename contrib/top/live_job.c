// SPDX-License-Identifier: MIT
/*
 * An MPI job's line beside the figures of one of its ranks (live_view.h's live_mpi_job_words):
 * the ranks of the same job (its launcher's identity and world size) whose statistics lie in the
 * run's directory, each read at its own now, their factors taskprobe_mpi_job.h's.
 */
#define _GNU_SOURCE
#include "live_view.h"

#include <stdio.h>
#include <string.h>

#include "taskprobe_mpi_job.h"

/* The ranks read at most: an MPI job's on one host. */
enum { JOB_RANKS = 4096 };

/* Where `f`'s file lies, into `out`. */
static const char *file_dir(const struct live_file *f, char *out, size_t size)
{
	snprintf(out, size, "%s", f->path);
	char *slash = strrchr(out, '/');
	if (slash == NULL)
		snprintf(out, size, ".");
	else if (slash == out)
		slash[1] = '\0';
	else
		*slash = '\0';
	return out;
}

/* The ranks of one job read so far. */
struct job_read {
	uint64_t job;
	uint32_t world;
	unsigned n;
	struct tp_live_mpi_rank ranks[JOB_RANKS];
	uint64_t started_ns[JOB_RANKS], useful_ns[JOB_RANKS];
};

/* A rank of the job, added to those read: of two of one number (a job run again in the same
 * directory under the same identity), the later started. */
static bool add_rank(struct live_file *f, void *context)
{
	struct job_read *j = context;
	const struct tp_live_header *h = (const struct tp_live_header *)f->map;
	const struct tp_live_thread *slots =
		(const struct tp_live_thread *)(f->map + TP_LIVE_THREADS_OFFSET);
	struct tp_live_mpi_rank r;
	uint64_t started = f->header.ns_at_start;
	if (__atomic_load_n(&h->mpi_job, __ATOMIC_RELAXED) != j->job ||
	    !tp_live_mpi_rank_read(h, slots, live_now(f), &r) || r.size != j->world)
		return false;
	for (unsigned i = 0; i < j->n; i++)
		if (j->ranks[i].rank == r.rank) {
			if (started > j->started_ns[i]) {
				j->ranks[i] = r;
				j->started_ns[i] = started;
			}
			return false;
		}
	if (j->n < JOB_RANKS) {
		j->ranks[j->n] = r;
		j->started_ns[j->n++] = started;
	}
	return false;
}

void live_mpi_job_words(const struct live_file *f, const char *dir, char *out, size_t size)
{
	static struct job_read j; /* too large a local */
	out[0] = '\0';
	const struct tp_live_header *h = (const struct tp_live_header *)f->map;
	j = (struct job_read){.job = __atomic_load_n(&h->mpi_job, __ATOMIC_RELAXED),
			      .world = __atomic_load_n(&h->mpi_size, __ATOMIC_ACQUIRE)};
	if (j.world == 0)
		return;
	char own[sizeof f->path];
	live_each_in_dir(dir != NULL ? dir : file_dir(f, own, sizeof own), add_rank, &j);
	struct tp_live_mpi_job job = tp_live_mpi_job_of(j.ranks, j.n, j.useful_ns);
	tp_live_mpi_job_words(out, size, &job);
}
