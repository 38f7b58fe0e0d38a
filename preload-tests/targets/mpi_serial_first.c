// SPDX-License-Identifier: MIT
/*
 * Serial code before OpenMP's runtime starts, in MPI ranks: after MPI_Init each rank works 2
 * units, then its two OpenMP threads a unit each in a parallel region (in a function of its own:
 * a clang build calls into the runtime at the entry of a function with a construct, and main has
 * none), then the ranks meet in MPI_Barrier. Outside MPI each rank spends 3 units (MPI load
 * balance 1); its threads compute 3 and 1 (load balance 2/3, all OpenMP's); nothing is lost to
 * communication. OMPT tells a tool of the initial task only when the runtime starts: counted
 * from there, the 2 units would be no thread's computation (OpenMP's communication 1/3).
 * Only rank 0 prints.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

/* long enough that a waiting rank's turn for a CPU on a loaded machine (milliseconds) is a few
 * percent of the run (as mpi_hybrid's) */
#define UNIT_US 150000

__attribute__((noinline)) static void a_unit_on_each_thread(void)
{
#pragma omp parallel num_threads(2)
	usleep(UNIT_US);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	usleep(2 * UNIT_US); /* the serial code, before any call into OpenMP */
	a_unit_on_each_thread();
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("serial first over %d ranks\n", size);
	MPI_Finalize();
	return 0;
}
