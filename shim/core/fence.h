// SPDX-License-Identifier: MIT
/*
 * An asymmetric fence (membarrier(2), the kernel's): two threads each store, then load what the
 * other stored (Dekker's order), one often (the light side: a wait's firing), one once (the
 * heavy side: the exit). The light side orders its store and load with a compiler barrier
 * alone; the heavy side's membarrier makes every thread of the process run a full barrier, so
 * that either the light side's store is seen after it or the light side's load sees the heavy
 * side's store. A full fence at each firing cost a recorded wait's event 6 ns of its 28 (the
 * buffer's stores drained by it; side by side, 28.1 -> 22.0 ns without it).
 *
 * The kernel is asked once, at the shim's start, when an in-process consumer is on (a tracer's
 * probe costs hundreds of ns: a fence is nothing beside it): not in a process that started under
 * a system call filter (inherited: /proc/self/status says so), and the light side goes back to
 * full fences once the program installs one (tp_fence_before_seccomp), where the shim asks the
 * kernel nothing of its own. At the start, not at a wait's first firing: the file it reads
 * would be a descriptor another of the program's threads could see and close.
 */
#pragma once

#include <stdbool.h>

enum tp_fence_state {
	TP_FENCE_FULL,  /* full fences: not asked, no membarrier here, or not to be asked now */
	TP_FENCE_LIGHT, /* registered: the light side needs no fence */
};

extern int tp_fence_state __attribute__((visibility("hidden")));

/*
 * Whether the light side may order its store, then load, with a compiler barrier alone
 * (__atomic_signal_fence): else it takes a sequentially consistent store.
 */
static inline bool tp_fence_light(void)
{
	return __atomic_load_n(&tp_fence_state, __ATOMIC_ACQUIRE) == TP_FENCE_LIGHT;
}

/* From the lifecycle's start: the kernel asked if `wanted` (an in-process consumer is on). */
void tp_fence_start(bool wanted);

/*
 * The heavy side, between its store and its load: every light side's store before it is seen
 * after it. From then on the light side takes full fences (called at the process's exit).
 */
void tp_fence_heavy(void);

/* From the lifecycle: a system call filter comes (before process.h's). */
void tp_fence_before_seccomp(void);
