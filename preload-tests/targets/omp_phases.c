// SPDX-License-Identifier: MIT
/*
 * OpenMP tasks in phases that another process paces, so that a tracer can attach and detach
 * between them and inside them: `omp_phases DIR PHASES N` runs PHASES phases; phase K starts when
 * the file DIR/go.K exists and ends by creating DIR/done.K. Each phase is a parallel region
 * whose single thread runs fib(N) as recursive tasks with taskwait, every task also passing a
 * semaphore (a wait that returns at once, inside the task), then creates DIR/fibbed.K and, still
 * in its implicit task, waits for DIR/resume.K. Prints each phase's fib(N).
 */
#include <fcntl.h>
#include <limits.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static sem_t gate;

static long fib(int n)
{
	long a, b;
	sem_post(&gate);
	sem_wait(&gate);
	if (n < 2)
		return n;
#pragma omp task shared(a)
	a = fib(n - 1);
#pragma omp task shared(b)
	b = fib(n - 2);
#pragma omp taskwait
	return a + b;
}

static void await_file(const char *dir, const char *name, int phase)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s.%d", dir, name, phase);
	const struct timespec tick = {0, 5 * 1000 * 1000};
	while (access(path, F_OK) != 0)
		nanosleep(&tick, NULL);
}

static void create_file(const char *dir, const char *name, int phase)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s.%d", dir, name, phase);
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: omp_phases DIR PHASES N\n");
		return 2;
	}
	int phases = atoi(argv[2]), n = atoi(argv[3]);
	sem_init(&gate, 0, 0);
	for (int phase = 0; phase < phases; phase++) {
		await_file(argv[1], "go", phase);
		long r = 0;
#pragma omp parallel
#pragma omp single
		{
			r = fib(n);
			create_file(argv[1], "fibbed", phase);
			await_file(argv[1], "resume", phase);
		}
		printf("phase %d: fib(%d) = %ld\n", phase, n, r);
		fflush(stdout);
		create_file(argv[1], "done", phase);
	}
	return 0;
}
