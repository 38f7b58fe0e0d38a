// SPDX-License-Identifier: MIT
/*
 * What the pop_* targets share (their known POP factors: test_pop.c). Work comes in units of
 * POP_UNIT_MS, each a busy spin on CLOCK_MONOTONIC, never a sleep: a unit is computation, and a
 * thread preempted inside one (a loaded machine) still ends it on time, so that the factors hold
 * under load. Each thread's spins are added up by its OpenMP thread number (0 outside parallel
 * regions). Each program prints a checksum of what it computed, the same whichever thread ran
 * what. With POP_TIMES in the environment it also says on stderr each thread's busy time and
 * the run's wall time, and the load balance and parallel efficiency they give: the answer
 * measured by the program itself, which a loaded machine moves from the known one (a thread
 * preempted across a unit's end stretches the unit).
 */
#pragma once

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define POP_UNIT_MS     5
#define POP_THREADS_MAX 8

static double pop_busy_ms[POP_THREADS_MAX], pop_start_ms;
static unsigned long pop_checksum;

static double pop_now_ms(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

/* The run's start: the OpenMP runtime is started here (a tool sees the run start with it), not
 * at the first parallel region, so that serial code before that region is in the run. */
static void pop_start(void)
{
	(void)omp_get_max_threads();
	pop_start_ms = pop_now_ms();
}

/* Spins `units` units on the calling thread, counted as its busy time. */
static void pop_work(int units)
{
	double start = pop_now_ms(), now;
	do
		now = pop_now_ms();
	while (now - start < units * POP_UNIT_MS);
	int thread = omp_get_thread_num();
	if (thread < POP_THREADS_MAX)
		pop_busy_ms[thread] += now - start; /* only the thread itself writes its slot */
}

/*
 * What was measured from `since_ms`, when each thread had been busy `busy_since[t]`, on stderr
 * under POP_TIMES: each thread's busy time, then "WHAT: N threads busy T ms in all, M ms at most,
 * wall W ms (balance B, efficiency E)" (in words of its own: the console's figures are on the
 * same stderr).
 */
static void pop_say_times(const char *what, const double *busy_since, double since_ms)
{
	double wall = pop_now_ms() - since_ms, total = 0, max = 0;
	/* each of the team's threads, busy or not (a worker that ran no task but its implicit
	 * ones is one of the run's threads all the same) */
	int threads = omp_get_max_threads() < POP_THREADS_MAX ? omp_get_max_threads()
							      : POP_THREADS_MAX;
	if (getenv("POP_TIMES") == NULL)
		return;
	for (int t = 0; t < threads; t++) {
		double busy = pop_busy_ms[t] - busy_since[t];
		fprintf(stderr, "%s: thread %d busy %.1f ms\n", what, t, busy);
		total += busy;
		max = busy > max ? busy : max;
	}
	if (max > 0)
		fprintf(stderr,
			"%s: %d threads busy %.1f ms in all, %.1f ms at most, wall %.1f ms "
			"(balance %.3f, efficiency %.3f)\n",
			what, threads, total, max, wall, total / threads / max,
			total / threads / wall);
}

/* Prints the checksum, and with POP_TIMES the times measured over the whole run. */
static void pop_end(const char *name)
{
	static const double none[POP_THREADS_MAX];
	printf("%s: checksum %lu\n", name, pop_checksum);
	pop_say_times(name, none, pop_start_ms);
}
