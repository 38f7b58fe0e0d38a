// SPDX-License-Identifier: MIT
/* The interposed functions' real definitions, resolved once, safely. */
#pragma once

#include <stddef.h>

/*
 * Returns the next definition of `name` after the shim (of version `version` in the object that
 * versions it, or the default one when NULL), or NULL when there is none or when the lookup recursed into the shim on this
 * thread (dlsym can allocate, and an allocator may wait or start threads). Prints one
 * `taskprobe:` line the first time a symbol cannot be had.
 */
void *tp_real_symbol(const char *name, const char *version);

/*
 * The real function behind `cache` (a static function pointer of the interposing file),
 * resolved on first use, which may come before the shim's constructor ran. Racing first calls
 * store the same value.
 */
#define TP_REAL(cache, name, version)                                                    \
	({                                                                               \
		__typeof__(cache) fn_ = __atomic_load_n(&(cache), __ATOMIC_RELAXED);      \
		if (__builtin_expect(fn_ == NULL, 0)) {                                  \
			fn_ = (__typeof__(cache))tp_real_symbol(name, version);          \
			__atomic_store_n(&(cache), fn_, __ATOMIC_RELAXED);               \
		}                                                                        \
		fn_;                                                                     \
	})
