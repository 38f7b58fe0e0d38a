// SPDX-License-Identifier: MIT
/* The interposed functions' real definitions, resolved once, safely. */
#pragma once

#include <pthread.h>
#include <stddef.h>

/*
 * Returns the next definition of `name` after the shim (of version `version` in the object that
 * versions it, or the default one when NULL), or NULL when there is none or when the lookup
 * recursed into the shim on this thread (dlsym can allocate, and an allocator may wait or start
 * threads). Prints one `taskprobe:` line the first time a symbol cannot be had.
 */
void *tp_real_symbol(const char *name, const char *version);

/* As tp_real_symbol, silent when there is none (the caller has another place to look). */
void *tp_next_symbol(const char *name, const char *version);

/* An interposed function's real definition, in the table resolved at load (lifecycle.c). */
struct tp_real_function {
	void *cache; /* the function pointer to fill */
	const char *name, *version;
};

/*
 * Puts `cache` (a static function pointer of the interposing file) for function `name` of
 * version `version` (or NULL) in the one table of real functions, which the constructor resolves
 * before main runs: a signal handler's first call must not be the one that runs dlsym. The
 * table is a section the linker gathers from every interposing file.
 */
#define TP_RESOLVED_AT_LOAD(cache, name, version)                                                  \
	__attribute__((used, section("tp_real_functions"),                                         \
		       aligned(sizeof(void *)))) static const struct tp_real_function              \
		tp_real_function_##cache = {&(cache), name, version}

/*
 * The real function behind `cache` (a static function pointer of the interposing file),
 * resolved on first use, which may come before the shim's constructor ran. Racing first calls
 * store the same value.
 */
#define TP_REAL(cache, name, version)                                                              \
	({                                                                                         \
		__typeof__(cache) fn_ = __atomic_load_n(&(cache), __ATOMIC_RELAXED);               \
		if (__builtin_expect(fn_ == NULL, 0)) {                                            \
			fn_ = (__typeof__(cache))tp_real_symbol(name, version);                    \
			__atomic_store_n(&(cache), fn_, __ATOMIC_RELAXED);                         \
		}                                                                                  \
		fn_;                                                                               \
	})

/* From the lifecycle's constructor (lifecycle.c): every interposed function's real one. */
void tp_real_functions_resolve(void);

/*
 * The real functions the shim calls itself among those it interposes: called by name, they would
 * be the shim's own interposers (interposers/, the layer above all others), with their checks and
 * events. Each fails as its interposer does when there is none (ENOSYS).
 *
 * Outside the shim (the console and the converter build its naming code, symbols/), where nothing
 * is interposed, they are the functions themselves.
 */
#ifdef TP_IN_SHIM
int tp_real_close(int fd);
int tp_real_fcntl(int fd, int cmd, int arg); /* fcntl with an int argument */
int tp_real_dlclose(void *handle);
int tp_real_pthread_mutex_lock(pthread_mutex_t *mutex);
long tp_real_syscall3(long number, long a, long b, long c); /* syscall(number, a, b, c) */
#else
#define tp_real_close              close
#define tp_real_fcntl              fcntl
#define tp_real_dlclose            dlclose
#define tp_real_pthread_mutex_lock pthread_mutex_lock
#define tp_real_syscall3           syscall
#endif
