// SPDX-License-Identifier: MIT
/* OpenMP programs through the OMPT adapter, under bpftrace: exactly their tasks, consistently. */
#include <criterion/criterion.h>
#include <stdbool.h>
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
	cr_expect_eq(spawned, tp_fib_tasks(12) + 2 + 1, "%zu tasks, expected %zu", spawned,
		     tp_fib_tasks(12) + 3);
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
	cr_expect_eq(spawned, tp_fib_tasks(10) + 2 + 1, "%zu tasks", spawned);
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

/* omp_phases's files (see there) in `dir`. */
static const char *const phase_files[] = {"go", "fibbed", "resume", "done"};

static void phase_file_create(const char *dir, const char *name, int phase)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.%d", dir, name, phase);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fclose(f);
}

static void phase_file_await(const char *dir, const char *name, int phase)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.%d", dir, name, phase);
	for (int waited = 0; access(path, F_OK) != 0; waited += 10) {
		cr_assert_lt(waited, 60000, "phase %d did not make %s", phase, path);
		usleep(10 * 1000);
	}
}

/* Lets omp_phases (in `dir`) run its phase `phase` through, and waits until it has. */
static void run_phase(const char *dir, int phase)
{
	phase_file_create(dir, "resume", phase);
	phase_file_create(dir, "go", phase);
	phase_file_await(dir, "done", phase);
}

/*
 * Checks the events of a tracer that attached to a running program: every task id an event
 * gives as a parent, a waker or a waiting task is one this tracer saw (a spawn, or the first
 * poll of a task older than the tracer); none is left over from an earlier traced period.
 * Returns the explicit tasks spawned.
 */
static size_t expect_no_task_from_before(const struct tp_run *run)
{
	enum { MAX_IDS = 4096 };
	static int64_t seen[MAX_IDS];
	size_t n_seen = 0, spawned = 0;
	for (size_t i = 0; i < run->n_events; i++) {
		const struct tp_event *e = &run->events[i];
		int64_t refers = 0;
		if (strcmp(e->probe, "task__spawn") == 0) {
			refers = e->arg[1];
			spawned += e->arg[4] != 0; /* a spawn stack: the program spawned it */
		} else if (strcmp(e->probe, "task__wake") == 0) {
			refers = e->arg[1];
		} else if (strcmp(e->probe, "wait__start") == 0 ||
			   strcmp(e->probe, "wait__end") == 0) {
			refers = e->arg[3];
		}
		bool known = refers == 0;
		for (size_t k = 0; k < n_seen && !known; k++)
			known = seen[k] == refers;
		cr_expect(known, "%s (event %zu) names task %lld, which this tracer never saw",
			  e->probe, i, (long long)refers);
		if ((strcmp(e->probe, "task__spawn") == 0 ||
		     strcmp(e->probe, "task__poll__start") == 0) &&
		    n_seen < MAX_IDS)
			seen[n_seen++] = e->arg[0];
	}
	return spawned;
}

/*
 * A tracer attaches, and detaches while the main thread is still in a task (its implicit task,
 * after fib); the program runs on untraced, and a second tracer attaches: the task state the
 * first period left in the threads (the current task) must not reach the second one's events,
 * and each tracer sees every task of its period.
 */
Test(openmp, a_tracer_attached_after_another_detached_sees_no_task_of_before, .timeout = 240)
{
	/*
	 * A copy of the shim: the untraced phases must be untraced, and a tracer another test
	 * attaches to the built library, system-wide, would enable its probes here (a task of
	 * phase 0 then named as a parent in phase 1).
	 */
	tp_use_shim(tp_shim_copy());
	char dir[] = "/tmp/taskprobe-test-phases-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	enum { N = 10 };
	char n[8];
	snprintf(n, sizeof n, "%d", N);
	const char *argv[] = {openmp_target("omp_phases"), dir, "4", n, NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	tp_start(TP_PRELOADED, argv, env, &run);
	run_phase(dir, 0); /* untraced */
	struct tp_attached tracer;
	tp_attach(run.pid, &tracer);
	phase_file_create(dir, "go", 1); /* traced until the tasks are done */
	phase_file_await(dir, "fibbed", 1);
	tp_detach(&tracer, &run);
	cr_expect_eq(expect_no_task_from_before(&run), tp_fib_tasks(N), "the first tracer's tasks");
	phase_file_create(dir, "resume", 1);
	phase_file_await(dir, "done", 1);
	run_phase(dir, 2); /* untraced again: what the first period held is dropped */
	tp_attach(run.pid, &tracer);
	run_phase(dir, 3); /* traced by the second */
	tp_detach(&tracer, &run);
	cr_expect_eq(expect_no_task_from_before(&run), tp_fib_tasks(N),
		     "the second tracer's tasks");
	tp_finish(&run);
	cr_expect_eq(run.status, 0);
	char expected[256] = "";
	for (int phase = 0; phase < 4; phase++)
		snprintf(expected + strlen(expected), sizeof expected - strlen(expected),
			 "phase %d: fib(%d) = 55\n", phase, N);
	cr_expect_str_eq(run.out, expected);
	for (int phase = 0; phase < 4; phase++)
		for (size_t f = 0; f < sizeof phase_files / sizeof phase_files[0]; f++) {
			char path[4200];
			snprintf(path, sizeof path, "%s/%s.%d", dir, phase_files[f], phase);
			unlink(path);
		}
	rmdir(dir);
	tp_run_free(&run);
	tp_use_shim(NULL);
}

/*
 * Mutual exclusion: each critical, ordered and lock section its task waits for (a poll ended in
 * sync 4, mutex, at the construct's site), holds (task-acquire) and lets go (task-release), in
 * that order on its thread; a nested lock's inner set ends no hold; a test that succeeds holds
 * without waiting. omp_control_tool marks the region of interest, and the program gets what it
 * gets without taskprobe.
 */
Test(openmp, mutual_exclusion_waits_holds_and_releases_and_the_region_of_interest, .timeout = 180)
{
	struct tp_run run;
	run_openmp(openmp_target("omp_exclusion"), NULL, NULL, &run);
	cr_expect_str_eq(run.out, "threads 2 sum 190 ordered 14757 locked 12 control -2 -2\n");
	size_t by_kind[5] = {0}, released[5] = {0}, waits = 0, sited = 0;
	for (size_t i = 0; i < run.n_events; i++) {
		const struct tp_event *e = &run.events[i];
		if (strcmp(e->probe, "task__poll__end") == 0 && e->arg[2] == 4) {
			waits++;
			sited += e->arg[3] != 0;
			/* the next event of its thread: the poll of the same task, then its hold */
			const struct tp_event *next = NULL, *hold = NULL;
			for (size_t j = i + 1; j < run.n_events && hold == NULL; j++)
				if (run.events[j].tid == e->tid) {
					if (next == NULL)
						next = &run.events[j];
					else
						hold = &run.events[j];
				}
			cr_assert(next != NULL && hold != NULL);
			cr_expect_str_eq(next->probe, "task__poll__start");
			cr_expect_eq(next->arg[0], e->arg[0]);
			if (strcmp(hold->probe, "task__acquire") == 0)
				cr_expect_eq(hold->arg[0], e->arg[0]);
		} else if (strcmp(e->probe, "task__acquire") == 0 && e->arg[1] >= 1 &&
			   e->arg[1] <= 4) {
			by_kind[e->arg[1]]++;
		} else if (strcmp(e->probe, "task__release") == 0 && e->arg[1] >= 1 &&
			   e->arg[1] <= 4) {
			released[e->arg[1]]++;
		}
	}
	cr_expect_eq(by_kind[1], 20, "critical: %zu", by_kind[1]);
	cr_expect_eq(by_kind[2], 10, "ordered: %zu", by_kind[2]);
	cr_expect_eq(by_kind[3], 11, "locks (a test that succeeded too): %zu", by_kind[3]);
	cr_expect_eq(by_kind[4], 1, "the nested lock's outermost hold: %zu", by_kind[4]);
	for (int k = 1; k <= 4; k++)
		cr_expect_eq(released[k], by_kind[k], "kind %d: %zu released", k, released[k]);
	/* every set waits: 20 + 10 + 10 + the nested lock's two sets, and the test (libomp
	 * reports it as an acquire) */
	cr_expect_eq(waits, 43, "%zu mutex waits", waits);
	cr_expect_eq(sited, waits, "%zu of %zu waits with their construct's site", sited, waits);
	cr_expect_eq(tp_count(&run, "region__of__interest", 0), 2);
	const struct tp_event *start = tp_nth(&run, "region__of__interest", 0, 0);
	const struct tp_event *stop = tp_nth(&run, "region__of__interest", 0, 1);
	cr_expect(start != NULL && start->arg[0] == 1 && stop != NULL && stop->arg[0] == 0);
	tp_run_free(&run);
}

/*
 * A task waiting at its taskgroup's end while its thread runs the group's tasks is not polled
 * between them: its poll ends once (sync taskgroup) and starts once, when the wait ends. libomp
 * gives the wait a copy of the task's data, which the adapter must not take for the task's.
 */
Test(openmp, a_taskgroup_wait_that_runs_its_tasks_is_one_wait, .timeout = 180)
{
	const char *argv[] = {openmp_target("omp_taskgroup_wait"), NULL};
	struct tp_run run;
	tp_run_both(argv, NULL, &run);
	cr_expect_eq(run.status, 0);
	cr_expect_str_eq(run.out, "sum 21\n");
	uint64_t waiting = 0;
	size_t waits = 0, switched = 0, tasks_run = 0;
	for (size_t i = 0; i < run.n_events; i++) {
		const struct tp_event *e = &run.events[i];
		if (strcmp(e->probe, "task__poll__end") != 0)
			continue;
		if (e->arg[2] == 3) {
			waiting = (uint64_t)e->arg[0];
			waits++;
		} else if (waiting != 0 && (uint64_t)e->arg[0] == waiting && e->arg[1] == 0 &&
			   e->arg[2] == 0) {
			switched++; /* polled again between the group's tasks */
		} else if (waiting != 0 && e->arg[1] == 1) {
			tasks_run++;
		}
	}
	cr_expect_eq(waits, 1, "%zu taskgroup waits", waits);
	cr_expect_geq(tasks_run, 6, "%zu tasks ended after the wait began", tasks_run);
	cr_expect_eq(switched, 0, "the waiting task polled and switched out %zu times in its wait",
		     switched);
	tp_run_free(&run);
}

/*
 * The program's own threads that run a parallel region (omp_root_threads: four, one after
 * another, each a region of one thread spawning two tasks): libomp ends each one's initial task
 * in the thread's thread-specific data's destructors, after its start routine. Its thread-stop
 * came before that end, and every consumer lost it (the recording said "12 events were not
 * recorded"; 20,000 such threads filled the live statistics with initial tasks alive): each
 * thread's four tasks (initial, implicit, two explicit) now terminate on it before its stop.
 */
Test(openmp, a_root_threads_initial_task_ends_before_its_thread_stops, .timeout = 180)
{
	struct tp_run run;
	run_openmp(openmp_target("omp_root_threads"), "4", NULL, &run);
	cr_expect_str_eq(run.out, "8 tasks run\n");
	unsigned roots = 0;
	for (size_t i = 0; i < tp_count(&run, "thread__start", 0); i++) {
		uint64_t tid = tp_nth(&run, "thread__start", 0, i)->tid;
		size_t ended = tp_count(&run, "task__terminate", tid);
		if (ended == 0)
			continue;
		roots++;
		cr_expect_eq(ended, 4, "thread %llu: %zu tasks terminated", (unsigned long long)tid,
			     ended);
		cr_assert_eq(tp_count(&run, "thread__stop", tid), 1);
		cr_expect_lt(tp_nth(&run, "task__terminate", tid, ended - 1)->nsecs,
			     tp_nth(&run, "thread__stop", tid, 0)->nsecs,
			     "thread %llu's last task ended after its thread-stop",
			     (unsigned long long)tid);
	}
	cr_expect_eq(roots, 4);
	tp_run_free(&run);
}

/* The same without root: the exit report has no task left alive, the recording lost nothing. */
Test(openmp, a_root_threads_initial_task_is_recorded_and_reported_ended, .timeout = 180)
{
	const char *argv[] = {openmp_target("omp_root_threads"), "4", NULL};
	char dir[] = "/tmp/taskprobe-roots-XXXXXX", record[80], analyze[160];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(record, sizeof record, "TASKPROBE_RECORD=%s/rec", dir);
	struct tp_run run;
	tp_use_private_shim();
	tp_run(TP_PRELOADED, argv, (const char *[]){record, "TASKPROBE_REPORT=stderr", NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_null(strstr(run.err, "never terminated"), "%s", run.err);
	cr_expect_null(strstr(run.err, "not recorded"), "%s", run.err);
	tp_run_free(&run);
	snprintf(analyze, sizeof analyze, "%s/rec", dir);
	tp_run(TP_PLAIN, (const char *[]){TP_TIMELINE, "--analyze", analyze, NULL}, NULL, &run);
	cr_expect(strstr(run.out, ": 16 tasks ended, on 4 threads") != NULL, "%s%s", run.out,
		  run.err);
	tp_run_free(&run);
	unlink(analyze);
	rmdir(dir);
}
