// SPDX-License-Identifier: MIT
/*
 * The shim's one lifecycle (lifecycle.c): one constructor, one set of fork handlers and one exit
 * path, calling each module's hooks below in a stated order. Modules register nothing themselves.
 */
#pragma once

/*
 * Start-up, in this order, from the constructor: first the core's (process.h, real_symbol.h),
 * then these.
 */
void tp_thread_state_start(void); /* thread_state.c: the named-worker end key */
void tp_report_start(void);       /* report.c: TASKPROBE_REPORT's file checked, counting on */
void tp_recorder_start(void);     /* recorder.c: TASKPROBE_RECORD's file opened, recording */
void tp_live_start(void);         /* live.c: TASKPROBE_LIVE's file made, counting */

/*
 * Fork: prepare in this order, then parent or child in the reverse order (the core's child steps,
 * probe_sites.h, process.h and own_files.h, among them as lifecycle.c says).
 */
void tp_threads_prepare_fork(void); /* threads.c: the running-thread list locked */
void tp_threads_parent_after_fork(void);
void tp_threads_child_after_fork(void); /* the child's one thread was started in the parent */
void tp_spawn_sites_prepare_fork(void); /* spawn_site.c: no site half named */
void tp_spawn_sites_after_fork(void);
void tp_symbolize_prepare_fork(void); /* symbolize.c: no module half read (after the sites' lock) */
void tp_symbolize_after_fork(void);
void tp_thread_state_child_after_fork(void); /* thread_state.c: a new tid, no wait in progress */
void tp_recorder_prepare_fork(void);         /* recorder.c: the buffers' lists locked */
void tp_recorder_parent_after_fork(void);
void tp_recorder_child_after_fork(void); /* its own file (%p) or none; the parent's data dropped */
void tp_report_child_after_fork(void);   /* report.c: its own file (%p), or its parent's */
void tp_live_child_after_fork(void);     /* live.c: a file of its own, figures from zero */
void tp_executor_prepare_fork(void);     /* executor.c: the adapters' leaf locks held */
void tp_executor_after_fork(void);

/* Exec (exec.c): before it (if it fails, the process goes on as it was). */
void tp_lifecycle_before_exec(void);
void tp_recorder_before_exec(void); /* recorder.c: every buffer written, the file marked */
void tp_live_before_exec(void);     /* live.c: the file marked ended */
/* Exec (exec.c): after it failed, in the reverse order. */
void tp_lifecycle_exec_failed(void);
void tp_live_exec_failed(void); /* live.c: the file marked running again */

/*
 * A system call filter (seccomp) is about to be installed (prctl.c, futex.c): what must be written
 * is written now, and from then on the shim asks the kernel nothing on its own account that the
 * filter may refuse by killing the process (a filter allows what the program uses).
 */
void tp_lifecycle_before_seccomp(void);
void tp_recorder_before_seccomp(void); /* recorder.c: every buffer written, recording stopped */
void tp_live_before_seccomp(void);     /* live.c: no more space asked for, no removal at exit */

/* _exit and _Exit (process_exit.c): the process ends with no exit handler. */
void tp_lifecycle_before_quick_exit(void);
void tp_live_before_quick_exit(void); /* live.c: as at exit, for the process getpid() names */

/*
 * The program runs (a thread started, or an executor's first event: main has begun): from then
 * on the exit's work that takes time is done at its start, before the libraries' destructors
 * (exit_hook.h). Called by the modules that see it; cheap after the first call.
 */
void tp_lifecycle_program_running(void);
/* An executor's runtime starts (executor.h): consumers' one-time set-up (spawn stacks). */
void tp_lifecycle_executor_started(void);

/* At the start of exit, before the destructors, in this order. */
void tp_recorder_before_destructors(void); /* recorder.c: every thread's records written */
void tp_report_before_destructors(void);   /* report.c: written, or made ready for after them */

/* Exit through exit(), after every library's destructor: thread stops, then the report. */
void tp_threads_stop_at_exit(void); /* threads.c: threads still running end in the trace */
void tp_recorder_at_exit(void);     /* recorder.c: every thread's buffer written out */
void tp_report_at_exit(void);       /* report.c */
void tp_live_at_exit(void);         /* live.c: the file marked, and removed unless kept */
