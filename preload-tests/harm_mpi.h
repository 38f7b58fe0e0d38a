// SPDX-License-Identifier: MIT
/* The MPI harm tests' helpers (harm_mpi.c): jobs run plainly and recorded, their timelines read. */
#pragma once

#include <stdbool.h>

#define MPI_PACKAGE "openmpi-bin and libopenmpi-dev"

/* mpirun's options for any machine: ranks beyond its cores, and as root too. */
#define MPIRUN_ANYWHERE "--oversubscribe", "--allow-run-as-root"

/* /usr/bin/mpirun (Open MPI's), or the test skipped: its packages named. */
const char *mpirun(void);
/* The build's MPI target `name`, or the test skipped. */
const char *target(const char *name);
/*
 * What the timeline at `json` holds of the ranks (python3), a line each:
 *   process SORT NAME          per process with a sort index, in its order
 *   flow FROM TO forward|backward   per message (its send's process, its receive's)
 *   flow half ID               a message whose send or receive is missing
 *   wait PROCESS CALL N TOTAL_US FIRST_BEGIN_US LAST_END_US   per MPI call of each process
 *   span S                     seconds from the first to the last event of the ranks
 */
char *ranks_summary(const char *json);

/* How many lines of `summary` start with `prefix`. */
unsigned lines_starting(const char *summary, const char *prefix);

/* The numbers of the "wait" line of `process`'s `call`: count, total, first begin, last end. */
bool wait_line(const char *summary, const char *process, const char *call, double v[4]);

/* "rank R (HOST)", this machine's; the text lasts for the next 7 calls. */
const char *rank_name(int rank);

/*
 * Asserts the ranks of a timeline's summary: `n` of them, in order, each with one MPI_Init and
 * one MPI_Finalize, every message a flow forward in time.
 */
void expect_ranks(const char *summary, int n);

/* Messages from rank `from` to rank `to` in the summary, all forward. */
unsigned flows(const char *summary, int from, int to);

/*
 * `mpirun [ranks...]` run plainly, then recorded with `taskprobe record -o JSON -- mpirun ...`
 * (as nobody when `unprivileged`): equal stdout and status 0 both. Returns the timeline's
 * summary; the launcher's stderr in *said (unless NULL).
 */
char *record_job_of(const char *launcher, const char *const mpirun_args[], const char *const env[],
		    bool unprivileged, char **said);

/* record_job_of Open MPI's mpirun. */
char *record_job(const char *const mpirun_args[], const char *const env[], bool unprivileged,
		 char **said);

/* record_job of `mpi_ranks SHAPE` on `n` ranks, by Open MPI or (`mpich`) by MPICH, its build
 * of the target. */
char *record_shape(bool mpich, int n, const char *shape, char **said);

/* Whether a job's efficiencies, as the launcher `said` them, are the ones its test holds it to. */
typedef bool mpi_judge(const char *said);

/*
 * record_job_of, the job run again while `kept` says no to what it said (MPI_TRIES runs at most,
 * a pause between, each run refused logged): the last run's summary returned, *said its stderr,
 * which the caller asserts `kept` of. The efficiencies measure wall time, which a loaded machine
 * moves either way (time a rank is preempted outside MPI counts as useful, as OTF-CPT counts it;
 * ranks leave a barrier apart): a wrong answer is wrong in every run, a load in few.
 */
#define MPI_TRIES 3
char *record_job_judged(const char *launcher, const char *const mpirun_args[],
			const char *const env[], mpi_judge *kept, char **said);

/* record_shape, judged as record_job_judged. */
char *record_shape_judged(bool mpich, int n, const char *shape, mpi_judge *kept, char **said);

/* The load balance of "MPI efficiency ... load balance 0.NNN ..." in `said`, and the
 * serialisation efficiency (-1 when not said), in percent. */
void mpi_efficiency(const char *said, double *balance, double *serialisation);

/* mpi_ranks imbalance's efficiencies (rank r works 1 + 2r units): far from balanced. */
bool mpi_imbalanced(const char *said);

/* The least and the most useful time of a rank, in ms, of "... useful time per rank A to B s". */
void mpi_useful_times(const char *said, double *least_ms, double *most_ms);

/* Two ranks in the summary (expect_ranks), with `down` messages from rank 0 to 1, `back` from 1
 * to 0. */
void expect_two_ranks(const char *summary, unsigned down, unsigned back);

/* The pipeline's messages of mpi_ranks's two ranks, each once: five down, one back. */
void expect_pipeline_of_two(char *summary);
