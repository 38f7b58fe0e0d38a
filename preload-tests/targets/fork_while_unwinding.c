// SPDX-License-Identifier: MIT
/*
 * Forks 40 times while two other threads keep starting threads that wait at once (a semaphore
 * posted before, a poll of nothing): a new thread's waits are unwound by the live statistics
 * (their stacks), so another thread is often inside libunwind, holding its locks, at a fork.
 * Each child starts such a thread too and exits: it must exit. Prints how many children exited
 * cleanly (a child still there after 3 s is killed and not counted).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void *waits_at_once(void *arg)
{
	sem_t sem;
	sem_init(&sem, 0, 0);
	for (int i = 0; i < 20; i++) {
		sem_post(&sem);
		sem_wait(&sem);
		poll(NULL, 0, 0);
	}
	sem_destroy(&sem);
	return arg;
}

static void *starts_threads(void *arg)
{
	for (;;) {
		pthread_t t;
		if (pthread_create(&t, NULL, waits_at_once, NULL) == 0)
			pthread_join(t, NULL);
	}
	return arg;
}

int main(void)
{
	pthread_t starters[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&starters[i], NULL, starts_threads, NULL) != 0)
			return 1;
	usleep(5000);
	int clean = 0;
	for (int k = 0; k < 40; k++) {
		pid_t child = fork();
		if (child == 0) {
			pthread_t t;
			if (pthread_create(&t, NULL, waits_at_once, NULL) == 0)
				pthread_join(t, NULL);
			_exit(0);
		}
		int status = 0, done = 0;
		for (int tick = 0; tick < 300 && !done; tick++)
			if (waitpid(child, &status, WNOHANG) == child)
				done = 1;
			else
				usleep(10000);
		if (!done) {
			kill(child, SIGKILL);
			waitpid(child, &status, 0);
		}
		clean += done && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	printf("%d children exited cleanly\n", clean);
	fflush(stdout);
	_exit(0);
}
