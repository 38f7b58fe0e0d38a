// SPDX-License-Identifier: MIT
/*
 * Two task constructs in the two branches of an if, which clang -O2 merges into one call into
 * libomp: the line table gives that call line 0 (addr2line: "omp_line_zero.c:?"). 10 tasks,
 * 5 from each branch; prints their sums.
 */
#include <stdio.h>

static int sums[2], spawned;

__attribute__((noinline)) static void spawn(int n)
{
	if (n & 1) {
#pragma omp task firstprivate(n)
		__atomic_add_fetch(&sums[1], n, __ATOMIC_RELAXED);
	} else {
#pragma omp task firstprivate(n)
		__atomic_add_fetch(&sums[0], n, __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&spawned, 1, __ATOMIC_RELAXED);
}

int main(void)
{
#pragma omp parallel num_threads(2)
#pragma omp single
	for (int i = 0; i < 10; i++)
		spawn(i);
	printf("even %d, odd %d, spawned %d\n", sums[0], sums[1], spawned);
	return 0;
}
