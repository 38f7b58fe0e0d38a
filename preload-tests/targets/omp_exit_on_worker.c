// SPDX-License-Identifier: MIT
/*
 * exit() from a worker of a parallel region, inside its implicit task, with a destructor of the
 * program's that takes 30 ms: a region of two threads where thread 1 spins 2 ms, prints a line
 * and exits, while the primary thread spins 10 ms in its implicit task and then waits at the
 * region's end. The destructor runs once the exit began: its time is no task's, nor the
 * primary's spin after the exit's start. Thread 1 starts its 2 ms once the primary is in the
 * region too: on a loaded machine the primary may start its part later than that.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((destructor)) static void slow_destructor(void)
{
	const struct timespec pause = {0, 30000000};
	nanosleep(&pause, NULL);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(void)
{
	int primary_in = 0;
#pragma omp parallel num_threads(2) shared(primary_in)
	{
		if (omp_get_thread_num() == 0)
			__atomic_store_n(&primary_in, 1, __ATOMIC_RELEASE);
		else
			while (!__atomic_load_n(&primary_in, __ATOMIC_ACQUIRE))
				;
		double until = now_ms() + (omp_get_thread_num() == 1 ? 2 : 10);
		while (now_ms() < until)
			;
		if (omp_get_thread_num() == 1) {
			printf("exiting from worker %d of %d\n", omp_get_thread_num(),
			       omp_get_num_threads());
			fflush(stdout);
			exit(0);
		}
	}
	return 1;
}
