// SPDX-License-Identifier: MIT
/*
 * TASKPROBE_REPORT: at exit, the tasks spawned but never terminated, grouped by spawn stack,
 * symbolized, on stderr or in a file. Counting is per stack, with atomic adds, and only while
 * the report is on.
 */
#pragma once

#include <stdint.h>

/* Nonzero when TASKPROBE_REPORT is set: adapters then keep task state with no tracer. */
extern uint16_t tp_report_on __attribute__((visibility("hidden")));

void tp_report_task_spawned(uint32_t stack_id);
void tp_report_task_terminated(uint32_t stack_id);
