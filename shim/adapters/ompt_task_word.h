// SPDX-License-Identifier: MIT
/*
 * The OpenMP adapter's word of a task (its ompt_data_t): the task's id, its spawn stack's id and
 * its flags (ompt.c says what each means). Shared by the adapter's files.
 */
#pragma once

#include <omp-tools.h>
#include <stdint.h>

#include "spawn_site.h"
#include "stack_table.h"

#define WAKE_PENDING (1ull << 63)
#define SYNC_WAITING (1ull << 62)
#define FIRST_PART   (1ull << 61)
#define STACK_SHIFT  40 /* bits 40 to 60: the task's spawn stack (stack_table.h) */
_Static_assert(TP_SPAWN_STACK_OF_EXECUTOR + TP_SITE_ADDRESSES_MAX < (1u << (61 - STACK_SHIFT)),
	       "a spawn stack fits");
#define SPAWNED (1ull << 39)  /* the task spawned a task since its last taskwait began */
#define ID_BITS (SPAWNED - 1) /* half a trillion task ids */

/*
 * A task's word is written by the thread that creates the task and read and changed by those
 * that run it; libomp orders those hand-offs with its own atomics. Relaxed atomic accesses
 * (plain moves on x86) say so to the compiler and to ThreadSanitizer, which cannot see
 * libomp's synchronization since libomp is not built with it.
 */
static inline uint64_t word(const ompt_data_t *data)
{
	return __atomic_load_n(&data->value, __ATOMIC_RELAXED);
}

static inline void set_word(ompt_data_t *data, uint64_t value)
{
	__atomic_store_n(&data->value, value, __ATOMIC_RELAXED);
}

static inline uint64_t id_of(const ompt_data_t *data)
{
	return data != NULL ? word(data) & ID_BITS : 0;
}

/* The spawn stack in a task's word `w`. */
static inline uint32_t stack_in(uint64_t w)
{
	return (uint32_t)((w & (FIRST_PART - 1)) >> STACK_SHIFT);
}

static inline uint32_t stack_of(const ompt_data_t *data)
{
	return data != NULL ? stack_in(word(data)) : 0;
}
