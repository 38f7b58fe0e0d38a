// SPDX-License-Identifier: MIT
/*
 * Do no harm (MPI): an MPI program recorded with `taskprobe record` (its launcher under the
 * recording, or each rank under its own with --dir) prints what it prints without taskprobe,
 * and its timeline has a process per rank, named "rank N (HOST)" and ordered by rank, its MPI
 * calls as waits named by call and site, each message a flow from its send to its later
 * receive, with clocks that disagree (a rank in a time namespace, one on "another host")
 * aligned. Recordings of two jobs are refused, a rank missing or torn is said. A program
 * without MPI finds no MPI in the shim.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "harness_internal.h"

#include "harm_mpi.h"

Test(harm, mpi_ranks_are_processes_named_and_ordered_by_rank_with_a_flow_per_message,
     .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *ranks = target("mpi_ranks");
	for (int n = 2; n <= 4; n += 2) {
		char np[8];
		snprintf(np, sizeof np, "%d", n);
		char *summary = record_job(
			(const char *[]){MPIRUN_ANYWHERE, "-np", np, ranks, "pipeline", NULL}, NULL,
			false, NULL);
		expect_ranks(summary, n);
		/* five rounds down the pipeline, the last rank's token back to rank 0 */
		for (int r = 0; r + 1 < n; r++)
			cr_expect_eq(flows(summary, r, r + 1), 5, "%d to %d: %s", r, r + 1,
				     summary);
		cr_expect_eq(flows(summary, n - 1, 0), 1, "%s", summary);
		cr_expect_eq(lines_starting(summary, "flow\t"), 5u * (unsigned)(n - 1) + 1, "%s",
			     summary);
		double v[4];
		cr_expect(wait_line(summary, rank_name(1), "MPI_Recv", v) && v[0] == 5, "%s",
			  summary);
		cr_expect(wait_line(summary, rank_name(0), "MPI_Send", v) && v[0] == 5, "%s",
			  summary);
		free(summary);
	}
}

Test(harm, nonblocking_mpi_messages_completed_by_waitall_are_flows_too, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *summary = record_job(
		(const char *[]){MPIRUN_ANYWHERE, "-np", "4", target("mpi_ranks"), "halo", NULL},
		NULL, false, NULL);
	expect_ranks(summary, 4);
	/* five rounds, each rank's two receives (statuses ignored) completed by one waitall */
	for (int r = 0; r < 4; r++) {
		cr_expect_eq(flows(summary, r, (r + 1) % 4), 5, "%d to its right: %s", r, summary);
		cr_expect_eq(flows(summary, r, (r + 3) % 4), 5, "%d to its left: %s", r, summary);
		double v[4];
		cr_expect(wait_line(summary, rank_name(r), "MPI_Waitall", v) && v[0] == 5, "%s",
			  summary);
	}
	cr_expect_eq(lines_starting(summary, "flow\t"), 40, "%s", summary);
	free(summary);
}

Test(harm, mpi_ranks_recorded_as_nobody_are_named_with_their_messages, .timeout = 180)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *ranks = tp_unprivileged_copy(target("mpi_ranks"));
	char *summary = record_job(
		(const char *[]){MPIRUN_ANYWHERE, "-np", "2", ranks, "pipeline", NULL}, NULL, true,
		NULL);
	expect_ranks(summary, 2);
	cr_expect_eq(flows(summary, 0, 1), 5, "%s", summary);
	cr_expect_eq(flows(summary, 1, 0), 1, "%s", summary);
	free(summary);
}

Test(harm, an_mpi_imbalance_shows_as_the_lighter_ranks_waiting_in_the_reduction, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *summary = record_job((const char *[]){MPIRUN_ANYWHERE, "-np", "4",
						    target("mpi_ranks"), "imbalance", NULL},
				   NULL, false, NULL);
	expect_ranks(summary, 4);
	/* rank r works 1 + 2r units: rank 0 (1 unit) waits for rank 3 (7 units) */
	double first[4], last[4];
	cr_assert(wait_line(summary, rank_name(0), "MPI_Allreduce", first), "%s", summary);
	cr_assert(wait_line(summary, rank_name(3), "MPI_Allreduce", last), "%s", summary);
	cr_expect(first[0] == 1 && last[0] == 1, "%s", summary);
	cr_expect_gt(first[1], last[1], "rank 0 waits longer than rank 3: %s", summary);
	free(summary);
}

/* Only the root works, the others wait for its broadcast: a quarter, and no serialisation
 * beyond the root's own work (1.000 quiet; a rank preempted after the broadcast counts that
 * time as useful, as OTF-CPT does: a CI run beside another suite read 0.962). */
static bool the_root_alone_works(const char *said)
{
	double balance, serialisation;
	mpi_efficiency(said, &balance, &serialisation);
	return balance >= 25 && balance < 30 && serialisation >= 90;
}

Test(harm, the_mpi_efficiencies_across_ranks_tell_imbalance_from_serialisation, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *said;
	double balance, serialisation;
	free(record_job_judged(mpirun(),
			       (const char *[]){MPIRUN_ANYWHERE, "-np", "4", target("mpi_ranks"),
						"imbalance", NULL},
			       NULL, mpi_imbalanced, &said));
	cr_expect(mpi_imbalanced(said), "%s", said);
	free(said);
	free(record_job_judged(
		mpirun(),
		(const char *[]){MPIRUN_ANYWHERE, "-np", "4", target("mpi_ranks"), "bcast", NULL},
		NULL, the_root_alone_works, &said));
	cr_expect(the_root_alone_works(said), "%s", said);
	free(said);
	/* MPI_Pcontrol(1) and (0) mark a region where every rank works alike, between
	 * mpi_imbalanced stretches: the region alone is measured (how balanced the ranks' equal work
	 * runs depends on the machine's load: only that it is the region's is asserted) */
	free(record_job((const char *[]){MPIRUN_ANYWHERE, "-np", "4", target("mpi_ranks"),
					 "pcontrol", NULL},
			NULL, false, &said));
	cr_expect(strstr(said, " from MPI_Pcontrol(1) to MPI_Pcontrol(0) ") != NULL, "%s", said);
	mpi_efficiency(said, &balance, &serialisation);
	cr_expect(balance > 0 && balance <= 100, "%s", said);
	free(said);
}

/*
 * A token received by matched probes (MPI_Mprobe and MPI_Mrecv) down two ranks, each sleeping
 * 40 ms with it in turn, then back to rank 0 by MPI_Improbe and MPI_Imrecv: a flow each way,
 * balanced ranks, serialisation 1/2 (the probe's wait is no useful time). On a loaded machine a
 * sleep may end late (a rank woken 10 ms after its 40: serialisation 50 / 90): the factors are
 * held to the ranks' useful times as measured, the chain of the two.
 */
Test(harm, messages_received_by_matched_probes_are_flows_and_waits, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *said;
	char *summary = record_job(
		(const char *[]){MPIRUN_ANYWHERE, "-np", "2", target("mpi_ranks"), "mprobe", NULL},
		NULL, false, &said);
	expect_two_ranks(summary, 1, 1);
	double v[4];
	cr_expect(wait_line(summary, rank_name(1), "MPI_Mprobe", v) && v[0] == 1, "%s", summary);
	cr_expect(wait_line(summary, rank_name(1), "MPI_Mrecv", v) && v[0] == 1, "%s", summary);
	double balance, serialisation, least, most;
	mpi_efficiency(said, &balance, &serialisation);
	mpi_useful_times(said, &least, &most);
	cr_expect(least >= 39.5, "each rank sleeps 40 ms: %s", said);
	/* (the figures are said to a thousandth, the times to a millisecond) */
	cr_expect(fabs(balance - 100 * (least + most) / 2 / most) <= 2, "%s", said);
	cr_expect(fabs(serialisation - 100 * most / (least + most)) <= 2, "%s", said);
	free(summary);
	free(said);
}

/*
 * Rooted collectives wait one way: a broadcast's ranks for its root, a reduction's root for its
 * ranks. Four ranks each sleep 80 ms around a broadcast from rank 0 (the others before it, rank
 * 0 after) and a reduction to it (rank 0 before, the others after): on an ideal network nobody
 * waits, serialisation 1 (every collective taken as a barrier made it 2 units of 4: not told).
 */
/* Balanced, serialisation 1 (each collective a barrier, or collectives paired as one
 * communicator's: less); a loaded machine's late wake from a sleep costs a rank some points. */
static bool nobody_waits(const char *said)
{
	double balance, serialisation;
	mpi_efficiency(said, &balance, &serialisation);
	return balance >= 85 && serialisation >= 85;
}

Test(harm, rooted_collectives_make_only_their_ranks_wait_for_the_root_or_the_root_for_them,
     .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *said;
	/* 1 and 1 (each collective a barrier: serialisation 1/2) */
	free(record_job_judged(
		mpirun(),
		(const char *[]){MPIRUN_ANYWHERE, "-np", "4", target("mpi_ranks"), "rooted", NULL},
		NULL, nobody_waits, &said));
	cr_expect(nobody_waits(said), "%s", said);
	free(said);
}

/*
 * Collectives on communicators of their own wait for their ranks alone: two pairs of ranks meet
 * in barriers on a communicator of each pair, each pair's sleeps the other's in reverse (60 and
 * 20 ms, then 20 and 60), and the first pair reduces once more. Balanced, serialisation 1 (taken
 * as MPI_COMM_WORLD's, the collectives did not pair up; with as many on each, they would have
 * made every rank wait 60 ms each time: 240 ms on an ideal network where 160 ms are spent).
 */
Test(harm, collectives_on_communicators_of_their_own_wait_for_their_ranks_alone, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *said;
	/* 1 and 1 (paired as one communicator: serialisation 160 / 240) */
	char *summary = record_job_judged(
		mpirun(),
		(const char *[]){MPIRUN_ANYWHERE, "-np", "4", target("mpi_ranks"), "pairs", NULL},
		NULL, nobody_waits, &said);
	expect_ranks(summary, 4);
	for (int r = 0; r < 4; r++) {
		double v[4];
		cr_assert(wait_line(summary, rank_name(r), "MPI_Barrier", v), "%s", summary);
		cr_expect_eq(v[0], 5, "rank %d: %s", r, summary);
		cr_expect_eq(wait_line(summary, rank_name(r), "MPI_Allreduce", v), r < 2, "%s",
			     summary);
	}
	cr_expect(nobody_waits(said), "%s", said);
	free(summary);
	free(said);
}

/*
 * A nonblocking collective's completion waits for the ranks it needs: a broadcast (MPI_Ibcast)
 * the others start at once and wait for after 10 ms, which rank 0 starts after 40 ms, then 40 ms
 * more on the others. Useful 40, 50, 50, 50 ms of 80: load balance 0.95, serialisation 50 / 80
 * (taken for a wait of no collective's, 1, and the loss in transfer), transfer about 1.
 */
static bool rank_0_is_waited_for(const char *said)
{
	double balance, serialisation;
	mpi_efficiency(said, &balance, &serialisation);
	/* 0.95 and 0.625 quiet; under load a rank's sleep overshot counts as useful (MPICH's: 0.852
	 * and 0.736 seen); taken for a wait of no collective's, serialisation read 1.000 */
	return balance >= 75 && balance <= 99 && serialisation >= 50 && serialisation <= 85;
}

Test(harm, a_nonblocking_collectives_completion_waits_for_the_ranks_it_needs, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *said;
	char *summary = record_shape_judged(false, 4, "overlap", rank_0_is_waited_for, &said);
	expect_ranks(summary, 4);
	for (int r = 0; r < 4; r++) {
		double v[4];
		cr_expect(wait_line(summary, rank_name(r), "MPI_Wait", v) && v[0] == 1,
			  "rank %d: %s", r, summary);
	}
	cr_expect(rank_0_is_waited_for(said), "%s", said);
	free(summary);
	free(said);
}

/*
 * On one host, and with rank 1 on another (a time namespace and a host name of its own: MPI_Init's
 * and MPI_Finalize's ends place it, each weighed by how closely the other host's three ranks end
 * it; Open MPI's ranks leave MPI_Finalize tens of ms apart, and a plain mean of the two placed
 * rank 1 some 20 ms early, its broadcast ending before the root began it).
 */
Test(harm, an_mpi_broadcast_after_work_on_the_root_ends_after_it_on_every_rank, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *ranks = target("mpi_ranks");
	char far_host[512];
	snprintf(far_host, sizeof far_host, "hostname far && exec %s bcast", ranks);
	const char *const *jobs[] = {
		(const char *[]){MPIRUN_ANYWHERE, "-np", "4", ranks, "bcast", NULL},
		(const char *[]){MPIRUN_ANYWHERE,
				 "-np",
				 "1",
				 ranks,
				 "bcast",
				 ":",
				 "-np",
				 "1",
				 "unshare",
				 "-T",
				 "--monotonic=100000",
				 "-u",
				 "--fork",
				 "/bin/sh",
				 "-c",
				 far_host,
				 ":",
				 "-np",
				 "2",
				 ranks,
				 "bcast",
				 NULL},
	};
	for (size_t j = 0; j < 2; j++) {
		if (j == 1 && geteuid() != 0) /* after the one-host job, which has run */
			tp_skip_unless_ci(
				"a time namespace needs root: rank 1 on another host not run");
		char *summary = record_job(jobs[j], NULL, false, NULL);
		if (j == 0)
			expect_ranks(summary, 4);
		else
			cr_expect_eq(lines_starting(summary, "process\t"), 4, "%s", summary);
		double began[4];
		cr_assert(wait_line(summary, rank_name(0), "MPI_Bcast", began), "%s", summary);
		for (int r = 1; r < 4; r++) {
			double v[4];
			const char *name = j == 1 && r == 1 ? "rank 1 (far)" : rank_name(r);
			cr_assert(wait_line(summary, name, "MPI_Bcast", v), "%s", summary);
			/* a rank's broadcast cannot end before the root's began (clocks aligned) */
			cr_expect_geq(v[3], began[2], "job %zu, rank %d: %s", j, r, summary);
			cr_expect(wait_line(summary, name, "MPI_Reduce", v), "%s", summary);
		}
		free(summary);
	}
}

/*
 * A rank whose monotonic clock is 100000 s ahead (a time namespace), in an MPMD job: on this
 * host (its system clock tells), and as if on another (its own host name: MPI_Init's and
 * MPI_Finalize's ends tell, then the messages). Aligned: no message goes back in time, and the
 * ranks' events lie within seconds of each other.
 */
Test(harm, a_rank_whose_clock_is_far_off_is_aligned_in_the_merge, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	if (geteuid() != 0)
		tp_skip_unless_ci("a time namespace needs root");
	const char *ranks = target("mpi_ranks");
	char far_host[512];
	snprintf(far_host, sizeof far_host, "hostname far && exec %s pipeline", ranks);
	const char *const *jobs[] = {
		(const char *[]){MPIRUN_ANYWHERE, "-np", "1", ranks, "pipeline", ":", "-np", "1",
				 "unshare", "-T", "--monotonic=100000", "--fork", ranks, "pipeline",
				 NULL},
		(const char *[]){MPIRUN_ANYWHERE, "-np", "1", ranks, "pipeline", ":", "-np", "1",
				 "unshare", "-T", "--monotonic=100000", "-u", "--fork", "/bin/sh",
				 "-c", far_host, NULL},
	};
	for (size_t j = 0; j < 2; j++) {
		char *said;
		char *summary = record_job(jobs[j], NULL, false, &said);
		cr_expect_eq(lines_starting(summary, "process\t"), 2, "%s", summary);
		cr_expect(strstr(summary, j == 0 ? "process\t1\trank 1 ("
						 : "process\t1\trank 1 (far)") != NULL,
			  "%s", summary);
		cr_expect_eq(lines_starting(summary, "flow\t"), 6, "%s", summary);
		cr_expect_eq(strstr(summary, "\tbackward\n"), NULL, "%s", summary);
		double span = -1;
		const char *at = strstr(summary, "span\t");
		cr_assert(at != NULL && sscanf(at + 5, "%lf", &span) == 1, "%s", summary);
		cr_expect(span >= 0 && span < 1000, "the ranks %g s apart: %s", span, summary);
		cr_expect(strstr(said, "in one timeline: clocks aligned") != NULL, "%s", said);
		cr_expect(strstr(said, "residual uncertainty") != NULL, "%s", said);
		free(said);
		free(summary);
	}
}

/* `mpirun -np N taskprobe record --dir DIR -- mpi_ranks pipeline`: status 0. */
static void record_ranks_into(const char *dir, const char *np)
{
	struct tp_run run;
	tp_run(TP_PLAIN,
	       (const char *[]){mpirun(), MPIRUN_ANYWHERE, "-np", np, TP_CONTRIB_DIR "/taskprobe",
				"record", "--dir", dir, "--", target("mpi_ranks"), "pipeline",
				NULL},
	       NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	char expected[64];
	snprintf(expected, sizeof expected, "pipeline over %s ranks: ", np);
	cr_expect(strncmp(run.out, expected, strlen(expected)) == 0, "%s", run.out);
	tp_run_free(&run);
}

/* taskprobe-timeline -o JSON DIR/recording.* (JSON NULL: --analyze, its output dropped): its
 * status, stderr in *err. */
static int merge_dir(const char *dir, const char *json, char **err)
{
	char *cmd, *err_file = tp_make_temp("harm-mpi-err");
	cr_assert(asprintf(&cmd, "'%s' %s%s%s '%s'/recording.* 2>'%s' >/dev/null", TP_TIMELINE,
			   json != NULL ? "-o '" : "--analyze", json != NULL ? json : "",
			   json != NULL ? "'" : "", dir, err_file) > 0);
	int status = system(cmd);
	*err = tp_read_file(err_file, NULL);
	unlink(err_file);
	free(err_file);
	free(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(harm, ranks_recorded_into_one_directory_merge_and_two_jobs_there_are_refused, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *dir = tp_make_temp_dir("harm-mpi-dir"), json[400];
	snprintf(json, sizeof json, "%s.json", dir);
	record_ranks_into(dir, "3");
	char *err;
	cr_expect_eq(merge_dir(dir, json, &err), 0, "%s", err);
	char *summary = ranks_summary(json);
	expect_ranks(summary, 3);
	cr_expect_eq(flows(summary, 0, 1), 5, "%s", summary);
	free(summary);
	free(err);
	unlink(json);
	/* a second job into the same directory: never mixed with the first */
	record_ranks_into(dir, "2");
	cr_expect_eq(merge_dir(dir, json, &err), 5, "%s", err);
	cr_expect(strstr(err, "are recordings of two MPI jobs") != NULL, "%s", err);
	cr_expect_neq(access(json, F_OK), 0, "a timeline was written");
	free(err);
	/* nor analyzed: the same refusal, not an "out of memory" (it was) */
	cr_expect_eq(merge_dir(dir, NULL, &err), 5, "%s", err);
	cr_expect(strstr(err, "are recordings of two MPI jobs") != NULL, "%s", err);
	cr_expect_null(strstr(err, "out of memory"), "%s", err);
	free(err);
	unlink(json);
	tp_remove_temp_dir(dir);
}

Test(harm, a_torn_rank_leaves_the_others_merged_and_its_gap_said, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *dir = tp_make_temp_dir("harm-mpi-torn"), json[400];
	snprintf(json, sizeof json, "%s.json", dir);
	record_ranks_into(dir, "3");
	/* the last file (by name) cut in the middle, as a rank killed while writing leaves it */
	char *cmd, *last = tp_make_temp("harm-mpi-last");
	cr_assert(asprintf(&cmd, "ls '%s'/recording.* | tail -n 1 > '%s'", dir, last) > 0);
	cr_assert_eq(system(cmd), 0);
	char *path = tp_read_file(last, NULL);
	path[strcspn(path, "\n")] = '\0';
	struct stat st;
	cr_assert_eq(stat(path, &st), 0, "%s", path);
	cr_assert_eq(truncate(path, st.st_size / 2 + 3), 0);
	char *err;
	cr_expect_eq(merge_dir(dir, json, &err), 1, "%s", err);
	cr_expect(strstr(err, "skipped: ") != NULL, "the torn file is said: %s", err);
	cr_expect(strstr(err, "has no recording among these") != NULL ||
			  strstr(err, "its recording stops before MPI_Finalize") != NULL,
		  "the gap is said: %s", err);
	char *summary = ranks_summary(json);
	cr_expect_geq(lines_starting(summary, "process\t"), 2, "%s", summary);
	cr_expect_eq(strstr(summary, "\tbackward\n"), NULL, "%s", summary);
	free(summary);
	free(err);
	free(path);
	unlink(last);
	free(last);
	free(cmd);
	unlink(json);
	tp_remove_temp_dir(dir);
}

/*
 * Messages of one tag between two ranks on two communicators pair within each (MPI orders them
 * so), a duplicate of MPI_COMM_WORLD being one of its own: rank 0 sends A on the duplicate, then
 * after 100 ms B on MPI_COMM_WORLD; rank 1 receives B, sleeps 200 ms, then receives A; the
 * others sleep 250 ms. Rank 1's sleep needs B: serialisation 250 / 300, transfer about 1 (paired
 * by tag alone, A's send at the start let rank 1 start at once: serialisation 1). On Open MPI
 * and MPICH (its communicators ints).
 */
static bool rank_1_waits_for_b(const char *said)
{
	double balance, serialisation;
	mpi_efficiency(said, &balance, &serialisation);
	/* 0.833 quiet; a rank's sleep overshot under load counts as useful, and rank 1 left the
	 * barrier late reads more (CI: 0.960 beside another suite) */
	return serialisation >= 70 && serialisation <= 92;
}

/* mpi_ranks `shape` on four ranks by Open MPI or (`mpich`) MPICH: its messages and its
 * serialisation as above. */
static void expect_crossed(bool mpich, const char *shape)
{
	char *said, *summary = record_shape_judged(mpich, 4, shape, rank_1_waits_for_b, &said);
	expect_ranks(summary, 4);
	cr_expect_eq(flows(summary, 0, 1), 2, "%s: %s", shape, summary);
	cr_expect(rank_1_waits_for_b(said), "%s: %s", shape, said);
	free(summary);
	free(said);
}

Test(harm, messages_on_two_communicators_pair_within_each, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	for (int mpich = 0; mpich < 2; mpich++)
		expect_crossed(mpich, "crossed");
}

/*
 * The same, the duplicate made by MPI_Comm_idup (MPICH's MPI_Comm_idup_with_info too): its
 * identity its own once its request completes (it was its ranks', MPI_COMM_WORLD's); on two
 * intercommunicators between the same halves, each its own (they were both groups' alone: one);
 * and on MPICH, on MPI 4's communicators made from groups by string tags, each its own (and one
 * of ranks 0 and 2, made after rank 0 made another with its tag, the same on both: its message
 * whole).
 */
Test(harm, messages_on_a_nonblocking_duplicate_or_twin_intercommunicators_pair_within_each,
     .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	for (int mpich = 0; mpich < 2; mpich++) {
		expect_crossed(mpich, "crossed-idup");
		expect_crossed(mpich, "crossed-inter");
		if (!mpich) /* MPI 4's: MPICH's */
			continue;
		const char *const shapes[] = {"crossed-idup-info", "crossed-groups",
					      "crossed-inter-groups"};
		for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
			expect_crossed(mpich, shapes[i]);
	}
}

/*
 * Messages on an intercommunicator pair too: each even rank sends its odd partner three messages
 * of one tag on an intercommunicator between the halves and three on its duplicate, received on
 * the duplicate first. Each a flow, forward, between the partners (their ranks told from the
 * remote group's), none left half (the two sides' identities the same). Then one message in each
 * half, between its two ranks, and one on a communicator of theirs (MPI_Comm_create_group); then
 * each even rank's to its partner on the halves merged (MPI_Intercomm_merge).
 */
static void expect_intercomm(char *summary)
{
	expect_ranks(summary, 4);
	cr_expect_eq(flows(summary, 0, 1), 7, "%s", summary); /* and one on the halves merged */
	cr_expect_eq(flows(summary, 2, 3), 7, "%s", summary);
	/* within the halves (their ranks kept with their identities), and on a communicator of
	 * theirs that they alone made */
	cr_expect_eq(flows(summary, 0, 2), 2, "%s", summary);
	cr_expect_eq(flows(summary, 1, 3), 2, "%s", summary);
	cr_expect_eq(lines_starting(summary, "flow\t"), 18, "%s", summary);
	free(summary);
}

Test(harm, messages_on_an_intercommunicator_are_flows_between_its_sides, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	for (int mpich = 0; mpich < 2; mpich++)
		expect_intercomm(record_shape(mpich, 4, "intercomm", NULL));
}

/* mpi_ranks `shape` on two ranks, on Open MPI and MPICH: its messages `n` flows from rank `from`
 * to the other, each whole, and no other. */
static void expect_flows_only(const char *shape, int from, unsigned n)
{
	for (int mpich = 0; mpich < 2; mpich++) {
		char *summary = record_shape(mpich, 2, shape, NULL);
		expect_ranks(summary, 2);
		cr_expect_eq(flows(summary, from, 1 - from), n, "%s: %s", shape, summary);
		cr_expect_eq(lines_starting(summary, "flow\t"), n, "%s: %s", shape, summary);
		free(summary);
	}
}

/*
 * A cancelled receive receives no message: rank 1 cancels two receives and completes them, then
 * receives rank 0's one message. One flow, whole (MPICH left a cancelled receive's status with a
 * rank for its source, and each was a receive: three ends for one send).
 */
Test(harm, cancelled_receives_are_no_messages, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	expect_flows_only("cancel", 0, 1);
}

/*
 * A receive freed while active is seen no more: its message's receive end is missing (it is not
 * seen), and a persistent send made of its handle completes as the send it is (its wait fired a
 * receive of a message from rank 0 to itself: a second half flow).
 */
Test(harm, a_receive_freed_while_active_is_no_later_requests_receive, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	for (int mpich = 0; mpich < 2; mpich++) {
		char *summary = record_shape(mpich, 2, "freed", NULL);
		cr_expect_eq(flows(summary, 0, 1), 1, "%s", summary);
		cr_expect_eq(flows(summary, 0, 0), 0, "%s", summary);
		cr_expect_eq(lines_starting(summary, "flow\thalf"), 1, "%s", summary);
		cr_expect_eq(lines_starting(summary, "flow\t"), 2, "%s", summary);
		free(summary);
	}
}

/*
 * Receives completed by a wait of more requests than the 64 kept in place (a halo exchange of many
 * neighbours and fields in one MPI_Waitall), and more pending at once than 1024 (an exchange by
 * messages with thousands of ranks): each a message, whole (they were none: their flows left
 * half, their entries stale; beyond some 1000 pending, waits alone).
 */
Test(harm, receives_completed_many_at_once_are_each_a_message, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	expect_flows_only("many", 1, 1570);
}

/* The same shim with MPICH (its binary interface: handles are ints, statuses laid out
 * otherwise), installed beside Open MPI: ranks, messages and calls alike. */
Test(harm, ranks_of_an_mpich_job_are_named_with_their_messages, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *summary = record_shape(true, 2, "pipeline", NULL);
	expect_ranks(summary, 2);
	cr_expect_eq(flows(summary, 0, 1), 5, "%s", summary);
	cr_expect_eq(flows(summary, 1, 0), 1, "%s", summary);
	double v[4];
	cr_expect(wait_line(summary, rank_name(1), "MPI_Recv", v) && v[0] == 5, "%s", summary);
	free(summary);
	/* halo: nonblocking receives, their (int) requests completed by MPI_Waitall */
	summary = record_shape(true, 2, "halo", NULL);
	expect_ranks(summary, 2);
	cr_expect_eq(lines_starting(summary, "flow\t"), 20, "%s", summary);
	free(summary);
	/* a nonblocking broadcast's (int) request, and communicators of their own */
	char *said;
	free(record_shape_judged(true, 4, "overlap", rank_0_is_waited_for, &said));
	cr_expect(rank_0_is_waited_for(said), "%s", said);
	free(said);
	free(record_shape_judged(true, 4, "pairs", nobody_waits, &said));
	cr_expect(nobody_waits(said), "%s", said);
	free(said);
}

/* The MPI symbols the shim defines resolve to nothing where MPI is not: a weak test says so. */
Test(harm, a_program_without_mpi_finds_no_mpi_in_the_shim)
{
	struct tp_run run;
	tp_run_preloaded_as_plain((const char *[]){tp_target("weak_mpi"), NULL}, NULL, &run);
	cr_expect_str_eq(run.out, "MPI_Init absent, MPI_Send absent\n");
	tp_run_free(&run);
}
