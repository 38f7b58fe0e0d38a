// SPDX-License-Identifier: MIT
/*
 * Serial code before the OpenMP runtime starts (test_pop.c): main works 24 units (pop_units.h)
 * before any call into OpenMP, then a parallel region (in a function of its own: a clang build
 * calls into the runtime at the entry of a function with a construct) in which each of two
 * threads works 24 units. Thread 0 computes 48 units, thread 1 24: load balance 36 / 48 = 0.75,
 * and nothing is serialised or lost in transfer: parallel efficiency 0.75. OMPT tells a tool of
 * the initial task only once the runtime starts (here at the region): a window from there
 * would say 1.0.
 */
#include "pop_units.h"

#define UNITS 24

static unsigned long done[POP_THREADS_MAX];

__attribute__((noinline)) static void region(void)
{
	pop_fork();
#pragma omp parallel
	{
		pop_work(UNITS);
		done[omp_get_thread_num() % POP_THREADS_MAX] = UNITS;
	}
	pop_join();
}

int main(void)
{
	pop_start_without_runtime();
	pop_work_serial(UNITS);
	region();
	for (int t = 0; t < POP_THREADS_MAX; t++)
		pop_checksum = pop_checksum * 3 + done[t];
	pop_end("pop_serial_first");
	return 0;
}
