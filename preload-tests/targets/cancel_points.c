// SPDX-License-Identifier: MIT
/*
 * A thread blocked in each wrapped call that is a cancellation point, cancelled and joined:
 * sem_wait, sem_timedwait, sem_clockwait, pthread_cond_wait, pthread_cond_timedwait,
 * pthread_cond_clockwait, poll, ppoll, epoll_wait, epoll_pwait, epoll_pwait2. Prints whether
 * each thread ended cancelled. Then a thread cancelled before it calls sem_wait on a semaphore
 * it could take: sem_wait acts on the cancellation first, the semaphore left as it was.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

static sem_t sem, blocked, cancel_sent, free_sem;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int pipe_fds[2], ep;

static struct timespec far_deadline(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	t.tv_sec += 3600;
	return t;
}

static void unlock(void *m)
{
	pthread_mutex_unlock(m);
}

/* Cancelled while its cancellation is disabled, then sem_wait on a semaphore it could take. */
static void *take_when_cancelled(void *arg)
{
	(void)arg;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	sem_post(&blocked);
	sem_wait(&cancel_sent);
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	sem_wait(&free_sem);
	return NULL;
}

static void *block_in(void *arg)
{
	const char *call = arg;
	struct timespec hour = {3600, 0}, deadline;
	struct pollfd pfd = {.fd = pipe_fds[0], .events = POLLIN};
	struct epoll_event ev;
	sem_post(&blocked); /* about to block: the main thread may cancel now */
	if (strncmp(call, "pthread_cond", 12) == 0) {
		pthread_mutex_lock(&lock);
		pthread_cleanup_push(unlock, &lock);
		if (strcmp(call, "pthread_cond_wait") == 0) {
			for (;;)
				pthread_cond_wait(&cond, &lock);
		} else if (strcmp(call, "pthread_cond_timedwait") == 0) {
			deadline = far_deadline(CLOCK_REALTIME);
			for (;;)
				pthread_cond_timedwait(&cond, &lock, &deadline);
		} else {
			deadline = far_deadline(CLOCK_MONOTONIC);
			for (;;)
				pthread_cond_clockwait(&cond, &lock, CLOCK_MONOTONIC, &deadline);
		}
		pthread_cleanup_pop(1);
	}
	for (;;) {
		if (strcmp(call, "sem_wait") == 0) {
			sem_wait(&sem);
		} else if (strcmp(call, "sem_timedwait") == 0) {
			deadline = far_deadline(CLOCK_REALTIME);
			sem_timedwait(&sem, &deadline);
		} else if (strcmp(call, "sem_clockwait") == 0) {
			deadline = far_deadline(CLOCK_MONOTONIC);
			sem_clockwait(&sem, CLOCK_MONOTONIC, &deadline);
		} else if (strcmp(call, "poll") == 0) {
			poll(&pfd, 1, -1);
		} else if (strcmp(call, "ppoll") == 0) {
			ppoll(&pfd, 1, &hour, NULL);
		} else if (strcmp(call, "epoll_wait") == 0) {
			epoll_wait(ep, &ev, 1, -1);
		} else if (strcmp(call, "epoll_pwait") == 0) {
			epoll_pwait(ep, &ev, 1, -1, NULL);
		} else {
			epoll_pwait2(ep, &ev, 1, &hour, NULL);
		}
	}
	return NULL;
}

int main(void)
{
	const char *calls[] = {"sem_wait",
			       "sem_timedwait",
			       "sem_clockwait",
			       "pthread_cond_wait",
			       "pthread_cond_timedwait",
			       "pthread_cond_clockwait",
			       "poll",
			       "ppoll",
			       "epoll_wait",
			       "epoll_pwait",
			       "epoll_pwait2"};
	sem_init(&sem, 0, 0);
	sem_init(&blocked, 0, 0);
	if (pipe(pipe_fds) != 0)
		return 1;
	ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN};
	epoll_ctl(ep, EPOLL_CTL_ADD, pipe_fds[0], &ev);
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		pthread_t t;
		pthread_create(&t, NULL, block_in, (void *)calls[i]);
		sem_wait(&blocked);
		usleep(20000); /* let it block */
		pthread_cancel(t);
		void *result;
		pthread_join(t, &result);
		printf("%s: %s\n", calls[i], result == PTHREAD_CANCELED ? "cancelled" : "returned");
	}
	sem_init(&cancel_sent, 0, 0);
	sem_init(&free_sem, 0, 1);
	pthread_t t;
	pthread_create(&t, NULL, take_when_cancelled, NULL);
	sem_wait(&blocked);
	pthread_cancel(t);
	sem_post(&cancel_sent);
	void *result;
	pthread_join(t, &result);
	int value = -1;
	sem_getvalue(&free_sem, &value);
	printf("sem_wait, the semaphore free: %s, its value %d\n",
	       result == PTHREAD_CANCELED ? "cancelled" : "returned", value);
	return 0;
}
