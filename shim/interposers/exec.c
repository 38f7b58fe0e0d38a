// SPDX-License-Identifier: MIT
/*
 * The exec family, execveat and fexecve too, and execve and execveat made through syscall()
 * (syscall_families.h): an exec ends the process image without exit
 * handlers, so the lifecycle's before-exec hooks run first (the recorder writes out every
 * thread's records and marks its file for the image that follows); they leave the process as it
 * was, should the exec fail.
 * The list forms are turned into vectors here:
 * glibc's own execl* call its internal execve, which no interposer sees.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lifecycle.h"
#include "probes.h"
#include "real_symbol.h"
#include "syscall_families.h"

typedef int exec_vector_fn(const char *, char *const[]);
typedef int exec_vector_env_fn(const char *, char *const[], char *const[]);

static exec_vector_env_fn *real_execve, *real_execvpe;
static exec_vector_fn *real_execv, *real_execvp;
static int (*real_fexecve)(int, char *const[], char *const[]);
static int (*real_execveat)(int, const char *, char *const[], char *const[], int);
TP_RESOLVED_AT_LOAD(real_execve, "execve", NULL);
TP_RESOLVED_AT_LOAD(real_execvpe, "execvpe", NULL);
TP_RESOLVED_AT_LOAD(real_execv, "execv", NULL);
TP_RESOLVED_AT_LOAD(real_execvp, "execvp", NULL);
TP_RESOLVED_AT_LOAD(real_fexecve, "fexecve", NULL);
TP_RESOLVED_AT_LOAD(real_execveat, "execveat", NULL);

/* An exec that returned (it failed, with `failed`): the lifecycle's after-failure hooks, errno
 * kept. */
static long exec_returned(long failed)
{
	int saved_errno = errno;
	tp_lifecycle_exec_failed();
	errno = saved_errno;
	return failed;
}

/* Runs `call` after the lifecycle's before-exec hooks, and its after-failure ones if it returns. */
#define EXEC_AFTER_HOOKS(fn, call)                                                                 \
	do {                                                                                       \
		if ((fn) == NULL) {                                                                \
			errno = ENOSYS;                                                            \
			return -1;                                                                 \
		}                                                                                  \
		tp_lifecycle_before_exec();                                                        \
		return (int)exec_returned(call);                                                   \
	} while (0)

TP_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	exec_vector_env_fn *fn = TP_REAL(real_execve, "execve", NULL);
	EXEC_AFTER_HOOKS(fn, fn(path, argv, envp));
}

TP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	exec_vector_env_fn *fn = TP_REAL(real_execvpe, "execvpe", NULL);
	EXEC_AFTER_HOOKS(fn, fn(file, argv, envp));
}

TP_EXPORT int execv(const char *path, char *const argv[])
{
	exec_vector_fn *fn = TP_REAL(real_execv, "execv", NULL);
	EXEC_AFTER_HOOKS(fn, fn(path, argv));
}

TP_EXPORT int execvp(const char *file, char *const argv[])
{
	exec_vector_fn *fn = TP_REAL(real_execvp, "execvp", NULL);
	EXEC_AFTER_HOOKS(fn, fn(file, argv));
}

TP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	__typeof__(real_fexecve) fn = TP_REAL(real_fexecve, "fexecve", NULL);
	EXEC_AFTER_HOOKS(fn, fn(fd, argv, envp));
}

TP_EXPORT int execveat(int dir_fd, const char *path, char *const argv[], char *const envp[],
		       int flags)
{
	__typeof__(real_execveat) fn = TP_REAL(real_execveat, "execveat", NULL);
	EXEC_AFTER_HOOKS(fn, fn(dir_fd, path, argv, envp, flags));
}

bool tp_exec_syscall(tp_syscall_fn fn, long number, const long a[6], long *ret)
{
	if (number != SYS_execve && number != SYS_execveat)
		return false;
	tp_lifecycle_before_exec();
	*ret = exec_returned(fn(number, a[0], a[1], a[2], a[3], a[4]));
	return true;
}

/* The number of arguments of a list form, its terminating NULL included. */
static size_t list_length(const char *first, va_list ap)
{
	size_t n = 1;
	for (const char *a = first; a != NULL; a = va_arg(ap, const char *))
		n++;
	return n;
}

/*
 * The body of a list form: its arguments from `first` to the NULL made a vector `argv` (on the
 * stack), and, for execle, the environment after the NULL read into `envp`; then `call`.
 */
#define EXEC_LIST(first, read_envp, call)                                                          \
	do {                                                                                       \
		va_list ap;                                                                        \
		va_start(ap, first);                                                               \
		size_t n = list_length(first, ap);                                                 \
		va_end(ap);                                                                        \
		char *argv[n];                                                                     \
		va_start(ap, first);                                                               \
		argv[0] = (char *)(first);                                                         \
		for (size_t i = 1; i < n; i++)                                                     \
			argv[i] = va_arg(ap, char *);                                              \
		char *const *envp = (read_envp) ? va_arg(ap, char *const *) : NULL;                \
		va_end(ap);                                                                        \
		(void)envp;                                                                        \
		return (call);                                                                     \
	} while (0)

TP_EXPORT int execl(const char *path, const char *arg, ...)
{
	EXEC_LIST(arg, false, execv(path, argv));
}

TP_EXPORT int execlp(const char *file, const char *arg, ...)
{
	EXEC_LIST(arg, false, execvp(file, argv));
}

TP_EXPORT int execle(const char *path, const char *arg, ...)
{
	EXEC_LIST(arg, true, execve(path, argv, envp));
}
