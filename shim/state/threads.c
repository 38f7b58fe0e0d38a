// SPDX-License-Identifier: MIT
/* The registry of running traced threads (threads.h). */
#define _GNU_SOURCE
#include "threads.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>

#include "clock.h"
#include "events.h"
#include "fence.h"
#include "lifecycle_moments.h"
#include "real_symbol.h"
#include "spawn_site.h"
#include "spin_lock.h"
#include "thread_identity.h"

/* The running traced threads; the lock is taken only when a traced thread starts or stops. */
static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tp_running_thread running = {&running, &running, NULL, 0, true};

static void stop_locked(struct tp_running_thread *t)
{
	t->prev->next = t->next;
	t->next->prev = t->prev;
	t->stopped = true;
}

/*
 * The name of start routine `routine` for a tracer of thread-start (NULL when none listens, or
 * when the routine lies outside every module and has none):
 * from the symbols alone, named once per routine by the first thread that runs it, before the
 * routine (never inside a task's poll), with cancellation held off (naming opens files,
 * cancellation points: a cancelled thread would leave the naming lock held).
 */
static const char *start_routine_name(uintptr_t routine)
{
	if (__builtin_expect(!tp_tracers_thread_start(), 1))
		return NULL;
	int saved_errno = errno, cancel_state;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	const char *name = tp_spawn_site_function_symbol(
		tp_spawn_site_key_of_function((const void *)routine));
	pthread_setcancelstate(cancel_state, NULL);
	errno = saved_errno;
	return name != NULL && name[0] != '\0' ? name : NULL;
}

void tp_threads_started(struct tp_running_thread *t, uintptr_t routine, uint64_t creator_tid)
{
	t->self = tp_thread_self();
	t->tid = tp_thread_tid();
	tp_real_pthread_mutex_lock(&running_lock);
	t->next = running.next;
	t->prev = &running;
	running.next->prev = t;
	running.next = t;
	pthread_mutex_unlock(&running_lock);
	tp_lifecycle_program_running();
	tp_fire_thread_start((uint64_t)t->tid, routine, creator_tid, start_routine_name(routine));
}

void tp_threads_stopped(struct tp_running_thread *t)
{
	tp_real_pthread_mutex_lock(&running_lock);
	bool already = t->stopped;
	if (!already)
		stop_locked(t);
	pthread_mutex_unlock(&running_lock);
	if (!already) {
		tp_thread_named_worker_end(t->self);
		tp_fire_thread_stop((uint64_t)t->tid, true);
	}
}

/*
 * Made at the shim's start, a slot the program never had; a stale pthread_key_delete of the
 * program's (interposers/thread_keys.c) leaves it alone.
 */
pthread_key_t tp_thread_stop_key = TP_NO_KEY;
static __thread unsigned destructor_rounds __attribute__((tls_model("initial-exec")));

/*
 * A thread's stop, as a destructor of its thread-specific data: glibc runs every key's
 * destructor in rounds while any value is set, PTHREAD_DESTRUCTOR_ITERATIONS at most. This one
 * sets its value again for two rounds: every destructor that does not (libomp's, which ends a
 * root thread's initial task) ran in the first, in any order of keys; and the sanitizers' own
 * thread teardown, kept for the last round, is still to come (TSan's interceptors, reached by
 * the stop's unlock, crashed on a thread torn down).
 */
static void stop_after_destructors(void *running)
{
	pthread_key_t key = __atomic_load_n(&tp_thread_stop_key, __ATOMIC_RELAXED);
	if (++destructor_rounds < PTHREAD_DESTRUCTOR_ITERATIONS - 1 &&
	    pthread_setspecific(key, running) == 0)
		return;
	tp_threads_stopped(running);
}

void tp_threads_start(void)
{
	pthread_key_t key;
	if (pthread_key_create(&key, stop_after_destructors) != 0)
		return;
	/* a library's constructor before the shim's may have started a thread already */
	__atomic_store_n(&tp_thread_stop_key, key, __ATOMIC_RELEASE);
}

void tp_threads_stop_after_destructors(struct tp_running_thread *t)
{
	pthread_key_t key = __atomic_load_n(&tp_thread_stop_key, __ATOMIC_ACQUIRE);
	if (key == TP_NO_KEY || pthread_setspecific(key, t) != 0)
		tp_threads_stopped(t);
}

/*
 * Waits until `self`'s thread, stopped by the exit (marked: tp_thread_firing_begin), has fired the
 * wait events it began before the mark: those come before its thread-stop. Rarely waits at all
 * (from a wait's park to its wait-start is a few microseconds), unless that thread lost its CPU
 * in between: more threads than CPUs, it may wait a time slice or two, yielding its own CPU.
 * FIRING_WAIT_NS at most: a thread that never gets one back has its thread-stop first.
 */
static void after_its_firing(struct tp_thread *self)
{
	enum { FIRING_WAIT_NS = 20000000 };
	uint64_t since = 0;
	for (unsigned spins = 1; __atomic_load_n(&self->firing, __ATOMIC_SEQ_CST) != 0; spins++) {
		if (spins % TP_SPINS_BEFORE_YIELD != 0) {
			tp_cpu_relax();
			continue;
		}
		uint64_t ns = tp_clock_monotonic_ns();
		if (since == 0)
			since = ns;
		else if (ns - since >= FIRING_WAIT_NS)
			return;
		sched_yield();
	}
}

/*
 * At exit the threads still running die without running any more code of their own: the exiting
 * thread ends them in the trace, with their tids. This runs after every library's destructors,
 * so that threads a library ends in its own (OpenMP's workers) end by themselves first.
 */
void tp_threads_stop_at_exit(void)
{
	tp_thread_named_worker_end(tp_thread_self());
	tp_real_pthread_mutex_lock(&running_lock);
	/*
	 * A worker parked now ends its park with this thread-stop (PROBES.md): nothing fires for it
	 * on its own thread from now on, an unpark no more than a wait-end, and its park state stays
	 * its own (it may be running still). All are marked, then one fence's heavy side for all
	 * (tp_thread_firing_begin's light side), then each one's firings awaited.
	 */
	for (struct tp_running_thread *t = running.next; t != &running; t = t->next)
		__atomic_store_n(&t->self->stopped_by_exit, true, __ATOMIC_SEQ_CST);
	tp_fence_heavy();
	while (running.next != &running) {
		struct tp_running_thread *t = running.next;
		stop_locked(t);
		if (t->self != tp_thread_self()) /* an exit from a handler on top of its own */
			after_its_firing(t->self);
		tp_fire_thread_stop((uint64_t)t->tid, false);
	}
	pthread_mutex_unlock(&running_lock);
}

/* Fork takes the lock so that the child never inherits it held by a thread it does not have. */
void tp_threads_prepare_fork(void)
{
	tp_real_pthread_mutex_lock(&running_lock);
}

void tp_threads_parent_after_fork(void)
{
	pthread_mutex_unlock(&running_lock);
}

/*
 * The child is a new process: its one thread was started in the parent, so the child reports
 * neither its stop nor any other thread's.
 */
void tp_threads_child_after_fork(void)
{
	for (struct tp_running_thread *t = running.next; t != &running; t = t->next)
		t->stopped = true;
	running.next = running.prev = &running;
	pthread_mutex_init(&running_lock, NULL);
}
