// SPDX-License-Identifier: MIT
/*
 * The registry of running traced threads: each fires thread-start as it begins and thread-stop
 * as it ends, however it ends; threads still running when the process exits are stopped by the
 * exiting thread, after unparking them if they were parked, so that start/stop and park/unpark
 * stay paired. The interposer that starts threads (thread_create.c) reports to it.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "thread_state.h"

/* A traced thread that is running: lives on the thread's own stack, from start to stop. */
struct tp_running_thread {
	struct tp_running_thread *prev, *next;
	struct tp_thread *self;
	pid_t tid;    /* its kernel id */
	bool stopped; /* thread-stop fired, by the thread or by the exiting one */
};

/*
 * The calling thread starts running `routine`, created by thread `creator_tid`: registered in
 * `t`, and thread-start fires.
 */
void tp_threads_started(struct tp_running_thread *t, uintptr_t routine, uint64_t creator_tid);

/* The thread of `t` ends (on itself): thread-stop fires unless the process's exit fired it. */
void tp_threads_stopped(struct tp_running_thread *t);

/*
 * The thread of `t` (a record that lives as long as the thread: its TLS) ended its start
 * routine: tp_threads_stopped once its thread-specific data's destructors ran (libomp ends a
 * root thread's initial task there), or now if that cannot be arranged.
 */
void tp_threads_stop_after_destructors(struct tp_running_thread *t);

/* Makes the key whose destructor stops threads: at the shim's start. */
void tp_threads_start(void);

/* That key: TP_NO_KEY until made, or if it could not be. */
extern pthread_key_t tp_thread_stop_key;

/*
 * Whether `key` is one of the shim's two thread-specific data keys (the stop's, the named
 * workers' end's: thread_state.h). The program never made that number, so its delete of it is a
 * stale one (interposers/thread_keys.c).
 */
static inline bool tp_threads_key_is_shims(pthread_key_t key)
{
	return key == __atomic_load_n(&tp_thread_stop_key, __ATOMIC_RELAXED) ||
	       key == __atomic_load_n(&tp_named_worker_end_key, __ATOMIC_RELAXED);
}

/* The lifecycle's steps for this module (lifecycle.c calls them, in the order it states). */
void tp_threads_prepare_fork(void); /* the running-thread list locked */
void tp_threads_parent_after_fork(void);
void tp_threads_child_after_fork(void); /* the child's one thread was started in the parent */
void tp_threads_stop_at_exit(void);     /* threads still running end in the trace */
