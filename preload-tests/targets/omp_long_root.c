// SPDX-License-Identifier: MIT
/*
 * One task that runs the whole program, as the root of a recursion does: a parallel region's
 * single spawns it, and for RUN_MS milliseconds (the argument; 1500 if none) it spawns ten short
 * tasks at another construct, waits for them, and spins 1 ms. No task of the root's site ends
 * before the end. Prints "done".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void spin_ms(double ms)
{
	double start = now_ms();
	while (now_ms() - start < ms)
		;
}

int main(int argc, char **argv)
{
	double run_ms = argc > 1 ? atof(argv[1]) : 1500, start = now_ms();
#pragma omp parallel
#pragma omp single
#pragma omp task
	while (now_ms() - start < run_ms) {
		for (int i = 0; i < 10; i++) {
#pragma omp task
			spin_ms(0.1);
		}
#pragma omp taskwait
		spin_ms(1);
	}
	printf("done\n");
	return 0;
}
