// SPDX-License-Identifier: MIT
/*
 * exit() from a thread OpenMP does not know, in the middle of OpenMP's work: a parallel region
 * keeps spawning tasks that each do some short work in a loop (WORK rounds, argv[2], default
 * 200000), with a taskwait every 64 tasks, while a plain pthread sleeps MILLISECONDS (argv[1],
 * default 100), prints a line and calls exit(0).
 *
 * libomp tears its runtime down in its destructor while the region's threads still run in it,
 * and the process survives only until exit ends it: the longer exit takes after that destructor,
 * the likelier a thread crashes or fails an assertion on the freed state. Long enough tasks keep
 * the threads mostly out of libomp, so that the program usually ends cleanly.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long milliseconds = 100, work = 200000;
static volatile long sink;
static int first_task_ran;

static void *exit_soon(void *unused)
{
	(void)unused;
	const struct timespec poll_interval = {0, 1000000};
	while (!__atomic_load_n(&first_task_ran, __ATOMIC_ACQUIRE))
		nanosleep(&poll_interval, NULL);
	struct timespec pause = {milliseconds / 1000, (milliseconds % 1000) * 1000000};
	nanosleep(&pause, NULL);
	printf("exiting from a plain thread\n");
	fflush(stdout);
	exit(0);
}

static void short_work(long i)
{
	long s = 0;
	for (long k = 0; k < work; k++)
		s += (i ^ k) % 7;
	__atomic_add_fetch(&sink, s, __ATOMIC_RELAXED);
	__atomic_store_n(&first_task_ran, 1, __ATOMIC_RELEASE);
}

__attribute__((noinline)) static void spawn_work(long i)
{
#pragma omp task firstprivate(i)
	short_work(i);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	if (argc > 1)
		milliseconds = atol(argv[1]);
	if (argc > 2)
		work = atol(argv[2]);
	pthread_t thread;
	if (pthread_create(&thread, NULL, exit_soon, NULL) != 0)
		return 2;
#pragma omp parallel
#pragma omp single
	for (long i = 0;; i++) {
		spawn_work(i);
		if (i % 64 == 63) {
#pragma omp taskwait
		}
	}
	return 1; /* not reached: the plain thread exits */
}
