// SPDX-License-Identifier: MIT
/*
 * This process's identity, read once at start and again in a forked child, and whether it
 * installed a system call filter: a program under a seccomp filter that allows only what it uses
 * must not die of a call of the shim's, so that nothing then asks the kernel (not even getpid,
 * which tells a child made without fork handlers from its parent otherwise).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct tp_process {
	pid_t pid;
	/* when it started: /proc/self/stat's starttime (clock ticks since boot), 0 unknown */
	uint64_t start_ticks;
	/* the inode of its pid namespace (/proc/self/ns/pid), 0 unknown */
	uint64_t pid_namespace;
};

/* The calling process's identity (valid after tp_process_start). */
const struct tp_process *tp_process(void);

/*
 * Whether the identity is still this process's: false in a child made without fork handlers
 * (vfork, _Fork, a raw clone), which has its parent's memory. One getpid; none under a system
 * call filter, where it is taken to be.
 */
int tp_process_is_current(void);

/*
 * Whether this process installs a system call filter (seccomp; told before the call, which may
 * yet fail): from then on the shim asks the kernel nothing on its own account, not even getpid or
 * gettid, for the filter may kill the process for a call the program itself does not make.
 */
bool tp_process_filtered(void);
/* Whether a thread took seccomp's strict mode (no clock but a call it may not make, no exit
 * handler's work: lifecycle.h). */
bool tp_process_strict(void);

/*
 * The calling thread's id as the C library keeps it, asked of no one (for a process under a
 * filter); 0 if unknown. In a child made without fork handlers it may still be the parent's.
 */
pid_t tp_process_libc_tid(void);

/*
 * The start time of process `pid` from the text of its /proc/PID/stat (`stat`, `length` bytes):
 * field 22, counted after the command's closing parenthesis (the command may hold spaces and
 * parentheses). 0 when the text has none.
 */
uint64_t tp_process_start_ticks_of(const char *stat, size_t length);

/*
 * How many threads this process has now (/proc/self/stat's field 20); 0 when it cannot be told.
 * Opens a file: not for a hot path, nor under a system call filter.
 */
unsigned tp_process_threads(void);

/*
 * The start of file `path` (a /proc or /sys file, whose text a single read from its start
 * gives), NUL-terminated in `text` of `size` bytes; interrupted reads retried. Its length, 0
 * when it cannot be read. Opens a file: at start, not on a program's thread's path.
 */
size_t tp_process_read_start(const char *path, char *text, size_t size);

/*
 * Whether this process's parent was started with `variable` in its environment (/proc's copy of
 * the environment it was started with, which its later changes leave alone): then this process
 * is one of a run's many (a script's command, a build's compiler), which the parent's own lines
 * already speak for. False when it cannot be read (the parent ended, or is another user's), and
 * under a system call filter. Opens a file: at start or exit, not on a program's thread's path.
 */
bool tp_process_parent_started_with(const char *variable);

/* From the lifecycle (lifecycle/lifecycle.c): */
void tp_process_start(void);            /* this process's identity, read once */
void tp_process_child_after_fork(void); /* the child's identity */
void tp_process_before_seccomp(void);   /* a filter comes: tp_process_filtered from now on */
/* a thread takes seccomp's strict mode: tp_process_strict from now on */
void tp_process_before_seccomp_strict(void);
