// SPDX-License-Identifier: MIT
/*
 * pthread_setaffinity_np: the one call dropped is libgomp's binding of the initial thread in a
 * GCC-built program that runs on libomp (taskprobe run, or libomp preloaded by hand). libgomp's
 * constructor still runs there, and under OMP_PROC_BIND (or OMP_PLACES, GOMP_CPU_AFFINITY) binds
 * the initial thread to its first place before libomp starts; libomp then takes that one CPU for
 * all the process may use and binds every thread of its team to it ("Ignoring invalid OS proc
 * ID"): a GCC build bound to two places ran twice as long. libgomp runs no team of its own there
 * (libomp answers its entry points), so its binding binds nothing it runs; libomp binds the
 * initial thread itself, as the same settings ask. Every other call is forwarded as is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "openmp_runtimes.h"
#include "probes.h"
#include "real_symbol.h"

static int (*real_pthread_setaffinity_np)(pthread_t, size_t, const cpu_set_t *);
TP_RESOLVED_AT_LOAD(real_pthread_setaffinity_np, "pthread_setaffinity_np", NULL);

/*
 * Whether a call from `caller` for `thread` is libgomp's binding of the initial thread of a
 * process libomp runs. The cheap questions first: a program's own calls stop at the caller's
 * object (dladdr), before the system calls.
 */
static bool libgomp_binds_for_libomp(pthread_t thread, const void *caller)
{
	return pthread_equal(thread, pthread_self()) &&
	       tp_openmp_code_of(caller) == TP_OPENMP_LIBGOMP && gettid() == getpid() &&
	       tp_openmp_libgomp_on_libomp();
}

TP_EXPORT int pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t *cpus)
{
	__typeof__(real_pthread_setaffinity_np) fn = TP_REAL(real_pthread_setaffinity_np,
							     "pthread_setaffinity_np", NULL);
	if (fn == NULL)
		return ENOSYS;
	if (libgomp_binds_for_libomp(thread, __builtin_return_address(0)))
		return 0;
	return fn(thread, size, cpus);
}
