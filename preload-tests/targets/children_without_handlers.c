// SPDX-License-Identifier: MIT
/*
 * A process whose child runs no fork handlers: 1000 semaphore waits, then a child made the way
 * argv[1] says, reaped, then 1000 more waits; then the shell command argv[2], if given, runs
 * (system), and "done" is printed. Exit status 0.
 *   _Fork, clone: the child (_Fork(), or a raw clone(SIGCHLD) through syscall()) calls exit(0).
 *   vfork: the child dup2()s its standard input onto 1000 to 1003, as a program does to set up
 *          descriptors before an exec, and calls _exit(0).
 */
#define _GNU_SOURCE
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define WAITS 1000

static void wait_a_while(void)
{
	sem_t sem;
	sem_init(&sem, 0, 0);
	for (int i = 0; i < WAITS; i++) {
		sem_post(&sem);
		sem_wait(&sem);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	wait_a_while();
	fflush(stdout);
	pid_t child;
	if (strcmp(argv[1], "vfork") == 0) {
		child = vfork();
		if (child == 0) {
			for (int fd = 1000; fd < 1004; fd++)
				if (dup2(STDIN_FILENO, fd) != fd)
					_exit(1);
			_exit(0);
		}
	} else {
		child = strcmp(argv[1], "clone") == 0
				? (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0)
				: _Fork();
		if (child == 0)
			exit(0);
	}
	int status;
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "the child failed\n");
		return 1;
	}
	wait_a_while();
	if (argc > 2 && system(argv[2]) != 0)
		return 1;
	printf("done\n");
	return 0;
}
