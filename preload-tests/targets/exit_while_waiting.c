// SPDX-License-Identifier: MIT
/*
 * exit() while other threads are busy: THREADS threads (argv[1], default 4) each pass a
 * semaphore in a loop (a wait that returns at once), resting 50 us a round (so that the
 * number of rounds stays bounded however long the main thread is kept off the CPU), and the
 * main thread, once all of them have passed it at least once, calls exit(0) after MILLISECONDS
 * (argv[2], default 100) with the threads still running. Prints "exiting".
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int passing; /* threads that have passed their semaphore once */

static void *pass_forever(void *unused)
{
	(void)unused;
	sem_t sem;
	sem_init(&sem, 0, 0);
	sem_post(&sem);
	sem_wait(&sem);
	__atomic_add_fetch(&passing, 1, __ATOMIC_RELEASE);
	const struct timespec rest = {0, 50 * 1000};
	for (;;) {
		sem_post(&sem);
		sem_wait(&sem);
		nanosleep(&rest, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	long ms = argc > 2 ? atol(argv[2]) : 100;
	for (int i = 0; i < threads; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, pass_forever, NULL) != 0)
			return 1;
	}
	const struct timespec tick = {0, 1000 * 1000};
	while (__atomic_load_n(&passing, __ATOMIC_ACQUIRE) < threads)
		nanosleep(&tick, NULL);
	struct timespec pause = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&pause, NULL);
	printf("exiting\n");
	fflush(stdout);
	exit(0);
}
