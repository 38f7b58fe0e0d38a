// SPDX-License-Identifier: MIT
/*
 * The interposed families whose calls a program may also make through syscall() (futex.c's
 * interposer hands them on): each with the same care as the family's functions. Each takes the
 * real syscall() (futex.c's, resolved there once), the call's number and its six arguments, and
 * returns true with the call made (its result in *ret, errno as the call left it), or false for a
 * number not its own.
 */
#pragma once

#include <stdbool.h>

typedef long (*tp_syscall_fn)(long, ...);

/*
 * SYS_close, SYS_close_range, SYS_dup, SYS_dup2, SYS_dup3, SYS_fcntl (descriptors.c): what a
 * program does where its C library had no close_range, or a library that calls the kernel
 * itself; the descriptors the shim keeps stay out of its reach.
 */
bool tp_close_family_syscall(tp_syscall_fn fn, long number, const long a[6], long *ret);

/* SYS_execve, SYS_execveat (exec.c): the lifecycle's before-exec hooks first. */
bool tp_exec_syscall(tp_syscall_fn fn, long number, const long a[6], long *ret);

/* SYS_exit_group, and SYS_exit of the process's last thread (process_exit.c): the lifecycle's
 * quick-exit hooks first, as for _exit. */
bool tp_exit_syscall(tp_syscall_fn fn, long number, const long a[6], long *ret);

/*
 * SYS_prctl, SYS_seccomp (prctl.c): a system call filter's installation (PR_SET_SECCOMP, or any
 * seccomp(2)) told to the lifecycle first; a thread's new name (PR_SET_NAME) after.
 */
bool tp_prctl_syscall(tp_syscall_fn fn, long number, const long a[6], long *ret);
