// SPDX-License-Identifier: MIT
/*
 * The MPI factors across ranks (ranks_pop.h) fed records made up here, of jobs whose load
 * balance, serialisation and transfer are known exactly: no program runs (meson test --suite
 * unit). Times are milliseconds, each rank's thread its own, on one clock.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranks_pop.h"
#include "test_ranks_job.h"
#include "taskprobe_contract.h"
#include "taskprobe_live.h" /* enum tp_roi_marker */

static void expect_factors(const char *text, double balance, double serialisation, double transfer)
{
	double b, s, t;
	const char *at = strstr(text, "load balance ");
	cr_assert(at != NULL && sscanf(at, "load balance %lf", &b) == 1, "%s", text);
	at = strstr(text, "(serialisation efficiency ");
	cr_assert(at != NULL &&
			  sscanf(at, "(serialisation efficiency %lf x transfer efficiency %lf", &s,
				 &t) == 2,
		  "%s", text);
	cr_expect_float_eq(b, balance, 0.0015, "%s", text);
	cr_expect_float_eq(s, serialisation, 0.0015, "%s", text);
	cr_expect_float_eq(t, transfer, 0.0015, "%s", text);
}

TestSuite(ranks_pop, .init = setup, .fini = teardown);

/*
 * Two pairs of ranks, each on a communicator of its own (mpi_ranks's `pairs`): ranks 0 and 1
 * work 60, 20, 60, 20 ms between barriers, ranks 2 and 3 20, 60, 20, 60; then ranks 0 and 1
 * reduce once more. Each pair waits for itself alone: balanced, serialisation and transfer 1.
 */
/* A region of interest's start's small (tp_record_roi_small) each rank marks its work with in
 * pairs(): 0, none. */
static unsigned region_small;

static void pairs(bool told)
{
	static const uint64_t first[] = {60, 20, 60, 20}, second[] = {20, 60, 20, 60};
	for (int r = 0; r < RANKS; r++) {
		const uint64_t *bursts = r < 2 ? first : second;
		uint64_t at = 0, pair = r < 2 ? 0xa : 0xb;
		init(r);
		if (region_small != 0)
			note(r, 1, TP_RECORD_REGION_OF_INTEREST, region_small, 0, 0, 0, 0);
		for (int i = 0; i < 4; i++) {
			at += bursts[i];
			call(r, at, at, TP_MPI_CALL_BARRIER, pair, told ? 2 : 0);
		}
		if (r < 2)
			call(r, at, at, TP_MPI_CALL_ALLREDUCE, pair, told ? 2 : 0);
		if (region_small != 0)
			note(r, 160, TP_RECORD_REGION_OF_INTEREST, 0, 0, 0, 0, 0);
		call(r, 160, 160, TP_MPI_CALL_FINALIZE, 0, 0);
	}
}

Test(ranks_pop, collectives_on_communicators_of_their_own_pair_within_them)
{
	pairs(true);
	char *text = said();
	expect_factors(text, 1.0, 1.0, 1.0);
	free(text);
}

/* The job's basis for a comparison of runs (ranks_pop_basis): its ranks' useful time added up
 * (80 ms each), the most of one, the run's time; one rank's kept, said by nobody. */
Test(ranks_pop, the_jobs_basis_is_its_ranks_useful_time)
{
	pairs(true);
	free(said());
	struct scaling_basis b;
	ranks_pop_basis(p, &b);
	cr_expect(b.known && b.units == RANKS && b.ranks == RANKS);
	cr_expect_float_eq(b.useful_ns, 4 * 160.0 * MS, 1e-6 * MS);
	cr_expect_float_eq(b.most_ns, 160.0 * MS, 1e-6 * MS);
	cr_expect_float_eq(b.run_ns, 160.0 * MS, 1e-6 * MS);
	cr_expect_float_eq(b.serialisation, 1.0, 1e-9);

	ranks_pop_free(p);
	p = ranks_pop_new();
	cr_assert_not_null(p);
	init(0);
	call(0, 30, 30, TP_MPI_CALL_FINALIZE, 0, 0);
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	cr_assert_not_null(out);
	ranks_pop_say(p, &(struct ranks_pop_rank){.number = 0, .tid = 100}, 1, to_ns, NULL, NULL,
		      out);
	fclose(out);
	cr_expect_str_eq(text, "");
	free(text);
	ranks_pop_basis(p, &b);
	cr_expect(b.known && b.units == 1 && b.ranks == 1, "units %u", b.units);
	cr_expect_float_eq(b.useful_ns, 30.0 * MS, 1e-6 * MS);
}

/*
 * Every rank marks a region of interest around its work by `small` (tp_record_roi_small's): the
 * ranks' line says which call marked it (a recording before version 15 says none: MPI_Pcontrol).
 */
static void pairs_in_a_region_marked_by(unsigned small, const char *window)
{
	region_small = small;
	pairs(true);
	region_small = 0;
	char *text = said();
	cr_expect(strstr(text, window) != NULL, "%s", text);
	free(text);
}

Test(ranks_pop, a_region_of_interest_is_said_by_the_call_that_marked_it)
{
	pairs_in_a_region_marked_by(tp_record_roi_small(1, TP_ROI_BY_MPI_PCONTROL),
				    " from MPI_Pcontrol(1) to MPI_Pcontrol(0) ");
}

Test(ranks_pop, a_region_of_interest_marked_by_omp_control_tool_is_said_so)
{
	pairs_in_a_region_marked_by(tp_record_roi_small(1, TP_ROI_BY_OMP_CONTROL_TOOL),
				    " from omp_control_tool's start to its stop ");
}

Test(ranks_pop, collectives_of_a_recording_that_does_not_tell_communicators_pair_as_the_worlds)
{
	/* before version 13: every collective MPI_COMM_WORLD's, which the pairs' do not match */
	pairs(false);
	char *text = said();
	cr_expect(strstr(text, "serialisation and transfer not told") != NULL, "%s", text);
	free(text);
}

/*
 * Rank r works (1 + 2r) x 10 ms, then all reduce on MPI_COMM_WORLD, told or not: load balance
 * 40 / 70, serialisation and transfer 1.
 */
static void imbalance(bool told)
{
	for (int r = 0; r < RANKS; r++) {
		init(r);
		call(r, (uint64_t)(1 + 2 * r) * 10, 70, TP_MPI_CALL_ALLREDUCE, 0x77,
		     told ? RANKS : 0);
		call(r, 70, 70, TP_MPI_CALL_FINALIZE, 0, 0);
	}
}

Test(ranks_pop, a_reduction_on_the_world_told_waits_for_every_rank)
{
	imbalance(true);
	char *text = said();
	expect_factors(text, 40.0 / 70, 1.0, 1.0);
	free(text);
}

Test(ranks_pop, a_reduction_on_the_world_not_told_waits_for_every_rank)
{
	imbalance(false);
	char *text = said();
	expect_factors(text, 40.0 / 70, 1.0, 1.0);
	free(text);
}

/*
 * A collective one rank of its communicator never reaches (it was not recorded, or the
 * communicators' identities differ): no ideal run, said so.
 */
Test(ranks_pop, a_collective_short_of_its_communicators_ranks_is_not_paired)
{
	for (int r = 0; r < RANKS; r++) {
		init(r);
		call(r, 10, 20, TP_MPI_CALL_BARRIER, r < 3 ? 0xc : 0xd, 3);
		call(r, 20, 20, TP_MPI_CALL_FINALIZE, 0, 0);
	}
	char *text = said();
	cr_expect(strstr(text, "serialisation and transfer not told") != NULL, "%s", text);
	free(text);
}

/* Nonblocking collective `number` started at `ms` (outside any call), or completed inside the
 * call from `from` to `to` that completes it. */
static void started(int rank, uint64_t ms, unsigned number, int64_t root)
{
	note(rank, ms, TP_RECORD_MPI_COLLECTIVE, 0, number, (uint64_t)root, 0x77, RANKS);
}

static void completed(int rank, uint64_t from, uint64_t to, unsigned number, int64_t root)
{
	note(rank, from, TP_RECORD_WAIT_START, TP_WAIT_MPI, TP_MPI_CALL_WAIT, (uint64_t)-1, 0, 0);
	note(rank, to, TP_RECORD_MPI_COLLECTIVE, 0, number, (uint64_t)root, 0x77, RANKS);
	note(rank, to, TP_RECORD_WAIT_END, TP_WAIT_MPI, TP_MPI_CALL_WAIT, 0, 0, 0);
}

/*
 * Rank 0 works 40 ms, then starts a broadcast (MPI_Ibcast) and completes it at once; the others
 * start it at 0, work 10 ms, wait in MPI_Wait until rank 0 started it (40), then work 40 ms:
 * their work after it needs rank 0's. Useful 40, 50, 50, 50 ms of 80: load balance 0.95; on an
 * ideal network the others still wait for rank 0's 40 ms: 80 ms, serialisation 50 / 80, transfer
 * 1 (were the wait taken for no collective's, serialisation 1 and transfer 50 / 80).
 */
Test(ranks_pop, a_nonblocking_broadcasts_completion_waits_for_its_roots_start)
{
	init(0);
	started(0, 40, TP_MPI_CALL_IBCAST, 0);
	completed(0, 40, 40, TP_MPI_CALL_IBCAST, 0);
	call(0, 40, 40, TP_MPI_CALL_FINALIZE, 0, 0);
	for (int r = 1; r < RANKS; r++) {
		init(r);
		started(r, 0, TP_MPI_CALL_IBCAST, 0);
		completed(r, 10, 40, TP_MPI_CALL_IBCAST, 0);
		call(r, 80, 80, TP_MPI_CALL_FINALIZE, 0, 0);
	}
	char *text = said();
	expect_factors(text, 0.95, 50.0 / 80, 1.0);
	free(text);
}

/* A nonblocking reduction on some ranks and a blocking one on the last, in the same place on one
 * communicator, do not match (MPI's rule): not paired. */
Test(ranks_pop, a_blocking_and_a_nonblocking_collective_do_not_pair)
{
	for (int r = 0; r < RANKS; r++) {
		init(r);
		if (r < 3) {
			started(r, 10, TP_MPI_CALL_IALLREDUCE, -1);
			completed(r, 10, 20, TP_MPI_CALL_IALLREDUCE, -1);
		} else {
			call(r, 10, 20, TP_MPI_CALL_ALLREDUCE, 0x77, RANKS);
		}
		call(r, 20, 20, TP_MPI_CALL_FINALIZE, 0, 0);
	}
	char *text = said();
	cr_expect(strstr(text, "serialisation and transfer not told") != NULL, "%s", text);
	free(text);
}

/*
 * Two reductions in flight on every rank (MPI_Iallreduce at r x 10 ms and at 40), both completed
 * by one MPI_Waitall at 40, which the first one's last start (rank 3's, at 30) lets go on at
 * once: each completion its own start's; every rank busy but in the wait: balanced, 1, 1.
 */
Test(ranks_pop, two_nonblocking_collectives_in_flight_complete_each_its_own)
{
	for (int r = 0; r < RANKS; r++) {
		init(r);
		started(r, (uint64_t)r * 10, TP_MPI_CALL_IALLREDUCE, -1);
		started(r, 40, TP_MPI_CALL_IALLREDUCE, -1);
		note(r, 40, TP_RECORD_WAIT_START, TP_WAIT_MPI, TP_MPI_CALL_WAITALL, (uint64_t)-1, 0,
		     0);
		for (int i = 0; i < 2; i++)
			note(r, 40, TP_RECORD_MPI_COLLECTIVE, 0, TP_MPI_CALL_IALLREDUCE,
			     (uint64_t)-1, 0x77, RANKS);
		note(r, 40, TP_RECORD_WAIT_END, TP_WAIT_MPI, TP_MPI_CALL_WAITALL, 0, 0, 0);
		call(r, 50, 50, TP_MPI_CALL_FINALIZE, 0, 0);
	}
	char *text = said();
	expect_factors(text, 1.0, 1.0, 1.0);
	free(text);
}

/* A message's end by `rank` at `ms` from or to `peer`, tag 0, on `communicator`; `told`: its
 * communicator an identity (version 14), else a handle no reader pairs by. */
static void message(int rank, uint64_t ms, unsigned type, int peer, uint64_t communicator,
		    bool told)
{
	note(rank, ms, type, told ? TP_RECORD_MPI_IDENTITY : 0, (uint64_t)peer, 0, communicator, 8);
}

/* A blocking call `number` at `ms`, taking no time, holding message end `type` (from or to `peer`
 * on `communicator`) made at its end. */
static void call_with_message(int rank, uint64_t from, uint64_t to, unsigned number, unsigned type,
			      int peer, uint64_t communicator, bool told)
{
	note(rank, from, TP_RECORD_WAIT_START, TP_WAIT_MPI, number, (uint64_t)-1, 0, 0);
	message(rank, to, type, peer, communicator, told);
	note(rank, to, TP_RECORD_WAIT_END, TP_WAIT_MPI, number, 0, 0, 0);
}

/*
 * Two messages of one tag from rank 0 to rank 1 on two communicators, received in the other
 * order (MPI orders messages within a communicator only): rank 0 sends A on communicator 0xd
 * (MPI_Isend) at 0, works 100 ms, sends B on 0xe (MPI_Send) and ends; rank 1 receives B (waiting
 * from 0 to 100), works 200 ms, then receives A; ranks 2 and 3 work 250 ms. Useful 100, 200,
 * 250, 250 of 300: load balance 0.8. Rank 1's work needs B, sent at 100: on an ideal network
 * the run still takes 300 ms, serialisation 250 / 300, transfer 1. Paired by tag alone (a
 * recording before version 14), its first receive would be A's, sent at 0, and its second B's,
 * reached at 200: 250 ms, serialisation 1, transfer 250 / 300.
 */
static void crossed(bool told)
{
	for (int r = 0; r < RANKS; r++)
		init(r);
	message(0, 0, TP_RECORD_MPI_SEND, 1, 0xd, told);
	call_with_message(0, 100, 100, TP_MPI_CALL_SEND, TP_RECORD_MPI_SEND, 1, 0xe, told);
	call(0, 100, 100, TP_MPI_CALL_FINALIZE, 0, 0);
	call_with_message(1, 0, 100, TP_MPI_CALL_RECV, TP_RECORD_MPI_RECV, 0, 0xe, told);
	call_with_message(1, 300, 300, TP_MPI_CALL_RECV, TP_RECORD_MPI_RECV, 0, 0xd, told);
	call(1, 300, 300, TP_MPI_CALL_FINALIZE, 0, 0);
	for (int r = 2; r < RANKS; r++)
		call(r, 250, 250, TP_MPI_CALL_FINALIZE, 0, 0);
}

Test(ranks_pop, messages_on_two_communicators_pair_within_each)
{
	crossed(true);
	char *text = said();
	expect_factors(text, 0.8, 250.0 / 300, 1.0);
	free(text);
}

Test(ranks_pop, messages_of_a_recording_that_does_not_tell_communicators_pair_by_tag)
{
	crossed(false);
	char *text = said();
	expect_factors(text, 0.8, 1.0, 250.0 / 300);
	free(text);
}

/*
 * Rank r computes 10 (r + 1) ms, marks a region of interest's start, computes 10 ms, marks its
 * stop, computes 10 (4 - r) ms and reaches MPI_Finalize at 60; `open`: no stop (the region ends at
 * MPI_Finalize's start, as OTF-CPT's does; before, the region left open was no region: the whole
 * window was the ranks'), `again`: a second region after (the windows from each first start to
 * each last stop, said so).
 */
static char *regions_marked(bool open, bool again)
{
	unsigned start = tp_record_roi_small(1, TP_ROI_BY_MPI_PCONTROL);
	for (int r = 0; r < RANKS; r++) {
		uint64_t at = 10 * (uint64_t)(r + 1);
		init(r);
		note(r, at, TP_RECORD_REGION_OF_INTEREST, start, 0, 0, 0, 0);
		if (!open)
			note(r, at + 10, TP_RECORD_REGION_OF_INTEREST, 0, 0, 0, 0, 0);
		if (again) {
			note(r, 55, TP_RECORD_REGION_OF_INTEREST, start, 0, 0, 0, 0);
			note(r, 58, TP_RECORD_REGION_OF_INTEREST, 0, 0, 0, 0, 0);
		}
		call(r, 60, 60, TP_MPI_CALL_FINALIZE, 0, 0);
	}
	return said();
}

Test(ranks_pop, a_region_of_interest_left_open_ends_at_mpi_finalize)
{
	char *text = regions_marked(true, false);
	/* rank r's window: 10 (r + 1) to 60 ms, all of it useful: 50 ms at most, 35 on average */
	expect_factors(text, 0.7, 1.0, 1.0);
	cr_expect(strstr(text,
			 " from MPI_Pcontrol(1) to MPI_Pcontrol(0) (MPI_Finalize for a region "
			 "left open) ") != NULL,
		  "%s", text);
	cr_expect(strstr(text, "useful time per rank 0.020 to 0.050 s of 0.050 s") != NULL, "%s",
		  text);
	free(text);
}

Test(ranks_pop, regions_of_interest_apart_are_said_to_hold_what_lies_between)
{
	char *text = regions_marked(false, true);
	cr_expect(strstr(text, ", each rank's from its first start to its last stop, the time "
			       "between its regions included ") != NULL,
		  "%s", text);
	free(text);
}

/*
 * Ranks 0 and 1 mark a region, 2 and 3 none: the windows are MPI_Init to MPI_Finalize (no
 * rank's region is used), which the line said as if no rank had marked one.
 */
Test(ranks_pop, ranks_that_mark_no_region_while_others_do_are_named)
{
	unsigned start = tp_record_roi_small(1, TP_ROI_BY_MPI_PCONTROL);
	for (int r = 0; r < RANKS; r++) {
		init(r);
		if (r < 2) {
			note(r, 10, TP_RECORD_REGION_OF_INTEREST, start, 0, 0, 0, 0);
			note(r, 20, TP_RECORD_REGION_OF_INTEREST, 0, 0, 0, 0, 0);
		}
		call(r, 60, 60, TP_MPI_CALL_FINALIZE, 0, 0);
	}
	char *text = said();
	cr_expect(strstr(text, " from MPI_Init to MPI_Finalize (not the regions of interest: ranks "
			       "2 and 1 more marked none) ") != NULL,
		  "%s", text);
	free(text);
}

/*
 * MPI_Scan after rank r computed 10 (r + 1) ms, then 10 (4 - r) ms more: rank r leaves the scan
 * once ranks 0 to r came, at 10 (r + 1), and every rank ends at 50, as on an ideal network: no
 * serialisation, no transfer lost. Taken for a barrier (every rank leaving at 40), the ideal run
 * was longer than the real one, and the line said that the collectives did not pair up.
 */
Test(ranks_pop, a_scans_ranks_wait_for_those_below_them_alone)
{
	for (int r = 0; r < RANKS; r++) {
		uint64_t at = 10 * (uint64_t)(r + 1);
		init(r);
		call(r, at, at, TP_MPI_CALL_SCAN, 0xa, RANKS);
		call(r, 50, 50, TP_MPI_CALL_FINALIZE, 0, 0);
	}
	char *text = said();
	expect_factors(text, 1.0, 1.0, 1.0);
	free(text);
}

/* A job of one blocking collective `number` of root `root` (-1: none told): rank r in it from
 * from[r] to to[r] ms, after a burst, then MPI_Finalize at 50. */
static void one_collective(unsigned number, int64_t root, const uint64_t from[RANKS],
			   const uint64_t to[RANKS])
{
	for (int r = 0; r < RANKS; r++) {
		init(r);
		note(r, from[r], TP_RECORD_WAIT_START, TP_WAIT_MPI, number, (uint64_t)root, 0, 0);
		note(r, to[r], TP_RECORD_WAIT_END, TP_WAIT_MPI, number, 0, 0, 0);
		call(r, 50, 50, TP_MPI_CALL_FINALIZE, 0, 0);
	}
}

/* The four ranks' offsets moved to `want` ms. */
static void expect_moved(const int64_t moved[RANKS], const int64_t want[RANKS])
{
	cr_expect(memcmp(moved, want, RANKS * sizeof *moved) == 0,
		  "moved to %lld %lld %lld %lld ms, not %lld %lld %lld %lld", (long long)moved[0],
		  (long long)moved[1], (long long)moved[2], (long long)moved[3], (long long)want[0],
		  (long long)want[1], (long long)want[2], (long long)want[3]);
}

/* The four ranks' offsets (ms) moved by ranks_pop_causality from `offsets_ms`; returns its
 * count. */
static size_t causality(const int64_t offsets_ms[RANKS], int64_t moved_ms[RANKS])
{
	struct ranks_pop_rank ranks[RANKS];
	for (int r = 0; r < RANKS; r++)
		ranks[r] = (struct ranks_pop_rank){.number = r,
						   .tid = 100 + (uint32_t)r,
						   .offset = offsets_ms[r] * (int64_t)MS};
	size_t count = ranks_pop_causality(p, ranks, RANKS, to_ns, NULL);
	for (int r = 0; r < RANKS; r++)
		moved_ms[r] = ranks[r].offset / (int64_t)MS;
	return count;
}

/*
 * Rank 0 works 40 ms, then broadcasts (40..41); the others wait in the broadcast from 1 to 41.
 * Rank 1 placed 10 ms early (another host's, by MPI_Init's end) leaves it before its root
 * arrived: it moves to -1 ms, the least that ends its broadcast at the root's arrival; the
 * others stay. Placed right, nothing moves.
 */
Test(ranks_pop, a_rank_that_leaves_a_broadcast_before_its_root_arrived_moves_later)
{
	one_collective(TP_MPI_CALL_BCAST, 0, (uint64_t[RANKS]){40, 1, 1, 1},
		       (uint64_t[RANKS]){41, 41, 41, 41});
	int64_t moved[RANKS];
	cr_expect_eq(causality((int64_t[RANKS]){0, -10, 0, 0}, moved), 1);
	expect_moved(moved, (int64_t[RANKS]){0, -1, 0, 0});
	cr_expect_eq(causality((int64_t[RANKS]){0, 0, 0, 0}, moved), 0);
}

/*
 * Every rank arrives at a barrier at 10 and leaves at 11; rank 2 placed 5 ms late: the others
 * left before it arrived (15), and move to 4 ms (their leaving at its arrival).
 */
Test(ranks_pop, ranks_that_leave_a_barrier_before_the_last_arrived_move_later)
{
	one_collective(TP_MPI_CALL_BARRIER, -1, (uint64_t[RANKS]){10, 10, 10, 10},
		       (uint64_t[RANKS]){11, 11, 11, 11});
	int64_t moved[RANKS];
	cr_expect_eq(causality((int64_t[RANKS]){0, 0, 5, 0}, moved), 1);
	expect_moved(moved, (int64_t[RANKS]){4, 4, 5, 4});
}

/*
 * A reduction to rank 0: every rank arrives at 20, leaves at 21. Its root waits for the others:
 * placed 10 ms early it left before they arrived, and moves to -1 ms; another rank placed early
 * waits for nobody there, and stays.
 */
Test(ranks_pop, a_reductions_root_alone_waits_for_the_others)
{
	one_collective(TP_MPI_CALL_REDUCE, 0, (uint64_t[RANKS]){20, 20, 20, 20},
		       (uint64_t[RANKS]){21, 21, 21, 21});
	int64_t moved[RANKS];
	cr_expect_eq(causality((int64_t[RANKS]){-10, 0, 0, 0}, moved), 1);
	cr_expect_eq(moved[0], -1);
	cr_expect_eq(causality((int64_t[RANKS]){0, -10, 0, 0}, moved), 0);
	cr_expect_eq(moved[1], -10);
}

/*
 * A broadcast whose root is not told (or has no recording): its ranks need not wait for each
 * other, and rank 1 placed 10 ms early stays.
 */
Test(ranks_pop, a_rooted_collective_of_no_known_root_moves_nobody)
{
	one_collective(TP_MPI_CALL_BCAST, -1, (uint64_t[RANKS]){40, 1, 1, 1},
		       (uint64_t[RANKS]){41, 41, 41, 41});
	int64_t moved[RANKS];
	cr_expect_eq(causality((int64_t[RANKS]){0, -10, 0, 0}, moved), 0);
	cr_expect_eq(moved[1], -10);
}

/* A barrier a rank's file says it left before it arrived (45, left at 44) is not followed: its
 * own arrival would move that rank on every pass. */
Test(ranks_pop, a_collective_left_before_it_was_entered_moves_nobody)
{
	one_collective(TP_MPI_CALL_BARRIER, -1, (uint64_t[RANKS]){45, 45, 45, 45},
		       (uint64_t[RANKS]){46, 46, 44, 46});
	int64_t moved[RANKS];
	cr_expect_eq(causality((int64_t[RANKS]){0, 0, 0, 0}, moved), 0);
	expect_moved(moved, (int64_t[RANKS]){0, 0, 0, 0});
}
