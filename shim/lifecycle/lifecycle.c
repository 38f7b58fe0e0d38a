// SPDX-License-Identifier: MIT
/*
 * The shim's lifecycle: its one constructor, its fork handlers and its exit path. Each module
 * offers steps (in its own header); the order they run in is stated here and only here: start-up
 * the core's first; fork's prepare steps in order and the parent's or child's after-fork steps in
 * the reverse order; exit's before the libraries' destructors, then after them.
 */
#include "lifecycle.h"

#include <pthread.h>
#include <stdbool.h>

#include "clock.h"
#include "code_map.h"
#include "destructors_ready.h"
#include "events.h"
#include "executor.h"
#include "exit_hook.h"
#include "fence.h"
#include "live.h"
#include "openmp_runtimes.h"
#include "own_files.h"
#include "probe_sites.h"
#include "process.h"
#include "real_symbol.h"
#include "recorder.h"
#include "report.h"
#include "settings.h"
#include "source_lines.h"
#include "spawn_site.h"
#include "spawn_stack.h"
#include "symbolize.h"
#include "text_out.h"
#include "thread_identity.h"
#include "thread_state.h"
#include "threads.h"

static void prepare_fork(void)
{
	tp_threads_prepare_fork();
	tp_spawn_sites_prepare_fork();
	tp_symbolize_prepare_fork();
	tp_recorder_prepare_fork();
	tp_executor_prepare_fork();
	tp_code_map_prepare_fork(); /* last: its holder takes no other lock of the shim's */
}

static void parent_after_fork(void)
{
	tp_code_map_after_fork();
	tp_executor_after_fork();
	tp_recorder_parent_after_fork();
	tp_symbolize_after_fork();
	tp_spawn_sites_after_fork();
	tp_threads_parent_after_fork();
}

/* The probe sites first: a child's probe may not fire through the parent's patched sites. */
static void child_after_fork(void)
{
	tp_probe_sites_child_after_fork();
	tp_code_map_after_fork();
	tp_executor_after_fork();
	tp_process_child_after_fork(); /* first: the child's pid names its files */
	tp_own_fds_child_after_fork();
	tp_thread_identity_child_after_fork();
	tp_thread_state_child_after_fork();
	tp_spawn_stack_child_after_fork(); /* before a consumer may capture one */
	tp_recorder_child_after_fork();    /* after the thread's new tid */
	tp_report_child_after_fork();
	tp_live_child_after_fork();
	tp_symbolize_after_fork();
	tp_spawn_sites_after_fork();
	tp_threads_child_after_fork();
	/* last: the consumers started afresh are told what the child's thread is and polls */
	struct tp_thread *self = tp_thread_self();
	tp_fire_in_process_inherited(self->adapter_worker, tp_thread_task(self));
}

/*
 * Whether the recorder has a file to end after the destructors: taken at the exit's start, where
 * time costs the program nothing; true until then (an exit before main ran).
 */
static bool recorder_file_at_exit = true;

/*
 * After every library's destructor, so that threads a library ends in its own (OpenMP's
 * workers) end by themselves first; then the recording, which holds those ends, is written out,
 * and the report, which counts what they ended. With nobody listening and no file to end, it
 * returns at once, touching no page the run has not: a runtime torn down under its running
 * threads (exit_hook.h) keeps the process alive only until exit ends, and the steps below, each
 * a few loads untraced, cost microseconds in first touches of their pages (they made an exit
 * from a plain thread during OpenMP's tasks crash some three times as often as with no shim).
 */
static void at_exit(void *unused)
{
	(void)unused;
	if ((!tp_listeners_anyone() &&
	     !__atomic_load_n(&recorder_file_at_exit, __ATOMIC_RELAXED)) ||
	    tp_process_strict())
		return;
	tp_threads_stop_at_exit();
	tp_recorder_at_exit();
	tp_report_at_exit();
	tp_live_at_exit();
}

void tp_lifecycle_before_exec(void)
{
	tp_recorder_before_exec();
	tp_live_before_exec();
	tp_report_unwritten();
}

void tp_lifecycle_exec_failed(void)
{
	tp_live_exec_failed();
}

/* What is written is written first; then no call of the shim's own (process.h). */
void tp_lifecycle_before_seccomp(void)
{
	tp_recorder_before_seccomp();
	tp_report_before_seccomp();
	tp_symbolize_before_seccomp();
	tp_code_map_before_seccomp();
	tp_fence_before_seccomp();
	tp_process_before_seccomp();
}

void tp_lifecycle_before_seccomp_strict(void)
{
	tp_lifecycle_before_seccomp();
	tp_live_before_seccomp_strict();
	tp_process_before_seccomp_strict();
}

static void before_destructors(void *unused)
{
	(void)unused;
	if (tp_process_strict()) /* no clock to read, nothing left to write */
		return;
	/* the exit's start, read once: the live figures' end and the recording's exit mark are
	 * the same moment, however long the thread is preempted between the two */
	uint64_t exit_began = tp_clock_now();
	tp_live_before_destructors(exit_began);
	tp_recorder_before_destructors(exit_began);
	tp_report_before_destructors();
	tp_symbolize_before_destructors(); /* after the last name before the destructors */
	__atomic_store_n(&recorder_file_at_exit, tp_recorder_has_file(), __ATOMIC_RELAXED);
	tp_destructors_ready(); /* last: what is left loaded runs its destructors at exit */
}

/* Only the recording: the probes' threads end as the process does, as they always have. */
void tp_lifecycle_before_quick_exit(void)
{
	if (tp_process_strict())
		return;
	tp_recorder_at_exit();
	tp_live_before_quick_exit();
	tp_report_unwritten();
}

__attribute__((constructor)) static void start(void)
{
	tp_process_start();  /* first: nothing later asks the kernel who this process is */
	tp_stderr_start();   /* before any warning: what the program's stderr is */
	(void)tp_settings(); /* bad values are said at start, whether or not a setting is used */
	/* resolved at load, so that a signal handler's first wait does not run dlsym */
	tp_real_functions_resolve();
	tp_lifecycle_when_program_runs(before_destructors);
	tp_thread_state_start();
	tp_threads_start();
	tp_spawn_stack_own_module((const void *)start); /* its frames are never the program's */
	/* a plug-in's code named after its dlclose (the exit report's sites) */
	tp_source_lines_find_unloaded(tp_code_module_held);
	const struct tp_settings *s = tp_settings();
	bool consumers = s->record != NULL || s->report != NULL || s->live != TP_LIVE_OFF;
	tp_clock_start(consumers);
	tp_fence_start(consumers);
	tp_openmp_runtimes_start(); /* a program whose tasks cannot be seen says so */
	tp_report_start();
	tp_recorder_start();
	tp_live_start();
	tp_at_exit_after_destructors(at_exit);
	pthread_atfork(prepare_fork, parent_after_fork, child_after_fork);
}
