// SPDX-License-Identifier: MIT
/* OpenMP programs through the OMPT adapter, under bpftrace: exactly their tasks, consistently. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* An OpenMP target, built only where clang and libomp are. */
static const char *openmp_target(const char *name)
{
	return tp_require_program(tp_target(name), "clang and libomp-dev");
}

/* Explicit tasks of fib(n) with a task per recursive call. */
static size_t fib_tasks(int n)
{
	return n < 2 ? 0 : 2 + fib_tasks(n - 1) + fib_tasks(n - 2);
}

/* Runs `target` with two threads and checks every invariant; returns the run. */
static void run_openmp(const char *target, const char *arg, const char *preload, struct tp_run *run)
{
	const char *argv[] = {target, arg, NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", preload, NULL};
	tp_run_both(argv, env, run);
	cr_expect_eq(run->status, 0);
	tp_assert_waits_paired(run);
	tp_assert_threads_paired(run, -1);
}

TP_SUITE_NOT_UNDER(openmp, TP_TSAN, TP_OPENMP_UNDER_TSAN);

Test(openmp, recursive_tasks_with_taskwait_are_exactly_the_programs_tasks, .timeout = 180)
{
	struct tp_run run;
	run_openmp(openmp_target("omp_fib"), "12", NULL, &run);
	cr_expect_str_eq(run.out, "fib(12) = 144\n");
	/* explicit tasks, 2 implicit tasks (one per thread), the initial task */
	size_t spawned = tp_assert_tasks_consistent(&run, 2);
	cr_expect_eq(spawned, fib_tasks(12) + 2 + 1, "%zu tasks, expected %zu", spawned,
		     fib_tasks(12) + 3);
	cr_expect_gt(tp_count(&run, "worker__thread__park", 0), 0, "idle workers park");
	tp_run_free(&run);
}

Test(openmp, taskgroup_taskloop_depend_undeferred_final_and_untied_tasks, .timeout = 180)
{
	struct tp_run run;
	run_openmp(openmp_target("omp_constructs"), NULL, NULL, &run);
	/* 4 (taskgroup) + 4 (taskloop num_tasks(4)) + 3 (depend) + 1 (if(0)) + 2 (final) +
	 * 2 (untied) explicit tasks; 4 parallel regions of 2 implicit tasks; the initial task. */
	size_t spawned = tp_assert_tasks_consistent(&run, 2);
	cr_expect_eq(spawned, 16 + 4 * 2 + 1, "%zu tasks", spawned);
	tp_run_free(&run);
}

Test(openmp, nested_parallel_regions, .timeout = 180)
{
	struct tp_run run;
	run_openmp(openmp_target("omp_nested"), NULL, NULL, &run);
	/* 4 explicit tasks, 2 + 2 * 2 implicit tasks, the initial task; the two inner teams
	 * need 2 more threads than the outer one: 4 workers. */
	size_t spawned = tp_assert_tasks_consistent(&run, 4);
	cr_expect_eq(spawned, 4 + 6 + 1, "%zu tasks", spawned);
	tp_run_free(&run);
}

Test(openmp, gcc_built_program_on_preloaded_libomp, .timeout = 180)
{
	if (strlen(TP_LIBOMP_PATH) == 0)
		cr_skip_test("libomp.so.5 not found at build time");
	char preload[4200];
	snprintf(preload, sizeof preload, "LD_PRELOAD=%s", TP_LIBOMP_PATH);
	struct tp_run run;
	run_openmp(openmp_target("omp_fib_gcc"), "10", preload, &run);
	cr_expect_str_eq(run.out, "fib(10) = 55\n");
	size_t spawned = tp_assert_tasks_consistent(&run, 2);
	cr_expect_eq(spawned, fib_tasks(10) + 2 + 1, "%zu tasks", spawned);
	tp_run_free(&run);
}

Test(openmp, a_users_ompt_tool_keeps_working_and_the_reason_is_said, .timeout = 180)
{
	const char *argv[] = {openmp_target("omp_fib"), "6", NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", "OMP_TOOL_LIBRARIES=/nonexistent/libtool.so",
			     NULL};
	struct tp_run run;
	tp_run(TP_TRACED, argv, env, &run);
	cr_expect_str_eq(run.out, "fib(6) = 8\n");
	cr_expect(strstr(run.err, "taskprobe: OMP_TOOL_LIBRARIES") != NULL, "%s", run.err);
	cr_expect_eq(tp_count(&run, "task__spawn", 0), 0);
	cr_expect_gt(tp_count(&run, "thread__start", 0), 0, "threads are still traced");
	tp_run_free(&run);
}

Test(openmp, a_task_blocking_its_worker_is_named_by_the_wait, .timeout = 180)
{
	struct tp_run run;
	run_openmp(openmp_target("omp_blocking"), NULL, NULL, &run);
	cr_expect_str_eq(run.out, "posted\n");
	tp_assert_tasks_consistent(&run, 2);

	/* The only semaphore wait is made by the explicit task, inside its poll, unparked. */
	const struct tp_event *wait = NULL;
	for (size_t i = 0; i < tp_count(&run, "wait__start", 0); i++)
		if (tp_nth(&run, "wait__start", 0, i)->arg[0] == 3) {
			cr_assert_null(wait, "more than one semaphore wait");
			wait = tp_nth(&run, "wait__start", 0, i);
		}
	cr_assert_not_null(wait, "no semaphore wait");
	int64_t task = wait->arg[3];
	cr_assert_neq(task, 0, "the wait names no task");
	const struct tp_event *polled = NULL;
	bool parked = false;
	for (size_t i = 0; i < run.n_events && &run.events[i] != wait; i++) {
		const struct tp_event *e = &run.events[i];
		if (e->tid != wait->tid)
			continue;
		if (strcmp(e->probe, "task__poll__start") == 0)
			polled = e;
		else if (strcmp(e->probe, "task__poll__end") == 0)
			polled = NULL;
		else if (strcmp(e->probe, "worker__thread__park") == 0)
			parked = true;
		else if (strcmp(e->probe, "worker__thread__unpark") == 0)
			parked = false;
	}
	cr_assert_not_null(polled, "the wait is outside any poll");
	cr_expect_eq(polled->arg[0], task, "the wait names task %lld, the thread polls %lld",
		     (long long)task, (long long)polled->arg[0]);
	cr_expect(!parked, "a task blocking its worker is no idle worker");
	/* It is an explicit task: its parent is a task too (the implicit task of the single). */
	for (size_t i = 0; i < tp_count(&run, "task__spawn", 0); i++) {
		const struct tp_event *s = tp_nth(&run, "task__spawn", 0, i);
		if (s->arg[0] == task)
			cr_expect_neq(s->arg[1], 0, "the blocking task has no parent");
	}
	tp_run_free(&run);
}
