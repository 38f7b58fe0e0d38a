// SPDX-License-Identifier: MIT
/*
 * What the pop_* targets share (their known POP factors: test_pop.c). Work comes in units of
 * POP_UNIT_MS of the thread's CPU time, each a busy spin, never a sleep: a unit is computation.
 * A loaded machine stretches a unit by the time its thread waits for a CPU, so it stretches both
 * threads' units alike, in proportion, which keeps the factors (ratios); a spin of 5 ms of wall
 * time was stretched only when a preemption crossed its end, by as much for a short unit as for
 * a long one: an imbalanced loop's load balance was measured from 0.63 to 1.0 on a loaded
 * machine, 0.68 to 0.78 with CPU time. Each thread's units are added up by its OpenMP thread
 * number (0 outside parallel regions), in wall time, as the engines count computation. Each
 * program prints a checksum of what it computed, the same whichever thread ran what. With
 * POP_TIMES in the environment it also says on stderr each thread's busy time and the run's
 * wall time, and the load balance and parallel efficiency they give: the answer measured by the
 * program itself, which the machine may still move from the known one.
 */
#pragma once

#include "pop_outside.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define POP_UNIT_MS 5

static double pop_busy_ms[POP_THREADS_MAX], pop_start_ms;
static unsigned long pop_checksum;

/* The units each thread computed (its CPU time, exact whatever the machine does): the deal the
 * program was built to make, where its busy time (wall time) is what the machine made of it. */
static int pop_units_of[POP_THREADS_MAX];

/* What each thread has done so far: busy time and units (pop_busy_now). */
struct pop_busy {
	double ms[POP_THREADS_MAX];
	int units[POP_THREADS_MAX];
	double serial_ms; /* the initial thread's serial code, in ms[0] too */
};

/*
 * The initial thread's serial code (outside parallel regions) is computation as a whole, as the
 * initial task's polls are: from pop_start to the first pop_fork, from each pop_join to the next
 * pop_fork, and from the last pop_join on; it is added to thread 0's busy time at each fork.
 */
static double pop_serial_since_ms, pop_serial_ms;

/* The run's start, the OpenMP runtime left to start at the program's first call into it
 * (pop_serial_first): the serial code before is the initial task's all the same. */
static void pop_start_without_runtime(void)
{
	pop_start_ms = pop_serial_since_ms = pop_now_ms();
}

/* The run's start, the OpenMP runtime started here, not at the first parallel region (the
 * targets' usual start: nothing of the run before the runtime's start). */
static __attribute__((unused)) void pop_start(void)
{
	pop_start_without_runtime();
	(void)omp_get_max_threads();
}

/* Before a parallel region, and after it. */
static void pop_fork(void)
{
	double serial = pop_now_ms() - pop_serial_since_ms;
	pop_busy_ms[0] += serial;
	pop_serial_ms += serial;
}

static void pop_join(void)
{
	pop_serial_since_ms = pop_now_ms();
}

/* Each thread's busy time and units so far, the serial code's since the last join too. */
static void pop_busy_now(struct pop_busy *busy)
{
	for (int t = 0; t < POP_THREADS_MAX; t++) {
		busy->ms[t] = pop_busy_ms[t];
		busy->units[t] = pop_units_of[t];
	}
	double serial = pop_now_ms() - pop_serial_since_ms; /* called in serial code only */
	busy->ms[0] += serial;
	busy->serial_ms = pop_serial_ms + serial;
}

/* Spins `units` units of the calling thread's CPU time. */
static void pop_spin(int units)
{
	double cpu = pop_ms(CLOCK_THREAD_CPUTIME_ID);
	while (pop_ms(CLOCK_THREAD_CPUTIME_ID) - cpu < units * POP_UNIT_MS)
		;
}

/* `units` units done on the calling thread since `start` (pop_now_ms), counted as its busy time
 * inside parallel regions (outside, it is serial code, counted as such); their end starts the
 * thread's time outside its sections again (pop_enter). pop_work spins them. */
static void pop_done(double start, int units)
{
	int thread = pop_thread();
	if (thread >= 0)
		pop_busy_ms[thread] += pop_now_ms() - start; /* only the thread itself writes it */
	pop_units_of[thread >= 0 ? thread : 0] += units;     /* serial code: the initial thread's */
	pop_enter();
}

static __attribute__((unused)) void pop_work(int units)
{
	double start = pop_now_ms();
	pop_spin(units);
	pop_done(start, units);
}

/* Sleeps `units` units, counted as pop_work counts them: a sleep is no wait the engines know,
 * so its time is computation to them, and a loaded machine stretches it by its wake-up's
 * lateness alone (a comparison of runs at two scales, each loaded its own way: pop_replicated). */
static __attribute__((unused)) void pop_sleep_work(int units)
{
	double start = pop_now_ms();
	long ns = (long)units * POP_UNIT_MS * 1000000L;
	struct timespec left = {ns / 1000000000L, ns % 1000000000L};
	while (nanosleep(&left, &left) != 0)
		;
	pop_done(start, units);
}

/* Spins `units` units of serial code asking nothing of OpenMP (pop_work asks the thread's
 * number, which a clang build asks at its entry: the runtime starts there). */
static __attribute__((unused)) void pop_work_serial(int units)
{
	pop_spin(units);
	pop_units_of[0] += units;
}

/*
 * What was measured from `since_ms`, when each thread had done `since` (in serial code:
 * pop_busy_now), on stderr under POP_TIMES: each thread's busy time and units ("WHAT: thread T
 * busy B ms, U units"), then "WHAT: N threads
 * busy T ms in all, M ms at most, wall W ms (balance B, efficiency E)" (in words of its own: the
 * console's figures are on the same stderr), then "WHAT: serial code S ms" (thread 0's busy
 * time outside parallel regions, which a region's own figures leave out).
 */
static void pop_say_times(const char *what, const struct pop_busy *since, double since_ms)
{
	double wall = pop_now_ms() - since_ms, total = 0, max = 0;
	/* each of the team's threads, busy or not (a worker that ran no task but its implicit
	 * ones is one of the run's threads all the same) */
	int threads = omp_get_max_threads() < POP_THREADS_MAX ? omp_get_max_threads()
							      : POP_THREADS_MAX;
	struct pop_busy now;
	if (getenv("POP_TIMES") == NULL)
		return;
	pop_busy_now(&now);
	for (int t = 0; t < threads; t++) {
		double busy = now.ms[t] - since->ms[t];
		fprintf(stderr, "%s: thread %d busy %.1f ms, %d units\n", what, t, busy,
			now.units[t] - since->units[t]);
		total += busy;
		max = busy > max ? busy : max;
	}
	if (max > 0)
		fprintf(stderr,
			"%s: %d threads busy %.1f ms in all, %.1f ms at most, wall %.1f ms "
			"(balance %.3f, efficiency %.3f)\n",
			what, threads, total, max, wall, total / threads / max,
			total / threads / wall);
	fprintf(stderr, "%s: serial code %.1f ms\n", what, now.serial_ms - since->serial_ms);
	double most_outside, outside = pop_outside_total(&most_outside);
	if (outside > 0)
		fprintf(stderr, "%s: %.3f ms outside the sections\n", what, outside);
}

/* Prints the checksum, and with POP_TIMES the times measured over the whole run. */
static void pop_end(const char *name)
{
	static const struct pop_busy none;
	printf("%s: checksum %lu\n", name, pop_checksum);
	pop_say_times(name, &none, pop_start_ms);
}
