// SPDX-License-Identifier: MIT
/*
 * The live statistics' private part (live.h is their interface), shared by their files:
 *   live.c        the per-event statistics of tasks (spawn, dependence, wake, polls, terminate,
 *                 a thread's stop): the hot path, with the table of tasks alive
 *   live_tasks.c  the table of tasks alive's rare ways: a task taken and found in another home
 *   live_rows.c   the sites' rows, a task site's or a sync site's, given at its first use
 *   live_exclusion.c  mutual exclusion: a section's or a lock's acquire and release
 *   live_shared_paths.c  the paths threads share: a barrier's join, the initial task's path
 *   live_waits.c  the waits (their call sites' table, a thread's waits, their stacks), a
 *                 worker's start and park
 *   live_slots.c  the threads' slots: taken at a thread's first event, its start and name, its
 *                 longest path published; the region of interest, over every slot
 *   live_stacks.c the file's tables that name code: modules, and the sampled spawn stacks
 *   live_start.c  the state below, its start (in the file or in memory), the clock's rate, the
 *                 process's exit, exec and fork
 *   live_file.c   the file itself
 * An event's helpers are static inline here so that they stay inlined into every event.
 */
#ifndef TP_LIVE_PRIVATE_H
#define TP_LIVE_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "live.h"
#include "process.h"
#include "reentry.h"
#include "spawn_site.h" /* TP_SITES_MAX */
#include "sync_waited.h"
#include "thread_identity.h"
#include "work_span_events.h"

/* Hidden, as their definitions are: read PC-relative, as the static variables they were. */
#pragma GCC visibility push(hidden)

/*
 * Tasks alive: a task's entry lies in one of TASK_WINDOW slots from its home, so a look-up reads
 * at most that many and a removal is one store (no tombstones). Ids are handed out in blocks of
 * consecutive numbers (1024 a thread), and a task's home is its id's place in the table: the
 * tasks a thread spawns one after the other take consecutive entries, so that a spawn's entry
 * shares the cache line and page of the one before (cachegrind, `omp_tasks` on one thread: 0.75
 * last-level misses a task, where homes 17 slots apart, each on a line and every few tasks on a
 * page of its own, made 1.5).
 *
 * Ids go round the table every 2^18 tasks, and a run of consecutive tasks still alive from the
 * last round (a loop's tasks, waiting) fills the windows of the new ids whose homes fall on it. A
 * task that finds its window full takes one of TASK_WINDOW slots from a second home: half the
 * table away, TASK_STRIDE slots a consecutive id apart (such tasks, if they stay alive, leave
 * room between them); or, should that window fall on such a run too, from a third, its id
 * hashed. From the first such task on, a look-up that misses its first window reads the others
 * (tasks_displaced). A task that finds all three full is counted (tasks_untracked) and left out
 * of the figures, spawn and end alike. 2^18 entries of 16 bytes: 4 MiB reserved, touched as
 * tasks arrive. An entry holds only what finds the task: a spawn takes a quarter of a line the
 * round had not touched since its last pass (a line of L3 at best: at 48 bytes an entry, with the
 * task's times in it, 0.75 a task cost BOTS uts 8% of its time under `run` on one thread, 3% on
 * two); what the statistics keep of the task lies in its work and span state, whose entries a
 * thread reuses while they are warm.
 */
#define TASK_SLOTS_LOG2 18
#define TASK_SLOTS      (1u << TASK_SLOTS_LOG2)
#define TASK_WINDOW     32
#define TASK_STRIDE     17 /* odd: every slot is some id's second home */

struct task_entry {
	uint64_t task;   /* 0: free */
	uint16_t row;    /* its site's row */
	uint16_t region; /* its parallel region's row (its implicit task's site's), 0 none */
	/* its work and span state (work_span.h), which holds its times too: its place in the pool
	 * (tp_span_at_offset), as every event of the task reads it (and its free gives it back) */
	uint32_t span;
};
_Static_assert(sizeof(struct task_entry) == 16, "2^18 entries of 16 bytes, as said above");
#define TASKS_BYTES (TASK_SLOTS * sizeof(struct task_entry))

/*
 * Dependences between tasks alive, for the span: an edge is kept by its predecessor's id, in one
 * of DEPENDENCE_WINDOW entries from its home, until the predecessor ends and folds its path into
 * its successor. Homes are DEPENDENCE_STRIDE entries a consecutive id apart: a program that
 * spawns its whole graph before it runs (KASTORS' sparselu, 42,000 tasks with 3 edges each on
 * average) has that many predecessors alive at once, whose edges each take their own lines. An
 * edge that finds its window full takes one in its predecessor's next window, DEPENDENCE_HOMES
 * windows at most, the others' homes its id hashed: a task many others read (sparselu's diagonal
 * block, read by 98 tasks; a task 100 read in preload-tests' fan graph) spills over. One that
 * finds all of them full is counted and left out (the span may then be short). 2^18 entries of
 * 16 bytes: 4 MiB reserved, touched as dependences arrive.
 */
#define DEPENDENCE_SLOTS_LOG2 18
#define DEPENDENCE_SLOTS      (1u << DEPENDENCE_SLOTS_LOG2)
#define DEPENDENCE_WINDOW     32
#define DEPENDENCE_STRIDE     8
#define DEPENDENCE_HOMES      8

struct dependence {
	uint64_t predecessor; /* 0: free */
	uint64_t successor;
};

/* the tasks' states: one per task the table keeps, and what the threads' caches may hold; and
 * beside them the objects their tasks hold while switched out (tp_span_pool_start) */
#define SPANS       (TASK_SLOTS + TP_LIVE_THREADS * TP_SPAN_CACHE_MOST)
#define SPANS_BYTES (SPANS * (sizeof(struct tp_span_task) + sizeof(uint64_t)))
_Static_assert((uint64_t)SPANS * sizeof(struct tp_span_task) <= UINT32_MAX,
	       "a state's place in the pool fits an entry's 32 bits");
#define DEPENDENCES_BYTES (DEPENDENCE_SLOTS * sizeof(struct dependence))

/* How long the time-stamp counter is timed against CLOCK_MONOTONIC (ns_at). */
#define CALIBRATION_NS 2000000

/* No row: a task the table could not keep. */
#define NO_ROW UINT32_MAX

extern char *map;
extern struct tp_live_header *header;
extern struct tp_live_site *sites;
extern struct tp_live_stack *stacks;
extern struct tp_live_module *modules;
extern struct tp_live_wait_site *wait_sites;
extern struct tp_live_thread *slots;
/*
 * One past the highest slot a thread of this process took: slots are taken lowest first, so a
 * scan of every slot's figures (a barrier's join) stops there, not at TP_LIVE_THREADS, whose
 * untouched pages of the file it would fault in.
 */
extern uint32_t slots_bound;
extern struct task_entry *tasks;
extern struct tp_span_task *spans; /* the tasks' work and span states' pool (work_span.h) */
extern struct dependence *dependences;
/* Each parallel region's site's last fork (work_span.h), by site row. */
extern struct tp_span_shared forks[TP_LIVE_SITES];
/* Each region row's last instances' joins (live_region_joined), for the waits at its barrier
 * (tp_sync_wait_joined). */
extern struct tp_sync_joins live_region_joins[TP_LIVE_SITES];
/*
 * The slot of the thread that polled OpenMP's initial task last (its row: no site's), for a
 * worker's implicit task whose region its primary has not published yet (live_initial_so_far).
 */
extern struct tp_live_thread *initial_slot;
/*
 * The initial task's path to the start of the fragment its thread polls now (its sites with
 * it), and that start (its at_ns): published at each of its poll's starts (once a region:
 * between them) for live_initial_so_far, whose slot alone says lengths.
 */
extern struct tp_span_shared initial_path;

/* live_shared_paths.c: for a task that leaves a barrier, the longest path ended before the
 * barrier completed (`out`); the initial task's path so far for a worker's implicit task (false:
 * none); and its publication at its poll's start. */
void live_barrier_join(uint64_t suspended_ns, uint64_t now, struct tp_live_path *out);
bool live_initial_so_far(uint64_t now, uint64_t fork_at, struct tp_live_path *p);
void live_initial_path_is(uint64_t now);
/* When entry `e`'s poll said at `now` starts: OpenMP's initial task's first from the program's
 * start (tp_span_initial_start; asked while no task without a site was polled), else `now`. */
uint64_t live_initial_first_poll(struct task_entry *e, uint64_t now);
/* The initial task's fragment published as started at `start` starts at `moved` (its thread
 * waited in MPI meanwhile: live_fragment_resumes). */
void live_initial_path_moves(uint64_t start, uint64_t moved);
/* live.c: the polled fragment pauses at `now` while its thread waits in MPI, and goes on (slot
 * `s`, the calling thread's). */
void live_fragment_pauses(struct tp_live_thread *s, uint64_t now);
void live_fragment_resumes(struct tp_live_thread *s, uint64_t now);
/* Mutual exclusions' last releases (work_span.h): reserved, touched as they are used. */
extern struct tp_span_mutex *mutexes;
#define MUTEXES_BYTES (TP_SPAN_MUTEXES * sizeof(struct tp_span_mutex))
/* Each slot's thread's tasks suspended (sync_waited.h), by slot: reserved, touched as used. */
extern struct tp_sync_waited *sync_waited_stacks;
#define SYNC_WAITED_BYTES (TP_LIVE_THREADS * sizeof(struct tp_sync_waited))
/*
 * The longest path ended before the last barrier completed, taken (at its at_ns) by the first
 * thread to leave it (the others join the same): barriers are per parallel region, not per task.
 */
extern struct tp_span_shared last_barrier;
/* A dependence was made: task ends order their entry's free against the edges' (task_terminate) */
extern bool dependences_seen;
extern uint64_t tsc_at_start, ns_at_start, ns_per_tsc_2_32;
extern uint64_t long_poll_ns;
extern int stacks_lock;
extern bool stacks_ready; /* the stacks' part of the file has space (at the first stack) */
/* Kept for the exit report alone: in the process's memory, no file (open_in_memory). */
extern bool in_memory;

/* The calling thread's place in the file, and the task it polls. */
struct live_local {
	struct tp_live_thread *slot;
	struct tp_live_site_stats *rows;
	struct task_entry *polled;  /* the polled task's entry, NULL if untracked */
	struct task_entry *spawned; /* the entry of the task it spawned last (may be another's) */
	uint64_t polled_task;
	uint64_t poll_start;
	/* where the polled fragment's part on the path began (its start, or a split of it at a
	 * mutual exclusion's acquire or release: tp_span_acquire, tp_span_release) */
	uint64_t span_from;
	/* the site row of the mutual exclusion the polled task waited for before this poll (0:
	 * none); the one whose section it is in is the engine's (tp_span_thread's section_row) */
	uint32_t mutex_row;
	/* the polled fragment's time up to here is in the slot's work (count_work) */
	uint64_t work_counted_to;
	/* when the polled fragment paused, its thread inside an MPI call (tp_span_wait_pauses;
	 * 0: it goes on) */
	uint64_t paused_at;
	/* its outermost wait's object (an MPI call's number); and the last MPI poll's (0: none
	 * since), the task it paused and when it resumed it, the fragment's part going on since */
	uintptr_t wait_object;
	uintptr_t mpi_poll_call;
	uint64_t mpi_poll_task, mpi_poll_end, mpi_poll_end_at, mpi_poll_from;
	/* the last MPI poll call's end (0: none since its next wait), with its call and task: the
	 * thread's time in MPI goes on across an MPI_Test loop's gaps (the slot's mpi_since_ns) */
	uintptr_t mpi_test_call;
	uint64_t mpi_test_task, mpi_test_end, mpi_test_end_at;
	uint64_t last_spawn_ns; /* its last spawn, for the gap to the next in the same poll */
	/* the polled task that ended (its terminate, 0 none) and when: its poll's end comes right
	 * after, and is timed then too (one clock read for the two) */
	uint64_t terminated_task;
	uint64_t terminated_ns;
	uint32_t poll_row;    /* the polled task's row, NO_ROW if untracked */
	uint32_t poll_region; /* and its parallel region's row, 0 none */
	/* its computation in parallel regions since its last barrier's end: the phase the next
	 * barrier it passes ends (sync_wait_ends, into that barrier's row's phase_ns) */
	uint64_t phase_ns;
	uint32_t spawn_row; /* the row of the task it spawned last (for its stack) */
	/* the outermost region instance it forked and has not joined: its primary's implicit task
	 * (0: none) and its fork's moment, for its row's region_time_ns (live_region_forked) */
	uint64_t fork_task, fork_ns;
	uint32_t fork_row;
	/* it joined an outermost region since it last polled OpenMP's initial task: that task's
	 * next poll commits its path (tp_span_commit) */
	bool commit_due;
	/* the task sites it asked the rows of last, and those rows (task_row), the last first */
	uint32_t row_site[2], site_row[2];
	bool busy;              /* inside an update: a signal handler's event is dropped */
	bool sample_stack;      /* its spawn's stack is one the live statistics sample */
	bool sample_wait_stack; /* and its wait's (under wait_site) */
	/* its waits at each wait site (by entry), counted up to TP_LIVE_STACK_SAMPLE_FIRST */
	uint8_t waits_at[TP_LIVE_WAIT_SITES];
	bool ended;           /* its thread-stop fired: it counts no more */
	bool no_slot;         /* it found no slot (all taken, or no space): not counted */
	bool no_rows;         /* its slot's rows found no space: its tasks are not counted */
	bool waited_unlisted; /* a wait found no slot it may take (counted once) */
	uint32_t waits;       /* interposed waits it is in (a signal handler's nests inside) */
	bool parked;          /* its outermost wait began polling no task: parked (with a slot) */
	bool worker;          /* a worker: its worker-thread-start seen, and not its stop */
	bool worker_parked;   /* its worker-thread-park seen, and not its unpark */
	uint64_t wait_since;  /* its outermost wait's start */
	uint64_t wait_at;     /* and that start's moment, tp_clock_now's (tp_live_wait_end) */
	uint64_t waited_to;   /* its last outermost wait's end (live_initial_start) */
	uint32_t wait_kind;   /* and its kind */
	uint64_t started_ns;  /* when its start was seen (tp_live_thread_start), 0 if not */
	struct tp_live_wait_site *wait_site; /* and that wait's call site, NULL if none */
	uintptr_t start_routine;             /* the routine it started with, 0 if not seen */
	uint32_t start_module;               /* the module entry of start_routine */
	struct tp_span_thread span;          /* its fragment of the task graph (work_span.h) */
	struct tp_span_cache span_cache;     /* the tasks' states it hands out and takes back */
	/* the tasks it suspended (sync_waited.h): its slot's, in sync_waited_stacks (too large for
	 * the static TLS block a launcher's audit module leaves) */
	struct tp_sync_waited *sync_waited;
};
extern __thread struct live_local local __attribute__((tls_model("initial-exec")));

/*
 * When the process's exit began (0: not yet): the figures' end (tp_live_now). Every event after
 * it happens at it, for the statistics as for the recording's analysis (a thread that goes on
 * while another exits adds nothing of what it does then): the counter's rate is put aside
 * (exit_rate), so that every clock read takes ns_while_timing_the_counter, which says so.
 */
extern uint64_t exit_began_ns, exit_rate;

/*
 * Moment `at` (tp_clock_now's) in the statistics' nanoseconds while the counter's rate is not
 * known: the exit's start once it began, CLOCK_MONOTONIC's `at` itself, or while the rate is
 * timed a pair read now (live_start.c).
 */
__attribute__((noinline)) uint64_t ns_while_timing_the_counter(uint64_t at);

/*
 * An event's moment `at`, read by the event layer with tp_clock_now (once for every consumer:
 * the recorder times it the same), in the statistics' nanoseconds. Inlined: it is at every
 * event, and a call would cost a third of it.
 */
static inline __attribute__((always_inline)) uint64_t ns_at(uint64_t at)
{
	/* 0 but while the time-stamp counter is the clock and its rate is timed */
	uint64_t rate = __atomic_load_n(&ns_per_tsc_2_32, __ATOMIC_ACQUIRE);
	if (__builtin_expect(rate == 0, 0))
		return ns_while_timing_the_counter(at);
	return tp_live_tsc_ns(at, tsc_at_start, ns_at_start, rate);
}

/* Now, in the statistics' nanoseconds (for what is no event's: a slot's take, the exit). */
static inline __attribute__((always_inline)) uint64_t now_ns(void)
{
	return ns_at(tp_clock_now());
}

/*
 * Written by one thread only, read by the console: each value whole. On x86-64 one add to memory,
 * whose store is whole as a relaxed store is (the counts of a task's events are some twenty: the
 * atomic store's load, add and store cost two instructions more each); elsewhere that store.
 * add for a 64-bit count, add32 for a 32-bit one.
 */
#ifdef __x86_64__
#define LIVE_ADD(name, type, instruction)                                                          \
	static inline void name(type *p, type v)                                                   \
	{                                                                                          \
		__asm__(instruction " %1, %0" : "+m"(*p) : "er"(v));                               \
	}
#else
#define LIVE_ADD(name, type, instruction)                                                          \
	static inline void name(type *p, type v)                                                   \
	{                                                                                          \
		__atomic_store_n(p, *p + v, __ATOMIC_RELAXED);                                     \
	}
#endif
LIVE_ADD(add, uint64_t, "addq")
LIVE_ADD(add32, uint32_t, "addl")

static inline void set32(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline void set64(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/*
 * Slot `s`'s fragment going on is its task's first poll, from path `in`: the path's sites, for a
 * reader whose span ends in it (tp_live_read_open_from). A first poll's path starts at its spawn
 * or its region's fork, which is no path ended; a later poll's where what it joins ended. In
 * line: a call of its own cost the chain's tasks more (docs/overhead.md).
 */
static inline __attribute__((always_inline)) void open_sites_are(struct tp_live_thread *s,
								 const struct tp_live_path *in)
{
	set64(&s->open_sites_ns, in->ns);
#pragma GCC unroll 4
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++) {
		set64(&s->open_sites[k], in->sites[k]);
		set32(&s->open_fragments[k], in->fragments[k]);
	}
}

static inline void count(uint64_t *shared)
{
	__atomic_fetch_add(shared, 1, __ATOMIC_RELAXED);
}

/*
 * Task sites' rows, given in order of their first spawn: site keys are shared with wait sites
 * (spawn_site.h), and a wait's key must not take a task construct's row. 0: no row yet. A sync
 * construct's site has rows of its own (sync_rows_by_site), even where its call is a task site's
 * too (a parallel construct's implicit barrier, reported at the construct's call): its waits are
 * a line of the sync sites' table, as --analyze lists them, not lost in the task site's row.
 * Given and published by live_rows.c.
 */
#define ROW_BEING_GIVEN UINT16_MAX
extern uint16_t rows_by_site[TP_SITES_MAX + 1];
/*
 * A sync site's rows, one a sync kind (barrier to mutex, enum tp_sync_kind, from 1): waits of two
 * kinds may be reported at one site (a taskwait libomp reports at its own return address, a GCC
 * build's tail call, goes to the parallel region's site, as does its implicit barrier).
 */
extern uint16_t sync_rows_by_site[TP_SYNC_MUTEX][TP_SITES_MAX + 1];

/* Gives `site` its row in the map `by_site`, or waits for the thread that gives it. */
uint32_t live_new_row(uint16_t *by_site, uint32_t site);

/* The row of `site` in the map `by_site` (rows_by_site, sync_rows_by_site), given if new. */
static inline uint32_t live_row_in(uint16_t *by_site, uint32_t site)
{
	if (site == TP_LIVE_NO_SITE)
		return TP_LIVE_NO_SITE;
	if (site > TP_SITES_MAX)
		return TP_LIVE_OVERFLOW;
	uint16_t row = __atomic_load_n(&by_site[site], __ATOMIC_ACQUIRE);
	return row != 0 && row != ROW_BEING_GIVEN ? row : live_new_row(by_site, site);
}

/*
 * A site's text, copied into the file at its first spawn, or for a sync construct's site (`sync`
 * its kind, else 0) at the first poll that ends waiting there.
 */
void live_publish_site_first(uint32_t row, uint32_t site, bool by_program, uint32_t sync);

/*
 * Whether `row`, given to a sync site, is one: not the task sites' overflow, which the rows beyond
 * the table are; then the header says that some sync sites are in no line (a store once: no line
 * shared at each wait), and their waits count in the overflow row's sync figures, its site left
 * a task site's (tp_live_syncs_unlisted_read).
 */
static inline bool live_sync_row_found(uint32_t row)
{
	if (row != TP_LIVE_OVERFLOW)
		return true;
	if (__atomic_load_n(&header->syncs_unlisted, __ATOMIC_RELAXED) == 0)
		__atomic_store_n(&header->syncs_unlisted, 1, __ATOMIC_RELAXED);
	return false;
}

/*
 * The bucket of a value by its log2 (63 - clz(ns | 1)): five histogram updates a task, so the
 * clamps are looked up rather than computed (live.c).
 */
extern const uint8_t log2_bucket[64], cost_bucket[64];

static inline unsigned log2_of(uint64_t ns)
{
	return 63u - (unsigned)__builtin_clzll(ns | 1);
}

static inline void histogram_add(uint64_t *histogram, uint64_t ns)
{
	add(&histogram[log2_bucket[log2_of(ns)]], 1);
}

static inline void cost_histogram_add(uint32_t *histogram, uint64_t ns)
{
	add32(&histogram[cost_bucket[log2_of(ns)]], 1);
}

/* An ended task's time into its site's row: its compact histogram, and its position in its
 * bucket (tp_live_cost_position), while the bucket's positions fit their 32 bits. */
static inline void task_time_add(struct tp_live_site_stats *r, uint64_t ns)
{
	unsigned log2 = log2_of(ns), b = cost_bucket[log2];
	uint32_t before = r->task_time_histogram[b];
	add32(&r->task_time_histogram[b], 1);
	/* the count before the position (tp_live_costs_add reads them the other way round): no
	 * instruction on x86 */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (before < TP_LIVE_POSITIONED)
		add32(&r->task_time_positions[b], tp_live_cost_position(ns, log2));
}

/*
 * The calling thread forks an instance of region row `row` at `now`, its primary's implicit task
 * `task` (its state `t`: the task whose start is the fork, tp_span_publishes_fork), from a task
 * of region row `around` (0: none, the outermost). The task's end joins the instance
 * (live_region_ends), whatever its depth. A nested instance's time is not kept (region_nested),
 * so a thread has one outermost instance open at a time: an end never seen (a task ended inside
 * a signal handler's event) loses that instance alone, the next fork takes its place (until
 * then readers count it going on, and its thread's end adds it up to there).
 */
static inline void live_region_forked(struct tp_span_task *t, uint64_t task, uint32_t row,
				      uint32_t around, uint64_t now)
{
	t->joins = true;
	if (around != 0) { /* nested in region row `around`: no time of either read */
		add(&local.rows[around].region_nested, 1);
		add(&local.rows[row].region_nested, 1);
		return;
	}
	tp_phase_forks(&local.phase_ns);
	local.fork_task = task;
	local.fork_ns = now;
	local.fork_row = row;
	/* the instance going on, for a reader: its time so far counted as a fragment's */
	set64(&local.slot->fork_ns, now);
	__atomic_store_n(&local.slot->fork_row, row, __ATOMIC_RELEASE);
}

/*
 * The outermost region instance the calling thread forked is joined at `now`, its primary's
 * implicit task ended (local.fork_task), or its thread ended inside it: the waits at its
 * barrier end there (live_region_joins), its time from its fork goes into its row
 * (region_time_ns).
 */
static __attribute__((noinline, cold, unused)) void live_region_joined(uint64_t now)
{
	tp_sync_joins_add(&live_region_joins[local.fork_row], now);
	set32(&local.slot->fork_row, 0);
	add(&local.rows[local.fork_row].region_time_ns, now - local.fork_ns);
	local.fork_task = 0;
	local.commit_due = true;
}

/*
 * Task `task` of site row `row` ended at `now`, a region instance's primary's implicit task
 * (its state's `joins`): the instance is joined. A nested one's join ends the waits at its
 * barrier, as an outermost one's does: its workers' waits there last until a region wakes them,
 * and a pool's thread idled for another team's region read 91 ms waited at a balanced barrier.
 * Out of line: most task ends are not one.
 */
static __attribute__((noinline, cold, unused)) void live_region_ends(uint64_t task, uint32_t row,
								     uint64_t now)
{
	if (task == local.fork_task)
		live_region_joined(now);
	else
		tp_sync_joins_add(&live_region_joins[row], now);
}

/*
 * OpenMP's initial task goes on after an outermost region's join on the calling thread: its
 * path is committed (tp_span_commit), which frees its places for the next region's sites. Out
 * of line: once a region.
 */
static __attribute__((noinline, cold, unused)) void live_commit(void)
{
	local.commit_due = false;
	tp_span_thread_commits(&local.span, &header->commits, TP_LIVE_NO_SITE,
			       tp_thread_tid() == tp_process()->pid);
}

/* What an event needs of the calling thread's slot, and takes if the thread has none. */
enum slot_need {
	TAKES_SLOT, /* task, worker and park events: a slot and its rows (the sites' figures) */
	/* waits: a slot without rows, among the TP_LIVE_WAITING_THREADS a thread that only waits
	 * may take; a rename: only a slot the thread has */
	WAITING_SLOT,
	HAS_SLOT_ONLY,
};

/* The task table (struct task_entry): a task's homes. */
static inline uint32_t task_home(uint64_t task)
{
	return (uint32_t)task & (TASK_SLOTS - 1);
}

/* The homes of a task that finds its first window full (the table's comment). */
enum { TASK_HOMES = 3 };
static inline uint32_t task_displaced_home(uint64_t task, unsigned which)
{
	if (which == 1)
		return (uint32_t)(task * TASK_STRIDE + TASK_SLOTS / 2) & (TASK_SLOTS - 1);
	return (uint32_t)((task * 0x9e3779b97f4a7c15u) >> (64 - TASK_SLOTS_LOG2));
}

/* Whether a task has taken an entry from another home (never cleared: rare and harmless). */
extern bool tasks_displaced;

/* `task`'s entry in the window from `home`, or NULL. */
static inline struct task_entry *task_in_window(uint64_t task, uint32_t home)
{
	for (unsigned k = 0; k < TASK_WINDOW; k++) {
		struct task_entry *e = &tasks[(home + k) & (TASK_SLOTS - 1)];
		if (__atomic_load_n(&e->task, __ATOMIC_ACQUIRE) == task)
			return e;
	}
	return NULL;
}

/* task_find's look-up in the other homes' windows (live_tasks.c). */
__attribute__((noinline, cold)) struct task_entry *task_find_displaced(uint64_t task);
/* A claim of an entry in the other homes' windows, the first full (live_tasks.c). */
__attribute__((noinline, cold)) struct task_entry *task_claim_displaced(uint64_t task);

/* A task's entry, found in its window (or another home's), or NULL. */
static inline struct task_entry *task_find(uint64_t task)
{
	struct task_entry *e = task_in_window(task, task_home(task));
	if (__builtin_expect(e == NULL, 0) && __atomic_load_n(&tasks_displaced, __ATOMIC_ACQUIRE))
		e = task_find_displaced(task);
	return e;
}

/* task_find's, `likely` (may be NULL) first: one load when it is the task's. */
static inline struct task_entry *task_find_likely(uint64_t task, struct task_entry *likely)
{
	if (likely != NULL && __atomic_load_n(&likely->task, __ATOMIC_ACQUIRE) == task)
		return likely;
	return task_find(task);
}

/*
 * The table's pages, given a chunk at a time (those of homes 17 slots apart, before the homes
 * were consecutive: their first 2^18 / 17 tasks touched every one of its 3,072 pages). On a virtual
 * machine a page fault costs 10-20 us: 65 ms for the table. A spawn whose entry's 64 KiB chunk
 * is not marked has its pages given in one call (MADV_POPULATE_WRITE: the whole table 3 ms), no
 * more than a fault's pause on the program's thread; where the kernel has no such call, or under
 * a system call filter, pages as touched. BOTS health (125,000 tasks) on one thread under
 * `taskprobe run`: 202 ms against 220 with faults (41 plain), its page faults 3,564 -> 497.
 * Huge pages did as well in sum but paused a spawn 0.2 ms and more at each 2 MiB, which
 * stretched a small graph's span by 7%.
 */
#define TASK_CHUNK_LOG2 16
#define TASK_CHUNKS     (TASKS_BYTES >> TASK_CHUNK_LOG2)
extern uint64_t tasks_populated[TASK_CHUNKS / 64];
__attribute__((noinline, cold)) void live_populate_tasks(uint32_t chunk);

static inline void task_chunk_ready(const struct task_entry *e)
{
	uint32_t chunk = (uint32_t)((size_t)((const char *)e - (const char *)tasks) >>
				    TASK_CHUNK_LOG2);
	if (!(__atomic_load_n(&tasks_populated[chunk / 64], __ATOMIC_RELAXED) >> (chunk % 64) & 1))
		live_populate_tasks(chunk);
}

/* An entry being filled: taken, but no task's yet (task ids are never this). */
#define ENTRY_FILLING UINT64_MAX

/* Claims an entry in the window from `home`: NULL when it is full. */
static inline __attribute__((always_inline)) struct task_entry *task_claim(uint32_t home)
{
	task_chunk_ready(&tasks[home]);
	for (unsigned k = 0; k < TASK_WINDOW; k++) {
		struct task_entry *e = &tasks[(home + k) & (TASK_SLOTS - 1)];
		uint64_t empty = 0;
		if (__atomic_load_n(&e->task, __ATOMIC_RELAXED) == 0 &&
		    __atomic_compare_exchange_n(&e->task, &empty, ENTRY_FILLING, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return e;
	}
	return NULL;
}

/* The work and span state of the task of entry `e`. */
static inline struct tp_span_task *span_of(const struct task_entry *e)
{
	return tp_span_at_offset(__atomic_load_n(&e->span, __ATOMIC_RELAXED));
}

/*
 * A predecessor with `edges` successors ended with `end` (UINT8_MAX: that many or more): they
 * start after it, and their edges go (live_dependences.c).
 */
void live_successors_follow(uint64_t predecessor, unsigned edges, const struct tp_live_path *end);
/* A predecessor whose successors wait in an overflow record ended with `end` (its `overflowed`),
 * and a successor holding a record (its `overflow_record`) polled first: it starts after that
 * end, when it was written (live_dependences.c). After a fork, none is held. */
void live_overflow_ended(uint64_t predecessor, const struct tp_live_path *end);
void live_overflow_join(struct tp_span_task *t, const uint64_t *task_id, uint64_t task);
void live_overflows_forget(void);

/* The calling thread's slot for `need`, taken if it has none (live_slots.c). */
__attribute__((noinline)) bool live_slot_for(enum slot_need need);
/* Slot `s`'s longest path becomes `end`, whole for its readers (live_slots.c). */
void live_slot_longest_is(struct tp_live_thread *s, const struct tp_live_path *end);
/* Gives file space to [offset, offset + length) (live_slots.c). */
bool live_give_space(uint64_t offset, uint64_t length);
/* The file's entry of the module holding `address` (live_stacks.c). */
uint32_t live_module_entry(uintptr_t address);
/* Keeps a sampled stack in the file (live_stacks.c). */
void live_keep_stack(uint32_t row, uint64_t stack_id, const uintptr_t *pcs, uint32_t depth,
		     bool wait);
/* The process ends: its file is marked, and removed unless kept (live.c). */
void live_ended(void);
/*
 * Removes the file, unless it is to be kept for a reader, or a system call filter may refuse
 * the removal (the next program's sweep removes it). A reader that has it open keeps reading it.
 */
void live_file_let_go(void);

/*
 * The calling thread's slot, marked busy, or NULL when it has none (or not what `need` wants) or
 * is busy already.
 */
static inline struct tp_live_thread *enter(enum slot_need need)
{
	if (__builtin_expect(local.busy, 0)) {
		count(&header->events_dropped);
		return NULL;
	}
	if (__builtin_expect(need == TAKES_SLOT ? local.rows == NULL : local.slot == NULL, 0) &&
	    !live_slot_for(need))
		return NULL;
	tp_guard_enter(&local.busy);
	return local.slot;
}

static inline void leave(void)
{
	tp_guard_leave(&local.busy, false);
}

/*
 * Whether the calling process is the file's: not a child made without fork handlers (vfork,
 * _Fork, a raw clone), which has its parent's memory and the file's mapping with it.
 */
static inline bool in_files_process(void)
{
	return header != NULL && tp_process_is_current();
}

#pragma GCC visibility pop

#endif
