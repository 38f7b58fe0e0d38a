// SPDX-License-Identifier: MIT
/*
 * Where a region's time is lost, loop by loop (issue 35: per synchronisation site the time
 * threads waited there): pop_loops' two worksharing loops in one parallel region, each loop's
 * implicit barrier a sync site of its own, the same in the exit report, `taskprobe top --once`
 * and --analyze of one run (tp_pop_run), built by clang and by GCC, on two threads.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "analysis_runs.h"
#include "harness.h"

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
 * The barrier line in `text` of the imbalanced loop of pop_loops: a site on one of its lines (the
 * construct's for clang, a line of its body for GCC's loop end), its waits into `waits`; its time
 * waited in ms, -1 when no line has one.
 */
static double first_loop_barrier(const char *text, long *waits)
{
	int from = loop_line("#pragma omp for schedule(static, 1)");
	int to = loop_line("#pragma omp for schedule(static)");
	for (int line = from; line < to; line++) {
		char site[64];
		snprintf(site, sizeof site, "main (pop_loops.c:%d)", line);
		*waits = sync_waits_of(text, site, "barrier");
		if (*waits >= 0)
			return sync_waited_of(text, site, "barrier");
	}
	return -1;
}

/* Whether --analyze of `pop` says the imbalanced loop's barrier waited at least half the 80 ms
 * its thread 0 waits on an idle machine (a pop_judge). */
static bool first_loop_waited(const struct tp_pop_run *pop, const void *context)
{
	(void)context;
	long waits;
	return first_loop_barrier(pop->output[TP_POP_ANALYSIS].text, &waits) >= 40;
}

/*
 * Two worksharing loops in one region (pop_loops): each loop's implicit barrier is a sync site of
 * its own, on the loop's lines, two waits (one a thread), the imbalanced loop's 80 ms (thread 0
 * waits 16 units for thread 1) in every output as --analyze says it. The three barriers were one
 * line at the region's construct, which said that the region waited, not which loop. clang's
 * balanced loop has its barrier's line too; GCC ends a region's last loop without one.
 */
static void expect_a_barrier_a_loop(const char *name, bool clang)
{
	struct tp_pop_run pop = {0};
	(void)pop_run_until(name, first_loop_waited, NULL, "its outputs alike", &pop);
	long waits;
	double analyzed = first_loop_barrier(pop.output[TP_POP_ANALYSIS].text, &waits);
	char second[64], region[64];
	snprintf(second, sizeof second, "main (pop_loops.c:%d)",
		 loop_line("#pragma omp for schedule(static)"));
	snprintf(region, sizeof region, "main (pop_loops.c:%d)",
		 tp_source_line("pop_loops.c", "int main(", "#pragma omp parallel"));
	for (size_t i = 0; i < TP_POP_WAYS; i++) {
		const struct tp_pop_output *o = &pop.output[i];
		double waited = first_loop_barrier(o->text, &waits);
		cr_expect(waits == 2 && fabs(waited - analyzed) <= 0.1 * analyzed + 1,
			  "%s: %s says the first loop's barrier waited %.2f ms in %ld waits, "
			  "--analyze %.2f ms:\n%s",
			  name, o->way, waited, waits, analyzed, o->text);
		cr_expect_lt(sync_waited_of(o->text, region, "barrier"), waited, "%s: %s:\n%s",
			     name, o->way, o->text);
		if (clang)
			cr_expect_eq(sync_waits_of(o->text, second, "barrier"), 2, "%s: %s:\n%s",
				     name, o->way, o->text);
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
