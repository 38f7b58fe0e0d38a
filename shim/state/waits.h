// SPDX-License-Identifier: MIT
/*
 * What every interposed wait does around the real call when a wait or park probe is on:
 * wait-start/wait-end with the polled task, and park/unpark for a worker that polls no task.
 */
#pragma once

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "events.h"

/* One wait in progress, on the waiting thread's stack. */
struct tp_wait {
	uint64_t task;
	uintptr_t object;
	uint32_t kind;
	uint32_t site_key; /* its call site's key (spawn_site.h), 0 when nobody asked */
	bool silent;       /* the thread was stopped by the process's exit: nothing fires */
	uint64_t since;    /* what its wait-start gave the in-process consumers for its wait-end */
	uint64_t moment;   /* its wait-start's moment for the in-process consumers, 0 if none */
};

/* The only check on the path of an interposed wait when nobody listens: two loads, one branch. */
static inline bool tp_listeners_waits(void)
{
	return tp_listeners_parks_and_waits() != 0;
}

/*
 * Fires park (for an idle worker) and wait-start, the wait's call site being the interposed
 * call's return address `caller` (or, for a wait a system library makes, the program's call into
 * that library). Keeps errno.
 */
void tp_wait_enter(struct tp_wait *w, enum tp_wait_kind kind, const void *object,
		   int64_t timeout_ns, const void *caller);

/* Fires wait-end with `result` (the return value, or -errno) and the matching unpark. */
void tp_wait_leave(struct tp_wait *w, int64_t result);

/*
 * A wait that took what it waited for at once, without blocking (a semaphore that could be
 * taken: semaphore.c), made: its park (an idle worker's), wait-start, wait-end (result 0) and
 * unpark fired as tp_wait_enter and tp_wait_leave fire them; the in-process consumers given its
 * start and end at one moment. Keeps errno.
 */
void tp_wait_at_once(enum tp_wait_kind kind, const void *object, int64_t timeout_ns,
		     const void *caller);

/* A pthread cleanup handler: the thread was cancelled inside the wait (result -ECANCELED). */
void tp_wait_cancelled(void *w);
/*
 * A longjmp is about to leave `frame` (its caller's frame): if that frame runs on top of the
 * wait that parked this thread (a signal handler interrupted the wait), the wait will never
 * return, so its unpark fires now.
 */
void tp_wait_escaping(const void *frame);

/*
 * Runs `call` (a statement) as the wait `w` entered with tp_wait_enter, so that a cancellation
 * inside it still ends the wait and unparks.
 */
#define TP_WAIT_CANCELLABLE(w, call)                                                               \
	do {                                                                                       \
		pthread_cleanup_push(tp_wait_cancelled, (w));                                      \
		call;                                                                              \
		pthread_cleanup_pop(0);                                                            \
	} while (0)

/*
 * Defines the interposed wait function `name`. Once its real function is resolved and while no
 * wait probe is on, it is one load, one check and a tail call; everything else (resolving on
 * first use, firing the wait events) is in a separate function, so the fast path keeps no frame.
 *   type, name, params, args  the function: return type, name, (parameters), (arguments)
 *   version                   the symbol version of the real function, or NULL
 *   missing                   a statement failing the call as it would fail, if there is none
 *   kind, object, timeout     the wait-start arguments; timeout is evaluated only when traced
 *   result                    turns the return value into the contract's result
 */
#define TP_UNPARENTHESIZED(...) __VA_ARGS__
#define TP_INTERPOSE_WAIT(type, name, params, args, version, missing, kind, object, timeout,       \
			  result)                                                                  \
	TP_INTERPOSE_WAIT_SLOW(type, name, params, args, version, missing, kind, object, timeout,  \
			       result);                                                            \
	TP_INTERPOSED_ENTRY(type, name, params, args, slow_##name)

/*
 * TP_INTERPOSE_WAIT with `tried`, a statement run while traced before the wait is entered, which
 * may make the call without waiting and return (its events fired: tp_wait_at_once); it may name
 * `caller_`, the interposed call's return address. It runs in a frame of its own between the
 * exported function and slow_##name, with nothing on the stack: a cancellation it acts on unwinds
 * no frame of a wait's (whose stack a sanitizer's runtime would leave poisoned).
 */
#define TP_INTERPOSE_WAIT_TRIED(type, name, params, args, version, missing, kind, object, timeout, \
				result, tried)                                                     \
	TP_INTERPOSE_WAIT_SLOW(type, name, params, args, version, missing, kind, object, timeout,  \
			       result);                                                            \
	__attribute__((noinline)) static type tried_##name(const void *caller_,                    \
							   TP_UNPARENTHESIZED params)              \
	{                                                                                          \
		if (tp_listeners_waits())                                                          \
			tried;                                                                     \
		return slow_##name(caller_, TP_UNPARENTHESIZED args);                              \
	}                                                                                          \
	TP_INTERPOSED_ENTRY(type, name, params, args, tried_##name)

/* TP_INTERPOSE_WAIT's real function `real_##name` and its traced way, slow_##name. */
#define TP_INTERPOSE_WAIT_SLOW(type, name, params, args, version, missing, kind, object, timeout,  \
			       result)                                                             \
	static type(*real_##name) params;                                                          \
	__attribute__((noinline)) static type slow_##name(const void *caller_,                     \
							  TP_UNPARENTHESIZED params)               \
	{                                                                                          \
		type(*fn) params = TP_REAL(real_##name, #name, version);                           \
		if (fn == NULL)                                                                    \
			missing;                                                                   \
		if (!tp_listeners_waits())                                                         \
			return fn args;                                                            \
		struct tp_wait wait_;                                                              \
		type ret_;                                                                         \
		tp_wait_enter(&wait_, kind, object, timeout, caller_);                             \
		TP_WAIT_CANCELLABLE(&wait_, ret_ = fn args);                                       \
		tp_wait_leave(&wait_, result(ret_));                                               \
		return ret_;                                                                       \
	}                                                                                          \
	TP_RESOLVED_AT_LOAD(real_##name, #name, version)

/*
 * The exported function `name` of an interposed wait: while its real function is resolved and
 * no wait probe is on, a tail call to it; else traced(caller's return address, args).
 */
#define TP_INTERPOSED_ENTRY(type, name, params, args, traced)                                      \
	TP_EXPORT type name params                                                                 \
	{                                                                                          \
		type(*fn) params = __atomic_load_n(&real_##name, __ATOMIC_RELAXED);                \
		if (__builtin_expect(fn != NULL && !tp_listeners_waits(), 1))                      \
			return fn args;                                                            \
		return traced(__builtin_return_address(0), TP_UNPARENTHESIZED args);               \
	}

/* `missing` statements of TP_INTERPOSE_WAIT: a call that sets errno, one that returns it. */
#define TP_FAIL_ERRNO                                                                              \
	do {                                                                                       \
		errno = ENOSYS;                                                                    \
		return -1;                                                                         \
	} while (0)
#define TP_FAIL_ERROR_NUMBER return ENOSYS

/* The contract's result of a pthread call, which returns an error number. */
static inline int64_t tp_wait_result_error_number(int ret)
{
	return -(int64_t)ret;
}

/* The contract's result of a call that returns -1 and sets errno on failure. */
static inline int64_t tp_wait_result_errno(long ret)
{
	return ret == -1 ? -(int64_t)errno : ret;
}

/* Timeouts in the contract's form: relative nanoseconds, -1 for none. */
int64_t tp_timeout_from_ms(int ms);
int64_t tp_timeout_from_relative(const struct timespec *ts);
/* An absolute deadline on `clock`, converted at entry; reads the clock only if wait-start is on. */
int64_t tp_timeout_from_deadline(clockid_t clock, const struct timespec *deadline);
