// SPDX-License-Identifier: MIT
/* The park rule for programs with no adapter: threads named as TASKPROBE_WORKERS says. */
#include <criterion/criterion.h>
#include <string.h>

#include "harness.h"

#define ROUNDS 5

/*
 * One thread's worker life as letters, in order: S worker-thread-start, P park, W wait-start,
 * U unpark, E worker-thread-stop, T thread-stop.
 */
static void worker_life(const struct tp_run *run, uint64_t tid, char *life, size_t size)
{
	static const struct {
		const char *probe;
		char letter;
	} letters[] = {{"worker__thread__start", 'S'}, {"worker__thread__park", 'P'},
		       {"wait__start", 'W'},           {"worker__thread__unpark", 'U'},
		       {"worker__thread__stop", 'E'},  {"thread__stop", 'T'}};
	size_t n = 0;
	for (size_t i = 0; i < run->n_events && n + 1 < size; i++)
		for (size_t l = 0; l < sizeof letters / sizeof letters[0]; l++)
			if (run->events[i].tid == tid &&
			    strcmp(run->events[i].probe, letters[l].probe) == 0)
				life[n++] = letters[l].letter;
	life[n] = '\0';
}

/* The tid of the thread that started in `routine` of the (non-PIE) target. */
static uint64_t thread_of(const struct tp_run *run, const char *target, const char *routine)
{
	uint64_t address = tp_symbol_address(target, routine);
	for (size_t j = 0; j < tp_count(run, "thread__start", 0); j++)
		if ((uint64_t)tp_nth(run, "thread__start", 0, j)->arg[1] == address)
			return (uint64_t)tp_nth(run, "thread__start", 0, j)->arg[0];
	cr_assert_fail("no thread-start for %s", routine);
	return 0;
}

Test(workers, named_workers_park_around_each_wait_and_others_do_not, .timeout = 180)
{
	TP_NOT_UNDER(TP_ASAN, TP_START_ROUTINES_UNDER_ASAN);
	const char *argv[] = {tp_target("named_workers"), NULL};
	const char *env[] = {"TASKPROBE_WORKERS=pool-*", NULL};
	struct tp_run run;
	tp_run_both(argv, env, &run);

	tp_assert_threads_paired(&run, 3);
	tp_assert_waits_paired(&run);
	/* workers from their first wait to their end; each of the five waits parked */
	const char *names[] = {"pool_1", "pool_2", "other"};
	const char *lives[] = {"SPWUPWUPWUPWUPWUET", "SPWUPWUPWUPWUPWUET", "WWWWWT"};
	for (size_t i = 0; i < 3; i++) {
		char life[64];
		worker_life(&run, thread_of(&run, argv[0], names[i]), life, sizeof life);
		cr_expect_str_eq(life, lives[i], "%s", names[i]);
	}
	char main_life[64];
	worker_life(&run, (uint64_t)run.pid, main_life, sizeof main_life);
	cr_expect_str_eq(main_life, "", "the main thread is no worker");
	tp_run_free(&run);
}

Test(workers, a_worker_renamed_away_stops_being_one_at_its_next_wait, .timeout = 180)
{
	TP_NOT_UNDER(TP_ASAN, TP_START_ROUTINES_UNDER_ASAN);
	const char *argv[] = {tp_target("named_workers"), "retire", NULL};
	const char *env[] = {"TASKPROBE_WORKERS=pool-*", NULL};
	struct tp_run run;
	tp_run_both(argv, env, &run);
	cr_expect_str_eq(run.out, "5 rounds on 4 threads\n");
	tp_assert_threads_paired(&run, 4);
	tp_assert_waits_paired(&run);
	char life[64];
	worker_life(&run, thread_of(&run, argv[0], "retiring"), life, sizeof life);
	cr_expect_str_eq(life, "SPWUPWUEWWWT", "two waits as pool-3, three as retired");
	tp_run_free(&run);
}

Test(workers, no_thread_parks_without_the_setting, .timeout = 180)
{
	const char *argv[] = {tp_target("named_workers"), NULL};
	struct tp_run run;
	tp_run(TP_TRACED, argv, NULL, &run);
	cr_expect_eq(run.status, 0);
	cr_expect_eq(tp_count(&run, "wait__start", 0), 3 * ROUNDS);
	cr_expect_eq(tp_count(&run, "worker__thread__park", 0), 0);
	tp_run_free(&run);
}

/*
 * A worker parked when the process exits never returns to unpark: its park ends with the
 * thread-stop the exiting thread fires with its tid, and no unpark fires on any thread (the
 * exiting thread's would be its own). The contract's check (tp_run_both) holds to that.
 */
Test(workers, a_worker_parked_at_exit_ends_its_park_with_its_thread_stop, .timeout = 180)
{
	TP_NOT_UNDER(TP_ASAN, TP_START_ROUTINES_UNDER_ASAN);
	const char *argv[] = {tp_target("parked_at_exit"), NULL};
	const char *env[] = {"TASKPROBE_WORKERS=pool-*", NULL};
	struct tp_run run;
	tp_run_both(argv, env, &run);
	cr_expect_str_eq(run.out, "exiting\n");
	uint64_t worker = thread_of(&run, argv[0], "idle_worker");
	char life[64];
	worker_life(&run, worker, life, sizeof life);
	cr_expect_str_eq(life, "SPW", "its own events: a worker, parked in its wait");
	cr_expect_eq(tp_count(&run, "worker__thread__unpark", 0), 0, "an unpark fired");
	size_t stops = 0;
	for (size_t i = 0; i < tp_count(&run, "thread__stop", 0); i++) {
		const struct tp_event *e = tp_nth(&run, "thread__stop", 0, i);
		if ((uint64_t)e->arg[0] == worker) {
			stops++;
			cr_expect_eq(e->tid, (uint64_t)run.pid, "fired by the exiting thread");
		}
	}
	cr_expect_eq(stops, 1, "the worker's thread-stop");
	tp_run_free(&run);
}
