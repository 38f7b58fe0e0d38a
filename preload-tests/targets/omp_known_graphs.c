// SPDX-License-Identifier: MIT
/*
 * OpenMP task graphs whose work and span are known exactly, for the converter's analysis
 * (taskprobe-timeline --analyze): each task spins (busy-waits on CLOCK_MONOTONIC, never sleeps)
 * a given time. argv[1] picks the graph; all run in one parallel region, spawned by one thread:
 *
 *   chain      20 tasks of 5 ms, each depend(inout) on the one before: work 100 ms, span 100 ms
 *   flat       40 independent tasks of 5 ms: work 200 ms, span 5 ms
 *   wide       600 independent tasks of 1 ms: work 600 ms, span 1 ms and the spawns before the
 *              last. More than libomp's deque of a thread holds (256): a task spawned while it
 *              is full runs at once in its parent's place, which the graph still has beside it
 *   tree       a binary tree of depth 4 (31 tasks): a node spins 2 ms, spawns its two children,
 *              waits for them (taskwait) and spins 1 ms; a leaf (16) spins 5 ms, then waits
 *              for its children, having none (a taskwait of its own, which waits for nothing):
 *              work 15 * 3 + 16 * 5 = 125 ms, span 4 * 3 + 5 = 17 ms
 *   twin       the same tree, a node's two children spawned by two task constructs on one line
 *              (two call addresses, one site to a person: an unrolled loop's copies)
 *   wavefront  a 6x6 grid of 4 ms cells, each depending on the cell above and the cell to its
 *              left: work 144 ms, span (2 * 6 - 1) * 4 = 44 ms
 *   fan        a task of 40 ms (depend(out)), then 300 tasks that read what it writes
 *              (depend(in)), all spawned while it runs: the last spins 40 ms, the others 0.1
 *              ms: work 109.9 ms and the spawns, span 80 ms. More edges from one task than the
 *              live statistics keep in their table's windows (256). Its two constructs' sites
 *              are "fan (...)"
 *   nested     a parallel region of two threads (from the one that runs the graph), each
 *              the primary of a region of two more: inner thread u of outer thread t spins
 *              (1 + u + 2t) * 50 ms: work 500 ms, span 200 ms through the longest spin, both
 *              with the two forks before it, timed (a new team's threads are made there: up
 *              to a few ms on a loaded machine). Its two constructs' sites are "nested (...)"
 *   exits      the spawning thread spins 40 ms, spawns one task of 20 ms, spins until another
 *              thread ran it and exits inside the parallel region: its fragment never ends,
 *              and is counted up to the exit: work 60 ms and the spin after the spawn (at
 *              least the task's 20), span 40 ms and that spin. Long enough that the region's
 *              start before the spin (a millisecond on a loaded machine) stays within the
 *              analysis tests' 5%
 *
 * Each graph's tasks come from one task construct of its own (one site). The region's implicit
 * tasks (spawning the graph, starting the region: a few ms on a loaded machine) are work the
 * truth does not count: each graph's work is long enough for them to stay within the tests' 5%.
 * A spin lasts at least its time, more when the thread is preempted: each task measures how long
 * its spins took (a tree's node, all it did outside its taskwait), and the program prints the
 * graph's work and span with those times ("truth work W ms span S ms"), what the analysis must
 * find.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ms_since.h"

static double work_ms, span_ms;
static int twin; /* the tree's two constructs on one line (the twin graph) */

#define CHAIN_TASKS 20
#define FLAT_TASKS  40
#define WIDE_TASKS  600
#define TREE_DEPTH  4
#define GRID        6

static void add_work(double ms)
{
#pragma omp atomic
	work_ms += ms;
}

/* Spins `ms` milliseconds from `start`. */
static void spin_from(const struct timespec *start, double ms)
{
	while (ms_since(start) < ms)
		;
}

/* Spins `ms` milliseconds; returns how long it took (added to the work). */
static double spin_ms(double ms)
{
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	spin_from(&start, ms);
	double took = ms_since(&start);
	add_work(took);
	return took;
}

static void chain(void)
{
	int x = 0;
	for (int i = 0; i < CHAIN_TASKS; i++) {
#pragma omp task depend(inout : x) shared(x)
		{
			span_ms += spin_ms(5); /* the tasks run one after the other */
			x++;
		}
	}
}

/*
 * How long the tasks this thread ran took, each with what it ran inside itself: a task ran
 * inside its parent's spawn (a one-thread team runs it there) is its child's time, not its own.
 */
static _Thread_local double ran_ms;

/*
 * A task's path: the spawning task's own time before its spawn (the spawns before it; on one
 * thread, where each task runs inside its spawn, less those tasks' times), then its own to the
 * end of its critical section, not its spin alone: a thread preempted as it enters the section
 * keeps the task on the path that long, as the analysis counts it. CI runs: span 12.0 ms, the
 * longest spin 11.3; on one thread, 0.35 ms of the spawning task's fragments before the longest.
 */
static void flat(int tasks, double ms)
{
	struct timespec loop;
	clock_gettime(CLOCK_MONOTONIC, &loop);
	double outer = ran_ms;
	for (int i = 0; i < tasks; i++) {
		double before = ms_since(&loop) - (ran_ms - outer);
#pragma omp task firstprivate(before)
		{
			struct timespec start;
			clock_gettime(CLOCK_MONOTONIC, &start);
			spin_ms(ms);
#pragma omp critical
			{
				double took = before + ms_since(&start);
				span_ms = took > span_ms ? took : span_ms;
			}
			ran_ms += ms_since(&start);
		}
	}
}

/* The graphs of flat's construct (its site, "flat (omp_known_graphs.c:...)", in both). */
static void flat_graph(void)
{
	flat(FLAT_TASKS, 5);
}

static void wide_graph(void)
{
	flat(WIDE_TASKS, 1);
}

/*
 * A node's span: its own time and its longer child's span. Its own time is all it does outside
 * the taskwait, spawning too, not only its spins: a thread preempted as it spawns (or as the
 * shim captures the spawn's stack) takes longer, and the analysis counts that as the node's.
 */
static double node(int depth);

/* A node's two children by two constructs, both on the line the macro is used on. */
#define TWIN_CHILDREN(child, depth)                                                                \
	do {                                                                                       \
		_Pragma("omp task shared(child)") child[0] = node((depth) + 1);                    \
		_Pragma("omp task shared(child)") child[1] = node((depth) + 1);                    \
	} while (0)

static double node(int depth)
{
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	double outer = ran_ms, span;
	if (depth == TREE_DEPTH) {
		span = spin_ms(5);
#pragma omp taskwait
	} else {
		double child[2];
		spin_from(&start, 2);
		if (twin) {
			TWIN_CHILDREN(child, depth);
		} else {
			/* one call of the construct, not a copy an iteration: the graph's one
			 * site (two call addresses are two sites to the live statistics'
			 * paths, docs/limits.md) */
#pragma GCC unroll 1
			for (int i = 0; i < 2; i++) {
#pragma omp task shared(child)
				child[i] = node(depth + 1);
			}
		}
		double before = ms_since(&start) - (ran_ms - outer);
#pragma omp taskwait
		struct timespec resumed;
		clock_gettime(CLOCK_MONOTONIC, &resumed);
		spin_from(&resumed, 1);
		double after = ms_since(&resumed);
		add_work(before + after);
		span = before + (child[0] > child[1] ? child[0] : child[1]) + after;
	}
	ran_ms = outer + ms_since(&start);
	return span;
}

static void tree(void)
{
#pragma omp task
	span_ms = node(0);
}

static void wavefront(void)
{
	static char cell[GRID][GRID], none; /* nobody writes `none`: no dependence */
	static double took[GRID][GRID];
	for (int i = 0; i < GRID; i++)
		for (int j = 0; j < GRID; j++) {
			char *up = i > 0 ? &cell[i - 1][j] : &none,
			     *left = j > 0 ? &cell[i][j - 1] : &none;
#pragma omp task depend(in : *up, *left) depend(out : cell[i][j])
			took[i][j] = spin_ms(4);
		}
#pragma omp taskwait
	/* the longest path to each cell's end */
	for (int i = 0; i < GRID; i++)
		for (int j = 0; j < GRID; j++) {
			double up = i > 0 ? took[i - 1][j] : 0, left = j > 0 ? took[i][j - 1] : 0;
			took[i][j] += up > left ? up : left;
		}
	span_ms = took[GRID - 1][GRID - 1];
}

#define FAN_TASKS 300

/* The readers' 300 spawns are the spawning task's work (a CI run's 10 ms of them, 9% over the
 * spins alone), beside the task's 40 ms: on the path only should they outlast it. */
static void fan(void)
{
	static char read;
	static double first, last;
#pragma omp task depend(out : read)
	first = spin_ms(40);
	struct timespec spawning;
	clock_gettime(CLOCK_MONOTONIC, &spawning);
	for (int i = 0; i < FAN_TASKS; i++) {
		double ms = i == FAN_TASKS - 1 ? 40 : 0.1;
#pragma omp task depend(in : read) firstprivate(ms)
		{
			double took = spin_ms(ms);
			if (ms == 40)
				last = took;
		}
	}
	add_work(ms_since(&spawning));
#pragma omp taskwait
	span_ms = first + last;
}

/*
 * Nested parallel regions (OpenMP's nesting on for them): the span is the longest spin after the
 * two forks before it, each timed on the thread that makes it: the outer one from before it to
 * the outer primary's start, an inner one from its outer thread's start to its primary's (a new
 * team's threads are made there, and are computation on the path).
 */
static void nested(void)
{
	double took[2][2], before[2], fork = 0; /* by outer and inner thread: no section */
	struct timespec start;
	omp_set_max_active_levels(3);
	clock_gettime(CLOCK_MONOTONIC, &start);
#pragma omp parallel num_threads(2) shared(took, before, fork, start)
	{
		int outer = omp_get_thread_num();
		struct timespec mine;
		if (outer == 0)
			fork = ms_since(&start);
		clock_gettime(CLOCK_MONOTONIC, &mine);
#pragma omp parallel num_threads(2) shared(took, before, outer, mine)
		{
			if (omp_get_thread_num() == 0)
				before[outer] = ms_since(&mine);
			took[outer][omp_get_thread_num()] = spin_ms(
				50 * (1 + omp_get_thread_num() + 2 * outer));
		}
	}
	work_ms += fork + before[0] + before[1];
	for (int t = 0; t < 2; t++)
		for (int u = 0; u < 2; u++)
			if (fork + before[t] + took[t][u] > span_ms)
				span_ms = fork + before[t] + took[t][u];
}

/*
 * The truth said once the exit has started, where the engines' window ends: said before it, the
 * write (which wakes the reader) let a loaded machine preempt the thread for a time slice inside
 * the open fragment, 5 ms past the truth in three tries of three.
 */
static void say_exits_truth(void)
{
	printf("exits: truth work %.3f ms span %.3f ms\n", work_ms, span_ms);
	fflush(stdout);
}

/* Run on two threads or more: the other one runs the task while this one spins. */
static void exits(void)
{
	static int ran;
	double before = spin_ms(40);
#pragma omp task
	{
		spin_ms(20);
		__atomic_store_n(&ran, 1, __ATOMIC_RELEASE);
	}
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!__atomic_load_n(&ran, __ATOMIC_ACQUIRE))
		;
	/*
	 * 5 ms more, so that the task's end (its executor's, after its last store) comes before the
	 * exit's start, where the engines' window ends: exiting at once, a preemption of its thread
	 * between the two left the task ended after the window (0 tasks, a CI run's).
	 */
	spin_from(&start, ms_since(&start) + 5);
	double after = ms_since(&start);
	/* the spin until the task ran: the task's time and more */
	work_ms += after;
	span_ms = before + after;
	atexit(say_exits_truth);
	exit(0);
}

int main(int argc, char **argv)
{
	const char *graph = argc > 1 ? argv[1] : "chain";
	twin = strcmp(graph, "twin") == 0;
	void (*run)(void) = strcmp(graph, "flat") == 0           ? flat_graph
			    : strcmp(graph, "wide") == 0         ? wide_graph
			    : strcmp(graph, "exits") == 0        ? exits
			    : strcmp(graph, "wavefront") == 0    ? wavefront
			    : strcmp(graph, "fan") == 0          ? fan
			    : strcmp(graph, "tree") == 0 || twin ? tree
			    : strcmp(graph, "nested") == 0       ? nested
								 : chain;
#pragma omp parallel
#pragma omp single
	run();
	printf("%s: truth work %.3f ms span %.3f ms\n", graph, work_ms, span_ms);
	return 0;
}
