// SPDX-License-Identifier: MIT
/*
 * A program that confines itself and then starts a thread: it installs a system call filter
 * (seccomp) that allows only what creating, running and joining a thread, forking and writing
 * take with glibc, and kills the process on anything else; then it starts a thread that waits on
 * a semaphore the main thread posts, and joins it. With "fork" as argv[1] it then forks a child
 * that waits on the semaphore and ends with _exit(3), and reaps it. Then it writes "thread
 * joined" and returns from main. With "raw" as argv[2] the filter is installed through
 * syscall(SYS_prctl, ...), not the C library's prctl. Exit status 0.
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define ALLOW(name)                                                                                \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_##name, 0, 1),                                    \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static sem_t go;

static void *waiter(void *unused)
{
	(void)unused;
	while (sem_wait(&go) != 0)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	sem_init(&go, 0, 0);
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		/* pthread_create: the stack and its guard, the clone, the new thread's set-up */
		ALLOW(mmap),
		ALLOW(mprotect),
		ALLOW(clone3),
		ALLOW(clone),
		ALLOW(rt_sigaction), /* the first thread's: the cancellation signal's handler */
		ALLOW(rt_sigprocmask),
		ALLOW(set_robust_list),
		ALLOW(rseq),
		/* the new thread's thread-local storage's vector: malloc's first call */
		ALLOW(getrandom),
		ALLOW(brk),
		/* the semaphore and the join */
		ALLOW(futex),
		/* the thread's end: its stack given back */
		ALLOW(madvise),
		ALLOW(munmap),
		ALLOW(exit),
		/* the fork's child reaped */
		ALLOW(wait4),
		/* the output and the process's end */
		ALLOW(write),
		ALLOW(exit_group),
		ALLOW(rt_sigreturn),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog program = {sizeof filter / sizeof filter[0], filter};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		perror("PR_SET_NO_NEW_PRIVS");
		return 1;
	}
	bool raw = argc > 2 && strcmp(argv[2], "raw") == 0;
	if ((raw ? syscall(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0)
		 : prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0)) != 0) {
		perror("seccomp");
		return 1;
	}
	pthread_t thread;
	if (pthread_create(&thread, NULL, waiter, NULL) != 0)
		return 1;
	sem_post(&go);
	if (pthread_join(thread, NULL) != 0)
		return 1;
	if (argc > 1 && strcmp(argv[1], "fork") == 0) {
		pid_t child = fork(); /* clone, as the thread's */
		if (child == 0) {
			sem_post(&go);
			sem_wait(&go);
			_exit(3);
		}
		int status;
		if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 3)
			return 1;
	}
	static const char said[] = "thread joined\n";
	if (write(STDOUT_FILENO, said, sizeof said - 1) != sizeof said - 1)
		return 1;
	return 0;
}
