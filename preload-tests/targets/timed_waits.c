// SPDX-License-Identifier: MIT
/*
 * Waits with absolute deadlines 40 ms ahead on every clock the APIs take, all timing out:
 * condition variables (timedwait with a realtime and a monotonic condattr, clockwait on both
 * clocks), semaphores (timedwait, clockwait on both clocks), futex WAIT_BITSET through
 * syscall() (monotonic, and realtime with FUTEX_CLOCK_REALTIME).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <semaphore.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static struct timespec in_ms(clockid_t clock, long ms)
{
	struct timespec t;
	clock_gettime(clock, &t);
	t.tv_nsec += ms * 1000000;
	t.tv_sec += t.tv_nsec / 1000000000;
	t.tv_nsec %= 1000000000;
	return t;
}

int main(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t realtime = PTHREAD_COND_INITIALIZER, monotonic;
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&monotonic, &attr);

	pthread_mutex_lock(&m);
	struct timespec t = in_ms(CLOCK_REALTIME, 40);
	int r = pthread_cond_timedwait(&realtime, &m, &t);
	printf("timedwait realtime: %s\n", strerror(r));
	t = in_ms(CLOCK_MONOTONIC, 40);
	r = pthread_cond_timedwait(&monotonic, &m, &t);
	printf("timedwait monotonic: %s\n", strerror(r));
	t = in_ms(CLOCK_MONOTONIC, 40);
	r = pthread_cond_clockwait(&realtime, &m, CLOCK_MONOTONIC, &t);
	printf("clockwait monotonic: %s\n", strerror(r));
	t = in_ms(CLOCK_REALTIME, 40);
	r = pthread_cond_clockwait(&realtime, &m, CLOCK_REALTIME, &t);
	printf("clockwait realtime: %s\n", strerror(r));
	pthread_mutex_unlock(&m);

	sem_t sem;
	sem_init(&sem, 0, 0);
	t = in_ms(CLOCK_REALTIME, 40);
	printf("sem_timedwait: %s\n", sem_timedwait(&sem, &t) == 0 ? "ok" : strerror(errno));
	t = in_ms(CLOCK_MONOTONIC, 40);
	printf("sem_clockwait monotonic: %s\n",
	       sem_clockwait(&sem, CLOCK_MONOTONIC, &t) == 0 ? "ok" : strerror(errno));
	t = in_ms(CLOCK_REALTIME, 40);
	printf("sem_clockwait realtime: %s\n",
	       sem_clockwait(&sem, CLOCK_REALTIME, &t) == 0 ? "ok" : strerror(errno));

	unsigned word = 0;
	t = in_ms(CLOCK_MONOTONIC, 40);
	long f = syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE, 0, &t, NULL,
			 FUTEX_BITSET_MATCH_ANY);
	printf("futex bitset monotonic: %s\n", f == 0 ? "ok" : strerror(errno));
	t = in_ms(CLOCK_REALTIME, 40);
	f = syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 0, &t, NULL,
		    FUTEX_BITSET_MATCH_ANY);
	printf("futex bitset realtime: %s\n", f == 0 ? "ok" : strerror(errno));
	return 0;
}
