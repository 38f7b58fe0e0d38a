/*
 * The shim inside programs that do unusual things: signal handlers that interrupt waits and
 * wait themselves. Output and exit status must be the same plainly, preloaded and traced.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* Runs argv plainly, preloaded and traced; returns the traced run. */
static void expect_unchanged(const char *const argv[], struct tp_run *traced)
{
	struct tp_run preloaded;
	tp_run(TP_PRELOADED, argv, NULL, &preloaded);
	tp_run_both(argv, NULL, traced);
	cr_expect_eq(preloaded.status, traced->status);
	cr_expect_str_eq(preloaded.out, traced->out);
	tp_run_free(&preloaded);
}

Test(hardening, a_signal_interrupting_a_wait_keeps_eintr_and_sa_restart_semantics, .timeout = 120)
{
	const char *modes[] = {"restart", "norestart"};
	const char *expected[] = {
		"sem_wait               result 0 errno -\n"
		"futex wait             result -1 errno EAGAIN\n"
		"poll                   result -1 errno EINTR\n"
		"epoll_wait             result -1 errno EINTR\n",
		"sem_wait               result -1 errno EINTR\n"
		"futex wait             result -1 errno EINTR\n"
		"poll                   result -1 errno EINTR\n"
		"epoll_wait             result -1 errno EINTR\n",
	};
	for (size_t i = 0; i < 2; i++) {
		const char *argv[] = {tp_target("signal_waits"), modes[i], NULL};
		struct tp_run run;
		expect_unchanged(argv, &run);
		cr_expect_eq(run.status, 0);
		cr_expect(strncmp(run.out, expected[i], strlen(expected[i])) == 0, "%s:\n%s", modes[i], run.out);
		cr_expect(strstr(run.out, "handler waits returned at once\n") != NULL, "%s", run.out);
		tp_assert_waits_paired(&run);
		tp_run_free(&run);
	}
}
