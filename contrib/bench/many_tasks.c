// SPDX-License-Identifier: MIT
/*
 * Spawns TASKS OpenMP tasks (argv[1], default 1000000) from two call sites, then runs THREADS
 * threads at once (argv[2], default 1000), and prints its peak resident set (VmHWM) in KiB:
 * what the shim's tables cost a program with a tracer attached.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long sum;

__attribute__((noinline)) static void spawn_even(long i)
{
#pragma omp task firstprivate(i)
	__atomic_add_fetch(&sum, i, __ATOMIC_RELAXED);
}

__attribute__((noinline)) static void spawn_odd(long i)
{
#pragma omp task firstprivate(i)
	__atomic_add_fetch(&sum, -i, __ATOMIC_RELAXED);
}

static pthread_barrier_t all_up;

static void *thread_main(void *arg)
{
	pthread_barrier_wait(&all_up);
	return arg;
}

int main(int argc, char **argv)
{
	long tasks = argc > 1 ? atol(argv[1]) : 1000000, threads = argc > 2 ? atol(argv[2]) : 1000;
#pragma omp parallel
#pragma omp single
	for (long i = 0; i < tasks; i++) {
		if (i % 2)
			spawn_odd(i);
		else
			spawn_even(i);
		if (i % 1024 == 1023) {
#pragma omp taskwait
		}
	}
	pthread_t *ids = calloc((size_t)threads, sizeof *ids);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_barrier_init(&all_up, NULL, (unsigned)threads + 1);
	for (long i = 0; i < threads; i++)
		pthread_create(&ids[i], &attr, thread_main, NULL);
	pthread_barrier_wait(&all_up);
	for (long i = 0; i < threads; i++)
		pthread_join(ids[i], NULL);
	FILE *status = fopen("/proc/self/status", "r");
	char line[256];
	while (status != NULL && fgets(line, sizeof line, status) != NULL)
		if (strncmp(line, "VmHWM:", 6) == 0)
			printf("%ld\n", atol(line + 6));
	printf("sum %ld\n", sum);
	return 0;
}
