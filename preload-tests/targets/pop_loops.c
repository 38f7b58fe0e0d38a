// SPDX-License-Identifier: MIT
/*
 * Two worksharing loops in one parallel region (test_pop.c): where a region's time is lost is a
 * loop's, and each loop's implicit barrier is a sync site of its own. The first loop deals its
 * iterations in turn (schedule(static, 1)) and thread t runs 1 + 2t units (pop_units.h) an
 * iteration: on two threads thread 0 computes 8 units, thread 1 24, and thread 0 waits 16 units
 * (80 ms) at its barrier; the second loop gives each thread 8 units: nobody waits at its barrier
 * but for the machine. The region's load balance is (16 + 32) / 2 / 32 = 0.75.
 */
#include "pop_units.h"

#define ITERATIONS 16

int main(void)
{
	static unsigned long units_of[2][ITERATIONS];
	pop_start();
	pop_fork();
#pragma omp parallel
	{
#pragma omp for schedule(static, 1)
		for (int i = 0; i < ITERATIONS; i++) {
			int units = 1 + 2 * omp_get_thread_num();
			pop_work(units);
			units_of[0][i] = (unsigned long)units;
		}
#pragma omp for schedule(static)
		for (int i = 0; i < ITERATIONS; i++) {
			pop_work(1);
			units_of[1][i] = 1;
		}
	}
	pop_join();
	for (int l = 0; l < 2; l++)
		for (int i = 0; i < ITERATIONS; i++)
			pop_checksum += (unsigned long)(l + 1) * (i + 1) * units_of[l][i];
	pop_end("pop_loops");
	return 0;
}
