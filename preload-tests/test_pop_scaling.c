// SPDX-License-Identifier: MIT
/*
 * Runs at two scales compared (`taskprobe-timeline --scaling`, POP's computation scalability):
 * programs whose work grows with their threads or ranks by construction, each recorded with
 * `taskprobe record --dir` on one thread (or rank), then on two, as a user does it.
 *
 * Both programs' units are sleeps, which the engines count as computation (no wait of theirs)
 * and a loaded machine stretches only by a wake-up's lateness, a sleep at a time: two runs, each
 * loaded its own way, keep about the ratio they were built with. pop_replicated also says what
 * it measured itself (POP_TIMES), which the tool must agree with more closely.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_runs.h"
#include "harm_mpi.h"
#include "harness.h"

/* the suite's skips under sanitizers are test_pop.c's */

/* The figures of row `row` of --scaling's table in `text` ("  global efficiency  1.000  0.800",
 * its name after spaces alone on its line), into `v` (as many as `n`; -1 for "-"); false when
 * the row is not there whole. */
static bool row_of(const char *text, const char *row, double *v, int n)
{
	const char *at = strstr(text, row);
	while (at != NULL) {
		const char *line = at;
		while (line > text && line[-1] == ' ')
			line--;
		if ((line == text || line[-1] == '\n') && at[strlen(row)] == ' ')
			break;
		at = strstr(at + 1, row);
	}
	if (at == NULL)
		return false;
	at += strlen(row);
	for (int i = 0; i < n; i++) {
		while (*at == ' ')
			at++;
		if (*at == '-') {
			v[i] = -1;
			at++;
			continue;
		}
		char *end;
		v[i] = strtod(at, &end);
		if (end == at)
			return false;
		at = end;
		/* a duration's unit: in ms */
		static const struct {
			const char *unit;
			double ms;
		} units[] = {{" ms", 1}, {" us", 1e-3}, {" ns", 1e-6}, {" s", 1e3}};
		for (size_t u = 0; u < sizeof units / sizeof *units; u++)
			if (strncmp(at, units[u].unit, strlen(units[u].unit)) == 0) {
				v[i] *= units[u].ms;
				at += strlen(units[u].unit);
				break;
			}
	}
	return true;
}

/* The busy time in all of the program's POP_TIMES lines on `err` ("N threads busy T ms in all"),
 * and its serial code's in *serial ("serial code S ms"). */
static double busy_in_all(const char *err, double *serial)
{
	const char *at = strstr(err, " threads busy "), *code = strstr(err, ": serial code ");
	double total = -1;
	cr_assert(at != NULL && sscanf(at, " threads busy %lf ms in all", &total) == 1, "%s", err);
	cr_assert(code != NULL && sscanf(code, ": serial code %lf ms", serial) == 1, "%s", err);
	return total;
}

/* The units of work the program did, every thread's ("thread T busy B ms, U units"): what it
 * was built to do, which no load changes. */
static int units_in_all(const char *err)
{
	int all = 0, units;
	for (const char *at = strstr(err, ": thread "); at != NULL;
	     at = strstr(at + 1, ": thread "))
		if (sscanf(at, ": thread %*d busy %*f ms, %d units", &units) == 1)
			all += units;
	return all;
}

/* --scaling of the runs in `dirs` (`n`), with --weak when `weak`: its output (status 0
 * asserted). */
static char *compared(const char *const *dirs, size_t n, bool weak)
{
	const char *argv[9] = {TP_TIMELINE, "--scaling"};
	size_t at = 2;
	if (weak)
		argv[at++] = "--weak";
	for (size_t i = 0; i < n && i < 5; i++)
		argv[at++] = dirs[i];
	struct tp_run run;
	tp_run(TP_PLAIN, argv, NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	char *text = strdup(run.out);
	tp_run_free(&run);
	return text;
}

/*
 * pop_replicated (`name`: its clang or GCC build) recorded on one thread, then on two, and
 * compared: its one region's computation scalability what the program measured there (its busy
 * times' ratio), its units the 30 / 36 it was built to lose (the times, its sleeps', are not:
 * beside a CPU hog they woke late, 0.75 to 0.79 in all, as the program measured too); the run's, with its serial code, the
 * table's useful computations' ratio and near what the program measured; each run balanced but
 * for its serial code; global efficiency the product of the two.
 */
static void expect_replicated_work_lost(const char *name)
{
	const char *program = pop_program(name);
	char *dir = tp_make_temp_dir("scaling"), one[300], two[300];
	snprintf(one, sizeof one, "%s/one", dir);
	snprintf(two, sizeof two, "%s/two", dir);
	double busy[2], serial[2];
	const char *const runs[] = {one, two};
	for (int i = 0; i < 2; i++) {
		struct tp_run run;
		tp_launch((const char *[]){"record", "--dir", runs[i], "--", program, NULL},
			  (const char *[]){i == 0 ? "OMP_NUM_THREADS=1" : "OMP_NUM_THREADS=2",
					   "POP_TIMES=1", NULL},
			  &run);
		cr_assert_eq(run.status, 0, "%s", run.err);
		cr_expect_str_eq(run.out, "pop_replicated: checksum 61\n");
		busy[i] = busy_in_all(run.err, &serial[i]);
		/* built to lose 30 / 36: each thread's 6 units of its own, 24 shared */
		cr_expect_eq(units_in_all(run.err), 6 * (i + 1) + 24, "%s", run.err);
		tp_run_free(&run);
	}
	char *text = compared(runs, 2, false);
	double computation[2], parallel[2], global[2], speedup[2], useful[2];
	cr_assert(row_of(text, "computation scalability", computation, 2), "%s", text);
	cr_assert(row_of(text, "useful computation", useful, 2), "%s", text);
	cr_assert(row_of(text, "parallel efficiency", parallel, 2), "%s", text);
	cr_assert(row_of(text, "global efficiency", global, 2), "%s", text);
	cr_assert(row_of(text, "speedup", speedup, 2), "%s", text);
	cr_expect(strstr(text, "1 thread   2 threads\n") != NULL, "%s", text);
	double measured = busy[0] / busy[1];
	cr_expect(computation[0] == 1.0, "%s", text);
	/* the reference's useful computation over the run's */
	cr_expect(fabs(computation[1] - useful[0] / useful[1]) < 0.002, "%s", text);
	/* what the program measured from main on: the tool counts its start too (the loader's,
	 * the runtime's), which a loaded machine stretches in one run more than the other (by 7
	 * ms in a CI run) */
	cr_expect(fabs(computation[1] - measured) < 0.08,
		  "computation scalability %.3f, the program measured %.3f:\n%s", computation[1],
		  measured, text);
	/* balanced but for the serial code (thread 0's) */
	cr_expect(parallel[0] > 0.93 && parallel[1] > 0.8, "%s", text);
	cr_expect(global[1] > parallel[1] * computation[1] - 0.002 &&
			  global[1] < parallel[1] * computation[1] + 0.002,
		  "%s", text);
	/* its one parallel region: the loss it was built with (the run's, with its serial code,
	 * moves with what a loaded machine makes of the program's start, as measured) */
	char region[128];
	snprintf(region, sizeof region, "main %s",
		 tp_source_place("pop_replicated.c", "int main(", "#pragma omp parallel"));
	const char *row = strstr(text, region);
	double in_one, scalability;
	cr_assert(row != NULL &&
			  sscanf(row + strlen(region), " %lf ms %lf", &in_one, &scalability) == 2,
		  "no %s in:\n%s", region, text);
	double in_region = (busy[0] - serial[0]) / (busy[1] - serial[1]);
	cr_expect(scalability > in_region - 0.02 && scalability < in_region + 0.02,
		  "the region's %.3f, the program measured %.3f:\n%s", scalability, in_region,
		  text);
	free(text);
	tp_remove_temp_dir(dir);
}

Test(pop, work_that_grows_with_the_threads_is_computation_scalabilitys_loss, .timeout = 120)
{
	expect_replicated_work_lost("pop_replicated");
}

Test(pop, work_that_grows_with_the_threads_of_a_gcc_build_is_the_same_loss, .timeout = 120)
{
	expect_replicated_work_lost("pop_replicated_gcc");
}

/* What mpi_ranks rooted said of its ranks under POP_TIMES: their sleeps' time added up, and
 * the longest region of interest (ms); asserts `ranks` said it. */
static double rooted_slept(const char *err, int ranks, double *longest)
{
	double all = 0;
	int said = 0;
	*longest = 0;
	for (const char *at = strstr(err, "rooted: rank "); at != NULL;
	     at = strstr(at + 1, "rooted: rank ")) {
		double slept, region;
		if (sscanf(at, "rooted: rank %*d slept %lf ms of %lf ms", &slept, &region) != 2)
			continue;
		all += slept;
		*longest = region > *longest ? region : *longest;
		said++;
	}
	cr_assert_eq(said, ranks, "%s", err);
	return all;
}

/*
 * mpi_ranks rooted on one rank, then two, each recorded into a directory of its own: every rank
 * sleeps 80 ms in its region of interest, so two ranks compute twice as much for the same run
 * time: computation scalability 0.5, each job balanced, speedup 1; as weak scaling (--weak), the
 * work each rank's own: computation scalability 1, scaled speedup 2. Each held to what the
 * program measured of its sleeps and its region (a loaded machine wakes a sleeper late: one
 * rank's 80 ms took 86 ms in a CI run, and the ratios moved with it).
 */
Test(pop, mpi_ranks_that_each_add_work_lose_computation_scalability, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *dir = tp_make_temp_dir("scaling-mpi"), one[300], two[300];
	snprintf(one, sizeof one, "%s/one", dir);
	snprintf(two, sizeof two, "%s/two", dir);
	const char *const runs[] = {one, two};
	double slept[2], region[2];
	for (int i = 0; i < 2; i++) {
		struct tp_run run;
		tp_run(TP_PLAIN,
		       (const char *[]){mpirun(), MPIRUN_ANYWHERE, "-np", i == 0 ? "1" : "2",
					TP_CONTRIB_DIR "/taskprobe", "record", "--dir", runs[i],
					"--", target("mpi_ranks"), "rooted", NULL},
		       (const char *[]){"OMP_NUM_THREADS=1", "POP_TIMES=1", NULL}, &run);
		cr_assert_eq(run.status, 0, "%s", run.err);
		cr_expect_str_eq(run.out,
				 i == 0 ? "rooted over 1 ranks: 7\n" : "rooted over 2 ranks: 14\n");
		slept[i] = rooted_slept(run.err, i + 1, &region[i]);
		/* what it was built to do, as far as a loaded machine lets it */
		cr_expect(slept[i] > 78 * (i + 1) && slept[i] < 120 * (i + 1), "%s", run.err);
		tp_run_free(&run);
	}
	char *text = compared(runs, 2, false);
	double computation[2], balance[2], speedup[2];
	cr_expect(strstr(text, "1 rank     2 ranks\n") != NULL, "%s", text);
	cr_assert(row_of(text, "computation scalability", computation, 2), "%s", text);
	cr_assert(row_of(text, "load balance", balance, 2), "%s", text);
	double measured = slept[0] / slept[1];
	cr_expect(fabs(computation[1] - measured) < 0.03,
		  "computation scalability %.3f, the program slept %.3f:\n%s", computation[1],
		  measured, text);
	cr_expect(balance[1] > 0.9, "%s", text);
	free(text);
	/* weak scaling: the second rank's work is its own share, nothing lost; scaled speedup 2 */
	text = compared(runs, 2, true);
	cr_assert(row_of(text, "computation scalability", computation, 2), "%s", text);
	cr_assert(row_of(text, "scaled speedup", speedup, 2), "%s", text);
	cr_expect(fabs(computation[1] - 2 * measured) < 0.06,
		  "computation scalability %.3f, the program slept %.3f:\n%s", computation[1],
		  2 * measured, text);
	double scaled = 2 * region[0] / region[1];
	cr_expect(fabs(speedup[1] - scaled) < 0.1,
		  "scaled speedup %.3f, the program's regions %.3f:\n%s", speedup[1], scaled, text);
	free(text);
	tp_remove_temp_dir(dir);
}

/* One run is no comparison, nor a file that is not a recording: said, status 2. */
Test(pop, scaling_asks_for_two_runs_of_recordings)
{
	char *dir = tp_make_temp_dir("scaling-wrong"), stray[300];
	struct tp_run run;
	tp_run(TP_PLAIN, (const char *[]){TP_TIMELINE, "--scaling", dir, NULL}, NULL, &run);
	cr_expect_eq(run.status, 2);
	cr_expect(strstr(run.err, "--scaling compares runs: give two or more") != NULL, "%s",
		  run.err);
	tp_run_free(&run);
	snprintf(stray, sizeof stray, "%s/notes.txt", dir);
	FILE *f = fopen(stray, "w");
	cr_assert_not_null(f);
	fputs("not a recording\n", f);
	fclose(f);
	tp_run(TP_PLAIN, (const char *[]){TP_TIMELINE, "--scaling", dir, dir, NULL}, NULL, &run);
	cr_expect_eq(run.status, 2);
	cr_expect(strstr(run.err, "notes.txt is not a recording") != NULL, "%s", run.err);
	cr_expect_str_eq(run.out, "");
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}
