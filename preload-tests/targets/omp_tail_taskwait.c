// SPDX-License-Identifier: MIT
/*
 * A tree of OpenMP tasks whose taskwait is the last thing its function does: built by GCC with
 * -O2, the call to the runtime's taskwait is a tail call (a jump), and so is the task's call of
 * the function, so the return address the runtime reports for the taskwait is inside the runtime.
 * node(DEPTH) makes 2^(DEPTH+1) - 2 tasks and 2^DEPTH - 1 taskwaits, one per inner node; the
 * parallel region ends in its barrier. Prints the leaves' sum.
 */
#include <stdio.h>
#include <stdlib.h>

#define DEPTH 6

static long leaves[1 << DEPTH];

__attribute__((noinline)) static void node(int depth, int index)
{
	if (depth == DEPTH) {
		leaves[index] = index;
		return;
	}
#pragma omp task
	node(depth + 1, 2 * index);
#pragma omp task
	node(depth + 1, 2 * index + 1);
#pragma omp taskwait
}

int main(void)
{
#pragma omp parallel
#pragma omp single
	node(0, 0);
	long sum = 0;
	for (int i = 0; i < 1 << DEPTH; i++)
		sum += leaves[i];
	printf("%ld\n", sum);
	return 0;
}
