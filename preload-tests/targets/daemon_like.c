// SPDX-License-Identifier: MIT
/*
 * A daemon's start: WAITS (argv[1]) semaphore waits, then fork; the parent exits at once, and
 * the child, 200 ms later (its parent gone), executes argv[2] with the arguments after it.
 */
#include <semaphore.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int waits = atoi(argv[1]);
	sem_t sem;
	sem_init(&sem, 0, 0);
	for (int i = 0; i < waits; i++) {
		sem_post(&sem);
		sem_wait(&sem);
	}
	pid_t child = fork();
	if (child != 0)
		return child < 0;
	usleep(200 * 1000);
	execv(argv[2], argv + 2);
	return 127;
}
