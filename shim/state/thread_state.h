// SPDX-License-Identifier: MIT
/* The shim's record of each thread, in initial-exec TLS: no allocation, no lock. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fence.h"
#include "listeners.h"

struct tp_thread {
	uint64_t task;          /* the task this thread polls now, 0 when none: tp_thread_task() */
	uint64_t task_epoch;    /* tp_task_epoch when `task` was set */
	uint64_t next_task_id;  /* the thread's block of task ids: next to hand out ... */
	uint64_t task_id_limit; /* ... and one past the block */
	uint32_t name_gen;      /* tp_thread_names_changed() count when named_worker was decided */
	bool named_worker;      /* the thread's name matches TASKPROBE_WORKERS */
	bool adapter_worker;    /* an executor adapter reported this thread as a worker */
	bool parked;            /* worker-thread-park fired and its unpark has not yet */
	const void *parked_by;  /* the interposed wait (its struct tp_wait) that parked, or NULL */
	bool stopped_by_exit;   /* the exiting thread fired its thread-stop: it fires no more */
	uint32_t firing;        /* wait events being fired now (tp_thread_firing_begin), nested */
	/* the task whose poll ended waiting to acquire a mutual exclusion (sync mutex), polled
	 * again once it holds it; 0 none (an adapter's) */
	uint64_t acquiring_task;
	/* in a child of fork, the task its thread polled at the fork (0: none), which an executor
	 * may start again without telling it (a forked child's OpenMP initial task) */
	uint64_t inherited_task;
};

/* No key's number (above PTHREAD_KEYS_MAX): a key of the shim's not made, or not yet. */
#define TP_NO_KEY ((pthread_key_t)-1)

/*
 * The key whose destructor ends a named worker that ends without the shim's trampoline around
 * it: made at the shim's start (tp_thread_state_start), TP_NO_KEY until then or if it could not
 * be. One of the shim's two keys (threads.h, tp_threads_key_is_shims).
 */
extern pthread_key_t tp_named_worker_end_key;

extern __thread struct tp_thread tp_self __attribute__((tls_model("initial-exec")));

static inline struct tp_thread *tp_thread_self(void)
{
	return &tp_self;
}

/* Whether probes may still fire on this thread (not after the process's exit stopped it). */
static inline bool tp_thread_live(const struct tp_thread *self)
{
	return !__atomic_load_n(&self->stopped_by_exit, __ATOMIC_RELAXED);
}

/*
 * The thread begins firing a wait's events (its park, wait-start, wait-end, unpark) if the
 * process's exit has not stopped it: a store, then the check (Dekker's order, against
 * tp_threads_stop_at_exit's mark, then its look at `firing`: the light side of an asymmetric
 * fence, fence.h), so that the exiting thread either is seen to have stopped it, or sees it
 * firing and fires its thread-stop after those events. Else a wait-start could follow the
 * thread-stop that closes the thread's waits, and never end. The thread alone writes `firing`;
 * a signal handler's wait nests and ends before it returns.
 */
static inline void tp_thread_firing_end(struct tp_thread *self)
{
	__atomic_store_n(&self->firing, self->firing - 1, __ATOMIC_RELEASE);
}

static inline bool tp_thread_firing_begin(struct tp_thread *self)
{
	if (__builtin_expect(tp_fence_light(), 1)) {
		__atomic_store_n(&self->firing, self->firing + 1, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	} else {
		__atomic_store_n(&self->firing, self->firing + 1, __ATOMIC_SEQ_CST);
	}
	if (!__atomic_load_n(&self->stopped_by_exit, __ATOMIC_SEQ_CST))
		return true;
	tp_thread_firing_end(self);
	return false;
}

/*
 * Task state is dropped for all threads at once, by a new epoch, when tracing stops (executor.h,
 * tp_listeners_task_state_checked), rather than by every untraced callback clearing its thread's
 * task: a thread's task is its current one only if it was set in the current epoch.
 */
extern uint64_t tp_task_epoch __attribute__((visibility("hidden")));

/* The task the calling thread polls now, 0 when none. */
static inline uint64_t tp_thread_task(const struct tp_thread *self)
{
	return self->task_epoch == __atomic_load_n(&tp_task_epoch, __ATOMIC_RELAXED) ? self->task
										     : 0;
}

/* tp_thread_set_task's first task since the held mark was dropped: the mark raised. */
void tp_thread_task_state_hold(void);

/* The calling thread polls `task` from now (0: none). In line: every task event sets it. */
static inline void tp_thread_set_task(struct tp_thread *self, uint64_t task)
{
	self->task = task;
	/* acquire: with the epoch a drop made, its clearing of the held mark is seen too */
	self->task_epoch = __atomic_load_n(&tp_task_epoch, __ATOMIC_ACQUIRE);
	if (task != 0 && __builtin_expect(!(tp_listeners_in_process() & TP_TASK_STATE_HELD), 0))
		tp_thread_task_state_hold();
}

/*
 * If nothing listens but the held mark (tp_listeners_task_state() shows TP_TASK_STATE_HELD alone,
 * which a semaphore's count of 2 gives too: a probe with two sites, or two tracers), tracing
 * stopped: every thread's task is dropped (a new epoch), and true is returned. Else false:
 * listening.
 */
bool tp_task_state_drop(void);

/* Bumped by every rename (tp_thread_names_changed): a thread's name is read again after it. */
extern uint32_t tp_names_generation __attribute__((visibility("hidden")));

/* tp_thread_recognize_worker's path when the thread's name was not yet read since its rename. */
bool tp_thread_recognize_named_worker(struct tp_thread *self);

/*
 * Whether the calling thread is a worker: an adapter says so, or its name matches
 * TASKPROBE_WORKERS. A thread that is one by its name becomes one here (worker-thread-start) or
 * stops being one (worker-thread-stop), as its name is read again after a rename: call it where
 * a worker would park, while a park or worker probe is on. Once its name is read (or there is no
 * TASKPROBE_WORKERS), two loads and a compare, inline: it comes at every wait while recording.
 */
static inline bool tp_thread_recognize_worker(struct tp_thread *self)
{
	if (self->adapter_worker)
		return true;
	if (__builtin_expect(
		    self->name_gen == __atomic_load_n(&tp_names_generation, __ATOMIC_ACQUIRE), 1))
		return self->named_worker;
	return tp_thread_recognize_named_worker(self);
}

/*
 * Park state, owned here: a worker parks when it is about to block waiting for work and unparks
 * when it returns; parks do not nest. `by` is what parked it: an interposed wait (its struct
 * tp_wait, so that only that wait, or a jump out of it, unparks) or NULL for an executor's own
 * idle report. tp_thread_park returns whether it parked (not if parked already, or stopped by
 * the process's exit).
 */
bool tp_thread_park(struct tp_thread *self, const void *by);

/*
 * The calling thread, not parked and live (its caller knows), is parked by its executor from now
 * (tp_thread_park_unfired's step, which checks first).
 */
static inline void tp_thread_parked_by_executor(struct tp_thread *self)
{
	self->parked = true;
	self->parked_by = NULL;
}

/*
 * tp_thread_park of an executor's own park (by NULL), whose worker-thread-park the caller fires
 * itself, with the event it follows at once (tp_fire_task_end_park): returns whether it parked.
 * Else (parked already, stopped by the process's exit) it does nothing, as tp_thread_park.
 */
static inline bool tp_thread_park_unfired(struct tp_thread *self)
{
	if (self->parked || !tp_thread_live(self))
		return false;
	tp_thread_parked_by_executor(self);
	return true;
}
void tp_thread_unpark(struct tp_thread *self);

/*
 * tp_thread_unpark of an executor's own park, whose worker-thread-unpark the caller fires
 * itself, with the event that follows at once (tp_fire_unpark_poll_start): returns whether it
 * unparked one. Else (not parked, parked by a wait, stopped by the process's exit) it does what
 * tp_thread_unpark does, and returns false.
 */
bool tp_thread_unpark_unfired(struct tp_thread *self);

/*
 * A thread that is a worker by its name stops being one (worker-thread-stop) as it ends: called
 * on the thread, before its thread-stop.
 */
void tp_thread_named_worker_end(struct tp_thread *self);

/*
 * Called after any thread was renamed (`itself`: the calling thread): names are read again at
 * the next worker check, and the in-process consumers read the caller's new name at once.
 */
void tp_thread_names_changed(bool itself);

/* The lifecycle's steps for this module (lifecycle.c calls them, in the order it states). */
void tp_thread_state_start(void);            /* the named-worker end key */
void tp_thread_state_child_after_fork(void); /* no wait in progress */
