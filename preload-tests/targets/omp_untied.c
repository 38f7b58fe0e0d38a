// SPDX-License-Identifier: MIT
/*
 * A tree of untied OpenMP tasks, as BOTS uts makes them: each call spawns its children, one
 * untied task each, then waits for them (taskwait); a node at depth below DEPTH has WIDTH
 * children. Prints the number of nodes. argv[1] is DEPTH (default 4), argv[2] WIDTH (default 3).
 */
#include <stdio.h>
#include <stdlib.h>

static long tree(int depth, int width)
{
	long counts[16] = {0}, nodes = 1;
	if (depth > 0)
		for (int i = 0; i < width; i++) {
#pragma omp task untied firstprivate(i) shared(counts)
			counts[i] = tree(depth - 1, width);
		}
#pragma omp taskwait
	for (int i = 0; i < width; i++)
		nodes += counts[i];
	return nodes;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 4, width = argc > 2 ? atoi(argv[2]) : 3;
	if (width < 0 || width > 16)
		width = 3;
	long nodes = 0;
#pragma omp parallel
#pragma omp single
	nodes = tree(depth, width);
	printf("%ld nodes\n", nodes);
	return 0;
}
