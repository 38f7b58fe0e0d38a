// SPDX-License-Identifier: MIT
/*
 * Wait stacks (wait-stack): wait_stacks's two workers wait at one line, queue_take's sem_wait,
 * through two call paths (3 waits through drain_alpha, 5 through drain_beta). The stacks name
 * the program's functions in order, one id per path, for a tracer, for wait_stacks.bt and in top's
 * detail view of the wait site (sampled); a recording's timeline gives each wait slice its
 * stack's id; no stack is taken while nobody wants one.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "taskprobe_contract.h"

#define ALPHA_WAITS 3
#define BETA_WAITS  5
#define TAKEN       "taken 8\n"

/* The pool's wait: "queue_take (wait_stacks.c:L)". */
static const char *pool_site(void)
{
	return tp_source_site("wait_stacks.c", "void queue_take(", "sem_wait(queue)");
}

/* The path of a stack whose first three frames are queue_take, its caller, the worker: 'a', 'b'. */
static char path_of(const char *program, const uint64_t *frames)
{
	const char *f0 = tp_symbol_at(program, frames[0]);
	cr_expect_str_eq(f0, "queue_take", "frame 0 is the wait's function, not %s", f0);
	char *f1 = strdup(tp_symbol_at(program, frames[1]));
	const char *f2 = tp_symbol_at(program, frames[2]);
	char path = 0;
	if (strcmp(f1, "drain_alpha") == 0 && strcmp(f2, "alpha_worker") == 0)
		path = 'a';
	else if (strcmp(f1, "drain_beta") == 0 && strcmp(f2, "beta_worker") == 0)
		path = 'b';
	else
		cr_expect_fail("frames 1 and 2 are %s, %s: not a worker's path", f1, f2);
	free(f1);
	return path;
}

TP_SUITE_NOT_UNDER(wait_stacks, TP_TSAN, TP_WAIT_STACKS_UNDER_TSAN);

Test(wait_stacks, a_tracer_gets_the_programs_stack_at_each_wait_one_id_per_path, .timeout = 120)
{
	tp_require_tracer();
	const char *argv[] = {tp_target("wait_stacks"), NULL};
	struct tp_run run;
	tp_run_both(argv, NULL, &run);
	cr_expect_str_eq(run.out, TAKEN);
	tp_assert_waits_paired(&run);
	size_t n[2] = {0, 0};
	int64_t ids[2] = {0, 0};
	for (size_t i = 0; i < tp_count(&run, "wait__stack", 0); i++) {
		const struct tp_event *e = tp_nth(&run, "wait__stack", 0, i);
		if (e->arg[0] != TP_WAIT_SEMAPHORE)
			continue; /* the main thread's joins */
		cr_expect_neq(e->arg[2], 0, "a captured stack has an id");
		cr_expect_neq(e->arg[3], 0, "a captured stack has frames");
		cr_assert_geq(e->arg[4], 3, "depth %lld", (long long)e->arg[4]);
		cr_expect_leq(e->arg[4], 32, "depth over TASKPROBE_STACK_DEPTH's default");
		char path = path_of(argv[0], e->frames);
		if (path == 0)
			continue;
		int k = path == 'a' ? 0 : 1;
		cr_expect(ids[k] == 0 || ids[k] == e->arg[2], "one path, one id");
		ids[k] = e->arg[2];
		n[k]++;
	}
	cr_expect_eq(n[0], ALPHA_WAITS);
	cr_expect_eq(n[1], BETA_WAITS);
	cr_expect_neq(ids[0], ids[1], "two call paths, two stack ids");
	/* every semaphore wait has its stack, and its site is the pool's line */
	cr_expect_eq(tp_count_waits(&run, TP_WAIT_SEMAPHORE), ALPHA_WAITS + BETA_WAITS);
	for (size_t i = 0; i < tp_count(&run, "wait__start", 0); i++) {
		const struct tp_event *e = tp_nth(&run, "wait__start", 0, i);
		if (e->arg[0] == TP_WAIT_SEMAPHORE)
			cr_expect_str_eq(e->site, pool_site());
	}
	tp_run_free(&run);
}

Test(wait_stacks, wait_stacks_bt_prints_each_stack_under_its_site_and_counts_waits, .timeout = 120)
{
	const char *argv[] = {tp_target("wait_stacks"), NULL};
	struct tp_run run;
	tp_run_script("wait_stacks.bt", NULL, argv, NULL, &run);
	cr_expect_str_eq(run.out, TAKEN);
	char key[320];
	snprintf(key, sizeof key, "@waits_by_site[%s, semaphore]", pool_site());
	cr_expect_eq(tp_map_value(run.trace, key), ALPHA_WAITS + BETA_WAITS, "%s", run.trace);
	/* the pool's two stacks, each printed once with its frames, counted by path */
	size_t printed[2] = {0, 0};
	long long counts[2] = {-1, -1};
	char header[320];
	snprintf(header, sizeof header, " of %s, semaphore, first waited on by thread ",
		 pool_site());
	for (const char *l = run.trace; (l = strstr(l, header)) != NULL; l++) {
		const char *line = l;
		while (line > run.trace && line[-1] != '\n')
			line--;
		unsigned long long id;
		uint64_t frames[3];
		const char *body = strchr(l, '\n');
		cr_assert(sscanf(line, "stack %llu", &id) == 1 && body != NULL, "%.80s", line);
		cr_assert_eq(sscanf(body, " 0x%lx 0x%lx 0x%lx", &frames[0], &frames[1], &frames[2]),
			     3, "%s", run.trace);
		char path = path_of(argv[0], frames);
		if (path == 0)
			continue;
		int k = path == 'a' ? 0 : 1;
		printed[k]++;
		snprintf(key, sizeof key, "@waits_by_stack[%s, semaphore, %llu]", pool_site(), id);
		counts[k] = tp_map_value(run.trace, key);
	}
	cr_expect_eq(printed[0], 1, "%s", run.trace);
	cr_expect_eq(printed[1], 1, "%s", run.trace);
	cr_expect_eq(counts[0], ALPHA_WAITS, "%s", run.trace);
	cr_expect_eq(counts[1], BETA_WAITS, "%s", run.trace);
	tp_run_free(&run);
}

/*
 * events.bt prints each wait's site after its wait-start and its stack's id and depth in the
 * wait-stack right after it on the same thread: the pool's 8 waits, 2 stacks.
 */
Test(wait_stacks, events_bt_prints_each_waits_site_and_stack, .timeout = 120)
{
	const char *argv[] = {tp_target("wait_stacks"), NULL};
	struct tp_run run;
	tp_run_script("events.bt", NULL, argv, NULL, &run);
	cr_expect_str_eq(run.out, TAKEN);
	char start[64], at[160];
	snprintf(start, sizeof start, " wait-start kind=%d ", TP_WAIT_SEMAPHORE);
	snprintf(at, sizeof at, " at %s\n", pool_site());
	unsigned long long ids[2] = {0, 0};
	size_t waits = 0, stacks = 0;
	char *trace = tp_trace_in_time_order(run.trace);
	for (const char *l = trace; (l = strstr(l, start)) != NULL; l++) {
		const char *end = strchr(l, '\n');
		cr_assert_not_null(end);
		cr_expect(strncmp(end - strlen(at) + 1, at, strlen(at)) == 0, "%.*s",
			  (int)(end - l), l);
		waits++;
		/* the wait-stack on its thread: the next line of this thread's id */
		unsigned long long tid;
		const char *line = l;
		while (line > trace && line[-1] != '\n')
			line--;
		cr_assert_eq(sscanf(line, "%*u %llu", &tid), 1);
		char stack_line[64];
		snprintf(stack_line, sizeof stack_line, " %llu wait-stack kind=%d ", tid,
			 TP_WAIT_SEMAPHORE);
		const char *stack = strstr(end, stack_line);
		unsigned long long id;
		unsigned depth;
		if (stack == NULL ||
		    sscanf(strstr(stack, " stack="), " stack=%llu depth=%u", &id, &depth) != 2) {
			cr_expect_fail("no wait-stack after %.*s", (int)(end - l), l);
			continue;
		}
		cr_expect_geq(depth, 3);
		cr_expect_neq(id, 0);
		int k = ids[0] == 0 || ids[0] == id ? 0 : 1;
		cr_expect(k == 0 || ids[1] == 0 || ids[1] == id, "a third stack %llu", id);
		ids[k] = id;
		stacks++;
	}
	cr_expect_eq(waits, ALPHA_WAITS + BETA_WAITS, "%s", run.trace);
	cr_expect_eq(stacks, ALPHA_WAITS + BETA_WAITS, "%s", run.trace);
	cr_expect(ids[0] != 0 && ids[1] != 0, "two paths, two stacks:\n%s", run.trace);
	free(trace);
	tp_run_free(&run);
}

Test(wait_stacks, nothing_is_unwound_while_nobody_wants_a_wait_stack, .timeout = 180)
{
	const char *argv[] = {tp_target("wait_stacks"), NULL};
	/* A copy of the shim: tracers that other tests attach to the built one do not touch it. */
	const char *shim = tp_shim_copy();
	char *starts, *stacks;
	cr_assert(asprintf(&starts, "usdt:%s:taskprobe:wait__start /pid == $1/ { }\n", shim) > 0);
	cr_assert(asprintf(&stacks, "usdt:%s:taskprobe:wait__stack /pid == $1/ { }\n", shim) > 0);
	/* the waits are the program's own calls: naming their sites unwinds nothing */
	cr_expect_eq(tp_count_unwinds(shim, starts, argv, NULL, TAKEN), 0,
		     "libunwind ran with wait-stack not attached");
	cr_expect_eq(tp_count_unwinds(shim, stacks, argv, NULL, TAKEN), ALPHA_WAITS + BETA_WAITS,
		     "one unwind per wait");
	free(starts);
	free(stacks);
}

/* "function (wait_stacks.c:L)" for the line holding `marker` after `function` in the target. */
static const char *frame_of(const char *function, const char *marker)
{
	return tp_source_site("wait_stacks.c", function, marker);
}

/*
 * The samples of the stack `screen` shows whose lines are `frames` in order, one after another,
 * below its "N samples:" line; 0 when it shows none.
 */
static unsigned stack_samples(const char *screen, const char *const frames[3])
{
	for (const char *at = screen; (at = strstr(at, frames[0])) != NULL; at++) {
		const char *line = at;
		unsigned samples = 0;
		const char *above = line;
		while (above > screen && above[-1] != '\n')
			above--;
		if (above == screen)
			continue;
		for (above--; above > screen && above[-1] != '\n'; above--)
			;
		bool all = sscanf(above, " %u samples:", &samples) == 1;
		for (int i = 1; i < 3 && all; i++) {
			line = strchr(line, '\n');
			all = line != NULL && strncmp(line + 1 + strspn(line + 1, " "), frames[i],
						      strlen(frames[i])) == 0;
			line = line != NULL ? line + 1 : NULL;
		}
		if (all)
			return samples;
	}
	return 0;
}

Test(wait_stacks, top_shows_a_wait_sites_sampled_stacks_in_its_detail_view, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	struct tp_terminal t;
	char *command;
	cr_assert(asprintf(&command, "cd /tmp && TERM=screen %s top -- %s",
			   tp_unprivileged_launcher(),
			   tp_unprivileged_copy(tp_target("wait_stacks"))) > 0);
	tp_terminal_start(&t, command, 160, 50, true);
	free(command);
	/* no task site: the pool's wait site is the first selected */
	free(tp_terminal_wait_for(&t, "WAITS BY CALL SITE", 60000));
	tp_terminal_keys(&t, "Enter");
	const char *site = frame_of("void queue_take(", "sem_wait(queue)");
	const char *alpha[3] = {site, frame_of("int drain_alpha(", "queue_take(&alpha_queue)"),
				frame_of("void *alpha_worker(", "drain_alpha()")};
	const char *beta[3] = {site, frame_of("int drain_beta(", "queue_take(&beta_queue)"),
			       frame_of("void *beta_worker(", "drain_beta()")};
	/* a sample is published after its wait began: on a loaded machine the first screens may
	 * come before the last ones, so the view is refreshed (space) until both are there */
	char *screen = tp_terminal_wait_for(&t, "WAIT STACKS", 5000);
	for (int tries = 0; tries < 50 && (stack_samples(screen, alpha) < ALPHA_WAITS ||
					   stack_samples(screen, beta) < BETA_WAITS - 1);
	     tries++) {
		free(screen);
		usleep(100000);
		tp_terminal_keys(&t, "space");
		screen = tp_terminal_wait_for(&t, "WAIT STACKS", 5000);
	}
	cr_expect(strstr(screen, pool_site()) != NULL, "%s", screen);
	/* sampled: each thread's first 4 waits here, all 3 of alpha's, 4 of beta's 5 */
	cr_expect_eq(stack_samples(screen, alpha), ALPHA_WAITS, "%s / %s / %s:\n%s", alpha[0],
		     alpha[1], alpha[2], screen);
	cr_expect_eq(stack_samples(screen, beta), BETA_WAITS - 1, "%s / %s / %s:\n%s", beta[0],
		     beta[1], beta[2], screen);
	size_t stacks = 0;
	for (const char *at = screen; (at = strstr(at, " samples:")) != NULL; at++)
		stacks++;
	cr_expect_eq(stacks, 2, "%s", screen);
	free(screen);
	tp_terminal_keys(&t, "q");
	free(tp_terminal_wait_for(&t, "[exit ", 60000));
	tp_terminal_stop(&t);
}

Test(wait_stacks, a_recordings_wait_slices_carry_their_stacks_id_one_per_path)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *json;
	cr_assert_geq(asprintf(&json, "%s/wait_stacks.json", tp_unprivileged_out()), 0);
	struct tp_run run;
	tp_launch_unprivileged((const char *[]){"record", "-o", json, "--",
						tp_unprivileged_copy(tp_target("wait_stacks")),
						NULL},
			       (const char *[]){"TASKPROBE_RECORD_STACKS=1", NULL}, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, TAKEN);
	tp_run_free(&run);
	char *text = tp_read_file(json, NULL);
	unlink(json);
	free(json);
	/* each wait's slice ends with its arguments: its stack's id among them */
	char ending[256];
	snprintf(ending, sizeof ending, "\"name\":\"semaphore at %s\",\"args\":{", pool_site());
	unsigned long long ids[2] = {0, 0};
	unsigned n[2] = {0, 0}, slices = 0;
	for (const char *at = text; (at = strstr(at, ending)) != NULL; at++) {
		const char *stack = strstr(at, "\"stack\":"), *end = strchr(at, '}');
		slices++;
		cr_assert(stack != NULL && stack < end, "a wait slice without its stack: %.200s",
			  at);
		unsigned long long id = strtoull(stack + strlen("\"stack\":"), NULL, 10);
		cr_expect_neq(id, 0);
		int k = ids[0] == 0 || ids[0] == id ? 0 : 1;
		cr_expect(k == 0 || ids[1] == 0 || ids[1] == id, "a third stack %llu", id);
		ids[k] = id;
		n[k]++;
	}
	cr_expect_eq(slices, ALPHA_WAITS + BETA_WAITS, "%s", text);
	/* one path's 3 waits, the other's 5 (which came first is the threads' race) */
	cr_expect(n[0] + n[1] == ALPHA_WAITS + BETA_WAITS &&
			  ((n[0] == ALPHA_WAITS && n[1] == BETA_WAITS) ||
			   (n[0] == BETA_WAITS && n[1] == ALPHA_WAITS)),
		  "%u and %u waits by stack", n[0], n[1]);
	free(text);
}

/* One line of wait_order's trace: what, on which thread, when. */
struct traced_moment {
	char what; /* 'U' an unwinding began, 'S' wait-start, 'K' wait-stack */
	unsigned long long tid, ns;
};

static int by_time(const void *a, const void *b)
{
	const struct traced_moment *x = a, *y = b;
	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

/*
 * A wait's stack is unwound before its wait-start, so that the time between its wait-start and
 * wait-end holds no unwinding: on each thread, libunwind's unw_backtrace is entered after the
 * last wait's wait-stack and before the next wait-start, whose wait-stack follows it.
 */
Test(wait_stacks, a_wait_stack_is_unwound_before_its_wait_starts, .timeout = 180)
{
	tp_require_tracer();
	const char *shim = tp_shim_copy();
	char *program;
	cr_assert(asprintf(&program,
			   "uprobe:%s:unw_backtrace /pid == $1/ { printf(\"U %%d %%llu\\n\", tid, "
			   "nsecs); }\n"
			   "usdt:%s:taskprobe:wait__start /pid == $1/ "
			   "{ printf(\"S %%d %%llu\\n\", tid, nsecs); }\n"
			   "usdt:%s:taskprobe:wait__stack /pid == $1/ "
			   "{ printf(\"K %%d %%llu\\n\", tid, nsecs); }\n",
			   tp_libunwind_path(), shim, shim) > 0);
	struct tp_run run;
	tp_run_traced_by(shim, program, (const char *[]){tp_target("wait_stacks"), NULL}, NULL,
			 &run);
	cr_expect_str_eq(run.out, TAKEN);
	enum { MOMENTS_MAX = 256 };
	struct traced_moment moments[MOMENTS_MAX];
	size_t n = 0;
	for (const char *l = run.trace; l != NULL && *l != '\0';) {
		struct traced_moment m;
		if (sscanf(l, "%c %llu %llu", &m.what, &m.tid, &m.ns) == 3 &&
		    strchr("USK", m.what) != NULL) {
			cr_assert_lt(n, MOMENTS_MAX, "%s", run.trace);
			moments[n++] = m;
		}
		l = strchr(l, '\n');
		l = l != NULL ? l + 1 : NULL;
	}
	qsort(moments, n, sizeof moments[0], by_time);
	size_t stacks = 0;
	for (size_t i = 0; i < n; i++) {
		if (moments[i].what != 'K')
			continue;
		stacks++;
		/* this thread's moments before it: its wait-start, and an unwinding before that */
		const struct traced_moment *start = NULL, *unwound = NULL;
		for (size_t j = i; j-- > 0 && unwound == NULL;) {
			if (moments[j].tid != moments[i].tid)
				continue;
			if (start == NULL) {
				cr_expect_eq(
					moments[j].what, 'S',
					"thread %llu: %c between a wait-start and its wait-stack",
					moments[i].tid, moments[j].what);
				start = &moments[j];
			} else if (moments[j].what == 'U') {
				unwound = &moments[j];
			} else {
				break;
			}
		}
		cr_expect_not_null(unwound,
				   "thread %llu: no unwinding before the wait-start at %llu",
				   moments[i].tid, start != NULL ? start->ns : 0);
	}
	cr_expect_geq(stacks, ALPHA_WAITS + BETA_WAITS, "%s", run.trace);
	tp_run_free(&run);
	free(program);
}

/*
 * The depths of the pool's wait stacks, each wait's, with wait-stack attached to `shim` and the
 * probes `also` (bpftrace text) beside it.
 */
static void pool_stack_depths(const char *shim, const char *also,
			      unsigned depths[ALPHA_WAITS + BETA_WAITS])
{
	char *program;
	cr_assert(asprintf(&program,
			   "usdt:%s:taskprobe:wait__stack /pid == $1 && arg0 == %d/ "
			   "{ printf(\"DEPTH %%d\\n\", arg4); }\n%s",
			   shim, TP_WAIT_SEMAPHORE, also) > 0);
	struct tp_run run;
	tp_run_traced_by(shim, program, (const char *[]){tp_target("wait_stacks"), NULL}, NULL,
			 &run);
	cr_expect_str_eq(run.out, TAKEN);
	unsigned n = 0;
	for (const char *l = run.trace; (l = strstr(l, "DEPTH ")) != NULL; l++)
		if (n < ALPHA_WAITS + BETA_WAITS)
			cr_assert_eq(sscanf(l, "DEPTH %u", &depths[n++]), 1);
		else
			cr_assert_fail("more wait stacks than waits:\n%s", run.trace);
	cr_assert_eq(n, ALPHA_WAITS + BETA_WAITS, "%s", run.trace);
	tp_run_free(&run);
	free(program);
}

/*
 * A stack is the program's whichever probes are on: with thread-start attached, the shim's thread
 * trampoline runs under each worker's routine, and its frame is left out as the shim's frames on
 * top are. Both of the pool's paths are as deep (queue_take, drain_*, *_worker, then libc's).
 */
Test(wait_stacks, a_wait_stack_is_the_same_with_thread_probes_on, .timeout = 180)
{
	tp_require_tracer();
	/* a copy of the shim: the tracers of other tests do not turn its thread probes on */
	const char *shim = tp_shim_copy();
	char *threads;
	cr_assert(asprintf(&threads, "usdt:%s:taskprobe:thread__start /pid == $1/ { }\n", shim) >
		  0);
	unsigned alone[ALPHA_WAITS + BETA_WAITS], beside[ALPHA_WAITS + BETA_WAITS];
	pool_stack_depths(shim, "", alone);
	pool_stack_depths(shim, threads, beside);
	free(threads);
	for (int i = 0; i < ALPHA_WAITS + BETA_WAITS; i++) {
		cr_expect_eq(alone[i], alone[0], "the pool's two paths are as deep");
		cr_expect_eq(beside[i], alone[0], "a stack %u deep with thread-start, %u without",
			     beside[i], alone[0]);
	}
}
