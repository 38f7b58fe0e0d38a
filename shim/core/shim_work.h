// SPDX-License-Identifier: MIT
/*
 * The shim's own work on a program's thread that may block: finding or naming a site, taking
 * one of the shim's locks, unwinding in a library that locks (libunwind's caches). A wait made
 * there is the shim's, not the program's, and fires nothing: the interposed waits ask
 * tp_in_shim_work (pthread_mutex_lock too, as its contention is the shim's own then).
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>

#include "reentry.h"

/*
 * Set while this thread does the shim's own work: a signal handler's wait that interrupts it
 * gets no site (the lookups' locks are this thread's, held, and unwinding is not reentrant).
 * Inline: every traced wait brackets its site's lookup with it.
 */
extern __thread bool tp_shim_working
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Whether the calling thread is inside the shim's own work now. */
static inline bool tp_in_shim_work(void)
{
	return tp_shim_working;
}

/* Brackets the shim's own work: begin returns what end is given, so that they nest. */
static inline bool tp_shim_work_begin(void)
{
	return tp_guard_enter(&tp_shim_working);
}

static inline void tp_shim_work_end(bool nested)
{
	tp_guard_leave(&tp_shim_working, nested);
}

/* Takes one of the shim's own locks, as the shim's work. */
void tp_shim_own_lock(pthread_mutex_t *lock);
