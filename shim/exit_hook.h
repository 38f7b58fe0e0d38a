// SPDX-License-Identifier: MIT
/* Running code at exit after every library's destructors. */
#pragma once

/* glibc's: a handler registered with no DSO handle runs at exit after all destructors. */
extern int __cxa_atexit(void (*fn)(void *), void *arg, void *dso_handle);

/*
 * Runs `fn` when the process exits through exit(), after every destructor, so that libraries
 * (an executor ending its threads and tasks) have finished first. The shim is linked
 * -z nodelete, so `fn` stays mapped.
 */
static inline void tp_at_exit_after_destructors(void (*fn)(void *))
{
	__cxa_atexit(fn, (void *)0, (void *)0);
}
