// SPDX-License-Identifier: MIT
/*
 * _exit and _Exit end the process without exit handlers (a forked child's usual end), as do
 * exit_group made through syscall() and the last thread's exit made so (syscall_families.h): the
 * lifecycle's quick-exit hooks run first, so that what the recorder holds is written out.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lifecycle.h"
#include "probes.h"
#include "process.h"
#include "real_symbol.h"
#include "syscall_families.h"

static void (*real_exit_now)(int);
static void (*real_exit_now_c99)(int);
TP_RESOLVED_AT_LOAD(real_exit_now, "_exit", NULL);
TP_RESOLVED_AT_LOAD(real_exit_now_c99, "_Exit", NULL);

TP_EXPORT void _exit(int status)
{
	tp_lifecycle_before_quick_exit();
	__typeof__(real_exit_now) fn = TP_REAL(real_exit_now, "_exit", NULL);
	if (fn != NULL)
		fn(status);
	for (;;) /* no _exit in libc: the process still must not return */
		abort();
}

TP_EXPORT void _Exit(int status)
{
	tp_lifecycle_before_quick_exit();
	__typeof__(real_exit_now_c99) fn = TP_REAL(real_exit_now_c99, "_Exit", NULL);
	if (fn != NULL)
		fn(status);
	for (;;)
		abort();
}

/*
 * Whether the calling thread is its process's last: a raw SYS_exit then ends the process. False
 * when it cannot be told, or under a system call filter, which may refuse the calls (process.h).
 */
static bool last_thread(void)
{
	return !tp_process_filtered() && tp_process_threads() == 1;
}

bool tp_exit_syscall(tp_syscall_fn fn, long number, const long a[6], long *ret)
{
	if (number != SYS_exit_group && number != SYS_exit)
		return false;
	/* a thread's own end (SYS_exit) ends the process when it is the last */
	if (number == SYS_exit_group || last_thread())
		tp_lifecycle_before_quick_exit();
	*ret = fn(number, a[0]);
	return true;
}
