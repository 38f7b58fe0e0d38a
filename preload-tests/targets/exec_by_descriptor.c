// SPDX-License-Identifier: MIT
/*
 * A program that execs itself by a descriptor, or through syscall(): 1000 semaphore waits, then it
 * opens its own file (/proc/self/exe) and execs it (argv[1]: execveat(fd, "", AT_EMPTY_PATH),
 * fexecve(fd), or through syscall() SYS_execve of /proc/self/exe, "syscall-execve", or SYS_execveat
 * of fd, "syscall-execveat"), with "again" as argv[1]; the image that follows makes 1000 waits too
 * and prints "done". With "syscall-exit_group" or "syscall-exit" it prints "done" after its waits
 * and ends by SYS_exit_group, or by its one thread's SYS_exit, without exit handlers. Exit
 * status 0.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WAITS 1000

extern char **environ;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	sem_t sem;
	sem_init(&sem, 0, 0);
	for (int i = 0; i < WAITS; i++) {
		sem_post(&sem);
		sem_wait(&sem);
	}
	if (strcmp(argv[1], "again") == 0) {
		printf("done\n");
		return 0;
	}
	if (strcmp(argv[1], "syscall-exit_group") == 0 || strcmp(argv[1], "syscall-exit") == 0) {
		printf("done\n");
		fflush(stdout);
		syscall(strcmp(argv[1], "syscall-exit") == 0 ? SYS_exit : SYS_exit_group, 0);
	}
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("/proc/self/exe");
		return 1;
	}
	char *const again[] = {argv[0], "again", NULL};
	if (strcmp(argv[1], "execveat") == 0)
		execveat(fd, "", again, environ, AT_EMPTY_PATH);
	else if (strcmp(argv[1], "syscall-execve") == 0)
		syscall(SYS_execve, "/proc/self/exe", again, environ);
	else if (strcmp(argv[1], "syscall-execveat") == 0)
		syscall(SYS_execveat, fd, "", again, environ, AT_EMPTY_PATH);
	else
		fexecve(fd, again, environ);
	perror(argv[1]);
	return 1;
}
