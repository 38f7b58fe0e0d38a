// SPDX-License-Identifier: MIT
/*
 * Nested parallel regions: an outer team of 2 threads, each starting an inner team of 2, each
 * inner thread spawning one task. 2 + 4 implicit tasks and 4 explicit ones. The inner teams
 * meet before their tasks, so that both are alive at once on 4 threads (else libomp may run the
 * second on a thread the first one freed).
 */
#include <omp.h>
#include <stdio.h>
#include <time.h>

enum { INNER_THREADS = 4, MEETING_LIMIT_S = 10 };
static int arrived;

/* Waits until every inner thread has arrived (or, never on a sane machine, the limit passed). */
static void meet(void)
{
	__atomic_add_fetch(&arrived, 1, __ATOMIC_SEQ_CST);
	time_t limit = time(NULL) + MEETING_LIMIT_S;
	const struct timespec tick = {0, 1000 * 1000};
	while (__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) < INNER_THREADS && time(NULL) < limit)
		nanosleep(&tick, NULL);
}

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
			meet();
#pragma omp task shared(spawned) firstprivate(outer, inner)
			spawned[outer][inner] = 10 * outer + inner + 1;
		}
	}
	printf("nested: %d %d %d %d\n", spawned[0][0], spawned[0][1], spawned[1][0], spawned[1][1]);
	return 0;
}
