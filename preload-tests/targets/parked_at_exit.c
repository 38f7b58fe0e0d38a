// SPDX-License-Identifier: MIT
/*
 * A worker parked when the process exits: a thread named "pool-1" waits on a condition variable
 * that is never signalled; the main thread waits until it is inside that wait (it takes the
 * mutex the wait released), then PARKED_MS later calls exit(0) under it. Run with
 * TASKPROBE_WORKERS='pool-*' the thread is a worker, parked at exit. Prints "exiting".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PARKED_MS 100

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static sem_t locked;

static void *idle_worker(void *unused)
{
	(void)unused;
	pthread_setname_np(pthread_self(), "pool-1");
	pthread_mutex_lock(&lock);
	sem_post(&locked);
	for (;;)
		pthread_cond_wait(&never, &lock);
	return NULL;
}

int main(void)
{
	sem_init(&locked, 0, 0);
	pthread_t worker;
	if (pthread_create(&worker, NULL, idle_worker, NULL) != 0)
		return 1;
	while (sem_wait(&locked) != 0)
		;
	pthread_mutex_lock(&lock); /* the worker's wait released it: it is waiting */
	const struct timespec parked = {0, PARKED_MS * 1000000L};
	nanosleep(&parked, NULL);
	printf("exiting\n");
	fflush(stdout);
	exit(0);
}
