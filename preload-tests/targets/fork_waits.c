// SPDX-License-Identifier: MIT
/*
 * Waits before and after a fork, ended by exit(): the parent polls PARENT_POLLS times (returning
 * at once), forks, and the child polls once and exits; the parent then reaps it and exits.
 * Prints "parent" and "child", each once (and how the child ended, when not by its exit(0)).
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define PARENT_POLLS 3

int main(void)
{
	for (int i = 0; i < PARENT_POLLS; i++)
		poll(NULL, 0, 0); /* the parent's, before the fork */
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		poll(NULL, 0, 0); /* the child's own */
		printf("child\n");
		exit(0);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		;
	/* how the child ended, when not by its exit(0): a test's failure then says why */
	if (WIFSIGNALED(status))
		printf("parent (the child was killed by signal %d)\n", WTERMSIG(status));
	else if (WEXITSTATUS(status) != 0)
		printf("parent (the child exited %d)\n", WEXITSTATUS(status));
	else
		printf("parent\n");
	return 0;
}
