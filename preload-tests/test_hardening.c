// SPDX-License-Identifier: MIT
/*
 * The shim inside programs that do unusual things: signal handlers that interrupt waits and
 * wait themselves. Output and exit status must be the same plainly, preloaded and traced.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/*
 * tp_run_all_ways on a private copy of the shim, traced by `program_format` (bpftrace text in
 * which %1$s is that copy's path): other tests' tracers attaching and detaching its probes while
 * the target forks would race with the fork handler (see docs/limits.md).
 */
static void run_all_ways_on_private_shim(const char *program_format, const char *const argv[],
					 struct tp_run *traced)
{
	tp_use_shim(tp_shim_copy());
	char *program;
	cr_assert(asprintf(&program, program_format, tp_shim()) > 0);
	tp_use_tracer_program(program);
	tp_run_all_ways(argv, NULL, traced);
	tp_use_tracer_program(NULL);
	tp_use_shim(NULL);
	free(program);
}

Test(hardening, a_signal_interrupting_a_wait_keeps_eintr_and_sa_restart_semantics, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, "a signal that restarts a wait: TSan delays the handler to a point "
			      "that never comes, and the program hangs");
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
		tp_run_all_ways(argv, NULL, &run);
		cr_expect_eq(run.status, 0);
		cr_expect(strncmp(run.out, expected[i], strlen(expected[i])) == 0, "%s:\n%s",
			  modes[i], run.out);
		cr_expect(strstr(run.out, "handler waits returned at once\n") != NULL, "%s",
			  run.out);
		tp_assert_waits_paired(&run);
		tp_run_free(&run);
	}
}

Test(hardening, fork_exec_posix_spawn_vfork_and_double_fork_children_trace_under_their_pids,
     .timeout = 120)
{
	/* every process of the tree, by its command name (the exec'ed ones are this program) */
	const char *argv[] = {tp_target("process_tree"), NULL};
	struct tp_run run;
	run_all_ways_on_private_shim("usdt:%1$s:taskprobe:wait__start /comm == \"process_tree\"/ { "
				     "printf(\"W %%d\\n\", pid); }\n",
				     argv, &run);
	cr_expect_eq(run.status, 0);
	cr_expect_str_eq(run.out, "parent waited\nfork-child waited\nexec-child waited\n"
				  "spawn-child waited\nvfork-child waited\ngrandchild waited\n");
	/* each process's wait fired in that process: the shim works in each, fresh after exec */
	const char *roles[] = {"parent",      "fork-child",  "exec-child",
			       "spawn-child", "vfork-child", "grandchild"};
	for (size_t i = 0; i < 6; i++) {
		const char *line = strstr(run.err, roles[i]);
		cr_assert_not_null(line, "%s missing: %s", roles[i], run.err);
		int pid = atoi(line + strlen(roles[i]));
		char want[32];
		snprintf(want, sizeof want, "W %d\n", pid);
		cr_expect(strstr(run.trace, want) != NULL, "no wait of %s (pid %d): %s", roles[i],
			  pid, run.trace);
	}
	tp_run_free(&run);
}

Test(hardening, a_thousand_threads_at_once_each_start_wait_and_stop_once, .timeout = 180)
{
	const char *argv[] = {tp_target("thousand_threads"), NULL};
	struct tp_run run;
	tp_run_all_ways(argv, NULL, &run);
	cr_expect_eq(run.status, 0);
	cr_expect_str_eq(run.out, "1000 threads ran\n");
	tp_assert_threads_paired(&run, 1000);
	cr_expect_eq(tp_assert_waits_paired(&run), 1000);
	tp_run_free(&run);
}

Test(hardening, libomp_loaded_and_unloaded_at_run_time_twice, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	const char *argv[] = {tp_target("dlopen_omp"),
			      tp_require_file(TP_LIBOMP_PATH, "libomp-dev"), NULL};
	struct tp_run run;
	tp_run_all_ways(argv, NULL, &run);
	cr_expect_eq(run.status, 0);
	cr_expect_str_eq(run.out, "round 1: 2 threads\nround 2: 2 threads\n");
	/*
	 * libomp is NODELETE: it stays mapped after dlclose (with or without the shim), so the
	 * second load finds the same runtime: one initial task, two implicit tasks per region
	 */
	size_t tasks = tp_assert_tasks_consistent(&run, -1);
	cr_expect_eq(tasks, 5, "%zu tasks", tasks);
	tp_assert_threads_paired(&run, -1);
	tp_assert_waits_paired(&run);
	tp_run_free(&run);
}

Test(hardening, cancellation_in_every_wrapped_cancellation_point_ends_the_wait_and_the_thread,
     .timeout = 120)
{
	const char *argv[] = {tp_target("cancel_points"), NULL};
	struct tp_run run;
	tp_run_all_ways(argv, NULL, &run);
	cr_expect_eq(run.status, 0);
	cr_expect_str_eq(run.out,
			 "sem_wait: cancelled\nsem_timedwait: cancelled\nsem_clockwait: cancelled\n"
			 "pthread_cond_wait: cancelled\npthread_cond_timedwait: cancelled\n"
			 "pthread_cond_clockwait: cancelled\npoll: cancelled\nppoll: cancelled\n"
			 "epoll_wait: cancelled\nepoll_pwait: cancelled\nepoll_pwait2: cancelled\n"
			 "sem_wait, the semaphore free: cancelled, its value 1\n");
	/* 12 threads, each stopped once; each cancelled wait ends with -ECANCELED; the last one's
	 * sem_wait, which could take its semaphore at once, is cancelled before it waits, as
	 * sem_wait is a cancellation point first: no wait (and no semaphore taken) */
	tp_assert_threads_paired(&run, 12);
	tp_assert_waits_paired(&run);
	size_t cancelled = 0;
	for (size_t i = 0; i < tp_count(&run, "wait__end", 0); i++)
		cancelled += tp_nth(&run, "wait__end", 0, i)->arg[2] == -125;
	cr_expect_eq(cancelled, 11, "%zu waits ended cancelled", cancelled);
	tp_run_free(&run);
}

Test(hardening, ten_million_short_tasks_untraced_and_a_hundred_thousand_traced, .timeout = 300)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	const char *target = tp_require_program(tp_target("omp_short_tasks"),
						"clang and libomp-dev");
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	/* ten million: the shim with no tracer keeps no state per task (a tracer would make the
	 * run minutes long) */
	const char *many[] = {target, "10000000", NULL};
	struct tp_run plain, preloaded;
	tp_run(TP_PLAIN, many, env, &plain);
	tp_run(TP_PRELOADED, many, env, &preloaded);
	cr_expect_eq(plain.status, 0);
	cr_expect_eq(preloaded.status, 0);
	cr_expect_str_eq(plain.out, "29999994\n");
	cr_expect_str_eq(preloaded.out, plain.out);
	tp_run_free(&plain);
	tp_run_free(&preloaded);

	/* traced, counted in the tracer: every one of 100,000 tasks, the initial and two implicit */
	char *program;
	cr_assert(asprintf(&program,
			   "usdt:%1$s:taskprobe:task__spawn /pid == $1/ { @spawns = count(); }\n"
			   "usdt:%1$s:taskprobe:task__terminate /pid == $1/ { @terminates = "
			   "count(); }\n"
			   "usdt:%1$s:taskprobe:task__poll__end /pid == $1 && arg1/ { @ended = "
			   "count(); }\n",
			   tp_shim()) > 0);
	tp_use_tracer_program(program);
	const char *some[] = {target, "100000", NULL};
	struct tp_run traced;
	tp_run_both(some, env, &traced);
	tp_use_tracer_program(NULL);
	free(program);
	cr_expect_str_eq(traced.out, "299995\n");
	cr_expect(strstr(traced.trace, "@spawns: 100003\n") != NULL, "%s", traced.trace);
	cr_expect(strstr(traced.trace, "@terminates: 100003\n") != NULL, "%s", traced.trace);
	cr_expect(strstr(traced.trace, "@ended: 100003\n") != NULL, "%s", traced.trace);
	tp_run_free(&traced);
}

/*
 * Whether the dynamic loader ran the early library's constructor before the shim's, as it says
 * with LD_DEBUG=files ("calling init: PATH" in the order it calls them).
 */
static bool early_lib_initialized_first(const char *const env[])
{
	const char *argv[] = {tp_target("early_threads"), NULL};
	const char *debug_env[8] = {"LD_DEBUG=files"};
	for (size_t i = 0; env[i] != NULL && i + 2 < 8; i++)
		debug_env[i + 1] = env[i];
	struct tp_run run;
	tp_run(TP_PRELOADED, argv, debug_env, &run);
	const char *early = strstr(run.err, "calling init: " TP_TARGETS_DIR "/libearly_lib.so");
	const char *shim = strstr(run.err, "calling init: ");
	while (shim != NULL && strncmp(strchr(shim, '/'), tp_shim(), strlen(tp_shim())) != 0)
		shim = strstr(shim + 1, "calling init: ");
	cr_assert(early != NULL && shim != NULL, "the loader's trace: %s", run.err);
	bool first = early < shim;
	tp_run_free(&run);
	return first;
}

Test(hardening, a_thread_started_and_waits_made_by_a_library_constructor_and_destructor,
     .timeout = 180)
{
	const char *argv[] = {tp_target("early_threads"), NULL};
	char before[4200], after[4200];
	snprintf(before, sizeof before, "LD_PRELOAD=%s/libearly_lib.so", TP_TARGETS_DIR);
	snprintf(after, sizeof after, "TP_PRELOAD_AFTER_SHIM=%s/libearly_lib.so", TP_TARGETS_DIR);
	/*
	 * The loader calls a program's libraries' constructors before the preloaded ones', and
	 * preloaded libraries' in the reverse of their order: linked or preloaded after the shim,
	 * the library starts its thread and waits before the shim's constructor ran (so the shim
	 * resolves its real functions on first use); preloaded before it, after.
	 */
	const char *linked[] = {NULL}, *preloaded_after[] = {after, NULL},
		   *preloaded_before[] = {before, NULL};
	const struct {
		const char *const *env;
		bool early_first;
	} orders[] = {{linked, true}, {preloaded_after, true}, {preloaded_before, false}};
	for (size_t i = 0; i < 3; i++) {
		cr_expect_eq(early_lib_initialized_first(orders[i].env), orders[i].early_first,
			     "order %zu: the library's constructor ran %s the shim's", i,
			     orders[i].early_first ? "after" : "before");
		struct tp_run traced;
		tp_run_all_ways_saying(argv, orders[i].env, "early_lib: destructor waited\n",
				       &traced);
		cr_expect_eq(traced.status, 0, "order %zu", i);
		cr_expect_str_eq(traced.out, "the library's thread made 3 waits\n");
		/* the constructor's thread, started and stopped once; its three semaphore waits and
		 * the destructor's one */
		tp_assert_threads_paired(&traced, 1);
		tp_assert_waits_paired(&traced);
		size_t sem_waits = tp_count_waits(&traced, 3);
		cr_expect_eq(sem_waits, 4, "order %zu: %zu semaphore waits", i, sem_waits);
		tp_run_free(&traced);
	}
}

Test(hardening, forks_while_another_thread_creates_threads_leave_working_children, .timeout = 180)
{
	TP_NOT_UNDER(TP_ASAN, "ASan's fork handling makes forks under a thread churn minutes long");
	TP_NOT_UNDER(TP_TSAN, "TSan refuses threads started in the child of a threaded fork");
	/* counted in the tracer: the churn makes tens of thousands of thread events */
	const char *argv[] = {tp_target("fork_while_threads"), NULL};
	struct tp_run run;
	run_all_ways_on_private_shim(
		/* two clauses, not a key chosen between two literals of different lengths by `?:`:
		 * with bpftrace 0.17 on kernel 6.18 each start of the parent's was a key of its own
		 * ("@starts[parent]: 1", a hundred times) */
		"usdt:%1$s:taskprobe:thread__start /comm == \"fork_while_thre\" && pid == $1/ {\n"
		"  @starts[\"parent\"] = count(); }\n"
		"usdt:%1$s:taskprobe:thread__start /comm == \"fork_while_thre\" && pid != $1/ {\n"
		"  @starts[\"child\"] = count(); }\n"
		"usdt:%1$s:taskprobe:wait__start /comm == \"fork_while_thre\"/ { @waits = count(); "
		"}\n",
		argv, &run);
	cr_expect_eq(run.status, 0);
	cr_expect(strcmp(run.out, "100 children exited cleanly\n") == 0, "%s%s", run.out, run.err);
	/* the children's threads and waits were traced too (each child: one thread, one wait) */
	cr_expect(strstr(run.trace, "@starts[child]: 100\n") != NULL, "%s", run.trace);
	cr_expect(strstr(run.trace, "@waits: 100\n") != NULL, "%s", run.trace);
	tp_run_free(&run);
}

/*
 * Runs forked_children.h's target `target` plainly (`settings[0]` NULL), then preloaded with each
 * setting after it (ended by NULL): status 0, and `out` (how many children exited) every time.
 */
static void expect_children_exit(const char *target, const char *const settings[], const char *out)
{
	const char *argv[] = {tp_target(target), NULL};
	for (size_t i = 0; i == 0 || settings[i] != NULL; i++) {
		struct tp_run run;
		tp_run(i == 0 ? TP_PLAIN : TP_PRELOADED, argv, (const char *[]){settings[i], NULL},
		       &run);
		const char *way = settings[i] != NULL ? settings[i] : "plain";
		cr_expect_eq(run.status, 0, "%s", way);
		cr_expect_str_eq(run.out, out, "%s", way);
		tp_run_free(&run);
	}
}

/*
 * A child forked while another thread walks the loader's list (dl_iterate_phdr), which exits at
 * once: glibc leaves that list's lock held in the child, and the live statistics' fork handler
 * walked it (whether libgomp runs on libomp, for the child's header): every child hung, with the
 * live statistics on (TASKPROBE_LIVE, `taskprobe run`) or the exit report's (TASKPROBE_REPORT).
 */
Test(hardening, a_child_forked_while_the_loaders_list_is_walked_exits, .timeout = 180)
{
	const char *const settings[] = {NULL, "TASKPROBE_LIVE=1", "TASKPROBE_REPORT=stderr", NULL};
	expect_children_exit("fork_while_loader_walked", settings, "20 children exited cleanly\n");
}

/*
 * A child forked while another thread unwinds a stack in libunwind (fork_while_unwinding: threads
 * that keep starting threads whose waits the live statistics unwind) takes no stack of its own:
 * libunwind's lock, held in the child by a thread that is not there, hung its first wait's
 * capture (8 runs in 12 hung, with TASKPROBE_LIVE or `taskprobe run`).
 */
Test(hardening, a_child_forked_while_another_thread_unwinds_exits, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN, "ASan's fork handling makes forks under a thread churn minutes long");
	TP_NOT_UNDER(TP_TSAN, "TSan refuses threads started in the child of a threaded fork");
	const char *const settings[] = {NULL, "TASKPROBE_LIVE=1", NULL};
	expect_children_exit("fork_while_unwinding", settings, "40 children exited cleanly\n");
}

Test(hardening, memcheck_finds_no_error_or_leak_with_the_shim, .timeout = 600)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, "valgrind and the sanitizers exclude each other");
	const char *valgrind = tp_require_program("/usr/bin/valgrind", "valgrind");
	/*
	 * With no tracer, and on a private copy of the shim: valgrind runs code it translated, so
	 * a breakpoint that another test's tracer put in the built library's pages would be a
	 * SIGTRAP here, not a uprobe hit. TASKPROBE_REPORT makes the shim keep task state and
	 * capture spawn stacks all the same, and a bad TASKPROBE_STACK_DEPTH shows that the shim is
	 * loaded (it is said by every process: Debian's valgrind is a shell script running
	 * valgrind.bin, then the target). preload-tests/valgrind.supp says why libunwind's address
	 * checks are suppressed.
	 */
	const char *targets[] = {"threads", "timed_waits", "cancel_points", "omp_fib",
				 "omp_detach"};
	const char *env[] = {"TASKPROBE_REPORT=stderr", "TASKPROBE_STACK_DEPTH=many",
			     "OMP_NUM_THREADS=2", NULL};
	tp_use_shim(tp_shim_copy());
	for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
		const char *target = tp_target(targets[i]);
		if (strncmp(targets[i], "omp_", 4) == 0)
			tp_require_program(target, "clang and libomp-dev");
		const char *argv[] = {valgrind,
				      "-q",
				      "--suppressions=" TP_VALGRIND_SUPPRESSIONS,
				      "--leak-check=full",
				      "--show-leak-kinds=definite",
				      "--errors-for-leak-kinds=definite",
				      "--error-exitcode=99",
				      target,
				      NULL};
		const char *plain_argv[] = {target, NULL};
		struct tp_run checked, plain;
		tp_run(TP_PRELOADED, argv, env, &checked);
		tp_run(TP_PLAIN, plain_argv, env, &plain);
		cr_expect_eq(checked.status, plain.status, "%s under memcheck: %s", targets[i],
			     checked.err);
		cr_expect_str_eq(checked.out, plain.out);
		cr_expect(strstr(checked.err, "taskprobe: TASKPROBE_STACK_DEPTH=") != NULL,
			  "%s: the shim is not loaded: %s", targets[i], checked.err);
		cr_expect(strstr(checked.err, "==") == NULL, "%s: memcheck said:\n%s", targets[i],
			  checked.err);
		tp_run_free(&checked);
		tp_run_free(&plain);
	}
	tp_use_shim(NULL);
}
