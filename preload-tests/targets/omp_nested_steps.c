// SPDX-License-Identifier: MIT
/*
 * Nested regions in time steps: an outer team of 2 threads, thread 0 running 4 steps of a short
 * inner region (a team of 2, each thread sleeping SHORT_MS), thread 1 running 4 steps of a long
 * one (LONG_MS), its last after GAP_MS of its own. Every inner instance is balanced: its threads wait at its barrier for nothing
 * but each other's wake-up. The short team is done first; libomp then gives its worker, back in
 * the pool, to the long team's next instance, so one OS thread is a worker of both sites, and a
 * worker idles in the pool between instances and after its team's last. With `deep`, three
 * levels: the long region's primary first runs an innermost region of 2 threads (each sleeping
 * 1 ms), then sleeps the rest of its LONG_MS.
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { STEPS = 4, SHORT_MS = 20, LONG_MS = 60, INNERMOST_MS = 1, GAP_MS = 100 };
static int deep;

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

static int long_steps(int steps)
{
	int ran = 0;
	for (int k = 0; k < steps; k++) {
#pragma omp parallel num_threads(2) reduction(+ : ran)
		{
			int rest = LONG_MS;
			if (deep && omp_get_thread_num() == 0) {
#pragma omp parallel num_threads(2)
				sleep_ms(INNERMOST_MS);
				rest -= INNERMOST_MS;
			}
			sleep_ms(rest);
			ran++;
		}
	}
	return ran;
}

int main(int argc, char **argv)
{
	int ran[2] = {0, 0};
	deep = argc > 1 && strcmp(argv[1], "deep") == 0;
	omp_set_max_active_levels(deep ? 3 : 2);
#pragma omp parallel num_threads(2)
	{
		int outer = omp_get_thread_num();
		if (outer == 0) {
			ran[0] = short_steps();
		} else { /* its last step after a gap, its worker idle meanwhile */
			ran[1] = long_steps(STEPS - 1);
			sleep_ms(GAP_MS);
			ran[1] += long_steps(1);
		}
	}
	printf("nested steps: %d %d\n", ran[0], ran[1]);
	return 0;
}
