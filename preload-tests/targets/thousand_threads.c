// SPDX-License-Identifier: MIT
/*
 * THREADS threads (argv[1], default 1000) alive at once: each waits at a barrier for all the
 * others, then makes one semaphore wait that returns at once, and returns. Prints how many
 * ran.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t all_up;
static int ran;

static void *thread_main(void *arg)
{
	pthread_barrier_wait(&all_up);
	sem_t sem;
	sem_init(&sem, 0, 1);
	sem_wait(&sem);
	__atomic_add_fetch(&ran, 1, __ATOMIC_RELAXED);
	return arg;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	pthread_t *ids = calloc((size_t)n, sizeof *ids);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_barrier_init(&all_up, NULL, (unsigned)n);
	for (long i = 0; i < n; i++)
		if (pthread_create(&ids[i], &attr, thread_main, NULL) != 0)
			return 1;
	for (long i = 0; i < n; i++)
		pthread_join(ids[i], NULL);
	printf("%d threads ran\n", ran);
	return 0;
}
