// SPDX-License-Identifier: MIT
/*
 * Threads that block at known lines, with no task anywhere: a producer that blocks on a full
 * queue (a semaphore of free slots, one slot) and a consumer that waits for items, ROUNDS items
 * (argv[1], default 100), each wait a sem_wait at its own line; then the main thread polls a
 * pipe nobody writes, POLLS times (5) for 1 ms. Prints "consumed N".
 *
 * Each side handles its item (a 20 us sleep) before it posts to the other, so each blocks on its
 * semaphore by construction: without it, on one free CPU the post's wakeup lets the other side
 * run through its round, and the producer found a free slot every time and never blocked.
 */
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define POLLS 5

static sem_t items, free_slots;
static long rounds = 100, consumed;

static void handle_item(void)
{
	struct timespec work = {.tv_nsec = 20000};
	nanosleep(&work, NULL);
}

__attribute__((noinline)) static void queue_pop(void)
{
	sem_wait(&items); /* the consumer waits for an item */
	consumed++;
	handle_item();
	sem_post(&free_slots);
}

__attribute__((noinline)) static void queue_push(void)
{
	sem_wait(&free_slots); /* the producer blocks on the full queue */
	handle_item();
	sem_post(&items);
}

static void *consumer(void *unused)
{
	(void)unused;
	for (long i = 0; i < rounds; i++)
		queue_pop();
	return NULL;
}

static void *producer(void *unused)
{
	(void)unused;
	for (long i = 0; i < rounds; i++)
		queue_push();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atol(argv[1]);
	sem_init(&items, 0, 0);
	sem_init(&free_slots, 0, 1);
	pthread_t c, p;
	pthread_create(&c, NULL, consumer, NULL);
	pthread_create(&p, NULL, producer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	int quiet[2];
	if (pipe(quiet) != 0)
		return 1;
	struct pollfd fd = {.fd = quiet[0], .events = POLLIN};
	for (int i = 0; i < POLLS; i++)
		poll(&fd, 1, 1); /* the main thread waits for a pipe nobody writes */
	printf("consumed %ld\n", consumed);
	return 0;
}
