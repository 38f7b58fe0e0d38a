// SPDX-License-Identifier: MIT
/*
 * A spin lock for the shim's rare, short critical sections (a recording's write, moving a
 * descriptor of the shim's): no allocation and no futex of the program's, so it can be taken
 * from any interposed call. A waiter yields the CPU now and then: its holder may be a
 * lower-priority thread on the same CPU.
 */
#pragma once

#include <sched.h>
#include <stdbool.h>

/* One turn of a spin: the CPU told so (its sibling hyperthread runs on), where it can be. */
static inline void tp_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ volatile("" ::: "memory");
#endif
}

/* Spins before a waiter yields the CPU. */
#define TP_SPINS_BEFORE_YIELD 128

/* One turn of a wait for another thread (`*spins` counts them): the CPU yielded now and then. */
static inline void tp_spin_turn(unsigned *spins)
{
	if (++*spins % TP_SPINS_BEFORE_YIELD == 0)
		sched_yield();
	else
		tp_cpu_relax();
}

static inline void tp_spin_lock(int *l)
{
	for (unsigned spins = 0; __atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE) != 0;)
		while (__atomic_load_n(l, __ATOMIC_RELAXED) != 0)
			tp_spin_turn(&spins);
}

static inline bool tp_spin_try_lock(int *l)
{
	return __atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE) == 0;
}

static inline void tp_spin_unlock(int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}
