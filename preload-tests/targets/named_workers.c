/*
 * Three threads that each wait ROUNDS times on their own semaphore: "pool-1" is named by its
 * creator with pthread_setname_np, "pool-2" names itself with prctl, "other" names itself with
 * pthread_setname_np. Run with TASKPROBE_WORKERS='pool-*' the first two are workers.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <sys/prctl.h>

#define ROUNDS 5

static sem_t sems[3];
static pthread_barrier_t named;

static void wait_rounds(int i)
{
	pthread_barrier_wait(&named);
	for (int r = 0; r < ROUNDS; r++)
		while (sem_wait(&sems[i]) != 0)
			;
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

int main(void)
{
	pthread_t t[3];
	void *(*routines[3])(void *) = {pool_1, pool_2, other};
	pthread_barrier_init(&named, NULL, 4);
	for (int i = 0; i < 3; i++) {
		sem_init(&sems[i], 0, 0);
		pthread_create(&t[i], NULL, routines[i], NULL);
	}
	pthread_setname_np(t[0], "pool-1");
	pthread_barrier_wait(&named);
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < 3; i++)
			sem_post(&sems[i]);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("%d rounds on 3 threads\n", ROUNDS);
	return 0;
}
