// SPDX-License-Identifier: MIT
/* wait-start/wait-end from the futex, condition variable, semaphore and epoll/poll interposers. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "taskprobe_contract.h"

#define MS 1000000LL

/* What one wait must look like: its kind, timeout range and result. */
struct expected_wait {
	int64_t kind, timeout_min, timeout_max, result;
};

/* The first `n` waits of thread `tid` are `want`, in order; returns how many waits it made. */
static size_t expect_waits(const struct tp_run *run, uint64_t tid, const struct expected_wait *want,
			   size_t n)
{
	size_t made = tp_count(run, "wait__start", tid);
	cr_assert_geq(made, n, "thread %llu made %zu waits, expected at least %zu",
		      (unsigned long long)tid, made, n);
	for (size_t i = 0; i < n; i++) {
		const struct tp_event *s = tp_nth(run, "wait__start", tid, i);
		const struct tp_event *e = tp_nth(run, "wait__end", tid, i);
		cr_expect_eq(s->arg[0], want[i].kind, "wait %zu: kind %lld, expected %lld", i,
			     (long long)s->arg[0], (long long)want[i].kind);
		cr_expect(s->arg[2] >= want[i].timeout_min && s->arg[2] <= want[i].timeout_max,
			  "wait %zu: timeout %lld ns, expected %lld to %lld", i,
			  (long long)s->arg[2], (long long)want[i].timeout_min,
			  (long long)want[i].timeout_max);
		cr_expect_eq(e->arg[2], want[i].result, "wait %zu: result %lld, expected %lld", i,
			     (long long)e->arg[2], (long long)want[i].result);
		cr_expect_eq(s->arg[3], 0, "wait %zu: task %lld outside any task", i,
			     (long long)s->arg[3]);
	}
	return made;
}

Test(waits, absolute_deadlines_on_every_clock_are_converted_and_time_out, .timeout = 180)
{
	const char *argv[] = {tp_target("timed_waits"), NULL};
	struct tp_run run;
	tp_run_both(argv, NULL, &run);

	const struct expected_wait want[] = {
		{2, 1 * MS, 40 * MS, -110}, /* timedwait, realtime deadline */
		{2, 1 * MS, 40 * MS, -110}, /* timedwait, monotonic condattr */
		{2, 1 * MS, 40 * MS, -110}, /* clockwait, monotonic */
		{2, 1 * MS, 40 * MS, -110}, /* clockwait, realtime */
		{3, 1 * MS, 40 * MS, -110}, /* sem_timedwait (realtime) */
		{3, 1 * MS, 40 * MS, -110}, /* sem_clockwait, monotonic */
		{3, 1 * MS, 40 * MS, -110}, /* sem_clockwait, realtime */
		{1, 1 * MS, 40 * MS, -110}, /* futex WAIT_BITSET, monotonic */
		{1, 1 * MS, 40 * MS, -110}, /* futex WAIT_BITSET | FUTEX_CLOCK_REALTIME */
	};
	cr_expect_eq(expect_waits(&run, (uint64_t)run.pid, want, 9), 9);
	cr_expect_eq(tp_count(&run, "wait__start", 0), 9, "no other waits in the program");
	tp_assert_waits_paired(&run);
	tp_run_free(&run);
}

Test(waits, an_interposer_preloaded_after_the_shim_still_gets_the_condition_waits, .timeout = 120)
{
	/*
	 * Another tool's library (as a sanitizer's runtime) defining pthread_cond_timedwait
	 * unversioned: the shim's versioned lookup of glibc's must not pass over it.
	 */
	const char *argv[] = {tp_target("timed_waits"), NULL};
	char after[4200];
	snprintf(after, sizeof after, "TP_PRELOAD_AFTER_SHIM=%s/libcond_interposer.so",
		 TP_TARGETS_DIR);
	const char *env[] = {after, NULL};
	struct tp_run traced;
	tp_run_all_ways_saying(argv, env,
			       "cond_interposer: 0 pthread_cond_wait, 2 pthread_cond_timedwait\n",
			       &traced);
	cr_expect_eq(traced.status, 0);
	size_t condvar_waits = tp_count_waits(&traced, 2);
	cr_expect_eq(condvar_waits, 4, "%zu condition waits traced", condvar_waits);
	tp_run_free(&traced);
}

Test(waits, raw_futex_syscalls_are_waits_and_other_syscalls_are_not, .timeout = 180)
{
	const char *argv[] = {tp_target("futex_wait"), NULL};
	struct tp_run run;
	tp_run_both(argv, NULL, &run);

	const struct expected_wait want[] = {
		{1, 20 * MS, 20 * MS, -110}, /* FUTEX_WAIT, relative timeout */
		{1, 20 * MS, 20 * MS, -11},  /* value mismatch: EAGAIN */
		{1, 1 * MS, 20 * MS, -110},  /* FUTEX_WAIT_BITSET, absolute deadline */
		{1, -1, -1, 0},              /* woken by the other thread (or it changed first) */
	};
	size_t made = expect_waits(&run, (uint64_t)run.pid, want, 3);
	for (size_t i = 3; i < made; i++) {
		const struct tp_event *s = tp_nth(&run, "wait__start", (uint64_t)run.pid, i);
		const struct tp_event *e = tp_nth(&run, "wait__end", (uint64_t)run.pid, i);
		cr_expect_eq(s->arg[0], want[3].kind);
		cr_expect_eq(s->arg[2], want[3].timeout_min);
		cr_expect(e->arg[2] == 0 || e->arg[2] == -11, "result %lld", (long long)e->arg[2]);
	}
	cr_expect_gt(made, 3, "the wait for the other thread's wake is missing");
	/* The waker's FUTEX_WAKE and main's getpid pass through without events. */
	cr_expect_eq(tp_count(&run, "wait__start", 0), made);
	tp_assert_threads_paired(&run, 1);
	tp_assert_waits_paired(&run);
	tp_run_free(&run);
}

Test(waits, epoll_and_poll_waits_report_fd_timeout_and_result, .timeout = 180)
{
	const char *argv[] = {tp_target("pollers"), NULL};
	struct tp_run run;
	tp_run_both(argv, NULL, &run);

	int epfd = -1;
	cr_assert_eq(sscanf(run.out, "epoll fd %d", &epfd), 1, "%s", run.out);
	const struct expected_wait want[] = {
		{4, 30 * MS, 30 * MS, 0}, /* epoll_wait */
		{4, 10 * MS, 10 * MS, 0}, /* epoll_pwait */
		{4, 10 * MS, 10 * MS, 0}, /* epoll_pwait2 */
		{5, 10 * MS, 10 * MS, 0}, /* ppoll */
		{4, -1, -1, 1},           /* epoll_wait, ready */
		{5, -1, -1, 1},           /* poll, ready */
		{5, 0, 0, -22},           /* poll, EINVAL */
	};
	cr_expect_eq(expect_waits(&run, (uint64_t)run.pid, want, 7), 7);
	for (size_t i = 0; i < 7; i++) {
		const struct tp_event *s = tp_nth(&run, "wait__start", 0, i);
		if (s->arg[0] == 4)
			cr_expect_eq(s->arg[1], epfd, "epoll object %lld, fd %d",
				     (long long)s->arg[1], epfd);
		else
			cr_expect_eq(s->arg[1] != 0, i != 6, "pollfd array %#llx",
				     (unsigned long long)s->arg[1]);
	}
	tp_assert_waits_paired(&run);
	tp_run_free(&run);
}

/*
 * A sem_wait that takes its semaphore at once (main_exits_first: each of two threads posts and
 * waits on a semaphore of its own, 2 x 1000 times) fires wait-start and wait-end as any wait:
 * kind 3, its semaphore, result 0, paired; the program's output and status as without the shim.
 */
Test(waits, a_sem_wait_taken_at_once_fires_both_wait_probes, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_MAIN_EXITS_FIRST_UNDER_TSAN);
	const char *argv[] = {tp_target("main_exits_first"), "1000", NULL};
	struct tp_run run;
	tp_run_both(argv, NULL, &run);
	cr_expect_eq(run.status, 0);
	cr_expect_eq(tp_count_waits(&run, TP_WAIT_SEMAPHORE), 4000);
	cr_expect_eq(tp_count(&run, "wait__start", 0), 4000);
	cr_expect_eq(tp_count(&run, "wait__end", 0), 4000);
	size_t ended_taken = 0;
	for (size_t i = 0; i < tp_count(&run, "wait__end", 0); i++) {
		const struct tp_event *e = tp_nth(&run, "wait__end", 0, i);
		ended_taken += e->arg[0] == TP_WAIT_SEMAPHORE && e->arg[2] == 0;
	}
	cr_expect_eq(ended_taken, 4000, "%zu of 4000 semaphore waits ended with 0", ended_taken);
	tp_assert_waits_paired(&run);
	tp_run_free(&run);
}
