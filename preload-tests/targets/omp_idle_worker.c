// SPDX-License-Identifier: MIT
/*
 * One OpenMP worker idle for a known time: a parallel region of two threads (after an empty one)
 * where thread 0 computes for 200 ms and thread 1 goes straight to the region's closing barrier,
 * where it waits those 200 ms (counted from its arrival): spinning, or asleep, as OpenMP's idle
 * policy (KMP_BLOCKTIME) says. Prints "done".
 */
#include <omp.h>
#include <stdio.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int arrived;

int main(void)
{
	/* a first region, which ends at once: the worker's first wait at the barrier is made (its
	 * call site named, for a tracer: tens of ms under a sanitizer) before the measured one */
#pragma omp parallel num_threads(2)
	{}
#pragma omp parallel num_threads(2)
	{
		/* the 200 ms from the idle thread's arrival: a thread can start late on a loaded
		 * machine, and would then wait less */
		if (omp_get_thread_num() == 0) {
			while (omp_get_num_threads() > 1 &&
			       !__atomic_load_n(&arrived, __ATOMIC_ACQUIRE))
				;
			double until = now_ms() + 200;
			while (now_ms() < until)
				;
		} else {
			__atomic_store_n(&arrived, 1, __ATOMIC_RELEASE);
		}
	}
	puts("done");
	return 0;
}
