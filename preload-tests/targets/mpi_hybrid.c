// SPDX-License-Identifier: MIT
/*
 * MPI and OpenMP together; only rank 0 prints. By its argument:
 *   (none)     each rank runs OpenMP tasks on its threads, then the ranks reduce their results
 *   imbalance  between MPI_Pcontrol(1) and (0), rank r's two OpenMP threads t sleep
 *              (1 + t)(1 + 2r) units, then the ranks meet in MPI_Barrier: on 2 ranks the
 *              ranks' time outside MPI is 2 and 6 units (MPI load balance 4/6), the threads'
 *              1, 2, 3 and 6 (load balance 3/6, OpenMP's 0.75), communication lost nowhere
 *   open       MPI_Pcontrol(1), each rank's two OpenMP threads sleep a unit, MPI_Barrier, and no
 *              MPI_Pcontrol(0): the region left open; after MPI_Finalize the initial thread
 *              sleeps a unit more, outside it (balanced inside: parallel efficiency 1)
 *   poll       each rank's two OpenMP threads sleep a unit; then rank 1 sleeps 2 units more and
 *              sends rank 0 a message, which rank 0 waits for in a loop of MPI_Test: its
 *              threads compute a unit each, the loop none of it (its calls and the time
 *              between them are one wait)
 *   overlap    between MPI_Pcontrol(1) and (0), rank 0's thread 0 waits in MPI_Recv while its
 *              thread 1 sleeps 2 units; rank 1's two threads sleep 2 units, then its thread 0
 *              sends: the threads compute 0, 2, 2 and 2 units (load balance 3/4), each rank
 *              always has a thread computing (MPI's factors 1: OpenMP's load balance 3/4)
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* long enough that a waiting rank's turn for a CPU on a loaded machine (milliseconds) is a few
 * percent of the run, not the communication lost that it would read as */
#define UNIT_US 150000

static long fib(int n)
{
	if (n < 2)
		return n;
	long a, b;
#pragma omp task shared(a)
	a = fib(n - 1);
#pragma omp task shared(b)
	b = fib(n - 2);
#pragma omp taskwait
	return a + b;
}

int main(int argc, char **argv)
{
	int provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1 && strcmp(argv[1], "imbalance") == 0) {
		MPI_Pcontrol(1);
#pragma omp parallel num_threads(2)
		usleep((useconds_t)(UNIT_US * (1 + omp_get_thread_num()) * (1 + 2 * rank)));
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Pcontrol(0);
		if (rank == 0)
			printf("imbalance over %d ranks\n", size);
		MPI_Finalize();
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "open") == 0) {
		MPI_Pcontrol(1);
#pragma omp parallel num_threads(2)
		usleep(UNIT_US);
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0)
			printf("open over %d ranks\n", size);
		MPI_Finalize();
		usleep(UNIT_US);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "poll") == 0) {
#pragma omp parallel num_threads(2)
		usleep(UNIT_US);
		int token = 0, flag = 0;
		if (rank == 1) {
			usleep(2 * UNIT_US);
			MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
		} else if (rank == 0 && size > 1) {
			MPI_Request request;
			MPI_Irecv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &request);
			while (!flag)
				MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
			printf("polled over %d ranks\n", size);
		}
		MPI_Finalize();
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "overlap") == 0) {
		int token = 0;
		MPI_Pcontrol(1);
#pragma omp parallel num_threads(2)
		{
			int thread = omp_get_thread_num();
			if (thread == 0 && rank == 0 && size > 1)
				MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
			else
				usleep(2 * UNIT_US);
			if (thread == 0 && rank == 1)
				MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
		}
		MPI_Pcontrol(0);
		if (rank == 0)
			printf("overlap over %d ranks\n", size);
		MPI_Finalize();
		return 0;
	}
	long mine = 0, sum = 0;
#pragma omp parallel
#pragma omp single
	mine = fib(12 + rank);
	MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("hybrid over %d ranks: %ld\n", size, sum);
	MPI_Finalize();
	return 0;
}
