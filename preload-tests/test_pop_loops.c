// SPDX-License-Identifier: MIT
/*
 * Where a region's time is lost, loop by loop (issue 35: per synchronisation site the time
 * threads waited there, per worksharing loop its load balance): pop_loops' two worksharing loops
 * in one parallel region, each loop's implicit barrier a sync site of its own with its loop's
 * balance, the same in the exit report, `taskprobe top --once`
 * and --analyze of one run (tp_pop_run), built by clang and by GCC, on two threads.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis_runs.h"
#include "harness.h"
#include "taskprobe_live.h" /* TP_LIVE_SYNCS_UNLISTED_TEXT */

/* The loops' times are the programs' (pop_units.h), which a sanitized shim's callbacks stretch. */
TP_SUITE_NOT_UNDER(loops, TP_ASAN | TP_TSAN,
		   "it measures OpenMP programs' time, which a sanitized shim's callbacks stretch "
		   "(ASan), and TSan's pass leaves OpenMP programs out");

/* The line of pop_loops' loop `pragma` ("#pragma omp for ..."). */
static int loop_line(const char *pragma)
{
	return tp_source_line("pop_loops.c", "int main(", pragma);
}

/*
 * The site of the imbalanced loop's barrier line in `text` into `site`: a site on one of its lines
 * (the construct's for clang, a line of its body for GCC's loop end); false when no line has one.
 */
static bool first_loop_site(const char *text, char *site, size_t size)
{
	int from = loop_line("#pragma omp for schedule(static, 1)");
	int to = loop_line("#pragma omp for schedule(static)");
	for (int line = from; line < to; line++) {
		snprintf(site, size, "main (pop_loops.c:%d)", line);
		if (sync_waits_of(text, site, "barrier") >= 0)
			return true;
	}
	return false;
}

/*
 * The site of the barrier that ends pop_loops' balanced loop into `site`: its own (clang's), or
 * the region's (GCC ends a region's last loop without one: the region's barrier serves).
 */
static void second_loop_site(bool clang, char *site, size_t size)
{
	snprintf(site, size, "main (pop_loops.c:%d)",
		 clang ? loop_line("#pragma omp for schedule(static)")
		       : tp_source_line("pop_loops.c", "int main(", "#pragma omp parallel"));
}

/* The load balance pop_loops' imbalanced loop has by construction: thread 0 computes 8 units
 * before its barrier, thread 1 24. */
#define FIRST_LOOP_BALANCE (16.0 / 24.0)

/*
 * Whether --analyze of `pop` says the imbalanced loop's barrier waited at least half the 80 ms
 * its thread 0 waits on an idle machine, the loops' balances near what they are by construction
 * (a loaded machine may stretch one thread's loop: a pop_judge). `context`: whether pop_loops was
 * built by clang.
 */
static bool loops_as_built(const struct tp_pop_run *pop, const void *context)
{
	const char *text = pop->output[TP_POP_ANALYSIS].text;
	char first[64], second[64];
	if (!first_loop_site(text, first, sizeof first))
		return false;
	second_loop_site(*(const bool *)context, second, sizeof second);
	return sync_waited_of(text, first, "barrier") >= 40 &&
	       fabs(sync_balance_of(text, first) - FIRST_LOOP_BALANCE) <= 0.1 &&
	       sync_balance_of(text, second) >= 0.9;
}

/*
 * Two worksharing loops in one region (pop_loops): each loop's implicit barrier is a sync site of
 * its own, on the loop's lines, two waits (one a thread), the imbalanced loop's 80 ms (thread 0
 * waits 16 units for thread 1) in every output as --analyze says it. The three barriers were one
 * line at the region's construct, which said that the region waited, not which loop. clang's
 * balanced loop has its barrier's line too; GCC ends a region's last loop without one. And each
 * loop's load balance (issue 35), the phases its barrier ended: the imbalanced one's 0.667, the
 * balanced one's near 1, where the region's is 0.75 over both.
 */
static void expect_a_barrier_a_loop(const char *name, bool clang)
{
	struct tp_pop_run pop = {0};
	(void)pop_run_until(name, loops_as_built, &clang, "its outputs alike", &pop);
	const char *analysis = pop.output[TP_POP_ANALYSIS].text;
	char first[64], second[64], region[64];
	cr_assert(first_loop_site(analysis, first, sizeof first), "%s", analysis);
	second_loop_site(clang, second, sizeof second);
	double analyzed = sync_waited_of(analysis, first, "barrier"),
	       balance = sync_balance_of(analysis, first);
	cr_expect(fabs(balance - FIRST_LOOP_BALANCE) <= 0.1,
		  "%s: --analyze says the imbalanced loop's load balance is %.3f, not %.3f:\n%s",
		  name, balance, FIRST_LOOP_BALANCE, analysis);
	snprintf(region, sizeof region, "main (pop_loops.c:%d)",
		 tp_source_line("pop_loops.c", "int main(", "#pragma omp parallel"));
	for (size_t i = 0; i < TP_POP_WAYS; i++) {
		const struct tp_pop_output *o = &pop.output[i];
		long waits = sync_waits_of(o->text, first, "barrier");
		double waited = sync_waited_of(o->text, first, "barrier");
		cr_expect(waits == 2 && fabs(waited - analyzed) <= 0.1 * analyzed + 1,
			  "%s: %s says the first loop's barrier waited %.2f ms in %ld waits, "
			  "--analyze %.2f ms:\n%s",
			  name, o->way, waited, waits, analyzed, o->text);
		cr_expect_lt(sync_waited_of(o->text, region, "barrier"), waited, "%s: %s:\n%s",
			     name, o->way, o->text);
		if (clang)
			cr_expect_eq(sync_waits_of(o->text, second, "barrier"), 2, "%s: %s:\n%s",
				     name, o->way, o->text);
		double own = sync_balance_of(o->text, first),
		       other = sync_balance_of(o->text, second);
		cr_expect(strstr(o->text, TP_LIVE_SYNCS_UNLISTED_TEXT) == NULL,
			  "%s: %s says sites are not listed:\n%s", name, o->way, o->text);
		cr_expect(fabs(own - balance) <= 0.02 && other >= 0.9,
			  "%s: %s says the loops' load balances are %.3f and %.3f, --analyze the "
			  "first's %.3f:\n%s",
			  name, o->way, own, other, balance, o->text);
	}
	tp_pop_run_free(&pop);
}

Test(loops, each_worksharing_loops_barrier_is_a_sync_site_of_its_own, .timeout = 120)
{
	expect_a_barrier_a_loop("pop_loops", true);
}

Test(loops, each_loops_barrier_of_a_gcc_build_is_a_sync_site_of_its_own, .timeout = 120)
{
	expect_a_barrier_a_loop("pop_loops_gcc", false);
}

/* The lines of `text` that hold `a` and `b`. */
static unsigned lines_holding(const char *text, const char *a, const char *b)
{
	unsigned n = 0;
	for (const char *line = text; line != NULL && *line != '\0';) {
		const char *end = strchr(line, '\n');
		size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
		const char *at = memmem(line, len, a, strlen(a));
		n += at != NULL && memmem(line, len, b, strlen(b)) != NULL;
		line = end != NULL ? end + 1 : NULL;
	}
	return n;
}

/*
 * A code of more sync sites than the live statistics have rows (omp_many_barriers: 260 barriers
 * in a region, each a site; rows are TP_LIVE_SITE_ROWS, shared with the task sites, as in a
 * time-step code of a hundred and twenty regions of two loops): the exit report and top list the
 * sites that found a row and say that the others are in no line, where they listed fewer without
 * a word, and how long and how many times threads waited there (the overflow row's sync figures:
 * they were counted nowhere before); --analyze lists them all. A program whose sites found rows says nothing of it (above).
 */
Test(loops, sync_sites_beyond_the_rows_are_said_to_be_unlisted, .timeout = 120)
{
	struct tp_pop_run pop = {0};
	tp_pop_run((const char *[]){pop_program("omp_many_barriers"), NULL},
		   (const char *[]){"OMP_NUM_THREADS=2", NULL}, &pop);
	for (size_t i = 0; i < TP_POP_WAYS; i++) {
		const struct tp_pop_output *o = &pop.output[i];
		unsigned listed = lines_holding(o->text, "(omp_many_barriers.c:", " barrier ");
		if (i == TP_POP_ANALYSIS) {
			cr_expect_geq(listed, 260, "%s lists %u barriers:\n%s", o->way, listed,
				      o->text);
			continue;
		}
		cr_expect(listed >= TP_LIVE_SITE_ROWS - 2 && listed < 260 &&
				  strstr(o->text, TP_LIVE_SYNCS_UNLISTED_TEXT) != NULL,
			  "%s lists %u barriers of 260, and says the others are not listed:\n%s",
			  o->way, listed, o->text);
		/* and how many waits they had: each of the others' (the region's own barrier
		 * the 261st site), on each of the two threads */
		const char *said = strstr(o->text, TP_LIVE_SYNCS_UNLISTED_TEXT);
		const char *in = said != NULL ? strstr(said, "no line: ") : NULL;
		unsigned waits = 0;
		cr_expect(in != NULL && sscanf(in, "no line: %*s %*s in %u waits", &waits) == 1 &&
				  waits == 2 * (261 - listed),
			  "%s says %u waits at the sites not listed, not %u:\n%s", o->way, waits,
			  2 * (261 - listed), o->text);
	}
	tp_pop_run_free(&pop);
}

/*
 * Nested parallel regions (omp_nested: an outer team of two, each of its threads the primary of an
 * inner team of two): the inner region's instances run at once on four threads, and the outer
 * region's computation leaves out the inner one's, so neither has an efficiency ("-" in every
 * output, where adding up the inner instances' times read 0.30 for threads that computed all
 * along, and the outer's 0.007); each still has its line and its load balance.
 */
Test(loops, nested_regions_have_no_efficiency, .timeout = 120)
{
	struct tp_pop_run pop = {0};
	tp_pop_run((const char *[]){pop_program("omp_nested"), NULL},
		   (const char *[]){"OMP_NUM_THREADS=2", NULL}, &pop);
	char outer[64], inner[64];
	snprintf(outer, sizeof outer, "main (omp_nested.c:%d)",
		 tp_source_line("omp_nested.c", "int main(", "#pragma omp parallel"));
	snprintf(inner, sizeof inner, "main (omp_nested.c:%d)",
		 tp_source_line("omp_nested.c", "int outer =", "#pragma omp parallel"));
	for (size_t i = 0; i < TP_POP_WAYS; i++) {
		const struct tp_pop_output *o = &pop.output[i];
		const char *regions[] = {outer, inner};
		for (size_t k = 0; k < 2; k++) {
			double balance;
			long threads;
			unsigned lines = region_lines(o->text, regions[k], &balance, &threads);
			double efficiency = region_efficiency_of(o->text, regions[k]);
			cr_expect(lines == 1 && balance > 0 && efficiency < 0,
				  "%s: %s says %s in %u lines, load balance %.3f, efficiency "
				  "%.3f:\n%s",
				  o->way, regions[k], k == 0 ? "the outer region" : "the inner one",
				  lines, balance, efficiency, o->text);
		}
	}
	tp_pop_run_free(&pop);
}

/*
 * Nested regions in time steps (omp_nested_steps: outer thread 0 steps a short inner region, 1 a
 * long one, its last step after a gap, every instance balanced): a worker's wait at an inner
 * barrier ends at its instance's join, as an outermost region's does, not when libomp next wakes
 * it. A pool's thread idled between instances and after its team's last, counted at that
 * barrier, and the last join of the site (not its instance's) cut it: 321 to 330 ms read waited
 * at the long region's barrier, 40 to 44 at the short one's, of instances of 60 and 20 ms whose
 * threads only slept.
 */
static void nested_barrier_waits_end_at_joins(const char *shape)
{
	struct tp_pop_run pop = {0};
	tp_pop_run((const char *[]){pop_program("omp_nested_steps"), shape, NULL},
		   (const char *[]){"OMP_NUM_THREADS=2", NULL}, &pop);
	const struct {
		const char *function, *after;
		double unit_ms;
	} inner[] = {{"short_steps", "static int short_steps(", 20}, /* SHORT_MS */
		     {"long_steps", "static int long_steps(", 60}};  /* LONG_MS */
	for (size_t k = 0; k < 2; k++) {
		char site[64];
		snprintf(site, sizeof site, "%s (omp_nested_steps.c:%d)", inner[k].function,
			 tp_source_line("omp_nested_steps.c", inner[k].after,
					"#pragma omp parallel"));
		for (size_t i = 0; i < TP_POP_WAYS; i++) {
			const struct tp_pop_output *o = &pop.output[i];
			double waited = sync_waited_of(o->text, site, "barrier");
			bool said = waited >= 0 && waited < inner[k].unit_ms &&
				    sync_waits_of(o->text, site, "barrier") == 8;
			pop.keep |= !said;
			cr_expect(said,
				  "%s: %s's barrier waited %.2f ms (under a unit, %.0f ms, in 8 "
				  "waits, "
				  "expected):\n%s",
				  o->way, site, waited, inner[k].unit_ms, o->text);
		}
	}
	tp_pop_run_free(&pop);
}

Test(loops, a_nested_regions_barrier_waits_end_at_its_instances_join, .timeout = 120)
{
	nested_barrier_waits_end_at_joins(NULL);
}

/* The same three levels deep (the long region's primary runs an innermost region): the long
 * region's primary ends after the innermost one's and still joins it (one instance a thread
 * kept, the innermost's took its place: 101 ms waited at the long region's barrier). */
Test(loops, a_region_between_two_nested_ones_is_joined_too, .timeout = 120)
{
	nested_barrier_waits_end_at_joins("deep");
}

/* The site of pop_idle_between's balanced region, and its barrier's: its second construct. */
static void balanced_region_site(char *site, size_t size)
{
	snprintf(site, size, "main (pop_idle_between.c:%d)",
		 tp_source_line("pop_idle_between.c", "pop_work(2);", "#pragma omp parallel"));
}

/* Whether every output of `pop` says the balanced region's barrier balanced (its phases), and
 * waited less than a unit a step there (pop_idle_between: 4 steps of 5 ms units). */
static bool barrier_balanced(const struct tp_pop_run *pop, const void *context)
{
	(void)context;
	char site[64];
	balanced_region_site(site, sizeof site);
	for (size_t i = 0; i < TP_POP_WAYS; i++) {
		const char *text = pop->output[i].text;
		double waited = sync_waited_of(text, site, "barrier");
		if (sync_balance_of(text, site) < 0.9 || waited < 0 || waited >= 20)
			return false;
	}
	return true;
}

/*
 * Regions in a row, each step a team of one's construct, a balanced region and serial code
 * (pop_idle_between): the balanced region's barrier is balanced in every output (its primary's
 * phase held the team of one's units too: 0.75), and waited next to nothing (the worker's idle
 * between regions, 4 units a step, which libomp tells as the end of its wait at the barrier
 * only when the next region wakes it, was counted as waited there: 60 ms and more). The
 * process's load balance stays the run's, 0.667: the serial code is thread 0's alone.
 */
static void expect_a_barrier_without_the_idle_between(const char *name)
{
	struct tp_pop_run pop = {0};
	bool kept = pop_run_until(name, barrier_balanced, NULL,
				  "its barrier's figures as it measured them", &pop);
	char site[64];
	balanced_region_site(site, sizeof site);
	for (size_t i = 0; i < TP_POP_WAYS; i++) {
		const struct tp_pop_output *o = &pop.output[i];
		double balance = sync_balance_of(o->text, site),
		       waited = sync_waited_of(o->text, site, "barrier");
		/* a run the machine moved every time (a thread preempted in its units: a
		 * balance of 0.84 and 29 ms waited, in all three outputs alike) is held to what
		 * the program measured of its barrier: the balance within 0.05, the wait within
		 * the idle's tenth (8 ms: the idle counted there was 60 ms and more) */
		double a = 0, b = 0, measured = -1;
		const char *said = strstr(o->err, "pop_idle_between: barrier phases ");
		if (!kept && said != NULL &&
		    sscanf(said, "pop_idle_between: barrier phases %lf and %lf ms, waited %lf", &a,
			   &b, &measured) == 3 &&
		    a > 0 && b > 0) {
			double own = (a + b) / 2 / (a > b ? a : b);
			cr_expect(fabs(balance - own) <= 0.05 && waited >= 0 &&
					  waited <= measured + 8,
				  "%s: %s says %s's barrier has a load balance of %.3f and waited "
				  "%.2f ms, where the program measured %.3f and %.2f ms:\n%s\n%s",
				  name, o->way, site, balance, waited, own, measured, o->text,
				  o->err);
		} else
			cr_expect(balance >= 0.9 && waited >= 0 && waited < 20,
				  "%s: %s says %s's barrier has a load balance of %.3f and waited "
				  "%.2f "
				  "ms:\n%s",
				  name, o->way, site, balance, waited, o->text);
		cr_expect(o->factors.said && fabs(o->factors.load_balance - 2.0 / 3) <= 0.1,
			  "%s: %s says a load balance of %.3f, not 0.667:\n%s", name, o->way,
			  o->factors.load_balance, o->text);
	}
	tp_pop_run_free(&pop);
}

Test(loops, a_barrier_waits_neither_a_team_of_ones_units_nor_the_idle_between_regions,
     .timeout = 240)
{
	expect_a_barrier_without_the_idle_between("pop_idle_between");
}

/* GCC folds the two constructs' identical code: the second's outlined function is a jump to the
 * first's, which no function's DWARF holds, named by its line all the same (source_lines.c; it
 * read "main [main._omp_fn.1] (pop_idle_between_gcc)"). */
Test(loops, a_barrier_of_a_gcc_build_waits_nothing_of_what_lies_between_regions, .timeout = 240)
{
	expect_a_barrier_without_the_idle_between("pop_idle_between_gcc");
}
