// SPDX-License-Identifier: MIT
/*
 * Two threads hand a turn back and forth ROUNDS times (argv[2]) through a condition variable
 * (argv[1] = cond) or a futex word through syscall() (futex), as a work queue's producer and
 * consumer do. Prints on stderr how many calls of the waiting API it made (waits and wakes), so
 * that a benchmark can divide by them. An ordinary program: it knows nothing of taskprobe.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long rounds;
static int use_futex;
static unsigned turn; /* whose turn: 0 or 1 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static long calls[2];

static void take_turns(int me)
{
	for (long r = 0; r < rounds; r++) {
		if (use_futex) {
			while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != (unsigned)me) {
				syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, !me, NULL, NULL, 0);
				calls[me]++;
			}
			__atomic_store_n(&turn, !me, __ATOMIC_RELEASE);
			syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
			calls[me]++;
		} else {
			pthread_mutex_lock(&lock);
			while (turn != (unsigned)me) {
				pthread_cond_wait(&changed, &lock);
				calls[me]++;
			}
			turn = !me;
			pthread_cond_signal(&changed);
			pthread_mutex_unlock(&lock);
		}
	}
}

static void *other(void *arg)
{
	(void)arg;
	take_turns(1);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "cond") != 0 && strcmp(argv[1], "futex") != 0)) {
		fprintf(stderr, "usage: %s cond|futex ROUNDS\n", argv[0]);
		return 2;
	}
	use_futex = strcmp(argv[1], "futex") == 0;
	rounds = atol(argv[2]);
	pthread_t t;
	pthread_create(&t, NULL, other, NULL);
	take_turns(0);
	pthread_join(t, NULL);
	fprintf(stderr, "calls %ld\n", calls[0] + calls[1]);
	return 0;
}
