// SPDX-License-Identifier: MIT
/*
 * An OpenMP program's forked child (pop_forked) has factors of its own, in its exit report and in
 * --analyze of its recording, each the child's file of the run's two: its serial code before its
 * region and after it is its initial task's (its thread polls its parent's at the fork, which the
 * shim tells the child's consumers), and its region's two implicit tasks and its barrier's two
 * waits are counted (its report no longer waits for its parent's workers to end, which it has
 * none of). Built by clang, on two threads: GCC's libgomp runs no parallel region in a child
 * forked after one in its parent (the plain run hangs there), which the launcher's libomp does.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis_runs.h"
#include "harness.h"

/* The units' times are the programs' (pop_units.h), which a sanitized shim's callbacks stretch. */
TP_SUITE_NOT_UNDER(fork, TP_ASAN | TP_TSAN,
		   "it measures OpenMP programs' time, which a sanitized shim's callbacks stretch "
		   "(ASan), and TSan's pass leaves OpenMP programs out");

/* The child's outputs: its exit report, --analyze of its recording. */
struct child_said {
	char *text[2];
};
static const char *const child_ways[] = {"the exit report", "--analyze"};

/* The site of the child's region, `site` (its one `num_threads(2)` construct). */
static void child_region(char *site, size_t size)
{
	snprintf(site, size, "main (pop_forked.c:%d)",
		 tp_source_line("pop_forked.c", "if (child == 0)", "#pragma omp parallel"));
}

/* Of the files `pattern` matches, the one that names `site` (NULL: none). */
static char *file_naming(const char *pattern, const char *site)
{
	glob_t found;
	char *text = NULL;
	if (glob(pattern, 0, NULL, &found) != 0)
		return NULL;
	for (size_t i = 0; i < found.gl_pathc && text == NULL; i++) {
		char *t = tp_read_file(found.gl_pathv[i], NULL);
		if (t != NULL && strstr(t, site) != NULL)
			text = t;
		else
			free(t);
	}
	globfree(&found);
	return text;
}

/* Runs pop target `name` under `taskprobe run`, reported and recorded, into `said`. */
static void child_run(const char *name, struct child_said *said)
{
	const char *program = pop_program(name);
	char *dir = tp_make_temp_dir("pop-fork"), *report, *record, *pattern;
	cr_assert(asprintf(&report, "TASKPROBE_REPORT=%s/report.%%p", dir) > 0);
	cr_assert(asprintf(&record, "TASKPROBE_RECORD=%s/recording.%%p", dir) > 0);
	struct tp_run plain, run;
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	tp_run(TP_PLAIN, (const char *[]){program, NULL}, env, &plain);
	tp_launch((const char *[]){"run", "--", program, NULL},
		  (const char *[]){"OMP_NUM_THREADS=2", report, record, NULL}, &run);
	cr_expect(run.status == plain.status && strcmp(run.out, plain.out) == 0,
		  "%s: status %d and output \"%s\" under taskprobe run, %d and \"%s\" without the "
		  "shim",
		  program, run.status, run.out, plain.status, plain.out);
	char site[64];
	child_region(site, sizeof site);
	cr_assert(asprintf(&pattern, "%s/report.*", dir) > 0);
	said->text[0] = file_naming(pattern, site);
	cr_assert_not_null(said->text[0], "no report names %s", site);
	free(pattern);
	/* the child's recording: the one whose analysis names its region */
	cr_assert(asprintf(&pattern, "%s/recording.*", dir) > 0);
	glob_t recordings;
	cr_assert_eq(glob(pattern, 0, NULL, &recordings), 0);
	said->text[1] = NULL;
	for (size_t i = 0; i < recordings.gl_pathc && said->text[1] == NULL; i++) {
		struct tp_run analysis;
		tp_run(TP_PLAIN,
		       (const char *[]){TP_TIMELINE, "--analyze", recordings.gl_pathv[i], NULL},
		       NULL, &analysis);
		if (strstr(analysis.out, site) != NULL)
			said->text[1] = strdup(analysis.out);
		tp_run_free(&analysis);
	}
	cr_assert_not_null(said->text[1], "no recording's analysis names %s", site);
	globfree(&recordings);
	free(pattern);
	free(report);
	free(record);
	tp_run_free(&plain);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

static void child_said_free(struct child_said *said)
{
	free(said->text[0]);
	free(said->text[1]);
}

/* Whether `f` are the child's factors, within 0.08 (a loaded machine stretches one thread's
 * units more than the other's). */
static bool child_factors(const struct tp_pop_factors *f)
{
	return f->said && fabs(f->load_balance - 0.875) <= 0.08 &&
	       fabs(f->parallel - 7.0 / 12) <= 0.08 && fabs(f->parallelism - 14.0 / 12) <= 0.1;
}

static bool child_said_known(const struct child_said *said)
{
	for (int w = 0; w < 2; w++) {
		struct tp_pop_factors f = tp_pop_factors_in(said->text[w]);
		if (!child_factors(&f))
			return false;
	}
	return true;
}

/*
 * The child's factors (load balance 0.875, parallel efficiency 0.583, parallelism 1.17; before,
 * its serial code in no task: 0.667, 0.50 and 1.33), its region's two implicit tasks and its
 * barrier's two waits, in both its outputs.
 */
static void expect_the_childs_own(const char *name)
{
	struct child_said said;
	child_run(name, &said);
	for (int try = 1; try < 5 && !child_said_known(&said); try++) {
		cr_log_info("%s: run %d refused (again after a pause)", name, try);
		child_said_free(&said);
		usleep(250000 * (useconds_t)try);
		child_run(name, &said);
	}
	char site[64];
	child_region(site, sizeof site);
	for (int w = 0; w < 2; w++) {
		const char *text = said.text[w];
		struct tp_pop_factors f = tp_pop_factors_in(text);
		cr_expect(child_factors(&f),
			  "%s: the child's %s says load balance %.3f, parallel efficiency %.3f, "
			  "parallelism %.2f (0.875, 0.583, 1.17 by construction):\n%s",
			  name, child_ways[w], f.load_balance, f.parallel, f.parallelism, text);
		cr_expect_eq(sync_waits_of(text, site, "barrier"), 2, "%s: the child's %s:\n%s",
			     name, child_ways[w], text);
	}
	cr_expect(strstr(said.text[0], "never terminated") == NULL,
		  "%s: the child's report says its parent's tasks never ended:\n%s", name,
		  said.text[0]);
	child_said_free(&said);
}

Test(fork, a_forked_childs_serial_code_and_region_are_its_own, .timeout = 240)
{
	expect_the_childs_own("pop_forked");
}

/*
 * A forked child that runs no region (pop_forked serial): its inherited task, which its libomp
 * ends at its exit as an initial task OMPT never told, ends as the child's root (before, its
 * report said "1 task spawned but never terminated"), its 4 units of serial code the child's
 * work, about 20 ms.
 */
Test(fork, a_forked_child_that_runs_no_region_ends_its_initial_task)
{
	const char *program = pop_program("pop_forked");
	char *dir = tp_make_temp_dir("pop-fork"), *report, *pattern, parent_region[64];
	cr_assert(asprintf(&report, "TASKPROBE_REPORT=%s/report.%%p", dir) > 0);
	struct tp_run run;
	tp_launch((const char *[]){"run", "--", program, "serial", NULL},
		  (const char *[]){"OMP_NUM_THREADS=2", report, NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	snprintf(parent_region, sizeof parent_region, "main (pop_forked.c:%d)",
		 tp_source_line("pop_forked.c", "pop_fork();", "#pragma omp parallel"));
	cr_assert(asprintf(&pattern, "%s/report.*", dir) > 0);
	glob_t found;
	cr_assert_eq(glob(pattern, 0, NULL, &found), 0);
	cr_expect_eq(found.gl_pathc, 2, "reports of %zu processes", found.gl_pathc);
	for (size_t i = 0; i < found.gl_pathc; i++) {
		char *text = tp_read_file(found.gl_pathv[i], NULL);
		cr_assert_not_null(text);
		if (strstr(text, parent_region) == NULL) { /* the child's */
			struct tp_pop_factors f = tp_pop_factors_in(text);
			cr_expect(strstr(text, "never terminated") == NULL && f.work_ms >= 15 &&
					  f.work_ms <= 200,
				  "the child's report (work %.1f ms, 20 by construction):\n%s",
				  f.work_ms, text);
		}
		free(text);
	}
	globfree(&found);
	free(pattern);
	free(report);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}
