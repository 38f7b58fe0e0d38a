// SPDX-License-Identifier: MIT
/*
 * Nested parallel regions: an outer team of 2 threads, each starting an inner team of 2, each
 * inner thread spawning one task. 2 + 4 implicit tasks and 4 explicit ones.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	int spawned[2][2] = {{0}};
	omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
	{
		int outer = omp_get_thread_num();
#pragma omp parallel num_threads(2)
		{
			int inner = omp_get_thread_num();
#pragma omp task shared(spawned) firstprivate(outer, inner)
			spawned[outer][inner] = 10 * outer + inner + 1;
		}
	}
	printf("nested: %d %d %d %d\n", spawned[0][0], spawned[0][1], spawned[1][0], spawned[1][1]);
	return 0;
}
