// SPDX-License-Identifier: MIT
/*
 * An MPI job's line beside the figures of one of its ranks (live_view.h's live_mpi_job_words):
 * the ranks of the same job (its launcher's identity and world size), owner and host whose
 * statistics lie in the run's directory, each read at its own now, their factors
 * taskprobe_mpi_job.h's.
 */
#define _GNU_SOURCE
#include "live_view.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

/* The ranks of one job read so far: their owner's, of one job identity and world size, of one
 * host (another host's clock is another; a run's directory on a shared file system holds them). */
struct job_read {
	uint64_t job, host;
	uint32_t world;
	uid_t owner;
	unsigned n;
	struct tp_live_mpi_rank ranks[JOB_RANKS];
	uint64_t started_ns[JOB_RANKS], useful_ns[JOB_RANKS];
	bool gone[JOB_RANKS]; /* killed unseen: neither its MPI_Finalize nor its exit came */
};

/* Who owns `f`'s file (-1: unknown). */
static uid_t file_owner(const struct live_file *f)
{
	struct stat st;
	return fstat(f->fd, &st) == 0 ? st.st_uid : (uid_t)-1;
}

/* A rank of the job, added to those read: of two of one number (a job run again in the same
 * directory under the same identity), the later started. */
static bool add_rank(struct live_file *f, void *context)
{
	struct job_read *j = context;
	struct tp_live_mpi_rank r;
	uint64_t job, host, started = f->header.ns_at_start;
	if (file_owner(f) != j->owner || !live_mpi_job_rank(f, &r, &job, &host) || job != j->job ||
	    host != j->host || r.size != j->world)
		return false;
	bool gone = r.open && live_process_ended(f->pid, f->header.start_ticks);
	unsigned i = 0;
	while (i < j->n && j->ranks[i].rank != r.rank)
		i++;
	if (i == JOB_RANKS || (i < j->n && started <= j->started_ns[i]))
		return false;
	j->n += i == j->n;
	j->ranks[i] = r;
	j->started_ns[i] = started;
	j->gone[i] = gone;
	return false;
}

void live_mpi_job_words(const struct live_file *f, const char *dir, char *out, size_t size)
{
	static struct job_read j; /* too large a local */
	struct tp_live_mpi_rank shown;
	out[0] = '\0';
	j = (struct job_read){.owner = file_owner(f)};
	if (!live_mpi_job_rank(f, &shown, &j.job, &j.host))
		return;
	j.world = shown.size;
	char own[sizeof f->path];
	live_each_in_dir(dir != NULL ? dir : file_dir(f, own, sizeof own), add_rank, &j);
	/* the killed ones left out: their figures ran on to now */
	unsigned kept = 0, gone = 0;
	for (unsigned i = 0; i < j.n; i++)
		if (j.gone[i])
			gone++;
		else
			j.ranks[kept++] = j.ranks[i];
	struct tp_live_mpi_job job = tp_live_mpi_job_of(j.ranks, kept, j.useful_ns);
	job.gone = gone;
	tp_live_mpi_job_words(out, size, &job);
}
