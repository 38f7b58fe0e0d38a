// SPDX-License-Identifier: MIT
/*
 * Spawn stacks, deduplicated: equal stacks get one nonzero id. Lookups and inserts take no lock
 * (slots are claimed with compare-and-swap), so spawning threads never wait on each other.
 * Memory is bounded: at most TP_STACKS_MAX distinct stacks and TP_STACK_FRAMES_MAX frames
 * (8 bytes each) in all, reserved at first use and touched only as stacks arrive. A stack that
 * does not fit gets id 0, and each such capture is counted in tp_stack_table_dropped().
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define TP_STACKS_MAX       16384
#define TP_STACK_FRAMES_MAX (1u << 19) /* 4 MiB of frames */

/* The id of the stack `pcs[0..depth)`, 1 to 2 * TP_STACKS_MAX, or 0 when it does not fit. */
uint32_t tp_stack_table_intern(const uintptr_t *pcs, uint32_t depth);

/*
 * A task's spawn stack, as the executor interface hands it to its adapter and back (executor.h):
 * its stack's id; TP_SPAWN_STACK_OF_EXECUTOR for a task its executor started itself, for which
 * the program made no call; past it, for a task the program spawned whose stack was not captured
 * (stacks are sampled: events.h's tp_consumers_want_spawn_stack), its spawn site's key
 * (spawn_site.h) added to it; 0 when neither is known (no key, or the stack table full).
 */
#define TP_SPAWN_STACK_OF_EXECUTOR (2 * TP_STACKS_MAX + 1) /* past every stack id */

/*
 * The spawn stack of a task the program spawned (`by_program`) with stack `stack_id` (0: none
 * captured) at the site of key `site_key` (0: none).
 */
static inline uint32_t tp_spawn_stack_of(bool by_program, uint64_t stack_id, uint32_t site_key)
{
	if (!by_program)
		return TP_SPAWN_STACK_OF_EXECUTOR;
	return stack_id != 0 || site_key == 0 ? (uint32_t)stack_id
					      : TP_SPAWN_STACK_OF_EXECUTOR + site_key;
}

/* The frames of stack `id` (valid for the life of the process) and their number. */
const uintptr_t *tp_stack_table_frames(uint32_t id, uint32_t *depth);

/*
 * Stack `id` was captured at a spawn at the site of key `site_key` (every capture of it was: a
 * stack's first frame is its spawn's call, which has one key), for tp_spawn_stack_site_key.
 */
void tp_stack_table_site_is(uint32_t id, uint32_t site_key);

/*
 * The site key of a task's spawn stack (tp_spawn_stack_of's): the key added to it, or the one
 * its captured stack's spawn said; 0 for a task its executor started, or none known.
 */
uint32_t tp_spawn_stack_site_key(uint32_t stack);

/* How many captures got id 0 because the table was full. */
uint64_t tp_stack_table_dropped(void);
