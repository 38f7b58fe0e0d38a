// SPDX-License-Identifier: MIT
/*
 * Thread naming: pthread_setname_np (and prctl(PR_SET_NAME), in prctl.c) are interposed only to
 * notice that a name changed, so that TASKPROBE_WORKERS is matched against the current name. The
 * names themselves are read lazily, by the renamed thread, at its next wait while a park probe is
 * on; the recorder and the live statistics read a thread's own new name when it renames itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>

#include "probes.h"
#include "real_symbol.h"
#include "thread_state.h"

static int (*real_setname)(pthread_t, const char *);

TP_EXPORT int pthread_setname_np(pthread_t thread, const char *name)
{
	__typeof__(real_setname) fn = TP_REAL(real_setname, "pthread_setname_np", NULL);
	if (fn == NULL)
		return ENOSYS;
	int ret = fn(thread, name);
	if (ret == 0)
		tp_thread_names_changed(pthread_equal(thread, pthread_self()));
	return ret;
}
