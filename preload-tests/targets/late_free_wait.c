// SPDX-License-Identifier: MIT
/*
 * One sem_wait that never blocks, late: the main thread sleeps 20 ms (nanosleep is no wait here),
 * then takes a semaphore posted before, its process's first wait, well after the live statistics'
 * first moments. Prints "taken".
 */
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
	sem_t free_one;
	sem_init(&free_one, 0, 1);
	const struct timespec pause = {0, 20 * 1000 * 1000};
	nanosleep(&pause, NULL);
	sem_wait(&free_one);
	printf("taken\n");
	return 0;
}
