// SPDX-License-Identifier: MIT
/*
 * _exit and _Exit end the process without exit handlers (a forked child's usual end): the
 * lifecycle's quick-exit hooks run first, so that what the recorder holds is written out.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>

#include "lifecycle.h"
#include "probes.h"
#include "real_symbol.h"

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
