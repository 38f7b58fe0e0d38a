// SPDX-License-Identifier: MIT
/*
 * Forks 100 times while another thread keeps creating and joining threads (the shim's thread
 * registry busy at any moment); each child creates and joins a thread and waits on a
 * semaphore, and must neither hang nor crash. Prints how many children exited cleanly.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int stop;

static void *nothing(void *arg)
{
	return arg;
}

static void *churn(void *arg)
{
	while (!stop) {
		pthread_t t;
		if (pthread_create(&t, NULL, nothing, NULL) == 0)
			pthread_join(t, NULL);
	}
	return arg;
}

int main(void)
{
	pthread_t churner;
	pthread_create(&churner, NULL, churn, NULL);
	int clean = 0;
	for (int i = 0; i < 100; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			pthread_t t;
			sem_t sem;
			sem_init(&sem, 0, 1);
			if (pthread_create(&t, NULL, nothing, NULL) != 0 ||
			    pthread_join(t, NULL) != 0 || sem_wait(&sem) != 0)
				_exit(1);
			_exit(0);
		}
		int status;
		waitpid(pid, &status, 0);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			clean++;
		else if (WIFSIGNALED(status))
			fprintf(stderr, "child %d: signal %d\n", i, WTERMSIG(status));
		else
			fprintf(stderr, "child %d: exit status %d\n", i, WEXITSTATUS(status));
	}
	stop = 1;
	pthread_join(churner, NULL);
	printf("%d children exited cleanly\n", clean);
	return 0;
}
