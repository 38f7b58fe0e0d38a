// SPDX-License-Identifier: MIT
/*
 * Starts a program under a system call filter it inherits: installs a filter (seccomp) that
 * kills the process on membarrier(2), a call it never makes (a strict allow-list's answer to
 * one it does not list), and allows everything else; then runs argv[1...] in its place. Exit
 * status 127 if it cannot.
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: filtered_exec PROGRAM [ARG...]\n");
		return 127;
	}
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_membarrier, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog program = {sizeof filter / sizeof filter[0], filter};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0) {
		perror("seccomp");
		return 127;
	}
	execv(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
