// SPDX-License-Identifier: MIT
/*
 * Tasks with known latencies, from three spawn sites, built without frame pointers:
 * spawn_quick spawns 20 tasks that return at once; spawn_slow one task that computes for 60 ms
 * (the slowest poll); spawn_blocking one task that blocks its worker in poll() for 40 ms.
 * Prints what the tasks computed.
 */
#include <poll.h>
#include <stdio.h>
#include <time.h>

static long total;

static long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

__attribute__((noinline)) void spawn_quick(long n)
{
#pragma omp task firstprivate(n)
	__atomic_add_fetch(&total, n, __ATOMIC_RELAXED);
	__asm__ volatile("" ::: "memory"); /* no tail call: keep this frame */
}

__attribute__((noinline)) void spawn_slow(void)
{
#pragma omp task
	{
		long spins = 0;
		for (long end = now_ns() + 60000000L; now_ns() < end;)
			spins++;
		__atomic_add_fetch(&total, spins > 0 ? 1000 : 0, __ATOMIC_RELAXED);
	}
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void spawn_blocking(void)
{
#pragma omp task
	{
		poll(NULL, 0, 40);
		__atomic_add_fetch(&total, 10000, __ATOMIC_RELAXED);
	}
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
#pragma omp parallel
#pragma omp single
	{
		volatile int twenty = 20; /* a loop, not unrolled: one call path, one stack */
		for (int i = 0; i < twenty; i++)
			spawn_quick(i);
		spawn_slow();
		spawn_blocking();
	}
	printf("total %ld\n", total);
	return 0;
}
