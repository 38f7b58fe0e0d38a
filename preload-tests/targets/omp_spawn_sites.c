// SPDX-License-Identifier: MIT
/*
 * Tasks spawned from two call paths, built without frame pointers: spawn_leaf spawns the task;
 * via_alpha calls it 5 times and via_beta 3 times. Prints the sum the tasks computed. It
 * waits argv[1] milliseconds (default 0) before spawning and as long again before exiting, as
 * a program with other work to do would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int counter;

__attribute__((noinline)) void spawn_leaf(int n)
{
#pragma omp task firstprivate(n)
	__atomic_add_fetch(&counter, n, __ATOMIC_RELAXED);
	__asm__ volatile("" ::: "memory"); /* no tail call: keep this frame */
}

__attribute__((noinline)) void via_alpha(int n)
{
	spawn_leaf(n);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void via_beta(int n)
{
	spawn_leaf(n);
	__asm__ volatile("" ::: "memory");
}

static void pause_ms(long ms)
{
	struct timespec pause = {ms / 1000, ms % 1000 * 1000000};
	nanosleep(&pause, NULL);
}

int main(int argc, char **argv)
{
	long wait_ms = argc > 1 ? atol(argv[1]) : 0;
	pause_ms(wait_ms);
#pragma omp parallel
#pragma omp single
	{
		/* loops, not unrolled call sites: one call path, one stack, per function */
		volatile int five = 5, three = 3;
		for (int i = 0; i < five; i++)
			via_alpha(1);
		for (int i = 0; i < three; i++)
			via_beta(10);
	}
	printf("counter %d\n", counter);
	fflush(stdout);
	pause_ms(wait_ms);
	return 0;
}
