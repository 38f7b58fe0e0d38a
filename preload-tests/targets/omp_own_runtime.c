// SPDX-License-Identifier: MIT
/*
 * A GCC-built OpenMP program that finds its libgomp.so.1 beside itself first (RUNPATH $ORIGIN),
 * as programs of a tree that brings its own runtime do (a conda or spack one). Prints the
 * runtime's omp_get_max_threads().
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	printf("max threads: %d\n", omp_get_max_threads());
	return 0;
}
