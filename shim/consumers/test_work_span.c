// SPDX-License-Identifier: MIT
/*
 * The live statistics' work and span engine (work_span.h) fed made-up events, as live.c calls it,
 * where --analyze's engine (contrib/timeline/test_pop_conv.c) has a rule both must follow: no
 * program runs, no clock is read (meson test --suite unit). Times in milliseconds; each thread's
 * fragment goes on from `from` (live.c's span_from).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "work_span_events.h"

#define MS     1000000ull
#define US     1000ull
#define ROW    1u /* the tasks' site row */
#define SYNC   2u /* the critical construct's */
#define REGION 3u /* a parallel construct's */
#define OBJECT 0x5000u

static struct tp_span_task pool[16];
static uint64_t holds[16]; /* the objects the pool's tasks hold switched out */
static struct tp_span_mutex mutexes[TP_SPAN_MUTEXES];
static struct tp_span_shared forks[4];

/* A thread of the stream: its fragment's state and where its part going on began. */
struct thread {
	struct tp_span_thread th;
	uint64_t from;
};

static void setup(void)
{
	memset(pool, 0, sizeof pool);
	memset(mutexes, 0, sizeof mutexes);
	tp_span_pool_start(pool, holds, 16);
	tp_span_mutexes_start(mutexes);
	tp_span_forks_start(forks, 4);
}

TestSuite(work_span, .init = setup);

/* Task `task` (entry task - 1) spawned at `ms` with no parent, its start path `in` (NULL: none). */
static struct tp_span_task *spawned(uint64_t task, uint64_t ms, uint32_t fork_row,
				    const struct tp_live_path *in)
{
	struct tp_span_task *t = &pool[task - 1];
	tp_span_spawned(t, 0, 0, fork_row, NULL, 0, ms * MS, in, false);
	return t;
}

static void poll_start(struct thread *th, struct tp_span_task *t, uint64_t task, uint32_t row,
		       uint64_t ms, uint64_t suspended_ms)
{
	tp_span_poll_start(t, &th->th, task, row, ms * MS, suspended_ms * MS, NULL);
	th->from = ms * MS;
}

/* The poll ends at `ms`, waiting in `sync` (t NULL: the task ended). */
static void poll_end(struct thread *th, struct tp_span_task *t, uint64_t task, uint64_t ms,
		     uint32_t sync)
{
	tp_span_poll_end(t, &th->th, task, ms * MS - th->from, ms * MS, sync);
}

/* The task acquires the object at `ms`: its section in the critical construct's row. */
static void acquire(struct thread *th, uint64_t task, uint64_t ms)
{
	tp_span_acquire(&th->th, task, ms * MS, ms * MS - th->from, SYNC, ROW, OBJECT);
	th->from = ms * MS;
}

/* The task releases the object at `ms`: the rest of its poll in its task's row. */
static void release(struct thread *th, uint64_t task, uint64_t ms)
{
	tp_span_release(&th->th, task, ms * MS, ms * MS - th->from, ROW, OBJECT);
	th->from = ms * MS;
}

/*
 * Task 1 holds the object from 0 to 10, but its thread says its release at 20 only (preempted
 * between the runtime's unlock and the event); task 2 acquires it at 10 (its own code 0..5, its
 * wait from 5) and holds it to 20; task 3 (its own code 0..1) acquires it at 21. The sections are
 * a chain: task 2 starts after task 1's path up to 10, and the late release is not the object's
 * last: task 3 starts after task 2's release (path 20), not task 1's late one (20.5).
 */
Test(work_span, an_acquire_finding_the_object_held_takes_its_holders_path_so_far)
{
	struct thread a = {0}, b = {0}, c = {0};
	struct tp_span_task *t1 = spawned(1, 0, 0, NULL), *t2 = spawned(2, 0, 0, NULL),
			    *t3 = spawned(3, 0, 0, NULL);
	poll_start(&a, t1, 1, ROW, 0, 0);
	acquire(&a, 1, 0);
	poll_start(&b, t2, 2, ROW, 0, 0);
	poll_end(&b, t2, 2, 5, TP_SYNC_MUTEX);
	poll_start(&b, t2, 2, ROW, 10, 5);
	acquire(&b, 2, 10);
	cr_expect_eq(b.th.in.ns, 10 * MS, "task 2's start path %lu: not after task 1's 10 ms",
		     b.th.in.ns);
	release(&b, 2, 20);
	/* task 1's release, late: half a millisecond after its thread got back */
	tp_span_released(&a.th, 1, 20 * MS + MS / 2 - a.from, 20 * MS + MS / 2, false, OBJECT);
	poll_start(&c, t3, 3, ROW, 0, 0);
	poll_end(&c, t3, 3, 1, TP_SYNC_MUTEX);
	poll_start(&c, t3, 3, ROW, 21, 1);
	acquire(&c, 3, 21);
	cr_expect_eq(c.th.in.ns, 20 * MS, "task 3's start path %lu: not after task 2's release",
		     c.th.in.ns);
}

/*
 * Task 1 computes 0..15 and waits for the object from 15; task 2 holds it from 12 to 20; task 1
 * gets it at 20 and ends at 25. Its own path is the longer (15 against task 2's 8): the span 20,
 * and its wait is no start delay (it could not start before 20): burdened 20 as well.
 */
Test(work_span, a_mutex_wait_is_no_start_delay)
{
	struct thread a = {0}, b = {0};
	struct tp_span_task *t1 = spawned(1, 0, 0, NULL), *t2 = spawned(2, 12, 0, NULL);
	poll_start(&a, t1, 1, ROW, 0, 0);
	poll_end(&a, t1, 1, 15, TP_SYNC_MUTEX);
	poll_start(&b, t2, 2, ROW, 12, 0);
	acquire(&b, 2, 12);
	release(&b, 2, 20);
	poll_start(&a, t1, 1, ROW, 20, 15);
	acquire(&a, 1, 20);
	poll_end(&a, NULL, 1, 25, TP_SYNC_NONE);
	cr_expect_eq(a.th.in.ns, 20 * MS, "span %lu", a.th.in.ns);
	cr_expect_eq(a.th.in.burdened_ns, 20 * MS, "burdened span %lu: the wait a delay",
		     a.th.in.burdened_ns);
}

/*
 * A worker's implicit task spawned at 5, after the initial task's code so far (5 ms), before its
 * primary publishes the region's fork at 7 (the initial task's 7 ms): it starts after what stood
 * at its spawn, as --analyze's (analysis.c: on_spawn), not after the later fork. It polls 5..15.
 */
Test(work_span, a_fork_published_after_a_workers_spawn_is_not_on_its_path)
{
	struct thread w = {0};
	struct tp_live_path so_far = {.ns = 5 * MS, .burdened_ns = 5 * MS, .placed_ns = 5 * MS};
	struct tp_span_task *t = spawned(1, 5, REGION, &so_far);
	poll_start(&w, t, 1, REGION, 5, 0);
	struct tp_live_path fork = {.ns = 7 * MS, .burdened_ns = 7 * MS, .placed_ns = 7 * MS};
	fork.ended_ns = 7 * MS;
	tp_span_fork(REGION, &fork);
	poll_end(&w, NULL, 1, 15, TP_SYNC_NONE);
	cr_expect_eq(w.th.in.ns, 15 * MS, "the worker's path %lu: after the later fork",
		     w.th.in.ns);
}

/*
 * The initial task's poll from 0 (its fragment's start), its region's fork published at 4, an
 * earlier region's at 0 - 1: a worker waits for the initial task's code so far only while its
 * own region's fork is not published yet (before 4), an earlier poll's only.
 */
Test(work_span, a_worker_after_its_regions_fork_waits_for_nothing_of_the_initial_task)
{
	uint64_t poll = 10 * MS;
	cr_expect(tp_span_fork_waits_initial(0, poll), "no fork yet");
	cr_expect(tp_span_fork_waits_initial(poll - 1, poll), "an earlier poll's fork");
	cr_expect(!tp_span_fork_waits_initial(poll, poll), "a fork at the poll's start");
	cr_expect(!tp_span_fork_waits_initial(poll + 4 * MS, poll), "a fork in this poll");
	struct tp_live_path fork = {.ns = 4 * MS, .ended_ns = poll + 4 * MS};
	tp_span_fork(REGION, &fork);
	cr_expect_eq(tp_span_fork_at(REGION), poll + 4 * MS);
	cr_expect_eq(tp_span_fork_at(1u << 30), 0, "a row past the table: none");
}

/*
 * OpenMP's initial task's first poll, said at 50 ms: from the program's start (10), or from the
 * end of its thread's last wait if later (MPI_Init's, to 30); never later than said; where the
 * program's start is not known (a perf recording), where it was said.
 */
Test(work_span, the_initial_task_starts_with_the_program_after_its_last_wait)
{
	cr_expect_eq(tp_span_initial_start(50 * MS, 10 * MS, 0), 10 * MS);
	cr_expect_eq(tp_span_initial_start(50 * MS, 10 * MS, 30 * MS), 30 * MS);
	cr_expect_eq(tp_span_initial_start(50 * MS, 60 * MS, 0), 50 * MS, "a start after it");
	cr_expect_eq(tp_span_initial_start(50 * MS, 0, 30 * MS), 50 * MS, "no start known");
}

/* `p` extended by a fragment of site row `row`, `ns` long: the site's place then, -1: none. */
static int walk(struct tp_live_path *p, uint32_t row, uint64_t ns)
{
	tp_span_path_add(p, tp_span_path_site(p, row), ns);
	/* found where it is now; a path that kept it not is full: no free place taken here */
	unsigned at = tp_span_path_site(p, row);
	return at < TP_SPAN_PLACE_NEW ? (int)at : -1;
}

static uint64_t kept_ns(const struct tp_live_path *p)
{
	uint64_t kept = 0;
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++)
		kept += p->sites[k] & TP_LIVE_PATH_NS_MASK;
	return kept;
}

/*
 * A path through six sites in a row, regions of weights 6 to 1 (pop_path_sites's six constructs),
 * keeps four, each exact: the first four, taken while places were free; the two after them,
 * each with less time than the least kept, are the path's in sites not kept.
 */
Test(work_span, a_path_of_six_sites_keeps_the_four_with_the_most_time_exact)
{
	struct tp_live_path p = {0};
	for (uint32_t row = 6; row >= 3; row--)
		cr_expect_geq(walk(&p, row, row * MS), 0);
	cr_expect_eq(walk(&p, 2, 2 * MS), -1, "less than the least kept: not kept");
	cr_expect_eq(walk(&p, 1, 1 * MS), -1);
	cr_expect_eq(p.ns, 21 * MS);
	cr_expect_eq(kept_ns(&p), 18 * MS, "3 ms in sites not kept");
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++)
		cr_expect_eq(p.fragments[k], 1, "taken before any loss: exact, one fragment");
}

/*
 * A tree (omp_known_graphs.c's, its construct's loop unrolled into two calls: two sites): the
 * initial task, the region's implicit task (28 us), the single's task and one copy of the
 * construct fill the path; the other copy's fragment (2 ms) puts out the implicit task's site,
 * and the implicit task's moment after the barrier (10 us) puts out nothing. It put out the first
 * copy's 3 ms when a site new to a full path took a place at once: the construct's share read 65%
 * where the recording's analysis said 71%.
 */
Test(work_span, a_site_back_on_a_full_path_for_a_moment_puts_out_no_larger_one)
{
	struct tp_live_path p = {0};
	walk(&p, 0, 7 * MS);
	walk(&p, 1, 28 * US);
	walk(&p, 2, 2 * MS);
	int first = walk(&p, 4, 2 * MS);
	int second = walk(&p, 5, 2 * MS);
	cr_expect_geq(second, 0, "more time than the implicit task's 28 us: kept");
	cr_expect_eq(p.fragments[second], 1, "nothing given up before it: exact");
	cr_expect_eq(walk(&p, 4, 1 * MS), first, "the first copy kept where it was");
	cr_expect_eq(walk(&p, 1, 10 * US), -1, "10 us puts out no site of milliseconds");
	cr_expect_eq(p.sites[first] & TP_LIVE_PATH_NS_MASK, 3 * MS);
	cr_expect_eq(p.ns - kept_ns(&p), 38 * US, "the implicit task's, in sites not kept");
}

/*
 * Site 4, given up for a longer fragment of site 2, comes back with more time than the least
 * kept: its place says it may have been on the path before (TP_LIVE_PATH_SINCE_LOSS), its time
 * what it ran since, a lower bound; site 2 comes back for a moment and stays out.
 */
Test(work_span, a_site_taken_after_the_path_gave_one_up_is_a_lower_bound)
{
	struct tp_live_path q = {0};
	walk(&q, 6, 6 * MS), walk(&q, 5, 5 * MS), walk(&q, 4, 3 * MS), walk(&q, 3, 4 * MS);
	int two = walk(&q, 2, 3500 * US); /* puts out site 4 (3 ms) */
	cr_expect_geq(two, 0);
	cr_expect_eq(q.fragments[two], 1, "nothing given up before it: exact");
	walk(&q, 6, 6 * MS), walk(&q, 5, 5 * MS);
	int back = walk(&q, 4, 4 * MS); /* puts out site 2 (3.5 ms) */
	cr_expect_eq(back, two);
	cr_expect_eq(q.sites[back] & TP_LIVE_PATH_NS_MASK, 4 * MS, "its time since it came back");
	cr_expect_eq(q.fragments[back] & TP_LIVE_PATH_FRAGMENTS_MASK, 1);
	cr_expect(q.fragments[back] & TP_LIVE_PATH_SINCE_LOSS, "a lower bound, said so");
	cr_expect_eq(walk(&q, 2, 1 * US), -1, "back for a moment: not kept");
}

/*
 * Task 1's child ended with a path whose placed length is 100 ms, not joined yet when task 1
 * ended; its state goes to task 3, whose taskwait joins no child: its placed length is its own
 * poll's, nothing of the state's last task.
 */
Test(work_span, a_state_given_again_keeps_nothing_of_its_last_tasks_children)
{
	struct tp_span_task *t = spawned(1, 0, 0, NULL);
	struct tp_live_path end = {.ns = 10 * MS, .burdened_ns = 10 * MS, .placed_ns = 100 * MS};
	end.ended_ns = 10 * MS;
	uint64_t alive = 1; /* task 1's entry in the table of tasks alive */
	tp_span_child_ended(t, &alive, 1, &pool[1], &end);
	struct thread th = {0};
	tp_span_spawned(t, 0, 0, 0, NULL, 0, 20 * MS, NULL, false); /* task 3, in task 1's state */
	poll_start(&th, t, 3, ROW, 20, 0);
	poll_end(&th, t, 3, 21, TP_SYNC_TASKWAIT);
	poll_start(&th, t, 3, ROW, 22, 21);
	cr_expect_eq(th.th.in.placed_ns, 1 * MS, "task 3's placed length %lu ns: its poll's only",
		     th.th.in.placed_ns);
}

/* A path threads share (a fork, a barrier's frozen path) is read whole, with its moment. */
Test(work_span, a_shared_path_is_read_as_written)
{
	static struct tp_span_shared shared;
	struct tp_live_path p = {.ns = 5 * MS,
				 .burdened_ns = 6 * MS,
				 .ended_ns = 9 * MS,
				 .placed_ns = 7 * MS},
			    out;
	p.sites[1] = 3 * MS;
	p.fragments[1] = 2;
	tp_span_shared_write(&shared, &p, 8 * MS);
	cr_assert_eq(shared.seq % 2, 0, "a write leaves the sequence even");
	cr_assert_eq(tp_span_shared_read(&shared, &out), 8 * MS);
	cr_assert_eq(memcmp(&out, &p, sizeof p), 0, "the path read is the one written");
}

/*
 * A writer that never finishes (cancelled, or stopped in a signal handler waiting for the
 * reader) leaves its sequence odd: the reader takes what it finds, and the program goes on.
 */
Test(work_span, a_shared_path_left_half_written_stops_no_reader, .timeout = 10)
{
	static struct tp_span_shared shared;
	struct tp_live_path p = {.ns = 5 * MS}, out;
	tp_span_shared_write(&shared, &p, 8 * MS);
	shared.seq++; /* a write begun, never ended */
	cr_assert_eq(tp_span_shared_read(&shared, &out), 8 * MS);
	cr_assert_eq(out.ns, 5 * MS);
}

/* The path's time by site as a reader takes it (tp_live_path_sites_read), by row. */
static uint64_t read_sites(const struct tp_live_commits *c, const struct tp_live_path *p,
			   uint64_t by_row[8], uint32_t fragments[8])
{
	static struct tp_live_path_sites read;
	memset(by_row, 0, 8 * sizeof *by_row);
	memset(fragments, 0, 8 * sizeof *fragments);
	tp_live_path_sites_read(c, p, &read);
	for (unsigned i = 0; i < read.n; i++) {
		cr_assert_lt(read.sites[i].row, 8);
		by_row[read.sites[i].row] += read.sites[i].ns;
		fragments[read.sites[i].row] += read.sites[i].fragments;
	}
	return read.other_ns;
}

/*
 * A time-step loop of six regions a step (pop_path_sites's six constructs, weights 6 to 1 ms), a
 * millisecond of the initial task's serial code before each, the initial task's path committed as
 * it goes on after each region's join: two steps through seven sites, every one of them exact
 * (four places kept two to three of them: the rest was time in sites not kept).
 */
Test(work_span, regions_in_a_row_committed_keep_every_sites_time_exact)
{
	static struct tp_live_commits c;
	memset(&c, 0, sizeof c);
	struct tp_live_path p = {0};
	for (int step = 0; step < 2; step++)
		for (uint32_t row = 6; row >= 1; row--) {
			walk(&p, 0, 1 * MS);
			cr_expect_geq(walk(&p, row, row * MS), 0, "a free place for region %u",
				      row);
			cr_assert(tp_span_commit(&c, &p));
		}
	cr_expect_eq(c.count, 12);
	cr_expect_eq(c.seq % 2, 0, "no commit left half written");
	cr_expect_eq(p.ns, 2 * (6 + 21) * MS);
	uint64_t ns[8];
	uint32_t fragments[8];
	cr_expect_eq(read_sites(&c, &p, ns, fragments), 0, "no time in sites not kept");
	cr_expect_eq(ns[0], 12 * MS, "the serial code's");
	cr_expect_eq(fragments[0], 12);
	for (uint32_t row = 1; row <= 6; row++) {
		cr_expect_eq(ns[row], 2 * row * MS, "region %u's %lu ns", row, ns[row]);
		cr_expect_eq(fragments[row], 2);
	}
	walk(&p, 3, 5 * MS); /* after the last commit: a place's, beside the commit's */
	read_sites(&c, &p, ns, fragments);
	cr_expect_eq(ns[3], 11 * MS, "region 3's, its commit's and its place's");
}

/*
 * A path that won a join over the initial task's (a worker's, preempted after its region's
 * barrier) carries the commit before the last: committed again, the new snapshot is built on that
 * one, not on the last (whose region it never ran); one older than the snapshots kept is not
 * committed, and a reader says its committed time in sites not kept, and its places' times as
 * lower bounds (they may have run before the commit too: a second root's regions, read exact,
 * said 4.7% of a site's 13.2%).
 */
Test(work_span, a_path_of_an_older_commit_builds_on_its_own)
{
	static struct tp_live_commits c;
	memset(&c, 0, sizeof c);
	struct tp_live_path p = {0};
	walk(&p, 1, 1 * MS);
	cr_assert(tp_span_commit(&c, &p)); /* 1: region 1 */
	struct tp_live_path worker = p;
	walk(&worker, 2, 4 * MS); /* the worker's tail, preempted */
	walk(&p, 3, 2 * MS);
	cr_assert(tp_span_commit(&c, &p));                                     /* 2: region 3 */
	cr_assert(tp_span_commit(&c, &worker), "built on commit 1, one back"); /* 3 */
	uint64_t ns[8];
	uint32_t fragments[8];
	cr_expect_eq(read_sites(&c, &worker, ns, fragments), 0);
	cr_expect_eq(ns[1], 1 * MS);
	cr_expect_eq(ns[2], 4 * MS);
	cr_expect_eq(ns[3], 0, "commit 2's region is not on this path");
	read_sites(&c, &p, ns, fragments);
	cr_expect_eq(ns[3], 2 * MS, "commit 2 is still read");
	struct tp_live_path old = p; /* label 2 */
	for (uint32_t row = 4; row <= 6; row++) {
		walk(&p, row, 1 * MS);
		cr_assert(tp_span_commit(&c, &p));
	}
	walk(&old, 5, 1 * MS);
	struct tp_live_path kept = old;
	cr_expect_not(tp_span_commit(&c, &old), "commit 2 is 4 back: its snapshot is gone");
	cr_expect_eq(memcmp(&old, &kept, sizeof old), 0, "the path as it was");
	cr_expect_eq(read_sites(&c, &old, ns, fragments), 3 * MS, "its commit's time not known");
	cr_expect_eq(ns[5], 1 * MS, "its place's");
	static struct tp_live_path_sites read;
	tp_live_path_sites_read(&c, &old, &read);
	for (unsigned i = 0; i < read.n; i++)
		cr_expect(read.sites[i].at_least, "row %u: its time before the commit not known",
			  read.sites[i].row);
	tp_live_path_sites_read(&c, &p, &read);
	for (unsigned i = 0; i < read.n; i++)
		cr_expect_not(read.sites[i].at_least, "row %u of a path its commit read: exact",
			      read.sites[i].row);
}

/*
 * A site of 2^30 fragments on a path (a chain of a billion dependent tasks of one construct) is a
 * site still: a committed place is told by its tag (0), not by a bit of its fragments word, which
 * such a count reached (the site's time then read as in sites not kept, and a commit built on
 * another lineage's snapshot).
 */
Test(work_span, a_site_of_a_billion_fragments_is_no_committed_place)
{
	static struct tp_live_commits c;
	memset(&c, 0, sizeof c);
	struct tp_live_path p = {0};
	walk(&p, 5, 11 * MS);
	p.fragments[0] = 1u << 30;
	uint64_t ns[8];
	uint32_t fragments[8];
	cr_expect_eq(read_sites(&c, &p, ns, fragments), 0);
	cr_expect_eq(ns[5], 11 * MS);
	cr_expect_eq(fragments[5], 1u << 30);
	cr_assert(tp_span_commit(&c, &p));
	cr_expect_eq(read_sites(&c, &p, ns, fragments), 0);
	cr_expect_eq(ns[5], 11 * MS, "committed whole");
}

/*
 * A thread whose initial task resumes inside a mutual exclusion's section (a lock held across a
 * region) goes on in the section's site after a commit, as before it: its fragment's part going
 * on is the section's (tp_span_part_site), not its task's.
 */
Test(work_span, a_section_going_on_keeps_its_site_past_a_commit)
{
	static struct tp_live_commits c;
	memset(&c, 0, sizeof c);
	struct tp_span_thread th = {0};
	walk(&th.in, 1, 1 * MS), walk(&th.in, 2, 1 * MS), walk(&th.in, REGION, 1 * MS);
	th.section_row = SYNC;
	th.site_at = tp_span_path_site(&th.in, SYNC);
	tp_span_thread_commits(&th, &c, TP_LIVE_NO_SITE, true);
	cr_assert_eq(c.count, 1, "a path of four places used is committed");
	cr_assert_lt(th.site_at, TP_SPAN_PLACE_NEW);
	cr_expect_eq(TP_LIVE_PATH_ROW_OF(th.in.sites[th.site_at]), SYNC, "the section's place");
}

/*
 * A path that gave a place up since its commit (a region of more sites than its free places): a
 * site of the commit's snapshot may be the one given up, its time since in sites not kept, so its
 * time is a lower bound; a place taken before the loss is exact. Without the bound, a second
 * root's path of more sites, joined at a barrier, read 5.8% of a construct's 9.1% as exact.
 */
Test(work_span, a_commits_sites_are_bounds_once_the_path_gives_a_place_up)
{
	static struct tp_live_commits c;
	memset(&c, 0, sizeof c);
	struct tp_live_path p = {0};
	walk(&p, 1, 5 * MS);
	cr_assert(tp_span_commit(&c, &p));
	walk(&p, 2, 4 * MS), walk(&p, 3, 3 * MS), walk(&p, 4, 2 * MS);
	walk(&p, 1, 6 * MS); /* puts out site 4: a lost place */
	static struct tp_live_path_sites read;
	tp_live_path_sites_read(&c, &p, &read);
	cr_expect_eq(read.other_ns, 2 * MS, "site 4's time, given up");
	cr_assert_eq(read.n, 4, "row 1's commit, then the places of rows 1, 2 and 3");
	for (unsigned i = 0; i < read.n; i++) {
		const struct tp_live_path_site *s = &read.sites[i];
		bool committed = s->row == 1 && s->ns == 5 * MS;
		cr_expect_eq(s->at_least, committed, "row %u's %lu ns: %s", s->row, s->ns,
			     committed ? "the commit's, a bound" : "a place's, exact");
	}
}
