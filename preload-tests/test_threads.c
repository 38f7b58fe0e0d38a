// SPDX-License-Identifier: MIT
/* thread-start and thread-stop from the pthread_create interposition, under bpftrace. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

Test(threads, n_threads_give_n_paired_starts_and_stops_with_routine_and_creator, .timeout = 180)
{
	TP_NOT_UNDER(TP_ASAN, TP_START_ROUTINES_UNDER_ASAN);
	const char *argv[] = {tp_target("threads"), "8", NULL};
	struct tp_run run;
	tp_run_both(argv, NULL, &run);

	tp_assert_threads_paired(&run, 8);
	uint64_t routine = tp_symbol_address(argv[0], "sum_range");
	for (size_t i = 0; i < 8; i++) {
		const struct tp_event *s = tp_nth(&run, "thread__start", 0, i);
		cr_expect_eq((uint64_t)s->arg[1], routine,
			     "start routine %#llx, sum_range is %#llx",
			     (unsigned long long)s->arg[1], (unsigned long long)routine);
		cr_expect_eq(s->arg[2], run.pid, "creator %lld, main thread is %d",
			     (long long)s->arg[2], (int)run.pid);
	}
	tp_run_free(&run);
}

/* The start event of the thread whose routine is `routine` in the target. */
static const struct tp_event *started(const struct tp_run *run, const char *target,
				      const char *routine)
{
	uint64_t addr = tp_symbol_address(target, routine);
	for (size_t i = 0; i < tp_count(run, "thread__start", 0); i++) {
		const struct tp_event *s = tp_nth(run, "thread__start", 0, i);
		if ((uint64_t)s->arg[1] == addr)
			return s;
	}
	cr_assert_fail("no thread-start for %s", routine);
	return NULL;
}

/* The only wait of `kind` on thread `tid`: its end event (the start is checked by pairing). */
static const struct tp_event *only_wait_end(const struct tp_run *run, uint64_t tid, int64_t kind)
{
	const struct tp_event *found = NULL;
	size_t n = 0;
	for (size_t i = 0; i < tp_count(run, "wait__end", tid); i++) {
		const struct tp_event *e = tp_nth(run, "wait__end", tid, i);
		if (e->arg[0] == kind) {
			found = e;
			n++;
		}
	}
	cr_assert_eq(n, 1, "%zu waits of kind %lld on thread %llu", n, (long long)kind,
		     (unsigned long long)tid);
	return found;
}

Test(threads, return_pthread_exit_and_cancellation_each_stop_once, .timeout = 180)
{
	TP_NOT_UNDER(TP_ASAN, TP_START_ROUTINES_UNDER_ASAN);
	TP_NOT_UNDER(TP_TSAN, "a thread cancelled inside a blocking call, after which TSan misses "
			      "the thread's synchronization");
	const char *argv[] = {tp_target("thread_endings"), NULL};
	struct tp_run run;
	tp_run_both(argv, NULL, &run);
	cr_expect_eq(run.status, 3);

	tp_assert_threads_paired(&run, 5);
	tp_assert_waits_paired(&run);
	const char *routines[] = {"ends_by_return", "ends_by_exit", "ends_by_cancel",
				  "ends_detached_by_exit", "ends_detached_by_cancel"};
	for (size_t i = 0; i < 5; i++)
		started(&run, argv[0], routines[i]);

	/* Cancelled inside pthread_cond_wait: the wait ends with -ECANCELED, then the thread. */
	uint64_t c = (uint64_t)started(&run, argv[0], "ends_by_cancel")->arg[0];
	cr_expect_eq(only_wait_end(&run, c, 2)->arg[2], -125);
	cr_expect_eq(tp_count(&run, "thread__stop", c), 1, "cancelled thread stopped on itself");

	/* Cancelled inside sem_wait while detached. */
	uint64_t e = (uint64_t)started(&run, argv[0], "ends_detached_by_cancel")->arg[0];
	cr_expect_eq(only_wait_end(&run, e, 3)->arg[2], -125);
	tp_run_free(&run);
}

Test(threads, a_handler_that_longjmps_out_of_a_traced_wait_leaves_the_thread_sound, .timeout = 180)
{
	const char *argv[] = {tp_target("wait_longjmp"), NULL};
	struct tp_run run;
	tp_run_both(argv, NULL, &run);
	cr_expect_eq(run.status, 0, "the thread ended cleanly (status %d)", run.status);
	cr_expect_str_eq(run.out, "jumped out of the wait, waited again, exited with 7\n");
	tp_assert_threads_paired(&run, 1);
	tp_run_free(&run);
}

Test(threads, a_worker_that_longjmps_out_of_its_parked_wait_unparks_before_it_parks_again,
     .timeout = 120)
{
	/* the waiter is a worker: its first wait parks it; the handler jumps out of that wait; the
	 * next wait finds the park stale, closes it, and parks anew */
	const char *argv[] = {tp_target("wait_longjmp"), NULL};
	const char *env[] = {"TASKPROBE_WORKERS=pool-*", NULL};
	struct tp_run run;
	tp_run(TP_TRACED, argv, env, &run);
	cr_expect_eq(run.status, 0);
	uint64_t waiter = 0;
	for (size_t i = 0; i < tp_count(&run, "thread__start", 0); i++)
		waiter = (uint64_t)tp_nth(&run, "thread__start", 0, i)->arg[0];
	cr_assert_neq(waiter, 0);
	cr_expect_eq(tp_count(&run, "worker__thread__park", waiter), 2);
	cr_expect_eq(tp_count(&run, "worker__thread__unpark", waiter), 2);
	/* alternating, starting with park, ending unparked */
	const char *expected[] = {"worker__thread__park", "worker__thread__unpark"};
	size_t n = 0;
	for (size_t i = 0; i < run.n_events; i++) {
		const struct tp_event *e = &run.events[i];
		if (e->tid != waiter || strncmp(e->probe, "worker__thread__", 16) != 0 ||
		    strcmp(e->probe, "worker__thread__park") *
				    strcmp(e->probe, "worker__thread__unpark") !=
			    0)
			continue;
		cr_expect_str_eq(e->probe, expected[n % 2], "event %zu of the waiter", n);
		n++;
	}
	tp_run_free(&run);
}

/*
 * Threads passing a semaphore in a loop when the process exits: the exiting thread fires each
 * one's thread-stop after the wait events that thread had begun, and nothing fires on it after
 * (PROBES.md: a wait open at exit is closed by that thread-stop). Before, a wait-start fired
 * between another thread's mark and its thread-stop came after it, and never ended: in more than
 * half of the runs of eight threads on two CPUs. Three runs, each its own exit.
 */
Test(threads, threads_waiting_at_exit_fire_nothing_after_their_thread_stop, .timeout = 180)
{
	const char *argv[] = {tp_target("exit_while_waiting"), "8", "20", NULL};
	for (int attempt = 0; attempt < 3; attempt++) {
		struct tp_run run;
		tp_run(TP_TRACED, argv, NULL, &run);
		cr_expect_eq(run.status, 0);
		cr_expect_str_eq(run.out, "exiting\n");
		tp_assert_threads_paired(&run, 8);
		tp_assert_waits_paired(&run);
		for (size_t i = 0; i < run.n_events; i++) {
			const struct tp_event *stop = &run.events[i];
			if (!tp_event_is(stop, "thread__stop") ||
			    (uint64_t)stop->arg[0] == stop->tid)
				continue;
			for (size_t j = i + 1; j < run.n_events; j++)
				cr_expect(run.events[j].tid != (uint64_t)stop->arg[0],
					  "%s on thread %llu after the exit's thread-stop of it",
					  run.events[j].probe, (unsigned long long)stop->arg[0]);
		}
		tp_run_free(&run);
	}
}

/*
 * A program whose cleanup deletes keys 0 to 7, which it never made (stale: undefined, and glibc
 * deletes whatever key has the number), the shim's two among them, then makes keys of its own
 * and starts threads that set them and end: each delete answers as without the shim (EINVAL,
 * errno kept), the program's destructors get its own values, and each thread's thread-stop fires
 * once, on the thread. Before, the shim's keys were deleted (answered 0), one of the program's
 * keys took the stop's slot, the shim's record reached the program's destructor in place of its
 * value, and no thread stopped on itself. The same with C11's tss_delete, glibc's own way in.
 */
Test(threads, stale_key_deletes_leave_the_shims_keys_and_each_thread_stops_on_itself,
     .timeout = 180)
{
	TP_NOT_UNDER(
		TP_ASAN | TP_TSAN,
		"the sanitizer's runtime, preloaded with the shim only, makes keys of its own, "
		"which the program's stale deletes of numbers it never made reach");
	const char *endings = "4 threads ended, 0 failed to set a value\n"
			      "destructors: 12 got their thread's value, 0 another\n"
			      "its own key 0 deleted: 0\n"
			      "its own key 1 deleted: 0\n"
			      "its own key 2 deleted: 0\n";
	for (int tss = 0; tss <= 1; tss++) {
		const char *argv[] = {tp_target("stale_key_deletes"), "8", "4",
				      tss ? "tss" : "pthread", NULL};
		struct tp_run run;
		tp_run_all_ways(argv, NULL, &run);
		char *expected = NULL;
		FILE *f = open_memstream(&expected, &(size_t){0});
		for (int key = 0; key < 8 && !tss; key++)
			fprintf(f, "pthread_key_delete(%d): EINVAL\n", key);
		fprintf(f, "%s%s", tss ? "tss_delete of keys 0 to 7\n" : "", endings);
		fclose(f);
		cr_expect_str_eq(run.out, expected, "%s", argv[3]);
		cr_expect_eq(run.status, 0, "%s: status %d", argv[3], run.status);
		free(expected);

		tp_assert_threads_paired(&run, 4);
		for (size_t i = 0; i < tp_count(&run, "thread__start", 0); i++) {
			uint64_t tid = (uint64_t)tp_nth(&run, "thread__start", 0, i)->arg[0];
			cr_expect_eq(tp_count(&run, "thread__stop", tid), 1,
				     "%s: %zu thread-stop on thread %llu itself", argv[3],
				     tp_count(&run, "thread__stop", tid), (unsigned long long)tid);
		}
		tp_run_free(&run);
	}
}
