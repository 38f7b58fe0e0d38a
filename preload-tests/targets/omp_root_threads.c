// SPDX-License-Identifier: MIT
/*
 * Threads of the program's own that use OpenMP: THREADS pthreads (the argument; 4 if none), one
 * after another, each running a parallel region of one thread that spawns TASKS (2) tasks, then
 * returning. Each is a root thread to libomp, which ends its initial task in the thread's
 * thread-specific data's destructors, after the start routine. Prints the tasks run.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define TASKS 2

static long tasks_run;

static void *root_thread(void *unused)
{
	(void)unused;
#pragma omp parallel num_threads(1)
	{
		for (int k = 0; k < TASKS; k++) {
#pragma omp task
			__atomic_add_fetch(&tasks_run, 1, __ATOMIC_RELAXED);
		}
#pragma omp taskwait
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	for (int i = 0; i < threads; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, root_thread, NULL) != 0 || pthread_join(t, NULL) != 0)
			return 1;
	}
	printf("%ld tasks run\n", tasks_run);
	return 0;
}
