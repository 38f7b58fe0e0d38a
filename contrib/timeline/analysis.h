// SPDX-License-Identifier: MIT
/*
 * Why a program does not scale (taskprobe-timeline --analyze, issue 29): its task graph's work,
 * span, parallelism and critical path, computed from a recording's events as they come, in time
 * order (recording_read), never on the program's hot path.
 *
 * The graph: a node is a task fragment, one poll (a task's polls are split where it waits in a
 * taskwait, a taskgroup's end or a barrier, and where its thread runs another task); its weight
 * is the poll's time. Edges: spawn (the parent's fragment up to the spawn -> the child's first
 * fragment), continuation (a task's fragment -> its next), join (a child's end -> its parent's
 * fragment after the taskwait; every descendant's end -> the fragment after a taskgroup's end;
 * everything that ended before a barrier completed -> the fragments after it; the task its
 * thread ran while a task was switched out -> that task's next fragment, unless the task was
 * switched out to run a child created undeferred without dependences: OpenMP's if(0), a final
 * task's descendants, every task of a team of one thread, nested work joined as a child run
 * elsewhere would be), and
 * dependence (task-dependence: the predecessor's end -> the successor's first fragment).
 * OpenMP's initial task is in the graph (its serial code is work and on the span); a worker's
 * implicit task starts after its region's fork.
 *
 * The POP factors (issue 35; taskprobe_figures.h's tp_live_factors_of): each thread's computation
 * (its polls' time, the polls open at the end counted up to the process's last event), the run
 * time (from the first poll's start to the last event), and the placed path: the longest path
 * with waits at zero cost and every thread running its fragments in the order it ran them (a
 * second length on every path, max'ed at every join like the span's, and at each poll's start
 * also joined with its thread's previous fragment's end). Where the loss is: per parallel region
 * (the site of its implicit tasks; a fragment's region is its task's innermost implicit
 * ancestor's) its threads' load balance, per sync site the time waited in it.
 *
 * Memory: per task not ended (or ended with children not ended) one record; per fragment still on
 * a longest path to something not ended (the critical path so far among them) one node; per
 * dependence on a task not ended one edge (sizes: analysis_memory). Nothing grows with the tasks
 * that ended: the graph is never held. Beyond ANALYSIS_MAX_BYTES (or ANALYSIS_RESIDENT_MAX for
 * the converter in all) the analysis stops and says at what time.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "recording.h"
#include "scaling.h"
#include "taskprobe_figures.h" /* struct tp_live_factors */
#include "timeline.h"

/* The analysis's memory at most; and it stops too when the converter's resident memory in all
 * reaches the bound analysis_new is given, so that the converter stays under its own (256 MiB)
 * whatever else the recordings make it keep: ANALYSIS_RESIDENT_MAX alone, less beside a
 * timeline, whose memory may still grow after (ANALYSIS_RESIDENT_MAX_BESIDE_TIMELINE). */
#define ANALYSIS_MAX_BYTES                    (192u << 20)
#define ANALYSIS_RESIDENT_MAX                 (192u << 20)
#define ANALYSIS_RESIDENT_MAX_BESIDE_TIMELINE (112u << 20)

struct analysis;

/* An analysis that stops when the converter's resident memory reaches `resident_max` bytes. */
struct analysis *analysis_new(size_t resident_max);

/* The text of site `id` of `scope` (a timeline_event's site_scope, or its pid when 0). */
void analysis_site(struct analysis *a, uint64_t scope, uint64_t id, const char *text, uint32_t len);

/* One event, in time order with the others. */
void analysis_add(struct analysis *a, const struct timeline_event *e);

/*
 * The figures and the per-site table, in words, for each process; names (a process's, a site's)
 * escaped for a terminal (shown_text.h), valid UTF-8 kept when `utf8` (the terminal's codeset).
 */
void analysis_report(struct analysis *a, FILE *out, bool utf8);

/* A process's figures, as analysis_report says them: its work, span, burdened span, and the POP
 * factors (with the computations, placed path and run time they come from). */
struct analysis_figures {
	uint64_t work, span, burdened;
	struct tp_live_factors factors;
};

/* The figures of the `i`th process (in the order of their first events), the polls still open
 * ended at its last event; false past the last process. */
bool analysis_figures(struct analysis *a, size_t i, struct analysis_figures *f);

/* Bytes each kind of record the analysis holds takes: per open task, per path node, per edge. */
void analysis_memory(size_t *task, size_t *node, size_t *edge);

/* A fragment of a critical path: where and when it ran, and the site that spawned its task, or
 * for a mutual exclusion's section its construct's (scope and id as given to analysis_site; id
 * 0: none). */
struct analysis_fragment {
	uint64_t process; /* a timeline_event's process, or its pid when 0 */
	uint32_t pid, tid;
	uint64_t task, site_scope, site_id;
	uint64_t start_ns, end_ns;
	/* a section of a mutual exclusion (its site: the construct's): its kind (task-acquire's),
	 * else 0 */
	unsigned exclusion;
	/* a part of its poll's fragment up to the acquire that began a section: no fragment of its
	 * own on the path (the poll's, or the section's, after it, counts) */
	bool part;
};

/* The critical path of each process, fragment by fragment in time order (for the timeline):
 * calls `each` with each fragment; `first` on the first of its process's path. */
void analysis_critical_path(struct analysis *a,
			    void (*each)(void *context, const struct analysis_fragment *f,
					 bool first),
			    void *context);

/* The time threads waited at the sync site (scope and id as given to analysis_site) in sync
 * `kind` (enum tp_sync_kind), and its waits, as analysis_report says them. */
void analysis_sync_site(struct analysis *a, uint64_t scope, uint64_t id, unsigned kind,
			uint64_t *waited, uint64_t *waits);

/* The phases the barrier of the sync site (scope and id as given to analysis_site) ended, into
 * `computation[0..threads)` by thread index (the process's threads in the order they first
 * polled): each thread's computation before the barrier, UINT64_MAX for one that did not pass it
 * (sync_waited.h). */
void analysis_barrier_phases(struct analysis *a, uint64_t scope, uint64_t id, unsigned threads,
			     uint64_t *computation);

void analysis_free(struct analysis *a);

/* The exit status of recordings refused (of two MPI jobs: said on the errors), as a conversion's
 * (taskprobe_timeline.c). */
#define ANALYSIS_REFUSED 5

/* Reads the recordings into an analysis and reports it on `out` (`utf8`: analysis_report's).
 * Returns the exit status: 0; 1 when a recording was not whole (said on `errors`, read up to
 * there); 2 out of memory; ANALYSIS_REFUSED, nothing reported. */
int analysis_run(const struct recording_input *inputs, size_t n, FILE *out, FILE *errors,
		 bool utf8);

/* Reads one run's recordings (a process's, or an MPI job's) for a comparison of runs: its
 * program's name, the basis of its efficiencies and its parallel regions' computation in `run`
 * (scaling.h; `why` said when the basis is not known). Returns analysis_run's exit status. */
int analysis_scaling(const struct recording_input *inputs, size_t n, FILE *errors, bool utf8,
		     struct scaling_run *run);

/* The same of analysis `a`, read (`job`: the MPI job's basis, from its recording_totals). False
 * when out of memory. */
bool analysis_scaling_of(struct analysis *a, const struct scaling_basis *job, bool utf8,
			 struct scaling_run *run);
