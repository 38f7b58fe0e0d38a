// SPDX-License-Identifier: MIT
/*
 * An MPI call in a loop, for what the MPI adapter costs a call (contrib/bench/mpi-overhead):
 * `mpi_calls CALL N` makes N calls of CALL on MPI_COMM_SELF, after MPI_Init, and prints the
 * nanoseconds a call took. CALL: barrier (a collective of one rank: returns at once), sendrecv
 * (a message to itself: one send and one receive).
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	MPI_Init(&argc, &argv);
	long n = atol(argv[2]);
	int out = 1, in = 0;
	bool barrier = strcmp(argv[1], "barrier") == 0;
	double start = now_ns();
	for (long i = 0; i < n; i++) {
		if (barrier)
			MPI_Barrier(MPI_COMM_SELF);
		else
			MPI_Sendrecv(&out, 1, MPI_INT, 0, 3, &in, 1, MPI_INT, 0, 3, MPI_COMM_SELF,
				     MPI_STATUS_IGNORE);
	}
	double elapsed = now_ns() - start;
	printf("%.1f\n", n > 0 ? elapsed / n : 0);
	MPI_Finalize();
	return 0;
}
