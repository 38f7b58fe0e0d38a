// SPDX-License-Identifier: MIT
/*
 * The unit test one_engine's driver (one_engine.h): the live engine's states kept as live.c
 * keeps them, beside the recording's analysis fed the same events.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "one_engine.h"
#include "sync_waited.h"
#include "taskprobe_contract.h"
#include "work_span_events.h"

static struct analysis *a;

/* The live engine's side: its states, as live.c keeps them. */
static struct tp_span_task pool[N];
static uint64_t holds[N]; /* the objects the pool's tasks hold switched out */
static uint64_t alive[N]; /* each entry's task id while it is alive (live.c's task_entry) */
static uint64_t suspended[N];
static uint64_t successor_of[N]; /* a task's one successor by a dependence (0: none) */
static uint32_t row_of[N];       /* a task's row: its site's (live.c's task_entry's row) */
static struct tp_span_mutex mutexes[TP_SPAN_MUTEXES];
static struct tp_span_shared forks[N];
static struct live_thread {
	struct tp_span_thread th;
	uint64_t from;   /* its fragment's part going on began (live.c's span_from) */
	uint64_t polled; /* the task it polls now, 0 none */
	uint64_t poll_start;
	uint64_t work; /* its polls' time: its computation (live.c's slot's work_ns) */
	/* the row of the mutual exclusion's wait its poll ended (0: none; live.c's mutex_row) */
	uint32_t mutex_row;
	struct tp_sync_waited sync_waited; /* the tasks it suspended (live.c's) */
	uint64_t waited_to;                /* its last wait's end (live.c's local.waited_to) */
	uint64_t phase; /* its computation since its last barrier (live.c's local.phase_ns) */
	/* it joined an outermost region since it last polled the initial task (live.c's) */
	bool commit_due;
} threads[N];
/* the span's commits (live.c's header->commits) */
static struct tp_live_commits commits;
/* a task's parallel region's site (live.c's task_entry's region: an implicit task's own, an
 * explicit task's its parent's; 0 none) */
static uint32_t region_of[N];
/* each region's last joins (live.c's live_region_joins), by site */
static struct tp_sync_joins joins[LAST_SITE + 1];
/* the phases each barrier's site ended, by thread (live.c's rows' phase_ns), and whether the
 * thread passed it (its rows' sync_waits) */
static uint64_t phases[LAST_SITE + 1][N];
static bool passed[LAST_SITE + 1][N];
/* the program's start (live.c's ns_at_start; 0: none said) and whether a task of no site was
 * polled (live.c's initial_slot) */
static uint64_t program_ns;
static bool initial_polled;
/* each task's suspension while it lasts (live.c's task_entry's suspended_ns), and where it
 * waits (sync_waited.h's key: site * (TP_SYNC_MUTEX + 1) + kind, 0 none) */
static uint64_t suspended_now[N];
static uint32_t waits_at[N];
/* the time waited and the waits at each sync site and kind (live.c's sync rows) */
#define WHERE(site, sync) ((site) * (TP_SYNC_MUTEX + 1) + (sync))
static uint64_t waited[WHERE(LAST_SITE + 1, 0)], waits[WHERE(LAST_SITE + 1, 0)];
/* a task's last wait's site when it waited for a mutual exclusion (live.c's sync_row) */
static uint32_t mutex_site[N];
/* every slot's longest path ended and the last end (live.c's slot_longest, graph_last_ns) */
static struct tp_live_path longest;
static uint64_t last_end, work;
/* the barrier's frozen path (live.c's barrier_join) */
static struct tp_live_path frozen;
static uint64_t frozen_at;

void one_engine_setup(void)
{
	a = stream_analysis();
	cr_assert_not_null(a);
	tp_span_pool_start(pool, holds, N);
	tp_span_mutexes_start(mutexes);
	tp_span_forks_start(forks, N);
	memset(&commits, 0, sizeof commits);
	tp_span_commits_start();
}

void one_engine_teardown(void)
{
	analysis_free(a);
}

static void event(unsigned type, uint32_t tid, uint64_t ms, int64_t a0, int64_t a1, int64_t a2,
		  int64_t a3)
{
	stream_event(a, type, tid, ms, a0, a1, a2, a3);
}

/* both_spawn_of's, and with `known` a stream that says which tasks the program spawned, the
 * implicit tasks of a team of one created undeferred (version 16's). */
static void spawn_of(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent, uint32_t site,
		     bool undeferred, bool nestable, bool known)
{
	stream_event_of(a, TP_RECORD_TASK_SPAWN, tid, ms, (int64_t)task, (int64_t)parent, site, 0,
			undeferred, nestable, known);
	if (nestable) /* woken by its parent at once: no dependences */
		event(TP_RECORD_TASK_WAKE, tid, ms, (int64_t)task, (int64_t)parent, 0, 0);
	struct live_thread *t = &threads[tid];
	uint64_t now = START_NS + ms * MS;
	cr_assert(task > 0 && task < N, "the stream's task ids are below N");
	/* live.c's tp_live_task_spawn: an implicit task is one of a parallel construct's sites,
	 * not a team of one's nested in a region */
	bool executors = site == REGION || site == INNER || site >= STEP_A,
	     implicit = tp_span_region_task(executors, undeferred,
					    parent != 0 && region_of[parent] != 0);
	enum tp_span_spawn_from from = tp_span_spawn_from(
		parent != 0, parent != 0 && t->polled == parent, implicit);
	const struct tp_live_path *in = NULL;
	struct tp_live_path so_far = {0};
	if (from == TP_SPAN_FROM_FORK) {
		/* live_shared_paths.c's live_initial_so_far: its path, with its sites, while the
		 * region's fork is not this poll's */
		for (unsigned i = 0; i < N; i++)
			if (threads[i].polled == INITIAL &&
			    tp_span_fork_waits_initial(tp_span_fork_at(site),
						       threads[i].poll_start)) {
				const struct live_thread *on = &threads[i];
				so_far = on->th.in;
				tp_span_path_add(&so_far,
						 tp_span_path_site(&so_far, TP_LIVE_NO_SITE),
						 now - on->from);
				so_far.ended_ns = now;
			}
		in = so_far.ns > 0 ? &so_far : NULL;
	}
	if (from == TP_SPAN_FROM_LAST && pool[parent - 1].started)
		in = &pool[parent - 1].in;
	if (parent != 0) {
		pool[parent - 1].spawner = true;
		pool[parent - 1].ran_undeferred |= tp_span_spawn_nests(from, undeferred,
								       !executors);
	}
	tp_span_spawned(
		&pool[task - 1], parent, (uint32_t)parent, from == TP_SPAN_FROM_FORK ? site : 0,
		from == TP_SPAN_FROM_FRAGMENT ? &t->th : NULL, now - t->from, now, in, nestable);
	if (tp_span_publishes_fork(implicit, parent != 0)) {
		tp_span_fork(site, &pool[task - 1].in);
		if (region_of[parent] == 0) /* live.c's live_region_forked, outermost */
			tp_phase_forks(&t->phase);
		pool[task - 1].joins = true;
	}
	alive[task] = task;
	row_of[task] = site != 0 ? site : TP_LIVE_NO_SITE;
	/* its region: a recording before version 12 does not say which spawns are the executor's,
	 * and --analyze takes a deferred child of the initial task with a site for an implicit task
	 * (OpenMP runs a team of one's tasks undeferred), as some streams here have it */
	bool region = implicit || (parent != 0 && row_of[parent] == TP_LIVE_NO_SITE && site != 0 &&
				   !(undeferred && !executors));
	region_of[task] = region ? site : parent != 0 ? region_of[parent] : 0;
}

void both_spawn_of(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent, uint32_t site,
		   bool undeferred, bool nestable)
{
	spawn_of(tid, ms, task, parent, site, undeferred, nestable, false);
}

void both_team_of_one(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent, uint32_t site)
{
	spawn_of(tid, ms, task, parent, site, true, false, true);
}

void both_spawn_told(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent, uint32_t site,
		     bool by_program)
{
	spawn_of(tid, ms, task, parent, site, by_program && parent == INITIAL, by_program, true);
}

void both_spawn_at(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent, uint32_t site)
{
	both_spawn_of(tid, ms, task, parent, site, false, false);
}

void both_fork(uint64_t ms)
{
	both_spawn_at(2, ms, WORKER, 0, REGION);
	both_start(2, ms, WORKER);
	both_spawn_at(1, ms, 2, INITIAL, REGION);
	both_end(1, ms, INITIAL, false, TP_SYNC_NONE, 0);
	both_start(1, ms, 2);
}

void both_join(uint64_t ms)
{
	both_end(1, ms, 2, false, TP_SYNC_BARRIER, REGION);
	both_end(2, ms, WORKER, false, TP_SYNC_BARRIER, REGION);
	both_start(1, ms, 2);
	both_end(1, ms, 2, true, TP_SYNC_NONE, 0);
	both_start(2, ms, WORKER);
	both_end(2, ms, WORKER, true, TP_SYNC_NONE, 0);
	both_start(1, ms, INITIAL);
}

void both_spawn(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent)
{
	both_spawn_at(tid, ms, task, parent, parent != 0 ? TASKS : 0);
}

void both_dependence(uint32_t tid, uint64_t ms, uint64_t predecessor, uint64_t successor)
{
	event(TP_RECORD_TASK_DEPENDENCE, tid, ms, (int64_t)predecessor, (int64_t)successor, 0, 0);
	successor_of[predecessor] = successor;
}

/* live.c's entry_suspended */
static bool task_suspended(const void *context, uint64_t task, uint32_t since, uint32_t where,
			   uint64_t *until)
{
	(void)context;
	if (suspended_now[task] == 0 || (uint32_t)suspended_now[task] != since)
		return false;
	if (where % (TP_SYNC_MUTEX + 1) == TP_SYNC_BARRIER)
		*until = tp_sync_wait_joined(suspended_now[task], &joins[region_of[task]]);
	return true;
}

void both_start(uint32_t tid, uint64_t ms, uint64_t task)
{
	event(TP_RECORD_TASK_POLL_START, tid, ms, (int64_t)task, 0, 0, 0);
	struct live_thread *t = &threads[tid];
	uint64_t now = START_NS + ms * MS;
	struct tp_span_task *s = &pool[task - 1];
	/* live.c's poll_started: OpenMP's initial task, first polled, from the program's start */
	if (row_of[task] == TP_LIVE_NO_SITE && !initial_polled && !s->started && s->parent == 0)
		now = tp_span_initial_start(now, program_ns, t->waited_to);
	initial_polled |= row_of[task] == TP_LIVE_NO_SITE;
	/* live.c's sync_waited_time and sync_wait_ends */
	uint32_t where;
	uint64_t ns = tp_sync_waited_poll_start(&t->sync_waited, task, now, task_suspended, NULL,
						&where);
	waited[where] += ns;
	suspended_now[task] = 0;
	waits[waits_at[task]] += waits_at[task] != 0;
	if (waits_at[task] != 0) { /* live.c's sync_wait_ends */
		uint32_t site = waits_at[task] / (TP_SYNC_MUTEX + 1),
			 sync = waits_at[task] % (TP_SYNC_MUTEX + 1);
		phases[site][tid] += tp_phase_ends(&t->phase, sync);
		passed[site][tid] |= sync == TP_SYNC_BARRIER;
	}
	waits_at[task] = 0;
	bool barrier = tp_span_barrier_needs(s);
	if (barrier && tp_span_barrier_freezes(frozen_at, suspended[task])) {
		frozen = longest;
		frozen.ended_ns = last_end > frozen.ended_ns ? last_end : frozen.ended_ns;
		frozen_at = now;
	}
	/* live.c's first_poll_in_parents_place */
	if (!s->started && s->nestable && s->parent != 0 && t->th.last_task == s->parent)
		tp_span_first_poll_of(s, &t->th,
				      alive[s->parent] == s->parent ? &pool[s->parent - 1] : NULL);
	tp_span_poll_start(s, &t->th, task, row_of[task], now, suspended[task],
			   barrier ? &frozen : NULL);
	if (row_of[task] == TP_LIVE_NO_SITE && t->commit_due) { /* live.c's live_commit */
		t->commit_due = false;
		tp_span_thread_commits(&t->th, &commits, TP_LIVE_NO_SITE, tid == 1);
	}
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

void both_end(uint32_t tid, uint64_t ms, uint64_t task, bool done, unsigned sync, uint64_t site)
{
	event(TP_RECORD_TASK_POLL_END, tid, ms, (int64_t)task, done, sync, (int64_t)site);
	struct live_thread *t = &threads[tid];
	uint64_t now = START_NS + ms * MS;
	struct tp_span_task *s = &pool[task - 1];
	work += now - t->poll_start;
	t->work += now - t->poll_start;
	tp_phase_computes(&t->phase, region_of[task], now - t->poll_start);
	t->polled = 0;
	/* live.c's sync_wait_begins: a wait at no site, or of no sync construct, in no row */
	waits_at[task] = !done && sync > TP_SYNC_NONE && sync <= TP_SYNC_MUTEX && site != 0
				 ? WHERE((uint32_t)site, sync)
				 : 0;
	suspended_now[task] = done ? 0 : now;
	tp_sync_waited_poll_end(&t->sync_waited, done ? 0 : task, waits_at[task], now);
	if (!done) {
		mutex_site[task] = tp_span_section_site(sync, (uint32_t)site);
		tp_span_poll_end(s, &t->th, task, now - t->from, now, sync);
		suspended[task] = now;
		ended_path(&t->th.in, now);
		return;
	}
	tp_span_poll_end(NULL, &t->th, task, now - t->from, now, TP_SYNC_NONE);
	ended_path(&t->th.in, now);
	if (s->joins && row_of[task] <= LAST_SITE) { /* live_region_ends */
		tp_sync_joins_add(&joins[row_of[task]], now);
		t->commit_due |= region_of[s->parent] == 0; /* an outermost one's */
	}
	if (s->parent != 0 && alive[s->parent] == s->parent)
		tp_span_child_ended(&pool[s->parent - 1], &alive[s->parent], s->parent, s,
				    &t->th.in);
	uint64_t succ = successor_of[task];
	if (succ != 0 && alive[succ] == succ)
		tp_span_predecessor_ended(&pool[succ - 1], &alive[succ], succ, &t->th.in);
	alive[task] = 0;
}

void both_acquire(uint32_t tid, uint64_t ms, uint64_t task)
{
	event(TP_RECORD_TASK_ACQUIRE, tid, ms, (int64_t)task, TP_EXCLUSION_CRITICAL, LOCK, 0);
	struct live_thread *t = &threads[tid];
	uint64_t now = START_NS + ms * MS;
	/* its section is in its wait's site's row, or goes on in its task's when it has none */
	tp_span_acquire(&t->th, task, now, now - t->from, t->mutex_row, row_of[task], LOCK);
	t->from = now;
}

void both_release(uint32_t tid, uint64_t ms, uint64_t task)
{
	event(TP_RECORD_TASK_RELEASE, tid, ms, (int64_t)task, TP_EXCLUSION_CRITICAL, LOCK, 0);
	struct live_thread *t = &threads[tid];
	uint64_t now = START_NS + ms * MS;
	if (tp_span_release(&t->th, task, now, now - t->from, row_of[task], LOCK))
		t->from = now;
}

void both_mpi_wait(uint32_t tid, uint64_t from_ms, uint64_t to_ms)
{
	struct live_thread *t = &threads[tid];
	cr_assert(t->polled != 0 && to_ms >= from_ms, "an MPI wait inside a poll");
	event(TP_RECORD_WAIT_START, tid, from_ms, TP_WAIT_MPI, 1, -1, (int64_t)t->polled);
	event(TP_RECORD_WAIT_END, tid, to_ms, TP_WAIT_MPI, 1, 0, (int64_t)t->polled);
	/* live.c's live_fragment_resumes: the poll and its part start later by the wait */
	cr_assert(tp_span_wait_pauses(TP_WAIT_MPI));
	t->from += (to_ms - from_ms) * MS;
	t->poll_start += (to_ms - from_ms) * MS;
}

void both_image_start(uint64_t ms)
{
	stream_event(a, TIMELINE_IMAGE_START, 1, ms, 0, 0, 0, 0);
	program_ns = START_NS + ms * MS;
}

void both_wait_outside(uint32_t tid, uint64_t from_ms, uint64_t to_ms)
{
	cr_assert(threads[tid].polled == 0 && to_ms >= from_ms, "a wait outside a poll");
	event(TP_RECORD_WAIT_START, tid, from_ms, TP_WAIT_MPI, 1, -1, 0);
	event(TP_RECORD_WAIT_END, tid, to_ms, TP_WAIT_MPI, 1, 0, 0);
	threads[tid].waited_to = START_NS + to_ms * MS;
}

void expect_computation(uint64_t maximum_ms, uint64_t average_ms)
{
	struct analysis_figures f;
	cr_assert(analysis_figures(a, 0, &f));
	uint64_t computation[N];
	unsigned n = 0;
	for (unsigned i = 0; i < N; i++)
		if (threads[i].work > 0)
			computation[n++] = threads[i].work;
	struct tp_live_factors live = tp_live_factors_of(computation, n, 0, 1);
	cr_expect_eq(live.maximum_ns, maximum_ms * MS, "live: the most computation %" PRIu64,
		     live.maximum_ns);
	cr_expect_eq(live.average_ns, average_ms * MS, "live: the average computation %" PRIu64,
		     live.average_ns);
	cr_expect_eq(f.factors.maximum_ns, live.maximum_ns,
		     "the most computation: live %" PRIu64 ", --analyze %" PRIu64, live.maximum_ns,
		     f.factors.maximum_ns);
	cr_expect_eq(f.factors.average_ns, live.average_ns,
		     "the average computation: live %" PRIu64 ", --analyze %" PRIu64,
		     live.average_ns, f.factors.average_ns);
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
	/* the live engine's, as its readers take them: its places and its commit's */
	static struct tp_live_path_sites read;
	tp_live_path_sites_read(&commits, &longest, &read);
	cr_expect_eq(read.other_ns, 0, "live: %" PRIu64 " ns of the span in sites not kept",
		     read.other_ns);
	for (uint32_t row = 0; row <= LAST_SITE; row++) {
		struct on_path live = {0};
		for (unsigned i = 0; i < read.n; i++)
			if (read.sites[i].row == row) {
				live.ns += read.sites[i].ns;
				live.fragments += read.sites[i].fragments;
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

/* Both engines' sync sites: the time threads waited there and the waits, the same. */
static void expect_the_same_waits(void)
{
	for (uint32_t site = 1; site <= LAST_SITE; site++)
		for (unsigned sync = TP_SYNC_BARRIER; sync <= TP_SYNC_MUTEX; sync++) {
			uint64_t ns, count;
			analysis_sync_site(a, STREAM_PID, site, sync, &ns, &count);
			cr_expect_eq(waited[WHERE(site, sync)], ns,
				     "site %" PRIu32 ", sync %u, waited: live %" PRIu64
				     ", --analyze %" PRIu64,
				     site, sync, waited[WHERE(site, sync)], ns);
			cr_expect_eq(waits[WHERE(site, sync)], count,
				     "site %" PRIu32 ", sync %u, waits: live %" PRIu64
				     ", --analyze %" PRIu64,
				     site, sync, waits[WHERE(site, sync)], count);
		}
}

void expect_waited(uint32_t site, unsigned sync, uint64_t ms, uint64_t count)
{
	cr_expect_eq(waited[WHERE(site, sync)], ms * MS,
		     "site %" PRIu32 ", sync %u waited %" PRIu64 " ns, not %" PRIu64 " ms", site,
		     sync, waited[WHERE(site, sync)], ms);
	cr_expect_eq(waits[WHERE(site, sync)], count,
		     "site %" PRIu32 ", sync %u: %" PRIu64 " waits, not %" PRIu64, site, sync,
		     waits[WHERE(site, sync)], count);
}

static int by_value(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

/* The live engine's phases of barrier site `site` (those of threads that passed it), in order,
 * into `out`; how many. */
static unsigned live_phases(uint32_t site, uint64_t out[N])
{
	unsigned n = 0;
	for (unsigned tid = 0; tid < N; tid++)
		if (passed[site][tid])
			out[n++] = phases[site][tid];
	qsort(out, n, sizeof *out, by_value);
	return n;
}

/* Both engines' barriers' phases (sync_waited.h): each thread's computation before each, the
 * same. */
static void expect_the_same_phases(void)
{
	for (uint32_t site = 1; site <= LAST_SITE; site++) {
		uint64_t live[N], analyzed[N];
		unsigned n = live_phases(site, live), m = 0;
		analysis_barrier_phases(a, STREAM_PID, site, N, analyzed);
		for (unsigned i = 0; i < N; i++)
			if (analyzed[i] != UINT64_MAX)
				analyzed[m++] = analyzed[i];
		qsort(analyzed, m, sizeof *analyzed, by_value);
		cr_expect_eq(n, m,
			     "site %" PRIu32 ": %u threads passed its barrier live, %u in "
			     "--analyze",
			     site, n, m);
		for (unsigned i = 0; i < n && i < m; i++)
			cr_expect_eq(live[i], analyzed[i],
				     "site %" PRIu32 "'s phases, thread %u of %u: live %" PRIu64
				     ", --analyze %" PRIu64,
				     site, i, n, live[i], analyzed[i]);
	}
}

void expect_phases(uint32_t site, uint64_t least_ms, uint64_t most_ms)
{
	uint64_t live[N];
	unsigned n = live_phases(site, live);
	cr_expect(n == 2 && live[0] == least_ms * MS && live[1] == most_ms * MS,
		  "site %" PRIu32 "'s phases: %u threads, %" PRIu64 " and %" PRIu64
		  " ns, not %" PRIu64 " and %" PRIu64 " ms",
		  site, n, live[0], n > 1 ? live[1] : 0, least_ms, most_ms);
}

void expect_one_answer(uint64_t span_ms)
{
	struct analysis_figures f;
	cr_assert(analysis_figures(a, 0, &f));
	uint64_t fragments = 0;
	static struct tp_live_path_sites read;
	tp_live_path_sites_read(&commits, &longest, &read);
	for (unsigned i = 0; i < read.n; i++)
		fragments += read.sites[i].fragments;
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
	expect_the_same_waits();
	expect_the_same_phases();
}

char *analysis_text(void)
{
	char *text = stream_report(a);
	cr_assert_not_null(text);
	return text;
}

void expect_known_graph(uint64_t work_ms, uint64_t span_ms)
{
	expect_one_answer(span_ms);
	cr_expect_eq(work, work_ms * MS, "work %" PRIu64 ", not %" PRIu64 " ms", work, work_ms);
}
