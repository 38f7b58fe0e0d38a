// SPDX-License-Identifier: MIT
/*
 * Another plug-in (omp_plugin.c's kind), whose constructs lie elsewhere in its file: code of its
 * own before them, a parallel region of two threads whose single thread spawns three tasks.
 * omp_plugin_host loads it after unloading omp_plugin, often where that one lay. Returns the
 * tasks' sum, 60.
 */
#include <stdint.h>

long plugin_run(void);

/* Code before the constructs, so that none of their calls is where omp_plugin's lie. */
__attribute__((noinline)) static uint64_t mixed(uint64_t x)
{
	for (int round = 0; round < 8; round++)
		x = (x ^ (x >> 31)) * 0x9e3779b97f4a7c15u + (uint64_t)round;
	return x;
}

__attribute__((noinline)) static long other_tasks(void)
{
	long sum = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
	for (int part = 1; part <= 3; part++) {
#pragma omp task shared(sum)
		{
#pragma omp atomic
			sum += 10 * part;
		}
	}
	return sum;
}

long plugin_run(void)
{
	return other_tasks() + (long)(mixed(1) & 0);
}
