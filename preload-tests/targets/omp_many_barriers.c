// SPDX-License-Identifier: MIT
/*
 * More sync sites than the live statistics name one by one: `omp_many_barriers` runs one
 * parallel region of two threads through its 130 barriers (one a line below, each a sync site
 * of its own), in two functions of 65. Prints the barriers each thread passed.
 */
#include <stdio.h>

static int passed[2];

/* a barrier; its site is the line it is written on */
#define BARRIER()                                                                                  \
	_Pragma("omp barrier") passed[omp_get_thread_num() & 1]++;

int omp_get_thread_num(void);

static void barriers_1_to_65(void)
{
	/* one construct a line */
	// clang-format off
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	// clang-format on
}

static void barriers_66_to_130(void)
{
	// clang-format off
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	BARRIER()
	// clang-format on
}

int main(void)
{
#pragma omp parallel num_threads(2)
	{
		barriers_1_to_65();
		barriers_66_to_130();
	}
	printf("omp_many_barriers: threads passed %d and %d barriers\n", passed[0], passed[1]);
	return 0;
}
