// SPDX-License-Identifier: MIT
/*
 * The recording's analysis (analysis.h) fed event streams made up here, as recording_read hands
 * them over, for OpenMP graphs whose work, span, placed path and POP factors are known exactly:
 * no program runs, no clock is read (meson test --suite unit: a fraction of a second).
 *
 * The streams are OpenMP's as the shim reports them: the initial task (parent 0, no site) polled
 * from the start; at a fork the primary's implicit task is its child, a worker's has no parent
 * and may be reported before the primary's; waits end a poll with their sync kind.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taskprobe_contract.h"
#include "test_stream.h"

#define PRIMARY 1u /* the threads' ids */
#define WORKER  2u

static struct analysis *a;

static void event(unsigned type, uint32_t tid, uint64_t ms, int64_t a0, int64_t a1, int64_t a2,
		  int64_t a3)
{
	stream_event(a, type, tid, ms, a0, a1, a2, a3);
}

static void spawn(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent, uint64_t site)
{
	event(TP_RECORD_TASK_SPAWN, tid, ms, (int64_t)task, (int64_t)parent, (int64_t)site, 0);
}

static void start(uint32_t tid, uint64_t ms, uint64_t task)
{
	event(TP_RECORD_TASK_POLL_START, tid, ms, (int64_t)task, 0, 0, 0);
}

/* The poll of `task` ends: done, or waiting in `sync` (0: switched out). */
static void end(uint32_t tid, uint64_t ms, uint64_t task, bool done, unsigned sync)
{
	event(TP_RECORD_TASK_POLL_END, tid, ms, (int64_t)task, done, sync, 0);
}

/* The poll of `task` ends waiting in `sync` at the construct of site `site`. */
static void wait_at(uint32_t tid, uint64_t ms, uint64_t task, unsigned sync, uint64_t site)
{
	event(TP_RECORD_TASK_POLL_END, tid, ms, (int64_t)task, 0, sync, (int64_t)site);
}

/* The poll of `task` ends waiting to enter the critical construct. */
static void wait_critical(uint32_t tid, uint64_t ms, uint64_t task)
{
	event(TP_RECORD_TASK_POLL_END, tid, ms, (int64_t)task, 0, TP_SYNC_MUTEX, CRITICAL);
}

static void acquire(uint32_t tid, uint64_t ms, uint64_t task)
{
	event(TP_RECORD_TASK_ACQUIRE, tid, ms, (int64_t)task, TP_EXCLUSION_CRITICAL, LOCK, 0);
}

static void release(uint32_t tid, uint64_t ms, uint64_t task)
{
	event(TP_RECORD_TASK_RELEASE, tid, ms, (int64_t)task, TP_EXCLUSION_CRITICAL, LOCK, 0);
}

/* The call that marks the regions of interest (enum tp_roi_marker: 0, omp_control_tool); an MPI
 * rank's window is its mpi-init and its MPI_Finalize's wait (of no time here). */
static int64_t roi_marker;

static void region_of_interest(uint64_t ms, bool on)
{
	if (roi_marker != TP_ROI_BY_MPI_WINDOW) {
		event(TP_RECORD_REGION_OF_INTEREST, PRIMARY, ms, on, on ? roi_marker : 0, 0, 0);
	} else if (on) {
		event(TP_RECORD_MPI_INIT, PRIMARY, ms, 0, 2, 0, 0);
	} else {
		event(TP_RECORD_WAIT_START, PRIMARY, ms, TP_WAIT_MPI, TP_MPI_CALL_FINALIZE, -1, 0);
		event(TP_RECORD_WAIT_END, PRIMARY, ms, TP_WAIT_MPI, TP_MPI_CALL_FINALIZE, 0, 0);
	}
}

static void dependence(uint32_t tid, uint64_t ms, uint64_t predecessor, uint64_t successor)
{
	event(TP_RECORD_TASK_DEPENDENCE, tid, ms, (int64_t)predecessor, (int64_t)successor, 0, 0);
}

static void setup(void)
{
	a = stream_analysis();
	cr_assert_not_null(a);
	/* the initial task, polled from the start */
	spawn(PRIMARY, 0, INITIAL, 0, 0);
	start(PRIMARY, 0, INITIAL);
}

static void teardown(void)
{
	analysis_free(a);
}

TestSuite(pop_conv_analysis, .init = setup, .fini = teardown);

/* A fork at `ms` by the initial task: the worker's implicit task `worker_task` reported first
 * (as libomp's threads often do), then the primary's `primary_task`; both start polling. */
static void fork_region(uint64_t ms, uint64_t primary_task, uint64_t worker_task)
{
	spawn(WORKER, ms, worker_task, 0, REGION);
	start(WORKER, ms, worker_task);
	spawn(PRIMARY, ms, primary_task, INITIAL, REGION);
	end(PRIMARY, ms, INITIAL, false, TP_SYNC_NONE);
	start(PRIMARY, ms, primary_task);
}

/* The region's end at `ms`: the primary's implicit task (waiting in the barrier) ends and the
 * initial task resumes. */
static void join_region(uint64_t ms, uint64_t primary_task)
{
	start(PRIMARY, ms, primary_task);
	end(PRIMARY, ms, primary_task, true, TP_SYNC_NONE);
	start(PRIMARY, ms, INITIAL);
}

static struct analysis_figures figures(void)
{
	struct analysis_figures f;
	cr_assert(analysis_figures(a, 0, &f));
	cr_assert(f.factors.valid);
	return f;
}

static void expect_factor(double got, double want, const char *what)
{
	cr_expect(got > want - 0.0005 && got < want + 0.0005, "%s %.4f, not %.4f", what, got, want);
}

/* analysis_report's text. */
static char *report(void)
{
	char *text = stream_report(a);
	cr_assert_not_null(text);
	return text;
}

/*
 * Serial 10 ms; a region whose primary spawns two tasks of 20 ms and waits for them (taskwait),
 * one run by each thread; serial 8 ms. The span goes through the serial code and one task: 40;
 * the primary computes all along (40), the worker 21: load balance 30.5 / 40.
 */
Test(pop_conv_analysis, two_independent_tasks_between_serial_code)
{
	fork_region(10, 2, 100);
	spawn(PRIMARY, 11, 3, 2, TASKS);
	spawn(PRIMARY, 11, 4, 2, TASKS);
	wait_at(PRIMARY, 11, 2, TP_SYNC_TASKWAIT, TASKWAIT);
	wait_at(WORKER, 11, 100, TP_SYNC_BARRIER, REGION);
	start(WORKER, 11, 4);
	start(PRIMARY, 11, 3);
	end(WORKER, 31, 4, true, TP_SYNC_NONE);
	end(PRIMARY, 31, 3, true, TP_SYNC_NONE);
	start(PRIMARY, 31, 2);
	end(PRIMARY, 32, 2, false, TP_SYNC_BARRIER);
	join_region(32, 2);
	start(WORKER, 33, 100);
	end(WORKER, 33, 100, true, TP_SYNC_NONE);
	end(PRIMARY, 40, INITIAL, true, TP_SYNC_NONE);

	struct analysis_figures f = figures();
	cr_expect_eq(f.work, 61 * MS, "work %lu", f.work);
	cr_expect_eq(f.span, 40 * MS, "span %lu", f.span);
	cr_expect_eq(f.factors.placed_ns, 40 * MS, "placed %lu", f.factors.placed_ns);
	cr_expect_eq(f.factors.run_ns, 40 * MS, "run %lu", f.factors.run_ns);
	cr_expect_eq(f.factors.maximum_ns, 40 * MS);
	cr_expect_eq(f.factors.threads, 2);
	expect_factor(f.factors.load_balance, 30.5 / 40, "load balance");
	expect_factor(f.factors.serialisation, 1, "serialisation efficiency");
	expect_factor(f.factors.transfer, 1, "transfer efficiency");
	/* in the region: the primary 22 (its implicit task 2, a task 20), the worker 21; 22 ms */
	char *text = report();
	cr_expect(strstr(text, ":10)      0.977         0.977     43.00 ms     22.00 ms") != NULL,
		  "%s", text);
	/* the waits, never on the path: the worker's in the barrier from 11 to 33, where it runs
	 * a task until 31, so its thread waited 2 ms; the taskwait's from 11 to 31, where its
	 * thread runs the other task all along: it waited nothing. The primary's in the barrier
	 * has no site: in no row, as the live statistics have none for it */
	cr_expect(strstr(text, "main (synthetic.c:10) barrier             2.00 ms        1"
			       "        1.000                     -\n") != NULL,
		  "%s", text);
	cr_expect(strstr(text, "main (synthetic.c:25) taskwait               0 ns        1"
			       "            -                     -\n") != NULL,
		  "%s", text);
	const char *barrier = strstr(text, " barrier ");
	cr_expect(barrier != NULL && strstr(barrier + 1, " barrier ") == NULL,
		  "a barrier's waits of no site in a row:\n%s", text);
	free(text);
}

/*
 * Three tasks of 10 ms in a chain of dependences, on alternating threads, then the serial code
 * goes on to the end of the recording (its last poll never ends): the span is the whole program.
 */
Test(pop_conv_analysis, a_chain_on_alternating_threads_and_an_open_last_poll)
{
	fork_region(5, 2, 100);
	spawn(PRIMARY, 5, 3, 2, TASKS);
	spawn(PRIMARY, 5, 4, 2, TASKS);
	dependence(PRIMARY, 5, 3, 4);
	spawn(PRIMARY, 5, 5, 2, TASKS);
	dependence(PRIMARY, 5, 4, 5);
	end(PRIMARY, 5, 2, false, TP_SYNC_BARRIER);
	end(WORKER, 5, 100, false, TP_SYNC_BARRIER);
	start(PRIMARY, 5, 3);
	end(PRIMARY, 15, 3, true, TP_SYNC_NONE);
	start(WORKER, 16, 4); /* a millisecond's delay: never on a path */
	end(WORKER, 26, 4, true, TP_SYNC_NONE);
	start(PRIMARY, 26, 5);
	end(PRIMARY, 36, 5, true, TP_SYNC_NONE);
	join_region(36, 2);
	start(WORKER, 36, 100);
	end(WORKER, 36, 100, true, TP_SYNC_NONE);
	/* the initial task is still polled at the last event */
	event(TP_RECORD_THREAD_STOP, WORKER, 50, WORKER, 0, 0, 0);

	struct analysis_figures f = figures();
	cr_expect_eq(f.work, 49 * MS, "work %lu", f.work); /* 5 + 30 + 14 */
	cr_expect_eq(f.span, 49 * MS, "span %lu", f.span);
	cr_expect_eq(f.factors.run_ns, 50 * MS, "run %lu", f.factors.run_ns);
	/* the placed path: the chain with its millisecond's gap at zero cost */
	cr_expect_eq(f.factors.placed_ns, 49 * MS, "placed %lu", f.factors.placed_ns);
	cr_expect_eq(f.factors.maximum_ns, 39 * MS);
	expect_factor(f.factors.load_balance, 24.5 / 39, "load balance");
	expect_factor(f.factors.serialisation, 39.0 / 49, "serialisation efficiency");
	expect_factor(f.factors.transfer, 49.0 / 50, "transfer efficiency");
}

/*
 * The program exits at 30 ms in its serial code (its last poll never ends), and its destructors
 * run on to 50 (a worker's thread stop then): the open poll ends at the exit's start, where the
 * exit report and the live statistics end it too. Work, span and run time 30.
 */
Test(pop_conv_analysis, an_open_poll_ends_where_the_exit_begins)
{
	event(TP_RECORD_PROCESS_EXIT, PRIMARY, 30, 0, 0, 0, 0);
	event(TP_RECORD_THREAD_STOP, PRIMARY, 50, WORKER, 0, 0, 0);

	struct analysis_figures f = figures();
	cr_expect_eq(f.work, 30 * MS, "work %lu", f.work);
	cr_expect_eq(f.span, 30 * MS, "span %lu", f.span);
	cr_expect_eq(f.factors.run_ns, 30 * MS, "run %lu", f.factors.run_ns);
}

/*
 * A worker exits at 12 ms inside its region's implicit task; the primary's implicit task goes on
 * and waits at the region's end at 20, during the destructors: an event after the exit's start
 * happens at it (the live statistics count it so), and the primary's poll ends there. Serial 10,
 * then each thread's 2 ms to the exit: work 14, span 12.
 */
Test(pop_conv_analysis, what_a_thread_does_after_the_exits_start_happens_at_it)
{
	fork_region(10, 2, 100);
	event(TP_RECORD_PROCESS_EXIT, WORKER, 12, 0, 0, 0, 0);
	wait_at(PRIMARY, 20, 2, TP_SYNC_BARRIER, REGION);

	struct analysis_figures f = figures();
	cr_expect_eq(f.work, 14 * MS, "work %lu", f.work);
	cr_expect_eq(f.span, 12 * MS, "span %lu", f.span);
	cr_expect_eq(f.factors.run_ns, 12 * MS, "run %lu", f.factors.run_ns);
}

/*
 * Regions in a row: 5 ms serial, then a region whose single construct makes a task of 20 ms,
 * three times, then 5 ms serial. The single runs on either thread (the worker's first: its
 * implicit task reported before the fork), and so does the task. Everything is in series:
 * parallelism 1 and parallel efficiency 0.5.
 */
static void regions_in_a_row(bool roi)
{
	for (uint64_t step = 0; step < 3; step++) {
		uint64_t at = 25 * step + 5, primary = 10 + step, worker = 100 + step,
			 task = 20 + step;
		if (roi && step > 0)
			region_of_interest(at, step == 1);
		if (step > 0) {
			/* the worker's last implicit task ends at the next fork */
			start(WORKER, at, worker - 1);
			end(WORKER, at, worker - 1, true, TP_SYNC_NONE);
		}
		fork_region(at, primary, worker);
		bool on_worker = step % 2 == 1;
		uint32_t single = on_worker ? WORKER : PRIMARY;
		spawn(single, at, task, on_worker ? worker : primary, TASKS);
		end(WORKER, at, worker, false, TP_SYNC_BARRIER);
		end(PRIMARY, at, primary, false, TP_SYNC_BARRIER);
		start(single, at, task);
		end(single, at + 20, task, true, TP_SYNC_NONE);
		if (on_worker) {
			start(WORKER, at + 20, worker);
			end(WORKER, at + 20, worker, false, TP_SYNC_BARRIER);
		}
		join_region(at + 20, primary);
	}
	end(PRIMARY, 80, INITIAL, true, TP_SYNC_NONE);
}

Test(pop_conv_analysis, regions_in_a_row_compose_in_series)
{
	regions_in_a_row(false);

	struct analysis_figures f = figures();
	cr_expect_eq(f.work, 80 * MS, "work %lu", f.work);
	cr_expect_eq(f.span, 80 * MS, "span %lu", f.span);
	cr_expect_eq(f.factors.placed_ns, 80 * MS, "placed %lu", f.factors.placed_ns);
	cr_expect_eq(f.factors.run_ns, 80 * MS);
	/* the primary: the serial code (20) and two tasks (40); the worker one task */
	cr_expect_eq(f.factors.maximum_ns, 60 * MS);
	expect_factor(f.factors.parallel, 0.5, "parallel efficiency");
	expect_factor(f.factors.load_balance, 40.0 / 60, "load balance");
	expect_factor(f.factors.serialisation, 60.0 / 80, "serialisation efficiency");
}

/*
 * A loop where the worker works 3 ms an iteration and the primary 1, ten iterations each, and a
 * barrier: the region's load balance is 20 / 30, the factors' close to it (with the serial code);
 * its time 30 ms from its fork to its join, its efficiency 20 / 30 too (its threads' average).
 */
Test(pop_conv_analysis, an_imbalanced_loop_has_its_regions_load_balance)
{
	fork_region(1, 2, 100);
	end(PRIMARY, 11, 2, false, TP_SYNC_BARRIER);
	end(WORKER, 31, 100, false, TP_SYNC_BARRIER);
	join_region(31, 2);
	end(PRIMARY, 32, INITIAL, true, TP_SYNC_NONE);

	struct analysis_figures f = figures();
	cr_expect_eq(f.work, 42 * MS, "work %lu", f.work);
	cr_expect_eq(f.span, 32 * MS, "span %lu", f.span);
	expect_factor(f.factors.load_balance, 21.0 / 30, "load balance");
	char *text = report();
	cr_expect(strstr(text, ":10)      0.667         0.667     40.00 ms     30.00 ms") != NULL,
		  "%s", text);
	cr_expect(strstr(text, "parallel efficiency 0.656 = load balance 0.700 x communication "
			       "efficiency 0.938") != NULL,
		  "%s", text);
	free(text);
}

/*
 * The same program with a region of interest around the second region (from its fork, 30 ms, to
 * the third's, 55 ms): the worker runs its task (20 ms), the primary its serial code after (5):
 * run time and placed path 25 ms.
 */
Test(pop_conv_analysis, only_the_region_of_interest_counts_for_the_factors)
{
	regions_in_a_row(true);

	struct analysis_figures f = figures();
	cr_expect_eq(f.work, 80 * MS, "work %lu", f.work);
	cr_expect_eq(f.span, 80 * MS, "span %lu", f.span);
	cr_expect_eq(f.factors.run_ns, 25 * MS, "run %lu", f.factors.run_ns);
	cr_expect_eq(f.factors.placed_ns, 25 * MS, "placed %lu", f.factors.placed_ns);
	cr_expect_eq(f.factors.maximum_ns, 20 * MS, "maximum %lu", f.factors.maximum_ns);
	expect_factor(f.factors.load_balance, 12.5 / 20, "load balance");
	expect_factor(f.factors.serialisation, 20.0 / 25, "serialisation efficiency");
	expect_factor(f.factors.parallel, 0.5, "parallel efficiency");
	char *text = report();
	cr_expect(strstr(text, ROI_LINE("omp_control_tool")) != NULL, "%s", text);
	/* the tables are the whole run's, as the live statistics' (docs/analysis.md): the region's
	 * three tasks, two of them the primary's */
	cr_expect(strstr(text, ":10)      0.500         0.750     60.00 ms     60.00 ms") != NULL,
		  "%s", text);
	free(text);
}

/* The same marked by MPI_Pcontrol (a hybrid program's): said so, not as omp_control_tool's. */
Test(pop_conv_analysis, a_region_of_interest_says_the_call_that_marked_it)
{
	roi_marker = TP_ROI_BY_MPI_PCONTROL;
	regions_in_a_row(true);
	char *text = report();
	cr_expect(strstr(text, ROI_LINE("MPI_Pcontrol")) != NULL, "%s", text);
	free(text);
}

/* The factors of an MPI rank that marks none of its own: its MPI window's, the same times. */
static void expect_the_second_region_alone(const char *words)
{
	struct analysis_figures f = figures();
	cr_expect_eq(f.factors.run_ns, 25 * MS, "run %lu", f.factors.run_ns);
	cr_expect_eq(f.factors.placed_ns, 25 * MS, "placed %lu", f.factors.placed_ns);
	cr_expect_eq(f.factors.maximum_ns, 20 * MS, "maximum %lu", f.factors.maximum_ns);
	char *text = report();
	cr_expect(strstr(text, words) != NULL, "%s", text);
	free(text);
}

Test(pop_conv_analysis, an_mpi_rank_without_a_region_of_its_own_has_its_mpi_windows_factors)
{
	roi_marker = TP_ROI_BY_MPI_WINDOW;
	regions_in_a_row(true);
	expect_the_second_region_alone(ROI_LINE("MPI_Init to MPI_Finalize"));
}

/* A rank that marks its own: the window before its first start is forgotten, its end ignored. */
Test(pop_conv_analysis, an_mpi_ranks_own_region_of_interest_replaces_its_mpi_window)
{
	event(TP_RECORD_MPI_INIT, PRIMARY, 0, 0, 2, 0, 0);
	roi_marker = TP_ROI_BY_MPI_PCONTROL;
	regions_in_a_row(true);
	event(TP_RECORD_WAIT_START, PRIMARY, 80, TP_WAIT_MPI, TP_MPI_CALL_FINALIZE, -1, 0);
	event(TP_RECORD_WAIT_END, PRIMARY, 80, TP_WAIT_MPI, TP_MPI_CALL_FINALIZE, 0, 0);
	expect_the_second_region_alone(ROI_LINE("MPI_Pcontrol"));
}

/*
 * Two threads take turns in one critical section, 10 ms each, twice: all their time is inside
 * it, so the sections are a chain (40 ms) though each thread computes 20: serialisation 0.5.
 * The second thread's first acquire comes before the release that let it in (its clock was read
 * first), as recordings have it.
 */
Test(pop_conv_analysis, a_critical_section_serialises_two_threads)
{
	fork_region(0, 2, 100);
	wait_critical(PRIMARY, 0, 2);
	wait_critical(WORKER, 0, 100);
	start(PRIMARY, 0, 2);
	acquire(PRIMARY, 0, 2);
	start(WORKER, 10, 100);
	acquire(WORKER, 10, 100);
	release(PRIMARY, 10, 2);
	wait_critical(PRIMARY, 10, 2);
	release(WORKER, 20, 100);
	start(PRIMARY, 20, 2);
	acquire(PRIMARY, 20, 2);
	wait_critical(WORKER, 20, 100);
	release(PRIMARY, 30, 2);
	end(PRIMARY, 30, 2, false, TP_SYNC_BARRIER);
	start(WORKER, 30, 100);
	acquire(WORKER, 30, 100);
	release(WORKER, 40, 100);
	end(WORKER, 40, 100, false, TP_SYNC_BARRIER);
	join_region(40, 2);
	end(PRIMARY, 40, INITIAL, true, TP_SYNC_NONE);

	struct analysis_figures f = figures();
	cr_expect_eq(f.work, 40 * MS, "work %lu", f.work);
	cr_expect_eq(f.span, 40 * MS, "span %lu", f.span);
	cr_expect_eq(f.burdened, 40 * MS, "burdened span %lu", f.burdened);
	cr_expect_eq(f.factors.placed_ns, 40 * MS, "placed %lu", f.factors.placed_ns);
	expect_factor(f.factors.load_balance, 1, "load balance");
	expect_factor(f.factors.serialisation, 0.5, "serialisation efficiency");
	expect_factor(f.factors.transfer, 1, "transfer efficiency");
	/* its waits: the worker 10 and 10, the primary 0 and 10; its sections are the whole path */
	char *text = report();
	cr_expect(strstr(text, "main (synthetic.c:30) critical           30.00 ms        4"
			       "            -                100.0%") != NULL,
		  "%s", text);
	free(text);
}

/* A spawn whose stack was captured (its stack id `stack`), as recording_read hands it over. */
static void spawn_with_stack(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent,
			     uint64_t site, uint64_t stack)
{
	struct timeline_event e = {.pid = STREAM_PID,
				   .tid = tid,
				   .ns = START_NS + ms * MS,
				   .type = TP_RECORD_TASK_SPAWN,
				   .arg = {(int64_t)task, (int64_t)parent, (int64_t)site, 0,
					   (int64_t)stack, TP_EXECUTOR_OPENMP}};
	snprintf(e.comm, sizeof e.comm, "%s", "synthetic");
	analysis_add(a, &e);
}

/*
 * A site's spawn cost leaves out a gap that holds its spawn's stack's capture (the recorder's
 * TASKPROBE_RECORD_STACKS, a tracer's task-stack): taskprobe's time, not the program's. The
 * primary spawns four tasks at 11, 12, 15 and 18 ms, the last two with their stacks: the gaps
 * are 1, 3 and 3 ms, and the spawn cost is the first alone, 1 ms (3 ms with the others).
 * (The tasks are too small for it all the same: 2 ms each.)
 */
Test(pop_conv_analysis, a_spawn_gap_that_holds_a_stack_capture_is_no_spawn_cost)
{
	fork_region(10, 2, 100);
	wait_at(WORKER, 10, 100, TP_SYNC_BARRIER, REGION);
	spawn(PRIMARY, 11, 3, 2, TASKS);
	spawn(PRIMARY, 12, 4, 2, TASKS);
	spawn_with_stack(PRIMARY, 15, 5, 2, TASKS, 7);
	spawn_with_stack(PRIMARY, 18, 6, 2, TASKS, 8);
	wait_at(PRIMARY, 18, 2, TP_SYNC_TASKWAIT, TASKWAIT);
	for (uint64_t task = 3; task <= 6; task++) {
		start(PRIMARY, 18 + 2 * (task - 3), task);
		end(PRIMARY, 20 + 2 * (task - 3), task, true, TP_SYNC_NONE);
	}
	start(PRIMARY, 26, 2);
	end(PRIMARY, 26, 2, false, TP_SYNC_BARRIER);
	join_region(26, 2);
	start(WORKER, 26, 100);
	end(WORKER, 26, 100, true, TP_SYNC_NONE);
	end(PRIMARY, 27, INITIAL, true, TP_SYNC_NONE);

	char *text = report();
	const char *row = strstr(text, "main (synthetic.c:20)\n");
	cr_assert_not_null(row, "%s", text);
	const char *line = row;
	while (line > text && line[-1] != '\n')
		line--;
	double work, median, spawn_cost;
	unsigned long tasks;
	char median_unit[8], unit[8];
	cr_assert_eq(sscanf(line, "%lf %lu %lf %7s %lf %7s", &work, &tasks, &median, median_unit,
			    &spawn_cost, unit),
		     6, "%s", text);
	cr_expect_eq(tasks, 4, "%s", text);
	/* read from its log2 histogram: 1 ms is 786 us there, 3 ms about 3.1 ms */
	double ms = strcmp(unit, "us") == 0   ? spawn_cost / 1e3
		    : strcmp(unit, "ms") == 0 ? spawn_cost
					      : -1;
	cr_expect(ms > 0.5 && ms < 1.5, "spawn cost %.2f %s:\n%s", spawn_cost, unit, text);
	free(text);
}

/*
 * A section whose release the recording lacks (its events were dropped): the holder let the
 * object go before the next acquire all the same. The primary enters at 0 and leaves its poll at
 * 10 without a release; the worker (5 ms of its own first) is in from 10 to 20; the primary again
 * from 20 to 30: the three sections in a row.
 */
Test(pop_conv_analysis, a_release_the_recording_lacks_still_comes_before_the_next_acquire)
{
	fork_region(0, 2, 100);
	wait_critical(PRIMARY, 0, 2);
	start(PRIMARY, 0, 2);
	acquire(PRIMARY, 0, 2);
	wait_critical(WORKER, 5, 100);
	wait_critical(PRIMARY, 10, 2);
	start(WORKER, 10, 100);
	acquire(WORKER, 10, 100);
	release(WORKER, 20, 100);
	end(WORKER, 20, 100, false, TP_SYNC_BARRIER);
	start(PRIMARY, 20, 2);
	acquire(PRIMARY, 20, 2);
	release(PRIMARY, 30, 2);
	end(PRIMARY, 30, 2, false, TP_SYNC_BARRIER);
	join_region(30, 2);
	end(PRIMARY, 30, INITIAL, true, TP_SYNC_NONE);

	struct analysis_figures f = figures();
	cr_expect_eq(f.work, 35 * MS, "work %lu", f.work);
	cr_expect_eq(f.span, 30 * MS, "span %lu", f.span);
	cr_expect_eq(f.factors.placed_ns, 30 * MS, "placed %lu", f.factors.placed_ns);
}

/*
 * A release whose thread read its clock late (preempted after libomp let the object go): the
 * primary holds it from 0; the worker gets it at 10 and leaves at 20; the primary's release says
 * 25. The worker's second section (26 to 36) follows its own first, not that late release: the
 * span is 30 (the primary's 25 of computation aside).
 */
Test(pop_conv_analysis, a_release_said_late_is_no_later_holders_predecessor)
{
	fork_region(0, 2, 100);
	wait_critical(PRIMARY, 0, 2);
	wait_critical(WORKER, 0, 100);
	start(PRIMARY, 0, 2);
	acquire(PRIMARY, 0, 2);
	start(WORKER, 10, 100);
	acquire(WORKER, 10, 100);
	release(WORKER, 20, 100);
	wait_critical(WORKER, 20, 100);
	release(PRIMARY, 25, 2);
	end(PRIMARY, 25, 2, false, TP_SYNC_BARRIER);
	start(WORKER, 26, 100);
	acquire(WORKER, 26, 100);
	release(WORKER, 36, 100);
	end(WORKER, 36, 100, false, TP_SYNC_BARRIER);
	join_region(36, 2);
	end(PRIMARY, 36, INITIAL, true, TP_SYNC_NONE);

	struct analysis_figures f = figures();
	cr_expect_eq(f.work, 45 * MS, "work %lu", f.work);
	cr_expect_eq(f.span, 30 * MS, "span %lu", f.span);
	cr_expect_eq(f.factors.placed_ns, 30 * MS, "placed %lu", f.factors.placed_ns);
}

/*
 * A holder known by its task, not its thread: task 3 enters the critical section at 0 and is
 * switched out at 10 without a release (its events dropped); task 4, on the same thread, gets
 * the object at 10 and leaves at 20; task 3 ends at 21. Everything ran in series on one thread:
 * span = work = 21 (a holder on the acquirer's own thread taken for none: 11).
 */
Test(pop_conv_analysis, a_holder_switched_out_on_the_acquirers_thread_comes_before_it)
{
	fork_region(0, 2, 100);
	wait_at(WORKER, 0, 100, TP_SYNC_BARRIER, REGION);
	spawn(PRIMARY, 0, 3, 2, TASKS);
	spawn(PRIMARY, 0, 4, 2, TASKS);
	wait_at(PRIMARY, 0, 2, TP_SYNC_TASKWAIT, TASKWAIT);
	start(PRIMARY, 0, 3);
	acquire(PRIMARY, 0, 3);
	end(PRIMARY, 10, 3, false, TP_SYNC_NONE);
	start(PRIMARY, 10, 4);
	acquire(PRIMARY, 10, 4);
	release(PRIMARY, 20, 4);
	end(PRIMARY, 20, 4, true, TP_SYNC_NONE);
	start(PRIMARY, 20, 3);
	end(PRIMARY, 21, 3, true, TP_SYNC_NONE);
	start(PRIMARY, 21, 2);
	end(PRIMARY, 21, 2, false, TP_SYNC_BARRIER);
	join_region(21, 2);
	end(PRIMARY, 21, INITIAL, true, TP_SYNC_NONE);
	start(WORKER, 21, 100);
	end(WORKER, 21, 100, true, TP_SYNC_NONE);

	struct analysis_figures f = figures();
	cr_expect_eq(f.work, 21 * MS, "work %lu", f.work);
	cr_expect_eq(f.span, 21 * MS, "span %lu", f.span);
	cr_expect_eq(f.factors.placed_ns, 21 * MS, "placed %lu", f.factors.placed_ns);
}

/*
 * A worker's implicit task reported after its region's fork: the primary's implicit task is
 * spawned at 10 and the initial task's poll ends at 15 (the runtime's time after the fork); the
 * worker's starts at 16 after the fork (10), not after that poll's end, as the live statistics
 * start it. The barrier at 17 joins the initial task's fragment (15, ended before), the primary
 * ends at 20, the initial task at 25: span 15 + 3 + 5 = 23.
 */
Test(pop_conv_analysis, a_worker_reported_after_the_fork_starts_after_the_fork)
{
	spawn(PRIMARY, 10, 2, INITIAL, REGION);
	end(PRIMARY, 15, INITIAL, false, TP_SYNC_NONE);
	start(PRIMARY, 15, 2);
	spawn(WORKER, 16, 100, 0, REGION);
	start(WORKER, 16, 100);
	wait_at(WORKER, 17, 100, TP_SYNC_BARRIER, REGION);
	wait_at(PRIMARY, 17, 2, TP_SYNC_BARRIER, REGION);
	start(PRIMARY, 17, 2);
	start(WORKER, 17, 100);
	end(WORKER, 17, 100, true, TP_SYNC_NONE);
	end(PRIMARY, 20, 2, true, TP_SYNC_NONE);
	start(PRIMARY, 20, INITIAL);
	end(PRIMARY, 25, INITIAL, true, TP_SYNC_NONE);

	struct analysis_figures f = figures();
	cr_expect_eq(f.work, 26 * MS, "work %lu", f.work);
	cr_expect_eq(f.span, 23 * MS, "span %lu", f.span);
}

/*
 * Thousands of tasks open at once (the tasks' map grown several times, its entries removed in
 * the reverse of their spawns' order) at hundreds of sites, two call addresses a text (the site
 * index by id and by text grown too): the initial task spawns them all at 10 ms and waits for
 * them; the primary runs them, 1 ms each, the last spawned first; the initial task ends 5 ms
 * later. Each task's path is the serial code and itself: the span 10 + 1 + 5.
 */
Test(pop_conv_analysis, thousands_of_open_tasks_at_hundreds_of_sites)
{
	enum { N = 6000, SITE_IDS = 600, FIRST_ID = 100, FIRST_TASK = 10 };
	char text[64];
	for (unsigned k = 0; k < SITE_IDS; k++) {
		int len = snprintf(text, sizeof text, "spawner %u (synthetic.c:%u)", k / 2, k / 2);
		analysis_site(a, STREAM_PID, FIRST_ID + k, text, (uint32_t)len);
	}
	for (unsigned i = 0; i < N; i++)
		spawn(PRIMARY, 10, FIRST_TASK + i, INITIAL, FIRST_ID + i % SITE_IDS);
	wait_at(PRIMARY, 10, INITIAL, TP_SYNC_TASKWAIT, TASKWAIT);
	for (unsigned i = 0; i < N; i++) {
		start(PRIMARY, 10 + i, FIRST_TASK + N - 1 - i);
		end(PRIMARY, 11 + i, FIRST_TASK + N - 1 - i, true, TP_SYNC_NONE);
	}
	start(PRIMARY, 10 + N, INITIAL);
	end(PRIMARY, 15 + N, INITIAL, true, TP_SYNC_NONE);

	struct analysis_figures f = figures();
	cr_expect_eq(f.work, (15 + N) * MS, "work %lu", f.work);
	cr_expect_eq(f.span, 16 * MS, "span %lu", f.span);
	char *text_out = report();
	/* one thread ran them all: said in the singular */
	cr_expect(strstr(text_out, "6001 tasks ended, on 1 thread\n") != NULL, "%s", text_out);
	cr_expect(strstr(text_out, "x on 1 thread (elapsed ") != NULL, "%s", text_out);
	cr_expect(strstr(text_out, "memory: at most 6001 tasks open") != NULL, "%s", text_out);
	/* a row a text: the two addresses of each, 20 tasks of 1 ms */
	unsigned rows = 0;
	for (const char *line = text_out; (line = strstr(line, "\n  ")) != NULL; line++) {
		double ms;
		unsigned long tasks;
		if (strstr(line, " spawner ") != NULL &&
		    strstr(line, " spawner ") < strchr(line + 1, '\n') &&
		    sscanf(line, " %lf %lu", &ms, &tasks) == 2) {
			rows++;
			cr_expect(ms == 20.0 && tasks == 20, "%.40s", line + 1);
		}
	}
	cr_expect_eq(rows, SITE_IDS / 2, "%u rows of the spawners' sites:\n%s", rows, text_out);
	free(text_out);
}

/* A process of no task: a thread's start in `pid`, whose mpirun child exec'ed `comm`. */
static void taskless_process(uint32_t pid, const char *comm)
{
	struct timeline_event e = {.pid = pid, .tid = pid, .arg = {pid}};
	for (uint64_t image = 0; image < 3; image++) {
		snprintf(e.comm, sizeof e.comm, "%s", image == 0 ? "mpirun" : comm);
		e.ns = START_NS - 2 + image;
		e.type = image < 2 ? TIMELINE_IMAGE_START : TP_RECORD_THREAD_START;
		analysis_add(a, &e);
	}
}

/*
 * The processes that made no task are said in one line a command (an MPI job's ranks, where each
 * had a paragraph), their lowest pids first, after those that made some; one alone as before;
 * each by its last image (mpirun's forked child named each rank "mpirun"). */
Test(pop_conv_analysis, processes_without_tasks_are_said_in_a_line_a_command)
{
	for (uint32_t rank = 0; rank < 12; rank++)
		taskless_process(5000 - rank, "rank");
	taskless_process(100, "mpirun");
	end(PRIMARY, 10, INITIAL, true, 0);
	char *text = report();
	const char *ranks = strstr(text, "rank (12 processes: pids 4989, 4990, 4991, 4992, 4993, "
					 "4994, 4995, 4996 and 4 more): no task executor was seen: "
					 "no tasks to analyze\n");
	const char *launcher = strstr(
		text, "\nmpirun (pid 100): no task executor was seen: no tasks to analyze\n");
	const char *tasks = strstr(text, "synthetic (pid 4242): ");
	cr_expect(tasks != NULL && ranks != NULL && launcher != NULL && tasks < ranks, "%s", text);
	cr_expect_null(strstr(text, "rank (pid"), "%s", text);
	free(text);
}

/* Event `type` of another process `pid` (one thread, its tid the pid) at `ms`. */
static void event_of_process(uint32_t pid, unsigned type, uint64_t ms, int64_t a0, int64_t a1)
{
	struct timeline_event e = {.pid = pid, .tid = pid, .ns = START_NS + ms * MS, .type = type};
	snprintf(e.comm, sizeof e.comm, "%s", "rank");
	e.arg[0] = a0;
	e.arg[1] = a1;
	if (type == TP_RECORD_TASK_SPAWN)
		e.arg[5] = TP_EXECUTOR_OPENMP;
	analysis_add(a, &e);
}

/*
 * Each process's table says its own tasks at no site (OpenMP's initial task): two MPI ranks'
 * recordings read together, whose initial tasks ran 10 and 30 ms of serial code, say 10 and 30
 * ms, one task each (each said 40 ms of two tasks, the row every process's).
 */
Test(pop_conv_analysis, each_process_says_its_own_initial_tasks_work)
{
	end(PRIMARY, 10, INITIAL, true, TP_SYNC_NONE);
	event(TP_RECORD_TASK_TERMINATE, PRIMARY, 10, INITIAL, 0, 0, 0);
	const uint32_t other = 5252;
	event_of_process(other, TP_RECORD_TASK_SPAWN, 0, INITIAL, 0);
	event_of_process(other, TP_RECORD_TASK_POLL_START, 0, INITIAL, 0);
	event_of_process(other, TP_RECORD_TASK_POLL_END, 30, INITIAL, 1);
	event_of_process(other, TP_RECORD_TASK_TERMINATE, 30, INITIAL, 0);
	char *text = report();
	const char *mine = strstr(text, "synthetic (pid 4242): "),
		   *theirs = strstr(text, "rank (pid 5252): ");
	cr_assert(mine != NULL && theirs != NULL, "%s", text);
	const char *mine_row = strstr(mine, "      10.000        1 "),
		   *their_row = strstr(theirs, "      30.000        1 ");
	cr_expect(mine_row != NULL && strstr(mine_row, TP_LIVE_NO_SITE_TEXT "\n") != NULL &&
			  (mine < theirs ? mine_row < theirs : true),
		  "%s", text);
	cr_expect(their_row != NULL && strstr(their_row, TP_LIVE_NO_SITE_TEXT "\n") != NULL &&
			  (theirs < mine ? their_row < mine : true),
		  "%s", text);
	cr_expect_null(strstr(text, "      40.000        2 "), "%s", text);
	free(text);
}

/*
 * The sync sites' lines, most time waited first (as the exit report and the console list them),
 * not in the order first seen: the initial task waited 1 ms in a taskwait, then 5 ms in a
 * taskgroup, for tasks another thread ran.
 */
Test(pop_conv_analysis, sync_sites_are_listed_by_time_waited)
{
	spawn(PRIMARY, 1, 10, INITIAL, TASKS);
	wait_at(PRIMARY, 2, INITIAL, TP_SYNC_TASKWAIT, CRITICAL);
	start(WORKER, 2, 10);
	end(WORKER, 3, 10, true, TP_SYNC_NONE);
	start(PRIMARY, 3, INITIAL);
	spawn(PRIMARY, 4, 11, INITIAL, TASKS);
	wait_at(PRIMARY, 5, INITIAL, TP_SYNC_TASKGROUP, TASKWAIT);
	start(WORKER, 5, 11);
	end(WORKER, 10, 11, true, TP_SYNC_NONE);
	start(PRIMARY, 10, INITIAL);
	end(PRIMARY, 11, INITIAL, true, TP_SYNC_NONE);
	char *text = report();
	/* the taskwait's site is the one seen first, its id the lower */
	const char *group = strstr(text,
				   "main (synthetic.c:25) taskgroup           5.00 ms        1"),
		   *wait = strstr(text,
				  "main (synthetic.c:30) taskwait            1.00 ms        1");
	cr_expect(group != NULL && wait != NULL && group < wait, "%s", text);
	free(text);
}
