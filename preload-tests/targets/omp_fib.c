// SPDX-License-Identifier: MIT
/*
 * Recursive OpenMP tasks with taskwait: fib(N) spawns two tasks per call with N >= 2, so the
 * program makes exactly tasks(N) = 2 + tasks(N-1) + tasks(N-2) explicit tasks (tasks(0) =
 * tasks(1) = 0). Prints fib(N). N is argv[1] (default 12).
 */
#include <stdio.h>
#include <stdlib.h>

static long fib(int n)
{
	long a, b;
	if (n < 2)
		return n;
#pragma omp task shared(a)
	a = fib(n - 1);
#pragma omp task shared(b)
	b = fib(n - 2);
#pragma omp taskwait
	return a + b;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 12;
	long r = 0;
#pragma omp parallel
#pragma omp single
	r = fib(n);
	printf("fib(%d) = %ld\n", n, r);
	return 0;
}
