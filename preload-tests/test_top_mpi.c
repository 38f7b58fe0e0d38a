// SPDX-License-Identifier: MIT
/*
 * `taskprobe top` of an MPI job: the job's line across its ranks ("MPI efficiency of ranks 0 to
 * N ... load balance ..."), read from the ranks' live statistics while the job runs, in --once's
 * figures and on the screen, for jobs whose answer is known by construction (mpi_ranks' shapes).
 * --analyze's line of the same shapes: test_harm_mpi*.c.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harm_mpi.h"
#include "harness.h"
#include "harness_internal.h"

#define SCREEN_WAIT 30000 /* ms: mpirun starts slowly on a loaded machine */
/* runs of a job while its line disagrees with its ranks' timing (a test beside it in the suite
 * runs ranks of its own: harm_mpi.h's MPI_TRIES, and two more) */
#define JOB_TRIES (MPI_TRIES + 2)

/*
 * What `taskprobe top --once -- nice -n -15 mpirun -np 2 mpi_ranks SHAPE 8` said (its stderr: the
 * figures, and each rank's time in its work, POP_TIMES), its stdout the plain run's and its status
 * 0. The units 8 times as long (some 64 ms), the ranks ahead of other programs (as root; else
 * nice says it cannot and runs them as they are): a CPU busy beside them preempts a polling rank
 * between its MPI_Test calls, time outside MPI that its useful time counts, as the recording's
 * analysis counts it, and its own timing of its work does not.
 */
static char *top_once_job(const char *shape)
{
	const char *job[] = {"/usr/bin/nice", "-n",  "-15", mpirun(),
			     MPIRUN_ANYWHERE, "-np", "2",   target("mpi_ranks"),
			     shape,           "8",   NULL};
	const char *args[16] = {"top", "--once", "--"};
	for (size_t i = 0; job[i] != NULL; i++)
		args[3 + i] = job[i];
	const char *env[] = {"POP_TIMES=1", NULL};
	struct tp_run plain, run;
	tp_run(TP_PLAIN, job, NULL, &plain);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	tp_launch(args, env, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out);
	char *said = strdup(run.err);
	tp_run_free(&plain);
	tp_run_free(&run);
	return said;
}

/* A job's load balance, and its least useful time over its most. */
struct balance {
	double balance, least_over_most;
};

/* The job's line of `said` (-1: none). */
static struct balance job_line(const char *said, const char *words)
{
	struct balance b = {-1, -1};
	const char *at = strstr(said, words);
	double least, most;
	if (at == NULL)
		return b;
	const char *balance = strstr(at, " load balance "),
		   *useful = strstr(at, "; useful time per rank ");
	if (balance != NULL && useful != NULL &&
	    sscanf(balance, " load balance %lf", &b.balance) == 1 &&
	    sscanf(useful, "; useful time per rank %lf to %lf s", &least, &most) == 2 && most > 0)
		b.least_over_most = least / most;
	else
		b = (struct balance){-1, -1};
	return b;
}

/* The same of the ranks' work as they timed it (their "SHAPE: rank R worked W ms" lines). */
static struct balance worked(const char *said, const char *shape)
{
	double time[2] = {-1, -1};
	char prefix[64];
	snprintf(prefix, sizeof prefix, "%s: rank ", shape);
	for (const char *at = strstr(said, prefix); at != NULL; at = strstr(at + 1, prefix)) {
		int rank;
		double ms;
		if (sscanf(at + strlen(prefix), "%d worked %lf ms", &rank, &ms) == 2 && rank >= 0 &&
		    rank < 2)
			time[rank] = ms;
	}
	double least = time[0] < time[1] ? time[0] : time[1],
	       most = time[0] < time[1] ? time[1] : time[0];
	if (least <= 0)
		return (struct balance){-1, -1};
	return (struct balance){(least + most) / 2 / most, least / most};
}

/* The job's line agrees with the ranks' own timing: within 0.06, its useful times' ratio 0.08
 * (the ranks' calls around their work, and the time slices of a loaded machine). */
static bool agrees(struct balance line, struct balance timed)
{
	return line.balance > 0 && timed.balance > 0 &&
	       fabs(line.balance - timed.balance) <= 0.06 &&
	       fabs(line.least_over_most - timed.least_over_most) <= 0.08;
}

/* The least and the most useful time (ms) of each "... to now ..." job line in `text`, up to
 * `max`; how many. */
static size_t lines_to_now(const char *text, double least[], double most[], size_t max)
{
	size_t n = 0;
	const char *words = "from MPI_Init to now (their MPI threads)";
	for (const char *at = strstr(text, words); at != NULL && n < max;
	     at = strstr(at + 1, words)) {
		const char *useful = strstr(at, "; useful time per rank ");
		if (useful != NULL && sscanf(useful, "; useful time per rank %lf to %lf s",
					     &least[n], &most[n]) == 2) {
			least[n] *= 1000;
			most[n++] *= 1000;
		}
	}
	return n;
}

/*
 * While the job runs (`taskprobe run -- mpirun ... imbalance 97`: rank 0 works a unit of some
 * 0.8 s, then waits in MPI_Allreduce while rank 1 works three), `taskprobe top --once PID` of a
 * rank, every 0.2 s: the line runs "to now", and while rank 0 waits in its call its useful time
 * stays as it was while rank 1's grows (the call going on is MPI's, counted up to the reader's
 * now; not counted, rank 0's grew with rank 1's). Run by the test below, after its jobs.
 */
static void expect_a_rank_waiting_in_mpi_gains_no_useful_time(void)
{
	char *script;
	cr_assert(asprintf(&script,
			   "%s/taskprobe run -- %s --oversubscribe --allow-run-as-root -np 2 %s "
			   "imbalance 97 >/dev/null 2>&1 & job=$!; "
			   "for i in $(seq 60); do sleep 0.2; "
			   "pid=$(pgrep -f '^%s imbalance 97$' | head -1); "
			   "[ -n \"$pid\" ] && %s/taskprobe top --once $pid 2>&1 | grep 'MPI eff'; "
			   "kill -0 $job 2>/dev/null || break; done; wait $job",
			   TP_CONTRIB_DIR, mpirun(), target("mpi_ranks"), target("mpi_ranks"),
			   TP_CONTRIB_DIR) > 0);
	struct tp_run run;
	tp_run(TP_PLAIN, (const char *[]){"/bin/bash", "-c", script, NULL}, NULL, &run);
	free(script);
	cr_assert_eq(run.status, 0, "%s", run.err);
	double least[64], most[64];
	size_t n = lines_to_now(run.out, least, most, 64);
	bool held = false; /* the least the same (5 ms) while the most grew 100 ms */
	for (size_t i = 1; i < n && !held; i++)
		held = least[i] - least[i - 1] < 5 && least[i] >= least[i - 1] &&
		       most[i] - most[i - 1] >= 100;
	cr_expect(n >= 2 && held, "%zu lines to now: %s", n, run.out);
	tp_run_free(&run);
}

/*
 * poll: rank 0 works 3 units, rank 1 one, then polls its receive with MPI_Test until rank 0's
 * token comes: its loop is MPI's time, its calls and the time between them (the time between
 * counted as useful read a load balance of 0.79 where the ranks' work says 0.67; the ranks' own
 * time, not the units, is the answer: on a loaded machine the rank that shares its core with
 * another program works slower). imbalance: rank r works 1 + 2r units, then both reduce. Each
 * run again while it disagrees (JOB_TRIES at most: a rank preempted between its work and its
 * next MPI call counts that time as useful, as OTF-CPT does).
 */
Test(top, an_mpi_jobs_line_has_its_ranks_load_balance_and_runs_to_now, .timeout = 300)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *words = "MPI efficiency of ranks 0 to 1 from MPI_Init to MPI_Finalize (their "
			    "MPI threads): parallel efficiency ";
	const char *shapes[] = {"poll", "imbalance"};
	for (size_t i = 0; i < 2; i++) {
		char *said = NULL;
		for (unsigned tries = 0; tries < JOB_TRIES; tries++) {
			free(said);
			said = top_once_job(shapes[i]);
			if (agrees(job_line(said, words), worked(said, shapes[i])))
				break;
			fprintf(stderr, "top_mpi: %s refused (try %u): %s\n", shapes[i], tries + 1,
				said);
		}
		struct balance line = job_line(said, words), timed = worked(said, shapes[i]);
		cr_expect(agrees(line, timed),
			  "%s: load balance %.3f (the ranks' work: %.3f), least over most useful "
			  "%.3f (%.3f): %s",
			  shapes[i], line.balance, timed.balance, line.least_over_most,
			  timed.least_over_most, said);
		free(said);
	}
	/* in this test, not beside it: its job's two ranks beside the poll's disturb it */
	expect_a_rank_waiting_in_mpi_gains_no_useful_time();
}

/*
 * The screen: `taskprobe top -- mpirun ...` in a terminal, as nobody, shows a rank and its job's
 * line, which stays once the job ended (the console stays until q): rank 1's work a third of rank
 * 0's (poll), far from balanced.
 */
Test(top, the_screen_shows_an_mpi_jobs_line_across_its_ranks, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *command;
	cr_assert(asprintf(&command,
			   "cd /tmp && TERM=screen %s top -- %s --oversubscribe -np 2 %s poll 8",
			   tp_unprivileged_launcher(), mpirun(),
			   tp_unprivileged_copy(target("mpi_ranks"))) > 0);
	struct tp_terminal t;
	tp_terminal_start(&t, command, 220, 30, true);
	free(command);
	char *screen = tp_terminal_wait_for(
		&t, "MPI efficiency of ranks 0 to 1 from MPI_Init to MPI_Finalize", SCREEN_WAIT);
	/* the rank shown: the first whose statistics began (rank 0 on a quiet machine) */
	cr_expect(strstr(screen, " of 2, started by ") != NULL, "%s", screen);
	struct balance line = job_line(
		screen, "MPI efficiency of ranks 0 to 1 from MPI_Init to MPI_Finalize");
	cr_expect(line.balance > 0.3 && line.balance < 0.95 && line.least_over_most < 0.9, "%s",
		  screen);
	free(screen);
	tp_terminal_keys(&t, "q");
	tp_terminal_stop(&t);
}

/*
 * Ranks of another host (their clock is another): a job of three ranks (imbalance), the third
 * started under another host name (a UTS namespace) and working less (units of its own scale: it
 * takes less of the two CPUs from the others), all writing into the run's directory as a shared
 * file system would hold them. The line is of this host's two ranks and says so (1 and 3 units:
 * far from balanced); it was of the three, their windows on two clocks.
 */
Test(top, an_mpi_jobs_line_is_of_the_ranks_of_this_host, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	if (geteuid() != 0)
		tp_skip_unless_ci("another host name (unshare -u) needs root");
	char *other;
	cr_assert(asprintf(&other, "hostname taskprobe-other-host && exec %s imbalance 1",
			   target("mpi_ranks")) > 0);
	struct tp_run run;
	tp_launch((const char *[]){"top", "--once", "--", mpirun(), MPIRUN_ANYWHERE, "-np", "2",
				   target("mpi_ranks"), "imbalance", "8", ":", "-np", "1",
				   "/usr/bin/unshare", "-u", "/bin/sh", "-c", other, NULL},
		  NULL, &run);
	free(other);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "imbalance over 3 ranks: 9\n");
	const char *words = "MPI efficiency of ranks 0 to 1 (2 of 3: those of this host) from "
			    "MPI_Init to MPI_Finalize (their MPI threads): parallel efficiency ";
	struct balance line = job_line(run.err, words);
	cr_expect(line.balance > 0.3 && line.balance < 0.9, "%s", run.err);
	tp_run_free(&run);
}
