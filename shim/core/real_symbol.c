// SPDX-License-Identifier: MIT
/* Resolving the real functions behind the interposed ones. */
#define _GNU_SOURCE
#include "real_symbol.h"

#include "reentry.h"
#include "warn.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>

/* Set while this thread is inside dlsym: a call back into the shim must not resolve again. */
static __thread bool resolving __attribute__((tls_model("initial-exec")));

/*
 * Whether two functions are defined by the same object. The next definition of a versioned name
 * may be an interposer's unversioned one (a sanitizer's runtime, another preloaded tool), which
 * dlvsym passes over: that one is taken, and the version is asked for only between the
 * definitions of the object that versions the name (glibc's old and new condition variables).
 */
static bool same_object(void *a, void *b)
{
	if (a == b)
		return true;
#ifdef DLFO_STRUCT_HAS_EH_DBASE
	/* glibc 2.35 and later: a lookup in the loaded objects' sorted table. dladdr, below, also
	 * searches the object's symbols for the nearest one, about 30,000 instructions a call, which
	 * each process's start paid for every versioned function. */
	struct dl_find_object in_a, in_b;
	return _dl_find_object(a, &in_a) == 0 && _dl_find_object(b, &in_b) == 0 &&
	       in_a.dlfo_link_map == in_b.dlfo_link_map;
#else
	Dl_info in_a, in_b;
	return dladdr(a, &in_a) != 0 && dladdr(b, &in_b) != 0 && in_a.dli_fbase == in_b.dli_fbase;
#endif
}

/* Weak: a program of the core's alone (a test, a benchmark) has no interposer, so no table. */
extern const struct tp_real_function __start_tp_real_functions[]
	__attribute__((weak, visibility("hidden")));
extern const struct tp_real_function __stop_tp_real_functions[]
	__attribute__((weak, visibility("hidden")));

void tp_real_functions_resolve(void)
{
	for (const struct tp_real_function *f = __start_tp_real_functions;
	     f < __stop_tp_real_functions; f++) {
		void **cache = f->cache;
		if (__atomic_load_n(cache, __ATOMIC_RELAXED) == NULL)
			__atomic_store_n(cache, tp_real_symbol(f->name, f->version),
					 __ATOMIC_RELAXED);
	}
}

void *tp_next_symbol(const char *name, const char *version)
{
	if (resolving)
		return NULL;
	tp_guard_enter(&resolving);
	void *fn = dlsym(RTLD_NEXT, name);
	void *versioned = version ? dlvsym(RTLD_NEXT, name, version) : NULL;
	if (versioned != NULL && (fn == NULL || same_object(fn, versioned)))
		fn = versioned;
	tp_guard_leave(&resolving, false);
	return fn;
}

void *tp_real_symbol(const char *name, const char *version)
{
	void *fn = tp_next_symbol(name, version);
	if (fn == NULL)
		tp_warn("cannot find the real %s; the call fails with ENOSYS", name);
	return fn;
}

static int (*real_close)(int);
TP_RESOLVED_AT_LOAD(real_close, "close", NULL);

int tp_real_close(int fd)
{
	__typeof__(real_close) fn = TP_REAL(real_close, "close", NULL);
	if (fn == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return fn(fd);
}

static int (*real_fcntl)(int, int, ...);
TP_RESOLVED_AT_LOAD(real_fcntl, "fcntl", NULL);

int tp_real_fcntl(int fd, int cmd, int arg)
{
	__typeof__(real_fcntl) fn = TP_REAL(real_fcntl, "fcntl", NULL);
	if (fn == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return fn(fd, cmd, arg);
}

static int (*real_dlclose)(void *);
TP_RESOLVED_AT_LOAD(real_dlclose, "dlclose", NULL);

int tp_real_dlclose(void *handle)
{
	__typeof__(real_dlclose) fn = TP_REAL(real_dlclose, "dlclose", NULL);
	return fn != NULL ? fn(handle) : -1;
}

static long (*real_syscall)(long, ...);
TP_RESOLVED_AT_LOAD(real_syscall, "syscall", NULL);

long tp_real_syscall3(long number, long a, long b, long c)
{
	__typeof__(real_syscall) fn = TP_REAL(real_syscall, "syscall", NULL);
	if (fn == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return fn(number, a, b, c);
}

static int (*real_pthread_mutex_lock)(pthread_mutex_t *);
TP_RESOLVED_AT_LOAD(real_pthread_mutex_lock, "pthread_mutex_lock", NULL);

int tp_real_pthread_mutex_lock(pthread_mutex_t *mutex)
{
	__typeof__(real_pthread_mutex_lock) fn = TP_REAL(real_pthread_mutex_lock,
							 "pthread_mutex_lock", NULL);
	return fn != NULL ? fn(mutex) : ENOSYS;
}
