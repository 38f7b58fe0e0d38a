// SPDX-License-Identifier: MIT
/*
 * Nanoseconds per loop iteration (best of 5 runs of ITERATIONS, argv[2]) of:
 *   shim   sem_post + sem_wait: under the shim, a traced wait fires wait-start and wait-end;
 *   bare5  a bare USDT probe on a 5-byte nop (bench:hit5);
 *   bare1  a bare USDT probe on sys/sdt.h's usual 1-byte nop (bench:hit1);
 *   clock  clock_gettime(CLOCK_MONOTONIC), what a timestamp costs through the vDSO;
 *   tsc    the time-stamp counter read alone (rdtsc), the shim's clock where it is invariant
 *          (x86-64; elsewhere the same as clock).
 * Run once untraced and once with a tracer counting the probes: the difference is the cost of
 * the hits. The probes of this program are its own; it knows nothing of taskprobe.
 */
#define _GNU_SOURCE
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

void hit5(long i);
void hit1(long i);

static long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s shim|bare5|bare1|clock|tsc ITERATIONS\n", argv[0]);
		return 2;
	}
	long n = atol(argv[2]), best = -1;
	sem_t sem;
	sem_init(&sem, 0, 0);
	long sum = 0;
	for (int run = 0; run < 5; run++) {
		long start = now_ns();
		for (long i = 0; i < n; i++) {
			if (argv[1][0] == 'c') {
				sum += now_ns();
			} else if (argv[1][0] == 't') {
#if defined(__x86_64__)
				sum += (long)__rdtsc();
#else
				sum += now_ns();
#endif
			} else if (strcmp(argv[1], "shim") == 0) {
				sem_post(&sem);
				sem_wait(&sem);
			} else if (argv[1][4] == '5') {
				hit5(i);
			} else {
				hit1(i);
			}
		}
		long elapsed = now_ns() - start;
		if (best < 0 || elapsed < best)
			best = elapsed;
	}
	printf("%.1f\n", (double)best / (double)n + (sum == 42));
	return 0;
}
