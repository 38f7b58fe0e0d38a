// SPDX-License-Identifier: MIT
/*
 * The POP factors online (issue 35): the exit report (suite report) and `taskprobe top --once`
 * (suite top) on programs whose factors are known (targets/pop_live_shapes.c), on two threads.
 * Each shape spins measured times; a loaded machine stretches a spin when it preempts it, so a
 * run whose figures miss is run again, up to RUNS times, before the last one is judged.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_runs.h"
#include "harness.h"

#define RUNS      5
#define TOLERANCE 0.05
/*
 * A load balance compares the threads' wall times, which a machine loaded by other work
 * stretches unevenly when it gives the two threads unequal shares of its cores: more room.
 */
#define BALANCE_TOLERANCE 0.08

/* What a report or a snapshot says of the factors (0 where it says nothing). */
struct pop_figures {
	double parallelism, parallel, load_balance, communication, serialisation, transfer;
	double region_balance; /* the shape's parallel region's, in the table of regions */
	unsigned region_threads;
	/* the shape's sync site's, in the table of sync sites: its kind, waits and share of
	 * the critical path (-1: "-") */
	char sync_kind[32];
	unsigned long sync_waits;
	double sync_share;
	bool roi;             /* says its factors are a region of interest's */
	double truth_balance; /* the load balance the program says its threads' units make (0) */
	double busy_balance;  /* and the wall time its threads' tasks took (0) */
	/* the serialisation efficiency its threads' sections and its serial code make: the longest
	 * thread's wall time in them over all of theirs, the serial code (OpenMP's initial task's
	 * computation, as the text says it) on the primary thread (0: not said) */
	double sections_serialisation;
};

static const char *shapes_target(void)
{
	return tp_require_program(tp_target("pop_live_shapes"), "clang and libomp-dev");
}

/* "pop_live_shapes.c:L)", L the line of the first `marker` in `function`. */
static const char *place_in(const char *function, const char *marker)
{
	char opening[96];
	snprintf(opening, sizeof opening, "static void %s(", function);
	return tp_source_place("pop_live_shapes.c", opening, marker) + 1; /* past its "(" */
}

/* "pop_live_shapes.c:L)", L the line of the parallel construct in `function`. */
static const char *region_place(const char *function)
{
	return place_in(function, "#pragma omp parallel");
}

/*
 * The computation of OpenMP's initial task in `text`, in ms (0: not said): the serial code
 * before and after the regions, the runtime's start among it (2 to 11 ms measured, the shim's
 * start-up with it, on a 200 ms run). The report's row of sites ends with its name, its work
 * the third column; top's begins with it, its busy time the fifth (one name in both).
 */
static double initial_task_ms(const char *text)
{
	static const char name[] = "(no site: initial tasks)";
	double ms = 0;
	const char *at = strstr(text, name);
	if (at == NULL)
		return 0;
	const char *row = at;
	while (row > text && row[-1] != '\n')
		row--;
	if (row != at) {
		if (sscanf(row, "%*s %*s %lf", &ms) != 1)
			ms = 0;
		return ms;
	}
	char unit[8] = "";
	if (sscanf(at + strlen(name), "%*s %*s %*s %*s %lf%7[a-z]", &ms, unit) != 2)
		ms = 0;
	else if (strcmp(unit, "us") == 0)
		ms /= 1e3;
	else if (strcmp(unit, "s") == 0)
		ms *= 1e3;
	else if (strcmp(unit, "ms") != 0)
		ms = 0;
	return ms;
}

/* The figures in `text` (the report's, or top's): the region's at `place` and the sync site's
 * at `sync_place` (NULL: none). */
static struct pop_figures figures_at(const char *text, const char *place, const char *sync_place)
{
	struct pop_figures f = {0};
	const char *at = strstr(text, "span ");
	if (at != NULL && (at = strstr(at, ": parallelism ")) != NULL)
		sscanf(at, ": parallelism %lf", &f.parallelism);
	if ((at = strstr(text, "parallel efficiency ")) != NULL)
		sscanf(at,
		       "parallel efficiency %lf = load balance %lf x communication efficiency %lf",
		       &f.parallel, &f.load_balance, &f.communication);
	if ((at = strstr(text, "\ncommunication efficiency ")) != NULL ||
	    (at = strstr(text, "  communication efficiency ")) != NULL)
		sscanf(at + strspn(at, "\n "),
		       "communication efficiency %*f = serialisation efficiency %lf x transfer "
		       "efficiency %lf",
		       &f.serialisation, &f.transfer);
	const char *table = strcasestr(text, "parallel region ");
	long threads = 0;
	if (place != NULL && table != NULL &&
	    region_lines(table, place, &f.region_balance, &threads) > 0)
		f.region_threads = (unsigned)threads;
	const char *syncs = strcasestr(text, "sync site ");
	f.sync_share = -1;
	if (sync_place != NULL && syncs != NULL && (at = strstr(syncs, sync_place)) != NULL)
		sscanf(at + strlen(sync_place), "%31s %*f %*s %lu %*s %lf", f.sync_kind,
		       &f.sync_waits, &f.sync_share); /* its load balance "-": not a barrier */
	f.roi = strstr(text, "region of interest: omp_control_tool (the factors; the rest: the "
			     "whole run)") != NULL;
	double a, b, busy_a, busy_b;
	if ((at = strstr(text, "units by thread ")) != NULL &&
	    sscanf(at, "units by thread %lf %lf, busy ms %lf %lf", &a, &b, &busy_a, &busy_b) == 4 &&
	    a + b > 0 && busy_a + busy_b > 0) {
		f.truth_balance = (a + b) / 2 / (a > b ? a : b);
		f.busy_balance = (busy_a + busy_b) / 2 / (busy_a > busy_b ? busy_a : busy_b);
	}
	if ((at = strstr(text, "sections' wall ms by thread ")) != NULL &&
	    sscanf(at, "sections' wall ms by thread %lf %lf", &a, &b) == 2 && a + b > 0) {
		double serial = initial_task_ms(text);
		a += serial; /* the primary thread, OpenMP's thread 0, runs the serial code */
		f.sections_serialisation = (a > b ? a : b) / (a + b);
	}
	return f;
}

static bool within_tolerance(double value, double expected)
{
	return fabs(value - expected) <= TOLERANCE;
}

/* The exit report of `shape` (its stderr: the report), its output as without the shim. */
static char *report_of(const char *shape)
{
	const char *argv[] = {shapes_target(), shape, NULL};
	const char *env[] = {"TASKPROBE_REPORT=stderr", "TASKPROBE_STACKS=0", "OMP_NUM_THREADS=2",
			     NULL};
	struct tp_run run;
	tp_run(TP_PRELOADED, argv, env, &run);
	char done[64];
	snprintf(done, sizeof done, "%s: done\n", shape);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(run.out, done);
	char *err = strdup(run.err);
	tp_run_free(&run);
	return err;
}

/* `taskprobe top --once -- pop_live_shapes SHAPE`: its figures (stderr). */
static char *top_of(const char *shape)
{
	const char *args[] = {"top", "--once", "--", shapes_target(), shape, NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	tp_launch(args, env, &run);
	char done[64];
	snprintf(done, sizeof done, "%s: done\n", shape);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(run.out, done, "the figures go to stderr");
	char *err = strdup(run.err);
	tp_run_free(&run);
	return err;
}

typedef char *(*reader)(const char *shape);
typedef bool (*judge)(const struct pop_figures *f);

/*
 * `shape` read by `read` until `holds` (at most RUNS times); the last text, and its figures (the
 * region's at `place`, the sync site's at `sync_place`).
 */
static char *until_at(reader read, const char *shape, const char *place, const char *sync_place,
		      judge holds, struct pop_figures *f)
{
	char *text = NULL;
	for (int run = 0; run < RUNS; run++) {
		free(text);
		text = read(shape);
		*f = figures_at(text, place, sync_place);
		if (holds(f))
			break;
	}
	return text;
}

static char *until(reader read, const char *shape, const char *place, judge holds,
		   struct pop_figures *f)
{
	return until_at(read, shape, place, NULL, holds, f);
}

/* Regions in a row with serial code between: nothing runs beside anything. */
static bool regions_hold(const struct pop_figures *f)
{
	return within_tolerance(f->parallelism, 1.0) && within_tolerance(f->parallel, 0.5);
}

static void regions_in_a_row(reader read)
{
	struct pop_figures f;
	char *text = until(read, "regions", NULL, regions_hold, &f);
	cr_expect(within_tolerance(f.parallelism, 1.0), "parallelism %.3f, not 1:\n%s",
		  f.parallelism, text);
	cr_expect(within_tolerance(f.parallel, 0.5), "parallel efficiency %.3f, not 0.5:\n%s",
		  f.parallel, text);
	/* the factors multiply out as they say */
	cr_expect(fabs(f.parallel - f.load_balance * f.communication) < 0.002, "%s", text);
	cr_expect(fabs(f.communication - f.serialisation * f.transfer) < 0.002, "%s", text);
	free(text);
}

/* Thread t works 1 + 2t units an iteration: its region's load balance is 2/3. */
static bool imbalance_holds(const struct pop_figures *f)
{
	return fabs(f->region_balance - 2.0 / 3) <= BALANCE_TOLERANCE && f->region_threads == 2;
}

static void thread_t_works_1_plus_2t(reader read)
{
	struct pop_figures f;
	const char *place = region_place("imbalance");
	char *text = until(read, "imbalance", place, imbalance_holds, &f);
	cr_expect(imbalance_holds(&f),
		  "region at %s: load balance %.3f on %u threads, not 0.667 on 2:\n%s", place,
		  f.region_balance, f.region_threads, text);
	free(text);
}

/* A balanced loop: near 1 (the threads' start and the serial code at its ends aside). */
static bool balanced_holds(const struct pop_figures *f)
{
	return f->parallel >= 0.93;
}

static void a_balanced_loop(reader read)
{
	struct pop_figures f;
	char *text = until(read, "balanced", NULL, balanced_holds, &f);
	cr_expect_geq(f.parallel, 0.93, "parallel efficiency %.3f:\n%s", f.parallel, text);
	free(text);
}

/*
 * A loop whose time is all inside a mutual exclusion's sections: one section after the other,
 * serialisation efficiency 1/2 on two threads; its sync site is on the critical path. A machine
 * whose other work shares one core and not the other stretches one thread's sections more than
 * the other's (0.53 to 0.64 measured for 0.5, a busy program pinned to one core): the figure is
 * held to what the program measured its sections to take, the longest thread's time in them over
 * all of theirs (the engine within 0.011 of it there, 0.004 quiet), and the runs are retried for
 * the known 1/2. The serial code around the loop is on the path too, and on the primary thread:
 * the runtime's start (in CI, 11 ms of a 293 ms run under top, stacks captured) moved the figure
 * 0.022 from the sections' alone, so it is counted with them.
 */
#define SECTIONS_TOLERANCE 0.02

static bool serialised_holds(const struct pop_figures *f)
{
	return fabs(f->serialisation - 0.5) <= BALANCE_TOLERANCE &&
	       fabs(f->serialisation - f->sections_serialisation) <= SECTIONS_TOLERANCE &&
	       f->sync_share >= 90;
}

/* Under ASan: the sync site, its waits and its share of the path, not the figure's time (the
 * shim's callbacks at each acquire and release, which ASan slows, are the engines' computation
 * and not the program's: an ordered loop's 0.540 against its sections' 0.514, five runs in a row,
 * in CI). */
static bool serialised_site_holds(const struct pop_figures *f)
{
	return f->sync_waits == 40 && f->sync_share >= 90;
}

static void serialised(reader read, const char *shape, const char *marker, const char *kind)
{
	struct pop_figures f;
	const char *place = place_in(shape, marker);
	char sync_place[128];
	snprintf(sync_place, sizeof sync_place, "%s", place);
	bool timed = !tp_under(TP_ASAN);
	char *text = until_at(read, shape, NULL, sync_place,
			      timed ? serialised_holds : serialised_site_holds, &f);
	cr_assert_gt(f.sections_serialisation, 0, "%s: the program's sections by thread:\n%s",
		     shape, text);
	cr_expect(!timed || fabs(f.serialisation - f.sections_serialisation) <= SECTIONS_TOLERANCE,
		  "%s: serialisation efficiency %.3f, not the sections' %.3f:\n%s", shape,
		  f.serialisation, f.sections_serialisation, text);
	cr_expect_str_eq(f.sync_kind, kind, "%s: its sync site at %s:\n%s", shape, sync_place,
			 text);
	cr_expect_eq(f.sync_waits, 40, "%s: a wait each section:\n%s", shape, text);
	cr_expect_geq(f.sync_share, 90, "%s: its sections on the critical path:\n%s", shape, text);
	free(text);
}

/*
 * The load balance of a taskgroup's tasks, against the wall time the program measured its
 * threads' tasks to take: the engines count computation so, and a machine whose other work shares
 * one core and not the other stretches one thread's units more than the other's (in CI: 15 units
 * took as long as 21, 0.999 measured where the units say 0.857). Measured 0.000 or 0.001 from
 * it, quiet and with a busy program pinned to one core.
 */
#define BUSY_TOLERANCE 0.01

/*
 * Why the comparison with the program's own wall time is left out of the ASan pass: the spawning
 * thread's time in the shim's callbacks, which ASan slows, is computation to the engines but not
 * to the program, which times its tasks only (in CI, under load: 0.933 against 0.921).
 */
#define BUSY_TIME_UNDER_ASAN                                                                       \
	"it compares the engines' computation with the program's own timing of its tasks, and "    \
	"ASan slows the shim's callbacks between them"

/*
 * Tasks of 1 to 8 units in a taskgroup on two threads: 21 units and 15, load balance 6/7, as
 * libomp places them; tried again while it placed them otherwise or the machine stretched them
 * apart, and in any case the load balance of the wall time each thread's tasks took.
 */
static bool taskgroup_holds(const struct pop_figures *f)
{
	return fabs(f->truth_balance - 6.0 / 7) < 0.001 &&
	       fabs(f->busy_balance - 6.0 / 7) <= BALANCE_TOLERANCE &&
	       fabs(f->region_balance - f->busy_balance) <= BUSY_TOLERANCE;
}

static void a_taskgroup_of_1_to_8_units(reader read)
{
	struct pop_figures f;
	const char *place = region_place("taskgroup");
	char *text = until(read, "taskgroup", place, taskgroup_holds, &f);
	cr_assert_gt(f.busy_balance, 0, "the program's units and busy time by thread:\n%s", text);
	cr_expect(fabs(f.region_balance - f.busy_balance) <= BUSY_TOLERANCE,
		  "region at %s: load balance %.3f, not the threads' tasks' wall time's %.3f:\n%s",
		  place, f.region_balance, f.busy_balance, text);
	free(text);
}

/* A balanced loop between omp_control_tool's start and pause, serial code around it. */
static bool interest_holds(const struct pop_figures *f)
{
	return f->roi && f->parallel >= 0.9;
}

static void a_region_of_interest(reader read)
{
	struct pop_figures f;
	char *text = until(read, "interest", NULL, interest_holds, &f);
	cr_expect(f.roi, "no region of interest said:\n%s", text);
	cr_expect_geq(f.parallel, 0.9, "the region of interest's parallel efficiency:\n%s", text);
	free(text);
}

Test(report, regions_in_a_row_have_parallelism_1_and_half_the_efficiency, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	regions_in_a_row(report_of);
}

Test(report, a_region_where_thread_t_works_1_plus_2t_units_has_load_balance_2_3, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	thread_t_works_1_plus_2t(report_of);
}

Test(report, a_balanced_loop_has_a_parallel_efficiency_near_1, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	a_balanced_loop(report_of);
}

Test(top, once_gives_regions_in_a_row_parallelism_1_and_half_the_efficiency, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	regions_in_a_row(top_of);
}

Test(top, once_gives_a_region_where_thread_t_works_1_plus_2t_units_load_balance_2_3, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	thread_t_works_1_plus_2t(top_of);
}

Test(top, once_gives_a_balanced_loop_a_parallel_efficiency_near_1, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	a_balanced_loop(top_of);
}

Test(report, a_critical_loop_has_serialisation_1_2_on_its_critical_site, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	serialised(report_of, "critical", "#pragma omp critical", "critical");
}

Test(report, an_ordered_loop_has_serialisation_1_2_on_its_ordered_site, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	serialised(report_of, "ordered", "#pragma omp ordered", "ordered");
}

Test(report, a_lock_loop_has_serialisation_1_2_on_its_lock_site, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	serialised(report_of, "lock", "omp_set_lock(", "lock");
}

Test(report, a_taskgroup_of_tasks_of_1_to_8_units_has_load_balance_6_7, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, BUSY_TIME_UNDER_ASAN);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	a_taskgroup_of_1_to_8_units(report_of);
}

Test(report, a_region_of_interest_has_the_factors_of_its_own_time, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	a_region_of_interest(report_of);
}

Test(top, once_gives_a_critical_loop_serialisation_1_2_on_its_critical_site, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	serialised(top_of, "critical", "#pragma omp critical", "critical");
}

Test(top, once_gives_an_ordered_loop_serialisation_1_2_on_its_ordered_site, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	serialised(top_of, "ordered", "#pragma omp ordered", "ordered");
}

Test(top, once_gives_a_lock_loop_serialisation_1_2_on_its_lock_site, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	serialised(top_of, "lock", "omp_set_lock(", "lock");
}

Test(top, once_gives_a_taskgroup_of_tasks_of_1_to_8_units_load_balance_6_7, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	a_taskgroup_of_1_to_8_units(top_of);
}

Test(top, once_gives_a_region_of_interest_the_factors_of_its_own_time, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	a_region_of_interest(top_of);
}

/*
 * The full screen: the factors' two lines under the figures, and `p` shows where the loss is:
 * the parallel region's load balance and the critical construct's site, as --once prints them;
 * `p` again goes back to the tables. At 80 columns no line is wider than the terminal.
 */
/* `taskprobe top -- PROGRAM [SHAPE]` on two threads in a terminal of `columns` x `lines`, as
 * nobody (a copy of the program every user can run). */
static void top_in_terminal(struct tp_terminal *t, const char *program, const char *shape,
			    unsigned columns, unsigned lines)
{
	char *command;
	cr_assert(asprintf(&command, "cd /tmp && OMP_NUM_THREADS=2 TERM=screen %s top -- %s %s",
			   tp_unprivileged_launcher(), tp_unprivileged_copy(program),
			   shape != NULL ? shape : "") > 0);
	tp_terminal_start(t, command, columns, lines, true);
	free(command);
}

Test(top, p_shows_the_regions_balance_and_the_sync_sites_under_the_factors, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	struct tp_terminal t;
	top_in_terminal(&t, tp_target("pop_live_shapes"), "critical", 80, 30);
	char *screen = tp_terminal_wait_for(&t, "exited after", 60000);
	/* the second line without the communication efficiency the first says, at 80 columns */
	cr_expect(strstr(screen, "\nparallel efficiency ") != NULL &&
			  strstr(screen, "serialisation efficiency ") != NULL,
		  "%s", screen);
	free(screen);
	tp_terminal_keys(&t, "p");
	screen = tp_terminal_wait_for(&t, "SYNC SITE", 5000);
	const char *regions = strstr(screen, "PARALLEL REGION"),
		   *syncs = strstr(screen, "SYNC SITE");
	cr_expect(regions != NULL && strstr(regions, region_place("critical")) != NULL, "%s",
		  screen);
	const char *critical = syncs != NULL
				       ? strstr(syncs, place_in("critical", "#pragma omp critical"))
				       : NULL;
	cr_expect(critical != NULL && strstr(critical, " critical ") != NULL, "%s", screen);
	/* the region's barrier with the load balance of what its threads computed before it */
	const char *barrier = syncs != NULL ? strstr(syncs, region_place("critical")) : NULL;
	double balance = -1;
	cr_expect(barrier != NULL && (barrier = strstr(barrier, " barrier ")) != NULL &&
			  sscanf(barrier, " barrier %*f %*s %*d %lf", &balance) == 1 &&
			  balance > 0.5 && balance <= 1,
		  "the region's barrier's balance %.3f:\n%s", balance, screen);
	for (const char *line = screen; *line != '\0';) {
		size_t len = strcspn(line, "\n");
		cr_expect(len <= 80, "a line of %zu:\n%s", len, screen);
		line += len + (line[len] == '\n');
	}
	free(screen);
	tp_terminal_keys(&t, "p");
	screen = tp_terminal_wait_for(&t, "SPAWNED", 5000);
	cr_expect(strstr(screen, "SYNC SITE") == NULL, "%s", screen);
	free(screen);
	tp_terminal_stop(&t);
}

/*
 * The full screen says what a "?" in SPAN% means, as --once says it: six task constructs in one
 * region (pop_many_task_sites) are more sites than a path of the live statistics keeps (four;
 * regions in a row have theirs committed at each join, no region here), and the
 * sort line goes on with the span's share in sites not kept (it had the "?" alone), briefly where
 * --once's words would not fit (cut at 200 columns before they said where the sites are named).
 */
Test(top, the_screen_says_what_a_share_not_known_means, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	struct tp_terminal t;
	top_in_terminal(
		&t, tp_require_program(tp_target("pop_many_task_sites"), "clang and libomp-dev"),
		NULL, 200, 40);
	char *screen = tp_terminal_wait_for(&t, "exited after", 60000);
	const char *table = strstr(screen, "SPAN%");
	cr_expect(table != NULL && strstr(table, " ? ") != NULL, "no share not known:\n%s", screen);
	const char *sort = strstr(screen, "sorted by ");
	const char *end = sort != NULL ? strchr(sort, '\n') : NULL;
	const char *said = sort != NULL ? strstr(sort, "of the span in sites not kept (") : NULL;
	const char *last = said != NULL ? strstr(said, "--analyze names them all)") : NULL;
	cr_expect(end != NULL && last != NULL && last < end, "%s", screen);
	free(screen);
	tp_terminal_stop(&t);
}

/*
 * While one long region runs (pop_live_shapes long: each of two threads spins 3 s), the span ends
 * in its polls going on, and the screen gives the region's site that share: all but the initial
 * task's code before the fork (under 1%). It said the
 * region "-" (off the path) and the initial task 100%: the share of the longest path ended, a
 * millisecond, under a span of seconds. Read as a person reads it, from the sites' table (the
 * threads' table below names the region too), before the program ends.
 */
Test(top, a_region_going_on_has_the_span_while_it_runs, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	struct tp_terminal t;
	top_in_terminal(&t, tp_target("pop_live_shapes"), "long", 200, 40);
	/* two seconds in (the title's "running 2.05s"), its polls going on for as long: the path
	 * before them, the initial task's code up to the fork, milliseconds of it */
	char *screen = tp_terminal_wait_for(&t, "running 2.", 30000);
	cr_expect_null(strstr(screen, "exited after"), "read after the region:\n%s", screen);
	char *threads = strstr(screen, "\nTID ");
	if (threads != NULL)
		*threads = '\0';
	double region = share_of(screen, region_place("long_region")),
	       initial = share_of(screen, "(no site: initial tasks)");
	/* all of it but the initial task's code before the fork: a few ms quiet, 112 ms in CI
	 * beside another suite (95%); the old code said 0%. That code is the initial task's share
	 * (38 ms, 2%, with the shim's start-up; "?" before the fragment going on published its
	 * path's sites): the two are the whole span, to the rounding of whole percents */
	cr_expect_geq(region, 50, "the region's share %.0f%%:\n%s", region, screen);
	cr_expect(initial >= 0 && region + initial >= 98 && region + initial <= 101,
		  "the initial task's share %.0f%%, the region's %.0f%%:\n%s", initial, region,
		  screen);
	free(screen);
	tp_terminal_stop(&t);
}

/* `top --batch` of pop_live_shapes regions: its snapshots (stderr), and how many of them came
 * while it ran (`going_on`). */
static char *batch_of_regions(unsigned *going_on)
{
	const char *args[] = {"top", "--batch",       "--interval", "0.05",
			      "--",  shapes_target(), "regions",    NULL};
	struct tp_run run;
	tp_launch(args, (const char *[]){"OMP_NUM_THREADS=2", NULL}, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "regions: done\n");
	*going_on = 0;
	for (const char *at = run.err; (at = strstr(at, "taskprobe top: ")) != NULL; at++)
		*going_on += strstr(at, " running ") != NULL &&
			     strstr(at, " running ") < strchr(at, '\n');
	char *err = strdup(run.err);
	tp_run_free(&run);
	return err;
}

/*
 * Regions in a row, a task of 4 units in each and a unit of serial code between (pop_live_shapes
 * regions): three sites on the path, which keeps four, so no snapshot says a share of the span
 * is in sites not kept. Most snapshots come while a task goes on, the span's end: the path to
 * its start is no path ended (it starts at its spawn, inside its parent's fragment), and top
 * said all of it was in sites not kept ("77.0% of the span in sites the live statistics did not
 * keep", the initial task's and the region's SPAN% "?") until the thread published that path's
 * sites with the fragment (live file version 15).
 */
Test(top, batch_snapshots_while_tasks_go_on_name_every_site_of_the_span, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	/* every run's snapshots judged; run again (RUNS at most) while a loaded machine gave
	 * fewer than two while it ran (one, in CI) */
	unsigned going_on = 0;
	for (int run = 0; run < RUNS && going_on < 2; run++) {
		char *err = batch_of_regions(&going_on);
		cr_expect_null(strstr(err, "of the span in sites the live statistics did not keep"),
			       "run %d, %u snapshots while it ran:\n%s", run, going_on, err);
		free(err);
	}
	cr_expect_geq(going_on, 1, "no snapshot while it ran");
}
