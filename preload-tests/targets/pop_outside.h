// SPDX-License-Identifier: MIT
/*
 * The time a thread of a serialised loop (ordered, critical, a lock) spends outside its sections,
 * as the pop_* targets measure it (pop_units.h, pop_conv_shapes.c): from its start in the region
 * (pop_enter) to its first arrival at a section (pop_arrive), from each section's end (pop_enter
 * again) to the next arrival, and from the last one to its end in the region (pop_leave). That
 * time is the runtime's dispatch and the loop's own code, microseconds on an idle machine; it
 * runs beside the other thread's section, off the critical path, and it is computation as the
 * engines count it. So it is all the work may exceed the span by, and all the serialisation
 * efficiency may move by (test_pop.c, test_analysis.c). A loaded machine stretches it by
 * whatever preemption lands there, by milliseconds now and then.
 */
#pragma once

#include <omp.h>
#include <time.h>

#define POP_THREADS_MAX 8

static inline double pop_ms(clockid_t clock)
{
	struct timespec now;
	clock_gettime(clock, &now);
	return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

static inline double pop_now_ms(void)
{
	return pop_ms(CLOCK_MONOTONIC);
}

static double pop_outside_ms[POP_THREADS_MAX], pop_outside_since_ms[POP_THREADS_MAX];

/* The calling thread's number in its outermost parallel region, -1 outside: a region of one
 * thread is one (omp_in_parallel says no there: it counts active regions only). */
static inline int pop_thread(void)
{
	int thread = omp_get_ancestor_thread_num(1);
	return omp_get_level() > 0 && thread < POP_THREADS_MAX ? thread : -1;
}

static inline void pop_enter(void)
{
	int thread = pop_thread();
	if (thread >= 0)
		pop_outside_since_ms[thread] = pop_now_ms(); /* only the thread itself writes it */
}

static inline void pop_arrive(void)
{
	int thread = pop_thread();
	if (thread >= 0)
		pop_outside_ms[thread] += pop_now_ms() - pop_outside_since_ms[thread];
}

static inline void pop_leave(void)
{
	pop_arrive();
}

/* The threads' time outside their sections: in all, and the most one thread spent. */
static inline double pop_outside_total(double *most)
{
	double total = 0;
	*most = 0;
	for (int t = 0; t < POP_THREADS_MAX; t++) {
		total += pop_outside_ms[t];
		*most = pop_outside_ms[t] > *most ? pop_outside_ms[t] : *most;
	}
	return total;
}
