// SPDX-License-Identifier: MIT
/*
 * A parallel region with a task reduction, whose single spawns 20 tasks that each add to it.
 * Built by GCC, the region is a call of GOMP_parallel_reductions, whose region libomp 14 begins
 * with no return address. Prints the sum, 190.
 */
#include <stdio.h>

int main(void)
{
	long sum = 0;
#pragma omp parallel reduction(task, + : sum)
#pragma omp single
	for (int i = 0; i < 20; i++) {
#pragma omp task in_reduction(+ : sum)
		sum += i;
	}
	printf("%ld\n", sum);
	return 0;
}
