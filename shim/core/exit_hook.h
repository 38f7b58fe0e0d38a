// SPDX-License-Identifier: MIT
/*
 * Running code at exit: after every library's destructors, or before them, while every library
 * is still in place.
 *
 * glibc runs the handlers registered with __cxa_atexit in the reverse order of registration, and
 * runs the libraries' destructors (_dl_fini) as one of them, registered by __libc_start_main just
 * before the program's own constructors and main. So a handler registered earlier, from a
 * preloaded library's constructor, runs after the destructors; one registered later runs before.
 */
#pragma once

/* glibc's: a handler registered with no DSO handle stays registered until exit. */
extern int __cxa_atexit(void (*fn)(void *), void *arg, void *dso_handle);

/*
 * Runs `fn` when the process exits through exit(), after every destructor, so that libraries
 * (an executor ending its threads and tasks) have finished first. Call it from a constructor.
 * The shim is linked -z nodelete, so `fn` stays mapped.
 *
 * Beware: a library's destructor may tear its runtime down while other threads still run in it
 * (libomp does when exit() is called from a thread it does not know, during a parallel region),
 * and the process stays alive only until exit ends. Every microsecond `fn` spends there lets
 * those threads run on freed state: work that takes time belongs in a handler registered with
 * tp_at_exit_before_destructors. The same holds for the destructors that run after that one:
 * those of every library loaded at run time (dlopen) with all its dependencies.
 */
static inline void tp_at_exit_after_destructors(void (*fn)(void *))
{
	__cxa_atexit(fn, (void *)0, (void *)0);
}

/*
 * Runs `fn` when the process exits through exit(), before the libraries' destructors, while
 * they and the threads running in them are as they were: call it once main has started (from
 * code the program runs, not from a constructor, which would make it run after the destructors
 * like tp_at_exit_after_destructors). Handlers registered later, such as the program's own
 * atexit handlers, run before `fn`.
 */
static inline void tp_at_exit_before_destructors(void (*fn)(void *))
{
	__cxa_atexit(fn, (void *)0, (void *)0);
}
