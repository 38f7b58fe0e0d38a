// SPDX-License-Identifier: MIT
/*
 * The calling thread's identity, which every layer names its records by: its kernel id, cached
 * per thread, and its name, read without the shim's own interposers. Under a system call filter
 * (process.h) the kernel is not asked: the id is the C library's, the name empty.
 */
#pragma once

#include <sys/types.h>

/* The kernel id of the calling thread, cached (under a system call filter, the C library's). */
pid_t tp_thread_tid(void);

/*
 * Reads the calling thread's name (at most 15 characters and a NUL) without the shim; empty once
 * a system call filter was installed (process.h).
 */
void tp_thread_read_name(char name[16]);

/* From the lifecycle (lifecycle/lifecycle.c): the forked child's one thread has a new id. */
void tp_thread_identity_child_after_fork(void);
