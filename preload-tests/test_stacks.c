// SPDX-License-Identifier: MIT
/*
 * Spawn stacks under real bpftrace, in a target built without frame pointers: the right
 * functions in order, one id per call path, the depth and off settings, no unwinding while no
 * tracer is attached, and the exit report of unfinished tasks.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "taskprobe_live.h" /* TP_LIVE_STACK_SAMPLE_* */

/* An OpenMP target, built only where clang and libomp are. */
static const char *stacks_target(const char *name)
{
	return tp_require_program(tp_target(name), "clang and libomp-dev");
}

/*
 * The task-stack events (the spawns whose stack was captured: explicit tasks), each checked to
 * follow its task's task-spawn with the same stack id; at most `max`.
 */
static size_t program_spawns(const struct tp_run *run, const struct tp_event **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < tp_count(run, "task__stack", 0); i++) {
		const struct tp_event *e = tp_nth(run, "task__stack", 0, i);
		const struct tp_event *spawn = NULL;
		for (const struct tp_event *b = e; spawn == NULL && b-- > run->events;)
			if (strcmp(b->probe, "task__spawn") == 0 && b->arg[0] == e->arg[0])
				spawn = b;
		cr_assert_not_null(spawn, "task-stack of task %lld without a task-spawn before it",
				   (long long)e->arg[0]);
		cr_expect_eq(spawn->arg[4], e->arg[1],
			     "task-spawn and task-stack give one stack id");
		if (n < max)
			out[n++] = e;
	}
	return n;
}

TP_SUITE_NOT_UNDER(stacks, TP_TSAN, TP_OPENMP_UNDER_TSAN);

Test(stacks, spawn_stacks_name_the_spawning_functions_in_order_one_id_per_path, .timeout = 180)
{
	const char *argv[] = {stacks_target("omp_spawn_sites"), NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	tp_run_both(argv, env, &run);
	cr_expect_str_eq(run.out, "counter 35\n");

	const struct tp_event *spawns[16];
	cr_assert_eq(program_spawns(&run, spawns, 16), 8, "8 tasks spawned by the program");
	int64_t alpha = 0, beta = 0;
	size_t n_alpha = 0, n_beta = 0;
	for (size_t i = 0; i < 8; i++) {
		const struct tp_event *e = spawns[i];
		cr_expect_neq(e->arg[1], 0, "a captured stack has an id");
		cr_expect_neq(e->arg[2], 0, "a captured stack has frames");
		cr_expect_leq(e->arg[3], 32, "depth %lld over TASKPROBE_STACK_DEPTH's default",
			      (long long)e->arg[3]);
		cr_assert_geq(e->arg[3], 3);
		char *f0 = strdup(tp_symbol_at(argv[0], e->frames[0]));
		char *f1 = strdup(tp_symbol_at(argv[0], e->frames[1]));
		cr_expect_str_eq(f0, "spawn_leaf", "frame 0 is the spawn call, not %s", f0);
		if (strcmp(f1, "via_alpha") == 0) {
			cr_expect(alpha == 0 || alpha == e->arg[1],
				  "via_alpha spawns share one id");
			alpha = e->arg[1];
			n_alpha++;
		} else {
			cr_expect_str_eq(f1, "via_beta", "frame 1 is the caller, not %s", f1);
			cr_expect(beta == 0 || beta == e->arg[1], "via_beta spawns share one id");
			beta = e->arg[1];
			n_beta++;
		}
		free(f0);
		free(f1);
	}
	cr_expect_eq(n_alpha, 5);
	cr_expect_eq(n_beta, 3);
	cr_expect_neq(alpha, beta, "two call paths, two stack ids");
	tp_run_free(&run);
}

/*
 * A recursive program (fib with two task constructs and a taskwait a call): each explicit spawn
 * has a stack and a site; the sites are the two task constructs; and recursion is folded, so the
 * stacks are as few as the call paths, whatever the depth. Without folding, fib(16) made 314
 * distinct stacks on 2 threads (one per recursion depth and thread path), and deeper programs
 * filled the stack table; folded, 47 at fib(12) and fib(20).
 */
Test(stacks, recursion_folds_to_few_stacks_per_call_path_and_each_construct_is_one_site,
     .timeout = 180)
{
	const char *argv[] = {stacks_target("omp_fib"), "16", NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	tp_run_both(argv, env, &run);
	cr_expect_str_eq(run.out, "fib(16) = 987\n");
	enum { EXPLICIT_TASKS = 3192, FOLDED_STACKS_MAX = 100 }; /* 47 measured, 314 unfolded */
	int64_t stacks[FOLDED_STACKS_MAX + 1], sites[4];
	size_t n_stacks = 0, n_sites = 0, with_stack = 0;
	for (size_t i = 0; i < tp_count(&run, "task__spawn", 0); i++) {
		const struct tp_event *e = tp_nth(&run, "task__spawn", 0, i);
		if (e->arg[4] == 0)
			continue; /* the initial and implicit tasks */
		with_stack++;
		size_t k = 0;
		while (k < n_stacks && stacks[k] != e->arg[4])
			k++;
		if (k == n_stacks && n_stacks <= FOLDED_STACKS_MAX)
			stacks[n_stacks++] = e->arg[4];
		cr_expect_neq(e->arg[2], 0, "an explicit task has a site");
		for (k = 0; k < n_sites && sites[k] != e->arg[2]; k++)
			;
		if (k == n_sites && n_sites < 4)
			sites[n_sites++] = e->arg[2];
	}
	cr_expect_eq(with_stack, EXPLICIT_TASKS, "every explicit spawn has a stack");
	cr_expect_leq(n_stacks, FOLDED_STACKS_MAX, "recursion is not folded: %zu stacks", n_stacks);
	cr_expect_eq(n_sites, 2, "two task constructs, %zu sites", n_sites);
	tp_run_free(&run);
}

Test(stacks, depth_setting_limits_frames_and_zero_turns_capture_off, .timeout = 180)
{
	const char *argv[] = {stacks_target("omp_spawn_sites"), NULL};
	const char *one_frame[] = {"OMP_NUM_THREADS=2", "TASKPROBE_STACK_DEPTH=1", NULL};
	struct tp_run run;
	tp_run(TP_TRACED, argv, one_frame, &run);
	const struct tp_event *spawns[16];
	/* (once in CI, loaded: not 8; what the trace held is said should it come again) */
	size_t stacks = program_spawns(&run, spawns, 16);
	cr_assert_eq(stacks, 8, "%zu task-stacks, %zu task-spawns, %zu events; the program said %s",
		     stacks, tp_count(&run, "task__spawn", 0), run.n_events, run.out);
	for (size_t i = 0; i < 8; i++) {
		cr_expect_eq(spawns[i]->arg[3], 1);
		/* one frame, in spawn_leaf for both paths: one stack */
		cr_expect_eq(spawns[i]->arg[1], spawns[0]->arg[1], "one frame, one stack id");
		cr_expect_str_eq(tp_symbol_at(argv[0], spawns[i]->frames[0]), "spawn_leaf");
	}
	tp_run_free(&run);

	const char *off[] = {"OMP_NUM_THREADS=2", "TASKPROBE_STACKS=0", NULL};
	tp_run(TP_TRACED, argv, off, &run);
	cr_expect_eq(run.status, 0);
	cr_expect_eq(tp_count(&run, "task__spawn", 0), 8 + 2 + 1);
	for (size_t i = 0; i < tp_count(&run, "task__spawn", 0); i++) {
		const struct tp_event *e = tp_nth(&run, "task__spawn", 0, i);
		cr_expect_eq(e->arg[4], 0, "stack %lld with capture off", (long long)e->arg[4]);
	}
	cr_expect_eq(tp_count(&run, "task__stack", 0), 0, "no task-stack with capture off");
	tp_run_free(&run);
}

/* How many times libunwind ran in omp_spawn_sites, with `also` attached too. */
static size_t unwinds(const char *target, const char *shim, const char *also)
{
	const char *argv[] = {target, NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	return tp_count_unwinds(shim, also, argv, env, "counter 35\n");
}

Test(stacks, nothing_is_unwound_while_no_tracer_attaches_task_spawn, .timeout = 180)
{
	const char *target = stacks_target("omp_spawn_sites");
	/* A copy of the shim: tracers that other tests attach to the built one do not touch it. */
	const char *shim = tp_shim_copy();
	cr_expect_eq(unwinds(target, shim, ""), 0, "libunwind ran with no tracer attached");

	char *spawn_probe;
	cr_assert(asprintf(&spawn_probe, "usdt:%s:taskprobe:task__spawn /pid == $1/ { }\n", shim) >
		  0);
	cr_expect_eq(unwinds(target, shim, spawn_probe), 8,
		     "one unwind per task the program spawned");
	free(spawn_probe);
}

/* Runs omp_detach with TASKPROBE_REPORT=`setting` and returns the report text. */
static char *report_of(const char *setting, const char *file, struct tp_run *run)
{
	const char *argv[] = {stacks_target("omp_detach"), NULL};
	char assignment[600];
	snprintf(assignment, sizeof assignment, "TASKPROBE_REPORT=%s", setting);
	const char *env[] = {"OMP_NUM_THREADS=2", assignment, NULL};
	tp_run_preloaded_as_plain(argv, env, run);
	cr_expect_str_eq(run->out, "2 finished, 3 detached bodies ran\n");
	if (file == NULL)
		return strdup(run->err);
	return tp_read_file(file, NULL);
}

static void expect_unfinished_tasks(const char *report)
{
	cr_expect(strstr(report, "taskprobe: 6 tasks spawned but never terminated") != NULL, "%s",
		  report);
	/* the 3 detached tasks, under their site and their one stack, whose first frame is the call */
	const char *group = strstr(report, "  3 spawned at spawn_detached (omp_detach.c:");
	cr_assert_not_null(group, "%s", report);
	const char *stack = strstr(group, "    3 by stack ");
	cr_assert_not_null(stack, "%s", report);
	const char *frame0 = strstr(stack, "#0  ");
	cr_assert_not_null(frame0, "%s", report);
	cr_expect(strncmp(frame0 + 4, "spawn_detached (omp_detach.c:", 29) == 0,
		  "first frame: %.60s", frame0 + 4);
	const char *frame1 = strstr(stack, "#1  ");
	cr_assert_not_null(frame1, "%s", report);
	const char *line1 = strstr(frame1, " (omp_detach.c:");
	cr_expect(line1 != NULL && line1 < strchr(frame1, '\n'),
		  "every program frame has a line: %.60s", frame1);
	/* the initial and the 2 implicit tasks, which no spawn call made, on a line of their own */
	cr_expect(strstr(report, "  3 started by the executor itself") != NULL, "%s", report);
	cr_expect_eq(strstr(report, "with no spawn stack"), NULL, "%s", report);
	/* the unfinished tasks' part ends where the task graph's figures (every site) start */
	const char *graph = strstr(report, "taskprobe: the task graph");
	size_t unfinished_part = graph != NULL ? (size_t)(graph - report) : strlen(report);
	cr_expect(memmem(report, unfinished_part, "spawn_finished", 14) == NULL,
		  "finished tasks are not reported: %s", report);
}

Test(stacks, the_exit_report_lists_exactly_the_unfinished_tasks, .timeout = 120)
{
	char file[] = "/tmp/taskprobe-test-report-XXXXXX";
	int fd = mkstemp(file);
	cr_assert(fd >= 0);
	close(fd);
	struct tp_run run;
	char *report = report_of(file, file, &run);
	unlink(file);
	expect_unfinished_tasks(report);
	cr_expect_eq(strstr(run.err, "taskprobe"), NULL, "nothing on stderr: %s", run.err);
	free(report);
	tp_run_free(&run);
}

Test(stacks, an_unwritable_report_path_is_said_once_and_the_report_goes_to_stderr, .timeout = 120)
{
	struct tp_run run;
	char *report = report_of("/nonexistent/dir/report.txt", NULL, &run);
	const char *warning =
		"taskprobe: TASKPROBE_REPORT=\"/nonexistent/dir/report.txt\" cannot be "
		"written";
	cr_expect(strncmp(report, warning, strlen(warning)) == 0, "%s", report);
	expect_unfinished_tasks(report);
	free(report);
	tp_run_free(&run);
}

/*
 * The report's spawn stacks are the live statistics' sample (a thread's first
 * TP_LIVE_STACK_SAMPLE_FIRST spawns at a site, then one in TP_LIVE_STACK_SAMPLE_EVERY): a stack
 * at every spawn cost a few hundred ns, and doubled BOTS uts's time under the report. Forty
 * detached tasks from one thread's loop: the first four by their stack, the other 36 by their
 * site alone, all forty under it.
 */
Test(stacks, the_exit_report_counts_tasks_past_the_stacks_sample_by_their_site, .timeout = 120)
{
	const char *argv[] = {stacks_target("omp_detach"), "40", NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", "TASKPROBE_REPORT=stderr", NULL};
	/* a copy of the shim: a tracer another test attaches to the built one would want a stack
	 * at every spawn */
	tp_use_shim(tp_shim_copy());
	struct tp_run run;
	tp_run_preloaded_as_plain(argv, env, &run);
	cr_expect_str_eq(run.out, "2 finished, 40 detached bodies ran\n");
	cr_expect(strstr(run.err, "taskprobe: 43 tasks spawned but never terminated") != NULL, "%s",
		  run.err);
	const char *group = strstr(run.err, "  40 spawned at spawn_detached (omp_detach.c:");
	cr_assert_not_null(group, "%s", run.err);
	char sampled[32], unsampled[128];
	snprintf(sampled, sizeof sampled, "    %d by stack ", TP_LIVE_STACK_SAMPLE_FIRST);
	snprintf(unsampled, sizeof unsampled, "    %d with no stack sampled (a thread's first %d",
		 40 - TP_LIVE_STACK_SAMPLE_FIRST, TP_LIVE_STACK_SAMPLE_FIRST);
	const char *stack = strstr(group, sampled), *rest = strstr(group, unsampled);
	cr_expect(stack != NULL && strstr(stack, "#0  spawn_detached (omp_detach.c:") != NULL, "%s",
		  run.err);
	cr_expect(rest != NULL, "%s", run.err);
	cr_expect(strstr(run.err, "  3 started by the executor itself") != NULL, "%s", run.err);
	tp_run_free(&run);
}

/*
 * A libunwind the loader cannot load (an empty file named libunwind.so.8 found first on
 * LD_LIBRARY_PATH) turns spawn stacks off: said once, with the loader's own reason (read before
 * the shim's load puts libc's TLS back, which holds dlerror's message), and the program's output
 * and the report's tasks are the same, by their site.
 */
Test(stacks, a_libunwind_the_loader_refuses_is_said_once_with_its_reason, .timeout = 120)
{
	char *dir = tp_make_temp_dir("stacks-no-libunwind");
	char *library = tp_path_in(dir, "libunwind.so.8");
	int fd = open(library, O_WRONLY | O_CREAT | O_EXCL, 0600);
	cr_assert(fd >= 0);
	close(fd);
	char library_path[4200], said[4400];
	snprintf(library_path, sizeof library_path, "LD_LIBRARY_PATH=%s", dir);
	const char *argv[] = {stacks_target("omp_detach"), "40", NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", "TASKPROBE_REPORT=stderr", library_path, NULL};
	tp_use_shim(tp_shim_copy());
	struct tp_run run;
	tp_run_preloaded_as_plain(argv, env, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "2 finished, 40 detached bodies ran\n");
	snprintf(said, sizeof said,
		 "taskprobe: libunwind.so.8 cannot be loaded (%s: file too short); spawn stacks "
		 "are off\n",
		 library);
	cr_expect_eq(tp_occurrences(run.err, said), 1, "%s", run.err);
	cr_expect_eq(tp_occurrences(run.err, "cannot be loaded"), 1, "%s", run.err);
	cr_expect(strstr(run.err, "  40 spawned at spawn_detached (omp_detach.c:") != NULL, "%s",
		  run.err);
	tp_run_free(&run);
	free(library);
	tp_remove_temp_dir(dir);
}
