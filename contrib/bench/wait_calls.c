// SPDX-License-Identifier: MIT
/*
 * Makes COUNT calls (argv[2]) of one interposed wait function (argv[1]) that return at once,
 * so that instruction counts with and without the shim differ only by the interposition.
 * An ordinary program: it knows nothing of taskprobe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr,
			"usage: %s sem_wait|futex_wait|futex_wake|cond_timedwait|poll|epoll_wait|"
			"mutex_lock COUNT\n",
			argv[0]);
		return 2;
	}
	const char *op = argv[1];
	long count = atol(argv[2]);
	sem_t sem;
	sem_init(&sem, 0, 0);
	unsigned word = 0;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct timespec past = {0, 0};
	int ep = epoll_create1(0);
	struct epoll_event ev;
	pthread_mutex_lock(&m);

	for (long i = 0; i < count; i++) {
		if (strcmp(op, "sem_wait") == 0) {
			sem_post(&sem);
			sem_wait(&sem);
		} else if (strcmp(op, "futex_wait") == 0) {
			syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 1, NULL, NULL,
				0); /* EAGAIN */
		} else if (strcmp(op, "futex_wake") == 0) {
			syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		} else if (strcmp(op, "cond_timedwait") == 0) {
			pthread_cond_timedwait(&c, &m, &past); /* ETIMEDOUT */
		} else if (strcmp(op, "poll") == 0) {
			poll(NULL, 0, 0);
		} else if (strcmp(op, "epoll_wait") == 0) {
			epoll_wait(ep, &ev, 1, 0);
		} else if (strcmp(op, "mutex_lock") == 0) {
			pthread_mutex_lock(&free_lock); /* free: taken at once */
			pthread_mutex_unlock(&free_lock);
		} else {
			fprintf(stderr, "unknown call %s\n", op);
			return 2;
		}
	}
	return 0;
}
