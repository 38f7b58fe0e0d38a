// SPDX-License-Identifier: MIT
/*
 * The graph's rules run by both engines (issue 35 item 6): one made-up event stream fed to the
 * recording's analysis (analysis.h, as recording_read hands events over) and to the live
 * statistics' engine (work_span.h, called as live.c calls it), whose figures must be the same:
 * work, span, burdened span, placed path, the span's fragments, and each site's time and
 * fragments on the span. A rule changed on one side only fails here. No program runs, no clock
 * is read (meson test --suite unit).
 *
 * The streams keep to what both engines see alike (the live engine's documented limits aside:
 * a descendant ending after its parent, a dependence on a task being made): tasks spawned by the
 * task their thread polls, joins at a taskwait, a taskgroup's end and a barrier's, a task
 * switched out following what its thread ran, a critical section's acquire and release.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taskprobe_contract.h"
#include "one_engine.h"
#include "work_span.h"

TestSuite(one_engine, .init = one_engine_setup, .fini = one_engine_teardown);

/*
 * The initial task spawns two tasks and waits for them (taskwait); each enters a critical
 * section, the second after the first's release (on the other thread, after a delay); then the
 * initial task spawns a third, switched out to run it, and follows it.
 */

/*
 * The opening several streams share: the initial task on thread 1 spawns tasks 2 and 3 and
 * waits for them at a taskwait, at 1 ms.
 */
static void two_children_waited(void)
{
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	both_spawn(1, 1, 2, INITIAL);
	both_spawn(1, 1, 3, INITIAL);
	both_end(1, 1, INITIAL, false, TP_SYNC_TASKWAIT, TASKWAIT);
}

/*
 * The opening the streams of a critical section's holder share: after two_children_waited,
 * tasks 2 and 3 start on threads 1 and 2 at 1 ms, both wait at 2 to enter the critical section,
 * and task 2 is polled again at 3 on thread 1, where it enters it at `acquired_ms` (task 3 still
 * waiting).
 */
static void task_2_enters_the_critical_section_at(uint64_t acquired_ms)
{
	two_children_waited();
	both_start(1, 1, 2);
	both_start(2, 1, 3);
	both_end(1, 2, 2, false, TP_SYNC_MUTEX, CRITICAL);
	both_end(2, 2, 3, false, TP_SYNC_MUTEX, CRITICAL);
	both_start(1, 3, 2);
	both_acquire(1, acquired_ms, 2);
}

/* The same, task 2 entering at its poll's start, 3 ms. */
static void task_2_holds_the_critical_section(void)
{
	task_2_enters_the_critical_section_at(3);
}

/*
 * The opening of the streams of a holder switched out: after task_2_holds_the_critical_section,
 * task 2 is switched out inside its section at 5; task 3 acquires the object at 9 (finding task 2
 * holding it), and ends at 12; task 2, polled again at 12, says its release late, at 13.
 */
static void task_3_takes_the_section_from_task_2_switched_out(void)
{
	task_2_holds_the_critical_section();
	both_end(1, 5, 2, false, TP_SYNC_NONE, 0);
	both_start(2, 9, 3);
	both_acquire(2, 9, 3);
	both_release(2, 10, 3);
	both_end(2, 12, 3, true, TP_SYNC_NONE, 0);
	both_start(1, 12, 2);
	both_release(1, 13, 2);
}

Test(one_engine, a_taskwait_a_critical_section_and_a_task_switched_out)
{
	both_spawn(1, 0, 1, 0);
	both_start(1, 0, 1);
	both_spawn(1, 2, 2, 1);
	both_spawn(1, 4, 3, 1);
	both_end(1, 5, 1, false, TP_SYNC_TASKWAIT, TASKWAIT);
	both_start(2, 5, 2);
	both_start(1, 6, 3);
	both_end(1, 7, 3, false, TP_SYNC_MUTEX, CRITICAL);
	both_start(1, 7, 3);
	both_acquire(1, 7, 3);
	both_end(2, 9, 2, false, TP_SYNC_MUTEX, CRITICAL);
	both_release(1, 12, 3);
	both_end(1, 13, 3, true, TP_SYNC_NONE, 0);
	both_start(2, 14, 2);
	both_acquire(2, 14, 2);
	both_release(2, 16, 2);
	both_end(2, 18, 2, true, TP_SYNC_NONE, 0);
	both_start(1, 19, 1);
	both_spawn(1, 20, 4, 1);
	both_end(1, 21, 1, false, TP_SYNC_NONE, 0);
	both_start(1, 21, 4);
	both_end(1, 25, 4, true, TP_SYNC_NONE, 0);
	both_start(1, 26, 1);
	both_end(1, 30, 1, true, TP_SYNC_NONE, 0);
	expect_one_answer(23);
}

/*
 * A taskgroup's end joins a grandchild that ended before its parent, on a longer path (its
 * parent was switched out meanwhile); tasks waiting in a barrier join everything ended before
 * it, the second to leave it as the first.
 */
Test(one_engine, a_taskgroup_and_a_barrier)
{
	both_spawn(1, 0, 1, 0);
	both_start(1, 0, 1);
	both_spawn(1, 1, 2, 1);
	both_spawn(1, 2, 3, 1);
	both_end(1, 2, 1, false, TP_SYNC_TASKGROUP, TASKWAIT);
	both_start(2, 3, 2);
	both_start(1, 3, 3);
	both_spawn(1, 4, 5, 3);
	both_end(1, 4, 3, false, TP_SYNC_NONE, 0);
	both_end(2, 10, 2, false, TP_SYNC_BARRIER, TASKWAIT);
	both_start(2, 10, 5);
	both_end(2, 21, 5, true, TP_SYNC_NONE, 0);
	both_start(1, 22, 3);
	both_end(1, 23, 3, true, TP_SYNC_NONE, 0);
	both_start(1, 24, 1);
	both_end(1, 26, 1, false, TP_SYNC_BARRIER, TASKWAIT);
	both_start(2, 27, 2);
	both_end(2, 29, 2, true, TP_SYNC_NONE, 0);
	both_start(1, 28, 1);
	both_end(1, 33, 1, true, TP_SYNC_NONE, 0);
	expect_one_answer(21);
}

/*
 * MPI calls' waits are no computation and not on the path (tp_span_wait_pauses): the initial
 * task waits in one for 20 of its first 30 ms, then forks a region whose primary waits in one for
 * 10 of its 20 ms while the worker computes 20, then runs 10 ms more. Work 10 + 10 + 20 + 10,
 * span 10 + 20 + 10 through the worker (counted, the waits made them 80 and 60); thread 1
 * computes 30 ms, thread 2 20.
 */
Test(one_engine, an_mpi_calls_wait_inside_a_poll_is_no_computation)
{
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	both_mpi_wait(1, 5, 25);
	both_fork(30);
	both_mpi_wait(1, 32, 42);
	both_join(50);
	both_end(1, 60, INITIAL, true, TP_SYNC_NONE, 0);
	expect_known_graph(50, 40);
	expect_computation(30, 25);
}

/*
 * On one thread the initial task's child, created undeferred, runs at its spawn (nested work):
 * the initial task's next fragment does not follow it (its path is its own), and its taskwait
 * joins it as it would join a child run elsewhere.
 */
Test(one_engine, a_child_created_undeferred_is_joined_at_the_taskwait)
{
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	both_spawn_of(1, 2, 2, INITIAL, TASKS, true, false);
	both_end(1, 2, INITIAL, false, TP_SYNC_NONE, 0);
	both_start(1, 2, 2);
	both_end(1, 7, 2, true, TP_SYNC_NONE, 0);
	both_start(1, 7, INITIAL);
	both_end(1, 8, INITIAL, false, TP_SYNC_TASKWAIT, TASKWAIT);
	both_start(1, 8, INITIAL);
	both_end(1, 10, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(9);
}

/*
 * A critical section entered after a wait at no site (none said, or the sites' table full): its
 * time has no sync site's row to go to, so its task's poll is not split at the release, one
 * fragment on the path as any poll.
 */
Test(one_engine, a_critical_section_whose_wait_has_no_site_is_no_fragment_of_its_own)
{
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	both_end(1, 2, INITIAL, false, TP_SYNC_MUTEX, 0);
	both_start(1, 3, INITIAL);
	both_acquire(1, 3, INITIAL);
	both_release(1, 6, INITIAL);
	both_end(1, 10, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(9);
}

/*
 * The same section on the span through its release: the next acquirer's path holds the
 * releaser's fragment up to the release, one fragment on the path (as a spawn's part is).
 */
Test(one_engine, a_release_of_a_section_whose_wait_has_no_site_is_on_the_path)
{
	two_children_waited();
	both_start(1, 1, 2);
	both_acquire(1, 1, 2);
	both_start(2, 1, 3);
	both_end(2, 2, 3, false, TP_SYNC_MUTEX, 0);
	both_release(1, 3, 2);
	both_start(2, 3, 3);
	both_acquire(2, 3, 3);
	both_end(1, 4, 2, true, TP_SYNC_NONE, 0);
	both_release(2, 5, 3);
	both_end(2, 13, 3, true, TP_SYNC_NONE, 0);
	both_start(1, 14, INITIAL);
	both_end(1, 15, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(14);
}

/*
 * A task switched out inside its critical section (its release said late, once it runs again):
 * the next acquirer starts after the holder's path to its last fragment's end, not up to the
 * acquire: a holder not polled does no work.
 */
Test(one_engine, an_acquire_from_a_holder_switched_out_joins_its_last_fragment)
{
	task_3_takes_the_section_from_task_2_switched_out();
	both_end(1, 14, 2, true, TP_SYNC_NONE, 0);
	both_start(1, 15, INITIAL);
	both_end(1, 16, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(8);
}

/*
 * An acquire while the holder still polls (its release said late): the next acquirer starts
 * after the holder's path up to the acquire, its section so far one fragment on the path.
 */
Test(one_engine, an_acquire_from_a_holder_still_polled_joins_its_section_so_far)
{
	task_2_holds_the_critical_section();
	both_start(2, 6, 3);
	both_acquire(2, 6, 3);
	both_release(1, 7, 2);
	both_release(2, 8, 3);
	both_end(1, 9, 2, true, TP_SYNC_NONE, 0);
	both_end(2, 12, 3, true, TP_SYNC_NONE, 0);
	both_start(1, 13, INITIAL);
	both_end(1, 14, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(12);
}

/*
 * A holder switched out inside its section and polled again (its release said late): the next
 * acquirer starts after the holder's path up to the acquire, through its fragment polled again,
 * not its switched out time.
 */
Test(one_engine, an_acquire_from_a_holder_polled_again_joins_its_fragment_so_far)
{
	task_2_holds_the_critical_section();
	both_end(1, 5, 2, false, TP_SYNC_NONE, 0);
	both_start(1, 7, 2);
	both_start(2, 9, 3);
	both_acquire(2, 9, 3);
	both_release(1, 10, 2);
	both_end(1, 10, 2, true, TP_SYNC_NONE, 0);
	both_release(2, 11, 3);
	both_end(2, 12, 3, true, TP_SYNC_NONE, 0);
	both_start(1, 14, INITIAL);
	both_end(1, 15, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(10);
}

/*
 * The same, the holder polled again by another thread than the one it acquired on: it is
 * polled all the same, and the next acquirer starts after its path up to the acquire.
 */
Test(one_engine, an_acquire_from_a_holder_polled_again_elsewhere_joins_its_fragment_so_far)
{
	task_2_holds_the_critical_section();
	both_end(1, 5, 2, false, TP_SYNC_NONE, 0);
	both_start(3, 7, 2);
	both_start(2, 9, 3);
	both_acquire(2, 9, 3);
	both_release(3, 10, 2);
	both_end(3, 10, 2, true, TP_SYNC_NONE, 0);
	both_release(2, 11, 3);
	both_end(2, 12, 3, true, TP_SYNC_NONE, 0);
	both_start(1, 14, INITIAL);
	both_end(1, 15, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(10);
}

/*
 * A task switched out inside its critical section and polled again: its section goes on until
 * its release, in the sync site's row, and the release splits its fragment there as it would
 * have before the switch out (the span's fragments: its section's part one, the rest another).
 */
Test(one_engine, a_section_goes_on_across_its_task_switched_out)
{
	task_2_holds_the_critical_section();
	both_end(1, 5, 2, false, TP_SYNC_NONE, 0);
	both_start(1, 7, 2);
	both_release(1, 9, 2);
	both_start(2, 10, 3);
	both_acquire(2, 10, 3);
	both_release(2, 11, 3);
	both_end(2, 12, 3, true, TP_SYNC_NONE, 0);
	both_end(1, 20, 2, true, TP_SYNC_NONE, 0);
	both_start(1, 21, INITIAL);
	both_end(1, 22, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(18);
}

/*
 * A task's end: a grandchild that ends before its parent reaches its grandparent's taskgroup
 * through its parent's end (the parent's descendants ended), not the parent's own path.
 */
Test(one_engine, a_grandchild_reaches_the_taskgroup_through_its_parents_end)
{
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	both_spawn(1, 1, 2, INITIAL);
	both_end(1, 1, INITIAL, false, TP_SYNC_TASKGROUP, TASKWAIT);
	both_start(1, 1, 2);
	both_spawn(1, 2, 3, 2);
	both_end(1, 3, 2, false, TP_SYNC_NONE, 0);
	both_start(2, 3, 3);
	both_end(2, 13, 3, true, TP_SYNC_NONE, 0);
	both_start(1, 14, 2);
	both_end(1, 15, 2, true, TP_SYNC_NONE, 0);
	both_start(1, 15, INITIAL);
	both_end(1, 20, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(17);
}

/*
 * A task that ends holding its critical section (its release lost): the next acquirer starts
 * after its end, as after a release there; not after its path up to the acquire (it did no work
 * once ended), nor after the release before (it let the object go no later than its end).
 */
Test(one_engine, an_acquire_from_a_holder_that_ended_joins_its_end)
{
	task_2_holds_the_critical_section();
	both_end(1, 5, 2, true, TP_SYNC_NONE, 0);
	both_start(2, 9, 3);
	both_acquire(2, 9, 3);
	both_release(2, 10, 3);
	both_end(2, 12, 3, true, TP_SYNC_NONE, 0);
	both_start(1, 14, INITIAL);
	both_end(1, 15, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(8);
}

/*
 * A holder switched out inside its section, whose object another task acquired meanwhile (its
 * release said late): it let the object go before that acquire, which took its path to its last
 * fragment's end; polled again it resumes from that end in no section: its fragment is its
 * task's, one fragment on the path, not split at its late release.
 */
Test(one_engine, a_holder_polled_again_after_another_acquired_resumes_outside_its_section)
{
	task_3_takes_the_section_from_task_2_switched_out();
	both_end(1, 30, 2, true, TP_SYNC_NONE, 0);
	both_start(1, 31, INITIAL);
	both_end(1, 32, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(23);
}

/*
 * A critical section acquired 3 ms into the poll that ended its wait: the poll is split at the
 * acquire, its part before it its task's on the path (no fragment of its own: the poll's
 * fragments are its section and the rest), the section the critical construct's.
 */
Test(one_engine, an_acquire_inside_a_poll_splits_it_the_part_before_is_its_tasks)
{
	task_2_enters_the_critical_section_at(6);
	both_release(1, 8, 2);
	both_end(1, 20, 2, true, TP_SYNC_NONE, 0);
	both_start(2, 21, 3);
	both_acquire(2, 21, 3);
	both_release(2, 22, 3);
	both_end(2, 23, 3, true, TP_SYNC_NONE, 0);
	both_start(1, 24, INITIAL);
	both_end(1, 25, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(20);
}

/*
 * The opening of the streams of acquires into a poll: after two_children_waited, tasks 2 and 3
 * start on threads 1 and 2 at 1 ms and both wait at 2 to enter the critical section (a wait at
 * `wait_site`); task 3, polled again at 2, enters it, and task 2 is polled again on thread 1 at
 * `polled_ms`.
 */
static void task_3_enters_and_task_2_is_polled_at(uint64_t wait_site, uint64_t polled_ms)
{
	two_children_waited();
	both_start(1, 1, 2);
	both_start(2, 1, 3);
	both_end(1, 2, 2, false, TP_SYNC_MUTEX, wait_site);
	both_end(2, 2, 3, false, TP_SYNC_MUTEX, wait_site);
	both_start(2, 2, 3);
	both_acquire(2, 2, 3);
	both_start(1, polled_ms, 2);
}

/*
 * An acquire well into a poll: task 2 computes 5 ms (2 to 7) before it enters the critical
 * section that task 3 released at 4, both after a wait at `wait_site`. The section can start
 * once both happened: the path to its start is the longer of task 2's start and its part before
 * the acquire (2 + 5 = 7) and task 3's release (4), not task 2's start joined with the release
 * and its part added after (4 + 5 = 9: a span longer than the run, 11 ms).
 */
static void task_2_acquires_5_ms_into_its_poll(uint64_t wait_site)
{
	task_3_enters_and_task_2_is_polled_at(wait_site, 2);
	both_release(2, 4, 3);
	both_end(2, 5, 3, true, TP_SYNC_NONE, 0);
	both_acquire(1, 7, 2);
	both_release(1, 9, 2);
	both_end(1, 10, 2, true, TP_SYNC_NONE, 0);
	both_start(1, 10, INITIAL);
	both_end(1, 11, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(11);
}

Test(one_engine, an_acquire_well_into_a_poll_joins_the_release_after_its_part_before)
{
	task_2_acquires_5_ms_into_its_poll(CRITICAL);
}

/* The same section entered after a wait at no site (it goes on in its task's row, one fragment
 * with the poll): the release joins after the part before the acquire all the same. */
Test(one_engine, an_acquire_well_into_a_poll_of_a_section_whose_wait_has_no_site)
{
	task_2_acquires_5_ms_into_its_poll(0);
}

/*
 * A fragment of no time without a site (its events at one moment: a clock coarser than they are
 * apart, or any after the process's exit began, which all happen at its start): the initial task
 * spawns its child as it starts. Its fragment is on the span, in row 0 (TP_LIVE_NO_SITE), a
 * fragment of 0 ns there; a site after it on the path takes a place of its own, and the initial
 * task's next fragment adds to that one.
 */
Test(one_engine, a_fragment_of_no_time_without_a_site_keeps_its_place_on_the_path)
{
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	both_spawn(1, 0, 2, INITIAL);
	both_end(1, 0, INITIAL, false, TP_SYNC_TASKWAIT, TASKWAIT);
	both_start(1, 0, 2);
	both_end(1, 5, 2, true, TP_SYNC_NONE, 0);
	both_start(1, 5, INITIAL);
	both_end(1, 6, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(6);
}

/*
 * Two sections in one poll: task 3's second acquire, 2 ms after its first section's release (the
 * part after a split, begun there: no delay of its own), joins task 2's release at 6 after that
 * part (4 + 2 = 6), as task 2's acquire 2 ms into its poll joined task 3's first release (4)
 * after its own part (2 + 2 = 4).
 */
Test(one_engine, a_second_section_in_a_poll_joins_the_release_after_the_part_between)
{
	task_3_enters_and_task_2_is_polled_at(CRITICAL, 3);
	both_release(2, 4, 3);
	both_acquire(1, 5, 2);
	both_release(1, 6, 2);
	both_acquire(2, 6, 3);
	both_release(2, 7, 3);
	both_end(2, 8, 3, true, TP_SYNC_NONE, 0);
	both_end(1, 10, 2, true, TP_SYNC_NONE, 0);
	both_start(1, 10, INITIAL);
	both_end(1, 11, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(10);
}

/*
 * The known graphs (issue 37: chain, flat, tree, wavefront; regions in a row and serialised
 * sections are test_pop_conv.c's), each in both engines with its work and span. Each opens with
 * the initial task's first millisecond on thread 1 and its spawns at 1.
 */
static void initial_task_spawns(uint64_t first, uint64_t last)
{
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	for (uint64_t task = first; task <= last; task++)
		both_spawn(1, 1, task, INITIAL);
}

/* A task's poll from `from_ms` to `to_ms` on `tid`, to its end. */
struct whole_poll {
	uint32_t tid;
	uint64_t task, from_ms, to_ms;
};

static void runs(uint32_t tid, uint64_t task, uint64_t from_ms, uint64_t to_ms)
{
	both_start(tid, from_ms, task);
	both_end(tid, to_ms, task, true, TP_SYNC_NONE, 0);
}

/* The `n` polls `polls`, in their order. */
static void run_all(const struct whole_poll *polls, size_t n)
{
	for (size_t i = 0; i < n; i++)
		runs(polls[i].tid, polls[i].task, polls[i].from_ms, polls[i].to_ms);
}

/* The initial task, back from its taskwait at `ms` on thread 1, ends a millisecond later. */
static void initial_task_ends_after(uint64_t ms)
{
	both_start(1, ms, INITIAL);
	both_end(1, ms + 1, INITIAL, true, TP_SYNC_NONE, 0);
}

/*
 * Flat: eight independent tasks of 5 ms, four on each thread, waited for: work 1 + 40 + 1, span
 * one task between the initial task's two milliseconds: 7.
 */
Test(one_engine, flat_eight_tasks_have_the_span_of_one)
{
	initial_task_spawns(2, 9);
	both_end(1, 1, INITIAL, false, TP_SYNC_TASKWAIT, TASKWAIT);
	for (uint64_t i = 0; i < 4; i++) {
		runs(1, 2 + 2 * i, 1 + 5 * i, 6 + 5 * i);
		runs(2, 3 + 2 * i, 1 + 5 * i, 6 + 5 * i);
	}
	initial_task_ends_after(21);
	expect_known_graph(42, 7);
}

/*
 * A fork-join tree: the initial task's two children (tasks 2 and 3) each compute 1 ms, spawn two
 * leaves and wait for them, then compute 1 ms more; the leaves take 4 and 1 ms (task 2's), 3 and
 * 2 (task 3's). Work 2 + 2 + 2 + 10 = 16; span the root-to-leaf path through the 4 ms leaf:
 * 1 + 1 + 4 + 1 + 1 = 8.
 */
Test(one_engine, a_fork_join_tree_has_its_longest_root_to_leaf_path)
{
	initial_task_spawns(2, 3);
	both_end(1, 1, INITIAL, false, TP_SYNC_TASKWAIT, TASKWAIT);
	for (uint32_t tid = 1; tid <= 2; tid++) {
		uint64_t task = tid + 1, leaf = 2 * tid + 2;
		both_start(tid, 1, task);
		both_spawn(tid, 2, leaf, task);
		both_spawn(tid, 2, leaf + 1, task);
		both_end(tid, 2, task, false, TP_SYNC_TASKWAIT, TASKWAIT);
	}
	static const struct whole_poll polls[] = {
		{1, 4, 2, 6}, {2, 6, 2, 5}, {2, 7, 5, 7}, {1, 5, 6, 7}, {1, 2, 7, 8}, {2, 3, 7, 8},
	};
	run_all(polls, sizeof polls / sizeof *polls);
	initial_task_ends_after(8);
	expect_known_graph(16, 8);
}

/*
 * A wavefront: a 3 x 3 grid of tasks of 2 ms, (i, j) after (i - 1, j) and (i, j - 1), on two
 * threads as they become ready. Work 1 + 18 + 1; span the five tasks of a diagonal path between
 * the initial task's two milliseconds: 12, though the run takes 14.
 */
Test(one_engine, a_wavefront_has_the_span_of_its_diagonal)
{
	initial_task_spawns(2, 10);
	for (uint64_t i = 0; i < 3; i++)
		for (uint64_t j = 0; j < 3; j++) {
			uint64_t cell = 2 + 3 * i + j;
			if (i > 0)
				both_dependence(1, 1, cell - 3, cell);
			if (j > 0)
				both_dependence(1, 1, cell - 1, cell);
		}
	both_end(1, 1, INITIAL, false, TP_SYNC_TASKWAIT, TASKWAIT);
	static const struct whole_poll polls[] = {
		{1, 2, 1, 3}, {1, 3, 3, 5}, {2, 5, 3, 5},  {1, 4, 5, 7},    {2, 6, 5, 7},
		{1, 8, 7, 9}, {2, 7, 7, 9}, {2, 9, 9, 11}, {1, 10, 11, 13},
	};
	run_all(polls, sizeof polls / sizeof *polls);
	initial_task_ends_after(13);
	expect_known_graph(20, 12);
}

/* The opening of the streams of sync waits: the initial task spawns task 2 and waits for it at
 * a taskwait, at 1 ms, on thread 1. */
static void initial_task_waits_for_task_2(void)
{
	both_spawn(1, 0, INITIAL, 0);
	both_start(1, 0, INITIAL);
	both_spawn(1, 1, 2, INITIAL);
	both_end(1, 1, INITIAL, false, TP_SYNC_TASKWAIT, TASKWAIT);
}

/* After initial_task_waits_for_task_2, thread 1 polls task 2, which spawns task 3 and waits for
 * it at 2 ms at a taskwait of site `site`. */
static void task_2_waits_for_task_3_at(uint64_t site)
{
	initial_task_waits_for_task_2();
	both_start(1, 1, 2);
	both_spawn(1, 2, 3, 2);
	both_end(1, 2, 2, false, TP_SYNC_TASKWAIT, site);
}

/*
 * The time threads waited at a sync site (sync_waited.h): nested taskwaits on one thread. The
 * initial task waits for task 2 at 1 ms, task 2 for task 3 at 2, task 3 runs 2 to 5; task 2 is
 * polled again at 6, ends at 7; the initial task is polled again at 9. Its thread waited 1 ms
 * (5 to 6) for task 2's taskwait and 2 ms (7 to 9) for the initial task's: 3 ms in 2 waits,
 * where the tasks' suspensions add up to 4 + 8 (the 3 ms of task 3 counted twice, the 1 ms of
 * task 2's wait twice).
 */
Test(one_engine, nested_taskwaits_on_one_thread_wait_only_outside_its_polls)
{
	task_2_waits_for_task_3_at(TASKWAIT);
	both_start(1, 2, 3);
	both_end(1, 5, 3, true, TP_SYNC_NONE, 0);
	both_start(1, 6, 2);
	both_end(1, 7, 2, true, TP_SYNC_NONE, 0);
	both_start(1, 9, INITIAL);
	both_end(1, 10, INITIAL, true, TP_SYNC_NONE, 0);
	expect_known_graph(7, 7);
	expect_waited(TASKWAIT, TP_SYNC_TASKWAIT, 3, 2);
}

/*
 * A taskwait whose thread finds nothing to run waits for its children to end elsewhere: the
 * initial task waits at 1 ms for task 2, which thread 2 runs from 1 to 6.
 */
Test(one_engine, a_taskwait_with_nothing_to_run_waits_for_its_children)
{
	initial_task_waits_for_task_2();
	both_start(2, 1, 2);
	both_end(2, 6, 2, true, TP_SYNC_NONE, 0);
	both_start(1, 6, INITIAL);
	both_end(1, 7, INITIAL, true, TP_SYNC_NONE, 0);
	expect_known_graph(7, 7);
	expect_waited(TASKWAIT, TP_SYNC_TASKWAIT, 5, 1);
}

/*
 * A task suspended on one thread and polled again on another (an untied task) leaves its entry
 * behind, out of date: task 2 waits at 2 ms (at another taskwait's site, CRITICAL's) on thread
 * 1, for task 3, which thread 2 runs from 2 to 4, then polls task 2 again at 5. Thread 1's time
 * from 2 to 8, when it polls the initial task again, is the initial task's wait alone (its
 * innermost task still suspended then): 6 ms; thread 2 waited in no site.
 */
Test(one_engine, a_task_polled_again_elsewhere_waits_no_more_on_the_thread_it_left)
{
	task_2_waits_for_task_3_at(CRITICAL);
	both_start(2, 2, 3);
	both_end(2, 4, 3, true, TP_SYNC_NONE, 0);
	both_start(2, 5, 2);
	both_end(2, 6, 2, true, TP_SYNC_NONE, 0);
	both_start(1, 8, INITIAL);
	both_end(1, 9, INITIAL, true, TP_SYNC_NONE, 0);
	expect_known_graph(6, 6);
	expect_waited(TASKWAIT, TP_SYNC_TASKWAIT, 6, 1);
	expect_waited(CRITICAL, TP_SYNC_TASKWAIT, 0, 1);
}
