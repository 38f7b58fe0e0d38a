/*
 * The task and worker probes, as executor adapters fire them. Nothing fires on a thread that the
 * process's exit already reported stopped.
 */
#include "executor.h"

#include "probes.h"
#include "thread_state.h"

static uint64_t last_task_id;

uint64_t tp_task_new_id(void)
{
	return __atomic_add_fetch(&last_task_id, 1, __ATOMIC_RELAXED);
}

void tp_task_spawned(uint64_t task, enum tp_executor executor)
{
	struct tp_thread *self = tp_thread_self();
	if (TASKPROBE_TASK_SPAWN_ENABLED() && tp_thread_live(self))
		TASKPROBE_TASK_SPAWN(task, TP_IN_REGISTER(self->task), (uint64_t)0, (uintptr_t *)0,
				     (uint32_t)0, (uint32_t)executor);
}

void tp_task_woken(uint64_t task)
{
	struct tp_thread *self = tp_thread_self();
	if (tp_thread_live(self))
		TASKPROBE_TASK_WAKE(task, TP_IN_REGISTER(self->task));
}

void tp_task_poll_start(uint64_t task)
{
	struct tp_thread *self = tp_thread_self();
	self->task = task;
	if (tp_thread_live(self))
		TASKPROBE_TASK_POLL_START(task);
}

void tp_task_poll_end(uint64_t task, bool done)
{
	struct tp_thread *self = tp_thread_self();
	if (tp_thread_live(self))
		TASKPROBE_TASK_POLL_END(task, (uint32_t)done);
	self->task = 0;
}

void tp_task_terminated(uint64_t task, enum tp_terminate_reason reason)
{
	if (tp_thread_live(tp_thread_self()))
		TASKPROBE_TASK_TERMINATE(task, (uint32_t)reason);
}

void tp_worker_started(void)
{
	struct tp_thread *self = tp_thread_self();
	self->adapter_worker = true;
	if (tp_thread_live(self))
		TASKPROBE_WORKER_THREAD_START();
}

void tp_worker_stopped(void)
{
	struct tp_thread *self = tp_thread_self();
	if (tp_thread_live(self))
		TASKPROBE_WORKER_THREAD_STOP();
	self->adapter_worker = false;
}

void tp_worker_park(void)
{
	struct tp_thread *self = tp_thread_self();
	if (self->parked || !tp_thread_live(self))
		return;
	self->parked = true;
	TASKPROBE_WORKER_THREAD_PARK();
}

void tp_worker_unpark(void)
{
	struct tp_thread *self = tp_thread_self();
	if (!self->parked)
		return;
	self->parked = false;
	if (tp_thread_live(self))
		TASKPROBE_WORKER_THREAD_UNPARK();
}
