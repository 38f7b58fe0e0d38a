// SPDX-License-Identifier: MIT
/* Programs nobody here wrote, the same under the shim: xz, zstd, pigz, Python threads, Rust std. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* Some megabytes of compressible but not trivial text, the same every time. */
static char *make_input(void)
{
	static char path[] = "/tmp/taskprobe-test-xz-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	FILE *f = fdopen(fd, "w");
	unsigned long x = 12345;
	for (int line = 0; line < 200000; line++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		fprintf(f, "line %d: %lx %lu\n", line, x >> 20, (x >> 40) % 1000);
	}
	fclose(f);
	return path;
}

Test(real_programs, xz_with_two_threads_is_unchanged_and_shows_threads_and_condition_waits,
     .timeout = 300)
{
	tp_require_program("/usr/bin/xz", "xz-utils");
	char *input = make_input();
	const char *argv[] = {"/usr/bin/xz", "-T2", "-0", "-c", input, NULL};
	struct tp_run run;
	tp_run_both(argv, NULL, &run);
	unlink(input);
	cr_expect_eq(run.status, 0);
	cr_expect_gt(run.out_len, 1000);

	tp_assert_threads_paired(&run, 2);
	tp_assert_waits_paired(&run);
	cr_expect_gt(tp_count_waits(&run, 2), 0, "xz's threads wait on condition variables");
	tp_run_free(&run);
}

Test(real_programs, rust_std_threads_locks_and_epoll, .timeout = 180)
{
	const char *argv[] = {tp_require_program(tp_target("rust_threads"), "rustc"), NULL};
	struct tp_run run;
	tp_run_both(argv, NULL, &run);
	cr_expect_eq(run.status, 0);

	tp_assert_threads_paired(&run, 2);
	tp_assert_waits_paired(&run);
	size_t futex = 0, epoll = 0;
	for (size_t i = 0; i < tp_count(&run, "wait__start", 0); i++) {
		const struct tp_event *s = tp_nth(&run, "wait__start", 0, i);
		futex += s->arg[0] == 1;
		if (s->arg[0] == 4) {
			epoll++;
			cr_expect_eq(s->arg[2], 20 * 1000000LL, "epoll timeout %lld",
				     (long long)s->arg[2]);
		}
	}
	cr_expect_gt(futex, 0, "the Condvar wait is a futex wait through syscall()");
	cr_expect_eq(epoll, 1);
	tp_run_free(&run);
}

/* `argv` unchanged plainly, preloaded and traced; the traced run's threads and waits pair. */
static void expect_unchanged(const char *const argv[], struct tp_run *traced)
{
	tp_run_all_ways(argv, NULL, traced);
	tp_assert_threads_paired(traced, -1);
	tp_assert_waits_paired(traced);
}

Test(real_programs, zstd_and_pigz_with_two_threads_are_unchanged, .timeout = 300)
{
	const char *zstd = tp_require_program("/usr/bin/zstd", "zstd");
	const char *pigz = tp_require_program("/usr/bin/pigz", "pigz");
	char *input = make_input();
	const char *zstd_argv[] = {zstd, "-q", "-T2", "-1", "-c", input, NULL};
	const char *pigz_argv[] = {pigz, "-p", "2", "-c", input, NULL};
	const char *const *programs[] = {zstd_argv, pigz_argv};
	for (size_t i = 0; i < 2; i++) {
		struct tp_run run;
		expect_unchanged(programs[i], &run);
		cr_expect_eq(run.status, 0);
		cr_expect_gt(run.out_len, 1000);
		cr_expect_gt(tp_count(&run, "thread__start", 0), 0, "%s starts threads",
			     programs[i][0]);
		cr_expect_gt(tp_count(&run, "wait__start", 0), 0, "%s's threads wait",
			     programs[i][0]);
		tp_run_free(&run);
	}
	unlink(input);
}

Test(real_programs, python_threads_are_unchanged, .timeout = 300)
{
	const char *python = tp_require_program("/usr/bin/python3", "python3");
	/* four threads hand numbers through a queue and a lock: semaphores and condition waits */
	const char *argv[] = {python, "-c",
			      "import threading, queue\n"
			      "q, total, lock = queue.Queue(), [0], threading.Lock()\n"
			      "def work():\n"
			      "    while (n := q.get()) is not None:\n"
			      "        with lock: total[0] += n * n\n"
			      "threads = [threading.Thread(target=work) for _ in range(4)]\n"
			      "for t in threads: t.start()\n"
			      "for n in range(20000): q.put(n)\n"
			      "for _ in threads: q.put(None)\n"
			      "for t in threads: t.join()\n"
			      "print(total[0])\n",
			      NULL};
	struct tp_run run;
	expect_unchanged(argv, &run);
	cr_expect_eq(run.status, 0);
	cr_expect_str_eq(run.out, "2666466670000\n");
	cr_expect_eq(tp_count(&run, "thread__start", 0), 4);
	tp_run_free(&run);
}
