// SPDX-License-Identifier: MIT
/*
 * Tasks that run in many short polls: in one parallel region, one thread spawns STEPPED_TASKS
 * tasks from one construct (in `stepped`), each of which takes STEPS steps, a step spawning one
 * tiny child (from the construct in `step_child`) and waiting for it (taskwait). Each task's polls
 * are the moments between its taskwaits (about a spawn's time), while the task itself lasts all
 * its steps: tens of milliseconds. Prints the children's count.
 */
#include <stdio.h>

/* one a thread of two: none waits for a thread, whose time the verdict's start delay would count */
#define STEPPED_TASKS 2
#define STEPS         40000

static long children;

static void step_child(void)
{
#pragma omp task
	{
#pragma omp atomic
		children++;
	}
}

static void stepped(void)
{
	for (int i = 0; i < STEPPED_TASKS; i++) {
#pragma omp task
		for (int s = 0; s < STEPS; s++) {
			step_child();
#pragma omp taskwait
		}
	}
}

int main(void)
{
#pragma omp parallel
#pragma omp single
	stepped();
	printf("%ld children\n", children);
	return 0;
}
