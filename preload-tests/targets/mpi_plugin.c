// SPDX-License-Identifier: MIT
/*
 * An MPI program's code in a library, for a program that opens it at run time (dlopen_local):
 * `pipeline` passes rank 0's three tokens to rank 1, which prints their sum.
 */
#include <mpi.h>
#include <stdio.h>

int pipeline(void)
{
	int rank = -1, sum = 0;
	MPI_Init(NULL, NULL);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int token = 1; token <= 3; token++) {
		int got = 0;
		if (rank == 0)
			MPI_Send(&token, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
		else if (rank == 1)
			MPI_Recv(&got, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		sum += got;
	}
	if (rank == 1)
		printf("sum %d\n", sum);
	MPI_Finalize();
	return 0;
}
