// SPDX-License-Identifier: MIT
/*
 * The shim's spawn-stack capture, exported from a library of the core's own (the core's symbols
 * are hidden), for contrib/bench/stack_capture.c.
 */
#include <stdint.h>

#include "spawn_stack.h"

__attribute__((visibility("default"))) const uintptr_t *
tp_bench_stack_capture(uintptr_t buffer[TP_SPAWN_STACK_BUFFER], uint32_t *depth, uint32_t *id)
{
	return tp_spawn_stack_capture(buffer, depth, id);
}
