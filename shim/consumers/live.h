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
#include <stdint.h>

#include "taskprobe_live.h"

/* Whether the live statistics are on: tp_live(), in events.h. */

void tp_live_task_spawn(uint64_t task, uint64_t parent, uint32_t site, bool by_program,
			bool undeferred);
/* Whether the calling thread's next spawn at `site` should capture its stack (sampled). */
int tp_live_wants_stack(uint32_t site);
void tp_live_task_stack(uint64_t stack_id, const uintptr_t *pcs, uint32_t depth);
void tp_live_task_wake(uint64_t task);
void tp_live_task_poll_start(uint64_t task);
void tp_live_task_poll_end(uint64_t task, uint32_t done, uint32_t sync);
void tp_live_task_dependence(uint64_t predecessor, uint64_t successor);
void tp_live_task_terminate(uint64_t task);
void tp_live_worker(int started);
void tp_live_park(int parked);
void tp_live_thread_start(uintptr_t start_routine);
void tp_live_thread_renamed(void);
void tp_live_thread_stop(uint64_t tid);
void tp_live_wait_start(uint32_t kind, uint64_t task, uint32_t site);
void tp_live_wait_end(uint64_t task);

/*
 * The statistics (taskprobe_live.h's layout from here on), or NULL when they are not kept: the
 * exit report reads the work and span in them.
 */
const struct tp_live_header *tp_live_header(void);

/* The lifecycle's steps for this module (lifecycle.c calls them, in the order it states). */
void tp_live_start(void);             /* TASKPROBE_LIVE's file made, counting */
void tp_live_child_after_fork(void);  /* a file of its own, figures from zero */
void tp_live_before_exec(void);       /* the file marked ended */
void tp_live_exec_failed(void);       /* the file marked running again */
void tp_live_before_seccomp(void);    /* no more space asked for, no removal at exit */
void tp_live_before_quick_exit(void); /* as at exit, for the process getpid() names */
void tp_live_at_exit(void);           /* the file marked, and removed unless kept */
