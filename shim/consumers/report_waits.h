// SPDX-License-Identifier: MIT
/*
 * The exit report's waits (TASKPROBE_REPORT): for each thread, the call sites it waited at most,
 * by total time waited, with their kind and count. Kept as the program runs in a fixed table per
 * thread (report_waits.c: no lock, no allocation, a bounded number of threads and sites), fed by
 * every interposed wait while the report is on; named and written at exit, with the report.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The report is on: waits are counted from now (from report.c's start). */
void tp_report_waits_start(void);

/* Names the sites waited at so far (slow: debug information), at exit, before the destructors. */
void tp_report_waits_name_sites(void);

/* Writes each thread's top wait sites to `out` (names them: at exit only); nothing if none. */
void tp_report_waits(FILE *out);

/* Whether any thread ended an interposed wait (a report of waits has something to say). */
bool tp_report_waits_any(void);

/* A forked child counts its own waits, from zero. */
void tp_report_waits_child_after_fork(void);
