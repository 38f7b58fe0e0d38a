// SPDX-License-Identifier: MIT
/*
 * Another tool's preloaded library, as a sanitizer's runtime is: it defines the condition
 * variable waits unversioned, counts the calls that reach it and says the counts at exit.
 * Preloaded after the shim, it must still see every call.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static unsigned long timedwaits, waits;

int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
			   const struct timespec *deadline)
{
	static int (*next)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
	if (next == NULL)
		next = (__typeof__(next))dlvsym(RTLD_NEXT, "pthread_cond_timedwait", "GLIBC_2.3.2");
	__atomic_add_fetch(&timedwaits, 1, __ATOMIC_RELAXED);
	return next(cond, mutex, deadline);
}

int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
	static int (*next)(pthread_cond_t *, pthread_mutex_t *);
	if (next == NULL)
		next = (__typeof__(next))dlvsym(RTLD_NEXT, "pthread_cond_wait", "GLIBC_2.3.2");
	__atomic_add_fetch(&waits, 1, __ATOMIC_RELAXED);
	return next(cond, mutex);
}

__attribute__((destructor)) static void say_counts(void)
{
	fprintf(stderr, "cond_interposer: %lu pthread_cond_wait, %lu pthread_cond_timedwait\n",
		waits, timedwaits);
}
