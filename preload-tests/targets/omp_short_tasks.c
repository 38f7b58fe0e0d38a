// SPDX-License-Identifier: MIT
/*
 * COUNT (argv[1]) OpenMP tasks that each add one number, spawned by one thread of the team
 * with a taskwait every 4096 tasks. Prints the sum.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 1000, sum = 0;
#pragma omp parallel
#pragma omp single
	for (long i = 0; i < count; i++) {
#pragma omp task firstprivate(i)
		__atomic_add_fetch(&sum, i % 7, __ATOMIC_RELAXED);
		if (i % 4096 == 4095) {
#pragma omp taskwait
		}
	}
	printf("%ld\n", sum);
	return 0;
}
