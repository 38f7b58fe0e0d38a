// SPDX-License-Identifier: MIT
/*
 * Right answers on programs of real size, through the launcher as a user runs it: every event
 * relayed, sums that short polls and parks add to, maps that hold every task alive, and a
 * notice whenever anything was dropped anyway.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char *omp_target(const char *name)
{
	return tp_require_program(tp_target(name), "clang and libomp-dev");
}

/* The value printed for the first key starting with `key_start` ("@tasks[spawn_quick"), or -1. */
static long long value_of(const char *out, const char *key_start)
{
	const char *l = strstr(out, key_start);
	const char *colon = l != NULL ? strstr(l, "]: ") : NULL;
	return colon != NULL ? strtoll(colon + 3, NULL, 10) : -1;
}

TP_SUITE_NOT_UNDER(answers, TP_ASAN | TP_TSAN,
		   "the answers come through the launcher, which preloads the shim by itself, not "
		   "the sanitizer's runtime");

Test(answers, trace_events_relays_every_event_of_a_busy_program, .timeout = 300)
{
	tp_require_tracer();
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	tp_launch((const char *[]){"trace", "events", "--", omp_target("omp_fib"), "20", NULL}, env,
		  &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.out, "fib(20) = 6765\n") != NULL);
	/* the explicit tasks, the initial task and two implicit ones: each spawned and ended once */
	long long tasks = tp_fib_tasks(20) + 3;
	/* the script's output is on stderr; what the launcher said, for a miss (a CI run once
	 * counted fewer, and said nothing lost) */
	long long spawns = (long long)tp_occurrences(run.err, " task-spawn task="),
		  ends = (long long)tp_occurrences(run.err, " task-terminate task=");
	const char *said = strstr(run.err, "taskprobe:");
	cr_expect(spawns == tasks && ends == tasks,
		  "%lld task-spawn and %lld task-terminate lines of %lld tasks; the launcher: "
		  "%.2000s",
		  spawns, ends, tasks, said != NULL ? said : "(nothing)");
	cr_expect_eq(strstr(run.err, "taskprobe: bpftrace lost"), NULL, "%s", run.err);
	tp_run_free(&run);
}

Test(answers, events_bpftrace_lost_are_said, .timeout = 300)
{
	tp_require_tracer();
	/* one page of buffer a CPU cannot hold what fib(20) fires */
	const char *env[] = {"OMP_NUM_THREADS=2", "BPFTRACE_PERF_RB_PAGES=1", NULL};
	struct tp_run run;
	tp_launch((const char *[]){"trace", "events", "--", omp_target("omp_fib"), "20", NULL}, env,
		  &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	long long said = -1;
	const char *notice = strstr(run.err, "taskprobe: bpftrace lost ");
	cr_assert_not_null(notice, "%s", run.err);
	sscanf(notice, "taskprobe: bpftrace lost %lld events", &said);
	cr_expect_gt(said, 0, "%s", run.err);
	/* what is missing from the output is what was said */
	long long tasks = tp_fib_tasks(20) + 3;
	cr_expect_lt((long long)tp_occurrences(run.err, " task-spawn task="), tasks);
	tp_run_free(&run);
}

/* omp_shapes gate 10000: ten thousand tasks alive at once, more than bpftrace's 4096 keys. */
static void run_gate(const char *map_keys, struct tp_run *run)
{
	const char *env[] = {"OMP_NUM_THREADS=2", map_keys, NULL};
	tp_launch((const char *[]){"trace", "lifetimes", "--", omp_target("omp_shapes"), "gate",
				   "10000", NULL},
		  env, run);
	cr_expect_eq(run->status, 0, "%s", run->err);
	cr_expect(strstr(run->out, "gate 10000 done 10000\n") != NULL, "%s", run->out);
}

Test(answers, every_task_alive_at_once_is_counted, .timeout = 300)
{
	tp_require_tracer();
	struct tp_run run;
	run_gate(NULL, &run);
	/* the gate's one task and the ten thousand behind it, each from its own construct */
	cr_expect(strstr(run.err, "]: 10000\n") != NULL, "%s", run.err);
	cr_expect(strstr(run.err, "]: 1\n") != NULL, "%s", run.err);
	cr_expect_eq(strstr(run.err, "a map is full"), NULL, "%s", run.err);
	tp_run_free(&run);
}

Test(answers, a_full_map_is_said, .timeout = 300)
{
	tp_require_tracer();
	struct tp_run run;
	run_gate("BPFTRACE_MAP_KEYS_MAX=4096", &run);
	cr_expect(strstr(run.err, "taskprobe: a map is full: tasks from task ") != NULL, "%s",
		  run.err);
	long long untracked = value_of(run.err, "@tasks_untracked_map_full[");
	cr_expect_gt(untracked, 10000 - 4096, "%s", run.err);
	cr_expect_eq(strstr(run.err, "]: 10000\n"), NULL, "%s", run.err);
	tp_run_free(&run);
}

/* The work's wall time the target said on stderr ("elapsed_ms N"), or -1. */
static long long elapsed_ms(const char *err)
{
	const char *said = strstr(err, "elapsed_ms ");
	return said != NULL ? strtoll(said + 11, NULL, 10) : -1;
}

/*
 * Totals of many short stretches: 1000 polls of at least 300 us each are at least 300 ms, and
 * 1000 parks timing out after at least 300 us each are at least 300 ms. Upper bounds that hold on
 * a loaded machine too: the polls of two threads take at most twice the work's wall time, the
 * parks of one thread at most that time.
 */
Test(answers, sub_millisecond_polls_and_parks_add_up, .timeout = 300)
{
	tp_require_tracer();
	const char *env[] = {"OMP_NUM_THREADS=2", "TASKPROBE_WORKERS=pool-*", NULL};
	struct tp_run run;
	tp_launch((const char *[]){"trace", "lifetimes", "--", omp_target("omp_shapes"), "spin",
				   "1000", "300", NULL},
		  env, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	/* the site with 1000 tasks is the spinning one */
	const char *site = strstr(run.err, "]: 1000\n");
	cr_assert_not_null(site, "%s", run.err);
	while (site > run.err && site[-1] != '[')
		site--;
	char key[256];
	snprintf(key, sizeof key, "@active_total_ms[%.*s", (int)(strchr(site, ']') - site), site);
	long long active_ms = value_of(run.err, key), wall_ms = elapsed_ms(run.err);
	cr_assert_gt(wall_ms, 0, "%s", run.err);
	cr_expect(active_ms >= 300 && active_ms <= 2 * wall_ms + 1, "%lld ms in %lld ms: %s",
		  active_ms, wall_ms, run.err);
	tp_run_free(&run);

	tp_launch((const char *[]){"trace", "waits", "--", omp_target("omp_shapes"), "parks",
				   "1000", "300", NULL},
		  env, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_eq(value_of(run.err, "@timed_out[semaphore"), 1000, "%s", run.err);
	long long parked_ms = value_of(run.err, "@parked_ms[pool-1, ");
	wall_ms = elapsed_ms(run.err);
	cr_assert_gt(wall_ms, 0, "%s", run.err);
	cr_expect(parked_ms >= 300 && parked_ms <= wall_ms + 1, "%lld ms in %lld ms: %s", parked_ms,
		  wall_ms, run.err);
	tp_run_free(&run);
}
