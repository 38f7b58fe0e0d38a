// SPDX-License-Identifier: MIT
/*
 * One source line with two calls of a wait: a consumer takes ROUNDS items (argv[1], default
 * 40), each at one of two sem_wait calls written on one line (built -O0: two call addresses);
 * the main thread gives an item a millisecond, so that the consumer blocks. Prints "taken N".
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static sem_t items;
static long rounds = 40, taken;

static void *consumer(void *unused)
{
	(void)unused;
	for (long i = 0; i < rounds; i++) {
		// clang-format off
		if (i % 2 == 0) sem_wait(&items); else sem_wait(&items); /* two calls, one line */
		// clang-format on
		taken++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atol(argv[1]);
	sem_init(&items, 0, 0);
	pthread_t t;
	pthread_create(&t, NULL, consumer, NULL);
	for (long i = 0; i < rounds; i++) {
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
		sem_post(&items);
	}
	pthread_join(t, NULL);
	printf("taken %ld\n", taken);
	return 0;
}
