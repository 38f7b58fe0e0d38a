// SPDX-License-Identifier: MIT
/*
 * The console's reader of live statistics (live_view.h) fed files forged here (forged_live.h),
 * for this very process, and read in-process: no program runs under the shim, no console is
 * started (meson test --suite unit: a fraction of a second). The figures read are the ones
 * written; a header whose sizes or offsets do not fit the file, or that names another process,
 * is refused before anything past it is read; a file that shrinks after its opening is said.
 * And a snapshot's thread in the console's words (top_lines.c).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "forged_live.h"
#include "live_view.h"
#include "taskprobe_contract.h"
#include "top_lines.h"
#include "taskprobe_figures.h"
#include "taskprobe_mpi_job.h"

static char dir[] = "/tmp/taskprobe-live-read-XXXXXX";
static char *path;
static struct live_file file;
static struct live_snapshot snapshot; /* too large a local */
static char why[1024];

static void make_dir(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
	live_close(&file);
	if (path != NULL)
		unlink(path);
	free(path);
	rmdir(dir);
}

TestSuite(live_read, .init = make_dir, .fini = remove_dir);

/* Writes `f` for this process and opens it as the console does (--dir). */
static enum live_open_result open_forged(const struct forged *f)
{
	free(path);
	path = write_forged(dir, getpid(), f);
	return live_open(&file, getpid(), dir, why, sizeof why);
}

Test(live_read, reads_the_figures_a_forged_file_holds)
{
	const struct forged f = forged_for(getpid());
	cr_assert_eq(open_forged(&f), LIVE_OPENED, "%s", why);
	cr_expect_eq(live_spawned(&file), FORGED_SPAWNED);
	cr_assert(live_snapshot(&file, NULL, &snapshot, why, sizeof why), "%s", why);
	const struct live_snapshot *s = &snapshot;
	cr_expect_eq(s->header.pid, (uint32_t)getpid());
	cr_expect_str_eq(s->comm, "forgedcomm");
	cr_assert_eq(s->n_sites, 1);
	const struct site_view *v = &s->sites[0];
	cr_expect_eq(v->row, 1);
	cr_expect_str_eq(v->text, "forged_site (forged.c:7)");
	cr_expect_eq(v->spawned, FORGED_SPAWNED);
	cr_expect_eq(v->done, FORGED_DONE);
	cr_expect_eq(v->alive, FORGED_SPAWNED - FORGED_DONE);
	cr_expect_eq(v->polls, 4);
	cr_expect_eq(v->busy_ns, 1000);
	cr_expect_eq(v->polling_now, 1, "its one thread polls it");
	cr_expect_eq(s->spawned, FORGED_SPAWNED);
	cr_expect_eq(s->done, FORGED_DONE);
	cr_expect_eq(s->alive, FORGED_SPAWNED - FORGED_DONE);
	cr_assert_eq(s->n_threads, 1);
	cr_expect_eq(s->threads[0].tid, FORGED_TID);
	cr_expect_str_eq(s->threads[0].name, "forged-thread");
	cr_expect(s->threads[0].worker);
	cr_expect_eq(s->threads[0].polls, 4);
	cr_expect_eq(s->threads[0].site, 1);
	cr_expect_eq(s->n_waits, 0);
	cr_expect_eq(live_site(s, 1), v);
}

/* A header each case makes bad, the result and the words that say why. */
struct bad_header {
	const char *what;
	enum forged_flaw flaw;
	enum live_open_result result;
	const char *said;
};

static void expect_refused(const struct forged *f, const struct bad_header *c)
{
	enum live_open_result r = open_forged(f);
	cr_expect_eq(r, c->result, "%s: %d, %s", c->what, (int)r, why);
	cr_expect(strstr(why, c->said) != NULL, "%s: %s", c->what, why);
	cr_expect_null(file.map, "%s: mapped", c->what);
	live_close(&file);
}

Test(live_read, refuses_sizes_and_offsets_that_do_not_fit_the_file)
{
	static const struct bad_header cases[] = {
		{"rows far past the end", FORGED_ROWS_PAST_END, LIVE_BAD,
		 "its rows_offset is 1152921504606846976"},
		{"a stride past the end", FORGED_STRIDE_PAST_END, LIVE_BAD,
		 "its rows_stride is 1152921504606846976"},
		{"a size larger than the layout's", FORGED_SIZE_PAST_LAYOUT, LIVE_BAD,
		 "its file_size is 1099511627776"},
		{"a header shorter than the layout's", FORGED_HEADER_SHORT, LIVE_BAD,
		 "its header_size is 8"},
		{"a size smaller than the layout's", FORGED_SIZE_UNDER_LAYOUT, LIVE_BAD,
		 "its file_size is 4096"},
	};
	const struct forged good = forged_for(getpid());
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct forged f = good;
		forged_flaw(&f, cases[i].flaw);
		expect_refused(&f, &cases[i]);
	}
}

Test(live_read, refuses_a_file_shorter_than_its_header_says)
{
	const struct forged f = forged_for(getpid());
	free(path);
	path = write_forged(dir, getpid(), &f);
	cr_assert_eq(truncate(path, 65536), 0);
	cr_expect_eq(live_open(&file, getpid(), dir, why, sizeof why), LIVE_BAD, "%s", why);
	cr_expect(strstr(why, "cut short") != NULL && strstr(why, "refused") != NULL, "%s", why);
	cr_expect_null(file.map);
}

Test(live_read, refuses_another_layout_and_another_process)
{
	const struct forged good = forged_for(getpid());
	static const struct bad_header cases[] = {
		{"another version", FORGED_OTHER_VERSION, LIVE_BAD, "has another layout (version "},
		{"not a live statistics file", FORGED_OTHER_MAGIC, LIVE_MISSING,
		 "not taskprobe's live statistics"},
		{"another pid", FORGED_PID_1, LIVE_STALE, "names pid 1, not"},
		{"an earlier process with the pid", FORGED_EARLIER_PROCESS, LIVE_STALE,
		 "of an earlier process with pid"},
		{"another pid namespace", FORGED_OTHER_PID_NAMESPACE, LIVE_STALE,
		 "of another pid namespace"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct forged f = good;
		forged_flaw(&f, cases[i].flaw);
		expect_refused(&f, &cases[i]);
	}
}

Test(live_read, says_a_file_that_shrinks_after_it_was_opened)
{
	const struct forged f = forged_for(getpid());
	cr_assert_eq(open_forged(&f), LIVE_OPENED, "%s", why);
	cr_assert_eq(truncate(path, 4096), 0);
	cr_expect_not(live_snapshot(&file, NULL, &snapshot, why, sizeof why));
	cr_expect(strstr(why, "shrank to 4096 bytes") != NULL, "%s", why);
	cr_expect_eq(live_spawned(&file), 0, "nothing read past the end");
}

/*
 * A parallel region of two rows (an unrolled loop's two call addresses of one construct) read
 * over both (tp_live_region_read, the console's and the exit report's one reader): each thread's
 * computation added up over the rows, then balanced. Thread 0 computed 1 and 3 ms at the two,
 * thread 1 3 and 1: each row alone 0.667, the construct 1.000; a slot free or without rows,
 * however its rows read, is no thread of it.
 */
Test(live_read, a_region_of_two_rows_is_balanced_over_its_threads_sums)
{
	const uint64_t stride = TP_LIVE_SITES * sizeof(struct tp_live_site_stats);
	struct tp_live_thread *slots = calloc(TP_LIVE_THREADS, sizeof *slots);
	char *map = calloc(TP_LIVE_THREADS, stride);
	cr_assert(slots != NULL && map != NULL);
	const uint64_t ns[4][2] = {{1000000, 3000000}, {3000000, 1000000}, {5, 5}, {7, 7}};
	for (unsigned i = 0; i < 4; i++) {
		slots[i].in_use = i == 2 ? TP_LIVE_SLOT_FREE : TP_LIVE_SLOT_LIVE;
		slots[i].rows_ready = i != 3;
		struct tp_live_site_stats *rows = (void *)(map + i * stride);
		rows[1].region_ns = ns[i][0];
		rows[2].region_ns = ns[i][1];
	}
	const uint32_t both[] = {1, 2};
	struct tp_live_region r = tp_live_region_read(slots, map, 0, stride, both, 2, 0);
	cr_expect_eq(r.threads, 2);
	cr_expect_eq(r.computation_ns, 8000000);
	cr_expect_float_eq(r.load_balance, 1.0, 1e-9);
	r = tp_live_region_read(slots, map, 0, stride, both, 1, 0);
	cr_expect_eq(r.computation_ns, 4000000);
	cr_expect_float_eq(r.load_balance, 2.0 / 3, 1e-9);
	free(slots);
	free(map);
}

/*
 * A parallel region's time and efficiency (every reader's): its instances' times from fork to
 * join, kept in the rows of the threads that were their primaries, added up over its rows and
 * threads; its efficiency the threads' average computation over that time. Thread 0 was the
 * primary of instances of 4 ms at one row and 2 ms at the other, thread 1 of one of 2 ms; each
 * thread computed 3 and 1 ms: 8 ms of time, 4 ms a thread on average, 0.500. A region whose
 * one instance goes on has its time so far (its primary's slot's fork_row and fork_ns: 1 ms a
 * thread in 1.25 ms, 0.800), none before its fork ("-"; before version 18, "-" while it went on,
 * a whole program's region to its end); a reader that counts a fragment going on, not yet its
 * instance's time, says at most 1; one nested in another or holding one has none.
 */
Test(live_read, a_regions_efficiency_is_its_threads_computation_over_its_time)
{
	const uint64_t stride = TP_LIVE_SITES * sizeof(struct tp_live_site_stats);
	struct tp_live_thread *slots = calloc(TP_LIVE_THREADS, sizeof *slots);
	char *map = calloc(TP_LIVE_THREADS, stride);
	cr_assert(slots != NULL && map != NULL);
	const uint64_t time[2][2] = {{4000000, 2000000}, {2000000, 0}};
	for (unsigned i = 0; i < 2; i++) {
		slots[i].in_use = TP_LIVE_SLOT_LIVE;
		slots[i].rows_ready = true;
		struct tp_live_site_stats *rows = (void *)(map + i * stride);
		rows[1].region_ns = 3000000;
		rows[2].region_ns = 1000000;
		rows[1].region_time_ns = time[i][0];
		rows[2].region_time_ns = time[i][1];
		rows[3].region_ns = 1000000; /* a region of one long instance going on */
		rows[4].region_ns = 5000000;
		rows[4].region_time_ns = i == 0 ? 2000000 : 0;
	}
	const uint32_t both[] = {1, 2}, going_on[] = {3}, counted_ahead[] = {4};
	struct tp_live_region r = tp_live_region_read(slots, map, 0, stride, both, 2, 0);
	char words[24];
	cr_expect_eq(r.time_ns, 8000000);
	cr_expect_float_eq(tp_live_region_efficiency(&r), 0.5, 1e-9);
	cr_expect_str_eq(tp_live_efficiency_words(&r, words, sizeof words), "0.500");
	cr_expect_str_eq(tp_live_region_time_words(r.time_ns, words, sizeof words), "8.00 ms");
	r = tp_live_region_read(slots, map, 0, stride, going_on, 1, 0);
	cr_expect_eq(r.time_ns, 0);
	cr_expect_str_eq(tp_live_efficiency_words(&r, words, sizeof words), "-");
	cr_expect_str_eq(tp_live_region_time_words(r.time_ns, words, sizeof words), "-");
	slots[0].fork_row = 3;
	slots[0].fork_ns = 10000000;
	r = tp_live_region_read(slots, map, 0, stride, going_on, 1, 11250000);
	cr_expect_eq(r.time_ns, 1250000);
	cr_expect_str_eq(tp_live_efficiency_words(&r, words, sizeof words), "0.800");
	r = tp_live_region_read(slots, map, 0, stride, going_on, 1, 9000000);
	cr_expect_str_eq(tp_live_efficiency_words(&r, words, sizeof words), "-");
	slots[0].fork_row = 0;
	r = tp_live_region_read(slots, map, 0, stride, counted_ahead, 1, 0);
	cr_expect_str_eq(tp_live_efficiency_words(&r, words, sizeof words), "1.000");
	/* a region one thread forked a nested one inside: no efficiency */
	((struct tp_live_site_stats *)(map + stride))[1].region_nested = 1;
	r = tp_live_region_read(slots, map, 0, stride, both, 2, 0);
	cr_expect(r.nested && r.time_ns == 8000000);
	cr_expect_str_eq(tp_live_efficiency_words(&r, words, sizeof words), "-");
	free(slots);
	free(map);
}

/*
 * A barrier's phases (tp_live_phase_read, every live reader's: sync_waited.h): each thread that
 * passed the barrier, at either of its rows, counts, one that computed nothing before it too.
 * Thread 0 computed 4 ms before it, thread 1 passed it having computed nothing (a loop of one
 * iteration on two threads), thread 2 never reached it: balance 0.5 over two threads, where
 * leaving thread 1 out would say 1.0. No thread passed: no balance ("-").
 */
Test(live_read, a_barriers_phases_count_every_thread_that_passed_it)
{
	const uint64_t stride = TP_LIVE_SITES * sizeof(struct tp_live_site_stats);
	struct tp_live_thread *slots = calloc(TP_LIVE_THREADS, sizeof *slots);
	char *map = calloc(TP_LIVE_THREADS, stride);
	cr_assert(slots != NULL && map != NULL);
	for (unsigned i = 0; i < 3; i++) {
		slots[i].in_use = TP_LIVE_SLOT_LIVE;
		slots[i].rows_ready = true;
	}
	struct tp_live_site_stats *rows0 = (void *)map, *rows1 = (void *)(map + stride);
	rows0[1].phase_ns = 1000000;
	rows0[1].sync_waits = 1;
	rows0[2].phase_ns = 3000000;
	rows0[2].sync_waits = 1;
	rows1[2].sync_waits = 2;
	const uint32_t both[] = {1, 2}, none[] = {3};
	struct tp_live_region r = tp_live_phase_read(slots, map, 0, stride, both, 2);
	char words[16];
	cr_expect_eq(r.threads, 2);
	cr_expect_eq(r.computation_ns, 4000000);
	cr_expect_str_eq(tp_live_balance_words(&r, words, sizeof words), "0.500");
	r = tp_live_phase_read(slots, map, 0, stride, none, 1);
	cr_expect_str_eq(tp_live_balance_words(&r, words, sizeof words), "-");
	free(slots);
	free(map);
}

/*
 * A site's share of the span as the console's SPAN% column says it and as the exit report does
 * (tp_live_share_words, one decimal): a lower bound is cut down, never rounded up, and one that
 * is nothing at the column's precision is "?" in both, not ">0%" in one and "?" in the other.
 */
Test(live_read, a_share_of_the_span_is_said_alike_by_the_console_and_the_report)
{
	static struct site_view site;
	char said[16];
	snapshot.path_ns = 1000000;
	snapshot.path_other_ns = 0;
	const struct {
		uint64_t ns;
		bool at_least;
		const char *console, *report;
	} shares[] = {
		{0, false, "-", "-"},         {3000, false, "<1%", "0.3%"},
		{3000, true, "?", ">=0.3%"},  {9900, true, "?", ">=0.9%"},
		{500, true, "?", "?"},        {19000, true, ">=1%", ">=1.9%"},
		{19900, false, "2%", "2.0%"}, {250000, true, ">=25%", ">=25.0%"},
	};
	for (size_t i = 0; i < sizeof shares / sizeof shares[0]; i++) {
		site.path_ns = shares[i].ns;
		site.path_at_least = shares[i].at_least;
		live_format_span_share(said, sizeof said, &snapshot, &site);
		cr_expect_str_eq(said, shares[i].console, "%" PRIu64 " ns", shares[i].ns);
		if (shares[i].ns == 0)
			snprintf(said, sizeof said, "%s", tp_live_no_share_words(0));
		else
			tp_live_share_words(said, sizeof said, 100.0 * (double)shares[i].ns / 1e6,
					    1, shares[i].at_least);
		cr_expect_str_eq(said, shares[i].report, "%" PRIu64 " ns", shares[i].ns);
	}
	snapshot.path_other_ns = 1;
	site.path_ns = 0;
	live_format_span_share(said, sizeof said, &snapshot, &site);
	cr_expect_str_eq(said, "?");
}

/* A thread's NOW in words (top_lines.c), for a thread parked by its wait: that wait's time once,
 * and its kind with its article ("parked for 7.26s in a epoll wait at ... for 7.26s" before:
 * LULESH's Open MPI threads). One parked longer than its wait says both. */
Test(live_read, a_thread_parked_in_a_wait_says_its_time_once)
{
	memset(&snapshot, 0, sizeof snapshot);
	snapshot.n_threads = 1;
	struct thread_view *w = &snapshot.threads[0];
	*w = (struct thread_view){.tid = 42,
				  .state = TP_LIVE_PARKED,
				  .wait_kind = TP_WAIT_EPOLL,
				  .state_for_ns = 7260000000,
				  .wait_for_ns = 7260000000};
	snprintf(w->name, sizeof w->name, "%s", "pmix");
	snprintf(w->wait_site, sizeof w->wait_site, "%s", "0x26724 (libevent_core-2.1.so.7)");
	struct worker_layout layout = every_worker_column(&snapshot);
	char line[1024];
	worker_line(line, sizeof line, &snapshot, w, &layout);
	cr_expect(strstr(line, "  parked in an epoll wait at 0x26724 (libevent_core-2.1.so.7) for "
			       "7.26s") != NULL,
		  "%s", line);
	w->wait_kind = TP_WAIT_FUTEX;
	w->wait_for_ns = 2000000000;
	worker_line(line, sizeof line, &snapshot, w, &layout);
	cr_expect(strstr(line, "  parked for 7.26s in a futex wait at 0x26724 "
			       "(libevent_core-2.1.so.7) for 2.00s") != NULL,
		  "%s", line);
}

/*
 * The task time histogram's reading (tp_live_quantile, every reader's): tasks of one size read
 * as their size, not as their log2 bucket's middle (1 ms tasks read 786 us before the rows kept
 * where in their buckets the times lie). Two threads' rows: 70 tasks of 1 ms, one of 1.15 ms and
 * nine preempted ones of 9 ms (the last cost bucket's: it counts every task of 2.1 ms or more)
 * between them, as omp_steps ran beside a CPU hog: 1 ms. The spawn gaps' histogram keeps no
 * positions: its median is read over the whole bucket.
 */
Test(live_read, tasks_of_one_size_read_as_their_size)
{
	/* their log2 buckets: 19, 20 and 23, counted in the last cost bucket, 21 */
	const uint64_t times[] = {1000000, 1150000, 9000000}, tasks[] = {70, 1, 9};
	const unsigned bucket[] = {19, 20, 21};
	struct tp_live_site_stats rows[2] = {0};
	for (unsigned k = 0; k < 3; k++) {
		for (uint64_t n = 0; n < tasks[k]; n++) {
			unsigned b = bucket[k] - TP_LIVE_COST_SHIFT;
			rows[n % 2].task_time_histogram[b]++;
			unsigned log2 = 63 - (unsigned)__builtin_clzll(times[k]);
			rows[n % 2].task_time_positions[b] += tp_live_cost_position(times[k], log2);
		}
	}
	rows[0].spawn_gap_histogram[11 - TP_LIVE_COST_SHIFT] = 4; /* [2048, 4096) ns */
	struct tp_live_costs c = {0};
	tp_live_costs_add(&c, &rows[0]);
	tp_live_costs_add(&c, &rows[1]);
	struct tp_live_granularity g = tp_live_granularity_of(&c, 80, 0);
	/* spread evenly over the 48 us between their mean and the nearer bound: within 1% */
	cr_expect(g.task_ns >= 990000 && g.task_ns <= 1010000, "%" PRIu64, g.task_ns);
	cr_expect_eq(g.spawn_ns, 3072);
	/* without the positions, as a file of an earlier layout: their bucket read at 40 of its 70 */
	cr_expect_eq(tp_live_quantile(c.task_time, 0.5, 0, NULL, NULL), 524288 + 524288 * 40 / 70);
	/* the 99th: the last bucket's, which counts longer tasks than its own (9 ms, 2.1 octaves
	 * above it), read in the octave of their positions' mean, [2^23, 2^24) ns, around it as far
	 * as the nearer bound: [8.4, 9.6) ms (within a 256th of an octave), at 8.2 of its 9, under
	 * every one of them (spread from 2^21 to twice their mean, 15.8 ms); without positions, over
	 * its own bucket, [2^21, 2^22) */
	uint64_t p99 = tp_live_quantile(c.task_time, 0.99, 0, c.task_time_positions,
					c.task_time_positioned),
		 wanted = 8388608 + (uint64_t)(2 * (9000000 - 8388608) * (0.99 * 80 - 71) / 9);
	cr_expect(p99 > wanted * 0.995 && p99 < wanted * 1.005 && p99 < 9600000,
		  "%" PRIu64 " %" PRIu64, p99, wanted);
	cr_expect_eq(tp_live_quantile(c.task_time, 0.99, 0, NULL, NULL),
		     2097152 + (uint64_t)(2097152 * (0.99 * 80 - 71) / 9));
	/* a reader that loads a count before the position the writer adds after it, or a position
	 * before its count: read inside the bucket all the same */
	uint64_t one[TP_LIVE_BUCKETS] = {[19] = 1}, beyond[TP_LIVE_BUCKETS] = {[19] = 600};
	uint64_t v = tp_live_quantile(one, 0.5, 0, beyond, one);
	cr_expect(v >= 524288 && v < 1048576, "%" PRIu64, v);
}

/*
 * Tasks of 2.1 ms or more, which the task time histogram's last bucket counts together: read as
 * their size, from their positions in octaves above the bucket (tp_live_cost_position), not as
 * ">=2.10 ms". A site's one task (a program's initial task, the single task of BOTS sparselu:
 * 1146 ms and 7.3 ms) reads its time; a time-step loop's regions of 6 ms a thread read 6 ms, and
 * one region preempted for 60 ms among forty moves them by a few percent (their mean time, by
 * 25%); a median of shorter tasks is read as before.
 */
static uint64_t median_of(const uint64_t *times, const unsigned *tasks, unsigned kinds)
{
	struct tp_live_site_stats row = {0};
	uint64_t done = 0;
	for (unsigned k = 0; k < kinds; k++) {
		unsigned log2 = 63 - (unsigned)__builtin_clzll(times[k]),
			 b = (log2 < TP_LIVE_COST_OPEN ? log2 : TP_LIVE_COST_OPEN) -
			     TP_LIVE_COST_SHIFT;
		row.task_time_histogram[b] += tasks[k];
		row.task_time_positions[b] += tasks[k] * tp_live_cost_position(times[k], log2);
		done += tasks[k];
	}
	struct tp_live_costs c = {0};
	tp_live_costs_add(&c, &row);
	return tp_live_granularity_of(&c, done, 0).task_ns;
}

Test(live_read, long_tasks_read_as_their_size)
{
	char words[32];
	uint64_t one = median_of((const uint64_t[]){1146265000}, (const unsigned[]){1}, 1);
	cr_expect(one > 1146265000 * 0.997 && one < 1146265000 * 1.003, "%" PRIu64, one);
	cr_expect_str_eq(tp_live_task_time_words(
				 median_of((const uint64_t[]){7300000}, (const unsigned[]){1}, 1),
				 words, sizeof words),
			 "7.30 ms");
	uint64_t steps = median_of((const uint64_t[]){6000000}, (const unsigned[]){40}, 1);
	cr_expect_str_eq(tp_live_task_time_words(steps, words, sizeof words), "6.00 ms");
	uint64_t preempted = median_of((const uint64_t[]){6000000, 60000000},
				       (const unsigned[]){39, 1}, 2);
	cr_expect(preempted > 6000000 && preempted < 6000000 * 1.07, "%" PRIu64, preempted);

	/* five of 100 ms beside three of 1 ms: the median, the second of the five, in the octave
	 * of their mean, [67, 134) ms, around it: [67, 134) at a fifth of it, 80 ms (spread from
	 * 2.1 ms to twice their mean it read 41 ms) */
	uint64_t bimodal = median_of((const uint64_t[]){1000000, 100000000},
				     (const unsigned[]){3, 5}, 2);
	cr_expect(bimodal > 75000000 && bimodal < 85000000, "%" PRIu64, bimodal);

	/* a median below the open bucket: the long task changes nothing */
	uint64_t mixed = median_of((const uint64_t[]){1000000, 60000000}, (const unsigned[]){3, 1},
				   2),
		 alone = median_of((const uint64_t[]){1000000, 3000000}, (const unsigned[]){3, 1},
				   2);
	cr_expect(mixed >= 980000 && mixed <= 1020000, "%" PRIu64, mixed);
	cr_expect_eq(mixed, alone);
	cr_expect_eq(tp_live_task_time_words(0, words, sizeof words)[0], '-');
}

/*
 * An MPI job's line (taskprobe_mpi_job.h), every reader's: each rank's useful time is its
 * window less its MPI thread's time in MPI calls there, the call going on counted up to now.
 * Rank 0: window 100 ms (ended), 70 ms of it in MPI: 30 ms useful. Rank 1: window from 10 ms
 * going on at 120 ms, 20 ms in MPI calls ended and one since 100 ms: 110 - 20 - 20 = 70 ms.
 * Load balance 50 / 70; communication 70 over the job's 120 ms (from 0 to rank 1's now).
 */
Test(live_read, an_mpi_jobs_line_is_its_ranks_useful_times_over_their_windows)
{
	static struct tp_live_header h[2];
	static struct tp_live_thread slots[2][TP_LIVE_THREADS];
	const uint64_t ms = 1000000;
	h[0] = (struct tp_live_header){.mpi_rank = 0,
				       .mpi_size = 2,
				       .mpi_slot = 3,
				       .mpi_at_on_ns = 5 * ms,
				       .mpi_at_off_ns = 75 * ms,
				       .mpi_on_ns = 1000 * ms,
				       .mpi_off_ns = 1100 * ms};
	h[1] = (struct tp_live_header){.mpi_rank = 1,
				       .mpi_size = 2,
				       .mpi_slot = 1,
				       .mpi_at_on_ns = 2 * ms,
				       .mpi_on_ns = 1010 * ms};
	slots[1][0].mpi_ns = 22 * ms;
	slots[1][0].mpi_since_ns = 1100 * ms;
	struct tp_live_mpi_rank ranks[2];
	cr_assert(tp_live_mpi_rank_read(&h[0], slots[0], 1200 * ms, &ranks[0]));
	cr_assert(tp_live_mpi_rank_read(&h[1], slots[1], 1120 * ms, &ranks[1]));
	cr_expect_eq(ranks[0].useful_ns, 30 * ms);
	cr_expect(!ranks[0].open && ranks[0].off_ns == 1100 * ms);
	cr_expect_eq(ranks[1].useful_ns, 70 * ms);
	cr_expect(ranks[1].open && ranks[1].off_ns == 1120 * ms);
	uint64_t useful[2];
	struct tp_live_mpi_job j = tp_live_mpi_job_of(ranks, 2, useful);
	cr_expect_eq(j.run_ns, 120 * ms);
	cr_expect_float_eq(j.factors.load_balance, 50.0 / 70, 1e-9);
	cr_expect_float_eq(j.factors.communication, 70.0 / 120, 1e-9);
	char words[400];
	tp_live_mpi_job_words(words, sizeof words, &j);
	cr_expect_str_eq(words, "MPI efficiency of ranks 0 to 1 from MPI_Init to now (their MPI "
				"threads): parallel efficiency 0.417 = load balance 0.714 x "
				"communication efficiency 0.583; useful time per rank 0.030 to "
				"0.070 s of 0.120 s");
	/* a rank that exited without MPI_Finalize (MPI_Abort, exit) ends its window at its exit
	 * (the `now` a reader takes of an exited process); ranks killed unseen are said left out */
	h[1].exited = 1;
	cr_assert(tp_live_mpi_rank_read(&h[1], slots[1], 1120 * ms, &ranks[1]));
	cr_expect(!ranks[1].open && ranks[1].off_ns == 1120 * ms && ranks[1].useful_ns == 70 * ms);
	h[0].mpi_size = h[1].mpi_size = ranks[0].size = ranks[1].size = 3;
	j = tp_live_mpi_job_of(ranks, 2, useful);
	j.gone = 1;
	tp_live_mpi_job_words(words, sizeof words, &j);
	cr_expect(strstr(words, "MPI efficiency of ranks 0 to 1 (2 of 3: 1 killed before "
				"MPI_Finalize left out) from MPI_Init to MPI_Finalize (") == words,
		  "%s", words);
	/* before its MPI_Init ended, a rank is none; one rank alone, no line */
	h[1].mpi_on_ns = 0;
	cr_expect_not(tp_live_mpi_rank_read(&h[1], slots[1], 1120 * ms, &ranks[1]));
	j = tp_live_mpi_job_of(ranks, 1, useful);
	tp_live_mpi_job_words(words, sizeof words, &j);
	cr_expect_str_eq(words, "");
}
