// SPDX-License-Identifier: MIT
#include "shim_work.h"

#include "real_symbol.h"
#include "reentry.h"

/*
 * Set while this thread does the shim's own work: a signal handler's wait that interrupts it
 * gets no site (the lookups' locks are this thread's, held, and unwinding is not reentrant).
 */
static __thread bool in_shim_work __attribute__((tls_model("initial-exec")));

bool tp_in_shim_work(void)
{
	return in_shim_work;
}

bool tp_shim_work_begin(void)
{
	return tp_guard_enter(&in_shim_work);
}

void tp_shim_work_end(bool nested)
{
	tp_guard_leave(&in_shim_work, nested);
}

void tp_shim_own_lock(pthread_mutex_t *lock)
{
	bool nested = tp_shim_work_begin();
	tp_real_pthread_mutex_lock(lock);
	tp_shim_work_end(nested);
}
