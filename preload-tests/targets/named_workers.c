// SPDX-License-Identifier: MIT
/*
 * Three threads that each wait ROUNDS times on their own semaphore: "pool-1" is named by its
 * creator with pthread_setname_np, "pool-2" names itself with prctl, "other" names itself with
 * pthread_setname_np. Run with TASKPROBE_WORKERS='pool-*' the first two are workers.
 * With the argument "retire", a fourth thread names itself "pool-3", waits twice, renames itself
 * "retired" and waits the other rounds.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#define ROUNDS 5

static sem_t sems[4];
static pthread_barrier_t named;

static void wait_once(int i)
{
	while (sem_wait(&sems[i]) != 0)
		;
}

static void wait_rounds(int i)
{
	pthread_barrier_wait(&named);
	for (int r = 0; r < ROUNDS; r++)
		wait_once(i);
}

void *pool_1(void *arg)
{
	wait_rounds(0);
	return arg;
}

void *pool_2(void *arg)
{
	prctl(PR_SET_NAME, "pool-2", 0, 0, 0);
	wait_rounds(1);
	return arg;
}

void *other(void *arg)
{
	pthread_setname_np(pthread_self(), "other");
	wait_rounds(2);
	return arg;
}

void *retiring(void *arg)
{
	prctl(PR_SET_NAME, "pool-3", 0, 0, 0);
	pthread_barrier_wait(&named);
	for (int r = 0; r < ROUNDS; r++) {
		if (r == 2)
			prctl(PR_SET_NAME, "retired", 0, 0, 0);
		wait_once(3);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 && strcmp(argv[1], "retire") == 0 ? 4 : 3;
	pthread_t t[4];
	void *(*routines[4])(void *) = {pool_1, pool_2, other, retiring};
	pthread_barrier_init(&named, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++) {
		sem_init(&sems[i], 0, 0);
		pthread_create(&t[i], NULL, routines[i], NULL);
	}
	pthread_setname_np(t[0], "pool-1");
	pthread_barrier_wait(&named);
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < n; i++)
			sem_post(&sems[i]);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("%d rounds on %d threads\n", ROUNDS, n);
	return 0;
}
