// SPDX-License-Identifier: MIT
/*
 * The graph's rules for parallel regions run by both engines (test_one_engine.c's, apart): a
 * region's fork and its workers, the initial task's code before and between regions.
 */
#include <criterion/criterion.h>

#include "one_engine.h"
#include "taskprobe_contract.h"
#include "work_span.h"

/*
 * A parallel region: its worker's implicit task reported before the primary's (after the
 * initial task's code so far), two explicit tasks in a chain of dependences on the two threads,
 * the region's barrier, and the initial task's serial code after it.
 */
Test(one_engine, a_region_its_fork_and_a_chain_of_dependences)
{
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	both_fork(10);
	both_spawn(1, 11, 3, 2);
	both_spawn(1, 11, 4, 2);
	both_dependence(1, 11, 3, 4);
	both_end(1, 12, 2, false, TP_SYNC_BARRIER, REGION);
	both_end(2, 12, WORKER, false, TP_SYNC_BARRIER, REGION);
	both_start(1, 12, 3);
	both_end(1, 20, 3, true, TP_SYNC_NONE, 0);
	both_start(2, 21, 4);
	both_end(2, 30, 4, true, TP_SYNC_NONE, 0);
	both_start(1, 30, 2);
	both_end(1, 31, 2, true, TP_SYNC_NONE, 0);
	both_start(2, 31, WORKER);
	both_end(2, 31, WORKER, true, TP_SYNC_NONE, 0);
	both_start(1, 32, INITIAL);
	both_end(1, 40, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(37);
}

/*
 * A parallel region nested in an explicit task (its primary's implicit task is that task's
 * child): the region's worker starts after its fork, the explicit task's fragment up to the
 * region, as after any encountering task's.
 */
Test(one_engine, a_region_started_by_an_explicit_task_forks)
{
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	both_spawn_at(1, 1, 2, INITIAL, REGION);
	both_end(1, 1, INITIAL, false, TP_SYNC_NONE, 0);
	both_start(1, 1, 2);
	both_spawn_at(2, 1, WORKER, 0, REGION);
	both_start(2, 1, WORKER);
	both_spawn(1, 2, 3, 2);
	both_end(1, 2, 2, false, TP_SYNC_TASKWAIT, TASKWAIT);
	both_end(2, 3, WORKER, false, TP_SYNC_BARRIER, REGION);
	both_start(1, 2, 3);
	both_spawn_at(1, 4, 4, 3, INNER);
	both_end(1, 4, 3, false, TP_SYNC_NONE, 0);
	both_start(1, 4, 4);
	both_spawn_at(3, 4, WORKER - 1, 0, INNER);
	both_start(3, 4, WORKER - 1);
	both_end(1, 5, 4, false, TP_SYNC_BARRIER, INNER);
	both_end(3, 20, WORKER - 1, false, TP_SYNC_BARRIER, INNER);
	both_start(1, 20, 4);
	both_end(1, 21, 4, true, TP_SYNC_NONE, 0);
	both_start(3, 20, WORKER - 1);
	both_end(3, 20, WORKER - 1, true, TP_SYNC_NONE, 0);
	both_start(1, 21, 3);
	both_end(1, 22, 3, true, TP_SYNC_NONE, 0);
	both_start(1, 22, 2);
	both_end(1, 23, 2, false, TP_SYNC_BARRIER, REGION);
	both_start(1, 24, 2);
	both_end(1, 24, 2, true, TP_SYNC_NONE, 0);
	both_start(2, 24, WORKER);
	both_end(2, 24, WORKER, true, TP_SYNC_NONE, 0);
	both_start(1, 25, INITIAL);
	both_end(1, 26, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(24);
}

/*
 * A region's worker reported after its primary's spawn (the fork, at 4) but before the initial
 * task's switch out (15): it starts after the fork, not after the initial task's code so far
 * (tp_span_fork_waits_initial), and runs 10..40: span 4 + 30. The initial task's 4..15 and the
 * primary's poll are off the path.
 */
Test(one_engine, a_worker_reported_after_its_regions_fork_starts_after_the_fork)
{
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	both_spawn_at(1, 4, 2, INITIAL, REGION);
	both_spawn_at(2, 10, WORKER, 0, REGION);
	both_start(2, 10, WORKER);
	both_end(1, 15, INITIAL, false, TP_SYNC_NONE, 0);
	both_start(1, 15, 2);
	both_end(1, 20, 2, true, TP_SYNC_NONE, 0);
	both_end(2, 40, WORKER, true, TP_SYNC_NONE, 0);
	both_start(1, 41, INITIAL);
	both_end(1, 42, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(34);
}

/*
 * The program starts at 0 and waits in MPI_Init from 1 to 2; OpenMP's runtime starts at 5, where
 * the initial task is spawned and polled: its first poll starts at 2 (tp_span_initial_start),
 * the serial code before the runtime its work and on the span. Its region's fork at 9, the worker
 * 15..45: span 7 + 30. Thread 1 computes 2..20, 20..25 and 46..47 (24 ms), the worker 30.
 */
Test(one_engine, the_initial_task_starts_with_the_program_after_its_last_wait)
{
	both_image_start(0);
	both_wait_outside(1, 1, 2);
	both_spawn(1, 5, INITIAL, 0);
	both_start(1, 5, INITIAL);
	both_spawn_at(1, 9, 2, INITIAL, REGION);
	both_spawn_at(2, 15, WORKER, 0, REGION);
	both_start(2, 15, WORKER);
	both_end(1, 20, INITIAL, false, TP_SYNC_NONE, 0);
	both_start(1, 20, 2);
	both_end(1, 25, 2, true, TP_SYNC_NONE, 0);
	both_end(2, 45, WORKER, true, TP_SYNC_NONE, 0);
	both_start(1, 46, INITIAL);
	both_end(1, 47, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(37);
	expect_computation(30, 27);
}

/*
 * A parallel region's primary implicit task spawned on another thread than the one that polled
 * its encountering task (switched out): its start is that task's last fragment's end, and it is
 * the region's fork all the same, which the region's worker joins.
 */
Test(one_engine, a_region_spawned_away_from_its_encountering_task_forks)
{
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	both_end(1, 2, INITIAL, false, TP_SYNC_NONE, 0);
	both_spawn_at(2, 3, 2, INITIAL, REGION);
	both_start(2, 3, 2);
	both_spawn_at(3, 4, WORKER, 0, REGION);
	both_start(3, 4, WORKER);
	both_end(2, 5, 2, true, TP_SYNC_NONE, 0);
	both_end(3, 10, WORKER, true, TP_SYNC_NONE, 0);
	both_start(1, 11, INITIAL);
	both_end(1, 12, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(8);
}

/*
 * Two worksharing loops in a region (sync_waited.h's phases): in the first, ended by its own
 * barrier (the TASKWAIT site as a loop's), the primary computes 10 ms, then runs the worker's
 * task of 8 ms while it waits there, and the worker computes 30; in the second, ended by the
 * region's barrier, each computes 20. The first barrier's phases are 18 and 30 ms (load balance
 * 0.8), the region's 20 and 20, whatever the region's balance over both (38 against 50).
 */
Test(one_engine, each_barrier_has_the_computation_before_it)
{
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	both_fork(2);
	both_spawn(2, 4, 3, WORKER);
	both_end(1, 12, 2, false, TP_SYNC_BARRIER, TASKWAIT);
	both_start(1, 12, 3);
	both_end(1, 20, 3, true, TP_SYNC_NONE, 0);
	both_end(2, 32, WORKER, false, TP_SYNC_BARRIER, TASKWAIT);
	both_start(1, 32, 2);
	both_start(2, 32, WORKER);
	both_join(52);
	both_end(1, 55, INITIAL, true, TP_SYNC_NONE, 0);
	expect_known_graph(93, 55);
	expect_phases(TASKWAIT, 18, 30);
	expect_phases(REGION, 20, 20);
}

/*
 * A region forked at 10 whose implicit tasks each run a parallel construct of a team of one thread
 * (nesting off: a library's region called in the program's): each is run in its encountering
 * task's place, which goes on after it, in the outer region. The primary's (20 ms, 11..31) is on
 * the span: 10 + 1 + 20 + 4 + 5, not the worker's 11 + 10 + 13 (as nested work its encountering
 * task would not follow it: 38). The outer region computes 25 and 24 ms in its 25 ms: efficiency
 * and load balance 0.980 (before, it and the inner construct read "-").
 */
static void teams_of_one_in_a_region(void)
{
	both_fork(10);
	both_team_of_one(1, 11, 3, 2, INNER);
	both_end(1, 11, 2, false, TP_SYNC_NONE, 0);
	both_start(1, 11, 3);
	both_team_of_one(2, 11, 4, WORKER, INNER);
	both_end(2, 11, WORKER, false, TP_SYNC_NONE, 0);
	both_start(2, 11, 4);
	both_end(2, 21, 4, true, TP_SYNC_NONE, 0);
	both_start(2, 21, WORKER);
	both_end(2, 34, WORKER, false, TP_SYNC_BARRIER, REGION);
	both_end(1, 31, 3, true, TP_SYNC_NONE, 0);
	both_start(1, 31, 2);
	both_end(1, 35, 2, false, TP_SYNC_BARRIER, REGION);
	both_start(1, 35, 2);
	both_end(1, 35, 2, true, TP_SYNC_NONE, 0);
	both_start(2, 35, WORKER);
	both_end(2, 35, WORKER, true, TP_SYNC_NONE, 0);
	both_start(1, 35, INITIAL);
	both_end(1, 40, INITIAL, true, TP_SYNC_NONE, 0);
}

/* Whether the analysis's regions table has `line`, and no line of site `site` when NULL. */
static void expect_region_line(const char *site, const char *line)
{
	char *text = analysis_text(), start[64];
	snprintf(start, sizeof start, "%s      ", site);
	if (line != NULL)
		cr_expect(strstr(text, line) != NULL, "no %s in:\n%s", line, text);
	else
		cr_expect(strstr(text, start) == NULL, "%s is a region:\n%s", site, text);
	free(text);
}

Test(one_engine, a_team_of_one_nested_in_a_region_runs_in_its_encountering_tasks_place)
{
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	teams_of_one_in_a_region();
	expect_one_answer(40);
	expect_computation(40, 32);
	expect_region_line("main (synthetic.c:10)",
			   "main (synthetic.c:10)      0.980         0.980 "
			   "    49.00 ms     25.00 ms        2\n");
	expect_region_line("main (synthetic.c:40)", NULL);
}

/*
 * The inner construct a region of two threads before (2..6), from the initial task's serial
 * code: that instance alone is its region's (8 ms in 4: efficiency 1), its teams of one in the
 * outer region that region's, per task as live.c decides (before, all of them the construct's).
 */
Test(one_engine, a_construct_of_a_team_of_one_and_of_two_is_a_region_where_it_has_two)
{
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	both_spawn_at(2, 2, 6, 0, INNER);
	both_start(2, 2, 6);
	both_spawn_at(1, 2, 5, INITIAL, INNER);
	both_end(1, 2, INITIAL, false, TP_SYNC_NONE, 0);
	both_start(1, 2, 5);
	both_end(1, 6, 5, false, TP_SYNC_BARRIER, INNER);
	both_end(2, 6, 6, false, TP_SYNC_BARRIER, INNER);
	both_start(1, 6, 5);
	both_end(1, 6, 5, true, TP_SYNC_NONE, 0);
	both_start(2, 6, 6);
	both_end(2, 6, 6, true, TP_SYNC_NONE, 0);
	both_start(1, 6, INITIAL);
	teams_of_one_in_a_region();
	expect_one_answer(40);
	expect_computation(40, 34);
	expect_region_line("main (synthetic.c:10)",
			   "main (synthetic.c:10)      0.980         0.980 "
			   "    49.00 ms     25.00 ms        2\n");
	expect_region_line("main (synthetic.c:40)",
			   "main (synthetic.c:40)      1.000         1.000 "
			   "     8.00 ms      4.00 ms        2\n");
}

/*
 * A region forked by an explicit task (3, which the initial task runs undeferred), whose
 * primary runs a team of one (4: 3..13) before its worker is seen (5): in the recording of a
 * version that says which tasks are a team of one's, the region's site is a region's from its
 * primary's spawn, so the team of one is in its place, in the region, as the live statistics
 * have it (before, in no region: the region computed 11 ms of 21). The region: thread 1 12 ms
 * (2..14), the worker 9: 21 ms in 12, load balance and efficiency 0.875.
 */
Test(one_engine, a_team_of_one_before_its_regions_workers_is_in_the_region)
{
	both_spawn_told(1, 0, INITIAL, 0, 0, false);
	both_start(1, 0, INITIAL);
	both_spawn_told(1, 1, 3, INITIAL, TASKS, true);
	both_end(1, 1, INITIAL, false, TP_SYNC_NONE, 0);
	both_start(1, 1, 3);
	both_spawn_told(1, 2, 2, 3, REGION, false);
	both_end(1, 2, 3, false, TP_SYNC_NONE, 0);
	both_start(1, 2, 2);
	both_team_of_one(1, 3, 4, 2, INNER);
	both_end(1, 3, 2, false, TP_SYNC_NONE, 0);
	both_start(1, 3, 4);
	both_spawn_told(2, 5, WORKER, 0, REGION, false);
	both_start(2, 5, WORKER);
	both_end(1, 13, 4, true, TP_SYNC_NONE, 0);
	both_start(1, 13, 2);
	both_end(1, 14, 2, false, TP_SYNC_BARRIER, REGION);
	both_end(2, 14, WORKER, false, TP_SYNC_BARRIER, REGION);
	both_start(1, 14, 2);
	both_end(1, 14, 2, true, TP_SYNC_NONE, 0);
	both_start(2, 14, WORKER);
	both_end(2, 14, WORKER, true, TP_SYNC_NONE, 0);
	both_start(1, 14, 3);
	both_end(1, 15, 3, true, TP_SYNC_NONE, 0);
	both_start(1, 15, INITIAL);
	both_end(1, 16, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(15);
	expect_region_line("main (synthetic.c:10)",
			   "main (synthetic.c:10)      0.875         0.875 "
			   "    21.00 ms     12.00 ms        2\n");
	expect_region_line("main (synthetic.c:40)", NULL);
}

/* both_fork's in a stream that says which tasks the program spawned (version 16's). */
static void fork_told(uint64_t ms)
{
	both_spawn_told(2, ms, WORKER, 0, REGION, false);
	both_start(2, ms, WORKER);
	both_spawn_told(1, ms, 2, INITIAL, REGION, false);
	both_end(1, ms, INITIAL, false, TP_SYNC_NONE, 0);
	both_start(1, ms, 2);
}

/* A region told (2..12) whose worker reaches its barrier at 10 and is left there; the initial
 * task polled again at 12. */
static void region_told_its_worker_waiting(void)
{
	fork_told(2);
	both_end(2, 10, WORKER, false, TP_SYNC_BARRIER, REGION);
	both_end(1, 12, 2, false, TP_SYNC_BARRIER, REGION);
	both_start(1, 12, 2);
	both_end(1, 12, 2, true, TP_SYNC_NONE, 0);
	both_start(1, 12, INITIAL);
}

/*
 * A region (2..12) whose worker reaches its barrier at 10 and is told out of it only when the
 * next region wakes it (libomp's way), at 30, after 18 ms of the initial task's serial code: its
 * wait at the barrier is 10..12, the region's join (tp_sync_wait_joined), not 10..30 (that
 * counted, the barrier read 20 ms waited where the worker waited 2 for the primary).
 */
Test(one_engine, a_workers_wait_at_its_regions_barrier_ends_with_the_region)
{
	both_spawn_told(1, 0, INITIAL, 0, 0, false);
	both_start(1, 0, INITIAL);
	region_told_its_worker_waiting();
	both_start(2, 30, WORKER);
	both_end(2, 30, WORKER, true, TP_SYNC_NONE, 0);
	both_end(1, 30, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(30);
	expect_waited(REGION, TP_SYNC_BARRIER, 2, 2);
	expect_phases(REGION, 8, 10);
}

/*
 * Two instances of a region (2..12, 14..24), the second's worker another thread's (a pool's,
 * as libomp gives a nested region's): the first's worker, told out of its barrier only at the
 * runtime's end (40), waited 10..12, to its own instance's join, the first after its wait began,
 * not to the site's last (24: 14 ms waited where it waited 2 for the primary).
 */
Test(one_engine, a_workers_wait_at_a_barrier_ends_at_its_own_instances_join)
{
	both_spawn_told(1, 0, INITIAL, 0, 0, false);
	both_start(1, 0, INITIAL);
	region_told_its_worker_waiting();
	both_spawn_told(3, 14, 6, 0, REGION, false); /* the second instance, its worker on 3 */
	both_start(3, 14, 6);
	both_spawn_told(1, 14, 5, INITIAL, REGION, false);
	both_end(1, 14, INITIAL, false, TP_SYNC_NONE, 0);
	both_start(1, 14, 5);
	both_end(3, 22, 6, false, TP_SYNC_BARRIER, REGION);
	both_end(1, 24, 5, false, TP_SYNC_BARRIER, REGION);
	both_start(1, 24, 5);
	both_end(1, 24, 5, true, TP_SYNC_NONE, 0);
	both_start(1, 24, INITIAL);
	both_start(2, 40, WORKER);
	both_end(2, 40, WORKER, true, TP_SYNC_NONE, 0);
	both_start(3, 40, 6);
	both_end(3, 40, 6, true, TP_SYNC_NONE, 0);
	both_end(1, 40, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(40);
	expect_waited(REGION, TP_SYNC_BARRIER, 4, 4);
}

/*
 * A parallel construct of a team of one (INNER, 2..12: `if (0)`, no barrier) before a region of
 * two threads (12..20, 8 ms each): the region's barrier ends phases of 8 and 8 ms. The team of
 * one's 10 ms were waited for by no barrier (tp_phase_forks); in its primary's phase the barrier
 * read a load balance of 0.62.
 */
Test(one_engine, a_team_of_ones_computation_is_no_later_barriers)
{
	both_spawn_told(1, 0, INITIAL, 0, 0, false);
	both_start(1, 0, INITIAL);
	both_team_of_one(1, 2, 3, INITIAL, INNER);
	both_end(1, 2, INITIAL, false, TP_SYNC_NONE, 0);
	both_start(1, 2, 3);
	both_end(1, 12, 3, true, TP_SYNC_NONE, 0);
	both_start(1, 12, INITIAL);
	fork_told(12);
	both_join(20);
	both_end(1, 22, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(22);
	expect_phases(REGION, 8, 8);
}

/*
 * A region of the construct at `site` forked at `*ms` by OpenMP's initial task (polled on thread
 * 1): its primary's implicit task `primary` computes 1 ms, its worker's (`worker`, thread 2)
 * `worker_ms`, then both leave the barrier, and the initial task goes on. `*ms` becomes the
 * join's moment.
 */
static void region_of_two(uint64_t *ms, uint32_t site, uint64_t primary, uint64_t worker,
			  uint64_t worker_ms)
{
	uint64_t at = *ms, end = at + worker_ms;
	both_spawn_at(2, at, worker, 0, site);
	both_start(2, at, worker);
	both_spawn_at(1, at, primary, INITIAL, site);
	both_end(1, at, INITIAL, false, TP_SYNC_NONE, 0);
	both_start(1, at, primary);
	both_end(1, at + 1, primary, false, TP_SYNC_BARRIER, site);
	both_end(2, end, worker, false, TP_SYNC_BARRIER, site);
	both_start(1, end, primary);
	both_end(1, end, primary, true, TP_SYNC_NONE, 0);
	both_start(2, end, worker);
	both_end(2, end, worker, true, TP_SYNC_NONE, 0);
	both_start(1, end, INITIAL);
	*ms = end;
}

/*
 * Regions of five constructs in a row, the worker's part the longer (2 to 6 ms), a millisecond
 * of serial code before each: six sites on the span (the initial task and the five constructs),
 * more than a path of the live statistics keeps (four). The initial task's path committed as it
 * goes on after each region's join, the live engine says every site's time and fragments on the
 * span as --analyze does, none of it in sites not kept (without the commits: 5 ms in no site).
 */
Test(one_engine, regions_in_a_row_of_more_sites_than_a_path_keeps)
{
	static const uint32_t constructs[] = {REGION, STEP_A, STEP_B, STEP_C, INNER};
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	uint64_t ms = 0;
	for (unsigned i = 0; i < 5; i++) {
		ms += 1; /* the serial code before the region */
		region_of_two(&ms, constructs[i], 2 + 2 * i, 3 + 2 * i, 2 + i);
	}
	both_end(1, ms + 1, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(6 + 2 + 3 + 4 + 5 + 6);
}
