// SPDX-License-Identifier: MIT
/*
 * A pool of two workers that wait at one line, queue_take's sem_wait, reached by two call paths:
 * the first worker takes ALPHA_ITEMS items through drain_alpha, the second BETA_ITEMS through
 * drain_beta (each a sem_wait of its own queue's semaphore, so each take is one wait). The main
 * thread posts the items, then joins both. Prints "taken 8".
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#define ALPHA_ITEMS 3
#define BETA_ITEMS  5

static sem_t alpha_queue, beta_queue;
static int taken;

/* noinline, and each call followed by work of the caller's: a frame of its own in every stack */
__attribute__((noinline)) static void queue_take(sem_t *queue)
{
	sem_wait(queue); /* the pool's one wait */
	__atomic_add_fetch(&taken, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) static int drain_alpha(void)
{
	int n = 0;
	for (int i = 0; i < ALPHA_ITEMS; i++) {
		queue_take(&alpha_queue);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		n++;
	}
	return n;
}

__attribute__((noinline)) static int drain_beta(void)
{
	int n = 0;
	for (int i = 0; i < BETA_ITEMS; i++) {
		queue_take(&beta_queue);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		n++;
	}
	return n;
}

static int drained[2];

static void *alpha_worker(void *unused)
{
	(void)unused;
	drained[0] = drain_alpha();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return NULL;
}

static void *beta_worker(void *unused)
{
	(void)unused;
	drained[1] = drain_beta();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return NULL;
}

int main(void)
{
	sem_init(&alpha_queue, 0, 0);
	sem_init(&beta_queue, 0, 0);
	pthread_t alpha, beta;
	pthread_create(&alpha, NULL, alpha_worker, NULL);
	pthread_create(&beta, NULL, beta_worker, NULL);
	for (int i = 0; i < ALPHA_ITEMS; i++)
		sem_post(&alpha_queue);
	for (int i = 0; i < BETA_ITEMS; i++)
		sem_post(&beta_queue);
	pthread_join(alpha, NULL);
	pthread_join(beta, NULL);
	printf("taken %d\n", drained[0] + drained[1]);
	return 0;
}
