// SPDX-License-Identifier: MIT
/*
 * An ordered loop with all its work inside `ordered` (test_pop.c): 40 iterations of one unit
 * (pop_units.h) dealt in turn to two threads, run one after the other in the loop's order.
 * Each thread computes 20 units, the critical path goes through all 40 (each section after the
 * one before, on the other thread): serialisation efficiency 20 / 40 = 0.5. The checksum
 * follows the order the sections ran in. The region and its loop are written apart, the loop
 * without a barrier of its own, so that each thread can time what it does outside the sections
 * (pop_enter).
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
#pragma omp for ordered schedule(static, 1) nowait
		for (int i = 0; i < ITERATIONS; i++) {
			pop_arrive();
#pragma omp ordered
			{
				pop_work(1);
				pop_checksum = pop_checksum * 31 + (unsigned long)i;
			}
		}
		pop_leave();
	}
	pop_join();
	pop_end("pop_ordered");
	return 0;
}
