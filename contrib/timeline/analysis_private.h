// SPDX-License-Identifier: MIT
/*
 * What the analysis's files share (analysis.h is what its users see): its state (the tasks,
 * threads, path nodes, sites and processes) and each file's functions for the others. The jobs:
 *	analysis.c         the task graph built as the events come: tasks, threads, the graph's
 *	                   rules over the path nodes (spawns, joins, polls, mutual exclusions, the
 *	                   region of interest), and the polls still open at the end
 *	analysis_book.c    the bookkeeping: memory counted against the analysis's bound, the
 *	                   duration histograms, the maps by process and id, the path nodes and the
 *	                   longest-path accumulators, the sites and processes, made and freed
 *	analysis_report.c  the figures (the regions' load balance, the sync sites' waits, the POP
 *	                   factors) and what --analyze and --critical-path print of them
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "table.h"
#include "sync_waited.h" /* struct tp_sync_waited */
#include "timeline.h"
#include "work_span.h" /* the graph's rules: enum tp_span_part_end */

/*
 * A duration histogram in the live statistics' log2 buckets (taskprobe_live.h), read by their
 * one reading, tp_live_quantile: --analyze, the exit report and the console say the same median
 * of the same durations (the live ones keep fewer buckets: 64 ns to 4 ms).
 */
struct hist {
	uint64_t count;
	uint64_t *bucket;    /* TP_LIVE_BUCKETS, made at the first value, and as many */
	uint64_t *positions; /* sums of the values' tp_live_position in their buckets */
	/* the positions (tp_live_cost_position) of its values from TP_LIVE_COST_OPEN's bucket on */
	uint64_t open_positions;
};

struct node {
	struct node *prev; /* the longest path's fragment before this one */
	uint64_t path;     /* ns: the longest path to this fragment's end */
	uint64_t burdened; /* ns: that path with the delays measured before its fragments started */
	/* ns: the placed path to its end (analysis.h): what every join brought, the longest path
	 * or not, and its thread's fragments before it */
	uint64_t placed;
	uint64_t start, end, task;
	uint32_t refs, tid, pid;
	uint32_t site : 31;
	/* a part of its poll's fragment ended at an acquire: no fragment of its own on the path
	 * (tp_span_part_is_fragment) */
	uint32_t part : 1;
	uint64_t process;
};

/* The longest of some paths, when the last of them ended, and the longest of their placed
 * lengths (of any of them, the longest or not). */
struct acc {
	struct node *n;
	uint64_t ns;
	uint64_t placed;
};

/* What the maps of tasks, threads and mutexes find an entry by: the entry starts with it. The
 * maps are tables (table.h) of pointers to the entries' keys (map_init). */
struct key {
	uint64_t process, id;
};

struct edge {
	uint64_t successor;
	struct edge *next;
};

enum task_state { NEW, RUNNING, SUSPENDED, ENDED };

struct task {
	struct key k;
	struct task *parent; /* kept while this task is */
	struct proc *proc;
	struct thread *on; /* the thread that polls it, while RUNNING */
	uint32_t site, live_children;
	uint8_t state, sync;
	bool initial;
	uint32_t region;       /* its parent's parallel region at its spawn (region_of) */
	uint32_t sync_site;    /* the site of the sync its last poll ended in (0: none) */
	uint32_t section_site; /* in a mutual exclusion: the site of the wait that entered it */
	uint64_t holds; /* the mutual exclusion object it acquired last and holds (0: none) */
	/* its thread switched it out to run a child created undeferred (nested work): its next
	 * fragment does not follow what the thread ran meanwhile; the child joins it at its next
	 * taskwait, taskgroup's end or barrier, as a child run elsewhere would */
	bool ran_undeferred;
	/* the program spawned it (version 12's task-spawn), and then without dependences (woken by
	 * its parent at once): tp_span_first_poll_nests's */
	bool by_program, nestable;
	/* an implicit task of a team of one nested in a region (tp_span_region_task): no region's,
	 * run in its encountering task's place, in that task's region */
	bool in_place;
	uint64_t suspend_ns, poll_ns, last_spawn_ns;
	uint64_t forked_ns; /* a region's primary's implicit task: its spawn, the fork (else 0) */
	/* and the recording says which tasks are a region's (version 16): its end is its
	 * instance's join, by which the waits at its barrier ended (tp_sync_wait_joined) */
	bool forked_known;
	/* a nested region's primary's implicit task, where the recording says so: its end is its
	 * instance's join, which ends the waits at its barrier too */
	bool joins_nested;
	struct acc in;         /* not yet polled: the paths to its start (ns: when it could) */
	struct node *last;     /* its last fragment */
	struct acc kids, desc; /* ended since its last join: children, descendants */
	struct edge *successors;
};

struct thread {
	struct key k;
	struct task *task; /* polled now, or NULL */
	uint64_t start, latency;
	uint64_t poll_start; /* the poll's (start: its fragment's, split at a release) */
	uint64_t could_ns;   /* when its fragment could start (what joins it ended) */
	uint64_t counted;    /* the polled fragment's time up to here is in the work (count_work) */
	struct node *in;     /* the longest path to its fragment's start */
	uint64_t in_placed;  /* the placed path to it */
	struct node *last;   /* the last fragment it polled */
	uint64_t free_ns;    /* when that ended */
	uint64_t computation; /* its polls' time (in the region of interest, if any) */
	uint64_t phase;       /* its computation since its last barrier (sync_waited.h) */
	/* its waits going on (wait-start's, nested), and when its outermost one, an MPI call's,
	 * paused the fragment it polls (tp_span_wait_pauses; 0: none) */
	uint32_t waits;
	uint64_t paused_at;
	uint64_t waited_to; /* its last outermost wait's end (tp_span_initial_start) */
	uint32_t index;     /* among its process's threads that polled (polled: 1 and more) */
	bool polled;        /* it polled a task */
	struct tp_sync_waited sync_waited; /* the tasks it suspended (sync_waited.h) */
};

/* A thread's computation in a parallel region, or before a barrier (struct site's by_thread
 * and phases). */
struct region_thread {
	uint64_t ns;
	/* counted in the balance whatever its computation: it ran one of the region's implicit
	 * tasks; it passed the barrier */
	bool in;
};

/* The threads' computations of a site, by thread index (region_thread_of). */
struct by_thread {
	uint32_t n;
	struct region_thread *of;
};

/* The sync kinds (enum tp_sync_kind): barrier, taskwait, taskgroup, mutual exclusion. */
#define SYNC_KINDS 5

/* A mutual exclusion (an OMPT wait id) and the path to its last release (analysis.h). */
struct mutex {
	struct key k;
	struct acc released;
	/* holds it, as far as the events seen say: that task (when `held`) */
	bool held;
	uint64_t holder_task;
};

/* A map's entry starts with its key: a key found is its entry (map_find, map_new). */
_Static_assert(offsetof(struct task, k) == 0 && offsetof(struct thread, k) == 0 &&
		       offsetof(struct mutex, k) == 0,
	       "a map's entry starts with its key");

struct site {
	uint64_t scope, id;
	uint64_t process; /* whose tasks it spawned (0: none yet) */
	uint32_t same;    /* an earlier site of the same text and scope (one row), else 0 */
	char *text;
	uint64_t work, tasks, path_ns, path_fragments;
	struct hist task_time, spawn_gap, start_delay;
	/* a parallel construct's: its implicit tasks' threads' computation, by thread index, and
	 * the path to its last fork (a worker's implicit task starts after it) */
	bool parallel;
	struct by_thread by_thread;
	struct acc fork;
	uint64_t fork_at; /* when it was published (0: none): tp_span_fork_waits_initial */
	/* its instances' times, each from its fork to its primary's implicit task's end, added
	 * up: the region's efficiency (tp_live_region_efficiency) */
	uint64_t region_time;
	struct tp_sync_joins joins; /* its last instances' joins: tp_sync_wait_joined */
	/* a region an instance of it was forked in, and one forked in an instance of it (0: none,
	 * the first seen): whether it holds nested regions or is one (analysis_report.c) */
	uint32_t around, inner;
	/* a sync construct's: the waits in it by sync kind, and for a mutual exclusion its kind
	 * (task-acquire's: 1 critical, 2 ordered, 3 lock, 4 nest lock) */
	uint64_t waited[SYNC_KINDS], waits[SYNC_KINDS];
	uint8_t mutex_kind;
	/* a barrier's: the threads' phases it ended, added up by thread (sync_waited.h) */
	struct by_thread phases;
};

struct proc {
	uint64_t process;
	uint32_t pid;
	char comm[64];
	uint64_t work, tasks;
	uint64_t first_ns; /* its first poll's start */
	uint64_t image_ns; /* its image's start (TIMELINE_IMAGE_START; 0: not said, perf's) */
	/* its last event, or its exit's start once recorded (exited): the destructors after it
	 * are not its tasks' time (the exit report ends there, the live statistics too) */
	uint64_t end_ns;
	bool exited;
	struct node *span;
	uint64_t placed;     /* the longest placed path to the end of a fragment */
	struct node *frozen; /* what the last barrier to complete joined */
	uint64_t frozen_ns, freeze_ns, frozen_placed;
	uint64_t last_end_ns;
	uint32_t threads;          /* that polled a task */
	struct task *initial;      /* OpenMP's initial task, while it is kept */
	struct thread *initial_on; /* the thread polling it now, or NULL */
	/* region-of-interest: seen, on now (since `roi_since`, when the placed path was
	 * `roi_placed_since`), the start/stop pairs so far, their run time and placed path */
	bool roi_seen, roi_on;
	uint64_t roi_since, roi_placed_since, roi_pairs, roi_run, roi_placed;
	unsigned roi_markers; /* the calls that marked it: bit 1 << enum tp_roi_marker of each */
	/* the figures of its tasks at no site (OpenMP's initial task): site 0 is every
	 * process's, and one MPI rank's table must not add up the others' */
	struct site no_site;
};

/* The sites kept at most (beyond them a spawn's site is none): a program has thousands. A site
 * is counted in the analysis's memory with SITE_TEXT_BYTES for its text (the converter's texts
 * are at most 256 bytes). */
#define ANALYSIS_MAX_SITES (1u << 14)
_Static_assert(ANALYSIS_MAX_SITES < 1u << 31, "a site fits a node's bits for it");
#define SITE_TEXT_BYTES 256

struct analysis {
	struct table tasks, threads, mutexes; /* of struct key * */
	struct site *sites;
	size_t n_sites, cap_sites;
	/* sites found by (scope, id) and by (scope, text): tables of site indexes (uint32_t); by
	 * text, the lowest index of a site of that text */
	struct table sites_by_id, sites_by_text;
	struct proc *procs;
	size_t n_procs;
	size_t bytes, peak_bytes, peak_tasks, peak_nodes, tasks_open, nodes;
	size_t resident_max;     /* the converter's resident memory at most */
	size_t resident_checked; /* `bytes` when the converter's resident memory was read last */
	bool over_resident;
	bool stopped; /* over ANALYSIS_MAX_BYTES, or the converter over ANALYSIS_RESIDENT_MAX */
	uint64_t stopped_ns;
	uint64_t first_event_ns; /* the recording's first event (0: none yet): where it starts */
	uint64_t unknown_polls;  /* polls of tasks never spawned in the recording */
	bool finished;           /* the polls open at the end were ended there (analysis_finish) */
};

/* The figures of site `site` as process `p` counts them: its own row for no site. */
static inline struct site *site_figures(struct analysis *a, struct proc *p, uint32_t site)
{
	return site != 0 ? &a->sites[site] : &p->no_site;
}

/* ---- analysis_book.c ---- */

/* Whether the analysis may take `size` bytes more (its bound, the converter's resident memory). */
bool room(struct analysis *a, size_t size);
/* `size` bytes, zeroed, counted in the analysis's memory (NULL: over its bound, or none). */
void *take(struct analysis *a, size_t size);
void give(struct analysis *a, void *p, size_t size);

void hist_add(struct analysis *a, struct hist *h, uint64_t v);
/* The median, or UINT64_MAX when empty; `positioned`: read as the live statistics read task
 * times, where in its bucket it lies, its values from the cost histograms' open bucket's on as
 * one bucket (they keep neither of the other costs). */
uint64_t hist_median(const struct hist *h, bool positioned);

/* Map `m` of the analysis, empty: its slots are counted in the analysis's memory. */
void map_init(struct analysis *a, struct table *m);
struct key *map_find(const struct table *m, uint64_t process, uint64_t id);
/* A new entry of `size` bytes (zeroed, its key first) for `id` of `process` in map `m`, or NULL
 * (out of the analysis's memory); map_find_or_new: the entry there is, else a new one. */
struct key *map_new(struct analysis *a, struct table *m, uint64_t process, uint64_t id,
		    size_t size);
struct key *map_find_or_new(struct analysis *a, struct table *m, uint64_t process, uint64_t id,
			    size_t size);
void map_remove(struct table *m, struct key *k);

/* The entry in slot `i` of map `m`, or NULL (its entries in slot order: for (i < m->size)). */
static inline struct key *map_at(const struct table *m, size_t i)
{
	return table_used(m, i) ? *(struct key *const *)table_slot(m, i) : NULL;
}

static inline struct node *ref(struct node *n)
{
	if (n != NULL)
		n->refs++;
	return n;
}

void unref(struct analysis *a, struct node *n);
/* *slot = n, counted. */
void hold(struct analysis *a, struct node **slot, struct node *n);

static inline uint64_t path_of(const struct node *n)
{
	return n != NULL ? n->path : 0;
}

static inline uint64_t max_u64(uint64_t x, uint64_t y)
{
	return x > y ? x : y;
}

void acc_fold(struct analysis *a, struct acc *acc, struct node *n, uint64_t ns, uint64_t placed);
void acc_fold_node(struct analysis *a, struct acc *acc, struct node *n, uint64_t ns);
void acc_join(struct analysis *a, struct acc *acc, const struct acc *other);
void acc_clear(struct analysis *a, struct acc *acc);
struct node *node_new(struct analysis *a, struct node *prev, uint64_t placed,
		      const struct task *task, const struct thread *th, uint32_t pid,
		      uint64_t start, uint64_t end, uint64_t latency);

/* The site of `id` in `scope` (its row: the first of its text), made if new; 0: none. */
uint32_t site_of(struct analysis *a, uint64_t scope, uint64_t id);
struct proc *proc_of(struct analysis *a, const struct timeline_event *e);

/* ---- analysis.c ---- */

/* The polled fragment's time up to `ns` into the work, its region's and its thread's
 * computation (analysis.c). */
void count_work(struct analysis *a, struct proc *p, struct thread *th, const struct task *t,
		uint64_t ns);
/* The fragment `th` polls goes on up to `ns`, or stopped at its pause. */
uint64_t polled_to(const struct thread *th, uint64_t ns);
/* The process's placed length (its critical path's computation) at `ns`. */
uint64_t placed_at(const struct analysis *a, const struct proc *p, uint64_t ns);

/* The polls still open at the end of the recording ended there: once, before the figures. */
void analysis_finish(struct analysis *a);
/* Task `id` of `p`, NULL if not known. */
struct task *task_find(struct analysis *a, const struct proc *p, uint64_t id);
/*
 * The fragment `th` polls now, of task `t`, up to `ns` (its pause: a wait in MPI): its part
 * going on a node after the path to that part's start, its time counted in the work (NULL: out
 * of memory); and the fragment split at that node's end, ended `at` an acquire or a release.
 */
struct node *part_so_far(struct analysis *a, struct proc *p, struct thread *th,
			 const struct task *t, uint64_t ns);
void split_at(struct analysis *a, struct thread *th, struct node *n, enum tp_span_part_end at);

/* ---- analysis_exclusion.c: a polled task's acquire and release of a mutual exclusion ---- */

void analysis_on_acquire(struct analysis *a, struct proc *p, struct thread *th,
			 const struct timeline_event *e);
void analysis_on_release(struct analysis *a, struct proc *p, struct thread *th,
			 const struct timeline_event *e);

/* ---- analysis_roi.c ---- */

/* A region of interest's start (`on`) or stop at `ns` by `marker` (enum tp_roi_marker). */
void analysis_roi_marked(struct analysis *a, struct proc *p, uint64_t ns, bool on, uint64_t marker);
/* The process's region of interest, if open, stops at `ns` (its end). */
void analysis_roi_ends(struct analysis *a, struct proc *p, uint64_t ns);
