// SPDX-License-Identifier: MIT
/*
 * The shim's one lifecycle (lifecycle.c): one constructor, one set of fork handlers and one exit
 * path, calling each module's steps (declared in the module's own header) in the order
 * lifecycle.c states. Modules register nothing themselves. The moments the layers below tell the
 * lifecycle of are core/lifecycle_moments.h; these are the interposers'.
 */
#pragma once

#include "lifecycle_moments.h"

/* Exec (exec.c): before it (if it fails, the process goes on as it was), and after it failed. */
void tp_lifecycle_before_exec(void);
void tp_lifecycle_exec_failed(void);

/*
 * A system call filter (seccomp) is about to be installed (prctl.c, futex.c): what must be written
 * is written now, and from then on the shim asks the kernel nothing on its own account that the
 * filter may refuse by killing the process (a filter allows what the program uses).
 */
void tp_lifecycle_before_seccomp(void);

/*
 * The calling thread is about to take seccomp's strict mode, which leaves it read, write, exit
 * and rt_sigreturn, and takes away its time-stamp counter (rdtsc faults, in the vDSO's clock
 * too): as tp_lifecycle_before_seccomp, and the live statistics, whose every event reads the
 * counter, stop; nothing is done at exit.
 */
void tp_lifecycle_before_seccomp_strict(void);

/* _exit and _Exit (process_exit.c): the process ends with no exit handler. */
void tp_lifecycle_before_quick_exit(void);
