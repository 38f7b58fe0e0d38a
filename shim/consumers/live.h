// SPDX-License-Identifier: MIT
/*
 * Live statistics (TASKPROBE_LIVE): per spawn site and per thread, kept in a file in shared
 * memory that `taskprobe top` maps read-only (dtrace/taskprobe_live.h has its layout). The event
 * layer (events.h) hands it every event while it is on, as it does the recorder.
 *
 * Per event: the clock, a few stores into the calling thread's own slot and row, and for task
 * events a look-up in a table of the tasks alive (a bounded window of slots, no lock). No
 * allocation, no system call; a thread takes a slot at its first event (one fallocate).
 *
 * They also keep the task graph's work and span (work_span.h), per task alive and per thread,
 * for taskprobe top and the exit report: with TASKPROBE_REPORT and no TASKPROBE_LIVE, the
 * statistics are kept in the process's memory alone, for the report.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "taskprobe_live.h"

/*
 * The statistics (taskprobe_live.h's layout from here on), or NULL when they are not kept: the
 * exit report reads the work and span in them.
 */
const struct tp_live_header *tp_live_header(void);
/* The process in the exit report's words: "pid 123", an MPI rank's "pid 123, MPI rank 1 of 8"
 * (its rank in MPI_COMM_WORLD, once its MPI_Init ended: a job's reports side by side). */
const char *tp_live_process_words(char *buf, size_t size);
/*
 * Now in the statistics' clock (taskprobe_live.h): a reader's "now" for the figures; once the
 * process's exit began (tp_live_before_destructors), that moment: the polls still open end
 * there, for the exit report, the console and the recording's analysis alike.
 */
uint64_t tp_live_now(void);
/*
 * The calling thread's longest path to `now` through the fragment it polls now, its sites
 * whole (a reader of other threads' slots gets an open fragment's lengths only): the exit
 * report's, whose thread may exit inside a poll. False when it polls no task of the graph.
 */
bool tp_live_current_path(uint64_t now, struct tp_live_path *out);

/* The lifecycle's steps for this module (lifecycle.c calls them, in the order it states). */
void tp_live_start(void);            /* TASKPROBE_LIVE's file made, counting */
void tp_live_child_after_fork(void); /* a file of its own, figures from zero */
void tp_live_before_exec(void);      /* the file marked ended */
/* a thread takes seccomp's strict mode: the file marked ended, the statistics stop (its
 * time-stamp counter is gone); the file is left for the next program's sweep */
void tp_live_before_seccomp_strict(void);
void tp_live_exec_failed(void);       /* the file marked running again */
void tp_live_before_quick_exit(void); /* as at exit */
/* the exit begins at `clock_time` (tp_clock_now's): the figures' end */
void tp_live_before_destructors(uint64_t clock_time);
void tp_live_at_exit(void); /* the file marked, and removed unless kept (never by a child's exit) */

/* The exit report was written, before the destructors: statistics kept for it alone stop. */
void tp_live_after_report(void);
