// SPDX-License-Identifier: MIT
/*
 * Runs compared (scaling.h, `taskprobe-timeline --scaling`) on made-up event streams whose
 * efficiencies are known: the same region run on one thread, then on two with a fifth more
 * computation in all.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "scaling.h"
#include "test_stream.h"

#define PRIMARY 1001u
#define WORKER  1002u

static void event(struct analysis *a, unsigned type, uint32_t tid, uint64_t ms, int64_t a0,
		  int64_t a1, int64_t a2)
{
	stream_event(a, type, tid, ms, a0, a1, a2, 0);
}

/*
 * A run: the initial task's serial code from 0 to 1 ms, a parallel region from 1 ms on
 * `threads` threads (1 or 2) each computing `each` ms then waiting in its barrier, the region's
 * end when the last arrives, and 1 ms of serial code after it. Its analysis made into `run`.
 */
static void run_of(unsigned threads, uint64_t each, struct scaling_run *run)
{
	struct analysis *a = stream_analysis();
	cr_assert_not_null(a);
	event(a, TP_RECORD_TASK_SPAWN, PRIMARY, 0, INITIAL, 0, 0);
	event(a, TP_RECORD_TASK_POLL_START, PRIMARY, 0, INITIAL, 0, 0);
	if (threads == 2) {
		event(a, TP_RECORD_TASK_SPAWN, WORKER, 1, 100, 0, REGION);
		event(a, TP_RECORD_TASK_POLL_START, WORKER, 1, 100, 0, 0);
	}
	event(a, TP_RECORD_TASK_SPAWN, PRIMARY, 1, 2, INITIAL, REGION);
	event(a, TP_RECORD_TASK_POLL_END, PRIMARY, 1, INITIAL, 0, TP_SYNC_NONE);
	event(a, TP_RECORD_TASK_POLL_START, PRIMARY, 1, 2, 0, 0);
	event(a, TP_RECORD_TASK_POLL_END, PRIMARY, 1 + each, 2, 0, TP_SYNC_BARRIER);
	if (threads == 2)
		event(a, TP_RECORD_TASK_POLL_END, WORKER, 1 + each, 100, 0, TP_SYNC_BARRIER);
	event(a, TP_RECORD_TASK_POLL_START, PRIMARY, 1 + each, 2, 0, 0);
	event(a, TP_RECORD_TASK_POLL_END, PRIMARY, 1 + each, 2, 1, TP_SYNC_NONE);
	event(a, TP_RECORD_TASK_POLL_START, PRIMARY, 1 + each, INITIAL, 0, 0);
	event(a, TP_RECORD_TASK_POLL_END, PRIMARY, 2 + each, INITIAL, 1, TP_SYNC_NONE);
	*run = (struct scaling_run){.name = threads == 1 ? "one" : "two"};
	cr_assert(analysis_scaling_of(a, &(struct scaling_basis){0}, false, run));
	analysis_free(a);
}

/* A run of no task (an empty analysis), its MPI job's basis `job` (none when not known). */
static void run_of_job(const struct scaling_basis *job, const char *name, struct scaling_run *run)
{
	struct analysis *a = stream_analysis();
	cr_assert_not_null(a);
	*run = (struct scaling_run){.name = name};
	cr_assert(analysis_scaling_of(a, job, false, run));
	analysis_free(a);
}

/* Each of the `n` `lines` in `text`. */
static void expect_lines(const char *text, const char *const *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cr_expect(strstr(text, lines[i]) != NULL, "no line \"%s\" in:\n%s", lines[i], text);
}

static char *report_of(const struct scaling_run *runs, size_t n, bool weak)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	cr_assert_not_null(out);
	scaling_report(runs, n, weak, out);
	fclose(out);
	return text;
}

/* The report of the two `runs`, which holds each of the `n` `lines`; the runs freed. */
static void expect_report(struct scaling_run runs[2], const char *const *lines, size_t n)
{
	char *text = report_of(runs, 2, false);
	expect_lines(text, lines, n);
	free(text);
	scaling_run_free(&runs[0]);
	scaling_run_free(&runs[1]);
}

/*
 * One thread computes 1 + 30 + 1 ms in 32; two compute 1 + 18 + 1 and 18 in 20: parallel
 * efficiency 38 / 40, computation scalability 32 / 38, global efficiency their product 0.800
 * (32 / (2 x 20): the reference's computation over the run's threads' time), speedup 32 / 20;
 * the region's computation 30 ms, then 36: 0.833.
 */
Test(scaling, work_that_grows_with_the_threads_is_the_computation_scalabilitys_loss)
{
	struct scaling_run runs[2];
	run_of(1, 30, &runs[0]);
	run_of(2, 18, &runs[1]);
	cr_assert(runs[0].basis.known && runs[1].basis.known);
	cr_expect_eq(runs[0].basis.units, 1);
	cr_expect_eq(runs[1].basis.units, 2);
	cr_expect_eq(runs[1].basis.useful_ns, 38.0 * MS);
	static const char *const lines[] = {
		"  [1] one: synthetic, 1 thread\n",
		"  [2] two: synthetic, 2 threads\n",
		"  run time                          32.00 ms    20.00 ms\n",
		"  speedup                               1.00        1.60\n",
		"  global efficiency                    1.000       0.800\n",
		"    parallel efficiency                1.000       0.950\n",
		"      load balance                     1.000       0.950\n",
		"      communication efficiency         1.000       1.000\n",
		"    computation scalability            1.000       0.842\n",
		"  useful computation                32.00 ms    38.00 ms\n",
		"  main (synthetic.c:10)              30.00 ms       0.833\n",
		"  (outside them: serial code)         2.00 ms       1.000\n",
	};
	expect_report(runs, lines, sizeof lines / sizeof *lines);
}

/* A run whose basis is not known (no task, no MPI job): said, its column "-", none compared. */
Test(scaling, a_run_without_tasks_or_ranks_is_said_not_told)
{
	struct scaling_run runs[2];
	run_of(1, 30, &runs[0]);
	run_of_job(&(struct scaling_basis){0}, "empty", &runs[1]);
	cr_expect(!runs[1].basis.known);
	static const char *const lines[] = {
		"  [2] empty: no task executor and no MPI job",
		"  global efficiency                    1.000           -\n",
	};
	expect_report(runs, lines, sizeof lines / sizeof *lines);
}

/* An MPI job's basis (ranks_pop's) is the run's, whatever its processes' tasks. */
Test(scaling, an_mpi_jobs_basis_is_the_runs)
{
	struct scaling_run runs[2];
	run_of(1, 30, &runs[0]);
	struct scaling_basis job = {.known = true,
				    .units = 4,
				    .ranks = 4,
				    .useful_ns = 40.0 * MS,
				    .most_ns = 12.0 * MS,
				    .run_ns = 16.0 * MS,
				    .serialisation = 0.9,
				    .transfer = -1};
	run_of_job(&job, "job", &runs[1]);
	/* parallel 40 / 64 = 0.625, balance 10 / 12, communication 12 / 16, computation 32 / 40 */
	static const char *const lines[] = {
		"  ran on                            1 thread     4 ranks\n",
		"    parallel efficiency                1.000       0.625\n",
		"      load balance                     1.000       0.833\n",
		"      communication efficiency         1.000       0.750\n",
		"        serialisation efficiency       1.000       0.900\n",
		"        transfer efficiency            1.000           -\n",
		"    computation scalability            1.000       0.800\n",
		"  global efficiency                    1.000       0.500\n",
	};
	expect_report(runs, lines, sizeof lines / sizeof *lines);
}

/* A region the reference did not run (a program's path taken on two threads alone): its
 * computation in the run, marked "+", no scalability. */
Test(scaling, a_region_the_reference_did_not_run_says_its_computation)
{
	struct scaling_run runs[2];
	run_of(1, 30, &runs[0]);
	run_of(2, 18, &runs[1]);
	cr_assert(scaling_region_add(&runs[1], "main (synthetic.c:50)", 4.0 * MS));
	static const char *const lines[] = {
		"  main (synthetic.c:10)              30.00 ms       0.833\n",
		"  main (synthetic.c:50)                     -    +4.00 ms\n",
	};
	expect_report(runs, lines, sizeof lines / sizeof *lines);
}

/* An MPI + OpenMP job's basis (the hybrid one): its ranks and threads said, the columns as wide. */
Test(scaling, a_hybrid_jobs_ranks_and_threads_widen_the_columns)
{
	struct scaling_run runs[2];
	struct scaling_basis one = {.known = true,
				    .units = 2,
				    .ranks = 1,
				    .useful_ns = 30.0 * MS,
				    .most_ns = 20.0 * MS,
				    .run_ns = 20.0 * MS,
				    .serialisation = -1,
				    .transfer = -1},
			     two = one;
	two.units = 4;
	two.ranks = 2;
	two.useful_ns = 120.0 * MS;
	two.most_ns = 60.0 * MS;
	two.run_ns = 60.0 * MS;
	run_of_job(&one, "one", &runs[0]);
	run_of_job(&two, "two", &runs[1]);
	static const char *const lines[] = {
		"  [1] one: ?, 1 rank, 2 threads\n", /* no process: no name */
		"  ran on                          1 rank, 2 threads 2 ranks, 4 threads\n",
		"    computation scalability                   1.000              0.250\n",
		"  global efficiency                           0.750              0.125\n",
	};
	expect_report(runs, lines, sizeof lines / sizeof *lines);
}

/* An MPI job whose efficiencies were not told (a rank that never reached MPI_Finalize): said,
 * no process of it standing for the job. */
Test(scaling, an_mpi_job_not_told_is_said_so)
{
	struct scaling_run runs[2];
	run_of(1, 30, &runs[0]);
	run_of_job(&(struct scaling_basis){.ranks = 2}, "torn", &runs[1]);
	cr_expect(!runs[1].basis.known);
	static const char *const lines[] = {
		"  [2] torn: an MPI job of 2 ranks whose efficiencies are not told",
	};
	expect_report(runs, lines, sizeof lines / sizeof *lines);
}

/*
 * Weak scaling (--weak): a job of 4 ranks does four times the reference's one rank's work, in
 * 40 ms of useful time each where the reference took 32 in 32: computation scalability 32 x 4 /
 * 160 = 0.800, scaled speedup 4 x 32 / 40 = 3.20; a region's computation weighed so too.
 */
Test(scaling, weak_scaling_weighs_the_references_work_by_the_runs_ranks)
{
	struct scaling_run runs[2];
	run_of(1, 30, &runs[0]);
	struct scaling_basis job = {.known = true,
				    .units = 4,
				    .ranks = 4,
				    .useful_ns = 160.0 * MS,
				    .most_ns = 40.0 * MS,
				    .run_ns = 40.0 * MS,
				    .serialisation = -1,
				    .transfer = -1};
	run_of_job(&job, "job", &runs[1]);
	cr_assert(scaling_region_add(&runs[1], "main (synthetic.c:10)", 150.0 * MS));
	char *text = report_of(runs, 2, true);
	static const char *const lines[] = {
		"weak scaling: each run's work in proportion to its threads or ranks",
		"  scaled speedup                        1.00        3.20\n",
		"    computation scalability            1.000       0.800\n",
		"  global efficiency                    1.000       0.800\n",
		"  main (synthetic.c:10)              30.00 ms       0.800\n",
	};
	expect_lines(text, lines, sizeof lines / sizeof *lines);
	free(text);
	scaling_run_free(&runs[0]);
	scaling_run_free(&runs[1]);
}

/* A run whose efficiencies are its region of interest's: its regions' computations are the whole
 * run's, so the rest (serial code) is not told of it, and that is said. */
Test(scaling, a_region_of_interest_tells_no_rest_outside_the_regions)
{
	struct scaling_run runs[2];
	run_of(1, 30, &runs[0]);
	run_of(2, 18, &runs[1]);
	runs[1].basis.of_interest = true;
	static const char *const lines[] = {
		"  (outside them: serial code)         2.00 ms           -\n",
		"  (the regions' computations are the whole run's, where a run's efficiencies are "
		"its "
		"region of interest's)\n",
	};
	expect_report(runs, lines, sizeof lines / sizeof *lines);
}

/* Runs of two programs (a user's slip): compared, and said. */
Test(scaling, runs_of_other_programs_are_said_so)
{
	struct scaling_run runs[2];
	run_of(1, 30, &runs[0]);
	run_of(2, 18, &runs[1]);
	snprintf(runs[1].program, sizeof runs[1].program, "%s", "other");
	static const char *const lines[] = {
		"  [2] two: other, 2 threads\n",
		"  (runs of other programs than the reference's, synthetic: compared all the "
		"same)\n",
	};
	expect_report(runs, lines, sizeof lines / sizeof *lines);
}
