// SPDX-License-Identifier: MIT
/*
 * Mutex contention, kind 6, object the pthread_mutex_t: what users ask about first ("which lock
 * do my threads queue on?"). Only contention is a wait: while someone listens, the lock is tried
 * first (pthread_mutex_trylock), and only when it is busy does wait-start fire, the real lock
 * follow and wait-end fire with its result. A lock taken at once fires nothing. With nobody
 * listening, the call is one check and a tail call to the real function, as every wait's.
 *
 * The result is always the real functions': trylock returns what lock would for a mutex it can
 * take at once (0; EAGAIN for a recursive one at its count's limit; EINVAL), and only its EBUSY
 * is passed on to the real lock. A robust mutex is never tried (contended): its lock word says
 * whether it is held, and the real lock answers (EOWNERDEAD, ENOTRECOVERABLE). A mutex this thread owns already (an error-checking or a normal mutex
 * locked twice) is no contention: the real lock is called with no event, and answers EDEADLK or
 * deadlocks as it would. The shim's own locks (a call from the shim's code), and a library the
 * shim calls while it finds a wait's site (tp_in_shim_work), are the shim's: no event.
 *
 * pthread_mutex_clocklock checks its clock before anything else: it is tried first only with a
 * clock it accepts, so that an invalid one fails with EINVAL as it would, lock free or not.
 * glibc has one version of each (2.34 moved them into libc, keeping their old versions as
 * aliases of the same functions), so the default definition is the real one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h> /* FUTEX_TID_MASK */
#include <pthread.h>
#include <time.h>

#include "probes.h"
#include "real_symbol.h"
#include "spawn_stack.h"
#include "thread_identity.h"
#include "thread_state.h"
#include "shim_work.h"
#include "waits.h"

/*
 * The shim's own code, between its ELF header and the end of its text (the linker's symbols), and
 * the libunwind it loaded.
 */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char __etext[] __attribute__((visibility("hidden")));

static bool called_by_the_shim(const void *caller)
{
	return ((const char *)caller >= __ehdr_start && (const char *)caller < __etext) ||
	       tp_spawn_stack_in_unwinder((uintptr_t)caller);
}

/* A robust mutex's bit in glibc's __kind (PTHREAD_MUTEX_ROBUST_NORMAL_NP, its ABI since 2.4). */
#define GLIBC_MUTEX_ROBUST 16

static int (*real_pthread_mutex_trylock)(pthread_mutex_t *mutex);
TP_RESOLVED_AT_LOAD(real_pthread_mutex_trylock, "pthread_mutex_trylock", NULL);

/*
 * Whether a lock of `mutex` by this thread, called from `caller`, is contention, to be seen as a
 * wait: it is busy (tried first), this thread does not own it, and the shim did not take it.
 * Sets `*result` to the tried lock's result when it is not busy: the call is then done.
 */
static bool contended(pthread_mutex_t *mutex, const void *caller, int *result)
{
	int (*trylock)(pthread_mutex_t *) = TP_REAL(real_pthread_mutex_trylock,
						    "pthread_mutex_trylock", NULL);
	if (trylock == NULL)
		return false; /* the real lock alone */
	if (__atomic_load_n(&mutex->__data.__kind, __ATOMIC_RELAXED) & GLIBC_MUTEX_ROBUST) {
		/* never tried: glibc 2.36's trylock of a robust mutex made unrecoverable takes it
		 * and answers ENOTRECOVERABLE without letting it go (its lock lets it go), and the
		 * program's next lock hung for good. Held is what its lock word says (its owner's
		 * id; not a dead owner's mark alone); free, the real lock goes on unseen. */
		if ((__atomic_load_n(&mutex->__data.__lock, __ATOMIC_RELAXED) & FUTEX_TID_MASK) ==
		    0)
			return false;
	} else {
		int tried = trylock(mutex);
		if (tried != EBUSY) {
			*result = tried;
			return false;
		}
	}
	/* busy: the rest is asked only now, a lock taken at once costing the trylock alone */
	if (called_by_the_shim(caller) || tp_in_shim_work())
		return false;
	/* glibc keeps the owner's thread id in every kind of mutex (PI and robust ones too) */
	return __atomic_load_n(&mutex->__data.__owner, __ATOMIC_RELAXED) != tp_thread_tid();
}

/*
 * Defines the interposed lock function `name` (TP_INTERPOSE_WAIT's arguments; `try_first`: an
 * expression saying whether the lock may be tried first, its arguments being valid).
 */
#define TP_INTERPOSE_LOCK(name, params, args, try_first, timeout)                                  \
	static int(*real_##name) params;                                                           \
	__attribute__((noinline)) static int slow_##name(const void *caller_,                      \
							 TP_UNPARENTHESIZED params)                \
	{                                                                                          \
		int(*fn) params = TP_REAL(real_##name, #name, NULL);                               \
		if (fn == NULL)                                                                    \
			return ENOSYS;                                                             \
		int ret_ = EBUSY;                                                                  \
		if (!tp_listeners_waits() || !(try_first))                                         \
			return fn args;                                                            \
		if (!contended(mutex, caller_, &ret_))                                             \
			return ret_ != EBUSY ? ret_ : fn args;                                     \
		struct tp_wait wait_;                                                              \
		tp_wait_enter(&wait_, TP_WAIT_MUTEX, mutex, timeout, caller_);                     \
		ret_ = fn args;                                                                    \
		tp_wait_leave(&wait_, tp_wait_result_error_number(ret_));                          \
		return ret_;                                                                       \
	}                                                                                          \
	TP_RESOLVED_AT_LOAD(real_##name, #name, NULL);                                             \
	TP_INTERPOSED_ENTRY(int, name, params, args, slow_##name)

/* The clocks pthread_mutex_clocklock accepts (any other: EINVAL before it tries the lock). */
static bool lock_clock_valid(clockid_t clock)
{
	return clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC;
}

TP_INTERPOSE_LOCK(pthread_mutex_lock, (pthread_mutex_t * mutex), (mutex), true, -1)

TP_INTERPOSE_LOCK(pthread_mutex_timedlock,
		  (pthread_mutex_t * mutex, const struct timespec *deadline), (mutex, deadline),
		  true, tp_timeout_from_deadline(CLOCK_REALTIME, deadline))

TP_INTERPOSE_LOCK(pthread_mutex_clocklock,
		  (pthread_mutex_t * mutex, clockid_t clock, const struct timespec *deadline),
		  (mutex, clock, deadline), lock_clock_valid(clock),
		  tp_timeout_from_deadline(clock, deadline))
