// SPDX-License-Identifier: MIT
/*
 * A program's first task: what its spawn costs the program. Two threads; one spawns a single
 * task that records when it starts, then waits for it. Prints "spawn_us S start_us T": how
 * long the task construct took, and how long from before it to the task's first instruction,
 * in microseconds.
 */
#include <stdio.h>
#include <time.h>

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(void)
{
	double before = 0, after = 0, started = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
	{
		before = now_us();
#pragma omp task shared(started)
		started = now_us();
		after = now_us();
#pragma omp taskwait
	}
	printf("spawn_us %.1f start_us %.1f\n", after - before, started - before);
	return 0;
}
