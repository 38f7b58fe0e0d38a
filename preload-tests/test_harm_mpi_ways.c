// SPDX-License-Identifier: MIT
/*
 * Do no harm (MPI), the ways a program's MPI calls reach the shim other than its own calls of the
 * C interface: from a library it opens in a scope of its own (as Python opens mpi4py), from its
 * Fortran (Open MPI's bindings call the PMPI_ entry points), through a profiling layer linked
 * into it, and its polls (MPI_Test in a loop). Each runs as without taskprobe, each call is seen
 * once, and the figures are the program's.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harm_mpi.h"
#include "harness.h"
#include "harness_internal.h"

/*
 * MPI in a library the program opens with dlopen(RTLD_LOCAL), as Python opens mpi4py's: the
 * shim's MPI_ symbols find the implementation in that library's scope (they once resolved to
 * nothing there, and the program died of SIGSEGV at its first MPI call, recorded or not), and
 * leave dlerror() as it was (its look-ups' failures once said "undefined symbol" after the
 * successful dlopen). The same output, status 0; its ranks named, its messages flows, its
 * receives waits.
 */
Test(harm, mpi_in_a_library_opened_in_a_scope_of_its_own_runs_and_is_seen, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *host = strdup(tp_target("dlopen_local")); /* tp_target's buffer is reused */
	char *summary = record_job((const char *[]){MPIRUN_ANYWHERE, "-np", "2", host,
						    target("mpi_plugin.so"), "pipeline", NULL},
				   NULL, false, NULL);
	free(host);
	expect_ranks(summary, 2);
	cr_expect_eq(flows(summary, 0, 1), 3, "%s", summary);
	double v[4];
	cr_expect(wait_line(summary, rank_name(1), "MPI_Recv", v) && v[0] == 3, "%s", summary);
	free(summary);
}

/*
 * A program in Fortran: its MPI calls reach the implementation through its Fortran bindings,
 * Open MPI's by the PMPI_ entry points (once unseen: no rank, no message, no MPI efficiency),
 * MPICH's by the MPI_ ones: each call seen once. MPI_Pcontrol's region of interest (Open MPI's
 * binding reaches it by a tail call), the imbalance in it (rank r works 1 + 2r units).
 */
Test(harm, mpi_ranks_in_fortran_are_seen_through_either_implementations_bindings, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *ranks = target("mpi_ranks_fortran");
	expect_pipeline_of_two(
		record_job((const char *[]){MPIRUN_ANYWHERE, "-np", "2", ranks, "pipeline", NULL},
			   NULL, false, NULL));
	char *said;
	free(record_job_judged(
		mpirun(), (const char *[]){MPIRUN_ANYWHERE, "-np", "2", ranks, "imbalance", NULL},
		NULL, mpi_imbalanced, &said));
	cr_expect(strstr(said, " from MPI_Pcontrol(1) to MPI_Pcontrol(0) ") != NULL, "%s", said);
	cr_expect(mpi_imbalanced(said), "%s", said);
	free(said);
	const char *mpich = tp_require_program("/usr/bin/mpirun.mpich", "mpich and libmpich-dev");
	expect_pipeline_of_two(record_job_of(
		mpich,
		(const char *[]){"-np", "2",
				 tp_require_program(tp_target("mpi_ranks_fortran_mpich"),
						    "mpich and libmpich-dev"),
				 "pipeline", NULL},
		NULL, false, NULL));
}

/*
 * A profiling layer linked into the program (mpi_profiler: MPI_Send, MPI_Recv and MPI_Finalize of
 * its own, as mpiP's) keeps working: its report is the program's output, the same recorded (the
 * shim's MPI_ symbols once came first and bypassed it: no report); each call seen once.
 */
Test(harm, an_mpi_profiling_layer_linked_in_still_counts_and_reports, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *job[] = {MPIRUN_ANYWHERE, "-np", "2", target("mpi_ranks_profiled"),
			     "pipeline",      NULL};
	struct tp_run run;
	tp_run(TP_PRELOADED,
	       (const char *[]){mpirun(), job[0], job[1], job[2], job[3], job[4], job[5], NULL},
	       NULL, &run);
	cr_expect(strstr(run.out, "profiler: rank 0 made 5 sends and 1 receives\n") != NULL, "%s",
		  run.out);
	tp_run_free(&run);
	expect_pipeline_of_two(record_job(job, NULL, false, NULL)); /* its output: the plain one */
}

/*
 * A rank that waits by polling (mpi_ranks poll: rank 1 works 1 unit, then tests its receive in a
 * loop until rank 0 sends after 3 units): its polls are MPI's time, not useful, so the ranks'
 * load balance is 1 unit's and 3's (2/3; it once read 1.000, the polling counted as useful), and
 * the polls one after another are few waits in the recording, not one a call.
 */
/*
 * Two ranks' load balance when one works 1 unit and the other 3, the waits in between MPI's:
 * 2/3 on a quiet machine. A loaded machine moves it either way, as OTF-CPT's: time a rank is
 * preempted outside MPI counts as useful, rank 1's between two polls (more) or rank 0's in its
 * work (less: CI read 0.531, rank 0's 3 units taking 15 times rank 1's one). Two ranks read 1/2
 * at least, 1/2 exactly when rank 1's work is lost to MPI: that is the lower bound; the waits
 * counted as useful read about 1.
 */
static bool one_unit_and_three(const char *said)
{
	double balance, serialisation;
	mpi_efficiency(said, &balance, &serialisation);
	return balance > 50 && balance < 90;
}

Test(harm, a_rank_polling_mpi_test_waits_in_mpi_and_is_recorded_as_few_waits, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *said, *summary = record_shape_judged(false, 2, "poll", one_unit_and_three, &said);
	expect_two_ranks(summary, 1, 0);
	double v[4];
	/* thousands of calls: a wait for each run of them the machine did not interrupt */
	cr_expect(wait_line(summary, rank_name(1), "MPI_Test", v) && v[0] >= 1 && v[0] < 1000, "%s",
		  summary);
	/* it read 1.000, the polling counted as useful */
	cr_expect(one_unit_and_three(said), "%s", said);
	free(summary);
	free(said);
}

/*
 * The calls that wait for other ranks and carry no message (mpi_ranks others: rank r works 1 + 2r
 * units before MPI_Comm_split, MPI_Alltoallw, MPI_Cart_create, MPI_Comm_split_type and the
 * second of two MPI_Win_fence): each a wait on every rank, so the ranks' load balance is their
 * work's, 1 unit's and 3's (2/3; it once read about 1, the waiting in them counted as useful;
 * the topology's making and MPI_Comm_split_type were no waits).
 */
Test(harm, communicators_alltoallw_and_fences_are_waits_on_every_rank, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *said, *summary = record_shape_judged(false, 2, "others", one_unit_and_three, &said);
	expect_ranks(summary, 2);
	double v[4];
	for (int rank = 0; rank < 2; rank++) {
		cr_expect(wait_line(summary, rank_name(rank), "MPI_Comm_split", v) && v[0] == 1,
			  "%s", summary);
		cr_expect(wait_line(summary, rank_name(rank), "MPI_Alltoallw", v) && v[0] == 1,
			  "%s", summary);
		cr_expect(wait_line(summary, rank_name(rank), "MPI_Cart_create", v) && v[0] == 1,
			  "%s", summary);
		cr_expect(wait_line(summary, rank_name(rank), "MPI_Comm_split_type", v) &&
				  v[0] == 1,
			  "%s", summary);
		cr_expect(wait_line(summary, rank_name(rank), "MPI_Win_fence", v) && v[0] == 2,
			  "%s", summary);
	}
	cr_expect(one_unit_and_three(said), "%s", said);
	free(summary);
	free(said);
}

/*
 * Messages by persistent requests (mpi_ranks persistent: the pipeline's rounds by MPI_Recv_init
 * and MPI_Send_init, each started by MPI_Start or MPI_Startall, completed by MPI_Wait): each a
 * message and a flow, as MPI_Irecv's and MPI_Isend's (once none was seen: 1 flow of 6), on Open
 * MPI's pointer requests and MPICH's int ones.
 */
Test(harm, messages_by_persistent_requests_are_flows, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *summary = record_job((const char *[]){MPIRUN_ANYWHERE, "-np", "2",
						    target("mpi_ranks"), "persistent", NULL},
				   NULL, false, NULL);
	expect_two_ranks(summary, 5, 1);
	double v[4];
	cr_expect(wait_line(summary, rank_name(1), "MPI_Wait", v) && v[0] == 5, "%s", summary);
	free(summary);
	const char *mpich = tp_require_program("/usr/bin/mpirun.mpich", "mpich and libmpich-dev");
	summary = record_job_of(mpich,
				(const char *[]){"-np", "2",
						 tp_require_program(tp_target("mpi_ranks_mpich"),
								    "mpich and libmpich-dev"),
						 "persistent", NULL},
				NULL, false, NULL);
	expect_two_ranks(summary, 5, 1);
	free(summary);
}

/*
 * Erroneous calls are the implementation's to refuse, and the program's to handle (mpi_ranks
 * erroneous): given no request array (MPI_ERRORS_RETURN: MPI_Start, MPI_Startall,
 * MPI_Request_free, MPI_Waitall), the same 4 refusals recorded as plainly (the shim once read
 * the array first: SIGSEGV); on MPI_COMM_NULL (MPI_Barrier, MPI_Bcast, MPI_Send), a send of
 * MPI_DATATYPE_NULL and one to a rank beyond its communicator, the program's error handler called
 * 5 times, as plainly (the shim's own calls on them ran it too: 9 times on MPICH; on Open MPI the
 * rank's translation died of SIGSEGV), on Open MPI and MPICH.
 */
Test(harm, erroneous_calls_are_refused_as_without_the_shim, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	free(record_job((const char *[]){MPIRUN_ANYWHERE, "-np", "2", target("mpi_ranks"),
					 "erroneous", NULL},
			NULL, false, NULL));
	const char *mpich = tp_require_program("/usr/bin/mpirun.mpich", "mpich and libmpich-dev");
	free(record_job_of(mpich,
			   (const char *[]){"-np", "2",
					    tp_require_program(tp_target("mpi_ranks_mpich"),
							       "mpich and libmpich-dev"),
					    "erroneous", NULL},
			   NULL, false, NULL));
}
