// SPDX-License-Identifier: MIT
/*
 * A balanced worksharing loop (test_pop.c): on two threads each runs half of its 80 iterations
 * of one unit (pop_units.h), 200 ms: load balance 1, and nothing waits but the loop's end.
 */
#include "pop_units.h"

#define ITERATIONS 80

int main(void)
{
	static unsigned long done[ITERATIONS];
	pop_start();
	pop_fork();
#pragma omp parallel for schedule(static)
	for (int i = 0; i < ITERATIONS; i++) {
		pop_work(1);
		done[i] = (unsigned long)i + 1;
	}
	pop_join();
	for (int i = 0; i < ITERATIONS; i++)
		pop_checksum += done[i];
	pop_end("pop_balanced");
	return 0;
}
