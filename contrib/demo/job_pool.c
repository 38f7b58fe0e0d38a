// SPDX-License-Identifier: MIT
/*
 * The quick start's demo: an ordinary job pool that knows nothing of taskprobe. Three worker
 * threads named pool-1..3 take jobs from a queue guarded by a mutex and a condition variable;
 * most jobs compute, every fifth one blocks in poll() for 20 ms, as a job doing I/O would.
 * The main thread submits jobs for SECONDS seconds (argv[1], default 3) and prints a summary.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WORKERS 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_ready = PTHREAD_COND_INITIALIZER;
static long queued, taken, done;
static int closing;

static void run_job(long job)
{
	if (job % 5 == 0) {
		poll(NULL, 0, 20);
		return;
	}
	volatile double x = 0;
	for (long i = 0; i < 200000; i++)
		x += (double)i * 1e-9;
}

static void *worker(void *arg)
{
	char name[16];
	snprintf(name, sizeof name, "pool-%ld", (long)arg);
	pthread_setname_np(pthread_self(), name);
	pthread_mutex_lock(&lock);
	for (;;) {
		while (queued == 0 && !closing)
			pthread_cond_wait(&work_ready, &lock);
		if (queued == 0)
			break;
		queued--;
		long job = ++taken;
		pthread_mutex_unlock(&lock);
		run_job(job);
		pthread_mutex_lock(&lock);
		done++;
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 3;
	pthread_t threads[WORKERS];
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&threads[i], NULL, worker, (void *)(i + 1));

	struct timespec start, now, tick = {0, 10 * 1000000};
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		pthread_mutex_lock(&lock);
		queued += 4;
		pthread_cond_broadcast(&work_ready);
		pthread_mutex_unlock(&lock);
		nanosleep(&tick, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec < seconds);

	pthread_mutex_lock(&lock);
	closing = 1;
	pthread_cond_broadcast(&work_ready);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(threads[i], NULL);
	printf("job_pool: %ld jobs done by %d workers\n", done, WORKERS);
	return 0;
}
