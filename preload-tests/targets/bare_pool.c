// SPDX-License-Identifier: MIT
/*
 * A library shipped stripped (no .symtab): its threads start at a function no symbol names.
 * bare_pool_run starts BARE_POOL_THREADS threads, which set no name of their own; each waits
 * `rounds` times on its own semaphore, posted once all have started; then they are joined.
 */
#include <pthread.h>
#include <semaphore.h>

#include "bare_pool.h"

static sem_t sems[BARE_POOL_THREADS];
static pthread_barrier_t started;
static int rounds_to_wait;

static void *pool_thread(void *sem)
{
	pthread_barrier_wait(&started);
	for (int r = 0; r < rounds_to_wait; r++)
		while (sem_wait(sem) != 0)
			;
	return NULL;
}

int bare_pool_run(int rounds)
{
	pthread_t t[BARE_POOL_THREADS];
	rounds_to_wait = rounds;
	pthread_barrier_init(&started, NULL, BARE_POOL_THREADS + 1);
	for (int i = 0; i < BARE_POOL_THREADS; i++) {
		sem_init(&sems[i], 0, 0);
		if (pthread_create(&t[i], NULL, pool_thread, &sems[i]) != 0)
			return -1;
	}
	pthread_barrier_wait(&started);
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < BARE_POOL_THREADS; i++)
			sem_post(&sems[i]);
	for (int i = 0; i < BARE_POOL_THREADS; i++)
		pthread_join(t[i], NULL);
	return BARE_POOL_THREADS;
}
