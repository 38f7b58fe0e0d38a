// SPDX-License-Identifier: MIT
/*
 * Live statistics (live.h), the per-event statistics of tasks: their hot path, with the table of
 * tasks alive that carries a task's site and times from one event to the next (a task's events
 * come on several threads: wake on one, polls on others), and the task sites' rows. What the
 * other files do: live_private.h.
 */
#define _GNU_SOURCE
#include "live_private.h"

#include <errno.h>

#include "in_process_consumers.h"
#include "listeners.h"
#include "live_file.h"
#include "live_sync_waits.h"
#include "settings.h"
#include "spawn_site.h"
#include "thread_identity.h"

_Static_assert(TP_WAIT_KINDS < TP_LIVE_WAIT_KINDS, "a slot counts every kind's waits");
_Static_assert(TP_LIVE_STACK_FRAMES == TP_STACK_DEPTH_MAX,
	       "a sampled stack keeps TASKPROBE_STACK_DEPTH's most frames (settings.h)");

/* Bucket b of a log2 histogram counts [2^b, 2^(b+1)) ns, the last one longer too. */
#define LOG2_BUCKET(l) ((l) < TP_LIVE_BUCKETS ? (l) : TP_LIVE_BUCKETS - 1)
/* A cost histogram's bucket b is log2 bucket b + TP_LIVE_COST_SHIFT: the first counts shorter
 * costs, the last longer ones. */
#define COST_BUCKET(l)                                                                             \
	((l) <= TP_LIVE_COST_SHIFT                       ? 0                                       \
	 : (l)-TP_LIVE_COST_SHIFT < TP_LIVE_COST_BUCKETS ? (l)-TP_LIVE_COST_SHIFT                  \
							 : TP_LIVE_COST_BUCKETS - 1)
#define BUCKETS_4(M, l) M(l), M(l + 1), M(l + 2), M(l + 3)
#define BUCKETS_16(M, l)                                                                           \
	BUCKETS_4(M, l), BUCKETS_4(M, l + 4), BUCKETS_4(M, l + 8), BUCKETS_4(M, l + 12)
#define BUCKETS_64(M) BUCKETS_16(M, 0), BUCKETS_16(M, 16), BUCKETS_16(M, 32), BUCKETS_16(M, 48)
const uint8_t log2_bucket[64] = {BUCKETS_64(LOG2_BUCKET)};
const uint8_t cost_bucket[64] = {BUCKETS_64(COST_BUCKET)};

/*
 * The row of task site `site` (rows_by_site's), the calling thread's last two answers
 * remembered: a spawn asks twice (whether its stack is sampled, then its spawn), a recursive
 * task often spawns at two sites by turns (fib's two calls), and a site's row never changes once
 * given (a fork's child keeps them; its threads' remembered rows start at site 0's,
 * TP_LIVE_NO_SITE). The older answer gives way.
 */
static __attribute__((noinline)) uint32_t task_row_asked(uint32_t site)
{
	local.row_site[1] = local.row_site[0];
	local.site_row[1] = local.site_row[0];
	local.site_row[0] = live_row_in(rows_by_site, site);
	local.row_site[0] = site;
	return local.site_row[0];
}

/* task_row_asked apart: the callers' common case keeps nothing across a call. */
static inline uint32_t task_row(uint32_t site)
{
	if (__builtin_expect(site == local.row_site[0], 1))
		return local.site_row[0];
	if (__builtin_expect(site == local.row_site[1], 1))
		return local.site_row[1];
	return task_row_asked(site);
}

/* Claims an entry for `task` and fills it; its id is published last, with the entry whole. NULL
 * when every window of its homes is full (counted). */
static struct task_entry *task_insert(uint64_t task, uint32_t row, uint32_t region,
				      struct tp_span_task *span, uint64_t ready_ns)
{
	struct task_entry *e = task_claim(task_home(task));
	if (__builtin_expect(e == NULL, 0))
		e = task_claim_displaced(task);
	if (e == NULL) {
		count(&header->tasks_untracked);
		return NULL;
	}
	__atomic_store_n(&e->row, (uint16_t)row, __ATOMIC_RELAXED);
	__atomic_store_n(&e->region, (uint16_t)region, __ATOMIC_RELAXED);
	__atomic_store_n(&e->span, tp_span_offset(span), __ATOMIC_RELAXED);
	set64(&span->ready_ns, ready_ns);
	set64(&span->suspended_ns, 0);
	set64(&span->polled_ns, 0);
	__atomic_store_n(&e->task, task, __ATOMIC_RELEASE);
	return e;
}

/*
 * The slot's longest path becomes `end` if it is longer; its placed length is the longest placed
 * one ended on the slot, whichever path had it. At every poll's end and task's end: inlined up to
 * the copy, which a path not longer skips.
 */
static inline __attribute__((always_inline)) void slot_longest(struct tp_live_thread *s,
							       const struct tp_live_path *end)
{
	if (end->placed_ns > s->longest.placed_ns)
		set64(&s->longest.placed_ns, end->placed_ns);
	if (end->ns > s->longest.ns)
		live_slot_longest_is(s, end);
}

/* At every spawn: a site published already (all but its first) costs a load. */
static inline void publish_site(uint32_t row, uint32_t site, bool by_program, uint32_t sync)
{
	if (__builtin_expect(
		    __atomic_load_n(&sites[row].state, __ATOMIC_RELAXED) != TP_LIVE_ENTRY_EMPTY, 1))
		return;
	live_publish_site_first(row, site, by_program, sync);
}

/*
 * The polled fragment's time up to `now` into the slot's work, at the poll's end (and the
 * thread's stop inside one). Not at a spawn or the task's end, though they extend paths by that
 * time: every reader counts a fragment going on up to its own now (tp_live_open_fragment: the
 * work_ns here and the time since open_counted_ns), the same sum whenever the work was counted,
 * so that a fragment still open when the program exits (exit inside a parallel region), which
 * put its time up to its last spawn on the paths of the tasks it spawned, is in the work too
 * (span <= work).
 */
static void count_work(uint64_t now)
{
	struct tp_live_thread *s = local.slot;
	add(&s->work_ns, now - local.work_counted_to);
	local.work_counted_to = now;
	__atomic_store_n(&s->open_counted_ns, now, __ATOMIC_RELEASE);
}

/*
 * The polled fragment pauses at `now`: its thread waits in an MPI call (work_span.h's
 * tp_span_wait_pauses). Its time up to here is counted, and readers count none after it
 * (taskprobe_live.h's open_paused) until it goes on (live_fragment_resumes).
 */
void live_fragment_pauses(struct tp_live_thread *s, uint64_t now)
{
	if (!local.span.in_graph || local.paused_at != 0 || now < local.work_counted_to)
		return;
	count_work(now);
	local.paused_at = now;
	__atomic_store_n(&s->open_paused, 1, __ATOMIC_RELEASE);
}

/*
 * The paused fragment goes on at `now`, its wait over: its poll, its part on the path and its
 * publication (the initial task's too) start later by the wait, so that every length taken from
 * them leaves the wait out, as a reader did meanwhile.
 */
void live_fragment_resumes(struct tp_live_thread *s, uint64_t now)
{
	uint64_t paused = local.paused_at;
	if (paused == 0)
		return;
	local.paused_at = 0;
	uint64_t wait = now > paused ? now - paused : 0;
	if (local.span.in_graph) {
		local.poll_start += wait;
		local.span_from += wait;
		local.work_counted_to = now;
		uint64_t start = s->open_start_ns;
		if (local.poll_row == TP_LIVE_NO_SITE)
			live_initial_path_moves(start, start + wait);
		set64(&s->open_start_ns, start + wait);
		__atomic_store_n(&s->open_counted_ns, now, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&s->open_paused, 0, __ATOMIC_RELEASE);
}

/* The polled fragment's time goes on up to `now`, or stopped at its pause. */
static inline uint64_t fragment_to(uint64_t now)
{
	return local.paused_at != 0 && local.paused_at < now ? local.paused_at : now;
}

/*
 * A new task's start in the task graph: its parent's fragment up to now when this thread polls
 * the parent, else the parent's last fragment's end; none for OpenMP's initial task (no parent,
 * no site). An implicit task of a parallel region (`implicit`: tp_span_region_task) on the
 * region's primary publishes its start as the region's fork; on another thread it has no
 * parent, and joins that fork (tp_span_fork). `around`: the parent's region row (0: none).
 */
static void span_spawned(struct task_entry *e, uint64_t parent, bool implicit, uint32_t around,
			 bool by_program, bool undeferred, bool ready, uint64_t now)
{
	struct task_entry *p = NULL;
	struct tp_span_thread *th = NULL;
	const struct tp_live_path *in = NULL;
	struct tp_live_path so_far;
	uint32_t row = __atomic_load_n(&e->row, __ATOMIC_RELAXED), fork_row = 0;
	switch (tp_span_spawn_from(parent != 0, parent == local.polled_task, implicit)) {
	case TP_SPAN_FROM_FRAGMENT:
		p = local.polled;
		th = local.span.in_graph ? &local.span : NULL;
		if (p != NULL) {
			struct tp_span_task *ps = span_of(p);
			ps->ran_undeferred |= tp_span_spawn_nests(TP_SPAN_FROM_FRAGMENT, undeferred,
								  by_program) &&
					      th != NULL;
			ps->spawner = true;
		}
		break;
	case TP_SPAN_FROM_LAST:
		p = task_find(parent);
		struct tp_span_task *ps = p != NULL ? span_of(p) : NULL;
		in = ps != NULL && ps->started ? &ps->in : NULL;
		if (ps != NULL)
			ps->spawner = true;
		break;
	case TP_SPAN_FROM_FORK:
		fork_row = row;
		if (live_initial_so_far(now, tp_span_fork_at(row), &so_far))
			in = &so_far;
		break;
	case TP_SPAN_FROM_NOTHING:
		break;
	}
	struct tp_span_task *t = span_of(e);
	tp_span_spawned(t, parent, p != NULL ? (uint32_t)(p - tasks) + 1 : 0, fork_row, th,
			now - local.span_from, now, in, by_program && ready);
	if (tp_span_publishes_fork(implicit, parent != 0)) {
		tp_span_fork(row, &t->in);
		live_region_forked(t, __atomic_load_n(&e->task, __ATOMIC_RELAXED), row, around,
				   now);
	}
}

/* The region row of a new task's parent `parent` (0: none, or outside every region). */
static uint32_t region_around(uint64_t parent)
{
	if (parent == 0)
		return 0;
	if (parent == local.polled_task)
		return local.poll_region;
	const struct task_entry *p = task_find(parent);
	return p != NULL ? __atomic_load_n(&p->region, __ATOMIC_RELAXED) : 0;
}

void tp_live_task_spawn(uint64_t task, uint64_t parent, uint32_t site, bool by_program,
			bool undeferred, bool ready, uint64_t at)
{
	if (enter(TAKES_SLOT) == NULL)
		return;
	uint32_t row = task_row(site);
	uint64_t now = ns_at(at);
	publish_site(row, site, by_program, 0);
	local.spawn_row = row;
	/* its region: its own site's row for a region's implicit task, else its parent's */
	uint32_t around = region_around(parent);
	bool implicit = tp_span_region_task(!by_program && site != 0, undeferred, around != 0);
	/* a task the table cannot keep is counted apart: its end could not be matched */
	struct tp_span_task *span = tp_span_alloc(&local.span_cache);
	struct task_entry *e = span != NULL ? task_insert(task, row, implicit ? row : around, span,
							  ready ? now : 0)
					    : NULL;
	if (e == NULL && span != NULL)
		tp_span_free(&local.span_cache, span);
	else if (span == NULL)
		count(&header->tasks_untracked);
	if (e != NULL) {
		local.spawned = e;
		struct tp_live_site_stats *r = &local.rows[row];
		add(&r->spawned, 1);
		/* the spawn cost (taskprobe_figures.h): the gap since the poll's last spawn; not one
		 * that holds the stack the live statistics sampled at this spawn, before its event
		 * (the shim's work: a site's first unwinds run cold, hundreds of us, and a loaded
		 * machine may preempt them; a site of two tasks was judged too small by it) */
		if (parent != 0 && parent == local.polled_task && local.span.in_graph) {
			if (local.last_spawn_ns >= local.poll_start && local.last_spawn_ns != 0 &&
			    !local.sample_stack)
				cost_histogram_add(r->spawn_gap_histogram,
						   now - local.last_spawn_ns);
			local.last_spawn_ns = now;
		}
		if (r->first_spawn_ns == 0)
			set64(&r->first_spawn_ns, now);
		span_spawned(e, parent, implicit, around, by_program, undeferred, ready, now);
	}
	leave();
}

/* At every spawn, before it: local.rows read after task_row, which may call. */
int tp_live_wants_stack(uint32_t site)
{
	if (local.rows == NULL)
		return 0;
	uint32_t row = task_row(site);
	uint64_t spawned = local.rows[row].spawned;
	local.sample_stack = spawned < TP_LIVE_STACK_SAMPLE_FIRST ||
			     spawned % TP_LIVE_STACK_SAMPLE_EVERY == 0;
	return local.sample_stack;
}

/* A task's poll ends waiting in `sync` at the sync construct's site `site`: its wait there is
 * counted at its next poll (sync_wait_ends), in the site's row. */
static void sync_wait_begins(struct tp_span_task *t, uint32_t sync, uint32_t site)
{
	t->sync_row = 0;
	if (sync == TP_SYNC_NONE || sync > TP_SYNC_MUTEX || site == 0)
		return;
	uint32_t row = live_row_in(sync_rows_by_site[sync - 1], site);
	if (live_sync_row_found(row)) /* else its wait counts in the overflow row, unnamed */
		publish_site(row, site, false, sync);
	t->sync_row = (uint16_t)row;
}

/*
 * Task `t` (nestable), polled for the first time: its parent's nested work if this thread polled
 * the parent last, switched out for it (tp_span_first_poll_of). `p`: the parent's entry, if it
 * still is (a finished parent's is freed).
 */
static inline void first_poll_of_nestable(const struct tp_span_task *t, struct task_entry *p)
{
	bool alive = p != NULL && __atomic_load_n(&p->task, __ATOMIC_ACQUIRE) == t->parent;
	tp_span_first_poll_of(t, &local.span, alive ? span_of(p) : NULL);
}

/* The same, the parent's entry looked up (apart): not at a switch, where it is local.polled. */
__attribute__((noinline)) static void first_poll_looked_up(const struct tp_span_task *t)
{
	first_poll_of_nestable(t, t->parent_at != 0 ? &tasks[t->parent_at - 1] : NULL);
}

/*
 * The calling thread, entered in its slot `s`, starts polling `task` at `now`; `woken` (a
 * constant): the task was woken at that moment (tp_live_task_wake's, folded in); `switched` (a
 * constant): a poll ended at that moment too (poll_ended's `next_polled`), whose slot's state
 * this one overwrites. `likely`: an entry that may be the task's (a thread's next is most often
 * one at hand: the parent of the task that ended, the last it spawned), else NULL.
 */
static inline __attribute__((always_inline)) void poll_started(struct tp_live_thread *s,
							       uint64_t task, uint64_t now,
							       bool woken, bool switched,
							       struct task_entry *likely)
{
	struct task_entry *e = task_find_likely(task, likely);
	uint32_t row = NO_ROW;
	if (e != NULL) {
		row = __atomic_load_n(&e->row, __ATOMIC_RELAXED);
		if (__builtin_expect(row == TP_LIVE_NO_SITE && initial_slot == NULL, 0))
			now = live_initial_first_poll(e, now);
		struct tp_live_site_stats *r = &local.rows[row];
		struct tp_span_task *t = span_of(e);
		uint64_t ready = woken ? now : __atomic_load_n(&t->ready_ns, __ATOMIC_RELAXED);
		uint64_t suspended = __atomic_load_n(&t->suspended_ns, __ATOMIC_RELAXED);
		/* suspended, then woken, then polled: idle until the wake, then a delay */
		uint64_t idle_until = ready != 0 ? ready : now;
		if (suspended != 0 && idle_until >= suspended)
			add(&r->idle_ns, idle_until - suspended);
		if (ready != 0 && now >= ready) {
			add(&r->delay_ns, now - ready);
			histogram_add(r->delay_histogram, now - ready);
			set64(&t->ready_ns, 0);
		}
		sync_waited_time(e, now);
		set64(&t->suspended_ns, 0);
		sync_wait_ends(t);
		struct tp_live_path frozen;
		bool barrier = tp_span_barrier_needs(t);
		if (barrier)
			live_barrier_join(suspended, now, &frozen);
		bool first = !t->started;
		if (first && __builtin_expect(t->overflow_record != 0, 0))
			live_overflow_join(t, &e->task, task);
		/* at a switch (poll_ended's `next_polled`) local.polled is the task switched out */
		if (first && t->nestable && local.span.last_task == t->parent) {
			if (switched)
				first_poll_of_nestable(t, local.polled);
			else
				first_poll_looked_up(t);
		}
		uint64_t delay = tp_span_poll_start(t, &local.span, task, row, now, suspended,
						    barrier ? &frozen : NULL);
		if (first) {
			open_sites_are(s, &local.span.in); /* before open_counted_ns, below */
			cost_histogram_add(r->start_delay_histogram, delay);
		}
	} else {
		sync_waited_time(NULL, now);
		local.span.in_graph = false; /* untracked: left out of the figures */
	}
	local.polled = e;
	local.polled_task = task;
	local.poll_start = now;
	local.span_from = now;
	local.work_counted_to = now;
	local.poll_row = row;
	local.poll_region = e != NULL ? __atomic_load_n(&e->region, __ATOMIC_RELAXED) : 0;
	if (local.span.in_graph) {
		/* the fragment going on now, for readers (tp_live_graph_read): published last */
		if (s->graph_first_ns == 0)
			set64(&s->graph_first_ns, now);
		if (row == TP_LIVE_NO_SITE) {
			if (__builtin_expect(local.commit_due, 0))
				live_commit();
			live_initial_path_is(now);
			if (initial_slot != s)
				__atomic_store_n(&initial_slot, s, __ATOMIC_RELEASE);
		}
		set64(&s->open_start_ns, now);
		set64(&s->open_path_ns, local.span.in.ns);
		set64(&s->open_placed_ns, local.span.in.placed_ns);
		set32(&s->open_region, local.poll_region);
		__atomic_store_n(&s->open_counted_ns, now, __ATOMIC_RELEASE);
	} else if (switched) {
		set64(&s->open_counted_ns, 0); /* the poll that ended left it set */
	}
	set32(&s->site, row == NO_ROW ? TP_LIVE_OVERFLOW : row);
	set64(&s->state_since, now);
	set32(&s->state, TP_LIVE_POLLING);
}

void tp_live_task_poll_start(uint64_t task, uint64_t at)
{
	struct tp_live_thread *s = enter(TAKES_SLOT);
	if (s == NULL)
		return;
	poll_started(s, task, ns_at(at), false, false, NULL);
	leave();
}

/*
 * The calling thread's unpark (tp_live_park(0)'s) and its poll of `task`'s start, at one moment:
 * one entry. On two threads and more most polls start so (a task taken in a taskwait's loop).
 */
void tp_live_unpark_poll_start(uint64_t task, uint64_t at)
{
	local.worker_parked = false;
	tp_live_task_poll_start(task, at);
}

/*
 * The moment task `task`'s poll ends, `now` (ns_at) unless it finished: then its terminate's,
 * which came right before (one clock read for the two, as the recorder folds them).
 */
static inline uint64_t poll_end_ns(uint64_t task, uint32_t done, uint64_t now)
{
	if (done && local.terminated_task == task)
		now = local.terminated_ns;
	local.terminated_task = 0;
	return now;
}

/*
 * Task `task`'s poll ends at `now` (`done`: it finished), waiting in `sync` at the sync
 * construct's site `site` (0: none) when it did not; the calling thread is entered in its slot
 * `s`. `next_polled` (a constant): another poll starts at the same moment (poll_started's
 * `switched`), which sets what this would clear for the time between (the thread's state, its
 * fragment's publication, the polled task).
 */
static inline __attribute__((always_inline)) void poll_ended(struct tp_live_thread *s,
							     uint64_t task, uint32_t done,
							     uint32_t sync, uint32_t site,
							     uint64_t now, bool next_polled)
{
	if (local.polled_task == task) {
		uint64_t d = now - local.poll_start;
		if (local.poll_row != NO_ROW) {
			struct tp_live_site_stats *r = &local.rows[local.poll_row];
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
		struct tp_span_task *t = suspended ? span_of(local.polled) : NULL;
		if (suspended) {
			set64(&t->suspended_ns, now);
			add(&t->polled_ns, d);
			sync_wait_begins(t, sync, site);
		}
		tp_sync_waited_poll_end(local.sync_waited, suspended ? (uintptr_t)local.polled : 0,
					suspended ? t->sync_row : 0, now);
		if (local.span.in_graph) {
			count_work(now);
			if (!next_polled)
				set64(&s->open_counted_ns, 0);
			if (local.poll_region != 0)
				add(&local.rows[local.poll_region].region_ns, d);
			tp_phase_computes(&local.phase_ns, local.poll_region, d);
			set64(&s->graph_last_ns, now);
			/* a finished task's end was its terminate's (span_ended) */
			if (suspended) {
				tp_span_poll_end(t, &local.span, task, now - local.span_from, now,
						 sync);
				slot_longest(s, &local.span.in);
			}
		}
	}
	if (next_polled)
		return;
	local.span.in_graph = false;
	local.polled = NULL;
	local.polled_task = 0;
	local.poll_row = NO_ROW;
	set64(&s->state_since, now);
	set32(&s->state, TP_LIVE_RUNNING);
}

void tp_live_task_poll_end(uint64_t task, uint32_t done, uint32_t sync, uint32_t site, uint64_t at)
{
	struct tp_live_thread *s = enter(TAKES_SLOT);
	if (s == NULL)
		return;
	poll_ended(s, task, done, sync, site, poll_end_ns(task, done, ns_at(at)), false);
	leave();
}

/*
 * Task `task`'s poll's end (sync none), then the calling thread's park (tp_live_park(1)'s), at
 * one moment: one entry. On two threads and more the poll of an untied task's first part ends
 * so, into its parent waiting in its taskwait.
 */
void tp_live_task_poll_end_park(uint64_t task, uint32_t done, uint64_t at)
{
	struct tp_live_thread *s = enter(TAKES_SLOT);
	if (s == NULL) {
		tp_live_park(1);
		return;
	}
	poll_ended(s, task, done, TP_SYNC_NONE, 0, poll_end_ns(task, done, ns_at(at)), false);
	local.worker_parked = true;
	leave();
}

/*
 * A task switch (events.h): one entry, one moment for the poll that ends, the next task's wake
 * when `woken` (a constant) and its poll's start.
 */
static inline __attribute__((always_inline)) void
task_switch(uint64_t ending, uint32_t done, uint64_t next, bool woken, uint64_t at)
{
	struct tp_live_thread *s = enter(TAKES_SLOT);
	if (s == NULL)
		return;
	uint64_t now = ns_at(at);
	poll_ended(s, ending, done, TP_SYNC_NONE, 0, poll_end_ns(ending, done, now), true);
	poll_started(s, next, now, woken, true, local.spawned);
	leave();
}

void tp_live_task_switch(uint64_t ending, uint32_t done, uint64_t next, uint64_t at)
{
	task_switch(ending, done, next, false, at);
}

void tp_live_task_switch_woken(uint64_t ending, uint32_t done, uint64_t next, uint64_t at)
{
	task_switch(ending, done, next, true, at);
}

/*
 * Task `task` of state `t` ends at `now`: returns the path to its end (its last fragment, polled
 * by this thread now or ended before); the thread's slot and its parent are told, its parent's
 * entry in `*parent` (NULL when it is no longer the parent's).
 */
static inline __attribute__((always_inline)) const struct tp_live_path *
span_ended(struct tp_span_task *t, uint64_t task, uint64_t now, struct task_entry **parent)
{
	const struct tp_live_path *end = &t->in; /* ended unpolled (a detached task's event) */
	if (task == local.polled_task && local.span.in_graph) {
		tp_span_poll_end(NULL, &local.span, task, now - local.span_from, now, TP_SYNC_NONE);
		end = &local.span.in;
	}
	slot_longest(local.slot, end);
	/* the parent's entry, if it is still the parent's (its end frees it) */
	struct task_entry *p = t->parent_at != 0 ? &tasks[t->parent_at - 1] : NULL;
	if (p != NULL && __atomic_load_n(&p->task, __ATOMIC_ACQUIRE) == t->parent)
		tp_span_child_ended(span_of(p), &p->task, t->parent, t, end);
	else
		p = NULL;
	*parent = p;
	return end;
}

/*
 * Task `task` of entry `e` ends at `now`, the calling thread entered in its slot: counted, its
 * path to its end given to its parent and its successors, its entry and state freed. Returns its
 * parent's entry, NULL if none (span_ended's). `poll_ends` (a constant): its poll's end follows
 * in the same entry (end_entered), at the same moment: no terminated_task for it to match.
 */
static inline __attribute__((always_inline)) struct task_entry *
task_ended(struct task_entry *e, uint64_t task, uint64_t now, bool poll_ends)
{
	uint32_t row = __atomic_load_n(&e->row, __ATOMIC_RELAXED);
	/* loaded once: the entry may be another task's once freed, the state is this one's until
	 * freed here */
	struct tp_span_task *t = span_of(e);
	add(&local.rows[row].done, 1);
	/* its time: its polls, the one it ends in (terminate comes before its poll-end) too */
	uint64_t polled = __atomic_load_n(&t->polled_ns, __ATOMIC_RELAXED);
	if (task == local.polled_task) {
		polled += now - local.poll_start;
		if (!poll_ends) {
			local.terminated_task = task;
			local.terminated_ns = now;
		}
	}
	if (polled > 0) /* none counted (its polls ran on threads without a slot): no time */
		task_time_add(&local.rows[row], polled);
	if (__builtin_expect(t->joins, 0))
		live_region_ends(task, row, now);
	struct task_entry *parent;
	const struct tp_live_path *ended = span_ended(t, task, now, &parent);
	if (!__atomic_load_n(&dependences_seen, __ATOMIC_RELAXED)) {
		__atomic_store_n(&e->task, 0, __ATOMIC_RELEASE);
	} else {
		struct tp_live_path end = *ended; /* the entry's may be another task's once freed */
		unsigned edges = __atomic_load_n(&t->successors, __ATOMIC_RELAXED);
		__atomic_store_n(&e->task, 0, __ATOMIC_SEQ_CST);
		/* a successor being made now counts its edge after this free, or sees it
		 * (task_dependence); the state is this task's until freed below */
		unsigned now_edges = __atomic_load_n(&t->successors, __ATOMIC_SEQ_CST);
		edges = now_edges > edges ? now_edges : edges;
		if (edges > 0)
			live_successors_follow(task, edges, &end);
		if (__builtin_expect(__atomic_load_n(&t->overflowed, __ATOMIC_SEQ_CST), 0))
			live_overflow_ended(task, &end);
	}
	tp_span_free(&local.span_cache, t);
	return parent;
}

void tp_live_task_terminate(uint64_t task, uint64_t at)
{
	struct task_entry *e = task_find(task);
	if (e == NULL) /* untracked since its spawn */
		return;
	if (enter(TAKES_SLOT) == NULL) {
		/* the entry is freed even when the end cannot be counted, not left taken */
		struct tp_span_task *span = span_of(e);
		__atomic_store_n(&e->task, 0, __ATOMIC_RELEASE);
		if (!local.busy) /* else a signal handler's: its state is left (counted) */
			tp_span_free(&local.span_cache, span);
		return;
	}
	task_ended(e, task, ns_at(at), false);
	leave();
}

/*
 * Task `task`'s end and its last poll's end at `now`, the calling thread entered in its slot `s`
 * (tp_live_task_terminate's, then tp_live_task_poll_end's, in one entry); `next_polled`:
 * poll_ended's. Returns its parent's entry, NULL if none (task_ended's).
 */
static inline __attribute__((always_inline)) struct task_entry *
end_entered(struct tp_live_thread *s, uint64_t task, uint64_t now, bool next_polled)
{
	/* the task polled here, as a rule: its entry at hand, while still its own */
	struct task_entry *e = local.polled, *parent = NULL;
	if (task != local.polled_task || e == NULL ||
	    __atomic_load_n(&e->task, __ATOMIC_ACQUIRE) != task)
		e = task_find(task);
	if (e != NULL)
		parent = task_ended(e, task, now, true);
	local.terminated_task = 0; /* poll_end_ns's, whose moment is `now` here */
	poll_ended(s, task, 1, TP_SYNC_NONE, 0, now, next_polled);
	return parent;
}

/*
 * A task's end and its last poll's end, at one moment (events.h): one entry. On two threads and
 * more the common end (into a parent waiting in its taskwait, which parks the thread).
 */
void tp_live_task_end(uint64_t task, uint64_t at)
{
	struct tp_live_thread *s = enter(TAKES_SLOT);
	if (s == NULL) {
		tp_live_task_terminate(task, at); /* its entry freed all the same */
		return;
	}
	end_entered(s, task, ns_at(at), false);
	leave();
}

/*
 * A task's end and its last poll's end, then the calling thread's park (tp_live_park(1)'s), at
 * one moment: one entry. On two threads and more a task most often ends so, into a parent
 * waiting in its taskwait.
 */
void tp_live_task_end_park(uint64_t task, uint64_t at)
{
	struct tp_live_thread *s = enter(TAKES_SLOT);
	if (s == NULL) {
		tp_live_task_terminate(task, at); /* its entry freed all the same */
		tp_live_park(1);
		return;
	}
	end_entered(s, task, ns_at(at), false);
	local.worker_parked = true;
	leave();
}

/*
 * A task's end, its last poll's end and the next task's poll's start, at one moment (events.h):
 * one entry.
 */
void tp_live_task_end_switch(uint64_t task, uint64_t next, uint64_t at)
{
	struct tp_live_thread *s = enter(TAKES_SLOT);
	if (s == NULL) {
		tp_live_task_terminate(task, at); /* its entry freed all the same */
		return;
	}
	uint64_t now = ns_at(at);
	struct task_entry *parent = end_entered(s, task, now, true);
	poll_started(s, next, now, false, true, parent);
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
	 * its path, which readers no longer count as open (one paused ended at its pause) */
	if (s->open_counted_ns != 0 && local.rows != NULL) {
		struct tp_live_path mine;
		bool open = tp_live_current_path(now, &mine);
		uint64_t to = fragment_to(now);
		tp_guard_enter(&local.busy);
		if (open)
			slot_longest(s, &mine);
		if (to > local.work_counted_to)
			count_work(to);
		/* its region's computation counts its polls once ended (poll_ended) */
		if (local.poll_region != 0 && to > local.poll_start)
			add(&local.rows[local.poll_region].region_ns, to - local.poll_start);
		set64(&s->graph_last_ns, now);
		set64(&s->open_counted_ns, 0);
		set32(&s->open_paused, 0);
		local.paused_at = 0;
		tp_guard_leave(&local.busy, false);
	}
	/* an outermost region instance it forked and never joined (an exit inside it) too */
	if (local.fork_task != 0 && local.rows != NULL)
		live_region_joined(now);
	set64(&s->ended_ns, now);
	/* with its rows: enter() takes a thread with rows for one with a slot */
	local.slot = NULL;
	local.rows = NULL;
	local.ended = true;
	__atomic_store_n(&s->in_use, TP_LIVE_SLOT_ENDED, __ATOMIC_RELEASE);
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
	tp_span_path_extend(out, local.span.site_at, fragment_to(now) - local.span_from, true);
	out->ended_ns = now;
	return true;
}

/*
 * The process ends: its file is marked, and removed (live_file_let_go) if it is not yet. Asked
 * first of the in-process word, which every event reads: after the destructors (exit_hook.h), a
 * page of the statistics' own that the run never touched (the statistics off) takes tens of
 * microseconds to fault in on a virtual machine.
 */
void live_ended(void)
{
	if (!tp_live() || !in_files_process())
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
	/* an exit's start removed it already (tp_live_before_destructors); quick_exit has none */
	if (__atomic_load_n(&exit_began_ns, __ATOMIC_ACQUIRE) == 0)
		live_file_let_go();
}
