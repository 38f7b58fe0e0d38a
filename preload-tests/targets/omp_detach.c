// SPDX-License-Identifier: MIT
/*
 * Tasks left unfinished: 2 tasks from spawn_finished complete; then 3 detached tasks (or as many
 * as its argument says) from spawn_detached run their bodies, but their events are never
 * fulfilled, and the program exits from inside the parallel region: those 3, the 2 implicit
 * tasks and the initial task are left unfinished. Prints how many detached bodies ran.
 *
 * Each thread spins BEFORE_BARRIER_MS before the barrier, and the thread in the single spins
 * AFTER_TASKWAIT_MS after the taskwait: the longest path through the task graph runs through a
 * fragment before the barrier, the single's up to the taskwait and the one after it, by tens of
 * milliseconds. Without them it was a near tie of microseconds: the initial task's code after the
 * fork against the fragments before the barrier, and the other thread's way from the barrier to
 * the single's end against the single's, which a preemption decided either way.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BEFORE_BARRIER_MS 50
#define AFTER_TASKWAIT_MS 50

/* A busy spin of `ms` of wall time: a loaded machine only lengthens it. */
static void spin_ms(long ms)
{
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
}

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

int main(int argc, char **argv)
{
	int detached = argc > 1 ? atoi(argv[1]) : 3;
#pragma omp parallel num_threads(2)
	{
		/* both threads are in their implicit tasks before anything else happens */
		spin_ms(BEFORE_BARRIER_MS);
#pragma omp barrier
#pragma omp single
		{
			spawn_finished();
			spawn_finished();
#pragma omp taskwait
			spin_ms(AFTER_TASKWAIT_MS);
			/* a loop, not unrolled call sites: one spawn stack */
			for (int i = 0; i < detached; i++)
				spawn_detached();
			while (__atomic_load_n(&detached_ran, __ATOMIC_SEQ_CST) < detached) {
#pragma omp taskyield
			}
			printf("%d finished, %d detached bodies ran\n", finished, detached_ran);
			fflush(stdout);
			exit(0);
		}
	}
	return 1;
}
