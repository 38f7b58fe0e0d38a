// SPDX-License-Identifier: MIT
/*
 * The POP factors (issue 35) of programs whose factors are known by construction
 * (targets/pop_*.c, each built by clang on libomp and by GCC, run on libomp), on two threads,
 * the same in each of the three outputs that say them: the exit report, `taskprobe top --once`
 * and --analyze of the recording of one run (tp_pop_run), the program's output unchanged.
 *
 * The programs work in units of 5 ms of CPU time (pop_units.h), and say (POP_TIMES) what they
 * measured: each thread's busy time and the wall time. On an idle machine that gives the known
 * answer within a few thousandths; a loaded one moves it (an imbalanced loop's load balance was
 * measured from 0.68 to 0.78 at a load of 6 on two cores). So each output must give what the
 * program measured in that run within 0.05, and the known answer within 0.05 plus however far
 * the program's measurement was from it, at most 0.10 more. Up to five runs are tried, the first
 * that gives every answer in every output kept. When the machine moved all five further (a CPU
 * busy beside one thread and not the other doubled its units' wall time), the last is judged by
 * its deal: the units each thread computed, which are CPU time, must give the known answer, and
 * the outputs what the program measured.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analysis_runs.h"
#include "harness.h"

/* The factors measure the programs' time, which a sanitized shim's callbacks stretch (ASan);
 * TSan's pass leaves OpenMP programs out. */
TP_SUITE_NOT_UNDER(pop, TP_ASAN | TP_TSAN,
		   "it measures OpenMP programs' time, which a sanitized shim's callbacks stretch "
		   "(ASan), and TSan's pass leaves OpenMP programs out");

#define WITHIN 0.05

/* A known answer: a figure of tp_pop_factors (at `at`), `value` within `within` (allowed()). */
struct known {
	const char *figure;
	size_t at;
	double value, within;
};
// clang-format off
#define NEAR(figure, value, within) \
	{#figure, offsetof(struct tp_pop_factors, figure), value, within}
// clang-format on

static double figure_of(const struct tp_pop_factors *f, const struct known *k)
{
	return *(const double *)((const char *)f + k->at);
}

/*
 * The factors the program measured itself, from its POP_TIMES line on `err` ("WHAT: N threads
 * busy T ms in all, M ms at most, wall W ms": the first, the region of interest's in pop_roi):
 * load balance and parallel efficiency, and the serialisation efficiency its sections would
 * have if all of them are serialised (ordered, critical, lock: the critical path goes through
 * every one). NAN for each when it said none; the parallelism, which it cannot measure, NAN.
 */
static struct tp_pop_factors measured(const char *err)
{
	struct tp_pop_factors m = {
		.parallel = NAN, .load_balance = NAN, .serialisation = NAN, .parallelism = NAN};
	for (const char *at = strstr(err, ": "); at != NULL; at = strstr(at + 1, ": ")) {
		int threads;
		double total, max, wall;
		if (sscanf(at, ": %d threads busy %lf ms in all, %lf ms at most, wall %lf ms",
			   &threads, &total, &max, &wall) == 4 &&
		    threads > 0 && max > 0 && wall > 0) {
			m.load_balance = total / threads / max;
			m.parallel = total / threads / wall;
			m.serialisation = max / total;
			break;
		}
	}
	return m;
}

/*
 * What the program said of its threads: its first block of "WHAT: thread T busy B ms, U units"
 * lines on `err` (threads 0, 1, ... in order; the block ends at the first other line after it),
 * and its "WHAT: serial code S ms" (NAN: none).
 */
#define THREADS_SAID_MAX 64
struct threads_said {
	int threads;
	double busy[THREADS_SAID_MAX], serial;
	int units[THREADS_SAID_MAX];
};

static struct threads_said threads_said(const char *err)
{
	struct threads_said s = {.serial = NAN};
	bool block_ended = false;
	for (const char *at = strstr(err, ": "); at != NULL; at = strstr(at + 1, ": ")) {
		int t, units;
		double ms;
		if (!block_ended &&
		    sscanf(at, ": thread %d busy %lf ms, %d units", &t, &ms, &units) == 3) {
			if (t == s.threads && t < THREADS_SAID_MAX) {
				s.busy[s.threads] = ms;
				s.units[s.threads++] = units;
			}
		} else if (isnan(s.serial) && sscanf(at, ": serial code %lf ms", &ms) == 1) {
			s.serial = ms;
		} else if (s.threads > 0 && strncmp(at, ": thread ", 9) != 0) {
			block_ended = true; /* the first block's end: its summary line */
		}
	}
	return s;
}

/*
 * The factors of the units each thread computed (CPU time: the deal, which the machine does not
 * move), from the program's threads' lines (threads_said): load balance and the serialisation
 * efficiency if every section is serialised; NAN for each when it said none, and for what units
 * cannot say (the parallel efficiency needs the wall time).
 */
static struct tp_pop_factors dealt(const char *err)
{
	struct tp_pop_factors d = {
		.parallel = NAN, .load_balance = NAN, .serialisation = NAN, .parallelism = NAN};
	struct threads_said s = threads_said(err);
	int total = 0, most = 0;
	for (int t = 0; t < s.threads; t++) {
		total += s.units[t];
		most = s.units[t] > most ? s.units[t] : most;
	}
	if (most > 0) {
		d.load_balance = (double)total / s.threads / most;
		d.serialisation = (double)most / total;
	}
	return d;
}

/*
 * The load balance the program measured of its parallel regions alone (NAN: it said none): its
 * threads' busy times (threads_said), thread 0's less the serial code it said, which a loaded
 * machine stretches (a suite run beside a compiler's: 22 ms of it put the program's own balance
 * at 0.983, its regions' at 0.92).
 */
static double own_in_regions(const char *err)
{
	struct threads_said s = threads_said(err);
	if (s.threads == 0 || isnan(s.serial))
		return NAN;
	s.busy[0] -= s.serial;
	double most = 0, total = 0;
	for (int t = 0; t < s.threads; t++) {
		total += s.busy[t];
		most = s.busy[t] > most ? s.busy[t] : most;
	}
	return most > 0 ? total / s.threads / most : NAN;
}

/* Figure `k` as the program measured it in output `o`'s run (NAN: it cannot measure it). */
static double own(const struct tp_pop_output *o, const struct known *k)
{
	struct tp_pop_factors m = measured(o->err);
	return figure_of(&m, k);
}

/* Figure `k` of the units `o`'s run dealt its threads (NAN: units cannot say it). */
static double deal(const struct tp_pop_output *o, const struct known *k)
{
	struct tp_pop_factors d = dealt(o->err);
	return figure_of(&d, k);
}

/* Whether `o`'s run dealt its threads the units it was built to, as far as figure `k` says. */
static bool dealt_as_built(const struct tp_pop_output *o, const struct known *k)
{
	double d = deal(o, k);
	return !isnan(d) && fabs(d - k->value) <= k->within;
}

/*
 * How far from the known answer `o` may say figure `k`: `within`, and as far again as the
 * program's own measurement was from it. A machine loaded by other work (the suite's other job)
 * stretches one thread's units more than the other's: a CI run measured a critical loop's load
 * balance 0.892 itself, 0.874 by taskprobe, five tries in a row; another an ordered loop's 0.745
 * both, its thread 0's 20 units taking 206.9 ms and thread 1's 20 taking 101.3 ms, five tries in
 * a row too. Where the units (CPU time) say the deal was the one built, however far the machine
 * moved the wall times is the machine's; elsewhere a run moved more than twice `within` is not
 * the program as built (tried again).
 */
static double allowed(const struct tp_pop_output *o, const struct known *k, bool by_deal)
{
	double m = own(o, k), moved = isnan(m) ? 0 : fabs(m - k->value);
	if (by_deal && dealt_as_built(o, k))
		return k->within + moved;
	return k->within + (moved < 2 * k->within ? moved : 2 * k->within);
}

/* Whether `o` says figure `k` within `within` of the program's measurement and within
 * allowed() of the known answer. */
static bool known_said(const struct tp_pop_output *o, const struct known *k, bool by_deal)
{
	double said = figure_of(&o->factors, k), m = own(o, k);
	return (isnan(m) || fabs(said - m) <= k->within) &&
	       fabs(said - k->value) <= allowed(o, k, by_deal);
}

static bool all_known(const struct tp_pop_run *pop, const struct known *known,
		      bool region_of_interest, bool by_deal)
{
	for (size_t i = 0; i < TP_POP_WAYS; i++) {
		const struct tp_pop_output *o = &pop->output[i];
		if (!o->factors.said || o->factors.region_of_interest != region_of_interest)
			return false;
		for (const struct known *k = known; k->figure != NULL; k++)
			if (!known_said(o, k, by_deal))
				return false;
	}
	return true;
}

/* What expect_answers_of holds a run to. */
struct answers {
	const struct known *known;
	bool region_of_interest;
};

static bool answers_known(const struct tp_pop_run *pop, const void *context)
{
	const struct answers *a = context;
	return all_known(pop, a->known, a->region_of_interest, false);
}

/*
 * Runs the target `name` on two threads: each output says the factors, each `known` answer
 * (ended by one with no figure), and that the factors are of a region of interest or not. A run
 * the machine moved too far from the known answer is tried again after a pause (the load beside
 * it may pass), up to POP_TRIES runs; when none was spared, the last is judged by its deal. The run
 * judged is left in `pop`, for the caller's own questions.
 */
static void expect_answers_of(const char *name, bool region_of_interest, const struct known *known,
			      struct tp_pop_run *pop_kept)
{
	struct tp_pop_run pop = {0};
	bool by_deal = !pop_run_until(name, answers_known,
				      &(struct answers){known, region_of_interest}, "its deal",
				      &pop);
	for (size_t i = 0; i < TP_POP_WAYS; i++) {
		const struct tp_pop_output *o = &pop.output[i];
		cr_expect(o->factors.said, "%s: %s does not say the factors:\n%s", name, o->way,
			  o->text);
		cr_expect_eq(o->factors.region_of_interest, region_of_interest,
			     "%s: %s %s a region of interest:\n%s", name, o->way,
			     region_of_interest ? "does not say" : "says", o->text);
		for (const struct known *k = known; o->factors.said && k->figure != NULL; k++)
			cr_expect(known_said(o, k, by_deal),
				  "%s: %s says %s %.3f: the program measured %.3f itself (within "
				  "%.3f of it?), its units %.3f; the known answer is %.3f (within "
				  "%.3f of it?):\n%s\nthe program said:\n%s",
				  name, o->way, k->figure, figure_of(&o->factors, k), own(o, k),
				  k->within, deal(o, k), k->value, allowed(o, k, by_deal), o->text,
				  o->err);
	}
	*pop_kept = pop;
}

static void expect_answers(const char *name, bool region_of_interest, const struct known *known)
{
	struct tp_pop_run pop;
	expect_answers_of(name, region_of_interest, known, &pop);
	tp_pop_run_free(&pop);
}

/*
 * A balanced worksharing loop (80 units on two threads): parallel efficiency 0.99 as the program
 * measures itself on an idle machine, at least 0.93 said by the spec; 1 within 0.05 asserted:
 * at least 0.95, or 0.90 as the load moves it.
 */
static const struct known balanced[] = {NEAR(parallel, 1.0, WITHIN), {0}};

/*
 * The answers of pop target `name` (known), and in each output's table of regions its one
 * region's efficiency (its threads' average computation over its time from fork to join), `known`
 * by construction (on an idle machine): within WITHIN of the one the program measured of itself
 * (POP_TIMES: a loaded machine stretches one thread's loop) and of the process's parallel
 * efficiency (the serial code around the region is next to none).
 */
static void expect_region_efficiency(const char *name, const struct known *answers,
				     const char *site, double known)
{
	struct tp_pop_run pop;
	expect_answers_of(name, false, answers, &pop);
	for (size_t i = 0; i < TP_POP_WAYS; i++) {
		const struct tp_pop_output *o = &pop.output[i];
		double region = region_efficiency_of(o->text, site),
		       own = measured(o->err).parallel, balance;
		long threads;
		cr_expect_eq(region_lines(o->text, ".c:", &balance, &threads), 1,
			     "%s: one region, %s's:\n%s", o->way, site, o->text);
		cr_expect(fabs(region - own) <= WITHIN &&
				  fabs(region - o->factors.parallel) <= WITHIN,
			  "%s: %s says the region's efficiency %.3f, the process's parallel "
			  "efficiency %.3f; the program measured %.3f, %.3f by construction:\n%s",
			  name, o->way, region, o->factors.parallel, own, known, o->text);
	}
	tp_pop_run_free(&pop);
}

Test(pop, a_balanced_loop_is_efficient, .timeout = 120)
{
	expect_region_efficiency("pop_balanced", balanced, "main (pop_balanced.c:", 1.0);
}

Test(pop, a_balanced_loop_built_by_gcc_is_efficient, .timeout = 120)
{
	expect_region_efficiency("pop_balanced_gcc", balanced, "main (pop_balanced.c:", 1.0);
}

/*
 * Thread t works 1 + 2t units an iteration: 12 and 36 units, load balance 24 / 36 = 0.667;
 * nothing serialised, no time lost in transfer: parallel efficiency 0.667 too.
 */
static const struct known imbalanced[] = {
	NEAR(load_balance, 0.667, WITHIN), NEAR(parallel, 0.667, WITHIN), {0}};

Test(pop, an_imbalanced_loops_load_balance_is_two_thirds, .timeout = 120)
{
	expect_region_efficiency("pop_imbalanced", imbalanced, "main (pop_imbalanced.c:", 0.667);
}

Test(pop, an_imbalanced_loop_built_by_gcc_has_a_load_balance_of_two_thirds, .timeout = 120)
{
	expect_region_efficiency("pop_imbalanced_gcc", imbalanced,
				 "main (pop_imbalanced.c:", 0.667);
}

/* The same loop, each iteration's units in a parallel construct of a team of one thread (a
 * library's, nesting off): its thread's work in the loop's region, which loses as much; no region
 * of its own (before: both regions "-", of no efficiency, the loop's computation 0.2 ms). */
Test(pop, units_in_a_team_of_one_are_the_loops_computation, .timeout = 120)
{
	expect_region_efficiency("pop_team_of_one", imbalanced, "main (pop_imbalanced.c:", 0.667);
}

Test(pop, units_in_a_team_of_one_of_a_gcc_build_are_the_loops_computation, .timeout = 120)
{
	expect_region_efficiency("pop_team_of_one_gcc", imbalanced,
				 "main (pop_imbalanced.c:", 0.667);
}

/*
 * All the work inside a mutual exclusion (ordered, critical, a lock): each thread computes 20
 * units, the critical path goes through all 40 sections, one after the other: serialisation
 * efficiency 0.5, load balance 1, parallel efficiency 0.5.
 */
static const struct known serialised[] = {NEAR(serialisation, 0.5, WITHIN),
					  NEAR(load_balance, 1.0, WITHIN),
					  NEAR(parallel, 0.5, WITHIN),
					  {0}};

Test(pop, an_ordered_loop_is_serialised, .timeout = 120)
{
	expect_answers("pop_ordered", false, serialised);
}

Test(pop, an_ordered_loop_built_by_gcc_is_serialised, .timeout = 120)
{
	expect_answers("pop_ordered_gcc", false, serialised);
}

Test(pop, a_loop_inside_critical_is_serialised, .timeout = 120)
{
	expect_answers("pop_critical", false, serialised);
}

Test(pop, a_loop_inside_critical_built_by_gcc_is_serialised, .timeout = 120)
{
	expect_answers("pop_critical_gcc", false, serialised);
}

Test(pop, a_loop_inside_a_lock_is_serialised, .timeout = 120)
{
	expect_answers("pop_lock", false, serialised);
}

Test(pop, a_loop_inside_a_lock_built_by_gcc_is_serialised, .timeout = 120)
{
	expect_answers("pop_lock_gcc", false, serialised);
}

/*
 * The mutual exclusion edges: each section of a serialised loop starts after the one before it
 * (the release's path passed on to the next acquire of its object), so that the whole loop is
 * one path: the span holds every section. What may lie off it is a thread's own time outside
 * the sections (the loop's dispatch beside the other thread's section), which the program
 * measures (pop_enter): microseconds on an idle machine, a preemption's milliseconds now and
 * then on a loaded one. So the work may exceed the span by that time and 1.5% more (1.02 as
 * printed), not by a section: a lost edge leaves a section off the path (40 / 39 = 1.03). Each
 * of three runs is asserted. The online engine lost one now and then (1.03, 1.08) where
 * --analyze of the same run said 1.00; a run is tried again (POP_TRIES at most) only when every way
 * said the same off the path (moved_alike): the program left time of its own untimed, between
 * its arrival and the construct (the exit report and --analyze both said 1.02 of an ordered loop
 * built by GCC beside two CPU hogs, 9 ms off the path where the program timed 0.4 ms outside).
 */
#define RUNS 3

/* The time the program said it spent outside its sections, in ms (0 when it said none). */
static double outside_the_sections(const char *err)
{
	for (const char *at = strstr(err, ": "); at != NULL; at = strstr(at + 1, ": ")) {
		double ms;
		int end = 0; /* set only when the words after the number are there too */
		if (sscanf(at, ": %lf ms outside the sections%n", &ms, &end) == 1 && end > 0)
			return ms;
	}
	return 0;
}

/*
 * The parallelism `o` may say of a loop that is one path: 1.5% over 1 (1.02 as printed, two
 * decimals: a CI run's --analyze said 1.0152, 4.3 ms of the initial task's fragment after the
 * fork off the path, untimed by the program), and the time outside; a lost edge says 1.03.
 */
static struct known one_path_of(const struct tp_pop_output *o)
{
	double outside = outside_the_sections(o->err);
	struct known one_path = NEAR(parallelism, 1.0, 0.02);
	if (o->factors.work_ms > outside)
		one_path.within += outside / (o->factors.work_ms - outside);
	return one_path;
}

/*
 * Whether every way said the same parallelism (as printed), off the one path: the run's own
 * graph, which a preemption the program could not time moved (between its arrival and its
 * call into the construct). An engine that lost an edge loses it in one way, not in all alike.
 */
static bool moved_alike(const struct tp_pop_run *pop)
{
	for (size_t i = 0; i < TP_POP_WAYS; i++) {
		const struct tp_pop_output *o = &pop->output[i];
		struct known one_path = one_path_of(o);
		if (o->factors.work_ms <= 0 || known_said(o, &one_path, false) ||
		    fabs(o->factors.parallelism - pop->output[0].factors.parallelism) > 0.005)
			return false;
	}
	return true;
}

static void expect_one_path(const char *name)
{
	const char *argv[] = {tp_require_program(tp_target(name), "clang, gcc and libomp-dev"),
			      NULL};
	for (int run = 0; run < RUNS; run++) {
		struct tp_pop_run pop;
		for (int try = 1;; try++) {
			tp_pop_run(argv, (const char *[]){"OMP_NUM_THREADS=2", "POP_TIMES=1", NULL},
				   &pop);
			if (try == POP_TRIES || !moved_alike(&pop))
				break;
			cr_log_info("%s, run %d: every way says parallelism %.2f: again", name,
				    run + 1, pop.output[0].factors.parallelism);
			tp_pop_run_free(&pop);
		}
		for (size_t i = 0; i < TP_POP_WAYS; i++) {
			const struct tp_pop_output *o = &pop.output[i];
			struct known one_path = one_path_of(o);
			cr_expect(o->factors.work_ms > 0, "%s, run %d: %s says no work:\n%s", name,
				  run + 1, o->way, o->text);
			bool said = known_said(o, &one_path, false);
			pop.keep |= !said;
			cr_expect(
				said,
				"%s, run %d: %s says parallelism %.2f, at most %.3f as the program "
				"spent %.3f ms outside its sections (its recording kept in "
				"%s):\n%s\nthe program said:\n%s",
				name, run + 1, o->way, o->factors.parallelism, 1 + one_path.within,
				outside_the_sections(o->err), pop.dir, o->text, o->err);
		}
		tp_pop_run_free(&pop);
	}
}

Test(pop, an_ordered_loop_is_one_path, .timeout = 120)
{
	expect_one_path("pop_ordered");
}

Test(pop, an_ordered_loop_built_by_gcc_is_one_path, .timeout = 120)
{
	expect_one_path("pop_ordered_gcc");
}

Test(pop, a_loop_inside_critical_is_one_path, .timeout = 120)
{
	expect_one_path("pop_critical");
}

Test(pop, a_loop_inside_critical_built_by_gcc_is_one_path, .timeout = 120)
{
	expect_one_path("pop_critical_gcc");
}

Test(pop, a_loop_inside_a_lock_is_one_path, .timeout = 120)
{
	expect_one_path("pop_lock");
}

Test(pop, a_loop_inside_a_lock_built_by_gcc_is_one_path, .timeout = 120)
{
	expect_one_path("pop_lock_gcc");
}

/*
 * Tasks of 1 to 8 units in a taskgroup: libomp gives one thread 21 units and the other 15
 * (targets/pop_taskgroup.c says how; measured so by the program): load balance 18 / 21 = 0.857.
 */
static const struct known taskgroup[] = {NEAR(load_balance, 0.857, WITHIN), {0}};

Test(pop, a_taskgroups_tasks_are_balanced_as_libomp_places_them, .timeout = 120)
{
	expect_answers("pop_taskgroup", false, taskgroup);
}

Test(pop, a_taskgroups_tasks_built_by_gcc_are_balanced_as_libomp_places_them, .timeout = 120)
{
	expect_answers("pop_taskgroup_gcc", false, taskgroup);
}

/*
 * Parallel regions in a row, each one task of 4 units, with 1 unit of serial code between them:
 * the initial task's serial code is in the graph, and the regions compose in series: work 50
 * units, span 50: parallelism 1; the two threads' average computation is half the run: parallel
 * efficiency 0.5.
 */
static const struct known regions[] = {
	NEAR(parallelism, 1.0, 0.1), NEAR(parallel, 0.5, WITHIN), {0}};

Test(pop, regions_in_a_row_with_serial_code_between_have_no_parallelism, .timeout = 120)
{
	expect_answers("pop_regions", false, regions);
}

Test(pop, regions_in_a_row_built_by_gcc_have_no_parallelism, .timeout = 120)
{
	expect_answers("pop_regions_gcc", false, regions);
}

/*
 * Serial code before the OpenMP runtime starts (pop_serial_first): 24 units in main, then a
 * region of 24 units a thread: thread 0 computes 48, thread 1 24, load balance and parallel
 * efficiency 0.75. OMPT tells the initial task only when the runtime starts: counted from there,
 * as every output did before (XSBench's 0.9 s of set-up left out), they would say 1.0.
 */
static const struct known serial_first[] = {
	NEAR(load_balance, 0.75, WITHIN), NEAR(parallel, 0.75, WITHIN), {0}};

Test(pop, serial_code_before_the_runtime_starts_is_the_initial_tasks, .timeout = 120)
{
	expect_answers("pop_serial_first", false, serial_first);
}

Test(pop, serial_code_before_the_runtime_of_a_gcc_build_is_the_initial_tasks, .timeout = 120)
{
	expect_answers("pop_serial_first_gcc", false, serial_first);
}

/*
 * pop_imbalanced's loop as the region of interest (omp_control_tool start and pause), between
 * 12 units of serial code before and 12 after: the factors are the loop's, and each output says
 * they are of a region of interest. Counted whole they would be load balance 1 (each thread 36
 * units) and parallel efficiency 0.6 (36 of 60 units).
 */
Test(pop, a_region_of_interest_has_the_factors_of_its_loop_alone, .timeout = 120)
{
	expect_answers("pop_roi", true, imbalanced);
}

Test(pop, a_region_of_interest_built_by_gcc_has_the_factors_of_its_loop_alone, .timeout = 120)
{
	expect_answers("pop_roi_gcc", true, imbalanced);
}

/*
 * Two parallel constructs on one line (pop_one_line), taken by turns: one site, of two call
 * addresses, as an unrolled loop's copies are. Its load balance is the line's, each thread's
 * units at both added up (0.875, the process's too: its serial code is next to none), not a
 * copy's (0.667 and 0.75): one line in each output's table of regions, its balance the one the
 * program measured of its units itself (within 0.05), not the process's: a loaded machine
 * stretches the serial code between the regions, which is the process's alone (a suite run beside
 * a CPU hog: the region 0.928, the program's own 0.951, the process's 0.987, its serial code 8.8%
 * of the span). The exit report listed each call address apart; top took the busier one's balance.
 */
static void expect_one_region_of_two_addresses(const char *name)
{
	static const struct known balance[] = {NEAR(load_balance, 0.875, WITHIN), {0}};
	struct tp_pop_run pop;
	expect_answers_of(name, false, balance, &pop);
	for (size_t i = 0; i < TP_POP_WAYS; i++) {
		const struct tp_pop_output *o = &pop.output[i];
		double region;
		long threads;
		unsigned lines = region_lines(o->text, "main (pop_one_line.c:", &region, &threads);
		cr_expect_eq(lines, 1, "%s: %s lists its region in %u lines:\n%s", name, o->way,
			     lines, o->text);
		double measured = own_in_regions(o->err);
		cr_expect(threads == 2 && fabs(region - measured) <= WITHIN,
			  "%s: %s says the region's load balance %.3f on %ld threads, the program "
			  "measured %.3f (the process's %.3f):\n%s\n%s",
			  name, o->way, region, threads, measured, o->factors.load_balance, o->text,
			  o->err);
	}
	tp_pop_run_free(&pop);
}

Test(pop, two_constructs_on_one_line_are_one_region_of_their_threads_sums, .timeout = 120)
{
	expect_one_region_of_two_addresses("pop_one_line");
}

Test(pop, two_constructs_on_one_line_built_by_gcc_are_one_region, .timeout = 120)
{
	expect_one_region_of_two_addresses("pop_one_line_gcc");
}
