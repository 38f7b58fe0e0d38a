/*
 * The interface between executor adapters (one file each, such as OpenMP's) and the task and
 * worker probes. An adapter translates its executor's callbacks into these calls; the shim keeps
 * the per-thread current task, which feeds the parent, waker and wait-task arguments.
 * How to add an adapter: README.md, "Adding an executor".
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The executor argument of task-spawn. */
enum tp_executor {
	TP_EXECUTOR_OPENMP = 1,
};

/* The reason argument of task-terminate. */
enum tp_terminate_reason {
	TP_TASK_COMPLETED = 0,
	TP_TASK_CANCELLED = 1,
	TP_TASK_FAILED = 2,
};

/* A new task id: nonzero, never reused in this process. */
uint64_t tp_task_new_id(void);

/* task-spawn, with the calling thread's current task as parent. */
void tp_task_spawned(uint64_t task, enum tp_executor executor);
/* task-wake, with the calling thread's current task as waker. */
void tp_task_woken(uint64_t task);
/* task-poll-start; the task becomes the calling thread's current task. */
void tp_task_poll_start(uint64_t task);
/* task-poll-end; the thread polls no task afterwards. */
void tp_task_poll_end(uint64_t task, bool done);
/* task-terminate: call before the final tp_task_poll_end(task, true). */
void tp_task_terminated(uint64_t task, enum tp_terminate_reason reason);

/* The calling thread is a worker of an executor from now until tp_worker_stopped. */
void tp_worker_started(void);
void tp_worker_stopped(void);
/* An executor's own idle report; the park is skipped if the thread is parked already. */
void tp_worker_park(void);
void tp_worker_unpark(void);
