// SPDX-License-Identifier: MIT
/*
 * A time-step loop that records slowly: `omp_steps STEPS MS` runs STEPS parallel regions in a row,
 * each thread spinning MS milliseconds of wall time in each (a few events a step: far from
 * filling a recording thread's buffer in seconds), then prints "steps STEPS". The recorder's
 * tests kill it mid-run (test_recorder.c).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 100;
	double ms = argc > 2 ? atof(argv[2]) : 10;
	for (int s = 0; s < steps; s++) {
#pragma omp parallel
		{
			double until = now_ms() + ms;
			while (now_ms() < until)
				;
		}
	}
	printf("steps %d\n", steps);
	return 0;
}
