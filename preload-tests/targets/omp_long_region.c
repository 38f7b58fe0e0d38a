// SPDX-License-Identifier: MIT
/*
 * One parallel region that runs the whole program, as a code whose time-step loop lies inside
 * its one parallel construct: each thread of the team spins for RUN_MS milliseconds (the
 * argument; 1500 if none), then the program prints how many threads ran the region.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ms_since.h"

int main(int argc, char **argv)
{
	double run_ms = argc > 1 ? atof(argv[1]) : 1500;
	int threads = 0;
#pragma omp parallel reduction(+ : threads)
	{
		struct timespec start;
		clock_gettime(CLOCK_MONOTONIC, &start);
		while (ms_since(&start) < run_ms)
			;
		threads = 1;
	}
	printf("omp_long_region: %d threads\n", threads);
	return 0;
}
