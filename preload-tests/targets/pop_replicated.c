// SPDX-License-Identifier: MIT
/*
 * Work that grows with the threads (test_pop.c's runs compared, `taskprobe-timeline --scaling`):
 * a parallel region where each thread first does REPLICATED units of its own (pop_units.h: a
 * copy of the set-up every thread makes), then its share of a balanced worksharing loop of
 * ITERATIONS x UNITS = 24 units. Its units are sleeps (pop_sleep_work), computation to the engines: two runs,
 * each loaded its own way, keep their ratio. On T threads 6T + 24 units in all, for the same result: against one thread's
 * 30, computation scalability 30 / (6T + 24), 0.833 on two, while each run alone is balanced
 * (parallel efficiency near 1).
 */
#include "pop_units.h"

#define REPLICATED 6
#define ITERATIONS 4 /* of 6 units each: a sleep's lateness (a wake-up's) is in few of them */
#define UNITS      6

int main(void)
{
	static unsigned long units_of[ITERATIONS];
	static unsigned long replicated;
	pop_start();
	pop_fork();
#pragma omp parallel
	{
		pop_sleep_work(REPLICATED);
#pragma omp atomic
		replicated++;
#pragma omp for schedule(static)
		for (int i = 0; i < ITERATIONS; i++) {
			pop_sleep_work(UNITS);
			units_of[i] = UNITS;
		}
	}
	pop_join();
	for (int i = 0; i < ITERATIONS; i++)
		pop_checksum += (unsigned long)(i + 1) * units_of[i];
	pop_checksum += replicated > 0;
	pop_end("pop_replicated");
	return 0;
}
