// SPDX-License-Identifier: MIT
/*
 * What the fork_while_* targets share: `n` children forked one after another, each running
 * `child` (NULL: nothing) and ending with _exit(0), each given 3 s to end (a child still there
 * then is killed and not counted). Prints how many exited cleanly and ends the process at once
 * (the threads that make the forks hazardous run to the end).
 */
#pragma once

#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void forked_children_exit(int n, void (*child)(void))
{
	int clean = 0;
	for (int k = 0; k < n; k++) {
		pid_t pid = fork();
		if (pid == 0) {
			if (child != NULL)
				child();
			_exit(0);
		}
		int status = 0, done = 0;
		for (int tick = 0; tick < 300 && !done; tick++)
			if (waitpid(pid, &status, WNOHANG) == pid)
				done = 1;
			else
				usleep(10000);
		if (!done) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
		clean += done && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	printf("%d children exited cleanly\n", clean);
	fflush(stdout);
	_exit(0);
}
