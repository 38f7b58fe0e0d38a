// SPDX-License-Identifier: MIT
/*
 * A process that makes others every way a program can: fork, fork + exec, posix_spawn,
 * vfork + exec, and a daemon-style double fork. Each process (this one too) makes one
 * semaphore wait that returns at once, prints its role on stdout and "ROLE PID" on stderr.
 * The exec'ed children are this program again (argv[0], a path), with their role as argv[1].
 */
#define _GNU_SOURCE
#include <semaphore.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void wait_once(const char *role)
{
	sem_t sem;
	sem_init(&sem, 0, 1);
	sem_wait(&sem);
	printf("%s waited\n", role);
	fprintf(stderr, "%s %d\n", role, (int)getpid());
	fflush(stdout);
}

static void reap(pid_t pid)
{
	int status;
	while (waitpid(pid, &status, 0) < 0)
		;
}

int main(int argc, char **argv)
{
	if (argc > 1) { /* an exec'ed child */
		wait_once(argv[1]);
		return 0;
	}
	wait_once("parent");

	pid_t pid = fork();
	if (pid == 0) {
		wait_once("fork-child");
		_exit(0);
	}
	reap(pid);

	pid = fork();
	if (pid == 0) {
		execl(argv[0], argv[0], "exec-child", (char *)NULL);
		_exit(127);
	}
	reap(pid);

	char *spawn_argv[] = {argv[0], "spawn-child", NULL};
	if (posix_spawn(&pid, argv[0], NULL, NULL, spawn_argv, environ) == 0)
		reap(pid);

	pid = vfork();
	if (pid == 0) {
		execl(argv[0], argv[0], "vfork-child", (char *)NULL);
		_exit(127);
	}
	reap(pid);

	/* daemon style: the child forks the grandchild and exits; the grandchild's end is seen
	 * as the pipe's end */
	int done[2];
	if (pipe(done) != 0)
		return 1;
	pid = fork();
	if (pid == 0) {
		if (fork() == 0) {
			close(done[0]);
			setsid();
			wait_once("grandchild");
			_exit(0);
		}
		_exit(0);
	}
	reap(pid);
	close(done[1]);
	char c;
	while (read(done[0], &c, 1) > 0)
		;
	return 0;
}
