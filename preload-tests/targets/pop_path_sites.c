// SPDX-License-Identifier: MIT
/*
 * Parallel regions of CONSTRUCTS constructs in a row (test_pop.c), STEPS steps: in the construct
 * of weight k (k = CONSTRUCTS down to 1, in that order), thread t works k(1 + t) units
 * (pop_units.h). The critical path runs through thread 1's part of each region, the regions one
 * after the other: 2k units of each step's CONSTRUCTS(CONSTRUCTS + 1), so the construct of weight
 * k has 2k / (CONSTRUCTS(CONSTRUCTS + 1)) of the span (the serial code between them next to
 * none). Three (the default): 50%, 33% and 17%, load balance 0.75. Six (pop_many_sites): 6/21 to
 * 1/21, more sites than a path of the live statistics keeps (four), which they say by committing
 * the initial task's path at each region's join. With TASK_CONSTRUCTS (pop_many_task_sites) the
 * six are task constructs in one region, each task 2k units waited for: no join between them,
 * the path's sites past four not kept. With POP_TIMES it says on
 * stderr how long each construct's regions took, fork to join ("NAME: weight K regions W ms"):
 * the path's time at its site as this run made it, which a loaded machine moves (a thread
 * preempted in one region and not in the next).
 */
#include "pop_units.h"

#ifndef CONSTRUCTS
#define CONSTRUCTS 3
#endif
#ifndef STEPS
#define STEPS 8
#endif

/* The wall time of the regions of each weight, fork to join. */
static double region_ms[CONSTRUCTS + 1];

#ifdef TASK_CONSTRUCTS
/* pop_many_task_sites: the constructs are task constructs, each task waited for, all in one
 * region, spawned by one thread: more sites on the path than a path keeps, none of them a
 * region's join (where the live statistics commit a path's sites). */
#define POP_REGION(k)                                                                              \
	do {                                                                                       \
		double from = pop_now_ms();                                                        \
		_Pragma("omp task") pop_work(2 * (k));                                             \
		_Pragma("omp taskwait") region_ms[k] += pop_now_ms() - from;                       \
	} while (0)
#define POP_NAME "pop_many_task_sites"
#else
#define POP_NAME (CONSTRUCTS > 3 ? "pop_many_sites" : "pop_path_sites")
/* The region of weight `k`: its construct's site is the line the macro is used on. */
#define POP_REGION(k)                                                                              \
	do {                                                                                       \
		double from = pop_now_ms();                                                        \
		pop_fork();                                                                        \
		_Pragma("omp parallel") pop_work((k) * (1 + omp_get_thread_num()));                \
		pop_join();                                                                        \
		region_ms[k] += pop_now_ms() - from;                                               \
	} while (0)
#endif

int main(void)
{
	pop_start();
#ifdef TASK_CONSTRUCTS
	pop_fork();
#pragma omp parallel
#pragma omp single
#endif
	for (int step = 0; step < STEPS; step++) {
#if CONSTRUCTS >= 6
		POP_REGION(6);
#endif
#if CONSTRUCTS >= 5
		POP_REGION(5);
#endif
#if CONSTRUCTS >= 4
		POP_REGION(4);
#endif
		POP_REGION(3);
		POP_REGION(2);
		POP_REGION(1);
		pop_checksum = pop_checksum * 3 + (unsigned long)step;
	}
#ifdef TASK_CONSTRUCTS
	pop_join();
#endif
	const char *name = POP_NAME;
	pop_end(name);
	for (int k = CONSTRUCTS; k >= 1 && getenv("POP_TIMES") != NULL; k--)
		fprintf(stderr, "%s: weight %d regions %.1f ms\n", name, k, region_ms[k]);
	return 0;
}
