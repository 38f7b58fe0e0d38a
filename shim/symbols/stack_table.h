// SPDX-License-Identifier: MIT
/*
 * Spawn stacks, deduplicated: equal stacks get one nonzero id. Lookups and inserts take no lock
 * (slots are claimed with compare-and-swap), so spawning threads never wait on each other.
 * Memory is bounded: at most TP_STACKS_MAX distinct stacks and TP_STACK_FRAMES_MAX frames
 * (8 bytes each) in all, reserved at first use and touched only as stacks arrive. A stack that
 * does not fit gets id 0, and each such capture is counted in tp_stack_table_dropped().
 */
#pragma once

#include <stdint.h>

#define TP_STACKS_MAX       16384
#define TP_STACK_FRAMES_MAX (1u << 19) /* 4 MiB of frames */

/* The id of the stack `pcs[0..depth)`, 1 to 2 * TP_STACKS_MAX, or 0 when it does not fit. */
uint32_t tp_stack_table_intern(const uintptr_t *pcs, uint32_t depth);

/* The frames of stack `id` (valid for the life of the process) and their number. */
const uintptr_t *tp_stack_table_frames(uint32_t id, uint32_t *depth);

/* How many captures got id 0 because the table was full. */
uint64_t tp_stack_table_dropped(void);
