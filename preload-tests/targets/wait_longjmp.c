// SPDX-License-Identifier: MIT
/*
 * A signal handler that siglongjmps out of a blocked sem_wait (allowed: sem_wait is
 * async-signal-safe), after which the thread waits again and ends with pthread_exit. The
 * thread is named "pool-waiter" (a worker under TASKPROBE_WORKERS='pool-*').
 * Prints what happened; exit status 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

static sigjmp_buf escape;
static sem_t never, go;

static void jump_out(int sig)
{
	(void)sig;
	siglongjmp(escape, 1);
}

void *waiter(void *arg)
{
	pthread_setname_np(pthread_self(), "pool-waiter");
	if (sigsetjmp(escape, 1) == 0) {
		sem_post(&go);
		sem_wait(&never); /* left by the handler */
	}
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_nsec += 10 * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	sem_timedwait(&never, &deadline); /* times out */
	pthread_exit(arg);
}

int main(void)
{
	struct sigaction sa = {.sa_handler = jump_out};
	sigaction(SIGUSR1, &sa, NULL);
	sem_init(&never, 0, 0);
	sem_init(&go, 0, 0);
	pthread_t t;
	pthread_create(&t, NULL, waiter, (void *)7);
	while (sem_wait(&go) != 0)
		;
	struct timespec pause = {0, 50 * 1000000};
	nanosleep(&pause, NULL); /* the waiter is in sem_wait by now */
	pthread_kill(t, SIGUSR1);
	void *ret;
	pthread_join(t, &ret);
	printf("jumped out of the wait, waited again, exited with %ld\n", (long)ret);
	return 0;
}
