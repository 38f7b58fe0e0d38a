// SPDX-License-Identifier: MIT
/*
 * Nested regions in time steps: an outer team of 2 threads, thread 0 running 4 steps of a short
 * inner region (a team of 2, each thread sleeping SHORT_MS), thread 1 running 4 steps of a long
 * one (LONG_MS). Every inner instance is balanced: its threads wait at its barrier for nothing
 * but each other's wake-up. The short team is done first; libomp then gives its worker, back in
 * the pool, to the long team's next instance, so one OS thread is a worker of both sites, and a
 * worker idles in the pool between instances and after its team's last.
 */
#include <omp.h>
#include <stdio.h>
#include <time.h>

enum { STEPS = 4, SHORT_MS = 20, LONG_MS = 60 };

static void sleep_ms(int ms)
{
	struct timespec t = {0, ms * 1000L * 1000L};
	while (nanosleep(&t, &t) != 0)
		;
}

static int short_steps(void)
{
	int ran = 0;
	for (int k = 0; k < STEPS; k++) {
#pragma omp parallel num_threads(2) reduction(+ : ran)
		{
			sleep_ms(SHORT_MS);
			ran++;
		}
	}
	return ran;
}

static int long_steps(void)
{
	int ran = 0;
	for (int k = 0; k < STEPS; k++) {
#pragma omp parallel num_threads(2) reduction(+ : ran)
		{
			sleep_ms(LONG_MS);
			ran++;
		}
	}
	return ran;
}

int main(void)
{
	int ran[2] = {0, 0};
	omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
	{
		int outer = omp_get_thread_num();
		ran[outer] = outer == 0 ? short_steps() : long_steps();
	}
	printf("nested steps: %d %d\n", ran[0], ran[1]);
	return 0;
}
