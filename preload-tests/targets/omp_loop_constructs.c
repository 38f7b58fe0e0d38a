// SPDX-License-Identifier: MIT
/*
 * Task constructs as a busy program writes them, for GCC -O2 -g: three tasks inside one loop
 * (GCC's line table puts the calls of the last two on the loop's line), a taskloop, and a
 * parallel region nested in another whose threads each spawn a task; and four tasks in a row
 * that each only call a function (GCC lays their outlined functions out one after another, and
 * each begins at an address where the one before has its last row). Prints what the tasks
 * computed and the teams' sizes; the output does not depend on scheduling.
 */
#include <omp.h>
#include <stdio.h>

enum { ROUNDS = 5, ITERATIONS = 200, GRAIN = 20, TEAM = 2 };
static long sums[3], squares[ITERATIONS], quarters[4];

static __attribute__((noinline)) void add(long *to, long value)
{
	__atomic_add_fetch(to, value, __ATOMIC_RELAXED);
}

static void add_quarters(long value)
{
#pragma omp task firstprivate(value)
	add(&quarters[0], value);
#pragma omp task firstprivate(value)
	add(&quarters[1], value * 2);
#pragma omp task firstprivate(value)
	add(&quarters[2], value * 3);
#pragma omp task firstprivate(value)
	add(&quarters[3], value * 4);
#pragma omp taskwait
}

int main(void)
{
	int inner_teams = 0, nested_tasks = 0;
	omp_set_max_active_levels(2);
#pragma omp parallel num_threads(TEAM)
#pragma omp single
	{
		for (int round = 1; round <= ROUNDS; round++) {
#pragma omp task firstprivate(round)
			__atomic_add_fetch(&sums[0], round, __ATOMIC_RELAXED);
			if (round % 2 == 0) {
#pragma omp task firstprivate(round)
				__atomic_add_fetch(&sums[1], round, __ATOMIC_RELAXED);
			}
#pragma omp task firstprivate(round)
			__atomic_add_fetch(&sums[2], round, __ATOMIC_RELAXED);
		}
		add_quarters(ROUNDS);
#pragma omp taskloop grainsize(GRAIN)
		for (int i = 0; i < ITERATIONS; i++)
			squares[i] = (long)i * i;
	}
#pragma omp parallel num_threads(TEAM)
	{
#pragma omp parallel num_threads(TEAM)
		{
#pragma omp single
			__atomic_add_fetch(&inner_teams, omp_get_num_threads(), __ATOMIC_RELAXED);
#pragma omp task
			__atomic_add_fetch(&nested_tasks, 1, __ATOMIC_RELAXED);
		}
	}
	long square_sum = 0;
	for (int i = 0; i < ITERATIONS; i++)
		square_sum += squares[i];
	printf("sums %ld %ld %ld, quarters %ld %ld %ld %ld, squares %ld, inner teams %d, nested "
	       "tasks %d\n",
	       sums[0], sums[1], sums[2], quarters[0], quarters[1], quarters[2], quarters[3],
	       square_sum, inner_teams, nested_tasks);
	return 0;
}
