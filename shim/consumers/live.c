// SPDX-License-Identifier: MIT
/*
 * Live statistics (live.h): the shared file's layout (the file itself: live_file.c), the
 * per-thread slots and rows, and the table of tasks alive that carries a task's site and times
 * from one event to the next (a task's events come on several threads: wake on one, polls on
 * others).
 */
#define _GNU_SOURCE
#include "live.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "code_map.h"
#include "hash.h"
#include "in_process_consumers.h"
#include "listeners.h"
#include "live_file.h"
#include "openmp_runtimes.h"
#include "process.h"
#include "reentry.h"
#include "settings.h"
#include "spawn_site.h"
#include "spin_lock.h"
#include "thread_identity.h"
#include "work_span.h"

/*
 * Tasks alive: a task's entry lies in one of TASK_WINDOW slots from its home, so a look-up reads
 * at most that many and a removal is one store (no tombstones). Ids are handed out in blocks of
 * consecutive numbers and many consecutive tasks may be alive at once (a loop that spawns them):
 * homes TASK_STRIDE slots apart leave room between them for the tasks of later ids whose homes
 * fall among them, while the tasks of a block still share pages. A task that finds its window
 * full is counted (tasks_untracked) and left out of the figures, spawn and end alike. 2^18
 * entries of 40 bytes: 10 MiB reserved, touched as tasks arrive.
 */
#define TASK_SLOTS_LOG2 18
#define TASK_SLOTS      (1u << TASK_SLOTS_LOG2)
#define TASK_WINDOW     32
#define TASK_STRIDE     17 /* odd: every slot is some id's home */

struct task_entry {
	uint64_t task;     /* 0: free */
	uint16_t row;      /* its site's row */
	uint16_t region;   /* its parallel region's row (its implicit task's site's), 0 none */
	uint32_t span;     /* its work and span state's id (work_span.h) */
	uint64_t ready_ns; /* woken (or spawned ready), not yet polled: 0 when not */
	/* its last poll ended unfinished, not yet polled again: 0 when not */
	uint64_t suspended_ns;
	uint64_t polled_ns; /* its polls' time so far, but the one going on */
};

/*
 * Dependences between tasks alive, for the span: an edge is kept by its predecessor's id, in one
 * of DEPENDENCE_WINDOW entries from its home, until the predecessor ends and folds its path into
 * its successor. A dependence that finds its window full is counted and left out (the span may
 * then be short). 2^16 entries of 16 bytes: 1 MiB reserved, touched as dependences arrive.
 */
#define DEPENDENCE_SLOTS_LOG2 16
#define DEPENDENCE_SLOTS      (1u << DEPENDENCE_SLOTS_LOG2)
#define DEPENDENCE_WINDOW     32

struct dependence {
	uint64_t predecessor; /* 0: free */
	uint64_t successor;
};

/* `bytes` of private memory, reserved, given pages as they are touched; or at `at`, over it. */
static void *reserve(void *at, size_t bytes)
{
	void *m = mmap(at, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (at != NULL ? MAP_FIXED : 0),
		       -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

#define TASKS_BYTES (TASK_SLOTS * sizeof(struct task_entry))
/* the tasks' states: one per task the table keeps, and what the threads' caches may hold */
#define SPANS             (TASK_SLOTS + TP_LIVE_THREADS * TP_SPAN_CACHE_MOST)
#define SPANS_BYTES       (SPANS * sizeof(struct tp_span_task))
#define DEPENDENCES_BYTES (DEPENDENCE_SLOTS * sizeof(struct dependence))

/* How long the time-stamp counter is timed against CLOCK_MONOTONIC (now_ns). */
#define CALIBRATION_NS 2000000

/* No row: a task the table could not keep. */
#define NO_ROW UINT32_MAX

static char *map;
static struct tp_live_header *header;
static struct tp_live_site *sites;
static struct tp_live_stack *stacks;
static struct tp_live_module *modules;
static struct tp_live_wait_site *wait_sites;
static struct tp_live_thread *slots;
static struct task_entry *tasks;
static struct tp_span_task *spans; /* the tasks' work and span states' pool (work_span.h) */
static struct dependence *dependences;
/* Each parallel region's site's last fork (work_span.h), by site row. */
static struct tp_span_fork forks[TP_LIVE_SITES];
/*
 * The slot of the thread that polled OpenMP's initial task last (its row: no site's), for a
 * worker's implicit task whose region its primary has not published yet (initial_so_far).
 */
static struct tp_live_thread *initial_slot;
/* Mutual exclusions' last releases (work_span.h): reserved, touched as they are used. */
static struct tp_span_mutex *mutexes;
#define MUTEXES_BYTES (TP_SPAN_MUTEXES * sizeof(struct tp_span_mutex))
/*
 * The longest path ended before the last barrier completed, taken by the first thread to leave
 * it (the others join the same): barriers are per parallel region, not per task.
 */
static int barrier_lock;
/* A dependence was made: task ends order their entry's free against the edges' (task_terminate) */
static bool dependences_seen;
static uint64_t barrier_frozen_ns;
static struct tp_live_path barrier_frozen;
static uint64_t tsc_at_start, ns_at_start, ns_per_tsc_2_32;
static uint64_t long_poll_ns;
static int stacks_lock;
static bool stacks_ready; /* the stacks' part of the file has space (at the first stack) */
/* Kept for the exit report alone: in the process's memory, no file (open_in_memory). */
static bool in_memory;

/* The calling thread's place in the file, and the task it polls. */
struct live_local {
	struct tp_live_thread *slot;
	struct tp_live_site_stats *rows;
	struct task_entry *polled; /* the polled task's entry, NULL if untracked */
	uint64_t polled_task;
	uint64_t poll_start;
	/* where the polled fragment's part on the path began (its start, or a split of it at a
	 * mutual exclusion's acquire or release: tp_span_acquire, tp_span_release) */
	uint64_t span_from;
	/* the site row of the mutual exclusion the polled task waited for before this poll (0:
	 * none), and of the one whose section it is in now (0: none) */
	uint32_t mutex_row;
	uint32_t section_row;
	/* the polled fragment's time up to here is in the slot's work (count_work) */
	uint64_t work_counted_to;
	uint64_t last_spawn_ns; /* its last spawn, for the gap to the next in the same poll */
	/* the polled task that ended (its terminate, 0 none) and when: its poll's end comes right
	 * after, and is timed then too (one clock read for the two) */
	uint64_t terminated_task;
	uint64_t terminated_ns;
	uint32_t poll_row;      /* the polled task's row, NO_ROW if untracked */
	uint32_t poll_region;   /* and its parallel region's row, 0 none */
	uint32_t spawn_row;     /* the row of the task it spawned last (for its stack) */
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
	uint32_t wait_kind;   /* and its kind */
	uint64_t started_ns;  /* when its start was seen (tp_live_thread_start), 0 if not */
	struct tp_live_wait_site *wait_site; /* and that wait's call site, NULL if none */
	uintptr_t start_routine;             /* the routine it started with, 0 if not seen */
	uint32_t start_module;               /* the module entry of start_routine */
	struct tp_span_thread span;          /* its fragment of the task graph (work_span.h) */
	struct tp_span_cache span_cache;     /* the tasks' states it hands out and takes back */
};
static __thread struct live_local local __attribute__((tls_model("initial-exec")));

/*
 * When the process's exit began (0: not yet): the figures' end (tp_live_now). Every event after
 * it happens at it, for the statistics as for the recording's analysis (a thread that goes on
 * while another exits adds nothing of what it does then): the counter's rate is put aside
 * (exit_rate), so that every clock read takes now_while_timing_the_counter, which says so.
 */
static uint64_t exit_began_ns, exit_rate;

/*
 * The time-stamp counter's rate is timed against CLOCK_MONOTONIC over the statistics' first
 * CALIBRATION_NS, by the events themselves: until then they read CLOCK_MONOTONIC (a pair, a
 * hundred ns), and the first one after it fixes the rate. Nothing waits at start.
 */
__attribute__((noinline)) static uint64_t now_while_timing_the_counter(void)
{
	uint64_t exit_began = __atomic_load_n(&exit_began_ns, __ATOMIC_ACQUIRE);
	if (exit_began != 0)
		return exit_began;
	uint64_t tsc, ns;
	tp_clock_pair(&tsc, &ns);
	if (ns - ns_at_start >= CALIBRATION_NS && tsc > tsc_at_start) {
		uint64_t rate = tp_live_tsc_rate(tsc_at_start, ns_at_start, tsc, ns);
		__atomic_store_n(&header->ns_per_tsc_2_32, rate, __ATOMIC_RELAXED);
		__atomic_store_n(&ns_per_tsc_2_32, rate, __ATOMIC_RELEASE);
	}
	return ns;
}

/* at every event: inlined, the call would cost a third of it */
static inline __attribute__((always_inline)) uint64_t now_ns(void)
{
#if defined(__x86_64__)
	if (__builtin_expect(tp_clock_is_tsc, 1)) {
		uint64_t rate = __atomic_load_n(&ns_per_tsc_2_32, __ATOMIC_ACQUIRE);
		if (__builtin_expect(rate == 0, 0))
			return now_while_timing_the_counter();
		return tp_live_tsc_ns(__rdtsc(), tsc_at_start, ns_at_start, rate);
	}
#endif
	uint64_t exit_began = __atomic_load_n(&exit_began_ns, __ATOMIC_RELAXED);
	return exit_began != 0 ? exit_began : tp_clock_monotonic_ns();
}

/* Written by one thread only, read by the console: each value whole. */
static inline void add(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, *p + v, __ATOMIC_RELAXED);
}

static inline void set32(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline void set64(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline void count(uint64_t *shared)
{
	__atomic_fetch_add(shared, 1, __ATOMIC_RELAXED);
}

static inline void histogram_add(uint64_t *histogram, uint64_t ns)
{
	unsigned b = 63u - (unsigned)__builtin_clzll(ns | 1);
	if (b >= TP_LIVE_BUCKETS)
		b = TP_LIVE_BUCKETS - 1;
	add(&histogram[b], 1);
}

static inline void cost_histogram_add(uint32_t *histogram, uint64_t ns)
{
	unsigned log2 = 63u - (unsigned)__builtin_clzll(ns | 1);
	unsigned b = log2 > TP_LIVE_COST_SHIFT ? log2 - TP_LIVE_COST_SHIFT : 0;
	if (b >= TP_LIVE_COST_BUCKETS)
		b = TP_LIVE_COST_BUCKETS - 1;
	__atomic_store_n(&histogram[b], histogram[b] + 1, __ATOMIC_RELAXED);
}

/*
 * Task sites' rows, given in order of their first spawn: site keys are shared with wait sites
 * (spawn_site.h), and a wait's key must not take a task construct's row. 0: no row yet. A sync
 * construct's site has a row of its own (sync_rows_by_site), even where its call is a task
 * site's too (a parallel construct's implicit barrier, reported at the construct's call): its
 * waits are a line of the sync sites' table, as --analyze lists them, not lost in the task
 * site's row.
 */
#define ROW_BEING_GIVEN UINT16_MAX
static uint16_t rows_by_site[TP_SITES_MAX + 1], sync_rows_by_site[TP_SITES_MAX + 1];
static uint32_t rows_given; /* rows 1 to TP_LIVE_OVERFLOW - 1 given so far */
_Static_assert(TP_LIVE_OVERFLOW < ROW_BEING_GIVEN, "a row fits the map's entries");
_Static_assert(TP_WAIT_KINDS < TP_LIVE_WAIT_KINDS, "a slot counts every kind's waits");
_Static_assert(TP_LIVE_STACK_FRAMES == TP_STACK_DEPTH_MAX,
	       "a sampled stack keeps TASKPROBE_STACK_DEPTH's most frames (settings.h)");

__attribute__((noinline)) static uint32_t new_row(uint16_t *by_site, uint32_t site)
{
	uint16_t none = 0, row;
	if (__atomic_compare_exchange_n(&by_site[site], &none, ROW_BEING_GIVEN, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		uint32_t given = __atomic_add_fetch(&rows_given, 1, __ATOMIC_RELAXED);
		row = given < TP_LIVE_OVERFLOW ? (uint16_t)given : TP_LIVE_OVERFLOW;
		__atomic_store_n(&by_site[site], row, __ATOMIC_RELEASE);
		return row;
	}
	/* another thread gives this site its row: a few instructions away */
	while ((row = __atomic_load_n(&by_site[site], __ATOMIC_ACQUIRE)) == ROW_BEING_GIVEN)
		__builtin_ia32_pause();
	return row;
}

/* The row of `site` in the map `by_site` (rows_by_site, sync_rows_by_site), given if new. */
static uint32_t row_in(uint16_t *by_site, uint32_t site)
{
	if (site == TP_LIVE_NO_SITE)
		return TP_LIVE_NO_SITE;
	if (site > TP_SITES_MAX)
		return TP_LIVE_OVERFLOW;
	uint16_t row = __atomic_load_n(&by_site[site], __ATOMIC_ACQUIRE);
	return row != 0 && row != ROW_BEING_GIVEN ? row : new_row(by_site, site);
}

static uint32_t row_of(uint32_t site)
{
	return row_in(rows_by_site, site);
}

/*
 * Gives [offset, offset + length) of the file space: its pages made present through the mapping
 * (a full tmpfs is an error here, never a SIGBUS later), or on a kernel before 5.14 with
 * fallocate on the file, if its path still names the file made at start. When the file system
 * is full, the pages made present before it was are given back (fallocate does so itself), so
 * that a smaller range, a thread's rows, may still get space.
 */
static bool give_space(uint64_t offset, uint64_t length)
{
	if (in_memory)
		return true; /* private memory: its pages come as they are touched */
	if (tp_process_filtered())
		return false; /* the filter may not allow it: counted as without space */
	if (madvise(map + offset, length, MADV_POPULATE_WRITE) == 0)
		return true;
	if (errno != EINVAL) {
		madvise(map + offset, length, MADV_REMOVE);
		return false;
	}
	return tp_live_file_allocate(offset, length);
}

enum take_result {
	TAKEN,    /* the slot is the calling thread's, its rows given space */
	NOT_FREE, /* the slot was not in the state looked for */
	NO_SPACE, /* the file could not get space for the slot's rows */
};

/* Slot `s`'s rows, given space if they have none; NULL when the file has no space for them. */
static struct tp_live_site_stats *slot_rows(struct tp_live_thread *s)
{
	uint64_t rows = header->rows_offset + (uint64_t)(s - slots) * header->rows_stride;
	if (!s->rows_ready) {
		if (!give_space(rows, header->rows_stride))
			return NULL;
		__atomic_store_n(&s->rows_ready, 1, __ATOMIC_RELEASE);
	}
	return (struct tp_live_site_stats *)(map + rows);
}

/*
 * When the calling thread started: its start seen, else the statistics' start for the main
 * thread (it began before them), else now.
 */
static uint64_t thread_started_ns(uint64_t now)
{
	if (local.started_ns != 0)
		return local.started_ns;
	return tp_thread_tid() == tp_process()->pid ? ns_at_start : now;
}

/*
 * Whether the calling thread took slot `i` (in state `from`); with `rows`, its rows have space
 * (a thread that only waits needs none: they are given when it first runs a task).
 */
static enum take_result take(unsigned i, uint32_t from, bool rows)
{
	struct tp_live_thread *s = &slots[i];
	if (__atomic_load_n(&s->in_use, __ATOMIC_RELAXED) != from ||
	    !__atomic_compare_exchange_n(&s->in_use, &from, TP_LIVE_SLOT_LIVE, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return NOT_FREE;
	struct tp_live_site_stats *r = rows || s->rows_ready ? slot_rows(s) : NULL;
	if (rows && r == NULL) {
		__atomic_store_n(&s->in_use, from, __ATOMIC_RELEASE);
		return NO_SPACE;
	}
	/* the thread's own figures start from zero; its rows' stay, summed into the sites' */
	uint64_t now = now_ns();
	set32(&s->generation, s->generation + 1);
	set32(&s->tid, (uint32_t)tp_thread_tid());
	tp_thread_read_name(s->name);
	set64(&s->start_routine, local.start_routine);
	set32(&s->start_module, local.start_routine != 0 ? local.start_module : TP_LIVE_NO_MODULE);
	set32(&s->worker, local.worker);
	set32(&s->wait_kind, 0);
	set64(&s->wait_task, 0);
	set32(&s->site, 0);
	set64(&s->busy_ns, 0);
	set64(&s->parked_ns, 0);
	set64(&s->polls, 0);
	set64(&s->taken_ns, now);
	set64(&s->state_since, now);
	set32(&s->state, local.worker_parked ? TP_LIVE_PARKED : TP_LIVE_RUNNING);
	set32(&s->longest_wait_kind, 0);
	set64(&s->waits, 0);
	for (unsigned k = 0; k < TP_LIVE_WAIT_KINDS; k++)
		set64(&s->waited_ns[k], 0);
	set64(&s->longest_wait_ns, 0);
	set64(&s->longest_wait_address, 0);
	set32(&s->longest_wait_module, TP_LIVE_NO_MODULE);
	set64(&s->started_ns, thread_started_ns(now));
	set64(&s->ended_ns, 0);
	local.slot = s;
	local.rows = r;
	local.poll_row = NO_ROW;
	return TAKEN;
}

/* What an event needs of the calling thread's slot, and takes if the thread has none. */
enum slot_need {
	TAKES_SLOT, /* task, worker and park events: a slot and its rows (the sites' figures) */
	/* waits: a slot without rows, among the TP_LIVE_WAITING_THREADS a thread that only waits
	 * may take; a rename: only a slot the thread has */
	WAITING_SLOT,
	HAS_SLOT_ONLY,
};

/*
 * The calling thread takes a free slot, else an ended thread's (whose figures stay summed): for
 * a wait, one of the first TP_LIVE_WAITING_THREADS.
 */
static bool take_slot(enum slot_need need)
{
	static const uint32_t preferred[] = {TP_LIVE_SLOT_FREE, TP_LIVE_SLOT_ENDED};
	unsigned most = need == WAITING_SLOT ? TP_LIVE_WAITING_THREADS : TP_LIVE_THREADS;
	bool taken = false, no_space = false;
	for (unsigned k = 0; k < sizeof preferred / sizeof preferred[0] && !taken; k++)
		for (unsigned i = 0; i < most && !taken; i++) {
			enum take_result r = take(i, preferred[k], need == TAKES_SLOT);
			taken = r == TAKEN;
			/* no other free slot would get space either; an ended one has its own */
			if (r == NO_SPACE) {
				no_space = true;
				break;
			}
		}
	if (!taken && need == WAITING_SLOT) {
		/* a later task event may still find a slot among the others */
		count(&header->waiting_threads_unlisted);
	} else if (!taken) {
		local.no_slot = true;
		count(no_space ? &header->threads_without_space : &header->threads_uncounted);
	}
	return taken;
}

/*
 * Gives the calling thread what `need` wants: a slot, and for TAKES_SLOT its rows' space (a
 * thread whose slot a wait took has none yet). False when it cannot. Guarded: a signal handler's
 * event meanwhile (a wait in it) would take the thread a second slot.
 */
__attribute__((noinline)) static bool slot_for(enum slot_need need)
{
	if (need == HAS_SLOT_ONLY || local.ended || local.no_slot ||
	    (need == TAKES_SLOT && local.no_rows) ||
	    (need == WAITING_SLOT && local.waited_unlisted))
		return false;
	tp_guard_enter(&local.busy);
	int saved_errno = errno, cancel_state;
	/* a cancellation inside (the fallback's open) would leave the slot taken */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	bool ready = local.slot != NULL || take_slot(need);
	if (!ready && need == WAITING_SLOT)
		local.waited_unlisted = true;
	if (ready && need == TAKES_SLOT && local.rows == NULL) {
		local.rows = slot_rows(local.slot);
		if (local.rows == NULL) {
			local.no_rows = true;
			count(&header->threads_without_space);
			ready = false;
		}
	}
	pthread_setcancelstate(cancel_state, NULL);
	errno = saved_errno;
	tp_guard_leave(&local.busy, false);
	return ready;
}

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
	    !slot_for(need))
		return NULL;
	tp_guard_enter(&local.busy);
	return local.slot;
}

static inline void leave(void)
{
	tp_guard_leave(&local.busy, false);
}

static inline uint32_t task_hash(uint64_t task)
{
	return (uint32_t)(task * TASK_STRIDE) & (TASK_SLOTS - 1);
}

static struct task_entry *task_find(uint64_t task)
{
	uint32_t h = task_hash(task);
	for (unsigned k = 0; k < TASK_WINDOW; k++) {
		struct task_entry *e = &tasks[(h + k) & (TASK_SLOTS - 1)];
		if (__atomic_load_n(&e->task, __ATOMIC_ACQUIRE) == task)
			return e;
	}
	return NULL;
}

/* An entry being filled: taken, but no task's yet (task ids are never this). */
#define ENTRY_FILLING UINT64_MAX

/*
 * Claims an entry for `task` and fills it; its id is published last, with the entry whole. NULL
 * when its window is full (counted).
 */
static struct task_entry *task_insert(uint64_t task, uint32_t row, uint32_t region, uint32_t span)
{
	uint32_t h = task_hash(task);
	for (unsigned k = 0; k < TASK_WINDOW; k++) {
		struct task_entry *e = &tasks[(h + k) & (TASK_SLOTS - 1)];
		uint64_t empty = 0;
		if (__atomic_load_n(&e->task, __ATOMIC_RELAXED) != 0 ||
		    !__atomic_compare_exchange_n(&e->task, &empty, ENTRY_FILLING, false,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		__atomic_store_n(&e->row, (uint16_t)row, __ATOMIC_RELAXED);
		__atomic_store_n(&e->region, (uint16_t)region, __ATOMIC_RELAXED);
		__atomic_store_n(&e->span, span, __ATOMIC_RELAXED);
		set64(&e->ready_ns, 0);
		set64(&e->suspended_ns, 0);
		set64(&e->polled_ns, 0);
		__atomic_store_n(&e->task, task, __ATOMIC_RELEASE);
		return e;
	}
	count(&header->tasks_untracked);
	return NULL;
}

/* The work and span state of the task of entry `e`. */
static inline struct tp_span_task *span_of(const struct task_entry *e)
{
	return tp_span_at(__atomic_load_n(&e->span, __ATOMIC_RELAXED));
}

/*
 * The slot's longest path becomes `end` if it is longer (taskprobe_live.h: path_seq); its placed
 * length is the longest placed one ended on the slot, whichever path had it.
 */
static void slot_longest(struct tp_live_thread *s, const struct tp_live_path *end)
{
	if (end->placed_ns > s->longest.placed_ns)
		set64(&s->longest.placed_ns, end->placed_ns);
	if (end->ns <= s->longest.ns)
		return;
	__atomic_store_n(&s->path_seq, s->path_seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	set64(&s->longest.ns, end->ns);
	set64(&s->longest.burdened_ns, end->burdened_ns);
#pragma GCC unroll 4 /* at every poll end that lengthens the path: its steps cost as much */
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++) {
		set64(&s->longest.sites[k], end->sites[k]);
		__atomic_store_n(&s->longest.fragments[k], end->fragments[k], __ATOMIC_RELAXED);
	}
	__atomic_store_n(&s->path_seq, s->path_seq + 1, __ATOMIC_RELEASE);
}

/*
 * For a task that leaves a barrier: the longest path ended before the barrier completed (every
 * slot's longest), taken by the first to leave it, which entered it after the last one was
 * taken (`suspended_ns`).
 */
static void barrier_join(uint64_t suspended_ns, uint64_t now, struct tp_live_path *out)
{
	tp_spin_lock(&barrier_lock);
	if (tp_span_barrier_freezes(barrier_frozen_ns, suspended_ns)) {
		memset(&barrier_frozen, 0, sizeof barrier_frozen);
		for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
			struct tp_live_path p;
			if (__atomic_load_n(&slots[i].in_use, __ATOMIC_ACQUIRE) ==
			    TP_LIVE_SLOT_FREE)
				continue;
			tp_live_read_longest(&slots[i], &p);
			/* everything ended before the barrier completed joins it: the last of
			 * them is the last poll any slot ended (--analyze's, the same) */
			uint64_t last = __atomic_load_n(&slots[i].graph_last_ns, __ATOMIC_RELAXED);
			p.ended_ns = last > p.ended_ns ? last : p.ended_ns;
			tp_span_path_max(&barrier_frozen, &p);
		}
		barrier_frozen_ns = now;
	}
	*out = barrier_frozen;
	tp_spin_unlock(&barrier_lock);
}

/*
 * The file's entry of the module holding `address` (the code map's index), published if it is
 * not yet; TP_LIVE_NO_MODULE when none holds it. Entries are made whole once, by whichever thread
 * first needs one, and never change: a reader names addresses with them.
 */
static uint32_t module_entry(uintptr_t address)
{
	uint32_t found = tp_code_module_of(address);
	if (found == 0 || found > TP_LIVE_MODULES)
		return TP_LIVE_NO_MODULE;
	struct tp_live_module *entry = &modules[found - 1];
	uint32_t empty = TP_LIVE_ENTRY_EMPTY;
	if (__atomic_load_n(&entry->state, __ATOMIC_ACQUIRE) == TP_LIVE_ENTRY_EMPTY &&
	    __atomic_compare_exchange_n(&entry->state, &empty, TP_LIVE_ENTRY_WRITING, false,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		const struct tp_code_module *m = tp_code_module(found - 1);
		entry->bias = m->bias;
		entry->start = m->start;
		entry->end = m->end;
		entry->build_id_size = m->build_id_size;
		memcpy(entry->build_id, m->build_id, sizeof entry->build_id);
		snprintf(entry->path, sizeof entry->path, "%s", m->path);
		__atomic_store_n(&entry->state, TP_LIVE_ENTRY_READY, __ATOMIC_RELEASE);
	}
	return found - 1;
}

/*
 * A site's text, copied into the file at its first spawn, or for a sync construct's site (`sync`
 * its kind, else 0) at the first poll that ends waiting there.
 */
__attribute__((noinline)) static void publish_site_first(uint32_t row, uint32_t site,
							 bool by_program, uint32_t sync)
{
	struct tp_live_site *entry = &sites[row];
	uint32_t empty = TP_LIVE_ENTRY_EMPTY;
	if (!__atomic_compare_exchange_n(&entry->state, &empty, TP_LIVE_ENTRY_WRITING, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	/* the program's sites by address, named where they are read; the other rows in words */
	uintptr_t address = row == TP_LIVE_OVERFLOW || row == TP_LIVE_NO_SITE
				    ? 0
				    : tp_spawn_site_key_address(site);
	entry->address = address;
	entry->module = address != 0 ? module_entry(address) : TP_LIVE_NO_MODULE;
	const char *text = row == TP_LIVE_OVERFLOW  ? TP_LIVE_OVERFLOW_TEXT
			   : row == TP_LIVE_NO_SITE ? "(no site: initial tasks)"
						    : "";
	snprintf(entry->text, sizeof entry->text, "%s", text);
	entry->site_id = row == TP_LIVE_OVERFLOW ? 0 : site;
	entry->by_executor = !by_program;
	entry->sync_kind = sync;
	__atomic_store_n(&entry->state, TP_LIVE_ENTRY_READY, __ATOMIC_RELEASE);
}

/* At every spawn: a site published already (all but its first) costs a load. */
static inline void publish_site(uint32_t row, uint32_t site, bool by_program, uint32_t sync)
{
	if (__builtin_expect(
		    __atomic_load_n(&sites[row].state, __ATOMIC_RELAXED) != TP_LIVE_ENTRY_EMPTY, 1))
		return;
	publish_site_first(row, site, by_program, sync);
}

/*
 * The polled fragment's time up to `now` into the slot's work. Called before a path is extended
 * by that time (a spawn, the task's end) as well as at the poll's end: a fragment still open
 * when the program exits (exit inside a parallel region) has put its time up to its last spawn
 * on the paths of the tasks it spawned, and the work counts it too, so that no path is ever
 * longer than the work (span <= work).
 */
static void count_work(uint64_t now)
{
	add(&local.slot->work_ns, now - local.work_counted_to);
	local.work_counted_to = now;
	__atomic_store_n(&local.slot->open_counted_ns, now, __ATOMIC_RELEASE);
}

/*
 * The initial task's path up to `now` when a thread polls it now (its open fragment, published
 * in its slot: lengths, no sites): where an outermost region's worker's implicit task starts
 * when the executor released the worker before its primary published the region's fork
 * (tp_span_fork, joined later too). False when no thread polls it.
 */
static bool initial_so_far(uint64_t now, struct tp_live_path *p)
{
	const struct tp_live_thread *t = __atomic_load_n(&initial_slot, __ATOMIC_ACQUIRE);
	if (t == NULL || __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != TP_LIVE_POLLING ||
	    __atomic_load_n(&t->site, __ATOMIC_RELAXED) != TP_LIVE_NO_SITE)
		return false;
	uint64_t uncounted;
	memset(p, 0, sizeof *p);
	tp_live_open_fragment(t, now, &uncounted, &p->ns, &p->placed_ns);
	p->burdened_ns = p->ns;
	p->ended_ns = now;
	return p->ns > 0;
}

/*
 * A new task's start in the task graph: its parent's fragment up to now when this thread polls
 * the parent, else the parent's last fragment's end; none for OpenMP's initial task (no parent,
 * no site). An implicit task of a parallel region (the executor's, with a site) on the region's
 * primary publishes its start as the region's fork; on another thread it has no parent, and
 * joins that fork (tp_span_fork).
 */
static void span_spawned(struct task_entry *e, uint64_t parent, uint32_t site, bool by_program,
			 bool undeferred, uint64_t now)
{
	bool implicit = !by_program && site != 0;
	struct task_entry *p = NULL;
	struct tp_span_thread *th = NULL;
	const struct tp_live_path *in = NULL;
	struct tp_live_path so_far;
	uint32_t row = __atomic_load_n(&e->row, __ATOMIC_RELAXED), fork_row = 0;
	switch (tp_span_spawn_from(parent != 0, parent == local.polled_task, implicit)) {
	case TP_SPAN_FROM_FRAGMENT:
		p = local.polled;
		th = local.span.in_graph ? &local.span : NULL;
		if (th != NULL)
			count_work(now);
		if (p != NULL)
			span_of(p)->ran_undeferred |= undeferred && th != NULL;
		break;
	case TP_SPAN_FROM_LAST:
		p = task_find(parent);
		const struct tp_span_task *ps = p != NULL ? span_of(p) : NULL;
		in = ps != NULL && ps->started ? &ps->in : NULL;
		break;
	case TP_SPAN_FROM_FORK:
		fork_row = row;
		if (initial_so_far(now, &so_far))
			in = &so_far;
		break;
	case TP_SPAN_FROM_NOTHING:
		break;
	}
	if (p != NULL)
		span_of(p)->spawner = true;
	tp_span_spawned(span_of(e), parent, p != NULL ? (uint32_t)(p - tasks) + 1 : 0, fork_row, th,
			now - local.span_from, now, in);
	if (implicit && parent != 0)
		tp_span_fork(row, &span_of(e)->in);
}

/*
 * A new task's parallel region: its own site's row for an implicit task (the executor's, with a
 * site), else its parent's region.
 */
static uint32_t region_of(uint64_t parent, uint32_t site, bool by_program, uint32_t row)
{
	if (!by_program && site != 0)
		return row;
	if (parent == 0)
		return 0;
	if (parent == local.polled_task)
		return local.poll_region;
	const struct task_entry *p = task_find(parent);
	return p != NULL ? __atomic_load_n(&p->region, __ATOMIC_RELAXED) : 0;
}

void tp_live_task_spawn(uint64_t task, uint64_t parent, uint32_t site, bool by_program,
			bool undeferred)
{
	if (enter(TAKES_SLOT) == NULL)
		return;
	uint32_t row = row_of(site);
	uint64_t now = now_ns();
	publish_site(row, site, by_program, 0);
	local.spawn_row = row;
	/* a task the table cannot keep is counted apart: its end could not be matched */
	uint32_t span = tp_span_alloc(&local.span_cache);
	struct task_entry *e = span != 0
				       ? task_insert(task, row,
						     region_of(parent, site, by_program, row), span)
				       : NULL;
	if (e == NULL && span != 0)
		tp_span_free(&local.span_cache, span);
	else if (span == 0)
		count(&header->tasks_untracked);
	if (e != NULL) {
		struct tp_live_site_stats *r = &local.rows[row];
		add(&r->spawned, 1);
		/* the spawn cost (taskprobe_live.h): the gap since the poll's last spawn */
		if (parent != 0 && parent == local.polled_task && local.span.in_graph) {
			if (local.last_spawn_ns >= local.poll_start && local.last_spawn_ns != 0)
				cost_histogram_add(r->spawn_gap_histogram,
						   now - local.last_spawn_ns);
			local.last_spawn_ns = now;
		}
		if (r->first_spawn_ns == 0)
			set64(&r->first_spawn_ns, now);
		span_spawned(e, parent, site, by_program, undeferred, now);
	}
	leave();
}

/*
 * `successor` starts only after `predecessor` ends: an edge kept until then, by the
 * predecessor's id (DEPENDENCE_WINDOW). A predecessor that ended meanwhile (its end came before
 * the executor let go of it) gives the path to its last suspension, all that is left of it.
 */
void tp_live_task_dependence(uint64_t predecessor, uint64_t successor)
{
	if (enter(TAKES_SLOT) == NULL)
		return;
	if (!__atomic_load_n(&dependences_seen, __ATOMIC_RELAXED))
		__atomic_store_n(&dependences_seen, true, __ATOMIC_SEQ_CST);
	struct task_entry *p = task_find(predecessor), *s = task_find(successor);
	if (p != NULL && s != NULL && p != s) {
		struct tp_span_task *pred = span_of(p), *succ = span_of(s);
		struct tp_live_path known = pred->in;
		uint32_t h = task_hash(predecessor) & (DEPENDENCE_SLOTS - 1);
		struct dependence *d = NULL;
		for (unsigned k = 0; k < DEPENDENCE_WINDOW && d == NULL; k++) {
			struct dependence *at = &dependences[(h + k) & (DEPENDENCE_SLOTS - 1)];
			uint64_t empty = 0;
			if (__atomic_load_n(&at->predecessor, __ATOMIC_RELAXED) == 0 &&
			    __atomic_compare_exchange_n(&at->predecessor, &empty, ENTRY_FILLING,
							false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				d = at;
		}
		if (d == NULL) {
			count(&header->dependences_dropped);
			tp_span_predecessor_ended(succ, &s->task, successor, &known);
		} else {
			__atomic_store_n(&d->successor, successor, __ATOMIC_RELAXED);
			__atomic_store_n(&d->predecessor, predecessor, __ATOMIC_RELEASE);
			/* the predecessor's end frees its entry, then counts its edges: one of
			 * the two sees the other (task_terminate) */
			if (__atomic_load_n(&pred->successors, __ATOMIC_RELAXED) < UINT8_MAX)
				__atomic_add_fetch(&pred->successors, 1, __ATOMIC_SEQ_CST);
			else
				__atomic_thread_fence(__ATOMIC_SEQ_CST);
			/* ended meanwhile, before it saw the edge: taken back if still there */
			uint64_t mine = predecessor;
			if (__atomic_load_n(&p->task, __ATOMIC_ACQUIRE) != predecessor &&
			    __atomic_compare_exchange_n(&d->predecessor, &mine, 0, false,
							__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
				tp_span_predecessor_ended(succ, &s->task, successor, &known);
		}
	}
	leave();
}

/*
 * A predecessor with `edges` successors ended with `end` (UINT8_MAX: that many or more): they
 * start after it, and their edges go.
 */
static void successors_follow(uint64_t predecessor, unsigned edges, const struct tp_live_path *end)
{
	uint32_t h = task_hash(predecessor) & (DEPENDENCE_SLOTS - 1);
	for (unsigned k = 0, found = 0;
	     k < DEPENDENCE_WINDOW && (found < edges || edges == UINT8_MAX); k++) {
		struct dependence *at = &dependences[(h + k) & (DEPENDENCE_SLOTS - 1)];
		if (__atomic_load_n(&at->predecessor, __ATOMIC_ACQUIRE) != predecessor)
			continue;
		uint64_t successor = __atomic_load_n(&at->successor, __ATOMIC_RELAXED);
		uint64_t mine = predecessor;
		found++;
		if (!__atomic_compare_exchange_n(&at->predecessor, &mine, 0, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		struct task_entry *s = task_find(successor);
		if (s != NULL)
			tp_span_predecessor_ended(span_of(s), &s->task, successor, end);
	}
}

int tp_live_wants_stack(uint32_t site)
{
	if (local.rows == NULL)
		return 0;
	uint64_t spawned = local.rows[row_of(site)].spawned;
	local.sample_stack = spawned < TP_LIVE_STACK_SAMPLE_FIRST ||
			     spawned % TP_LIVE_STACK_SAMPLE_EVERY == 0;
	return local.sample_stack;
}

/*
 * The entry of stack `stack_id` under site row `row`, else the first empty one (entries are
 * filled in order, under stacks_lock), else TP_LIVE_STACKS when the table is full.
 */
static unsigned stack_entry(uint32_t row, uint64_t stack_id)
{
	unsigned i = 0;
	while (i < TP_LIVE_STACKS &&
	       __atomic_load_n(&stacks[i].state, __ATOMIC_ACQUIRE) == TP_LIVE_ENTRY_READY &&
	       !(stacks[i].site == row && stacks[i].stack_id == stack_id))
		i++;
	return i;
}

static bool stack_entry_is(unsigned i, uint32_t row, uint64_t stack_id)
{
	return i < TP_LIVE_STACKS &&
	       __atomic_load_n(&stacks[i].state, __ATOMIC_ACQUIRE) == TP_LIVE_ENTRY_READY &&
	       stacks[i].site == row && stacks[i].stack_id == stack_id;
}

/*
 * Stack `stack_id` sampled under `row` (a site's row, or a wait site's: tp_live_stack). A new
 * stack is kept once, by one thread at a time: a spawning thread that finds another keeping one
 * skips its sample (a task's spawn never waits for the shim); a thread about to wait (`may_wait`)
 * waits for it, a new stack being rare and the thread about to block anyway.
 */
static void keep_stack(uint32_t row, uint64_t stack_id, const uintptr_t *pcs, uint32_t depth,
		       bool may_wait)
{
	unsigned i = stack_entry(row, stack_id);
	if (stack_entry_is(i, row, stack_id)) {
		__atomic_fetch_add(&stacks[i].samples, 1, __ATOMIC_RELAXED);
		return;
	}
	if (may_wait)
		tp_spin_lock(&stacks_lock);
	else if (!tp_spin_try_lock(&stacks_lock))
		return;
	int saved_errno = errno, cancel_state;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state); /* space may be given */
	tp_guard_enter(&local.busy);
	i = stack_entry(row, stack_id); /* again: another thread may have named it meanwhile */
	if (!stacks_ready)
		stacks_ready = give_space(TP_LIVE_STACKS_SPACE_OFFSET, TP_LIVE_STACKS_SPACE);
	if (stack_entry_is(i, row, stack_id)) {
		__atomic_fetch_add(&stacks[i].samples, 1, __ATOMIC_RELAXED);
	} else if (i == TP_LIVE_STACKS || !stacks_ready) {
		count(&header->stacks_dropped);
	} else {
		struct tp_live_stack *s = &stacks[i];
		s->site = row;
		s->stack_id = (uint32_t)stack_id;
		s->samples = 1;
		s->depth = depth < TP_LIVE_STACK_FRAMES ? depth : TP_LIVE_STACK_FRAMES;
		for (uint32_t f = 0; f < s->depth; f++) {
			s->pcs[f] = pcs[f];
			(void)module_entry(pcs[f]); /* the reader names the frame with it */
		}
		__atomic_store_n(&s->state, TP_LIVE_ENTRY_READY, __ATOMIC_RELEASE);
	}
	tp_guard_leave(&local.busy, false);
	tp_spin_unlock(&stacks_lock);
	pthread_setcancelstate(cancel_state, NULL);
	errno = saved_errno;
}

void tp_live_task_stack(uint64_t stack_id, const uintptr_t *pcs, uint32_t depth)
{
	/* only the spawns it sampled: others' stacks (a tracer's, the recorder's) are not */
	if (local.rows == NULL || stack_id == 0 || local.busy || !local.sample_stack)
		return;
	local.sample_stack = false;
	keep_stack(local.spawn_row, stack_id, pcs, depth, false);
}

/*
 * Whether `e` is filled in: a site another thread claimed gets its address and module just
 * after its key, and is read only once it says it is ready.
 */
static bool site_ready(const struct tp_live_wait_site *e)
{
	return e != NULL && __atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == TP_LIVE_ENTRY_READY;
}

int tp_live_wants_wait_stack(void)
{
	/*
	 * The outermost wait's site, set by its wait-start (none for the overflow's); none when
	 * kept for the exit report alone (in_memory): nobody reads stacks then.
	 */
	const struct tp_live_wait_site *e = local.wait_site;
	if (in_memory || !site_ready(e) || e->address == 0 || local.busy || local.waits != 1)
		return 0;
	uint8_t *mine = &local.waits_at[e - wait_sites];
	bool first = *mine < TP_LIVE_STACK_SAMPLE_FIRST;
	*mine += first;
	local.sample_wait_stack = first || __atomic_load_n(&e->waits, __ATOMIC_RELAXED) %
							   TP_LIVE_STACK_SAMPLE_EVERY ==
						   0;
	return local.sample_wait_stack;
}

void tp_live_wait_stack(uint64_t stack_id, const uintptr_t *pcs, uint32_t depth)
{
	/* only the waits it sampled, as for spawns */
	if (stack_id == 0 || local.busy || !local.sample_wait_stack || local.wait_site == NULL)
		return;
	local.sample_wait_stack = false;
	uint32_t entry = (uint32_t)(local.wait_site - wait_sites);
	keep_stack(TP_LIVE_STACK_OF_WAIT_SITE | entry, stack_id, pcs, depth, true);
}

void tp_live_task_wake(uint64_t task)
{
	if (enter(TAKES_SLOT) == NULL)
		return;
	struct task_entry *e = task_find(task);
	if (e != NULL)
		set64(&e->ready_ns, now_ns());
	leave();
}

/*
 * A task's poll ends waiting in `sync` at the sync construct's site `site`: its wait there is
 * timed until its next poll (sync_wait_ends), in the site's row.
 */
static void sync_wait_begins(struct tp_span_task *t, uint32_t sync, uint32_t site)
{
	t->sync_row = 0;
	if (sync == TP_SYNC_NONE || site == 0)
		return;
	uint32_t row = row_in(sync_rows_by_site, site);
	/* the rows beyond the table are the task sites' overflow: no sync site's */
	if (row == TP_LIVE_OVERFLOW)
		return;
	publish_site(row, site, false, sync);
	t->sync_row = (uint16_t)row;
}

/*
 * Task `t`, suspended since `suspended_ns`, is polled again at `now`: a wait at a sync
 * construct's site ended (its time into the site's row), and a mutual exclusion's is the one
 * whose section the poll's acquire begins (tp_live_task_acquire).
 */
static void sync_wait_ends(struct tp_span_task *t, uint64_t now, uint64_t suspended_ns)
{
	uint32_t row = t->sync_row;
	local.mutex_row = 0;
	if (row == 0)
		return;
	t->sync_row = 0;
	struct tp_live_site_stats *r = &local.rows[row];
	add(&r->sync_waits, 1);
	add(&r->sync_waited_ns, now >= suspended_ns ? now - suspended_ns : 0);
	if (t->sync == TP_SYNC_MUTEX)
		local.mutex_row = row;
}

/*
 * The polled fragment's part on the path goes on from `now` (split there by the engine:
 * tp_span_acquire, tp_span_release); readers see it from now.
 */
static void span_part_from(struct tp_live_thread *s, uint64_t now)
{
	local.span_from = now;
	set64(&s->open_start_ns, now);
	set64(&s->open_path_ns, local.span.in.ns);
	set64(&s->open_placed_ns, local.span.in.placed_ns);
}

/*
 * The polled task `task` acquires mutual exclusion `object` (of the contract's `kind`), at the
 * start of the poll its wait ended: the poll starts after the object's last release, and its
 * time on the path is the sync site's until the release.
 */
static void mutex_acquired(uint64_t task, uint32_t kind, uint64_t object)
{
	struct tp_live_thread *s = enter(TAKES_SLOT);
	if (s == NULL)
		return;
	if (task == local.polled_task && local.span.in_graph) {
		uint64_t now = now_ns();
		uint32_t row = local.mutex_row;
		if (row != 0) {
			if (__atomic_load_n(&sites[row].mutex_kind, __ATOMIC_RELAXED) != kind)
				__atomic_store_n(&sites[row].mutex_kind, kind, __ATOMIC_RELAXED);
			local.section_row = row;
		}
		tp_span_acquire(&local.span, task, now, now - local.span_from,
				row != 0 ? row : local.poll_row, object);
		span_part_from(s, now);
	}
	leave();
}

/* The polled task `task` releases `object`: the path to now is the object's next acquirer's. */
static void mutex_released(uint64_t task, uint64_t object)
{
	struct tp_live_thread *s = enter(TAKES_SLOT);
	if (s == NULL)
		return;
	if (task == local.polled_task && local.span.in_graph) {
		uint64_t now = now_ns();
		bool in_section = local.section_row != 0;
		tp_span_release(&local.span, task, now, now - local.span_from, in_section,
				local.poll_row, object);
		if (in_section)
			span_part_from(s, now);
		local.section_row = 0;
	}
	leave();
}

/*
 * The region of interest starts (`on`) or stops: each slot's computation, the placed length and
 * the time at its start are kept, and at its stop what the pair added (taskprobe_live.h). By
 * the program's thread that marks it, seldom: one at a time.
 */
static void region_of_interest(int on)
{
	static int lock;
	static struct tp_live_graph graph; /* a thread's computation each: too large a local */
	if (header == NULL || local.busy)
		return;
	tp_spin_lock(&lock);
	tp_guard_enter(&local.busy);
	uint64_t now = now_ns();
	bool going = __atomic_load_n(&header->roi_on, __ATOMIC_RELAXED) != 0;
	if (on != going) {
		tp_live_graph_read(header, slots, now, &graph);
		for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
			struct tp_live_thread *t = &slots[i];
			if (__atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) == TP_LIVE_SLOT_FREE)
				continue;
			uint64_t computation = tp_live_computation(t, now);
			if (on)
				set64(&t->roi_at_start_ns, computation);
			else
				set64(&t->roi_counted_ns,
				      t->roi_counted_ns +
					      tp_live_since(computation, t->roi_at_start_ns));
		}
		if (on) {
			set64(&header->roi_placed_at_start_ns, graph.placed_ns);
			set64(&header->roi_start_ns, now);
		} else {
			set64(&header->roi_placed_ns,
			      header->roi_placed_ns +
				      tp_live_since(graph.placed_ns,
						    header->roi_placed_at_start_ns));
			set64(&header->roi_run_ns,
			      header->roi_run_ns + tp_live_since(now, header->roi_start_ns));
			__atomic_store_n(&header->roi_pairs, header->roi_pairs + 1,
					 __ATOMIC_RELEASE);
		}
		__atomic_store_n(&header->roi_on, on ? 1u : 0u, __ATOMIC_RELEASE);
	}
	tp_guard_leave(&local.busy, false);
	tp_spin_unlock(&lock);
}

void tp_live_task_poll_start(uint64_t task)
{
	struct tp_live_thread *s = enter(TAKES_SLOT);
	if (s == NULL)
		return;
	uint64_t now = now_ns();
	struct task_entry *e = task_find(task);
	uint32_t row = NO_ROW;
	if (e != NULL) {
		row = __atomic_load_n(&e->row, __ATOMIC_RELAXED);
		struct tp_live_site_stats *r = &local.rows[row];
		uint64_t ready = __atomic_load_n(&e->ready_ns, __ATOMIC_RELAXED);
		uint64_t suspended = __atomic_load_n(&e->suspended_ns, __ATOMIC_RELAXED);
		/* suspended, then woken, then polled: idle until the wake, then a delay */
		uint64_t idle_until = ready != 0 ? ready : now;
		if (suspended != 0 && idle_until >= suspended)
			add(&r->idle_ns, idle_until - suspended);
		if (ready != 0 && now >= ready) {
			add(&r->delay_ns, now - ready);
			add(&r->delays, 1);
			histogram_add(r->delay_histogram, now - ready);
			set64(&e->ready_ns, 0);
		}
		set64(&e->suspended_ns, 0);
		struct tp_span_task *t = span_of(e);
		sync_wait_ends(t, now, suspended);
		struct tp_live_path frozen;
		bool barrier = tp_span_barrier_needs(t);
		if (barrier)
			barrier_join(suspended, now, &frozen);
		bool first = !t->started;
		uint64_t delay = tp_span_poll_start(t, &local.span, task, row, now, suspended,
						    barrier ? &frozen : NULL);
		if (first)
			cost_histogram_add(r->start_delay_histogram, delay);
	} else {
		local.span.in_graph = false; /* untracked: left out of the figures */
	}
	local.polled = e;
	local.polled_task = task;
	local.poll_start = now;
	local.span_from = now;
	local.section_row = 0;
	local.work_counted_to = now;
	local.poll_row = row;
	local.poll_region = e != NULL ? __atomic_load_n(&e->region, __ATOMIC_RELAXED) : 0;
	if (local.span.in_graph) {
		/* the fragment going on now, for readers (tp_live_graph_read): published last */
		if (s->graph_first_ns == 0)
			set64(&s->graph_first_ns, now);
		if (row == TP_LIVE_NO_SITE && initial_slot != s)
			__atomic_store_n(&initial_slot, s, __ATOMIC_RELEASE);
		set64(&s->open_start_ns, now);
		set64(&s->open_path_ns, local.span.in.ns);
		set64(&s->open_placed_ns, local.span.in.placed_ns);
		set32(&s->open_region, local.poll_region);
		__atomic_store_n(&s->open_counted_ns, now, __ATOMIC_RELEASE);
	}
	set32(&s->site, row == NO_ROW ? TP_LIVE_OVERFLOW : row);
	set64(&s->state_since, now);
	set32(&s->state, TP_LIVE_POLLING);
	leave();
}

/*
 * Task `task`'s poll ends (`done`: it finished), waiting in `sync` at the sync construct's site
 * `site` (0: none) when it did not.
 */
static void poll_ended(uint64_t task, uint32_t done, uint32_t sync, uint32_t site)
{
	struct tp_live_thread *s = enter(TAKES_SLOT);
	if (s == NULL)
		return;
	uint64_t now = done && local.terminated_task == task ? local.terminated_ns : now_ns();
	local.terminated_task = 0;
	if (local.polled_task == task) {
		uint64_t d = now - local.poll_start;
		if (local.poll_row != NO_ROW) {
			struct tp_live_site_stats *r = &local.rows[local.poll_row];
			add(&r->polls, 1);
			add(&r->busy_ns, d);
			histogram_add(r->poll_histogram, d);
			if (d > r->longest_poll_ns)
				set64(&r->longest_poll_ns, d);
			if (d >= long_poll_ns)
				add(&r->long_polls, 1);
		}
		add(&s->busy_ns, d);
		add(&s->polls, 1);
		/* an unfinished task's entry is still its own; a finished one's may be another's */
		bool suspended = !done && local.polled != NULL &&
				 __atomic_load_n(&local.polled->task, __ATOMIC_ACQUIRE) == task;
		if (suspended) {
			set64(&local.polled->suspended_ns, now);
			set64(&local.polled->polled_ns, local.polled->polled_ns + d);
			sync_wait_begins(span_of(local.polled), sync, site);
		}
		if (local.span.in_graph) {
			count_work(now);
			set64(&s->open_counted_ns, 0);
			if (local.poll_region != 0)
				add(&local.rows[local.poll_region].region_ns, d);
			set64(&s->graph_last_ns, now);
			/* a finished task's end was its terminate's (span_ended) */
			if (suspended) {
				tp_span_poll_end(span_of(local.polled), &local.span, task,
						 now - local.span_from, now, sync);
				slot_longest(s, &local.span.in);
			}
		}
	}
	local.span.in_graph = false;
	local.polled = NULL;
	local.polled_task = 0;
	local.poll_row = NO_ROW;
	set64(&s->state_since, now);
	set32(&s->state, TP_LIVE_RUNNING);
	leave();
}

void tp_live_task_poll_end(uint64_t task, uint32_t done, uint32_t sync, uint32_t site)
{
	poll_ended(task, done, sync, site);
}

/*
 * Task `task` of entry `e` ends at `now`: returns the path to its end (its last fragment, polled
 * by this thread now or ended before); the thread's slot and its parent are told.
 */
static const struct tp_live_path *span_ended(struct task_entry *e, uint64_t task, uint64_t now)
{
	struct tp_span_task *t = span_of(e);
	const struct tp_live_path *end = &t->in; /* ended unpolled (a detached task's event) */
	if (task == local.polled_task && local.span.in_graph) {
		count_work(now);
		tp_span_poll_end(NULL, &local.span, task, now - local.span_from, now, TP_SYNC_NONE);
		end = &local.span.in;
	}
	slot_longest(local.slot, end);
	/* the parent's entry, if it is still the parent's (its end frees it) */
	struct task_entry *p = t->parent_at != 0 ? &tasks[t->parent_at - 1] : NULL;
	if (p != NULL && __atomic_load_n(&p->task, __ATOMIC_ACQUIRE) == t->parent)
		tp_span_child_ended(span_of(p), &p->task, t->parent, t, end);
	return end;
}

void tp_live_task_terminate(uint64_t task)
{
	struct task_entry *e = task_find(task);
	if (e == NULL) /* untracked since its spawn */
		return;
	uint32_t row = __atomic_load_n(&e->row, __ATOMIC_RELAXED);
	/* the entry is freed even when the end cannot be counted, so that it is not left taken */
	uint32_t span = __atomic_load_n(&e->span, __ATOMIC_RELAXED);
	if (enter(TAKES_SLOT) == NULL) {
		__atomic_store_n(&e->task, 0, __ATOMIC_RELEASE);
		if (!local.busy) /* else a signal handler's: its state is left (counted) */
			tp_span_free(&local.span_cache, span);
		return;
	}
	uint64_t now = now_ns();
	add(&local.rows[row].done, 1);
	set64(&local.rows[row].last_done_ns, now);
	/* its time: its polls, the one it ends in (terminate comes before its poll-end) too */
	uint64_t polled = __atomic_load_n(&e->polled_ns, __ATOMIC_RELAXED);
	if (task == local.polled_task) {
		polled += now - local.poll_start;
		local.terminated_task = task;
		local.terminated_ns = now;
	}
	if (polled > 0) /* none counted (its polls ran on threads without a slot): no time */
		cost_histogram_add(local.rows[row].task_time_histogram, polled);
	const struct tp_live_path *ended = span_ended(e, task, now);
	struct tp_live_path end = {0};
	if (ended != NULL && __atomic_load_n(&dependences_seen, __ATOMIC_RELAXED))
		end = *ended; /* the entry's may be another task's once freed */
	unsigned edges = __atomic_load_n(&span_of(e)->successors, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&dependences_seen, __ATOMIC_RELAXED)) {
		__atomic_store_n(&e->task, 0, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&e->task, 0, __ATOMIC_SEQ_CST);
		/* a successor being made now counts its edge after this free, or sees it
		 * (task_dependence); the state is this task's until freed below */
		unsigned now_edges = __atomic_load_n(&span_of(e)->successors, __ATOMIC_SEQ_CST);
		edges = now_edges > edges ? now_edges : edges;
		if (ended != NULL && edges > 0)
			successors_follow(task, edges, &end);
	}
	tp_span_free(&local.span_cache, span);
	leave();
}

void tp_live_worker(int started)
{
	local.worker = started != 0;
	struct tp_live_thread *s = enter(TAKES_SLOT);
	if (s == NULL)
		return;
	set32(&s->worker, started != 0 ? TP_LIVE_WORKER : TP_LIVE_WORKER_ENDED);
	leave();
}

/*
 * A worker's park (an executor's barrier, taskwait or taskgroup; a named worker's wait) takes
 * the thread a slot; its time is not counted as parked: an executor spins and runs other tasks
 * in its waits (libomp does, for its block time). Parked is what the waits below count.
 */
void tp_live_park(int parked)
{
	local.worker_parked = parked != 0;
	if (enter(TAKES_SLOT) != NULL)
		leave();
}

/*
 * The entry of wait call site `key` (kind `kind` if it is new): found from a hash of the key,
 * claimed by setting its key; the last entry when the table has no room (its figures count every
 * site without one). NULL for key 0.
 */
static struct tp_live_wait_site *wait_site(uint32_t key, uint32_t kind)
{
	if (key == 0)
		return NULL;
	const uint32_t slots = TP_LIVE_WAIT_SITES - 1; /* the last is the overflow's */
	for (uint32_t n = 0, i = tp_hash_slot(key, 32) % slots; n < slots;
	     n++, i = (i + 1) % slots) {
		struct tp_live_wait_site *e = &wait_sites[i];
		uint32_t seen = __atomic_load_n(&e->site_key, __ATOMIC_ACQUIRE);
		if (seen == key)
			return e;
		if (seen != 0 || !__atomic_compare_exchange_n(&e->site_key, &seen, key, false,
							      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			if (seen == key) /* another thread claimed it for this key meanwhile */
				return e;
			continue;
		}
		uintptr_t address = tp_spawn_site_key_address(key);
		e->kind = kind;
		e->address = address;
		e->module = module_entry(address);
		__atomic_store_n(&e->state, TP_LIVE_ENTRY_READY, __ATOMIC_RELEASE);
		return e;
	}
	struct tp_live_wait_site *overflow = &wait_sites[slots];
	if (__atomic_load_n(&overflow->state, __ATOMIC_ACQUIRE) != TP_LIVE_ENTRY_READY) {
		overflow->module = TP_LIVE_NO_MODULE;
		__atomic_store_n(&overflow->state, TP_LIVE_ENTRY_READY, __ATOMIC_RELEASE);
	}
	return overflow;
}

/*
 * Every thread's waits count at their call sites (wait_site), whether the thread has a slot or
 * not. A thread takes a slot (without rows) at its first wait, among the
 * TP_LIVE_WAITING_THREADS a thread that only waits may take, so that a program without tasks
 * has its threads listed with their waits. For a thread with a slot, its time parked is its
 * time blocked in the kernel: inside an interposed wait while it polls no task (a wait inside a
 * poll is the task's, and blocks the worker: busy).
 */
void tp_live_wait_start(uint32_t kind, uint64_t task, uint32_t site)
{
	if (local.busy)
		return; /* a signal handler's wait inside an update: not counted */
	uint64_t now = now_ns();
	bool outermost = local.waits++ == 0;
	if (outermost) {
		local.wait_since = now;
		local.wait_kind = kind;
		local.wait_site = wait_site(site, kind);
		if (local.wait_site != NULL)
			__atomic_add_fetch(&local.wait_site->waiting, 1, __ATOMIC_RELAXED);
	}
	struct tp_live_thread *s = enter(WAITING_SLOT);
	if (s == NULL)
		return;
	set64(&s->wait_since, now);
	set64(&s->wait_task, task);
	if (site_ready(local.wait_site)) {
		set64(&s->wait_address, local.wait_site->address);
		set32(&s->wait_module, local.wait_site->module);
	} else {
		set64(&s->wait_address, 0);
	}
	set32(&s->wait_kind, kind);
	if (task != 0 && task == local.polled_task && local.poll_row != NO_ROW)
		add(&local.rows[local.poll_row].blocking_waits, 1);
	local.parked = outermost ? local.polled_task == 0 : local.parked;
	if (outermost && local.parked) {
		set64(&s->state_since, now);
		set32(&s->state, TP_LIVE_PARKED);
	}
	leave();
}

/* Adds a wait of `ns` nanoseconds, by thread `tid`, to `e`'s figures. */
static void wait_site_add(struct tp_live_wait_site *e, uint64_t ns, uint32_t tid)
{
	__atomic_add_fetch(&e->waits, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&e->total_ns, ns, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&e->waiting, 1, __ATOMIC_RELAXED);
	__atomic_fetch_or(&e->threads, 1ull << (tid % 64), __ATOMIC_RELAXED);
	uint64_t longest = __atomic_load_n(&e->longest_ns, __ATOMIC_RELAXED);
	while (ns > longest && !__atomic_compare_exchange_n(&e->longest_ns, &longest, ns, true,
							    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/*
 * An ended outermost wait of `ns` at `site` (NULL: none) in the thread's slot `s`. A reader may
 * see the longest wait's time and its site a wait apart.
 */
static void thread_waited(struct tp_live_thread *s, uint64_t ns,
			  const struct tp_live_wait_site *site)
{
	add(&s->waits, 1);
	add(&s->waited_ns[local.wait_kind % TP_LIVE_WAIT_KINDS], ns);
	if (ns <= s->longest_wait_ns)
		return;
	set64(&s->longest_wait_ns, ns);
	set32(&s->longest_wait_kind, local.wait_kind);
	bool ready = site_ready(site);
	set64(&s->longest_wait_address, ready ? site->address : 0);
	set32(&s->longest_wait_module, ready ? site->module : TP_LIVE_NO_MODULE);
}

void tp_live_wait_end(uint64_t task)
{
	if (local.busy || local.waits == 0)
		return;
	uint64_t now = now_ns();
	bool outermost = --local.waits == 0;
	const struct tp_live_wait_site *site = local.wait_site;
	if (outermost && site != NULL) {
		wait_site_add(local.wait_site, now - local.wait_since, (uint32_t)tp_thread_tid());
		local.wait_site = NULL;
	}
	struct tp_live_thread *s = enter(HAS_SLOT_ONLY);
	if (s == NULL)
		return;
	if (outermost)
		thread_waited(s, now - local.wait_since, site);
	if (task != 0 && task == local.polled_task && local.poll_row != NO_ROW)
		add(&local.rows[local.poll_row].blocking_ns, now - s->wait_since);
	set32(&s->wait_kind, 0);
	set64(&s->wait_task, 0);
	if (outermost && local.parked && s->state == TP_LIVE_PARKED) {
		add(&s->parked_ns, now - s->state_since);
		set64(&s->state_since, now);
		set32(&s->state, TP_LIVE_RUNNING);
	}
	leave();
}

/* Kept until the thread takes a slot, with the module the console names it in. */
void tp_live_thread_start(uintptr_t start_routine)
{
	if (local.busy)
		return;
	tp_guard_enter(&local.busy);
	local.start_module = module_entry(start_routine);
	local.start_routine = start_routine;
	local.started_ns = now_ns();
	leave();
}

/* Its slot, if it has one, shows the name it gave itself (read when it took the slot). */
void tp_live_thread_renamed(void)
{
	struct tp_live_thread *s = enter(HAS_SLOT_ONLY);
	if (s == NULL)
		return;
	char name[sizeof s->name];
	tp_thread_read_name(name);
	for (size_t i = 0; i < sizeof name; i++)
		__atomic_store_n(&s->name[i], name[i], __ATOMIC_RELAXED);
	leave();
}

void tp_live_thread_stop(uint64_t tid)
{
	/* its tasks' states go back to the pool, for the threads that go on */
	if (!local.busy && tid == (uint64_t)tp_thread_tid())
		tp_span_cache_flush(&local.span_cache);
	struct tp_live_thread *s = local.slot;
	if (s == NULL || local.busy || s->tid != tid)
		return; /* the exit stops other threads: their slots stay theirs */
	set32(&s->wait_kind, 0);
	/* at exit, the moment the exit began: the figures' end, for the recording's analysis too
	 * (a thread that exits inside a poll stops after the destructors) */
	uint64_t now = tp_live_now();
	/* a fragment its thread never ended (stopped inside a poll) ends with it: its work, and
	 * its path, which readers no longer count as open */
	if (s->open_counted_ns != 0 && local.rows != NULL) {
		struct tp_live_path mine;
		bool open = tp_live_current_path(now, &mine);
		tp_guard_enter(&local.busy);
		if (open)
			slot_longest(s, &mine);
		if (now > local.work_counted_to)
			count_work(now);
		/* its region's computation counts its polls once ended (poll_ended) */
		if (local.poll_region != 0 && now > local.poll_start)
			add(&local.rows[local.poll_region].region_ns, now - local.poll_start);
		set64(&s->graph_last_ns, now);
		set64(&s->open_counted_ns, 0);
		tp_guard_leave(&local.busy, false);
	}
	set64(&s->ended_ns, now);
	local.slot = NULL;
	local.ended = true;
	__atomic_store_n(&s->in_use, TP_LIVE_SLOT_ENDED, __ATOMIC_RELEASE);
}

/* The statistics' layout in `m`, the file's or memory's, TP_LIVE_FILE_SIZE bytes. */
static void fill_header(void *m)
{
	map = m;
	header = (struct tp_live_header *)map;
	sites = (struct tp_live_site *)(map + TP_LIVE_SITES_OFFSET);
	stacks = (struct tp_live_stack *)(map + TP_LIVE_STACKS_OFFSET);
	modules = (struct tp_live_module *)(map + TP_LIVE_MODULES_OFFSET);
	wait_sites = (struct tp_live_wait_site *)(map + TP_LIVE_WAITS_OFFSET);
	slots = (struct tp_live_thread *)(map + TP_LIVE_THREADS_OFFSET);
	header->version = TP_LIVE_VERSION;
	header->header_size = sizeof *header;
	header->file_size = TP_LIVE_FILE_SIZE;
	header->pid = (uint32_t)tp_process()->pid;
	header->start_ticks = tp_process()->start_ticks;
	header->kept = tp_settings()->live == TP_LIVE_KEEP;
	if (tp_openmp_libgomp_on_libomp())
		header->notes |= TP_LIVE_NOTE_LIBGOMP_ON_LIBOMP;
	header->clock = tp_clock_is_tsc ? TP_LIVE_CLOCK_TSC : TP_LIVE_CLOCK_MONOTONIC;
	header->tsc_at_start = tsc_at_start;
	header->ns_at_start = ns_at_start;
	header->ns_per_tsc_2_32 = ns_per_tsc_2_32;
	header->long_poll_ns = long_poll_ns;
	header->rows_offset = TP_LIVE_ROWS_OFFSET;
	header->rows_stride = TP_LIVE_ROWS_STRIDE;
	header->pid_namespace = tp_process()->pid_namespace;
	tp_thread_read_name(header->comm);
	memcpy(header->magic, TP_LIVE_MAGIC, sizeof header->magic);
}

/* Makes the file and maps it; false (said) when it cannot. */
static bool open_live(void)
{
	if (tp_live_file_make(fill_header) != NULL)
		return true;
	map = NULL;
	header = NULL;
	return false;
}

/*
 * The statistics in the process's memory alone, for the exit report's work and span
 * (TASKPROBE_REPORT without TASKPROBE_LIVE): no file, no reader.
 */
static bool open_in_memory(void)
{
	void *m = reserve(NULL, TP_LIVE_FILE_SIZE);
	if (m == NULL)
		return false;
	fill_header(m);
	return true;
}

/* Fresh tables of tasks alive, their work and span, and dependences. */
static bool map_tasks(void)
{
	tasks = reserve(NULL, TASKS_BYTES);
	spans = reserve(NULL, SPANS_BYTES);
	if (spans != NULL)
		tp_span_pool_start(spans, SPANS);
	dependences = reserve(NULL, DEPENDENCES_BYTES);
	tp_span_forks_start(forks, TP_LIVE_SITES);
	mutexes = reserve(NULL, MUTEXES_BYTES);
	if (mutexes != NULL)
		tp_span_mutexes_start(mutexes);
	return tasks != NULL && spans != NULL && dependences != NULL && mutexes != NULL;
}

const struct tp_live_header *tp_live_header(void)
{
	return header;
}

uint64_t tp_live_now(void)
{
	return now_ns(); /* the exit's start once it began */
}

bool tp_live_current_path(uint64_t now, struct tp_live_path *out)
{
	if (header == NULL || local.polled_task == 0 || !local.span.in_graph || local.busy ||
	    now < local.span_from)
		return false;
	*out = local.span.in;
	tp_span_path_extend(out, local.span.site_at, now - local.span_from, true);
	out->ended_ns = now;
	return true;
}

void tp_live_start(void)
{
	const struct tp_settings *s = tp_settings();
	if (s->live == TP_LIVE_OFF && s->report == NULL)
		return;
	int saved_errno = errno;
	long_poll_ns = (uint64_t)s->live_long_poll_us * 1000u;
	tp_clock_pair(&tsc_at_start, &ns_at_start);
	in_memory = s->live == TP_LIVE_OFF; /* the exit report's work and span only */
	if (in_memory) {
		if (map_tasks() && open_in_memory())
			tp_listeners_in_process_add(TP_IN_PROCESS_LIVE);
		errno = saved_errno;
		return;
	}
	if (!tp_live_file_directory()) {
		errno = saved_errno;
		return;
	}
	if (map_tasks() && open_live())
		tp_listeners_in_process_add(TP_IN_PROCESS_LIVE);
	errno = saved_errno;
}

/*
 * Whether the calling process is the file's: not a child made without fork handlers (vfork,
 * _Fork, a raw clone), which has its parent's memory and the file's mapping with it.
 */
static bool in_files_process(void)
{
	return header != NULL && tp_process_is_current();
}

/* A moment read by tp_clock_now in the statistics' clock. */
static uint64_t ns_of_clock(uint64_t clock_time)
{
#if defined(__x86_64__)
	if (tp_clock_is_tsc) {
		uint64_t rate = __atomic_load_n(&ns_per_tsc_2_32, __ATOMIC_ACQUIRE);
		/* the counter's rate not timed yet (the first 2 ms): now is as near */
		return rate != 0 ? tp_live_tsc_ns(clock_time, tsc_at_start, ns_at_start, rate)
				 : now_ns();
	}
#endif
	return clock_time; /* CLOCK_MONOTONIC's nanoseconds */
}

void tp_live_before_destructors(uint64_t clock_time)
{
	if (!in_files_process())
		return;
	__atomic_store_n(&exit_began_ns, ns_of_clock(clock_time), __ATOMIC_RELEASE);
	exit_rate = __atomic_exchange_n(&ns_per_tsc_2_32, 0, __ATOMIC_ACQ_REL);
}

/*
 * The process ends: its file is marked, and removed unless it is to be kept for a reader, or a
 * system call filter may refuse the removal (the next program's sweep removes it).
 */
static void ended(void)
{
	if (!in_files_process())
		return;
	uint64_t now = tp_live_now();
	/* an exit inside a poll: the path through the exiting thread's fragment, its sites whole,
	 * is its slot's for the console (which reads an open fragment's lengths only) */
	struct tp_live_path mine;
	if (local.slot != NULL && tp_live_current_path(now, &mine)) {
		tp_guard_enter(&local.busy);
		slot_longest(local.slot, &mine);
		tp_guard_leave(&local.busy, false);
	}
	__atomic_store_n(&header->exited_ns, now, __ATOMIC_RELAXED);
	__atomic_store_n(&header->exited, 1, __ATOMIC_RELEASE);
	if (tp_settings()->live != TP_LIVE_KEEP && !in_memory && !tp_process_filtered())
		tp_live_file_remove();
}

void tp_live_after_report(void)
{
	if (in_memory)
		tp_listeners_in_process_remove(TP_IN_PROCESS_LIVE);
}

void tp_live_at_exit(void)
{
	ended();
}

void tp_live_before_quick_exit(void)
{
	ended();
}

/* Before an exec: the file is marked ended, for a console that follows the pid's next one. */
void tp_live_before_exec(void)
{
	if (in_files_process()) {
		__atomic_store_n(&header->exited_ns, now_ns(), __ATOMIC_RELAXED);
		__atomic_store_n(&header->exited, 1, __ATOMIC_RELEASE);
	}
}

/* The exec failed: the process goes on. */
void tp_live_exec_failed(void)
{
	if (in_files_process())
		__atomic_store_n(&header->exited, 0, __ATOMIC_RELEASE);
}

/*
 * The child of fork: a file of its own, as a new process; the parent's is left alone. Under a
 * system call filter, which may refuse making one, the child keeps no statistics (it stops
 * counting into the parent's mapping, which stays mapped: unmapping is a call too).
 */
void tp_live_child_after_fork(void)
{
	if (header == NULL)
		return;
	/* a fork from a destructor: the child's exit is its own, at the rate timed before */
	if (exit_began_ns != 0) {
		exit_began_ns = 0;
		ns_per_tsc_2_32 = exit_rate;
	}
	if (tp_process_filtered()) {
		tp_listeners_in_process_remove(TP_IN_PROCESS_LIVE);
		header = NULL;
		return;
	}
	/*
	 * The parent's mappings are covered, not unmapped: a fork from a signal handler that
	 * interrupted an update returns to code that still writes through them.
	 */
	mmap(map, TP_LIVE_FILE_SIZE, PROT_READ | PROT_WRITE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	reserve(tasks, TASKS_BYTES);
	reserve(spans, SPANS_BYTES);
	tp_span_pool_start(spans, SPANS);
	reserve(dependences, DEPENDENCES_BYTES);
	tp_span_forks_start(forks, TP_LIVE_SITES);
	initial_slot = NULL;
	reserve(mutexes, MUTEXES_BYTES);
	tp_span_mutexes_start(mutexes);
	barrier_lock = 0;
	dependences_seen = false;
	barrier_frozen_ns = 0;
	memset(&barrier_frozen, 0, sizeof barrier_frozen);
	header = NULL;
	memset(&local, 0, sizeof local);
	stacks_lock = 0;
	stacks_ready = false;
	/* the child's statistics begin now, at the rate timed at start */
	tp_clock_pair(&tsc_at_start, &ns_at_start);
	if (!(in_memory ? open_in_memory() : open_live()))
		tp_listeners_in_process_remove(TP_IN_PROCESS_LIVE);
}

/* Mutual exclusion and the region of interest (issue 35): the engine's, above. */
void tp_live_task_acquire(uint64_t task, uint32_t kind, uintptr_t object)
{
	mutex_acquired(task, kind, object);
}

void tp_live_task_release(uint64_t task, uint32_t kind, uintptr_t object)
{
	(void)kind;
	mutex_released(task, object);
}

void tp_live_region_of_interest(uint32_t on)
{
	region_of_interest(on != 0);
}
