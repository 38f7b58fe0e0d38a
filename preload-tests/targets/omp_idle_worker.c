// SPDX-License-Identifier: MIT
/*
 * One OpenMP worker idle for a known time: a parallel region of two threads where thread 0
 * computes for 200 ms and thread 1 goes straight to the region's closing barrier, where it
 * waits those 200 ms: spinning, or asleep, as OpenMP's idle policy (KMP_BLOCKTIME) says.
 * Thread 0 counts the 200 ms from the moment thread 1 is asleep (its state in /proc), or from
 * WAKE_BOUND_MS after it arrived if it never sleeps: a loaded machine (a sanitizer too) may
 * take tens of milliseconds to get it from its arrival into its sleep. Prints "done".
 */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define WAKE_BOUND_MS 300

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Whether thread `tid` of this process sleeps now (state S in its stat). */
static int asleep(pid_t tid)
{
	char path[64], stat[512];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return 0;
	size_t n = fread(stat, 1, sizeof stat - 1, f);
	fclose(f);
	stat[n] = '\0';
	/* the state follows the command's closing parenthesis */
	const char *end = NULL;
	for (const char *p = stat; *p != '\0'; p++)
		if (*p == ')')
			end = p;
	return end != NULL && end[1] == ' ' && end[2] == 'S';
}

static pid_t idle_tid;

int main(void)
{
#pragma omp parallel num_threads(2)
	{
		if (omp_get_thread_num() == 0) {
			pid_t tid;
			while (omp_get_num_threads() > 1 &&
			       (tid = __atomic_load_n(&idle_tid, __ATOMIC_ACQUIRE)) == 0)
				;
			double bound = now_ms() + WAKE_BOUND_MS;
			while (omp_get_num_threads() > 1 && !asleep(tid) && now_ms() < bound)
				;
			double until = now_ms() + 200;
			while (now_ms() < until)
				;
		} else {
			__atomic_store_n(&idle_tid, gettid(), __ATOMIC_RELEASE);
		}
	}
	puts("done");
	return 0;
}
