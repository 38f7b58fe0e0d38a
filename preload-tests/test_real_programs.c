/* Programs nobody here wrote, unchanged under the shim: xz's threads and a Rust std program. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
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
	size_t cond_waits = 0;
	for (size_t i = 0; i < tp_count(&run, "wait__start", 0); i++)
		cond_waits += tp_nth(&run, "wait__start", 0, i)->arg[0] == 2;
	cr_expect_gt(cond_waits, 0, "xz's threads wait on condition variables");
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
