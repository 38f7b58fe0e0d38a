/* Per-thread state: kernel tid, worker status by name, reset in a forked child. */
#define _GNU_SOURCE
#include "thread_state.h"

#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <unistd.h>

#include "settings.h"

__thread struct tp_thread tp_self __attribute__((tls_model("initial-exec")));

/* Bumped by every rename; starts above the records' zero so the first check reads the name. */
static uint32_t names_generation = 1;

pid_t tp_thread_tid(struct tp_thread *self)
{
	if (__builtin_expect(self->tid == 0, 0))
		self->tid = gettid();
	return self->tid;
}

void tp_thread_names_changed(void)
{
	__atomic_add_fetch(&names_generation, 1, __ATOMIC_RELEASE);
}

bool tp_thread_is_worker(struct tp_thread *self)
{
	if (self->adapter_worker)
		return true;
	const char *glob = tp_settings()->workers;
	if (glob == NULL)
		return false;
	uint32_t gen = __atomic_load_n(&names_generation, __ATOMIC_ACQUIRE);
	if (self->name_gen != gen) {
		int saved_errno = errno;
		char name[16];
		tp_thread_read_name(name);
		self->named_worker = fnmatch(glob, name, 0) == 0;
		self->name_gen = gen;
		errno = saved_errno;
	}
	return self->named_worker;
}

/* The child of fork is one thread with a new id and no wait in progress. */
static void reset_in_child(void)
{
	tp_self.tid = 0;
	tp_self.parked = false;
	tp_self.parked_by = NULL;
}

__attribute__((constructor)) static void register_fork_handler(void)
{
	pthread_atfork(NULL, NULL, reset_in_child);
}
