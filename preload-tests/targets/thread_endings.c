// SPDX-License-Identifier: MIT
/*
 * Threads that end every way a thread can: returning, pthread_exit, cancelled inside
 * pthread_cond_wait (joined), and detached ones that call pthread_exit or are cancelled inside
 * sem_wait. Exits with status 3 so that the status is checked too.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static sem_t detached_done, cancel_me, cancelled, never_posted;

void *ends_by_return(void *arg)
{
	return arg;
}

void *ends_by_exit(void *arg)
{
	pthread_exit(arg);
}

static void unlock(void *m)
{
	pthread_mutex_unlock(m);
}

void *ends_by_cancel(void *arg)
{
	pthread_mutex_lock(&lock);
	pthread_cleanup_push(unlock, &lock);
	for (;;)
		pthread_cond_wait(&never, &lock);
	pthread_cleanup_pop(1);
	return arg;
}

void *ends_detached_by_exit(void *arg)
{
	sem_post(&detached_done);
	pthread_exit(arg);
}

static void post(void *sem)
{
	sem_post(sem);
}

static pid_t waiter; /* the thread cancelled inside sem_wait */

/*
 * Until thread `tid` is blocked in a futex (its sem_wait's): cancelled between its post and its
 * wait, a loaded machine's preemption there, it would be cancelled at the wait's entry instead,
 * where glibc acts on a cancellation before it waits at all.
 */
static void until_blocked(pid_t tid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
	for (int look = 0; look < 20000; look++) {
		FILE *f = fopen(path, "r");
		long number = -1;
		if (f != NULL) {
			if (fscanf(f, "%ld", &number) != 1)
				number = -1;
			fclose(f);
		}
		if (number == SYS_futex)
			return;
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
}

void *ends_detached_by_cancel(void *arg)
{
	pthread_cleanup_push(post, &cancelled);
	waiter = (pid_t)syscall(SYS_gettid);
	sem_post(&cancel_me);
	sem_wait(&never_posted);
	pthread_cleanup_pop(0);
	return arg;
}

int main(void)
{
	pthread_t a, b, c, d, e;
	void *ret;
	sem_init(&detached_done, 0, 0);
	sem_init(&never_posted, 0, 0);
	sem_init(&cancel_me, 0, 0);
	sem_init(&cancelled, 0, 0);

	pthread_create(&a, NULL, ends_by_return, (void *)1);
	pthread_join(a, &ret);
	printf("returned %ld\n", (long)ret);

	pthread_create(&b, NULL, ends_by_exit, (void *)2);
	pthread_join(b, &ret);
	printf("exited %ld\n", (long)ret);

	pthread_create(&c, NULL, ends_by_cancel, NULL);
	pthread_cancel(c);
	pthread_join(c, &ret);
	printf("cancelled in cond_wait: %s\n", ret == PTHREAD_CANCELED ? "yes" : "no");

	pthread_create(&d, NULL, ends_detached_by_exit, NULL);
	pthread_detach(d);
	while (sem_wait(&detached_done) != 0)
		;

	pthread_attr_t detached;
	pthread_attr_init(&detached);
	pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
	pthread_create(&e, &detached, ends_detached_by_cancel, NULL);
	while (sem_wait(&cancel_me) != 0)
		;
	until_blocked(waiter);
	pthread_cancel(e);
	while (sem_wait(&cancelled) != 0)
		;
	printf("done\n");
	/* e may still be unwinding: the process exits from under it. */
	return 3;
}
