// SPDX-License-Identifier: MIT
/*
 * The hybrid efficiencies of MPI + OpenMP jobs (ranks_pop_say_hybrid) fed events made up here,
 * of jobs whose balance and communication are known exactly: no program runs (meson test
 * --suite unit). Each rank's events in time order, as the merge hands them on.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranks_pop.h"
#include "taskprobe_contract.h"
#include "taskprobe_recording.h"
#include "test_ranks_job.h"

TestSuite(ranks_hybrid, .init = setup, .fini = teardown);

/* Every rank from MPI_Init at 0 to MPI_Finalize at 40, its window said (ranks_pop_say). */
static void ranks_to_finalize_at_40(void)
{
	for (int r = 0; r < RANKS; r++) {
		init(r);
		call(r, 40, 40, TP_MPI_CALL_FINALIZE, 0, 0);
	}
	free(said());
}

/* An event of the merge for the hybrid efficiencies, by thread `tid` of rank `rank` at `ms`. */
static void merged(int rank, uint32_t tid, uint64_t ms, unsigned type, int64_t a0, int64_t a1,
		   int64_t a2)
{
	const int64_t arg[3] = {a0, a1, a2};
	cr_assert(ranks_pop_event(p, (size_t)rank, tid, ms * MS, type, arg));
}

/* A task `id` of `parent` at `site` spawned by `tid` at `from`, polled there until `to`. */
static void polled(int rank, uint32_t tid, uint64_t from, uint64_t to, int64_t id, int64_t parent,
		   int64_t site)
{
	merged(rank, tid, from, TP_RECORD_TASK_SPAWN, id, parent, site);
	merged(rank, tid, from, TP_RECORD_TASK_POLL_START, id, 0, 0);
	merged(rank, tid, to, TP_RECORD_TASK_POLL_END, id, 0, 0);
}

/* What ranks_pop_say_hybrid says of the events merged so far. */
static char *hybrid_said(void)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	cr_assert_not_null(out);
	ranks_pop_say_hybrid(p, NULL, out);
	fclose(out);
	return text;
}

/*
 * Each rank's MPI thread runs 30 ms of serial code after MPI_Init, before OpenMP's runtime
 * starts and tells its initial task (a task with neither parent nor site); then a region of two
 * threads, 10 ms each; then MPI_Finalize: the MPI thread computes 40 ms, the other 10, the rank
 * 40 (MPI load balance and communication 1). Hybrid load balance 25 / 40 = 0.625, all OpenMP's,
 * nothing lost to communication: the serial code is the initial task's computation, as a
 * process's own factors count it (tp_span_initial_start). Counted from the initial task's first
 * poll, the hybrid line said a load balance 1 and a communication efficiency 0.25.
 */
/* The job of the test below, each MPI thread waiting on a condition variable from 5 to 15 ms
 * when `waits` (before OpenMP's runtime starts); what ranks_pop_say_hybrid says of it. */
static char *serial_code_first(bool waits)
{
	enum { INITIAL = 1, PRIMARY = 2, WORKER = 3, SITE = 7 };
	ranks_to_finalize_at_40();
	for (int r = 0; r < RANKS; r++) {
		uint32_t main_thread = 100 + (uint32_t)r, worker = 200 + (uint32_t)r;
		/* MPI_Init's end, then the wait */
		merged(r, main_thread, 0, TP_RECORD_WAIT_END, TP_WAIT_MPI, 0, 0);
		if (waits) {
			merged(r, main_thread, 5, TP_RECORD_WAIT_START, TP_WAIT_CONDVAR, 0, 0);
			merged(r, main_thread, 15, TP_RECORD_WAIT_END, TP_WAIT_CONDVAR, 0, 0);
		}
		merged(r, main_thread, 30, TP_RECORD_TASK_SPAWN, INITIAL, 0, 0);
		merged(r, main_thread, 30, TP_RECORD_TASK_POLL_START, INITIAL, 0, 0);
		merged(r, main_thread, 30, TP_RECORD_TASK_POLL_END, INITIAL, 0, 0);
		polled(r, main_thread, 30, 40, PRIMARY, INITIAL, SITE);
		polled(r, worker, 30, 40, WORKER, 0, SITE);
		merged(r, main_thread, 40, TP_RECORD_TASK_POLL_START, INITIAL, 0, 0);
		merged(r, main_thread, 40, TP_RECORD_TASK_POLL_END, INITIAL, 0, 0);
		merged(r, main_thread, 40, TP_RECORD_WAIT_START, TP_WAIT_MPI, 0, 0);
	}
	return hybrid_said();
}

Test(ranks_hybrid, serial_code_before_openmps_runtime_is_the_initial_tasks_in_the_hybrid_line)
{
	char *text = serial_code_first(false);
	cr_expect(strstr(text, "(8 threads; MPI's by rank: ") != NULL, "%s", text);
	cr_expect(strstr(text, "OpenMP's = hybrid / MPI): parallel efficiency 0.625 = "
			       "MPI 1.000 x OpenMP 0.625; load balance 0.625 = MPI 1.000 x OpenMP "
			       "0.625; communication efficiency 1.000 = MPI 1.000 x OpenMP 1.000; "
			       "useful time per thread 0.025 s on average, 0.040 s at most, of "
			       "0.040 s\n") != NULL,
		  "%s", text);
	free(text);
}

/*
 * The same, each MPI thread waiting on a condition variable from 5 to 15 ms before the runtime
 * starts: its serial code counts from the wait's end, as the engine counts the initial task's
 * (tp_span_initial_start): 15 + 10 ms, the worker's 10; MPI's factors 1 (no MPI call), so
 * load balance 17.5 / 25 = 0.700 and communication 25 / 40 = 0.625 are OpenMP's. The wait
 * counted as computation, they were 0.625 and 1.
 */
Test(ranks_hybrid, a_wait_before_openmps_runtime_is_no_computation_in_the_hybrid_line)
{
	char *text = serial_code_first(true);
	cr_expect(strstr(text, "parallel efficiency 0.438 = MPI 1.000 x OpenMP 0.438; load balance "
			       "0.700 = MPI 1.000 x OpenMP 0.700; communication efficiency 0.625 = "
			       "MPI 1.000 x OpenMP 0.625") != NULL,
		  "%s", text);
	free(text);
}

/* Thread `tid` of `rank` starts polling task `id` (a region's, at site 7) at `ms`. */
static void thread_polls(int rank, uint32_t tid, uint64_t ms, int64_t id)
{
	merged(rank, tid, ms, TP_RECORD_TASK_SPAWN, id, 1, 7);
	merged(rank, tid, ms, TP_RECORD_TASK_POLL_START, id, 0, 0);
}

/*
 * Each rank's MPI thread (`every_rank`, else rank 0's alone) waits in an MPI call inside its
 * region's task from MPI_Init's end to `waits_to` ms, then computes to MPI_Finalize at 40, while
 * its other thread computes to `waits_to`: communication overlapped with computation, as a rank
 * of a hybrid program does (or a thread for communication beside computing ones). A rank that
 * waits not: both threads compute all 40. What ranks_pop_say_hybrid says of it.
 */
static char *overlapped(uint64_t waits_to, bool every_rank)
{
	for (int r = 0; r < RANKS; r++) {
		init(r);
		if (r == 0 || every_rank)
			call(r, 0, waits_to, TP_MPI_CALL_RECV, 0, 0);
		call(r, 40, 40, TP_MPI_CALL_FINALIZE, 0, 0);
	}
	free(said());
	for (int r = 0; r < RANKS; r++) {
		uint32_t main_thread = 100 + (uint32_t)r, worker = 200 + (uint32_t)r;
		bool waits = r == 0 || every_rank;
		merged(r, main_thread, 0, TP_RECORD_WAIT_END, TP_WAIT_MPI, 0, 0);
		thread_polls(r, main_thread, 0, 10 + r);
		thread_polls(r, worker, 0, 20 + r);
		if (waits) {
			merged(r, main_thread, 0, TP_RECORD_WAIT_START, TP_WAIT_MPI, 0, 0);
			merged(r, worker, waits_to, TP_RECORD_TASK_POLL_END, 20 + r, 0, 1);
			merged(r, main_thread, waits_to, TP_RECORD_WAIT_END, TP_WAIT_MPI, 0, 0);
		}
		merged(r, main_thread, 40, TP_RECORD_TASK_POLL_END, 10 + r, 0, 0);
		if (!waits)
			merged(r, worker, 40, TP_RECORD_TASK_POLL_END, 20 + r, 0, 0);
		merged(r, main_thread, 40, TP_RECORD_WAIT_START, TP_WAIT_MPI, 0, 0);
	}
	return hybrid_said();
}

/*
 * Rank 0's MPI thread waits in a receive for 30 ms while its other thread computes: the rank is
 * never idle. Its threads compute 10 and 30 ms, the others' 40 each: load balance 35 / 40 =
 * 0.875; MPI's is the ranks' busiest threads', weighted by their threads, (2 x 30 + 6 x 40) / 8
 * / 40 = 0.938, OpenMP's 0.933; nothing lost to MPI. Counted on the MPI threads (10, 40, 40, 40
 * ms outside MPI), MPI's load balance read 0.812 and OpenMP's 1.077.
 */
Test(ranks_hybrid, a_rank_that_computes_while_its_mpi_thread_waits_is_busy)
{
	char *text = overlapped(30, false);
	cr_expect(strstr(text, "parallel efficiency 0.875 = MPI 0.938 x OpenMP 0.933; load balance "
			       "0.875 = MPI 0.938 x OpenMP 0.933; communication efficiency 1.000 = "
			       "MPI 1.000 x OpenMP 1.000") != NULL,
		  "%s", text);
	free(text);
}

/*
 * Every rank's MPI thread waits 36 ms of 40 in MPI while its other thread computes those 36 (a
 * thread for communication): no rank loses time to MPI (MPI's factors 1), and OpenMP's are load
 * balance 20 / 36 = 0.556 and communication 36 / 40 = 0.900. Counted on the MPI threads (4 ms
 * outside MPI of 40), MPI's communication read 0.100 and OpenMP's 9; taking a thread in MPI as
 * lost whether or not another computes, MPI's read 0.900.
 */
Test(ranks_hybrid, a_communication_thread_beside_computing_ones_loses_nothing_to_mpi)
{
	char *text = overlapped(36, true);
	cr_expect(strstr(text, "parallel efficiency 0.500 = MPI 1.000 x OpenMP 0.500; load balance "
			       "0.556 = MPI 1.000 x OpenMP 0.556; communication efficiency 0.900 = "
			       "MPI 1.000 x OpenMP 0.900") != NULL,
		  "%s", text);
	free(text);
}

/*
 * MPI_THREAD_MULTIPLE: each rank's main thread computes 10 ms, then waits at an OpenMP barrier
 * while its other thread is in an MPI call inside its task from 0 to 30 ms, then computes to 40.
 * From 10 to 30 no thread of the rank computes and one is in MPI: lost to MPI (communication 20 /
 * 40); in the rest, one of the two threads computes at a time (OpenMP's communication 10 / 20).
 * Taking a thread that made an MPI call as busy outside its calls, the main thread at its
 * barrier kept the rank out of MPI: MPI's communication read 1.000, OpenMP's 0.250; taking a
 * thread in a poll as computing, in MPI or not, the same.
 */
Test(ranks_hybrid, a_thread_at_a_barrier_while_another_is_in_mpi_waits_for_mpi)
{
	ranks_to_finalize_at_40();
	for (int r = 0; r < RANKS; r++) {
		uint32_t main_thread = 100 + (uint32_t)r, worker = 200 + (uint32_t)r;
		merged(r, main_thread, 0, TP_RECORD_WAIT_END, TP_WAIT_MPI, 0, 0);
		thread_polls(r, main_thread, 0, 10 + r);
		thread_polls(r, worker, 0, 20 + r);
		merged(r, worker, 0, TP_RECORD_WAIT_START, TP_WAIT_MPI, 0, 0);
		merged(r, main_thread, 10, TP_RECORD_TASK_POLL_END, 10 + r, 0, 1);
		merged(r, worker, 30, TP_RECORD_WAIT_END, TP_WAIT_MPI, 0, 0);
		merged(r, worker, 40, TP_RECORD_TASK_POLL_END, 20 + r, 0, 0);
		merged(r, main_thread, 40, TP_RECORD_WAIT_START, TP_WAIT_MPI, 0, 0);
	}
	char *text = hybrid_said();
	cr_expect(strstr(text, "parallel efficiency 0.250 = MPI 0.500 x OpenMP 0.500; load balance "
			       "1.000 = MPI 1.000 x OpenMP 1.000; communication efficiency 0.250 = "
			       "MPI 0.500 x OpenMP 0.500") != NULL,
		  "%s", text);
	free(text);
}

/*
 * Ranks of different threads: rank 0 runs no OpenMP and is outside MPI 10 ms of 40 (one thread),
 * ranks 1 to 3 each have four threads computing all 40. Load balance 490 / 13 / 40 = 0.942, all
 * MPI's: the ranks' busiest threads weighted by their threads (OTF-CPT's) make the same. Their
 * plain mean, (10 + 3 x 40) / 4 / 40 = 0.812, made OpenMP's 1.160.
 */
Test(ranks_hybrid, ranks_of_different_threads_weigh_by_their_threads)
{
	for (int r = 0; r < RANKS; r++) {
		init(r);
		if (r == 0)
			call(r, 0, 30, TP_MPI_CALL_RECV, 0, 0);
		call(r, 40, 40, TP_MPI_CALL_FINALIZE, 0, 0);
	}
	free(said());
	merged(0, 100, 0, TP_RECORD_WAIT_END, TP_WAIT_MPI, 0, 0);
	merged(0, 100, 0, TP_RECORD_WAIT_START, TP_WAIT_MPI, 0, 0);
	merged(0, 100, 30, TP_RECORD_WAIT_END, TP_WAIT_MPI, 0, 0);
	merged(0, 100, 40, TP_RECORD_WAIT_START, TP_WAIT_MPI, 0, 0);
	for (int r = 1; r < RANKS; r++) {
		merged(r, 100 + (uint32_t)r, 0, TP_RECORD_WAIT_END, TP_WAIT_MPI, 0, 0);
		for (uint32_t t = 0; t < 4; t++)
			thread_polls(r, 100 + (uint32_t)r + 100 * t, 0, 10 * r + t);
		for (uint32_t t = 0; t < 4; t++)
			merged(r, 100 + (uint32_t)r + 100 * t, 40, TP_RECORD_TASK_POLL_END,
			       10 * r + t, 0, 0);
		merged(r, 100 + (uint32_t)r, 40, TP_RECORD_WAIT_START, TP_WAIT_MPI, 0, 0);
	}
	char *text = hybrid_said();
	cr_expect(strstr(text, "(13 threads; ") != NULL, "%s", text);
	cr_expect(strstr(text, "parallel efficiency 0.942 = MPI 0.942 x OpenMP 1.000; load balance "
			       "0.942 = MPI 0.942 x OpenMP 1.000; communication efficiency 1.000 = "
			       "MPI 1.000 x OpenMP 1.000") != NULL,
		  "%s", text);
	free(text);
}
