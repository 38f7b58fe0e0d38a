// SPDX-License-Identifier: MIT
/*
 * _exit and _Exit end the process without exit handlers (a forked child's usual end), as does
 * exit_group made through syscall() (syscall_families.h): the lifecycle's quick-exit hooks run
 * first, so that what the recorder holds is written out.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lifecycle.h"
#include "probes.h"
#include "real_symbol.h"
#include "syscall_families.h"

static void (*real_exit_now)(int);
static void (*real_exit_now_c99)(int);
static long (*real_syscall)(long, ...);
TP_RESOLVED_AT_LOAD(real_exit_now, "_exit", NULL);
TP_RESOLVED_AT_LOAD(real_exit_now_c99, "_Exit", NULL);
TP_RESOLVED_AT_LOAD(real_syscall, "syscall", NULL);

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

bool tp_exit_syscall(long number, const long a[6], long *ret)
{
	__typeof__(real_syscall) fn = TP_REAL(real_syscall, "syscall", NULL);
	if (number != SYS_exit_group || fn == NULL)
		return false;
	tp_lifecycle_before_quick_exit();
	*ret = fn(number, a[0]);
	return true;
}
