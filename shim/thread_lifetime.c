// SPDX-License-Identifier: MIT
/*
 * The life of threads made with pthread_create: each starts in a trampoline that fires
 * thread-start before the program's start routine and thread-stop after it, however it ends:
 * by returning, through pthread_exit, or by cancellation (the last two unwind through a cleanup
 * handler). Threads still running when the process exits are stopped by the exiting thread,
 * after unparking them if they were parked, so start/stop and park/unpark stay paired.
 * With neither thread probe on, threads are created exactly as without the shim.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "events.h"
#include "real_symbol.h"
#include "lifecycle.h"
#include "thread_state.h"

typedef void *(*start_routine_fn)(void *);

static int (*real_create)(pthread_t *, const pthread_attr_t *, start_routine_fn, void *);

/* What the trampoline needs, handed from the creating thread to the new one. */
struct thread_start {
	start_routine_fn routine;
	void *arg;
	uint64_t creator_tid;
};

/* A traced thread that is running, on its trampoline's stack. */
struct running_thread {
	struct running_thread *prev, *next;
	struct tp_thread *self;
	bool stopped; /* thread-stop fired, by the thread or by the exiting one */
};

/* The running traced threads; the lock is taken only when a traced thread starts or stops. */
static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static struct running_thread running = {&running, &running, NULL, true};

static void stop_locked(struct running_thread *t)
{
	t->prev->next = t->next;
	t->next->prev = t->prev;
	t->stopped = true;
}

static void thread_stopped(void *arg)
{
	struct running_thread *t = arg;
	pthread_mutex_lock(&running_lock);
	bool already = t->stopped;
	if (!already)
		stop_locked(t);
	pthread_mutex_unlock(&running_lock);
	if (!already) {
		tp_thread_named_worker_end(t->self);
		tp_fire_thread_stop((uint64_t)tp_thread_tid(t->self));
	}
}

static void *trampoline(void *p)
{
	struct thread_start start = *(struct thread_start *)p;
	free(p);

	struct running_thread t = {.self = tp_thread_self()};
	pid_t tid = tp_thread_tid(t.self);
	pthread_mutex_lock(&running_lock);
	t.next = running.next;
	t.prev = &running;
	running.next->prev = &t;
	running.next = &t;
	pthread_mutex_unlock(&running_lock);

	tp_fire_thread_start((uint64_t)tid, (uintptr_t)start.routine, start.creator_tid);
	void *ret;
	pthread_cleanup_push(thread_stopped, &t);
	ret = start.routine(start.arg);
	pthread_cleanup_pop(1);
	return ret;
}

TP_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
			     start_routine_fn routine, void *arg)
{
	__typeof__(real_create) fn = TP_REAL(real_create, "pthread_create", NULL);
	if (__builtin_expect(fn == NULL, 0))
		return EAGAIN;
	if (__builtin_expect(!(tp_listeners_thread_start() | tp_listeners_thread_stop()), 1))
		return fn(thread, attr, routine, arg);

	int saved_errno = errno;
	struct thread_start *start = malloc(sizeof *start);
	errno = saved_errno;
	if (start == NULL) /* run the thread untraced rather than fail the program */
		return fn(thread, attr, routine, arg);
	*start = (struct thread_start){
		.routine = routine,
		.arg = arg,
		.creator_tid = (uint64_t)tp_thread_tid(tp_thread_self()),
	};
	int ret = fn(thread, attr, trampoline, start);
	if (ret != 0)
		free(start);
	return ret;
}

/*
 * At exit the threads still running die without running any more code of their own: the exiting
 * thread ends them in the trace, with their tids. This runs after every library's destructors,
 * so that threads a library ends in its own (OpenMP's workers) end by themselves first.
 */
void tp_threads_stop_at_exit(void)
{
	tp_thread_named_worker_end(tp_thread_self());
	pthread_mutex_lock(&running_lock);
	while (running.next != &running) {
		struct running_thread *t = running.next;
		stop_locked(t);
		__atomic_store_n(&t->self->stopped_by_exit, true, __ATOMIC_RELAXED);
		if (t->self->parked)
			tp_fire_worker_unpark();
		tp_fire_thread_stop((uint64_t)t->self->tid);
	}
	pthread_mutex_unlock(&running_lock);
}

/* Fork takes the lock so that the child never inherits it held by a thread it does not have. */
void tp_threads_prepare_fork(void)
{
	pthread_mutex_lock(&running_lock);
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
	for (struct running_thread *t = running.next; t != &running; t = t->next)
		t->stopped = true;
	running.next = running.prev = &running;
	pthread_mutex_init(&running_lock, NULL);
}
