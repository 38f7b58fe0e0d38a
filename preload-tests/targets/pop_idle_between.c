// SPDX-License-Identifier: MIT
/*
 * Regions in a row as a time-step code has them (test_pop_loops.c): STEPS steps, each a parallel
 * construct run by a team of one thread (its `if` false: 2 units, no barrier), a balanced region
 * of two threads (2 units each), then 2 units of serial code. Before the balanced region's
 * barrier each thread computed as much as the other: its load balance is 1, and neither waits
 * there long; the worker idles between regions (4 units a step) at no site. The whole run:
 * thread 0 computes 6 units a step, thread 1 2: load balance and parallel efficiency 0.667.
 */
#include "pop_units.h"

#define STEPS 4

int main(int argc, char **argv)
{
	(void)argv;
	pop_start();
	for (int step = 0; step < STEPS; step++) {
		pop_fork();
#pragma omp parallel if (argc > 99)
		pop_work(2);
#pragma omp parallel
		pop_work(2);
		pop_join();
		pop_work(2);
		pop_checksum = pop_checksum * 3 + (unsigned long)step + 1;
	}
	pop_end("pop_idle_between");
	return 0;
}
