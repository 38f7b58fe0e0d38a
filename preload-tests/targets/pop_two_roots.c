// SPDX-License-Identifier: MIT
/*
 * Two roots (test_pop.c): the main thread and a thread of its own each run time steps of six
 * parallel regions in a row, at once, each with a team of OMP_NUM_THREADS; in the region of
 * weight k (6 down to 1) thread t spins k(1 + t) units of CPU time. The main thread runs STEPS
 * steps, the other one: the span is the main thread's, through its six constructs in turn (6/21
 * to 1/21 of it on two threads), and the other root's regions share those sites. Prints
 * "pop_two_roots: done".
 */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#ifndef STEPS
#define STEPS 3
#endif
#define UNIT_MS 2

static double cpu_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void spin(int units)
{
	double from = cpu_ms();
	while (cpu_ms() - from < units * UNIT_MS)
		;
}

/* The region of weight `k`: its construct's site is the line the macro is used on. */
#define REGION(k) _Pragma("omp parallel") spin((k) * (1 + omp_get_thread_num()))

static void steps(int n)
{
	for (int step = 0; step < n; step++) {
		REGION(6);
		REGION(5);
		REGION(4);
		REGION(3);
		REGION(2);
		REGION(1);
	}
}

static void *other_root(void *arg)
{
	(void)arg;
	steps(1);
	return NULL;
}

int main(void)
{
	pthread_t other;
	if (pthread_create(&other, NULL, other_root, NULL) != 0)
		return 1;
	steps(STEPS);
	pthread_join(other, NULL);
	printf("pop_two_roots: done\n");
	return 0;
}
