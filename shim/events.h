// SPDX-License-Identifier: MIT
/*
 * The event layer: every event of the probe contract (../shared/PROBES.md, dtrace/taskprobe.d)
 * goes through here, and nothing else in the shim names a TASKPROBE_* macro. For each event:
 *
 *   tp_listeners_EVENT()   nonzero when anybody listens: its USDT semaphore, which a tracer
 *                          raises when it attaches (an in-process consumer's flag would be OR'ed
 *                          in here, once, for every caller);
 *   tp_fire_EVENT(...)     the event itself.
 *
 * Both are inline, so that an event nobody listens to costs one load and one branch where it
 * happens, and callers compute arguments only after the check. Callers that guard several events
 * with one branch OR the listeners' values. Every argument is handed to the probe in a register
 * (TP_IN_REGISTER): operands such as TLS reads or constants are not parsed by every tracer.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "probes.h"

#define TP_EVENT_LISTENERS(event, PROBE)                                                           \
	static inline unsigned tp_listeners_##event(void)                                          \
	{                                                                                          \
		return TASKPROBE_##PROBE##_ENABLED();                                              \
	}

TP_EVENT_LISTENERS(task_spawn, TASK_SPAWN)
TP_EVENT_LISTENERS(task_stack, TASK_STACK)
TP_EVENT_LISTENERS(task_wake, TASK_WAKE)
TP_EVENT_LISTENERS(task_poll_start, TASK_POLL_START)
TP_EVENT_LISTENERS(task_poll_end, TASK_POLL_END)
TP_EVENT_LISTENERS(task_terminate, TASK_TERMINATE)
TP_EVENT_LISTENERS(worker_start, WORKER_THREAD_START)
TP_EVENT_LISTENERS(worker_stop, WORKER_THREAD_STOP)
TP_EVENT_LISTENERS(worker_park, WORKER_THREAD_PARK)
TP_EVENT_LISTENERS(worker_unpark, WORKER_THREAD_UNPARK)
TP_EVENT_LISTENERS(thread_start, THREAD_START)
TP_EVENT_LISTENERS(thread_stop, THREAD_STOP)
TP_EVENT_LISTENERS(wait_start, WAIT_START)
TP_EVENT_LISTENERS(wait_end, WAIT_END)

#undef TP_EVENT_LISTENERS

/*
 * Whether anybody listens to anything: the provider's semaphores, all of them, read as one
 * block, and the in-process listeners. `dtrace -G` puts the semaphores together in the .probes
 * section in the provider file's order (14 of 2 bytes; events.c checks this at start-up and,
 * were it ever otherwise, makes the block read as listened to: slower, never wrong). Four loads
 * and four ORs, where OR'ing the semaphores one by one takes a load and an OR each: for the
 * checks on every task callback of an executor.
 */
#define TP_SEMAPHORES_BYTES 28

/*
 * What tp_listeners_any reads with the semaphores, one 64-bit word (one OR from memory):
 * TP_IN_PROCESS_REPORT while a consumer inside the process needs every event (the exit report's
 * counts), and TP_TASK_STATE_HELD while threads may hold a current task set while traced (see
 * tp_task_probes_enabled: it is dropped by the first callback that finds nobody listening).
 */
#define TP_IN_PROCESS_REPORT UINT64_C(1)
#define TP_TASK_STATE_HELD   UINT64_C(2)
extern uint64_t tp_listeners_in_process __attribute__((visibility("hidden")));

/* The semaphores alone, OR'ed as one block (see tp_listeners_any). */
static inline uint64_t tp_semaphores_any(void)
{
	/* the address laundered, so that the compiler reads past the first semaphore's two bytes */
	const unsigned char *block = (const unsigned char *)&taskprobe_task__spawn_semaphore;
	__asm__("" : "+r"(block));
	uint64_t a, b, c;
	uint32_t d;
	__builtin_memcpy(&a, block, sizeof a);
	__builtin_memcpy(&b, block + 8, sizeof b);
	__builtin_memcpy(&c, block + 16, sizeof c);
	__builtin_memcpy(&d, block + 24, sizeof d);
	return a | b | c | d;
}

static inline uint64_t tp_listeners_any(void)
{
	return tp_semaphores_any() | tp_listeners_in_process;
}

/* Checks the semaphores' layout that tp_listeners_any reads (events.c; from the lifecycle). */
void tp_events_start(void);

/* Anybody listening to a worker's parks and unparks. */
static inline unsigned tp_listeners_park(void)
{
	return tp_listeners_worker_park() | tp_listeners_worker_unpark();
}

/* Anybody listening to waits. */
static inline unsigned tp_listeners_wait(void)
{
	return tp_listeners_wait_start() | tp_listeners_wait_end();
}

static inline void tp_fire_task_spawn(uint64_t task, uint64_t parent, uint64_t site_id,
				      const char *site, uint64_t stack_id, uint32_t executor)
{
	TASKPROBE_TASK_SPAWN(TP_IN_REGISTER(task), TP_IN_REGISTER(parent), TP_IN_REGISTER(site_id),
			     TP_IN_REGISTER(site), TP_IN_REGISTER(stack_id),
			     TP_IN_REGISTER(executor));
}

static inline void tp_fire_task_stack(uint64_t task, uint64_t stack_id, const uintptr_t *pcs,
				      uint32_t depth)
{
	TASKPROBE_TASK_STACK(TP_IN_REGISTER(task), TP_IN_REGISTER(stack_id),
			     TP_IN_REGISTER((uintptr_t *)pcs), TP_IN_REGISTER(depth));
}

static inline void tp_fire_task_wake(uint64_t task, uint64_t waker)
{
	TASKPROBE_TASK_WAKE(TP_IN_REGISTER(task), TP_IN_REGISTER(waker));
}

static inline void tp_fire_task_poll_start(uint64_t task)
{
	TASKPROBE_TASK_POLL_START(TP_IN_REGISTER(task));
}

static inline void tp_fire_task_poll_end(uint64_t task, uint32_t done)
{
	TASKPROBE_TASK_POLL_END(TP_IN_REGISTER(task), TP_IN_REGISTER(done));
}

static inline void tp_fire_task_terminate(uint64_t task, uint32_t reason)
{
	TASKPROBE_TASK_TERMINATE(TP_IN_REGISTER(task), TP_IN_REGISTER(reason));
}

static inline void tp_fire_worker_start(void)
{
	TASKPROBE_WORKER_THREAD_START();
}

static inline void tp_fire_worker_stop(void)
{
	TASKPROBE_WORKER_THREAD_STOP();
}

static inline void tp_fire_worker_park(void)
{
	TASKPROBE_WORKER_THREAD_PARK();
}

static inline void tp_fire_worker_unpark(void)
{
	TASKPROBE_WORKER_THREAD_UNPARK();
}

static inline void tp_fire_thread_start(uint64_t tid, uintptr_t start_routine, uint64_t creator_tid)
{
	TASKPROBE_THREAD_START(TP_IN_REGISTER(tid), TP_IN_REGISTER(start_routine),
			       TP_IN_REGISTER(creator_tid));
}

static inline void tp_fire_thread_stop(uint64_t tid)
{
	TASKPROBE_THREAD_STOP(TP_IN_REGISTER(tid));
}

static inline void tp_fire_wait_start(uint32_t kind, uintptr_t object, int64_t timeout_ns,
				      uint64_t task)
{
	TASKPROBE_WAIT_START(TP_IN_REGISTER(kind), TP_IN_REGISTER(object),
			     TP_IN_REGISTER(timeout_ns), TP_IN_REGISTER(task));
}

static inline void tp_fire_wait_end(uint32_t kind, uintptr_t object, int64_t result, uint64_t task)
{
	TASKPROBE_WAIT_END(TP_IN_REGISTER(kind), TP_IN_REGISTER(object), TP_IN_REGISTER(result),
			   TP_IN_REGISTER(task));
}
