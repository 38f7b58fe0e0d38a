// SPDX-License-Identifier: MIT
/*
 * OpenMP programs whose POP factors are known (issue 35), for the recording's analysis: each
 * spins (busy-waits on CLOCK_MONOTONIC, never sleeps) units of 1 ms. argv[1] picks:
 *
 *   balanced    a loop of 200 units over the threads, dynamically scheduled: each thread
 *               computes until the loop ends, parallel efficiency near 1 (the threads' spins
 *               over the threads' time from main's start)
 *   imbalanced  a loop of 40 iterations (schedule(static, 1)) where thread t spins 1 + 2t units
 *               an iteration: on two threads load balance 20 / 30 = 0.667
 *   critical    a loop of 20 iterations whose 2 units are all inside a critical section: the
 *               sections are a chain, serialisation efficiency 0.5 on two threads
 *   ordered     the same inside an ordered construct
 *   lock        the same between omp_set_lock and omp_unset_lock
 *   taskgroup   a single thread makes tasks of 1 to 8 units (x 5) in a taskgroup: the threads
 *               share them as the runtime hands them out (36 units: 0.857 when one thread ran
 *               21)
 *   rows        ten times: 5 units of serial code, then a region whose single construct makes a
 *               task of 20 units; and 5 units to end: everything in series, parallelism 1.0 and
 *               parallel efficiency 0.5 on two threads
 *
 * A spin lasts its time and more when its thread is preempted at its end (a loaded machine):
 * the program measures each thread's spins and prints the factor they make, its truth
 * ("imbalanced: truth load balance 0.667"); a serialised loop's, a range ("critical: truth
 * serialisation efficiency 0.502 to 0.504": what its threads did outside their sections).
 */
#include "pop_outside.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

#define THREADS_MAX 64

static double spun[THREADS_MAX]; /* each thread's spins, ms */

static void spin(double units)
{
	double start = pop_now_ms(), now;
	do
		now = pop_now_ms();
	while (now < start + units);
	spun[omp_get_thread_num() % THREADS_MAX] += now - start;
	pop_enter(); /* its end starts its thread's time outside the sections again */
}

/* The threads' spins: their total and the most one spun. */
static double spun_total(double *most)
{
	double total = 0;
	*most = 0;
	for (int t = 0; t < THREADS_MAX; t++) {
		total += spun[t];
		*most = spun[t] > *most ? spun[t] : *most;
	}
	return total;
}

int main(int argc, char **argv)
{
	const char *shape = argc > 1 ? argv[1] : "balanced";
	int threads = 0;
	double start = pop_now_ms(), most;
	omp_lock_t lock;
	omp_init_lock(&lock);
	double started = pop_now_ms();
	if (strcmp(shape, "rows") == 0) {
		for (int step = 0; step < 10; step++) {
			spin(5);
#pragma omp parallel
			{
#pragma omp single
#pragma omp task
				spin(20);
#pragma omp master
				threads = omp_get_num_threads();
			}
		}
		spin(5);
		double total = spun_total(&most);
		printf("rows: truth parallel efficiency %.3f\n",
		       total / threads / (pop_now_ms() - start));
	} else if (strcmp(shape, "taskgroup") == 0) {
#pragma omp parallel
		{
#pragma omp single
#pragma omp taskgroup
			for (int i = 1; i <= 8; i++) {
#pragma omp task firstprivate(i)
				spin(5 * i);
			}
#pragma omp master
			threads = omp_get_num_threads();
		}
		double total = spun_total(&most);
		printf("taskgroup: truth load balance %.3f\n", total / threads / most);
	} else if (strcmp(shape, "imbalanced") == 0) {
#pragma omp parallel
		{
#pragma omp for schedule(static, 1)
			for (int i = 0; i < 40; i++)
				spin(1 + 2 * omp_get_thread_num());
#pragma omp master
			threads = omp_get_num_threads();
		}
		double total = spun_total(&most);
		printf("imbalanced: truth load balance %.3f\n", total / threads / most);
	} else if (strcmp(shape, "critical") == 0 || strcmp(shape, "ordered") == 0 ||
		   strcmp(shape, "lock") == 0) {
		/* the initial thread's serial code (the runtime is started: omp_init_lock) and its
		 * fork, computation the engines count: on a loaded machine, milliseconds */
		double forked_ms = pop_now_ms();
#pragma omp parallel
		{
			pop_enter();
#pragma omp master
			forked_ms = pop_outside_since_ms[0];
			if (shape[0] == 'c') {
#pragma omp for schedule(static, 1) nowait
				for (int i = 0; i < 20; i++) {
					pop_arrive();
#pragma omp critical
					spin(2);
				}
			} else if (shape[0] == 'o') {
#pragma omp for ordered schedule(static, 1) nowait
				for (int i = 0; i < 20; i++) {
					pop_arrive();
#pragma omp ordered
					spin(2);
				}
			} else {
#pragma omp for schedule(static, 1) nowait
				for (int i = 0; i < 20; i++) {
					pop_arrive();
					omp_set_lock(&lock);
					spin(2);
					omp_unset_lock(&lock);
				}
			}
			pop_leave();
		}
		double joined = pop_now_ms(), serial = forked_ms - started;
		/*
		 * All in sections, one after the other: the critical path holds them all and the
		 * serial code. What the threads did outside the sections (pop_outside.h) may lie on it
		 * or beside it, so the truth is a range: at least the most a thread computed in
		 * sections (and serial code) over all it computed, at most the most a thread computed
		 * outside them too over the path without them. Idle, both are 0.50 on two threads.
		 */
		double least_most = 0, most_most = 0, total = 0, outside = 0;
		for (int t = 0; t < THREADS_MAX; t++) {
			double sure = spun[t] + (t == 0 ? serial + pop_now_ms() - joined : 0);
			double unsure = t < POP_THREADS_MAX ? pop_outside_ms[t] : 0;
			least_most = sure > least_most ? sure : least_most;
			most_most = sure + unsure > most_most ? sure + unsure : most_most;
			total += sure;
			outside += unsure;
		}
		printf("%s: truth serialisation efficiency %.3f to %.3f\n", shape,
		       least_most / (total + outside), most_most / total);
	} else {
#pragma omp parallel
		{
#pragma omp for schedule(dynamic, 1)
			for (int i = 0; i < 200; i++)
				spin(1);
#pragma omp master
			threads = omp_get_num_threads();
		}
		double total = spun_total(&most);
		printf("balanced: truth parallel efficiency %.3f\n",
		       total / threads / (pop_now_ms() - start));
	}
	omp_destroy_lock(&lock);
	return 0;
}
