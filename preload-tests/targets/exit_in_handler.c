// SPDX-License-Identifier: MIT
/*
 * exit() from a signal handler that may have interrupted malloc. One wait first (a poll of no
 * descriptor for a millisecond) and a thread that stays parked on a semaphore: the process is
 * multi-threaded, so that malloc takes its arena's lock. Then the main thread allocates and frees
 * blocks too large for malloc's per-thread cache (each call takes that lock) until an interval
 * timer's SIGALRM handler calls exit(3).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>

static sem_t never;

static void *parked(void *unused)
{
	(void)unused;
	while (sem_wait(&never) != 0)
		;
	return NULL;
}

static void leave(int sig)
{
	(void)sig;
	exit(3);
}

int main(void)
{
	poll(NULL, 0, 1);
	sem_init(&never, 0, 0);
	pthread_t thread;
	if (pthread_create(&thread, NULL, parked, NULL) != 0)
		return 1;
	struct sigaction act = {.sa_handler = leave};
	sigemptyset(&act.sa_mask);
	sigaction(SIGALRM, &act, NULL);
	struct itimerval timer = {.it_value = {.tv_usec = 20000}};
	setitimer(ITIMER_REAL, &timer, NULL);
	for (size_t i = 0;; i++) {
		void *volatile block = malloc(2048 + (i % 64) * 512);
		free(block);
	}
}
