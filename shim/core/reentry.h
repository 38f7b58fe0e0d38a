// SPDX-License-Identifier: MIT
/*
 * A thread's re-entry guard: a thread-local flag set while the thread is inside a part of the
 * shim whose state an event of a signal handler on the same thread must not touch (a record half
 * written, a lock held, a lookup under way). The handler sees the flag set and stays out (its
 * event dropped and counted, or given less). The fences are the compiler's only: the handler runs
 * on the same thread, so program order is all it needs.
 */
#pragma once

#include <stdbool.h>

/* Sets `*inside`; returns whether it was set already (a signal handler's nested entry). */
static inline bool tp_guard_enter(bool *inside)
{
	bool nested = *inside;
	*inside = true;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return nested;
}

/* Restores `*inside` to what tp_guard_enter found (`nested`; false when it was clear). */
static inline void tp_guard_leave(bool *inside, bool nested)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*inside = nested;
}
