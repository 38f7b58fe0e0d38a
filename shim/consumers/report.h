// SPDX-License-Identifier: MIT
/*
 * TASKPROBE_REPORT: at exit, the tasks spawned but never terminated, grouped by spawn site and
 * stack, symbolized, on stderr or in a file; or, when no executor reported anything, that none was seen
 * (and why, for a program on GCC's libgomp). Counting is per stack, with atomic adds, and only
 * while the report is on. When it is written at exit, so that it never changes how the program
 * ends: report.c.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "stack_table.h"

/*
 * A task spawned and terminated, by its report key: its spawn stack id (0 for a task the program
 * spawned with no stack captured), or TP_REPORT_STARTED_BY_EXECUTOR for a task the executor
 * started itself. The report groups stacks under their sites.
 */
#define TP_REPORT_STARTED_BY_EXECUTOR (2 * TP_STACKS_MAX + 1) /* past every stack id */

/* The report key of a task the program spawned (`by_program`) with spawn stack `stack_id`. */
static inline uint32_t tp_report_key(bool by_program, uint64_t stack_id)
{
	return by_program ? (uint32_t)stack_id : TP_REPORT_STARTED_BY_EXECUTOR;
}
void tp_report_task_spawned(uint32_t key);
void tp_report_task_terminated(uint32_t key);

/*
 * An executor adapter's thread (a worker, or a thread running the executor's initial task)
 * starts and ends: at exit, executor threads still there mean that the executor did not shut
 * down in order, and may still be running.
 */
void tp_report_executor_thread_started(void);
void tp_report_executor_thread_stopped(void);

/* The lifecycle's steps for this module (lifecycle.c calls them, in the order it states). */
void tp_report_start(void);              /* TASKPROBE_REPORT's file checked, counting on */
void tp_report_child_after_fork(void);   /* its own file (%p), or its parent's */
void tp_report_before_destructors(void); /* written, or made ready for after them */
void tp_report_at_exit(void);
