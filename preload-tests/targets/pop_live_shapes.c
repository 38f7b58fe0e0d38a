// SPDX-License-Identifier: MIT
/*
 * OpenMP programs whose POP factors are known (issue 35), for the exit report's and the
 * console's: each spins (busy-waits, never sleeps) a unit of UNIT_MS of its thread's CPU time at
 * a time, so that on a loaded machine, which preempts both threads alike, their computations keep
 * their ratio (a spin to a wall-clock time would end late by whatever preemption crossed its end,
 * as much for a short spin as for a long one). argv[1] picks the shape; run on two threads:
 *
 *   balanced   a worksharing loop of 100 iterations of a unit, schedule(dynamic): every thread
 *              computes until the loop's end (one that a loaded machine preempts takes fewer
 *              iterations): parallel efficiency near 1
 *   imbalance  a loop, schedule(static,1), of one iteration a thread, where thread t works
 *              20 (1 + 2t) units of wall-clock time: load balance 2/3 on two threads. Wall-clock
 *              time here, not CPU time: a machine with one busy program beside this one shares a
 *              core with one thread more than with the other (the light thread's 100 ms of CPU
 *              took 270 ms, the heavy one's 300 ms 430), and the engines count computation in
 *              wall-clock time; one spin a thread is ended late by one preemption at most
 *   regions    10 regions in a row, each a single thread's task of 4 units, then 1 unit of
 *              serial code: nothing runs beside anything, parallelism 1, parallel efficiency
 *              1/2 on two threads
 *   critical   a loop of 40 iterations, each a unit inside a critical section: all of it one
 *              after the other, serialisation efficiency 1/2 on two threads (the program says
 *              on stderr the wall time each thread's sections took, "critical: sections' wall
 *              ms by thread A B": max(A, B) / (A + B) is the figure the machine made of it)
 *   ordered    the same in an ordered section (schedule(static,1))
 *   lock       the same under an OpenMP lock
 *   taskgroup  one thread spawns tasks of 1 to 8 units in a taskgroup: on two threads the one
 *              that runs 8, 7 and 6 computes 21 units, the other 15: load balance 6/7 (as libomp
 *              places them; a loaded machine may place them otherwise: the program says on
 *              stderr the units each thread ran and the wall time its tasks took, "taskgroup:
 *              units by thread A B, busy ms C D": a machine whose other work shares one core
 *              and not the other stretches one thread's units more than the other's (15 units
 *              took as long as 21: load balance 0.999 measured, rightly, where the units say
 *              0.857), and those times are what the engines count)
 *   long       one region whose threads each spin 600 units (3 s): while it runs, the span ends
 *              in its polls going on
 *   interest   an empty region (libomp takes omp_control_tool only once it started one), 20
 *              units of serial code, a balanced loop of 40 units between omp_control_tool's
 *              start and pause, 20 more serial units: the region of interest's parallel
 *              efficiency near 1, the whole run's 2/3
 *
 * Prints the shape's name and "done" at the end: the output is the same with and without the
 * shim.
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define UNIT_MS 5.0

/*
 * After a region that ends its function: the function's call of the region is no tail call, so
 * that the region's site is named by its own line, not by its caller's.
 */
#define NOT_A_TAIL_CALL() __asm__ volatile("" ::: "memory")

/* Spins `units` units of `clock`'s time. */
static void spin_on(clockid_t clock, double units)
{
	struct timespec start, now;
	double took;
	clock_gettime(clock, &start);
	do {
		clock_gettime(clock, &now);
		took = (double)(now.tv_sec - start.tv_sec) * 1e3 +
		       (double)(now.tv_nsec - start.tv_nsec) / 1e6;
	} while (took < units * UNIT_MS);
}

/* Spins `units` units of the thread's CPU time. */
static void spin(double units)
{
	spin_on(CLOCK_THREAD_CPUTIME_ID, units);
}

static void balanced(void)
{
#pragma omp parallel for schedule(dynamic)
	for (int i = 0; i < 100; i++)
		spin(1);
	NOT_A_TAIL_CALL();
}

static void long_region(void)
{
#pragma omp parallel
	spin(600);
	NOT_A_TAIL_CALL();
}

static void imbalance(void)
{
	int threads = omp_get_max_threads();
#pragma omp parallel for schedule(static, 1)
	for (int i = 0; i < threads; i++)
		spin_on(CLOCK_MONOTONIC, 20 * (1 + 2 * omp_get_thread_num()));
	NOT_A_TAIL_CALL();
}

static void regions(void)
{
	for (int step = 0; step < 10; step++) {
#pragma omp parallel
#pragma omp single
#pragma omp task
		spin(4);
		spin(1);
	}
}

/* The monotonic clock, in ms. */
static double wall_ms(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

/* Spins `units` units (spin's); the wall time they took, in ms. */
static double timed_spin(double units)
{
	double start = wall_ms();
	spin(units);
	return wall_ms() - start;
}

/*
 * One unit inside a mutual exclusion's section, its wall time added to the calling thread's
 * (`busy`: by OpenMP thread number; no other thread adds at the same time). On a machine whose
 * other work shares one core and not the other, a thread's sections take longer than the
 * other's, and the serialisation efficiency moves with them (0.53 to 0.64 measured for 0.5 with
 * a busy program pinned to one core): the program says what its sections took.
 */
static void section_unit(double busy[2])
{
	busy[omp_get_thread_num() & 1] += timed_spin(1);
}

static void say_sections(const char *shape, const double busy[2])
{
	fprintf(stderr, "%s: sections' wall ms by thread %.2f %.2f\n", shape, busy[0], busy[1]);
}

static void critical(void)
{
	static double busy[2];
#pragma omp parallel for
	for (int i = 0; i < 40; i++) {
#pragma omp critical
		section_unit(busy);
	}
	say_sections("critical", busy);
}

static void ordered(void)
{
	static double busy[2];
#pragma omp parallel for ordered schedule(static, 1)
	for (int i = 0; i < 40; i++) {
#pragma omp ordered
		section_unit(busy);
	}
	say_sections("ordered", busy);
}

static void lock(void)
{
	static double busy[2];
	omp_lock_t l;
	omp_init_lock(&l);
#pragma omp parallel for
	for (int i = 0; i < 40; i++) {
		omp_set_lock(&l);
		section_unit(busy);
		omp_unset_lock(&l);
	}
	omp_destroy_lock(&l);
	say_sections("lock", busy);
}

static void taskgroup(void)
{
	static double ran[2], busy[2];
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup
	for (int units = 1; units <= 8; units++) {
#pragma omp task firstprivate(units)
		{
			double took = timed_spin(units);
			int thread = omp_get_thread_num() & 1;
#pragma omp atomic
			ran[thread] += units;
#pragma omp atomic
			busy[thread] += took;
		}
	}
	fprintf(stderr, "taskgroup: units by thread %g %g, busy ms %.2f %.2f\n", ran[0], ran[1],
		busy[0], busy[1]);
}

static void interest(void)
{
	static volatile int started; /* a region with an effect: LLVM deletes an empty one */
#pragma omp parallel
	started = 1;
	spin(20);
	omp_control_tool(omp_control_tool_start, 0, NULL);
#pragma omp parallel for schedule(dynamic)
	for (int i = 0; i < 40; i++)
		spin(1);
	omp_control_tool(omp_control_tool_pause, 0, NULL);
	spin(20);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} shapes[] = {
		{"balanced", balanced},   {"imbalance", imbalance}, {"regions", regions},
		{"critical", critical},   {"ordered", ordered},     {"lock", lock},
		{"taskgroup", taskgroup}, {"interest", interest},   {"long", long_region},
	};
	const char *shape = argc > 1 ? argv[1] : "balanced";
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		if (strcmp(shape, shapes[i].name) == 0) {
			shapes[i].run();
			printf("%s: done\n", shape);
			return 0;
		}
	fprintf(stderr, "pop_live_shapes: no shape %s\n", shape);
	return 2;
}
