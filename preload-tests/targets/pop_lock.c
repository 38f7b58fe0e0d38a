// SPDX-License-Identifier: MIT
/*
 * A loop with all its work between omp_set_lock and omp_unset_lock (test_pop.c): as pop_critical,
 * with an OpenMP lock: serialisation efficiency 20 / 40 = 0.5. The region and its loop are
 * written apart as in pop_ordered.
 */
#include "pop_units.h"

#define ITERATIONS 40

int main(void)
{
	omp_lock_t lock;
	pop_start();
	omp_init_lock(&lock);
	pop_fork();
#pragma omp parallel
	{
		pop_enter();
#pragma omp for schedule(static) nowait
		for (int i = 0; i < ITERATIONS; i++) {
			pop_arrive();
			omp_set_lock(&lock);
			pop_work(1);
			pop_checksum += (unsigned long)i + 1;
			omp_unset_lock(&lock);
		}
		pop_leave();
	}
	pop_join();
	omp_destroy_lock(&lock);
	pop_end("pop_lock");
	return 0;
}
