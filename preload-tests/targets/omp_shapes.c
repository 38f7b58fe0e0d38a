// SPDX-License-Identifier: MIT
/*
 * OpenMP programs of known shapes, for checking what the scripts add up:
 *   gate N        N tasks all alive at once: each depends on one gate task, which opens once
 *                 all N are spawned
 *   spin N US     N tasks, each computing (spinning on the clock) for US microseconds
 *   parks N US    a thread named "pool-1" waits N times on a semaphore that is never posted,
 *                 each wait timing out after US microseconds
 *   unrolled N    N times, a loop of three tasks from one task construct, unrolled into
 *                 three calls (as -O2 unrolls short loops)
 *   unrolled-waits N  the same with a taskwait after each task: three calls of one taskwait
 * Prints what it did, e.g. "gate 10000 done 10000", and on stderr how long it took
 * ("elapsed_ms 312").
 */
#define _GNU_SOURCE
#include <omp.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void spin_us(long us)
{
	long long until = now_ns() + us * 1000LL;
	while (now_ns() < until)
		;
}

static long gate(long n)
{
	long done = 0;
	int gate_word = 0, all_spawned = 0;
#pragma omp parallel
#pragma omp single
	{
		/* opens once every task behind it is spawned (and 50 ms on): all are alive at once */
#pragma omp task depend(out : gate_word) shared(gate_word, all_spawned)
		{
			struct timespec pause = {0, 50 * 1000000};
			do
				nanosleep(&pause, NULL);
			while (!__atomic_load_n(&all_spawned, __ATOMIC_ACQUIRE));
			gate_word = 1;
		}
		for (long i = 0; i < n; i++) {
#pragma omp task depend(in : gate_word) shared(done, gate_word)
			__atomic_add_fetch(&done, gate_word, __ATOMIC_RELAXED);
		}
		__atomic_store_n(&all_spawned, 1, __ATOMIC_RELEASE);
	}
	return done;
}

static long spin(long n, long us)
{
	long done = 0;
#pragma omp parallel
#pragma omp single
	for (long i = 0; i < n; i++) {
#pragma omp task shared(done)
		{
			spin_us(us);
			__atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
		}
	}
	return done;
}

static long unrolled(long n)
{
	long done = 0;
#pragma omp parallel
#pragma omp single
	for (long i = 0; i < n; i++)
#pragma clang loop unroll(full)
		for (int k = 0; k < 3; k++) {
#pragma omp task shared(done)
			__atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
		}
	return done;
}

/* The same with a taskwait after each task: three calls of one taskwait construct. */
static long unrolled_waits(long n)
{
	long done = 0;
#pragma omp parallel
#pragma omp single
	for (long i = 0; i < n; i++)
#pragma clang loop unroll(full)
		for (int k = 0; k < 3; k++) {
#pragma omp task shared(done)
			__atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
#pragma omp taskwait
		}
	return done;
}

struct parks {
	long n, us, timed_out;
};

static void *park_often(void *arg)
{
	struct parks *p = arg;
	pthread_setname_np(pthread_self(), "pool-1");
	sem_t never;
	sem_init(&never, 0, 0);
	for (long i = 0; i < p->n; i++) {
		struct timespec deadline;
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_nsec += p->us * 1000;
		deadline.tv_sec += deadline.tv_nsec / 1000000000;
		deadline.tv_nsec %= 1000000000;
		p->timed_out += sem_timedwait(&never, &deadline) != 0;
	}
	return NULL;
}

static long parks(long n, long us)
{
	struct parks p = {n, us, 0};
	pthread_t thread;
	pthread_create(&thread, NULL, park_often, &p);
	pthread_join(thread, NULL);
	return p.timed_out;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: omp_shapes gate N | spin N US | parks N US | unrolled N | "
				"unrolled-waits N\n");
		return 2;
	}
	long n = atol(argv[2]), us = argc > 3 ? atol(argv[3]) : 0;
	/* on one thread a task runs where it is spawned (libomp's serialized team): the gate would
	 * wait for spawns that come after it, for ever */
	if (strcmp(argv[1], "gate") == 0 && omp_get_max_threads() < 2) {
		fprintf(stderr, "omp_shapes: gate needs two threads or more (OMP_NUM_THREADS)\n");
		return 2;
	}
	long long start = now_ns();
	long done = strcmp(argv[1], "gate") == 0             ? gate(n)
		    : strcmp(argv[1], "spin") == 0           ? spin(n, us)
		    : strcmp(argv[1], "unrolled") == 0       ? unrolled(n)
		    : strcmp(argv[1], "unrolled-waits") == 0 ? unrolled_waits(n)
							     : parks(n, us);
	printf("%s %ld done %ld\n", argv[1], n, done);
	/* how long the work took, on stderr, for what a trace of it may add up to */
	fprintf(stderr, "elapsed_ms %lld\n", (now_ns() - start) / 1000000);
	return 0;
}
