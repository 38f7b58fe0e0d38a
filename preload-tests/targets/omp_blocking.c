// SPDX-License-Identifier: MIT
/*
 * An OpenMP task that blocks its worker: it waits on a semaphore that the task which created it
 * posts 100 ms later, so one worker sits in sem_wait inside a task. Prints "posted".
 */
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
	sem_t gate;
	sem_init(&gate, 0, 0);
#pragma omp parallel num_threads(2)
#pragma omp single
	{
#pragma omp task shared(gate)
		sem_wait(&gate);
		struct timespec pause = {0, 100 * 1000000};
		nanosleep(&pause, NULL);
		sem_post(&gate);
		puts("posted");
#pragma omp taskwait
	}
	return 0;
}
