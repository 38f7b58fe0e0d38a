// SPDX-License-Identifier: MIT
/*
 * A taskgroup whose tasks its own thread runs while it waits at the taskgroup's end: run with
 * OMP_NUM_THREADS=2, thread 0 makes six tasks in a taskgroup while thread 1 spins for half a
 * second outside any task construct, so that it takes none of them. Prints the tasks' sum.
 */
#include <omp.h>
#include <stdio.h>
#include <time.h>

static void spin_ms(long ms)
{
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
}

int main(void)
{
	long sum = 0;
#pragma omp parallel num_threads(2)
	{
		if (omp_get_thread_num() == 0) {
#pragma omp taskgroup
			{
				for (int i = 1; i <= 6; i++) {
#pragma omp task shared(sum)
					{
#pragma omp atomic
						sum += i;
					}
				}
			}
		} else {
			spin_ms(500);
		}
	}
	printf("sum %ld\n", sum);
	return 0;
}
