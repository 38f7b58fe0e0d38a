// SPDX-License-Identifier: MIT
/*
 * TASKPROBE_REPORT: at exit, the tasks spawned but never terminated, grouped by spawn site and
 * stack, symbolized, on stderr or in a file; or, when no executor reported anything, that none was
 * seen (and why, for a program on GCC's libgomp). Counting is per stack, with atomic adds, and only
 * while the report is on. When it is written at exit, so that it never changes how the program
 * ends: report.c.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "stack_table.h"

/* The lifecycle's steps for this module (lifecycle.c calls them, in the order it states). */
void tp_report_start(void);              /* TASKPROBE_REPORT's file checked, counting on */
void tp_report_child_after_fork(void);   /* its own file (%p), or its parent's */
void tp_report_before_destructors(void); /* written, or made ready for after them */
void tp_report_at_exit(void);
void tp_report_unwritten(void);      /* an exec or _exit: its own empty file removed */
void tp_report_before_seccomp(void); /* a filter comes: no report, said */
