// SPDX-License-Identifier: MIT
/*
 * prctl: PR_SET_NAME renames the thread (TASKPROBE_WORKERS is matched against the current name:
 * thread_state.h), and PR_SET_SECCOMP installs a system call filter, after which the shim makes
 * no call of its own that the filter might refuse (lifecycle.h); as does seccomp(2). Both also
 * through syscall() (SYS_prctl, SYS_seccomp: syscall_families.h). Every call is forwarded as is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "lifecycle.h"
#include "probes.h"
#include "real_symbol.h"
#include "syscall_families.h"
#include "thread_state.h"

static int (*real_prctl)(int, ...);
TP_RESOLVED_AT_LOAD(real_prctl, "prctl", NULL);

/* Before prctl `option` (its mode `mode`) is made: a filter's installation, or strict mode's,
 * stops the shim's own calls first. */
static void before_prctl(long option, unsigned long mode)
{
	if (option == PR_SET_SECCOMP && mode == SECCOMP_MODE_STRICT)
		tp_lifecycle_before_seccomp_strict();
	else if (option == PR_SET_SECCOMP)
		tp_lifecycle_before_seccomp();
}

/* After prctl `option` returned `ret`: a thread renamed is told to the thread state. */
static void after_prctl(long option, long ret)
{
	if (option == PR_SET_NAME && ret == 0)
		tp_thread_names_changed(true);
}

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
	before_prctl(option, a2);
	int ret = fn(option, a2, a3, a4, a5);
	int saved_errno = errno;
	after_prctl(option, ret);
	errno = saved_errno;
	return ret;
}

bool tp_prctl_syscall(tp_syscall_fn fn, long number, const long a[6], long *ret)
{
	if (number != SYS_prctl && number != SYS_seccomp)
		return false;
	/* a filter (libseccomp's way) or strict mode: the shim's calls stop first */
	if (number == SYS_seccomp && a[0] == SECCOMP_SET_MODE_STRICT)
		tp_lifecycle_before_seccomp_strict();
	else if (number == SYS_seccomp)
		tp_lifecycle_before_seccomp();
	else
		before_prctl(a[0], (unsigned long)a[1]);
	*ret = fn(number, a[0], a[1], a[2], a[3], a[4]);
	int saved_errno = errno;
	if (number == SYS_prctl)
		after_prctl(a[0], *ret);
	errno = saved_errno;
	return true;
}
