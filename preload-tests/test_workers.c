/* The park rule for programs with no adapter: threads named as TASKPROBE_WORKERS says. */
#include <criterion/criterion.h>

#include "harness.h"

#define ROUNDS 5

Test(workers, named_workers_park_around_each_wait_and_others_do_not, .timeout = 180)
{
	const char *argv[] = {tp_target("named_workers"), NULL};
	const char *env[] = {"TASKPROBE_WORKERS=pool-*", NULL};
	struct tp_run run;
	tp_run_both(argv, env, &run);

	tp_assert_threads_paired(&run, 3);
	tp_assert_waits_paired(&run);
	const char *names[] = {"pool_1", "pool_2", "other"};
	for (size_t i = 0; i < 3; i++) {
		uint64_t routine = tp_symbol_address(argv[0], names[i]), tid = 0;
		for (size_t j = 0; j < 3; j++)
			if ((uint64_t)tp_nth(&run, "thread__start", 0, j)->arg[1] == routine)
				tid = (uint64_t)tp_nth(&run, "thread__start", 0, j)->arg[0];
		cr_assert_neq(tid, 0, "no thread-start for %s", names[i]);
		size_t parks = i < 2 ? ROUNDS : 0;
		cr_expect_eq(tp_count(&run, "wait__start", tid), ROUNDS, "%s waits", names[i]);
		cr_expect_eq(tp_count(&run, "worker__thread__park", tid), parks, "%s parks", names[i]);
		cr_expect_eq(tp_count(&run, "worker__thread__unpark", tid), parks, "%s unparks",
			     names[i]);
	}
	cr_expect_eq(tp_count(&run, "worker__thread__park", (uint64_t)run.pid), 0,
		     "the main thread is no worker");
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
