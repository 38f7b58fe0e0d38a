// SPDX-License-Identifier: MIT
/*
 * The graph's rules for a new task's start and for parallel regions (work_span.h's, apart): which
 * tasks are a region's, where a task's start comes from, a region's fork, OpenMP's initial task's
 * start. Decided here alone for both engines (the live statistics' live.c, the recording's
 * analysis.c), which include work_span.h.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * Whether a task the executor started with a site (`executors`: a parallel construct's implicit
 * task) is its region's: not when its team is of one thread (`team_of_one`: the OpenMP adapter
 * creates such a task undeferred) inside another region (`nested`): that region (nesting off,
 * its default, or num_threads(1), or if(0)) runs on its encountering thread in that task's
 * place, parallel in nothing: its time is the region around it's computation and time, and the
 * encountering task goes on after it. Else the outer region held a nested one and had no
 * efficiency, its threads' work counted in the inner (a library's region called from a
 * program's: 0.08 ms of computation in 24 ms read "-" for both). An outermost team of one (a run
 * on one thread) is a region.
 */
static inline bool tp_span_region_task(bool executors, bool team_of_one, bool nested)
{
	return executors && !(team_of_one && nested);
}

/* Where a new task's start comes from (tp_span_spawn_from). */
enum tp_span_spawn_from {
	TP_SPAN_FROM_NOTHING,  /* no parent: OpenMP's initial task */
	TP_SPAN_FROM_FRAGMENT, /* its parent's fragment polled now, up to the spawn */
	TP_SPAN_FROM_LAST,     /* its parent's last fragment's end (spawned on another thread) */
	TP_SPAN_FROM_FORK,     /* its region's fork: a worker's implicit task (no parent) */
};

/*
 * A task spawned by `parent` (0: none), which the spawning thread polls now when
 * `parent_polled_here`; `implicit`: an implicit task of a parallel region (the executor's, with
 * a site). A worker's implicit task has no parent and starts after its region's fork: the
 * region's last fork published, or the initial task's fragment so far while the region's own
 * fork is not published yet (tp_span_fork_waits_initial: its thread may report it before the
 * primary reports the region's).
 */
static inline enum tp_span_spawn_from tp_span_spawn_from(bool has_parent, bool parent_polled_here,
							 bool implicit)
{
	if (!has_parent)
		return implicit ? TP_SPAN_FROM_FORK : TP_SPAN_FROM_NOTHING;
	return parent_polled_here ? TP_SPAN_FROM_FRAGMENT : TP_SPAN_FROM_LAST;
}

/*
 * Whether a new task's start is its region's fork (tp_span_fork): an implicit task of a parallel
 * region (`implicit`) with a parent is the region's primary's, whatever task encountered the
 * region (the initial task, an implicit task, or an explicit task: a region nested in a task
 * construct) and whichever thread spawned it (its start from its parent's fragment or from its
 * last); its workers' implicit tasks, which have none, start after it.
 */
static inline bool tp_span_publishes_fork(bool implicit, bool has_parent)
{
	return implicit && has_parent;
}

/*
 * When OpenMP's initial task's first poll starts, the process's first of a task with neither
 * parent nor site, said at `now`: at the program's start (`program_ns`: the shim's start in this
 * image, or the fork's in a child; 0 unknown: `now`), or after the thread's last wait if it ended
 * later (`waited_to`: MPI_Init's, say, which is no computation), never after `now`. OpenMP's
 * initial task is the whole program outside its parallel regions, but OMPT tells it only when the
 * runtime starts (at the first construct, or a clang build's first call into it at the entry of a
 * function with one): the serial code before, XSBench's set-up say, is its work and lies on the
 * span, as the whole run is the factors' run (Score-P's measurement, too, starts with the
 * program). A region of interest still limits the factors to what it marks.
 */
static inline uint64_t tp_span_initial_start(uint64_t now, uint64_t program_ns, uint64_t waited_to)
{
	if (program_ns == 0) /* not known (a perf recording): where OMPT told it */
		return now;
	uint64_t from = program_ns > waited_to ? program_ns : waited_to;
	return from < now ? from : now;
}

/*
 * Whether a worker's implicit task (TP_SPAN_FROM_FORK) starts after the initial task's fragment
 * so far, polled since `initial_from`, its region's last fork published at `fork_at` (0: none):
 * only while that fork is an earlier poll's, its own region's not published yet (the executor
 * released the worker first). Once the primary's implicit task is spawned, what the initial
 * task's poll does until its switch out (the runtime's, the shim's) is nothing a worker waits
 * for; and a worker that says its start a moment after the fork, while the primary's thread has
 * read the clock for its switch out but not yet said it, must not put that moment on the path:
 * the live statistics met the two in that order where --analyze of the same run met them by their
 * times (a one-path loop's parallelism 1.00 live, 1.04 recorded, once in CI).
 */
static inline bool tp_span_fork_waits_initial(uint64_t fork_at, uint64_t initial_from)
{
	return fork_at < initial_from;
}
