// SPDX-License-Identifier: MIT
/*
 * Parallel regions of three constructs in a row (test_pop.c), 8 steps: in the first, thread t
 * works 3(1 + t) units (pop_units.h), in the second 2(1 + t), in the third 1 + t. The critical
 * path runs through thread 1's part of each region, the regions one after the other: 6, 4 and 2
 * units a step of 12, the three constructs' shares of the span 50%, 33% and 17% (the serial code
 * between them next to none). Load balance 0.75.
 */
#include "pop_units.h"

#define STEPS 8

int main(void)
{
	pop_start();
	for (int step = 0; step < STEPS; step++) {
		pop_fork();
#pragma omp parallel
		pop_work(3 * (1 + omp_get_thread_num()));
		pop_join();
		pop_fork();
#pragma omp parallel
		pop_work(2 * (1 + omp_get_thread_num()));
		pop_join();
		pop_fork();
#pragma omp parallel
		pop_work(1 + omp_get_thread_num());
		pop_join();
		pop_checksum = pop_checksum * 3 + (unsigned long)step;
	}
	pop_end("pop_path_sites");
	return 0;
}
