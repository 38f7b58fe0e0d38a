// SPDX-License-Identifier: MIT
/*
 * A taskgroup of tasks of 1 to 8 units (pop_units.h), made in that order by one thread
 * (test_pop.c): 36 units in all. On two threads libomp places them so: the other thread, at the
 * end of `single`, takes the oldest task each time (1, 2, 3, 4, 5: done at unit 15), the making
 * thread, at the taskgroup's end, the newest (8, 7: done at unit 15), and whichever is first
 * takes the 6 left: one thread computes 21 units, the other 15, whatever the order of the tie
 * and whenever the other thread starts its first task up to 10 units late (it takes 5 at
 * unit 10 + its delay, before the making thread is through 8, 7 and 6 at unit 21):
 * load balance 18 / 21 = 0.857.
 */
#include "pop_units.h"

#define TASKS 8

int main(void)
{
	static unsigned long done[TASKS + 1];
	pop_start();
	pop_fork();
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup
	for (int units = 1; units <= TASKS; units++) {
#pragma omp task firstprivate(units)
		{
			pop_work(units);
			done[units] = (unsigned long)units * (unsigned long)units;
		}
	}
	pop_join();
	for (int units = 1; units <= TASKS; units++)
		pop_checksum += done[units];
	pop_end("pop_taskgroup");
	return 0;
}
