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

/* Whether the calling thread is inside the shim's own work now. */
bool tp_in_shim_work(void);

/* Brackets the shim's own work: begin returns what end is given, so that they nest. */
bool tp_shim_work_begin(void);
void tp_shim_work_end(bool nested);

/* Takes one of the shim's own locks, as the shim's work. */
void tp_shim_own_lock(pthread_mutex_t *lock);
