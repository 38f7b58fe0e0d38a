// SPDX-License-Identifier: MIT
/*
 * One task that runs the whole program, as the root of a recursion does: a parallel region's
 * single spawns it, and for RUN_MS milliseconds (the argument; 1500 if none) it spawns ten short
 * tasks at another construct, each spinning 0.1 ms, waits for them, and spins STEP_MS: a long
 * poll, most of the time going on. No task of the root's site ends before the end. Prints
 * "done".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ms_since.h"

#define STEP_MS 30

int main(int argc, char **argv)
{
	double run_ms = argc > 1 ? atof(argv[1]) : 1500;
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
#pragma omp parallel
#pragma omp single
#pragma omp task
	while (ms_since(&start) < run_ms) {
		for (int i = 0; i < 10; i++) {
#pragma omp task
			{
				struct timespec spawned;
				clock_gettime(CLOCK_MONOTONIC, &spawned);
				while (ms_since(&spawned) < 0.1)
					;
			}
		}
#pragma omp taskwait
		double step = ms_since(&start);
		while (ms_since(&start) < step + STEP_MS)
			;
	}
	printf("done\n");
	return 0;
}
