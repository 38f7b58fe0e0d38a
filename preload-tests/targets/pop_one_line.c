// SPDX-License-Identifier: MIT
/*
 * Two parallel constructs on one line (test_pop.c), taken by turns for STEPS steps: one site to
 * a person (its text is the line), two call addresses to the shim, as an unrolled loop's copies
 * of one construct are. In the first, thread t works 1 + 2t units (pop_units.h); in the second,
 * 2 - t (`most` - t). Each alone is imbalanced (load balance 0.667 and 0.75 on two threads); the line's, as
 * every thread's units at it are added up, is (3 + 4) / 2 / 4 = 0.875 a pair of steps.
 */
#include "pop_units.h"

#define STEPS 8

/* The step's construct, both on the line the macro is used on; the second takes a variable
 * (`most`, 2), so that clang cannot make their two calls into libomp one. */
#define POP_TURN(step)                                                                             \
	do {                                                                                       \
		pop_fork();                                                                        \
		if ((step) % 2 == 0) {                                                             \
			_Pragma("omp parallel") pop_work(1 + 2 * omp_get_thread_num());            \
		} else {                                                                           \
			_Pragma("omp parallel") pop_work(most - omp_get_thread_num());             \
		}                                                                                  \
		pop_join();                                                                        \
	} while (0)

int main(void)
{
	int most = 2;
	pop_start();
	for (int step = 0; step < STEPS; step++) {
		POP_TURN(step);
		pop_checksum = pop_checksum * 3 + (unsigned long)step;
	}
	pop_end("pop_one_line");
	return 0;
}
