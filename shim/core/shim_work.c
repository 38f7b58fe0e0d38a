// SPDX-License-Identifier: MIT
#include "shim_work.h"

#include "real_symbol.h"

__thread bool tp_shim_working __attribute__((tls_model("initial-exec")));

void tp_shim_own_lock(pthread_mutex_t *lock)
{
	bool nested = tp_shim_work_begin();
	tp_real_pthread_mutex_lock(lock);
	tp_shim_work_end(nested);
}
