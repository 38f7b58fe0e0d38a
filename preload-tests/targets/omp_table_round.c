// SPDX-License-Identifier: MIT
/*
 * A run of tasks alive while more tasks than a table of tasks alive may hold by their ids (2^18)
 * are made and ended: the ids come round onto the run. Two threads: the second holds a blocker
 * task until the end, so that the first's deque keeps WAITING tasks (spawned first, run last);
 * the first then spawns ROUND tasks, most run at once (libomp runs a task in place when its
 * deque is full), and the waiting ones run at the taskwait. Prints "spawned N": every task but
 * the implicit ones. Usage: omp_table_round
 */
#include <omp.h>
#include <stdio.h>

enum { WAITING = 64, ROUND = 300000 };

static volatile int blocker_started, release_blocker;
static long done;

int main(void)
{
	omp_set_num_threads(2);
#pragma omp parallel
#pragma omp single
	{
#pragma omp task
		{ /* taken by the other thread (the first never waits for it before the end) */
			__atomic_store_n(&blocker_started, 1, __ATOMIC_RELEASE);
			while (!__atomic_load_n(&release_blocker, __ATOMIC_ACQUIRE))
				;
		}
		while (!__atomic_load_n(&blocker_started, __ATOMIC_ACQUIRE))
			;
		for (int i = 0; i < WAITING; i++) {
#pragma omp task
			__atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
		}
		for (int i = 0; i < ROUND; i++) {
#pragma omp task
			__atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
		}
		__atomic_store_n(&release_blocker, 1, __ATOMIC_RELEASE);
#pragma omp taskwait
	}
	printf("spawned %d ran %ld\n", 1 + WAITING + ROUND, done);
	return done == WAITING + ROUND ? 0 : 1;
}
