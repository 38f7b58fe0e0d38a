// SPDX-License-Identifier: MIT
/*
 * prctl: PR_SET_NAME renames the thread (TASKPROBE_WORKERS is matched against the current name:
 * thread_state.h), and PR_SET_SECCOMP installs a system call filter, after which the shim makes
 * no call of its own that the filter might refuse (lifecycle.h). Every call is forwarded as is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <sys/prctl.h>

#include "lifecycle.h"
#include "probes.h"
#include "real_symbol.h"
#include "thread_state.h"

static int (*real_prctl)(int, ...);
TP_RESOLVED_AT_LOAD(real_prctl, "prctl", NULL);

TP_EXPORT int prctl(int option, ...)
{
	va_list ap;
	va_start(ap, option);
	unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
	unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
	va_end(ap);

	__typeof__(real_prctl) fn = TP_REAL(real_prctl, "prctl", NULL);
	if (fn == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (option == PR_SET_SECCOMP)
		tp_lifecycle_before_seccomp();
	int ret = fn(option, a2, a3, a4, a5);
	if (option == PR_SET_NAME && ret == 0)
		tp_thread_names_changed(true);
	return ret;
}
