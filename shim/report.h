// SPDX-License-Identifier: MIT
/*
 * TASKPROBE_REPORT: at exit, the tasks spawned but never terminated, grouped by spawn stack,
 * symbolized, on stderr or in a file; or, when no executor reported anything, that none was seen
 * (and why, for a program on GCC's libgomp). Counting is per stack, with atomic adds, and only
 * while the report is on. When it is written at exit, so that it never changes how the program
 * ends: report.c.
 */
#pragma once

#include <stdint.h>

/* Nonzero when TASKPROBE_REPORT is set: adapters then keep task state with no tracer. */
extern uint16_t tp_report_on __attribute__((visibility("hidden")));

void tp_report_task_spawned(uint32_t stack_id);
void tp_report_task_terminated(uint32_t stack_id);

/*
 * An executor adapter's thread (a worker, or a thread running the executor's initial task)
 * starts and ends: at exit, executor threads still there mean that the executor did not shut
 * down in order, and may still be running.
 */
void tp_report_executor_thread_started(void);
void tp_report_executor_thread_stopped(void);
