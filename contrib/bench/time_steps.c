// SPDX-License-Identifier: MIT
/*
 * A time-step loop, the shape most HPC codes have: STEPS parallel regions in a row, each a
 * worksharing loop of WIDTH iterations (a little arithmetic and a reduction) and its barrier, the
 * serial code between them a sum. For what a region costs the runtime, an OMPT tool and
 * taskprobe (contrib/bench/time-steps). An ordinary OpenMP program: it knows nothing of
 * taskprobe.
 *   time_steps STEPS WIDTH    prints the sum on stdout, and on stderr the steps' time and
 *                             microseconds a step (measured around the loop, start-up apart)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fputs("usage: time_steps STEPS WIDTH\n", stderr);
		return 2;
	}
	long steps = atol(argv[1]), width = atol(argv[2]);
	double *a = calloc(width > 0 ? (size_t)width : 1, sizeof *a), sum = 0;
	if (a == NULL || steps <= 0 || width <= 0)
		return 2;
	double start = omp_get_wtime();
	for (long s = 0; s < steps; s++) {
#pragma omp parallel for reduction(+ : sum)
		for (long i = 0; i < width; i++) {
			a[i] = a[i] * 0.5 + (double)s;
			sum += a[i];
		}
	}
	double took = omp_get_wtime() - start;
	printf("%.6e\n", sum);
	fprintf(stderr, "%ld steps in %.3f s: %.3f us a step\n", steps, took,
		took / (double)steps * 1e6);
	free(a);
	return 0;
}
