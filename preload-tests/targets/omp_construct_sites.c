// SPDX-License-Identifier: MIT
/*
 * One of each OpenMP construct that spawns tasks, built by GCC and by clang: a task in a
 * parallel region's single, two taskloops in a row (1000 iterations, grainsize 10), an untied
 * task, two tasks ordered by a dependence, a task in a taskgroup, and a task in a parallel
 * region nested in another. Prints what each computed and the teams' sizes; the output does not
 * depend on scheduling.
 */
#include <omp.h>
#include <stdio.h>

enum { ITERATIONS = 1000, GRAIN = 10, TEAM = 2 };
static long squares[ITERATIONS], cubes[ITERATIONS];

/* Two taskloop constructs, one after the other. */
static void loops(void)
{
#pragma omp taskloop grainsize(GRAIN)
	for (int i = 0; i < ITERATIONS; i++)
		squares[i] = (long)i * i;
#pragma omp taskloop grainsize(GRAIN)
	for (int i = 0; i < ITERATIONS; i++)
		cubes[i] = (long)i * i * i;
}

/* An untied task, two tasks ordered by a dependence, a task in a taskgroup. */
static void others(int *values)
{
#pragma omp task untied shared(values)
	values[0] = 1;
#pragma omp task depend(out : values[1]) shared(values)
	values[1] = 2;
#pragma omp task depend(in : values[1]) shared(values)
	values[2] = values[1] + 1;
#pragma omp taskgroup
	{
#pragma omp task shared(values)
		values[3] = 4;
	}
#pragma omp taskwait
}

int main(void)
{
	int single_task = 0, nested_tasks = 0, outer_team = 0, inner_teams = 0, values[4] = {0};
	omp_set_max_active_levels(2);
#pragma omp parallel num_threads(TEAM)
#pragma omp single
	{
#pragma omp task shared(single_task)
		single_task = 42;
		loops();
		others(values);
	}
#pragma omp parallel num_threads(TEAM)
	{
#pragma omp single
		outer_team = omp_get_num_threads();
#pragma omp parallel num_threads(TEAM)
		{
#pragma omp single
			__atomic_add_fetch(&inner_teams, omp_get_num_threads(), __ATOMIC_RELAXED);
#pragma omp task shared(nested_tasks)
			__atomic_add_fetch(&nested_tasks, 1, __ATOMIC_RELAXED);
		}
	}
	long square_sum = 0, cube_sum = 0;
	for (int i = 0; i < ITERATIONS; i++) {
		square_sum += squares[i];
		cube_sum += cubes[i];
	}
	printf("task %d, taskloops %ld %ld, others %d %d %d %d, outer team %d, inner teams %d, "
	       "nested tasks %d\n",
	       single_task, square_sum, cube_sum, values[0], values[1], values[2], values[3],
	       outer_team, inner_teams, nested_tasks);
	return 0;
}
