// SPDX-License-Identifier: MIT
/*
 * OpenMP tasks of three shapes from one thread, for what the runtime and an OMPT tool cost per
 * task (with OMP_NUM_THREADS=1). An ordinary OpenMP program: it knows nothing of taskprobe.
 *   omp_tasks [flat] COUNT    COUNT empty tasks from a loop, then waited for
 *   omp_tasks recursive N     fib(N) with two tasks a call and a taskwait: tasks(N) = 2 +
 *                             tasks(N-1) + tasks(N-2), tasks(0) = tasks(1) = 0
 *   omp_tasks chain COUNT     COUNT tasks, each depending on the one before (depend inout)
 * Prints how many tasks ran.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long flat(long count)
{
	long done = 0;
#pragma omp parallel
#pragma omp single
	for (long i = 0; i < count; i++) {
#pragma omp task shared(done)
		done++;
	}
	return done;
}

static long fib(int n, long *tasks)
{
	long a, b;
	if (n < 2)
		return n;
#pragma omp task shared(a, tasks)
	a = fib(n - 1, tasks);
#pragma omp task shared(b, tasks)
	b = fib(n - 2, tasks);
#pragma omp taskwait
#pragma omp atomic
	*tasks += 2;
	return a + b;
}

static long recursive(int n)
{
	long tasks = 0;
#pragma omp parallel
#pragma omp single
	(void)fib(n, &tasks);
	return tasks;
}

static long chain(long count)
{
	long done = 0, link = 0;
#pragma omp parallel
#pragma omp single
	for (long i = 0; i < count; i++) {
#pragma omp task depend(inout : link) shared(done, link)
		{
			link++;
			done++;
		}
	}
	return done;
}

int main(int argc, char **argv)
{
	const char *shape = argc > 2 ? argv[1] : "flat";
	long count = atol(argc > 2 ? argv[2] : argc > 1 ? argv[1] : "100000");
	long done = strcmp(shape, "recursive") == 0 ? recursive((int)count)
		    : strcmp(shape, "chain") == 0   ? chain(count)
						    : flat(count);
	printf("%ld tasks\n", done);
	return 0;
}
