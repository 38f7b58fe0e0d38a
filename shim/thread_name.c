// SPDX-License-Identifier: MIT
/*
 * Thread naming: pthread_setname_np and prctl(PR_SET_NAME) are interposed only to notice that a
 * name changed, so that TASKPROBE_WORKERS is matched against the current name. The names
 * themselves are read lazily, by the renamed thread, at its next wait while a park probe is on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/prctl.h>

#include "probes.h"
#include "real_symbol.h"
#include "thread_state.h"

static int (*real_prctl)(int, ...);
static int (*real_setname)(pthread_t, const char *);

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
	int ret = fn(option, a2, a3, a4, a5);
	if (option == PR_SET_NAME && ret == 0)
		tp_thread_names_changed();
	return ret;
}

TP_EXPORT int pthread_setname_np(pthread_t thread, const char *name)
{
	__typeof__(real_setname) fn = TP_REAL(real_setname, "pthread_setname_np", NULL);
	if (fn == NULL)
		return ENOSYS;
	int ret = fn(thread, name);
	if (ret == 0)
		tp_thread_names_changed();
	return ret;
}
