// SPDX-License-Identifier: MIT
/*
 * Mutual exclusion of every OpenMP kind, a known number of times, and a region of interest:
 * 20 critical sections, 10 ordered ones, 10 lock holds, a nested lock set twice and unset twice,
 * one omp_test_lock that succeeds; between omp_control_tool's start and end. Prints what the
 * program computed and what omp_control_tool returned to it.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	long sum = 0, ordered_sum = 0, locked = 0;
	omp_lock_t lock;
	omp_nest_lock_t nest;
	omp_init_lock(&lock);
	omp_init_nest_lock(&nest);
	/* libomp hears omp_control_tool only once it is initialised: omp_get_max_threads does it,
	 * as OTF-CPT's tests call it first */
	int threads = omp_get_max_threads();
	int started = omp_control_tool(omp_control_tool_start, 0, NULL);
#pragma omp parallel for schedule(static, 1)
	for (int i = 0; i < 20; i++) {
#pragma omp critical(sum)
		sum += i;
	}
#pragma omp parallel for ordered schedule(static, 1)
	for (int i = 0; i < 10; i++) {
#pragma omp ordered
		ordered_sum = ordered_sum * 3 + i;
	}
#pragma omp parallel for schedule(static, 1)
	for (int i = 0; i < 10; i++) {
		omp_set_lock(&lock);
		locked++;
		omp_unset_lock(&lock);
	}
	omp_set_nest_lock(&nest);
	omp_set_nest_lock(&nest);
	locked++;
	omp_unset_nest_lock(&nest);
	omp_unset_nest_lock(&nest);
	if (omp_test_lock(&lock)) {
		locked++;
		omp_unset_lock(&lock);
	}
	int ended = omp_control_tool(omp_control_tool_end, 0, NULL);
	omp_destroy_lock(&lock);
	omp_destroy_nest_lock(&nest);
	printf("threads %d sum %ld ordered %ld locked %ld control %d %d\n", threads, sum,
	       ordered_sum, locked, started, ended);
	return 0;
}
