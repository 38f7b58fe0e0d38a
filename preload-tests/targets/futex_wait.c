// SPDX-License-Identifier: MIT
/*
 * Raw futex waits through syscall(), as hand-written executors make them: one that times out,
 * one whose value no longer matches, one absolute-deadline bitset wait, and one woken by
 * another thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned word;

static long futex(unsigned *addr, int op, unsigned val, const struct timespec *ts, unsigned bits)
{
	return syscall(SYS_futex, addr, op, val, ts, NULL, bits);
}

static void report(const char *what, long r)
{
	printf("%s: %ld %s\n", what, r, r == -1 ? strerror(errno) : "ok");
}

void *waker(void *arg)
{
	struct timespec pause = {0, 50 * 1000000};
	nanosleep(&pause, NULL);
	__atomic_store_n(&word, 1, __ATOMIC_SEQ_CST);
	futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL, 0);
	return arg;
}

int main(void)
{
	struct timespec rel = {0, 20 * 1000000};
	report("wait timeout", futex(&word, FUTEX_WAIT_PRIVATE, 0, &rel, 0));
	report("wait mismatch", futex(&word, FUTEX_WAIT_PRIVATE, 7, &rel, 0));

	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_nsec += 20 * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	report("bitset timeout",
	       futex(&word, FUTEX_WAIT_BITSET_PRIVATE, 0, &deadline, FUTEX_BITSET_MATCH_ANY));

	pthread_t t;
	pthread_create(&t, NULL, waker, NULL);
	while (__atomic_load_n(&word, __ATOMIC_SEQ_CST) == 0)
		futex(&word, FUTEX_WAIT_PRIVATE, 0, NULL, 0);
	pthread_join(t, NULL);
	printf("woken\n");
	printf("getpid via syscall matches: %d\n", syscall(SYS_getpid) == getpid());
	return 0;
}
