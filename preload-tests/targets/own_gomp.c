// SPDX-License-Identifier: MIT
/*
 * A libgomp.so.1 of a program's own (omp_own_runtime.c), told from GCC's by its answer: its one
 * routine, at libgomp's version, says 42 threads whatever OMP_NUM_THREADS says.
 */
int omp_get_max_threads(void);

int omp_get_max_threads(void)
{
	return 42;
}
