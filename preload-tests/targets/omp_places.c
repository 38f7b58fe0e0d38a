// SPDX-License-Identifier: MIT
/*
 * Which CPUs each thread of a parallel region may run on, as OMP_PLACES and OMP_PROC_BIND bound
 * them (test_harm_launcher.c): "thread T: CPUS" in thread order, the CPUs by number. Built by
 * GCC, the binding is libgomp's plainly and libomp's under the launcher: the same settings must
 * bind the same.
 */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>

#define THREADS_MAX 64

int main(void)
{
	static cpu_set_t cpus_of[THREADS_MAX];
	int threads = 0;
#pragma omp parallel
	{
		int t = omp_get_thread_num();
		if (t < THREADS_MAX)
			sched_getaffinity(0, sizeof cpus_of[t], &cpus_of[t]);
#pragma omp single
		threads = omp_get_num_threads();
	}
	for (int t = 0; t < threads && t < THREADS_MAX; t++) {
		printf("thread %d:", t);
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &cpus_of[t]))
				printf(" %d", c);
		printf("\n");
	}
	return 0;
}
