// SPDX-License-Identifier: MIT
/*
 * Thread-specific data keys: pthread_key_delete, and C11's tss_delete (glibc's calls its own
 * delete, past the symbol), are interposed only to keep the shim's two keys (threads.h) out of
 * the program's reach. The program never made those numbers, so a delete of one is a stale one:
 * a `static pthread_key_t` left 0 and deleted in cleanup code, undefined, which glibc carries
 * out on whatever key has the number. It would delete the shim's key: a key the program makes
 * next takes its slot, the shim's value set for it at a traced thread's end goes to the
 * program's destructor in place of the program's own, and the thread's stop never fires. So
 * a delete of one of the shim's keys answers EINVAL, as glibc does for a number no key holds,
 * deletes nothing and leaves errno alone; any other key goes to the real function, whose answer
 * is the program's. Two compares.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>

#include "probes.h"
#include "real_symbol.h"
#include "threads.h"

static int (*real_pthread_key_delete)(pthread_key_t);
/* C11's tss_t is glibc's pthread_key_t (<threads.h> is not included: the state layer's
 * threads.h has the name on the shim's include path) */
static void (*real_tss_delete)(pthread_key_t);
TP_RESOLVED_AT_LOAD(real_pthread_key_delete, "pthread_key_delete", NULL);
TP_RESOLVED_AT_LOAD(real_tss_delete, "tss_delete", NULL);

TP_EXPORT int pthread_key_delete(pthread_key_t key)
{
	if (__builtin_expect(tp_threads_key_is_shims(key), 0))
		return EINVAL;
	__typeof__(real_pthread_key_delete) fn = TP_REAL(real_pthread_key_delete,
							 "pthread_key_delete", NULL);
	if (fn == NULL)
		return ENOSYS;
	return fn(key);
}

TP_EXPORT void tss_delete(pthread_key_t key)
{
	if (__builtin_expect(tp_threads_key_is_shims(key), 0))
		return;
	__typeof__(real_tss_delete) fn = TP_REAL(real_tss_delete, "tss_delete", NULL);
	if (fn != NULL)
		fn(key);
}
