// SPDX-License-Identifier: MIT
/*
 * Regions in a row as a time-step code has them (test_pop_loops.c): STEPS steps, each a parallel
 * construct run by a team of one thread (its `if` false: 2 units, no barrier), a balanced region
 * of two threads (2 units each), then 2 units of serial code. Before the balanced region's
 * barrier each thread computed as much as the other: its load balance is 1, and neither waits
 * there long; the worker idles between regions (4 units a step) at no site. The whole run:
 * thread 0 computes 6 units a step, thread 1 2: load balance and parallel efficiency 0.667.
 * With POP_TIMES it also says on stderr what the balanced region's threads computed before its
 * barrier, in wall time, and how long they waited there for each other ("pop_idle_between:
 * barrier phases A and B ms, waited W ms"): what a loaded machine made of the balance (a
 * thread preempted in its units computes them later, and the other waits for it).
 */
#include "pop_units.h"

#define STEPS 4

/* Each thread's wall time in the balanced region's units, all steps, and each step's. */
static double phase_ms[2], step_ms[STEPS][2];

int main(int argc, char **argv)
{
	(void)argv;
	pop_start();
	for (int step = 0; step < STEPS; step++) {
		pop_fork();
#pragma omp parallel if (argc > 99)
		pop_work(2);
#pragma omp parallel
		{
			double from = pop_now_ms();
			pop_work(2);
			int t = omp_get_thread_num() & 1;
			step_ms[step][t] = pop_now_ms() - from;
			phase_ms[t] += step_ms[step][t];
		}
		pop_join();
		pop_work(2);
		pop_checksum = pop_checksum * 3 + (unsigned long)step + 1;
	}
	pop_end("pop_idle_between");
	double waited = 0;
	for (int step = 0; step < STEPS; step++)
		waited += step_ms[step][0] > step_ms[step][1] ? step_ms[step][0] - step_ms[step][1]
							      : step_ms[step][1] - step_ms[step][0];
	if (getenv("POP_TIMES") != NULL)
		fprintf(stderr,
			"pop_idle_between: barrier phases %.2f and %.2f ms, waited %.2f ms\n",
			phase_ms[0], phase_ms[1], waited);
	return 0;
}
