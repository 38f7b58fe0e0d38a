// SPDX-License-Identifier: MIT
/*
 * A loop with all its work inside `critical` (test_pop.c): two threads each run 20 iterations of
 * one unit (pop_units.h), one thread at a time. Each computes 20 units, the critical path goes
 * through all 40 sections (each one after the section before it, whichever thread ran it):
 * serialisation efficiency 20 / 40 = 0.5. The region and its loop are written apart as in
 * pop_ordered.
 */
#include "pop_units.h"

#define ITERATIONS 40

int main(void)
{
	pop_start();
	pop_fork();
#pragma omp parallel
	{
		pop_enter();
#pragma omp for schedule(static) nowait
		for (int i = 0; i < ITERATIONS; i++) {
			pop_arrive();
#pragma omp critical
			{
				pop_work(1);
				pop_checksum += (unsigned long)i + 1;
			}
		}
		pop_leave();
	}
	pop_join();
	pop_end("pop_critical");
	return 0;
}
