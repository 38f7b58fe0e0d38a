// SPDX-License-Identifier: MIT
/*
 * The close family: close, close_range, closefrom, dup, dup2, dup3, fcntl, and the same calls
 * made through syscall(); and pipe2, for the pipe libunwind makes (spawn_stack.h). The
 * descriptors the shim keeps (own_files.h: a recording's, a report's, libunwind's pipe) are out
 * of the program's reach, and every call does what it would do without the shim, where those
 * numbers are not open: closing, copying or asking about one fails with EBADF, a range is closed
 * around them, and a dup2 onto one moves the shim's away first. (bash, seeing the recording's
 * 1000 open and close-on-exec, took it for its own: it saved a copy with F_DUPFD before `exec
 * 1000>f` and put the copy back after, and the script's writes to f went into the recording.)
 * With no descriptor kept, each call is one load and a tail call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "own_files.h"
#include "probes.h"
#include "real_symbol.h"
#include "spawn_stack.h"
#include "syscall_families.h"

static int (*real_close)(int);
static int (*real_close_range)(unsigned, unsigned, int);
static void (*real_closefrom)(int);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);
static int (*real_pipe2)(int[2], int);
static int (*real_dup)(int);
static int (*real_fcntl)(int, int, ...);
static int (*real_fcntl64)(int, int, ...);
TP_RESOLVED_AT_LOAD(real_close, "close", NULL);
TP_RESOLVED_AT_LOAD(real_close_range, "close_range", NULL);
TP_RESOLVED_AT_LOAD(real_closefrom, "closefrom", NULL);
TP_RESOLVED_AT_LOAD(real_dup2, "dup2", NULL);
TP_RESOLVED_AT_LOAD(real_dup3, "dup3", NULL);
TP_RESOLVED_AT_LOAD(real_pipe2, "pipe2", NULL);
TP_RESOLVED_AT_LOAD(real_dup, "dup", NULL);
TP_RESOLVED_AT_LOAD(real_fcntl, "fcntl", NULL);
TP_RESOLVED_AT_LOAD(real_fcntl64, "fcntl64", NULL);

/* The function's real definition, or -1 with ENOSYS from the interposer when there is none. */
#define REAL_OR_ENOSYS(fn, cache, name)                                                            \
	__typeof__(cache) fn = TP_REAL(cache, name, NULL);                                         \
	if (fn == NULL) {                                                                          \
		errno = ENOSYS;                                                                    \
		return -1;                                                                         \
	}

TP_EXPORT int close(int fd)
{
	REAL_OR_ENOSYS(fn, real_close, "close");
	if (__builtin_expect(tp_own_fd_is(fd), 0)) {
		/* libunwind closes its pipe's ends before it makes the pipe again */
		if (tp_spawn_stack_in_unwinder((uintptr_t)__builtin_return_address(0)) &&
		    tp_spawn_stack_unwinder_closes(fd))
			return 0;
		errno = EBADF;
		return -1;
	}
	return fn(fd);
}

/* libunwind's pipe (the one pipe2 of the shim's libraries) is the shim's own: spawn_stack.h. */
TP_EXPORT int pipe2(int fds[2], int flags)
{
	REAL_OR_ENOSYS(fn, real_pipe2, "pipe2");
	int ret = fn(fds, flags);
	if (__builtin_expect(ret == 0, 1) &&
	    __builtin_expect(tp_spawn_stack_in_unwinder((uintptr_t)__builtin_return_address(0)), 0))
		return tp_spawn_stack_unwinder_pipe(fds) ? 0 : -1;
	return ret;
}

/* [first, last] closed (or flagged) around the shim's descriptors in it. */
static int close_range_around(int (*fn)(unsigned, unsigned, int), unsigned first, unsigned last,
			      int flags)
{
	int kept[TP_OWN_FDS_MAX];
	unsigned n = first <= last ? tp_own_fds_within(first, last, kept) : 0;
	for (unsigned i = 0; i < n; i++) {
		if ((unsigned)kept[i] > first && fn(first, (unsigned)kept[i] - 1, flags) != 0)
			return -1;
		first = (unsigned)kept[i] + 1;
	}
	if (n > 0 && (unsigned)kept[n - 1] == last)
		return 0;
	return fn(first, last, flags);
}

TP_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	REAL_OR_ENOSYS(fn, real_close_range, "close_range");
	return close_range_around(fn, first, last, flags);
}

TP_EXPORT void closefrom(int lowest)
{
	__typeof__(real_closefrom) fn = TP_REAL(real_closefrom, "closefrom", NULL);
	__typeof__(real_close_range) range = TP_REAL(real_close_range, "close_range", NULL);
	int kept[TP_OWN_FDS_MAX];
	if (lowest < 0 || range == NULL ||
	    tp_own_fds_within((unsigned)lowest, UINT_MAX, kept) == 0) {
		if (fn != NULL)
			fn(lowest);
		return;
	}
	int saved_errno = errno;
	if (close_range_around(range, (unsigned)lowest, UINT_MAX, 0) == 0)
		errno = saved_errno; /* closefrom sets no errno */
	else if (fn != NULL)
		fn(lowest); /* what the program asked for comes first */
}

TP_EXPORT int dup2(int from, int to)
{
	REAL_OR_ENOSYS(fn, real_dup2, "dup2");
	if (__builtin_expect(tp_own_fd_is(from), 0)) {
		errno = EBADF;
		return -1;
	}
	tp_own_fd_make_way(to);
	return fn(from, to);
}

TP_EXPORT int dup3(int from, int to, int flags)
{
	REAL_OR_ENOSYS(fn, real_dup3, "dup3");
	if (__builtin_expect(tp_own_fd_is(from), 0)) {
		errno = EBADF;
		return -1;
	}
	tp_own_fd_make_way(to);
	return fn(from, to, flags);
}

TP_EXPORT int dup(int fd)
{
	REAL_OR_ENOSYS(fn, real_dup, "dup");
	if (__builtin_expect(tp_own_fd_is(fd), 0)) {
		errno = EBADF;
		return -1;
	}
	return fn(fd);
}

/*
 * fcntl's third argument, when its command takes one, is read as the C library reads it (an
 * int or a pointer, passed in the same register) and handed on as it came.
 */
#define FCNTL_BODY(cache, name)                                                                    \
	REAL_OR_ENOSYS(fn, cache, name);                                                           \
	va_list ap;                                                                                \
	va_start(ap, cmd);                                                                         \
	void *arg = va_arg(ap, void *);                                                            \
	va_end(ap);                                                                                \
	if (__builtin_expect(tp_own_fd_is(fd), 0)) {                                               \
		errno = EBADF;                                                                     \
		return -1;                                                                         \
	}                                                                                          \
	return fn(fd, cmd, arg)

TP_EXPORT int fcntl(int fd, int cmd, ...)
{
	FCNTL_BODY(real_fcntl, "fcntl");
}

/* the name glibc's headers give fcntl where _FILE_OFFSET_BITS is 64 */
TP_EXPORT int fcntl64(int fd, int cmd, ...)
{
	FCNTL_BODY(real_fcntl64, "fcntl64");
}

static int close_range_by_syscall(unsigned first, unsigned last, int flags)
{
	return (int)tp_real_syscall3(SYS_close_range, first, last, flags);
}

bool tp_close_family_syscall(tp_syscall_fn fn, long number, const long a[6], long *ret)
{
	int fd = (int)a[0];
	switch (number) {
	case SYS_close:
	case SYS_dup:
	case SYS_fcntl:
		if (__builtin_expect(tp_own_fd_is(fd), 0)) {
			errno = EBADF;
			*ret = -1;
		} else {
			*ret = fn(number, a[0], a[1], a[2]);
		}
		return true;
	case SYS_close_range:
		*ret = close_range_around(close_range_by_syscall, (unsigned)a[0], (unsigned)a[1],
					  (int)a[2]);
		return true;
#ifdef SYS_dup2
	case SYS_dup2:
#endif
	case SYS_dup3:
		if (__builtin_expect(tp_own_fd_is(fd), 0)) {
			errno = EBADF;
			*ret = -1;
			return true;
		}
		tp_own_fd_make_way((int)a[1]);
		*ret = fn(number, a[0], a[1], a[2]);
		return true;
	default:
		return false;
	}
}
