// SPDX-License-Identifier: MIT
/*
 * Tasks left unfinished: 2 tasks from spawn_finished complete; then 3 detached tasks from
 * spawn_detached run their bodies, but their events are never fulfilled, and the program exits
 * from inside the parallel region: those 3, the 2 implicit tasks and the initial task are left
 * unfinished. Prints how many detached bodies ran.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int finished, detached_ran;

__attribute__((noinline)) void spawn_finished(void)
{
#pragma omp task
	__atomic_add_fetch(&finished, 1, __ATOMIC_SEQ_CST);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void spawn_detached(void)
{
	omp_event_handle_t never_fulfilled;
#pragma omp task detach(never_fulfilled)
	__atomic_add_fetch(&detached_ran, 1, __ATOMIC_SEQ_CST);
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
#pragma omp parallel num_threads(2)
	{
		/* both threads are in their implicit tasks before anything else happens */
#pragma omp barrier
#pragma omp single
		{
			spawn_finished();
			spawn_finished();
#pragma omp taskwait
			volatile int three =
				3; /* a loop, not 3 unrolled call sites: one spawn stack */
			for (int i = 0; i < three; i++)
				spawn_detached();
			while (__atomic_load_n(&detached_ran, __ATOMIC_SEQ_CST) < 3) {
#pragma omp taskyield
			}
			printf("%d finished, %d detached bodies ran\n", finished, detached_ran);
			fflush(stdout);
			exit(0);
		}
	}
	return 1;
}
