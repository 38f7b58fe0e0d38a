// SPDX-License-Identifier: MIT
/*
 * The graph's rules run by both engines (issue 35 item 6): one made-up event stream fed to the
 * recording's analysis (analysis.h, as recording_read hands events over) and to the live
 * statistics' engine (work_span.h, called as live.c calls it), whose figures must be the same:
 * work, span, burdened span, placed path, the span's fragments, and each site's time and
 * fragments on the span. A rule changed on one side only fails here. No program runs, no clock
 * is read (meson test --suite unit).
 *
 * The streams keep to what both engines see alike (the live engine's documented limits aside:
 * a descendant ending after its parent, a dependence on a task being made): tasks spawned by the
 * task their thread polls, joins at a taskwait, a taskgroup's end and a barrier's, a task
 * switched out following what its thread ran, a critical section's acquire and release.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taskprobe_contract.h"
#include "test_stream.h"
#include "work_span.h"

#define N      16      /* tasks (ids 1 to N - 1) and threads (tids 1 to N - 1); site ids are rows */
#define WORKER (N - 1) /* a worker's implicit task: the last id, far from the others */
/* the last site id the streams use (each site's row is its id; a task without one, OpenMP's
 * initial task, has live.c's row for it, TP_LIVE_NO_SITE) */
#define LAST_SITE INNER

static struct analysis *a;

/* The live engine's side: its states, as live.c keeps them. */
static struct tp_span_task pool[N];
static uint64_t holds[N]; /* the objects the pool's tasks hold switched out */
static uint64_t alive[N]; /* each entry's task id while it is alive (live.c's task_entry) */
static uint64_t suspended[N];
static uint64_t successor_of[N]; /* a task's one successor by a dependence (0: none) */
static uint32_t row_of[N];       /* a task's row: its site's (live.c's task_entry's row) */
static struct tp_span_mutex mutexes[TP_SPAN_MUTEXES];
static struct tp_span_fork forks[N];
static struct live_thread {
	struct tp_span_thread th;
	uint64_t from;   /* its fragment's part going on began (live.c's span_from) */
	uint64_t polled; /* the task it polls now, 0 none */
	uint64_t poll_start;
	/* the row of the mutual exclusion's wait its poll ended (0: none; live.c's mutex_row) */
	uint32_t mutex_row;
} threads[N];
/* a task's last wait's site when it waited for a mutual exclusion (live.c's sync_row) */
static uint32_t mutex_site[N];
/* every slot's longest path ended and the last end (live.c's slot_longest, graph_last_ns) */
static struct tp_live_path longest;
static uint64_t last_end, work;
/* the barrier's frozen path (live.c's barrier_join) */
static struct tp_live_path frozen;
static uint64_t frozen_at;

static void setup(void)
{
	a = stream_analysis();
	cr_assert_not_null(a);
	tp_span_pool_start(pool, holds, N);
	tp_span_mutexes_start(mutexes);
	tp_span_forks_start(forks, N);
}

static void teardown(void)
{
	analysis_free(a);
}

TestSuite(one_engine, .init = setup, .fini = teardown);

static void event(unsigned type, uint32_t tid, uint64_t ms, int64_t a0, int64_t a1, int64_t a2,
		  int64_t a3)
{
	stream_event(a, type, tid, ms, a0, a1, a2, a3);
}

/*
 * Task `task` of site `site` spawned by `parent` (0: none) on thread `tid`: with neither,
 * OpenMP's initial task; with a site and no parent, a worker's implicit task of the region of
 * that site, which starts after the region's fork, or the initial task's code so far when its
 * primary has not spawned its own yet (live.c's span_spawned and initial_so_far). The primary's
 * implicit task (a site, a parent) publishes the fork.
 */
static void spawn_of(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent, uint32_t site,
		     bool undeferred)
{
	stream_event_of(a, TP_RECORD_TASK_SPAWN, tid, ms, (int64_t)task, (int64_t)parent, site, 0,
			undeferred);
	struct live_thread *t = &threads[tid];
	uint64_t now = START_NS + ms * MS;
	cr_assert(task > 0 && task < N, "the stream's task ids are below N");
	/* live.c's span_spawned: an implicit task is one of a parallel construct's sites */
	bool implicit = site == REGION || site == INNER;
	enum tp_span_spawn_from from = tp_span_spawn_from(
		parent != 0, parent != 0 && t->polled == parent, implicit);
	const struct tp_live_path *in = NULL;
	struct tp_live_path so_far = {0};
	if (from == TP_SPAN_FROM_FORK) {
		for (unsigned i = 0; i < N; i++)
			if (threads[i].polled == INITIAL) {
				const struct live_thread *on = &threads[i];
				so_far.ns = so_far.burdened_ns = on->th.in.ns + (now - on->from);
				so_far.placed_ns = on->th.in.placed_ns + (now - on->from);
				so_far.ended_ns = now;
			}
		in = so_far.ns > 0 ? &so_far : NULL;
	}
	if (from == TP_SPAN_FROM_LAST && pool[parent - 1].started)
		in = &pool[parent - 1].in;
	if (parent != 0) {
		pool[parent - 1].spawner = true;
		pool[parent - 1].ran_undeferred |= tp_span_spawn_nests(from, undeferred);
	}
	tp_span_spawned(&pool[task - 1], parent, (uint32_t)parent,
			from == TP_SPAN_FROM_FORK ? site : 0,
			from == TP_SPAN_FROM_FRAGMENT ? &t->th : NULL, now - t->from, now, in);
	if (tp_span_publishes_fork(implicit, parent != 0))
		tp_span_fork(site, &pool[task - 1].in);
	alive[task] = task;
	row_of[task] = site != 0 ? site : TP_LIVE_NO_SITE;
}

static void spawn_at(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent, uint32_t site)
{
	spawn_of(tid, ms, task, parent, site, false);
}

/* A task of the task construct (OpenMP's initial task without a parent). */
static void spawn(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent)
{
	spawn_at(tid, ms, task, parent, parent != 0 ? TASKS : 0);
}

/* `successor` (not polled yet) starts after `predecessor`'s end (not ended yet). */
static void dependence(uint32_t tid, uint64_t ms, uint64_t predecessor, uint64_t successor)
{
	event(TP_RECORD_TASK_DEPENDENCE, tid, ms, (int64_t)predecessor, (int64_t)successor, 0, 0);
	successor_of[predecessor] = successor;
}

static void start(uint32_t tid, uint64_t ms, uint64_t task)
{
	event(TP_RECORD_TASK_POLL_START, tid, ms, (int64_t)task, 0, 0, 0);
	struct live_thread *t = &threads[tid];
	uint64_t now = START_NS + ms * MS;
	struct tp_span_task *s = &pool[task - 1];
	bool barrier = tp_span_barrier_needs(s);
	if (barrier && tp_span_barrier_freezes(frozen_at, suspended[task])) {
		frozen = longest;
		frozen.ended_ns = last_end > frozen.ended_ns ? last_end : frozen.ended_ns;
		frozen_at = now;
	}
	tp_span_poll_start(s, &t->th, task, row_of[task], now, suspended[task],
			   barrier ? &frozen : NULL);
	t->from = t->poll_start = now;
	t->polled = task;
	t->mutex_row = mutex_site[task];
	mutex_site[task] = 0;
}

static void ended_path(const struct tp_live_path *end, uint64_t now)
{
	tp_span_path_max(&longest, end);
	last_end = now;
}

/* The poll of `task` ends: done, or waiting in `sync` (0: switched out) at the construct `site`. */
static void end(uint32_t tid, uint64_t ms, uint64_t task, bool done, unsigned sync, uint64_t site)
{
	event(TP_RECORD_TASK_POLL_END, tid, ms, (int64_t)task, done, sync, (int64_t)site);
	struct live_thread *t = &threads[tid];
	uint64_t now = START_NS + ms * MS;
	struct tp_span_task *s = &pool[task - 1];
	work += now - t->poll_start;
	t->polled = 0;
	if (!done) {
		mutex_site[task] = tp_span_section_site(sync, (uint32_t)site);
		tp_span_poll_end(s, &t->th, task, now - t->from, now, sync);
		suspended[task] = now;
		ended_path(&t->th.in, now);
		return;
	}
	tp_span_poll_end(NULL, &t->th, task, now - t->from, now, TP_SYNC_NONE);
	ended_path(&t->th.in, now);
	if (s->parent != 0 && alive[s->parent] == s->parent)
		tp_span_child_ended(&pool[s->parent - 1], &alive[s->parent], s->parent, s,
				    &t->th.in);
	uint64_t succ = successor_of[task];
	if (succ != 0 && alive[succ] == succ)
		tp_span_predecessor_ended(&pool[succ - 1], &alive[succ], succ, &t->th.in);
	alive[task] = 0;
}

static void acquire(uint32_t tid, uint64_t ms, uint64_t task)
{
	event(TP_RECORD_TASK_ACQUIRE, tid, ms, (int64_t)task, TP_EXCLUSION_CRITICAL, LOCK, 0);
	struct live_thread *t = &threads[tid];
	uint64_t now = START_NS + ms * MS;
	/* its section is in its wait's site's row, or goes on in its task's when it has none */
	tp_span_acquire(&t->th, task, now, now - t->from, t->mutex_row, row_of[task], LOCK);
	t->from = now;
}

static void release(uint32_t tid, uint64_t ms, uint64_t task)
{
	event(TP_RECORD_TASK_RELEASE, tid, ms, (int64_t)task, TP_EXCLUSION_CRITICAL, LOCK, 0);
	struct live_thread *t = &threads[tid];
	uint64_t now = START_NS + ms * MS;
	if (tp_span_release(&t->th, task, now, now - t->from, row_of[task], LOCK))
		t->from = now;
}

/* The span's fragments, as analysis_report says them. */
static uint64_t analysis_fragments(void)
{
	char *text = stream_report(a);
	cr_assert_not_null(text);
	const char *at = strstr(text, "the longest path through the task graph (");
	uint64_t fragments = UINT64_MAX;
	cr_assert(at != NULL && sscanf(strchr(at, '(') + 1, "%" SCNu64, &fragments) == 1, "%s",
		  text);
	free(text);
	return fragments;
}

/* A site's time and fragments on the span (by row: the site's id, or TP_LIVE_NO_SITE). */
struct on_path {
	uint64_t ns, fragments;
};

static void analysis_fragment_on_path(void *context, const struct analysis_fragment *f, bool first)
{
	(void)first;
	struct on_path *by_row = context;
	struct on_path *row = &by_row[f->site_id != 0 ? f->site_id : TP_LIVE_NO_SITE];
	row->ns += f->end_ns - f->start_ns;
	row->fragments += !f->part;
}

/* Both engines' sites on the span: their time and fragments there, the same. */
static void expect_the_same_sites(void)
{
	struct on_path analyzed[LAST_SITE + 1] = {0};
	analysis_critical_path(a, analysis_fragment_on_path, analyzed);
	for (uint32_t row = 0; row <= LAST_SITE; row++) {
		struct on_path live = {0};
		for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++)
			if (longest.sites[k] != 0 &&
			    longest.sites[k] >> TP_LIVE_PATH_ROW_SHIFT == row) {
				live.ns = longest.sites[k] & TP_LIVE_PATH_NS_MASK;
				live.fragments = longest.fragments[k];
			}
		cr_expect_eq(live.ns, analyzed[row].ns,
			     "site %" PRIu32 "'s time on the span: live %" PRIu64
			     ", --analyze %" PRIu64,
			     row, live.ns, analyzed[row].ns);
		cr_expect_eq(live.fragments, analyzed[row].fragments,
			     "site %" PRIu32 "'s fragments on the span: live %" PRIu64
			     ", --analyze %" PRIu64,
			     row, live.fragments, analyzed[row].fragments);
	}
}

/* Both engines' figures, the same. */
static void expect_one_answer(uint64_t span_ms)
{
	struct analysis_figures f;
	cr_assert(analysis_figures(a, 0, &f));
	uint64_t fragments = 0;
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++)
		fragments += longest.fragments[k];
	cr_expect_eq(f.span, span_ms * MS, "the analysis's span %" PRIu64, f.span);
	cr_expect_eq(longest.ns, f.span, "span: live %" PRIu64 ", --analyze %" PRIu64, longest.ns,
		     f.span);
	cr_expect_eq(longest.burdened_ns, f.burdened,
		     "burdened span: live %" PRIu64 ", --analyze %" PRIu64, longest.burdened_ns,
		     f.burdened);
	cr_expect_eq(longest.placed_ns, f.factors.placed_ns,
		     "placed path: live %" PRIu64 ", --analyze %" PRIu64, longest.placed_ns,
		     f.factors.placed_ns);
	cr_expect_eq(work, f.work, "work: live %" PRIu64 ", --analyze %" PRIu64, work, f.work);
	uint64_t analyzed = analysis_fragments();
	cr_expect_eq(fragments, analyzed,
		     "the span's fragments: live %" PRIu64 ", --analyze %" PRIu64, fragments,
		     analyzed);
	expect_the_same_sites();
}

/*
 * The initial task spawns two tasks and waits for them (taskwait); each enters a critical
 * section, the second after the first's release (on the other thread, after a delay); then the
 * initial task spawns a third, switched out to run it, and follows it.
 */

/*
 * The opening several streams share: the initial task on thread 1 spawns tasks 2 and 3 and
 * waits for them at a taskwait, at 1 ms.
 */
static void two_children_waited(void)
{
	spawn(1, 0, INITIAL, 0);
	start(1, 0, INITIAL);
	spawn(1, 1, 2, INITIAL);
	spawn(1, 1, 3, INITIAL);
	end(1, 1, INITIAL, false, TP_SYNC_TASKWAIT, TASKWAIT);
}

/*
 * The opening the streams of a critical section's holder share: after two_children_waited,
 * tasks 2 and 3 start on threads 1 and 2 at 1 ms, both wait at 2 to enter the critical section,
 * and task 2 is polled again at 3 on thread 1, where it enters it at `acquired_ms` (task 3 still
 * waiting).
 */
static void task_2_enters_the_critical_section_at(uint64_t acquired_ms)
{
	two_children_waited();
	start(1, 1, 2);
	start(2, 1, 3);
	end(1, 2, 2, false, TP_SYNC_MUTEX, CRITICAL);
	end(2, 2, 3, false, TP_SYNC_MUTEX, CRITICAL);
	start(1, 3, 2);
	acquire(1, acquired_ms, 2);
}

/* The same, task 2 entering at its poll's start, 3 ms. */
static void task_2_holds_the_critical_section(void)
{
	task_2_enters_the_critical_section_at(3);
}

/*
 * The opening of the streams of a holder switched out: after task_2_holds_the_critical_section,
 * task 2 is switched out inside its section at 5; task 3 acquires the object at 9 (finding task 2
 * holding it), and ends at 12; task 2, polled again at 12, says its release late, at 13.
 */
static void task_3_takes_the_section_from_task_2_switched_out(void)
{
	task_2_holds_the_critical_section();
	end(1, 5, 2, false, TP_SYNC_NONE, 0);
	start(2, 9, 3);
	acquire(2, 9, 3);
	release(2, 10, 3);
	end(2, 12, 3, true, TP_SYNC_NONE, 0);
	start(1, 12, 2);
	release(1, 13, 2);
}

Test(one_engine, a_taskwait_a_critical_section_and_a_task_switched_out)
{
	spawn(1, 0, 1, 0);
	start(1, 0, 1);
	spawn(1, 2, 2, 1);
	spawn(1, 4, 3, 1);
	end(1, 5, 1, false, TP_SYNC_TASKWAIT, TASKWAIT);
	start(2, 5, 2);
	start(1, 6, 3);
	end(1, 7, 3, false, TP_SYNC_MUTEX, CRITICAL);
	start(1, 7, 3);
	acquire(1, 7, 3);
	end(2, 9, 2, false, TP_SYNC_MUTEX, CRITICAL);
	release(1, 12, 3);
	end(1, 13, 3, true, TP_SYNC_NONE, 0);
	start(2, 14, 2);
	acquire(2, 14, 2);
	release(2, 16, 2);
	end(2, 18, 2, true, TP_SYNC_NONE, 0);
	start(1, 19, 1);
	spawn(1, 20, 4, 1);
	end(1, 21, 1, false, TP_SYNC_NONE, 0);
	start(1, 21, 4);
	end(1, 25, 4, true, TP_SYNC_NONE, 0);
	start(1, 26, 1);
	end(1, 30, 1, true, TP_SYNC_NONE, 0);
	expect_one_answer(23);
}

/*
 * A taskgroup's end joins a grandchild that ended before its parent, on a longer path (its
 * parent was switched out meanwhile); tasks waiting in a barrier join everything ended before
 * it, the second to leave it as the first.
 */
Test(one_engine, a_taskgroup_and_a_barrier)
{
	spawn(1, 0, 1, 0);
	start(1, 0, 1);
	spawn(1, 1, 2, 1);
	spawn(1, 2, 3, 1);
	end(1, 2, 1, false, TP_SYNC_TASKGROUP, TASKWAIT);
	start(2, 3, 2);
	start(1, 3, 3);
	spawn(1, 4, 5, 3);
	end(1, 4, 3, false, TP_SYNC_NONE, 0);
	end(2, 10, 2, false, TP_SYNC_BARRIER, TASKWAIT);
	start(2, 10, 5);
	end(2, 21, 5, true, TP_SYNC_NONE, 0);
	start(1, 22, 3);
	end(1, 23, 3, true, TP_SYNC_NONE, 0);
	start(1, 24, 1);
	end(1, 26, 1, false, TP_SYNC_BARRIER, TASKWAIT);
	start(2, 27, 2);
	end(2, 29, 2, true, TP_SYNC_NONE, 0);
	start(1, 28, 1);
	end(1, 33, 1, true, TP_SYNC_NONE, 0);
	expect_one_answer(21);
}

/*
 * A parallel region: its worker's implicit task reported before the primary's (after the
 * initial task's code so far), two explicit tasks in a chain of dependences on the two threads,
 * the region's barrier, and the initial task's serial code after it.
 */
Test(one_engine, a_region_its_fork_and_a_chain_of_dependences)
{
	spawn(1, 0, INITIAL, 0);
	start(1, 0, INITIAL);
	spawn_at(2, 10, WORKER, 0, REGION);
	start(2, 10, WORKER);
	spawn_at(1, 10, 2, INITIAL, REGION);
	end(1, 10, INITIAL, false, TP_SYNC_NONE, 0);
	start(1, 10, 2);
	spawn(1, 11, 3, 2);
	spawn(1, 11, 4, 2);
	dependence(1, 11, 3, 4);
	end(1, 12, 2, false, TP_SYNC_BARRIER, REGION);
	end(2, 12, WORKER, false, TP_SYNC_BARRIER, REGION);
	start(1, 12, 3);
	end(1, 20, 3, true, TP_SYNC_NONE, 0);
	start(2, 21, 4);
	end(2, 30, 4, true, TP_SYNC_NONE, 0);
	start(1, 30, 2);
	end(1, 31, 2, true, TP_SYNC_NONE, 0);
	start(2, 31, WORKER);
	end(2, 31, WORKER, true, TP_SYNC_NONE, 0);
	start(1, 32, INITIAL);
	end(1, 40, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(37);
}

/*
 * On one thread the initial task's child, created undeferred, runs at its spawn (nested work):
 * the initial task's next fragment does not follow it (its path is its own), and its taskwait
 * joins it as it would join a child run elsewhere.
 */
Test(one_engine, a_child_created_undeferred_is_joined_at_the_taskwait)
{
	spawn(1, 0, INITIAL, 0);
	start(1, 0, INITIAL);
	spawn_of(1, 2, 2, INITIAL, TASKS, true);
	end(1, 2, INITIAL, false, TP_SYNC_NONE, 0);
	start(1, 2, 2);
	end(1, 7, 2, true, TP_SYNC_NONE, 0);
	start(1, 7, INITIAL);
	end(1, 8, INITIAL, false, TP_SYNC_TASKWAIT, TASKWAIT);
	start(1, 8, INITIAL);
	end(1, 10, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(9);
}

/*
 * A critical section entered after a wait at no site (none said, or the sites' table full): its
 * time has no sync site's row to go to, so its task's poll is not split at the release, one
 * fragment on the path as any poll.
 */
Test(one_engine, a_critical_section_whose_wait_has_no_site_is_no_fragment_of_its_own)
{
	spawn(1, 0, INITIAL, 0);
	start(1, 0, INITIAL);
	end(1, 2, INITIAL, false, TP_SYNC_MUTEX, 0);
	start(1, 3, INITIAL);
	acquire(1, 3, INITIAL);
	release(1, 6, INITIAL);
	end(1, 10, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(9);
}

/*
 * The same section on the span through its release: the next acquirer's path holds the
 * releaser's fragment up to the release, one fragment on the path (as a spawn's part is).
 */
Test(one_engine, a_release_of_a_section_whose_wait_has_no_site_is_on_the_path)
{
	two_children_waited();
	start(1, 1, 2);
	acquire(1, 1, 2);
	start(2, 1, 3);
	end(2, 2, 3, false, TP_SYNC_MUTEX, 0);
	release(1, 3, 2);
	start(2, 3, 3);
	acquire(2, 3, 3);
	end(1, 4, 2, true, TP_SYNC_NONE, 0);
	release(2, 5, 3);
	end(2, 13, 3, true, TP_SYNC_NONE, 0);
	start(1, 14, INITIAL);
	end(1, 15, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(14);
}

/*
 * A parallel region nested in an explicit task (its primary's implicit task is that task's
 * child): the region's worker starts after its fork, the explicit task's fragment up to the
 * region, as after any encountering task's.
 */
Test(one_engine, a_region_started_by_an_explicit_task_forks)
{
	spawn(1, 0, INITIAL, 0);
	start(1, 0, INITIAL);
	spawn_at(1, 1, 2, INITIAL, REGION);
	end(1, 1, INITIAL, false, TP_SYNC_NONE, 0);
	start(1, 1, 2);
	spawn_at(2, 1, WORKER, 0, REGION);
	start(2, 1, WORKER);
	spawn(1, 2, 3, 2);
	end(1, 2, 2, false, TP_SYNC_TASKWAIT, TASKWAIT);
	end(2, 3, WORKER, false, TP_SYNC_BARRIER, REGION);
	start(1, 2, 3);
	spawn_at(1, 4, 4, 3, INNER);
	end(1, 4, 3, false, TP_SYNC_NONE, 0);
	start(1, 4, 4);
	spawn_at(3, 4, WORKER - 1, 0, INNER);
	start(3, 4, WORKER - 1);
	end(1, 5, 4, false, TP_SYNC_BARRIER, INNER);
	end(3, 20, WORKER - 1, false, TP_SYNC_BARRIER, INNER);
	start(1, 20, 4);
	end(1, 21, 4, true, TP_SYNC_NONE, 0);
	start(3, 20, WORKER - 1);
	end(3, 20, WORKER - 1, true, TP_SYNC_NONE, 0);
	start(1, 21, 3);
	end(1, 22, 3, true, TP_SYNC_NONE, 0);
	start(1, 22, 2);
	end(1, 23, 2, false, TP_SYNC_BARRIER, REGION);
	start(1, 24, 2);
	end(1, 24, 2, true, TP_SYNC_NONE, 0);
	start(2, 24, WORKER);
	end(2, 24, WORKER, true, TP_SYNC_NONE, 0);
	start(1, 25, INITIAL);
	end(1, 26, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(24);
}

/*
 * A task switched out inside its critical section (its release said late, once it runs again):
 * the next acquirer starts after the holder's path to its last fragment's end, not up to the
 * acquire: a holder not polled does no work.
 */
Test(one_engine, an_acquire_from_a_holder_switched_out_joins_its_last_fragment)
{
	task_3_takes_the_section_from_task_2_switched_out();
	end(1, 14, 2, true, TP_SYNC_NONE, 0);
	start(1, 15, INITIAL);
	end(1, 16, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(8);
}

/*
 * An acquire while the holder still polls (its release said late): the next acquirer starts
 * after the holder's path up to the acquire, its section so far one fragment on the path.
 */
Test(one_engine, an_acquire_from_a_holder_still_polled_joins_its_section_so_far)
{
	task_2_holds_the_critical_section();
	start(2, 6, 3);
	acquire(2, 6, 3);
	release(1, 7, 2);
	release(2, 8, 3);
	end(1, 9, 2, true, TP_SYNC_NONE, 0);
	end(2, 12, 3, true, TP_SYNC_NONE, 0);
	start(1, 13, INITIAL);
	end(1, 14, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(12);
}

/*
 * A holder switched out inside its section and polled again (its release said late): the next
 * acquirer starts after the holder's path up to the acquire, through its fragment polled again,
 * not its switched out time.
 */
Test(one_engine, an_acquire_from_a_holder_polled_again_joins_its_fragment_so_far)
{
	task_2_holds_the_critical_section();
	end(1, 5, 2, false, TP_SYNC_NONE, 0);
	start(1, 7, 2);
	start(2, 9, 3);
	acquire(2, 9, 3);
	release(1, 10, 2);
	end(1, 10, 2, true, TP_SYNC_NONE, 0);
	release(2, 11, 3);
	end(2, 12, 3, true, TP_SYNC_NONE, 0);
	start(1, 14, INITIAL);
	end(1, 15, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(10);
}

/*
 * The same, the holder polled again by another thread than the one it acquired on: it is
 * polled all the same, and the next acquirer starts after its path up to the acquire.
 */
Test(one_engine, an_acquire_from_a_holder_polled_again_elsewhere_joins_its_fragment_so_far)
{
	task_2_holds_the_critical_section();
	end(1, 5, 2, false, TP_SYNC_NONE, 0);
	start(3, 7, 2);
	start(2, 9, 3);
	acquire(2, 9, 3);
	release(3, 10, 2);
	end(3, 10, 2, true, TP_SYNC_NONE, 0);
	release(2, 11, 3);
	end(2, 12, 3, true, TP_SYNC_NONE, 0);
	start(1, 14, INITIAL);
	end(1, 15, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(10);
}

/*
 * A task switched out inside its critical section and polled again: its section goes on until
 * its release, in the sync site's row, and the release splits its fragment there as it would
 * have before the switch out (the span's fragments: its section's part one, the rest another).
 */
Test(one_engine, a_section_goes_on_across_its_task_switched_out)
{
	task_2_holds_the_critical_section();
	end(1, 5, 2, false, TP_SYNC_NONE, 0);
	start(1, 7, 2);
	release(1, 9, 2);
	start(2, 10, 3);
	acquire(2, 10, 3);
	release(2, 11, 3);
	end(2, 12, 3, true, TP_SYNC_NONE, 0);
	end(1, 20, 2, true, TP_SYNC_NONE, 0);
	start(1, 21, INITIAL);
	end(1, 22, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(18);
}

/*
 * A parallel region's primary implicit task spawned on another thread than the one that polled
 * its encountering task (switched out): its start is that task's last fragment's end, and it is
 * the region's fork all the same, which the region's worker joins.
 */
Test(one_engine, a_region_spawned_away_from_its_encountering_task_forks)
{
	spawn(1, 0, INITIAL, 0);
	start(1, 0, INITIAL);
	end(1, 2, INITIAL, false, TP_SYNC_NONE, 0);
	spawn_at(2, 3, 2, INITIAL, REGION);
	start(2, 3, 2);
	spawn_at(3, 4, WORKER, 0, REGION);
	start(3, 4, WORKER);
	end(2, 5, 2, true, TP_SYNC_NONE, 0);
	end(3, 10, WORKER, true, TP_SYNC_NONE, 0);
	start(1, 11, INITIAL);
	end(1, 12, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(8);
}

/*
 * A task's end: a grandchild that ends before its parent reaches its grandparent's taskgroup
 * through its parent's end (the parent's descendants ended), not the parent's own path.
 */
Test(one_engine, a_grandchild_reaches_the_taskgroup_through_its_parents_end)
{
	spawn(1, 0, INITIAL, 0);
	start(1, 0, INITIAL);
	spawn(1, 1, 2, INITIAL);
	end(1, 1, INITIAL, false, TP_SYNC_TASKGROUP, TASKWAIT);
	start(1, 1, 2);
	spawn(1, 2, 3, 2);
	end(1, 3, 2, false, TP_SYNC_NONE, 0);
	start(2, 3, 3);
	end(2, 13, 3, true, TP_SYNC_NONE, 0);
	start(1, 14, 2);
	end(1, 15, 2, true, TP_SYNC_NONE, 0);
	start(1, 15, INITIAL);
	end(1, 20, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(17);
}

/*
 * A task that ends holding its critical section (its release lost): the next acquirer starts
 * after its end, as after a release there; not after its path up to the acquire (it did no work
 * once ended), nor after the release before (it let the object go no later than its end).
 */
Test(one_engine, an_acquire_from_a_holder_that_ended_joins_its_end)
{
	task_2_holds_the_critical_section();
	end(1, 5, 2, true, TP_SYNC_NONE, 0);
	start(2, 9, 3);
	acquire(2, 9, 3);
	release(2, 10, 3);
	end(2, 12, 3, true, TP_SYNC_NONE, 0);
	start(1, 14, INITIAL);
	end(1, 15, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(8);
}

/*
 * A holder switched out inside its section, whose object another task acquired meanwhile (its
 * release said late): it let the object go before that acquire, which took its path to its last
 * fragment's end; polled again it resumes from that end in no section: its fragment is its
 * task's, one fragment on the path, not split at its late release.
 */
Test(one_engine, a_holder_polled_again_after_another_acquired_resumes_outside_its_section)
{
	task_3_takes_the_section_from_task_2_switched_out();
	end(1, 30, 2, true, TP_SYNC_NONE, 0);
	start(1, 31, INITIAL);
	end(1, 32, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(23);
}

/*
 * A critical section acquired 3 ms into the poll that ended its wait: the poll is split at the
 * acquire, its part before it its task's on the path (no fragment of its own: the poll's
 * fragments are its section and the rest), the section the critical construct's.
 */
Test(one_engine, an_acquire_inside_a_poll_splits_it_the_part_before_is_its_tasks)
{
	task_2_enters_the_critical_section_at(6);
	release(1, 8, 2);
	end(1, 20, 2, true, TP_SYNC_NONE, 0);
	start(2, 21, 3);
	acquire(2, 21, 3);
	release(2, 22, 3);
	end(2, 23, 3, true, TP_SYNC_NONE, 0);
	start(1, 24, INITIAL);
	end(1, 25, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(20);
}

/*
 * The opening of the streams of acquires into a poll: after two_children_waited, tasks 2 and 3
 * start on threads 1 and 2 at 1 ms and both wait at 2 to enter the critical section (a wait at
 * `wait_site`); task 3, polled again at 2, enters it, and task 2 is polled again on thread 1 at
 * `polled_ms`.
 */
static void task_3_enters_and_task_2_is_polled_at(uint64_t wait_site, uint64_t polled_ms)
{
	two_children_waited();
	start(1, 1, 2);
	start(2, 1, 3);
	end(1, 2, 2, false, TP_SYNC_MUTEX, wait_site);
	end(2, 2, 3, false, TP_SYNC_MUTEX, wait_site);
	start(2, 2, 3);
	acquire(2, 2, 3);
	start(1, polled_ms, 2);
}

/*
 * An acquire well into a poll: task 2 computes 5 ms (2 to 7) before it enters the critical
 * section that task 3 released at 4, both after a wait at `wait_site`. The section can start
 * once both happened: the path to its start is the longer of task 2's start and its part before
 * the acquire (2 + 5 = 7) and task 3's release (4), not task 2's start joined with the release
 * and its part added after (4 + 5 = 9: a span longer than the run, 11 ms).
 */
static void task_2_acquires_5_ms_into_its_poll(uint64_t wait_site)
{
	task_3_enters_and_task_2_is_polled_at(wait_site, 2);
	release(2, 4, 3);
	end(2, 5, 3, true, TP_SYNC_NONE, 0);
	acquire(1, 7, 2);
	release(1, 9, 2);
	end(1, 10, 2, true, TP_SYNC_NONE, 0);
	start(1, 10, INITIAL);
	end(1, 11, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(11);
}

Test(one_engine, an_acquire_well_into_a_poll_joins_the_release_after_its_part_before)
{
	task_2_acquires_5_ms_into_its_poll(CRITICAL);
}

/* The same section entered after a wait at no site (it goes on in its task's row, one fragment
 * with the poll): the release joins after the part before the acquire all the same. */
Test(one_engine, an_acquire_well_into_a_poll_of_a_section_whose_wait_has_no_site)
{
	task_2_acquires_5_ms_into_its_poll(0);
}

/*
 * A fragment of no time without a site (its events at one moment: a clock coarser than they are
 * apart, or any after the process's exit began, which all happen at its start): the initial task
 * spawns its child as it starts. Its fragment is on the span, in row 0 (TP_LIVE_NO_SITE), a
 * fragment of 0 ns there; a site after it on the path takes a place of its own, and the initial
 * task's next fragment adds to that one.
 */
Test(one_engine, a_fragment_of_no_time_without_a_site_keeps_its_place_on_the_path)
{
	spawn(1, 0, INITIAL, 0);
	start(1, 0, INITIAL);
	spawn(1, 0, 2, INITIAL);
	end(1, 0, INITIAL, false, TP_SYNC_TASKWAIT, TASKWAIT);
	start(1, 0, 2);
	end(1, 5, 2, true, TP_SYNC_NONE, 0);
	start(1, 5, INITIAL);
	end(1, 6, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(6);
}

/*
 * Two sections in one poll: task 3's second acquire, 2 ms after its first section's release (the
 * part after a split, begun there: no delay of its own), joins task 2's release at 6 after that
 * part (4 + 2 = 6), as task 2's acquire 2 ms into its poll joined task 3's first release (4)
 * after its own part (2 + 2 = 4).
 */
Test(one_engine, a_second_section_in_a_poll_joins_the_release_after_the_part_between)
{
	task_3_enters_and_task_2_is_polled_at(CRITICAL, 3);
	release(2, 4, 3);
	acquire(1, 5, 2);
	release(1, 6, 2);
	acquire(2, 6, 3);
	release(2, 7, 3);
	end(2, 8, 3, true, TP_SYNC_NONE, 0);
	end(1, 10, 2, true, TP_SYNC_NONE, 0);
	start(1, 10, INITIAL);
	end(1, 11, INITIAL, true, TP_SYNC_NONE, 0);
	expect_one_answer(10);
}
