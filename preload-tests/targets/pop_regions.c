// SPDX-License-Identifier: MIT
/*
 * Parallel regions in a row with serial code between them (test_pop.c): 10 steps, each a
 * parallel region whose single thread spawns one task of 4 units (pop_units.h), then 1 unit of
 * serial code. Nothing runs at the same time as anything else: work 50 units, span 50 units,
 * parallelism 1; on two threads the average computation is 25 units of the run's 50: parallel
 * efficiency 0.5 (whichever thread runs the tasks).
 */
#include "pop_units.h"

#define STEPS 10

int main(void)
{
	static unsigned long done[STEPS];
	pop_start();
	for (int step = 0; step < STEPS; step++) {
		pop_fork();
#pragma omp parallel
#pragma omp single
#pragma omp task firstprivate(step)
		{
			pop_work(4);
			done[step] = (unsigned long)step + 1;
		}
		pop_join();
		pop_work(1);
		pop_checksum = pop_checksum * 7 + done[step];
	}
	pop_end("pop_regions");
	return 0;
}
