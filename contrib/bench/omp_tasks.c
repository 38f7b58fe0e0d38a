// SPDX-License-Identifier: MIT
/*
 * Creates COUNT (argv[1]) empty OpenMP tasks from one thread and waits for them: with
 * OMP_NUM_THREADS=1 the instruction count per task is what the runtime and an OMPT tool cost.
 * An ordinary OpenMP program: it knows nothing of taskprobe.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 100000, done = 0;
#pragma omp parallel
#pragma omp single
	for (long i = 0; i < count; i++) {
#pragma omp task shared(done)
		done++;
	}
	printf("%ld tasks\n", done);
	return 0;
}
