// SPDX-License-Identifier: MIT
/*
 * The out-of-line parts of the executor interface: task ids, handed to threads in blocks so that
 * creating a task touches no shared counter, and spawns with their stacks.
 */
#include "executor.h"

#include <stddef.h>

#include "events.h"
#include "settings.h"
#include "spawn_site.h"
#include "spawn_stack.h"
#include "spin_lock.h"
#include "stack_table.h"

#define TASK_IDS_PER_BLOCK 1024

static uint64_t ids_handed_out;

void tp_task_id_block(struct tp_thread *self)
{
	uint64_t end = __atomic_add_fetch(&ids_handed_out, TASK_IDS_PER_BLOCK, __ATOMIC_RELAXED);
	self->next_task_id = end - TASK_IDS_PER_BLOCK + 1; /* ids start at 1 */
	self->task_id_limit = end + 1;
}

bool tp_listeners_task_state_unless_dropped(void)
{
	/* nobody listens any more, when only the held mark is left: the state held is dropped */
	return !tp_task_state_drop();
}

static int *fork_locks[TP_EXECUTOR_FORK_LOCKS_MAX];
static unsigned n_fork_locks;

void tp_executor_lock_across_fork(int *lock)
{
	unsigned n = __atomic_load_n(&n_fork_locks, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < n; i++)
		if (fork_locks[i] == lock)
			return;
	if (n == TP_EXECUTOR_FORK_LOCKS_MAX)
		return;
	fork_locks[n] = lock;
	__atomic_store_n(&n_fork_locks, n + 1, __ATOMIC_RELEASE);
}

/* The locks prepare took: a lock handed over during the fork was not, and is not released. */
static unsigned n_held_across_fork;

void tp_executor_prepare_fork(void)
{
	n_held_across_fork = __atomic_load_n(&n_fork_locks, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < n_held_across_fork; i++)
		tp_spin_lock(fork_locks[i]);
}

void tp_executor_after_fork(void)
{
	for (unsigned i = n_held_across_fork; i-- > 0;)
		tp_spin_unlock(fork_locks[i]);
}

/*
 * What the consumers that take spawn stacks need is set up now, before the executor's first task,
 * not inside the first task that spawns (libunwind's loading and first unwind take most of a
 * millisecond). A program with no executor never loads it.
 */
void tp_executor_started(void)
{
	const struct tp_settings *s = tp_settings();
	if (s->live != TP_LIVE_OFF || s->record_stacks || s->report != NULL)
		tp_spawn_stack_prepare();
}

uint32_t tp_site_named_outside_poll(uint32_t key)
{
	if (key == 0 || tp_spawn_site_is_named(key))
		return tp_spawn_site_if_named(key);
	uint64_t task = tp_thread_task(tp_thread_self());
	if (task != 0)
		tp_task_poll_end(task, false, TP_SYNC_NONE);
	uint32_t site = tp_spawn_site_of_key(key);
	if (task != 0)
		tp_task_poll_start(task);
	return site;
}

void tp_task_poll_end_in_sync_traced(uint64_t task, enum tp_sync_kind sync,
				     const void *site_address)
{
	uint32_t key = tp_spawn_site_key(site_address);
	/* a new site is named with the task still polled: the naming ends and restarts its poll */
	uint32_t site = tp_tracers_task_poll_end() ? tp_site_named_outside_poll(key) : 0;
	tp_thread_set_task(tp_thread_self(), 0);
	tp_fire_task_poll_end(task, 0, (uint32_t)sync, (uint64_t)site,
			      tp_tracers_task_poll_end() ? tp_spawn_site_text(site) : NULL, key);
}

/*
 * tp_task_spawn_traced's path when a tracer listens to task-spawn or task-stack (the site is named
 * for it), or a stack is wanted (`stack_wanted`, asked once: the live statistics' sample counts
 * the asking): the stack is captured for a task the program spawned.
 */
__attribute__((noinline)) static uint32_t
spawn_named_or_stacked(uint64_t task, enum tp_executor executor, enum tp_spawn_kind kind,
		       uint32_t key, bool stack_wanted, bool undeferred, bool ready)
{
	struct tp_thread *self = tp_thread_self();
	uintptr_t buffer[TP_SPAWN_STACK_BUFFER];
	const uintptr_t *pcs = NULL;
	uint32_t id = 0, depth = 0;
	uint32_t site = tp_tracers_task_spawn() ? tp_site_named_outside_poll(key) : 0;
	if (kind == TP_SPAWNED_BY_PROGRAM && stack_wanted) {
		pcs = tp_spawn_stack_capture(buffer, &depth, &id);
		tp_stack_table_site_is(id, key);
	}
	uint32_t spawn_stack = tp_spawn_stack_of(kind == TP_SPAWNED_BY_PROGRAM, id, key);
	if (!tp_thread_live(self))
		return spawn_stack;
	/* the in-process consumers take a ready task's wake with its spawn */
	bool woken = false;
	if (tp_listeners_task_spawn()) {
		const char *text = tp_tracers_task_spawn() ? tp_spawn_site_text(site) : NULL;
		tp_fire_task_spawn(task, tp_thread_task(self), (uint64_t)site, text, key,
				   (uint64_t)id, (uint32_t)executor, kind == TP_SPAWNED_BY_PROGRAM,
				   undeferred, ready);
		woken = ready;
	}
	if (tp_listeners_task_stack() && pcs != NULL)
		tp_fire_task_stack(task, (uint64_t)id, (uintptr_t *)pcs, depth);
	if (woken)
		tp_fire_task_wake_probe(task, tp_thread_task(self));
	else if (ready)
		tp_task_woken(task);
	return spawn_stack;
}

/*
 * Most spawns while traced: no tracer on task-spawn or task-stack, no stack wanted. So no site is
 * named, no stack captured (and no task-stack), and the frame is small.
 */
uint32_t tp_task_spawn_traced(uint64_t task, enum tp_executor executor, enum tp_spawn_kind kind,
			      const void *site_address, bool undeferred, bool ready)
{
	/* the consumers in the process keep a key; a tracer reads the site's id and text */
	uint32_t key = tp_listeners_task_spawn() ? tp_spawn_site_key(site_address) : 0;
	/* a stack costs hundreds of ns: each consumer says whether it wants this one */
	bool tracer = (tp_tracers_task_spawn() | tp_tracers_task_stack()) != 0;
	bool stack_wanted = tracer || tp_consumers_want_spawn_stack(key);
	if (tracer || (stack_wanted && kind == TP_SPAWNED_BY_PROGRAM))
		return spawn_named_or_stacked(task, executor, kind, key, stack_wanted, undeferred,
					      ready);
	struct tp_thread *self = tp_thread_self();
	uint32_t spawn_stack = tp_spawn_stack_of(kind == TP_SPAWNED_BY_PROGRAM, 0, key);
	if (!tp_thread_live(self))
		return spawn_stack;
	if (tp_listeners_task_spawn()) {
		uint64_t parent = tp_thread_task(self);
		tp_fire_task_spawn(task, parent, 0, NULL, key, 0, (uint32_t)executor,
				   kind == TP_SPAWNED_BY_PROGRAM, undeferred, ready);
		if (ready)
			tp_fire_task_wake_probe(task, parent);
	} else if (ready) {
		tp_task_woken(task);
	}
	return spawn_stack;
}
