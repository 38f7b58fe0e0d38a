// SPDX-License-Identifier: MIT
/*
 * A thread passes a semaphore ROUNDS times (argv[1], default 20000; a wait that returns at once)
 * while the main thread tries to exec a program that is not there, once the thread has passed
 * it a first time: the exec fails with ENOENT and both threads run on. Prints "exec failed:
 * ENOENT" and, after the thread ends, "ROUNDS rounds".
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long rounds;
static int started; /* the thread has passed its semaphore once */

static void *pass(void *unused)
{
	(void)unused;
	sem_t sem;
	sem_init(&sem, 0, 0);
	for (long i = 0; i < rounds; i++) {
		sem_post(&sem);
		sem_wait(&sem);
		if (i == 0)
			__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	rounds = argc > 1 ? atol(argv[1]) : 20000;
	pthread_t t;
	if (rounds < 1 || pthread_create(&t, NULL, pass, NULL) != 0)
		return 1;
	const struct timespec tick = {0, 100 * 1000};
	while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
		nanosleep(&tick, NULL);
	char *const no_args[] = {"not-there", NULL};
	execv("/nonexistent-directory/not-there", no_args);
	printf("exec failed: %s\n", errno == ENOENT ? "ENOENT" : "another error");
	fflush(stdout);
	pthread_join(t, NULL);
	printf("%ld rounds\n", rounds);
	return 0;
}
