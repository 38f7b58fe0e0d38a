// SPDX-License-Identifier: MIT
/*
 * Threads by what they run: POOL_THREADS threads started at pool_worker, which set no name of
 * their own (theirs is the program's), and one started at io_loop, which names itself "io-loop"
 * with prctl. Each waits ROUNDS times on its own semaphore, posted by the main thread once all
 * have started (and named themselves), then ends and is joined.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <sys/prctl.h>

#define POOL_THREADS 2
#define THREADS      (POOL_THREADS + 1)
#define ROUNDS       3

static sem_t sems[THREADS];
static pthread_barrier_t started;

static void wait_rounds(sem_t *sem)
{
	pthread_barrier_wait(&started);
	for (int r = 0; r < ROUNDS; r++)
		while (sem_wait(sem) != 0)
			;
}

void *pool_worker(void *sem)
{
	wait_rounds(sem);
	return NULL;
}

void *io_loop(void *sem)
{
	prctl(PR_SET_NAME, "io-loop", 0, 0, 0);
	wait_rounds(sem);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	pthread_barrier_init(&started, NULL, THREADS + 1);
	for (int i = 0; i < THREADS; i++) {
		sem_init(&sems[i], 0, 0);
		pthread_create(&t[i], NULL, i < POOL_THREADS ? pool_worker : io_loop, &sems[i]);
	}
	pthread_barrier_wait(&started);
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < THREADS; i++)
			sem_post(&sems[i]);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("%d threads, %d rounds\n", THREADS, ROUNDS);
	return 0;
}
