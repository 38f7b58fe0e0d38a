// SPDX-License-Identifier: MIT
/*
 * A plug-in whose OpenMP is light: a parallel region of one thread (libgomp starts no thread for
 * it, so that unloading it unloads libgomp cleanly). Returns the region's thread count, 1.
 */
#include <omp.h>

long plugin_run(void);

long plugin_run(void)
{
	long threads = 0;
#pragma omp parallel num_threads(1)
	threads += omp_get_num_threads();
	return threads;
}
