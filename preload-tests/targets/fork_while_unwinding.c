// SPDX-License-Identifier: MIT
/*
 * Forks 40 times while two other threads keep starting threads that wait at once (a semaphore
 * posted before, a poll of nothing): a new thread's waits are unwound by the live statistics
 * (their stacks), so another thread is often inside libunwind, holding its locks, at a fork.
 * Each child starts such a thread too and exits: it must exit. Prints how many children exited
 * cleanly (a child still there after 3 s is killed and not counted).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>

#include "forked_children.h"

static void *waits_at_once(void *arg)
{
	sem_t sem;
	sem_init(&sem, 0, 0);
	for (int i = 0; i < 20; i++) {
		sem_post(&sem);
		sem_wait(&sem);
		poll(NULL, 0, 0);
	}
	sem_destroy(&sem);
	return arg;
}

/* A thread that waits at once, started and joined. */
static void start_one(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, waits_at_once, NULL) == 0)
		pthread_join(t, NULL);
}

static void *starts_threads(void *arg)
{
	for (;;)
		start_one();
	return arg;
}

int main(void)
{
	pthread_t starters[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&starters[i], NULL, starts_threads, NULL) != 0)
			return 1;
	usleep(5000);
	forked_children_exit(40, start_one);
}
