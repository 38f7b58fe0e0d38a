// SPDX-License-Identifier: MIT
/*
 * OpenMP tasks of three known shapes, for a live console to tell apart: `omp_top_shapes ROUNDS`
 * runs ROUNDS rounds on two threads; each round spawns, at three task constructs,
 *   sleepy:  SLEEPY_TASKS tasks that each sleep 20 ms (long polls: they never yield);
 *   blocker: one task that waits on a semaphore which the spawning thread posts 30 ms later
 *            (a task blocking its worker);
 *   quick:   QUICK_TASKS tasks that add a number (short polls);
 * then waits for them all. Prints what it did.
 */
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SLEEPY_TASKS 3
#define QUICK_TASKS  200
#define SLEEP_MS     20
#define BLOCK_MS     30

static void pause_ms(long ms)
{
	struct timespec t = {0, ms * 1000000};
	while (nanosleep(&t, &t) != 0)
		;
}

static void sleepy(void)
{
	pause_ms(SLEEP_MS);
}

static void blocker(sem_t *gate)
{
	sem_wait(gate);
}

static long quick(long i)
{
	return i * i;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	long sum = 0;
	sem_t gate;
	sem_init(&gate, 0, 0);
#pragma omp parallel num_threads(2)
#pragma omp single
	for (int r = 0; r < rounds; r++) {
#pragma omp task shared(gate)
		blocker(&gate);
		for (int i = 0; i < SLEEPY_TASKS; i++) {
#pragma omp task
			sleepy();
		}
		for (long i = 0; i < QUICK_TASKS; i++) {
#pragma omp task shared(sum)
			{
				long v = quick(i);
#pragma omp atomic
				sum += v;
			}
		}
		pause_ms(BLOCK_MS);
		sem_post(&gate);
#pragma omp taskwait
	}
	printf("omp_top_shapes: %d rounds: %d sleeps, %d blocks, %d quick tasks (sum %ld)\n",
	       rounds, rounds * SLEEPY_TASKS, rounds, rounds * QUICK_TASKS, sum);
	return 0;
}
