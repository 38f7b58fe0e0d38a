// SPDX-License-Identifier: MIT
/*
 * Who listens: the provider's semaphores, which a tracer raises when it attaches, and the
 * in-process listeners' word, whose bits the in-process consumers (shim/consumers/) raise and
 * lower as they start and stop. In the core, below every layer that reads it: the event layer
 * checks it before each event (events.h), and each consumer raises its own bit.
 */
#pragma once

#include <stdint.h>

/*
 * The provider's semaphores, which a tracer raises when it attaches, are defined here
 * (listeners.c), not by `dtrace -G`, so that their layout is the shim's: first the ten whose events
 * the executors' task state feeds, then task-dependence's (whose task ids the task state gives
 * too), then the in-process listeners' word, then wait-stack's, then the rest. An adapter checks
 * all that its task callbacks feed with three 64-bit loads (tp_listeners_task_state), on every task
 * callback of an executor; an interposed wait reads the in-process word and wait-stack's together
 * (tp_listeners_parks_and_waits). Each semaphore keeps its contract name (an alias into the block,
 * listeners.c): the notes, and so the tracers, find it as before.
 */
#define TP_TASK_STATE_SEMAPHORES 10 /* task-*, worker-thread-park/unpark, wait-start/end */
/*
 * worker-thread-start/stop, thread-start/stop, task-acquire/release, region-of-interest,
 * mpi-init, mpi-send, mpi-recv, mpi-collective
 */
#define TP_OTHER_SEMAPHORES 11
/* worker-thread-park, -unpark, wait-start, wait-end: in a row, read as one word (events.h) */
#define TP_PARK_AND_WAIT_SEMAPHORES_AT 12
struct tp_listener_block {
	unsigned short task_state[TP_TASK_STATE_SEMAPHORES];
	unsigned short task_dependence; /* read with the task-state semaphores */
	/*
	 * The in-process consumers that are on (TP_IN_PROCESS_EVENTS bits), and TP_TASK_STATE_HELD while
	 * threads may hold a current task set while traced (see tp_listeners_task_state_checked: it is
	 * dropped by the first callback that finds nobody listening). Changed with atomics; read with the
	 * semaphores.
	 */
	unsigned short in_process;
	unsigned short wait_stack; /* read with the in-process word by the waits' one check */
	unsigned short other[TP_OTHER_SEMAPHORES];
};
extern struct tp_listener_block tp_listener_block __attribute__((visibility("hidden")));

#define TP_IN_PROCESS_REPORT 1u /* the exit report counts tasks and executor threads (report.h) */
#define TP_TASK_STATE_HELD   2u
#define TP_IN_PROCESS_RECORD 4u /* the recorder records every event */
#define TP_IN_PROCESS_LIVE   8u /* the live statistics count every event (live.h) */
#define TP_IN_PROCESS_EVENTS (TP_IN_PROCESS_REPORT | TP_IN_PROCESS_RECORD | TP_IN_PROCESS_LIVE)

/* The in-process consumers of every event that are on (TP_IN_PROCESS_EVENTS bits). */
static inline unsigned tp_listeners_consumers(void)
{
	/* atomic: a failed write turns recording off while other threads record */
	return __builtin_expect(__atomic_load_n(&tp_listener_block.in_process, __ATOMIC_RELAXED) &
					TP_IN_PROCESS_EVENTS,
				0);
}

/* Whether the in-process recorder records (recorder.h). */
static inline unsigned tp_recording(void)
{
	return tp_listeners_consumers() & TP_IN_PROCESS_RECORD;
}

/* Whether the live statistics are kept (live.h). */
static inline unsigned tp_live(void)
{
	return tp_listeners_consumers() & TP_IN_PROCESS_LIVE;
}

/* Whether the exit report counts (report.h). */
static inline unsigned tp_reporting(void)
{
	return tp_listeners_consumers() & TP_IN_PROCESS_REPORT;
}

/* Raises bits of the in-process word. */
static inline void tp_listeners_in_process_add(unsigned short bits)
{
	__atomic_fetch_or(&tp_listener_block.in_process, bits, __ATOMIC_RELEASE);
}

/* Lowers bits of the in-process word; returns the word as it was. */
static inline unsigned short tp_listeners_in_process_remove(unsigned short bits)
{
	return __atomic_fetch_and(&tp_listener_block.in_process, (unsigned short)~bits,
				  __ATOMIC_RELEASE);
}

/* The in-process word: every bit (TP_IN_PROCESS_*, TP_TASK_STATE_HELD). */
static inline unsigned short tp_listeners_in_process(void)
{
	return __atomic_load_n(&tp_listener_block.in_process, __ATOMIC_RELAXED);
}

/*
 * Whether anyone listens at all: a tracer on any of the provider's probes, or an in-process
 * consumer. Inline, for the exit's last handler: it asks this first, and its code and this
 * block are on pages the run has touched (exit_hook.h).
 */
static inline int tp_listeners_anyone(void)
{
	const unsigned short *word = (const unsigned short *)&tp_listener_block;
	const unsigned short *in_process = &tp_listener_block.in_process;
	unsigned short any = 0;
	for (unsigned i = 0; i < sizeof tp_listener_block / sizeof *word; i++)
		if (&word[i] != in_process) /* its TP_TASK_STATE_HELD is no listener */
			any |= __atomic_load_n(&word[i], __ATOMIC_RELAXED);
	return any != 0 || tp_listeners_consumers() != 0;
}
