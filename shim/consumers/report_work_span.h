// SPDX-License-Identifier: MIT
/*
 * The exit report's work, span, parallelism and speedup of the program's task graph, with each
 * site's share of the span (docs/analysis.md), from the live statistics
 * (live.h), which the report turns on in the process's memory when TASKPROBE_LIVE is not set.
 */
#pragma once

#include <stdio.h>

/* Writes the figures to `out`; nothing when the statistics are off. */
void tp_report_work_span(FILE *out);
