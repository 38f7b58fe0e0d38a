// SPDX-License-Identifier: MIT
/*
 * MPI and OpenMP together: each rank runs OpenMP tasks on its threads, then the ranks reduce
 * their results; only rank 0 prints.
 */
#include <mpi.h>
#include <stdio.h>

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
