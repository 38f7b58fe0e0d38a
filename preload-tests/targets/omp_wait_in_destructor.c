// SPDX-License-Identifier: MIT
/*
 * A wait first made in a destructor, in an OpenMP program: main waits 1 ms on a semaphore nobody
 * posts, runs one parallel region and prints "main returns"; then the program's destructor waits
 * 1 ms at a call site of its own, met only during the libraries' destructors. Exits 0.
 */
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

static sem_t never;

/* `until` set to `ms` milliseconds from now */
static void from_now(struct timespec *until, long ms)
{
	clock_gettime(CLOCK_REALTIME, until);
	until->tv_nsec += ms * 1000000L;
	if (until->tv_nsec >= 1000000000L) {
		until->tv_sec++;
		until->tv_nsec -= 1000000000L;
	}
}

__attribute__((noinline)) static void wait_in_main(void)
{
	struct timespec until;
	from_now(&until, 1);
	while (sem_timedwait(&never, &until) == 0)
		;
}

__attribute__((destructor, noinline)) static void wait_at_exit(void)
{
	struct timespec until;
	from_now(&until, 1);
	while (sem_timedwait(&never, &until) == 0)
		;
}

int main(void)
{
	sem_init(&never, 0, 0);
	wait_in_main();
	int threads = 0;
#pragma omp parallel reduction(+ : threads)
	threads++;
	printf("main returns\n");
	return threads > 0 ? 0 : 1;
}
