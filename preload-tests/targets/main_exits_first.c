// SPDX-License-Identifier: MIT
/*
 * main() ends with pthread_exit while its threads still run: THREADS threads (2) each pass a
 * semaphore WAITS times (argv[1], default 1000), sleep 20 ms, and pass it WAITS times more.
 * The process ends with the last thread, exit status 0. Prints nothing. With argv[2] "masked",
 * main first handles SIGALRM twice (a handler that returns) and blocks it, which its threads
 * inherit: the last thread's exit is in no handler all the same.
 */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

enum { THREADS = 2 };
static long waits = 1000;

static void pass(sem_t *sem)
{
	for (long i = 0; i < waits; i++) {
		sem_post(sem);
		sem_wait(sem);
	}
}

static void *run(void *unused)
{
	(void)unused;
	sem_t sem;
	sem_init(&sem, 0, 0);
	pass(&sem);
	const struct timespec pause = {0, 20 * 1000 * 1000};
	nanosleep(&pause, NULL);
	pass(&sem);
	return NULL;
}

static void handled(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		waits = atol(argv[1]);
	if (argc > 2 && strcmp(argv[2], "masked") == 0) {
		struct sigaction action = {.sa_handler = handled};
		sigaction(SIGALRM, &action, NULL);
		raise(SIGALRM);
		raise(SIGALRM);
		sigset_t alarm;
		sigemptyset(&alarm);
		sigaddset(&alarm, SIGALRM);
		pthread_sigmask(SIG_BLOCK, &alarm, NULL);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, run, NULL) != 0)
			return 1;
	}
	pthread_exit(NULL);
}
