// SPDX-License-Identifier: MIT
/*
 * The moment the program runs, told by the layers, acted on by the lifecycle (lifecycle_moments.h).
 */
#include "lifecycle_moments.h"

#include <stdbool.h>
#include <stddef.h>

#include "exit_hook.h"

static void (*before_destructors)(void *);

void tp_lifecycle_when_program_runs(void (*fn)(void *))
{
	__atomic_store_n(&before_destructors, fn, __ATOMIC_RELEASE);
}

void tp_lifecycle_program_running(void)
{
	static bool registered;
	void (*fn)(void *) = __atomic_load_n(&before_destructors, __ATOMIC_ACQUIRE);
	/* before the constructor set the handler, nothing is registered yet: a later call does */
	if (fn != NULL && !__atomic_load_n(&registered, __ATOMIC_RELAXED) &&
	    !__atomic_exchange_n(&registered, true, __ATOMIC_RELAXED))
		tp_at_exit_before_destructors(fn);
}
