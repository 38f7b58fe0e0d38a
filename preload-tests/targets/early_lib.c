// SPDX-License-Identifier: MIT
/*
 * A library that works in its constructor and destructor: the constructor starts a thread
 * that makes three semaphore waits (posted by the constructor) and waits in poll(); the
 * destructor joins it and waits itself. Preloaded before the shim, all of it runs before the
 * shim's own constructor has.
 */
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

static sem_t posts;
static pthread_t worker;
static int waits_done;

static void *work(void *arg)
{
	for (int i = 0; i < 3; i++)
		if (sem_wait(&posts) == 0)
			waits_done++;
	poll(NULL, 0, 1);
	return arg;
}

__attribute__((constructor)) static void start(void)
{
	sem_init(&posts, 0, 0);
	pthread_create(&worker, NULL, work, NULL);
	for (int i = 0; i < 3; i++)
		sem_post(&posts);
}

int early_lib_waits(void)
{
	pthread_join(worker, NULL);
	return waits_done;
}

__attribute__((destructor)) static void finish(void)
{
	struct timespec past = {0, 0};
	sem_timedwait(&posts, &past);
	poll(NULL, 0, 1);
	fprintf(stderr, "early_lib: destructor waited\n");
}
