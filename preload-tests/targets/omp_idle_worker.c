// SPDX-License-Identifier: MIT
/*
 * One OpenMP worker idle for a known time: a parallel region of two threads where thread 0
 * computes for 200 ms and thread 1 goes straight to the region's closing barrier, where it
 * waits those 200 ms: spinning, or asleep, as OpenMP's idle policy (KMP_BLOCKTIME) says.
 * Prints "done".
 */
#include <omp.h>
#include <stdio.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(void)
{
#pragma omp parallel num_threads(2)
	{
		if (omp_get_thread_num() == 0) {
			double until = now_ms() + 200;
			while (now_ms() < until)
				;
		}
	}
	puts("done");
	return 0;
}
