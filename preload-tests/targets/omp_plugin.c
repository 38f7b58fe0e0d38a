// SPDX-License-Identifier: MIT
/*
 * A plug-in (a shared module a program loads with dlopen) whose routine runs a parallel region
 * of two threads whose single thread spawns four tasks (omp_plugin_host.c loads it by a relative
 * path). Returns the tasks' sum, 10.
 */
long plugin_run(void);

long plugin_run(void)
{
	long sum = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
	for (int part = 1; part <= 4; part++) {
#pragma omp task shared(sum)
		{
#pragma omp atomic
			sum += part;
		}
	}
	return sum;
}
