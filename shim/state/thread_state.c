// SPDX-License-Identifier: MIT
/*
 * Per-thread state: kernel tid, worker status by name, reset in a forked child.
 *
 * A thread named as TASKPROBE_WORKERS says is a worker from the first wait it makes under that
 * name while a park or wait probe is on (worker-thread-start, on the thread) until it ends or is
 * renamed (worker-thread-stop, on the thread: at its next wait after the rename, when its start
 * routine ends, or when it calls exit). Threads still running when another ends the process fire
 * no worker-thread-stop: the probe has no argument to name another thread.
 */
#define _GNU_SOURCE
#include "thread_state.h"

#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <unistd.h>

#include "events.h"
#include "settings.h"
#include "thread_identity.h"

__thread struct tp_thread tp_self __attribute__((tls_model("initial-exec")));

/* Bumped by every rename; starts above the records' zero so the first check reads the name. */
uint32_t tp_names_generation = 1;

void tp_thread_names_changed(bool itself)
{
	__atomic_add_fetch(&tp_names_generation, 1, __ATOMIC_RELEASE);
	if (itself)
		TP_IN_PROCESS(tp_recorder_thread_renamed(), tp_live_thread_renamed(),
			      TP_NOT_REPORTED);
}

pthread_key_t tp_named_worker_end_key = TP_NO_KEY;

static void set_named_worker(struct tp_thread *self, bool worker)
{
	if (worker == self->named_worker)
		return;
	self->named_worker = worker;
	if (worker) {
		pthread_key_t key = __atomic_load_n(&tp_named_worker_end_key, __ATOMIC_RELAXED);
		if (key != TP_NO_KEY)
			pthread_setspecific(key, self);
		tp_fire_worker_start();
	} else {
		tp_fire_worker_stop();
	}
}

void tp_thread_named_worker_end(struct tp_thread *self)
{
	if (self->named_worker && tp_thread_live(self))
		set_named_worker(self, false);
}

static void named_worker_thread_ended(void *self)
{
	tp_thread_named_worker_end(self);
}

uint64_t tp_task_epoch;

void tp_thread_task_state_hold(void)
{
	tp_listeners_in_process_add(TP_TASK_STATE_HELD);
}

bool tp_task_state_drop(void)
{
	if (tp_tracers_task_state() != 0 || tp_listeners_in_process() != TP_TASK_STATE_HELD)
		return false;
	if (tp_listeners_in_process_remove(TP_TASK_STATE_HELD) & TP_TASK_STATE_HELD)
		__atomic_add_fetch(&tp_task_epoch, 1, __ATOMIC_RELEASE);
	return true;
}

bool tp_thread_park(struct tp_thread *self, const void *by)
{
	if (!tp_thread_park_unfired(self))
		return false;
	self->parked_by = by;
	tp_fire_worker_park(by != NULL);
	return true;
}

void tp_thread_unpark(struct tp_thread *self)
{
	if (!self->parked)
		return;
	bool by_wait = self->parked_by != NULL;
	self->parked = false;
	self->parked_by = NULL;
	if (tp_thread_live(self))
		tp_fire_worker_unpark(by_wait);
}

bool tp_thread_unpark_unfired(struct tp_thread *self)
{
	if (!self->parked || self->parked_by != NULL || !tp_thread_live(self)) {
		tp_thread_unpark(self);
		return false;
	}
	self->parked = false;
	return true;
}

bool tp_thread_recognize_named_worker(struct tp_thread *self)
{
	uint32_t gen = __atomic_load_n(&tp_names_generation, __ATOMIC_ACQUIRE);
	const char *glob = tp_settings()->workers;
	if (glob == NULL) {
		/* no thread is one by its name: said once per name (not by the defaults a call
		 * gets while another parses the settings) */
		if (tp_settings_ready())
			self->name_gen = gen;
		return false;
	}
	int saved_errno = errno;
	char name[16];
	tp_thread_read_name(name);
	set_named_worker(self, fnmatch(glob, name, 0) == 0);
	self->name_gen = gen;
	errno = saved_errno;
	return self->named_worker;
}

/*
 * The child of fork is one thread with a new id and no wait in progress; if it is a named
 * worker, it starts as one in the child (its own pid) at its next wait.
 */
void tp_thread_state_child_after_fork(void)
{
	tp_self.inherited_task = tp_thread_task(&tp_self);
	tp_self.parked = false;
	tp_self.parked_by = NULL;
	tp_self.named_worker = false;
	tp_self.name_gen = 0;
}

void tp_thread_state_start(void)
{
	pthread_key_t key;
	if (pthread_key_create(&key, named_worker_thread_ended) == 0)
		__atomic_store_n(&tp_named_worker_end_key, key, __ATOMIC_RELAXED);
}
