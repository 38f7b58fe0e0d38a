// SPDX-License-Identifier: MIT
/*
 * Waits that succeed with errno set before them, the first of the process at their sites: a
 * semaphore's, a condition variable's (timed out: its result is its own, errno untouched), each
 * printed with whether errno changed across the call. The same output with and without the shim.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

#define ERRNO_MARK 4242

static void said(const char *call, int result)
{
	printf("%s: %d%s\n", call, result, errno == ERRNO_MARK ? "" : " (errno changed)");
	errno = ERRNO_MARK;
}

int main(void)
{
	sem_t sem;
	sem_init(&sem, 0, 2);
	errno = ERRNO_MARK;
	int r = sem_wait(&sem);
	said("sem_wait", r);
	r = sem_wait(&sem);
	said("sem_wait again", r);
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	pthread_mutex_lock(&m);
	r = pthread_cond_timedwait(&c, &m, &t);
	pthread_mutex_unlock(&m);
	said("pthread_cond_timedwait, timed out", r);
	return 0;
}
