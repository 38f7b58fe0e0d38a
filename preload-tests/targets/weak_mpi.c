// SPDX-License-Identifier: MIT
/*
 * A program without MPI that uses it only when it is there, as some libraries do: a weak
 * reference to MPI_Init, tested before it is called.
 */
#include <stdio.h>

extern int MPI_Init(int *argc, char ***argv) __attribute__((weak));
extern int MPI_Send(const void *buf, int count, void *type, int dest, int tag, void *comm)
	__attribute__((weak));

int main(void)
{
	printf("MPI_Init %s, MPI_Send %s\n", MPI_Init ? "present" : "absent",
	       MPI_Send ? "present" : "absent");
	return 0;
}
