// SPDX-License-Identifier: MIT
/*
 * A program that confines itself: after a few semaphore waits it installs a system call filter
 * (seccomp, the way named by argv[1]: "prctl", or "syscall" as libseccomp does) that allows only
 * what it still uses (write, exit, exit_group, rt_sigreturn) and kills the process on anything
 * else; then it writes "confined" and returns from main. Exit status 0. With "strict" (or
 * "strict-syscall", seccomp(2)'s way) it takes strict mode instead, which allows read, write,
 * exit and rt_sigreturn and takes away its time-stamp counter, waits on a semaphore a few times
 * more, writes "confined" and ends its one thread (exit_group is not allowed): status 0. With
 * "strict-thread" a new thread does that, before its first wait, and main returns once it ended.
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ALLOW(name)                                                                                \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_##name, 0, 1),                                    \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/* Takes strict mode by `how` ("strict-syscall": seccomp(2)), waits on a semaphore, writes
 * "confined" and ends the calling thread (status 1 when something failed). */
static void *confined_strictly(void *how)
{
	sem_t sem;
	sem_init(&sem, 0, 0);
	int strict = strcmp(how, "strict-syscall") == 0
			     ? (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL)
			     : prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0);
	if (strict != 0) {
		perror("seccomp strict");
		syscall(SYS_exit, 1);
	}
	for (int i = 0; i < 10; i++) {
		sem_post(&sem);
		sem_wait(&sem);
	}
	static const char said[] = "confined\n";
	if (write(STDOUT_FILENO, said, sizeof said - 1) != sizeof said - 1)
		syscall(SYS_exit, 1);
	syscall(SYS_exit, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "prctl";
	sem_t sem;
	sem_init(&sem, 0, 0);
	for (int i = 0; i < 100; i++) {
		sem_post(&sem);
		sem_wait(&sem);
	}
	if (strcmp(how, "strict-thread") == 0) {
		pthread_t strict;
		if (pthread_create(&strict, NULL, confined_strictly, "strict") != 0)
			return 1;
		pthread_join(strict, NULL);
		return 0;
	}
	if (strncmp(how, "strict", 6) == 0)
		confined_strictly((void *)how);
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		ALLOW(write),
		ALLOW(exit),
		ALLOW(exit_group),
		ALLOW(rt_sigreturn),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog program = {sizeof filter / sizeof filter[0], filter};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		perror("PR_SET_NO_NEW_PRIVS");
		return 1;
	}
	int installed = strcmp(how, "syscall") == 0
				? (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program)
				: prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
	if (installed != 0) {
		perror("seccomp");
		return 1;
	}
	static const char said[] = "confined\n";
	if (write(STDOUT_FILENO, said, sizeof said - 1) != sizeof said - 1)
		return 1;
	return 0;
}
