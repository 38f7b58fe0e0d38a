// SPDX-License-Identifier: MIT
/*
 * Futex waits made through the public syscall(): how Rust's standard library, parking_lot and
 * hand-written executors block. Every call is forwarded with all six arguments; only the
 * FUTEX_WAIT family (and futex_waitv) is reported, as kind 1 with the futex word as object.
 * The calls of other interposed families made this way go to their files (syscall_families.h):
 * seccomp(2) and prctl (libseccomp installs its filter so; a filter stops the shim's own calls
 * first, whoever listens), the close family, execve and exit_group.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>

#include "probes.h"
#include "real_symbol.h"
#include "syscall_families.h"
#include "waits.h"

#ifndef FUTEX_CMD_MASK
#define FUTEX_CMD_MASK ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)
#endif

static tp_syscall_fn real_syscall;

/* The waited-on object and timeout of a futex wait, or false when the call is no wait. */
static bool futex_wait_of(long number, const long a[6], const void **object, int64_t *timeout)
{
	if (number == SYS_futex) {
		int op = (int)a[1];
		const struct timespec *ts = (const struct timespec *)a[3];
		clockid_t clock = (op & FUTEX_CLOCK_REALTIME) ? CLOCK_REALTIME : CLOCK_MONOTONIC;
		*object = (const void *)a[0];
		switch (op & FUTEX_CMD_MASK) {
		case FUTEX_WAIT:
			*timeout = tp_timeout_from_relative(ts);
			return true;
		case FUTEX_WAIT_BITSET:
		case FUTEX_WAIT_REQUEUE_PI:
			*timeout = tp_timeout_from_deadline(clock, ts);
			return true;
		default:
			return false;
		}
	}
#ifdef SYS_futex_waitv
	if (number == SYS_futex_waitv) {
		/* futex_waitv(waiters, nr, flags, deadline, clockid) */
		*object = (const void *)a[0];
		*timeout = tp_timeout_from_deadline((clockid_t)a[4], (const struct timespec *)a[3]);
		return true;
	}
#endif
	return false;
}

/* Resolving on first use, and the futex waits while a wait probe is on. */
__attribute__((noinline)) static long slow_syscall(const void *caller, long number, long a0,
						   long a1, long a2, long a3, long a4, long a5)
{
	__typeof__(real_syscall) fn = TP_REAL(real_syscall, "syscall", NULL);
	if (fn == NULL) {
		errno = ENOSYS;
		return -1;
	}
	const long a[6] = {a0, a1, a2, a3, a4, a5};
	/* the families made through syscall(): the shim keeps a descriptor, and has records to
	 * write out before an exec or an exit, while a consumer is on, which brings every call
	 * here (a recording stopped by a failed write aside: nothing is written to its descriptor
	 * then) */
	long ret;
	if (tp_prctl_syscall(fn, number, a, &ret) || tp_close_family_syscall(fn, number, a, &ret) ||
	    tp_exec_syscall(fn, number, a, &ret) || tp_exit_syscall(fn, number, a, &ret))
		return ret;
	const void *object;
	int64_t timeout;
	if (!tp_listeners_waits() || !futex_wait_of(number, a, &object, &timeout))
		return fn(number, a0, a1, a2, a3, a4, a5);

	struct tp_wait w;
	tp_wait_enter(&w, TP_WAIT_FUTEX, object, timeout, caller);
	TP_WAIT_CANCELLABLE(&w, ret = fn(number, a0, a1, a2, a3, a4, a5));
	tp_wait_leave(&w, tp_wait_result_errno(ret));
	return ret;
}

TP_RESOLVED_AT_LOAD(real_syscall, "syscall", NULL);

/*
 * Defined with six named arguments rather than `...`: on the Linux ABIs (x86-64, aarch64, i386)
 * integer arguments of a variadic call are passed exactly as named ones, and this way the path
 * with no tracer attached spills no register save area. A caller passing fewer arguments leaves
 * the rest unspecified, which the kernel ignores as it does for glibc's own syscall().
 */
TP_EXPORT long syscall(long number, long a0, long a1, long a2, long a3, long a4, long a5)
{
	__typeof__(real_syscall) fn = __atomic_load_n(&real_syscall, __ATOMIC_RELAXED);
	/* a filter's installation (seccomp, prctl) is told to the lifecycle whoever listens */
	if (__builtin_expect(fn != NULL && !tp_listeners_waits(), 1) && number != SYS_seccomp &&
	    number != SYS_prctl)
		return fn(number, a0, a1, a2, a3, a4, a5);
	return slow_syscall(__builtin_return_address(0), number, a0, a1, a2, a3, a4, a5);
}
