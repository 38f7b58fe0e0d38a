// SPDX-License-Identifier: MIT
/*
 * The writer of the recording's round trip (round_trip_steps.h): the shim's recorder, started as
 * the shim's constructor starts it, given the steps twice (ids that fit 32 bits, then wider ones)
 * as the event layer gives events to it, then its buffers written as at the process's exit.
 * Usage: recording_writer PATH (the recording, TASKPROBE_RECORD's).
 *        recording_writer PATH claimed: instead, a thread's start whose routine's code record
 *        another thread claimed and had not written when the process ended.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "in_process_consumers.h"
#include "process.h"
#include "real_symbol.h"
#include "recorder.h"
#include "recorder_private.h"
#include "round_trip_steps.h"
#include "settings.h"
#include "text_out.h"

/* No probe is in this program, and so no section of their sites: an empty one. */
__attribute__((section("tp_probe_sites"), used)) static const uintptr_t no_probe_sites[0];

/* Step `s`'s task (its arg0), shifted in the wide pass. */
static uint64_t task_of(const struct round_trip_step *s, int64_t wide)
{
	return (uint64_t)(s->arg[0] + (s->arg[0] ? wide : 0));
}

/*
 * A poll's end (sync none) given jointly with what follows it (`then`): a switch, a switch to a
 * task it wakes, its executor's park; returns the steps given.
 */
static size_t poll_end_joint(uint64_t task, uint32_t done, const struct round_trip_step *then,
			     int64_t wide)
{
	switch (then->type) {
	case TP_RECORD_WORKER_PARK:
		tp_record_task_poll_end_park(task, done, tp_clock_now());
		return 2;
	case TP_RECORD_TASK_WAKE: /* the switch's next poll the step after the wake */
		tp_record_task_switch_woken(task, done, task_of(then, wide), tp_clock_now());
		return 3;
	default:
		tp_record_task_switch(task, done, task_of(then, wide), tp_clock_now());
		return 2;
	}
}

/* A task's end with its last poll's end (the next step) and what follows them, jointly. */
static size_t end_joint(uint64_t task, uint32_t reason, const struct round_trip_step *then,
			int64_t wide)
{
	if (then->type == TP_RECORD_WORKER_PARK)
		tp_record_task_end_park(task, reason, tp_clock_now());
	else
		tp_record_task_end_switch(task, reason, task_of(then, wide), tp_clock_now());
	return 3;
}

/* Gives step `s` (and the next with it, when it is joint); returns the steps given. */
static size_t give(const struct round_trip_step *s, int64_t wide)
{
	int64_t a[6];
	for (unsigned i = 0; i < 6; i++)
		a[i] = s->arg[i] + (round_trip_task_args(s->type) >> i & 1 && s->arg[i] ? wide : 0);
	switch (s->type) {
	case TP_RECORD_TASK_SPAWN:
		/* joint: its wake (by its parent) the next step */
		tp_record_task_spawn(a[0], a[1], (uint32_t)a[2], a[4],
				     tp_record_spawn_small((uint32_t)a[5], false, false), s->joint,
				     tp_clock_now());
		return s->joint ? 2 : 1;
	case TP_RECORD_TASK_WAKE:
		if (s->joint) { /* the poll's start the next step, or an unpark and then it */
			bool unparked = s[1].type == TP_RECORD_WORKER_UNPARK;
			tp_record_wake_poll_start(a[0], unparked, tp_clock_now());
			return unparked ? 3 : 2;
		}
		tp_record_task_wake(a[0], a[1], tp_clock_now());
		break;
	case TP_RECORD_WORKER_UNPARK:
		if (s->joint) { /* the poll's start the next step */
			tp_record_unpark_poll_start(task_of(s + 1, wide), tp_clock_now());
			return 2;
		}
		tp_record_worker_unpark(s->by_wait);
		break;
	case TP_RECORD_WORKER_PARK:
		tp_record_worker_park(s->by_wait);
		break;
	case TP_RECORD_TASK_POLL_START:
		tp_record_task_poll_start(a[0], tp_clock_now());
		break;
	case TP_RECORD_TASK_TERMINATE:
		if (s->joint)
			return end_joint(a[0], (uint32_t)a[1], s + 2, wide);
		tp_record_task_terminate(a[0], (uint32_t)a[1], tp_clock_now());
		break;
	case TP_RECORD_TASK_POLL_END:
		if (s->joint)
			return poll_end_joint(a[0], (uint32_t)a[1], s + 1, wide);
		tp_record_task_poll_end(a[0], (uint32_t)a[1], (uint32_t)a[2], (uint32_t)a[3],
					tp_clock_now());
		break;
	case TP_RECORD_WAIT_START:
		tp_record_wait_start((uint32_t)a[0], (uintptr_t)a[1], a[2], a[3], (uint32_t)a[4],
				     tp_clock_now());
		break;
	case TP_RECORD_WAIT_END:
		tp_record_wait_end((uint32_t)a[0], (uintptr_t)a[1], a[2], a[3], tp_clock_now());
		break;
	case TP_RECORD_TASK_ACQUIRE:
	case TP_RECORD_TASK_RELEASE: /* task, kind, object: the kind is the record's small */
		tp_record(s->type, (uint32_t)a[1], 2, a[0], a[2], 0, 0);
		break;
	case TP_RECORD_REGION_OF_INTEREST: /* on, marker */
		tp_record(s->type, tp_record_roi_small((uint32_t)a[0], (uint32_t)a[1]), 0, 0, 0, 0,
			  0);
		break;
	case TP_RECORD_MPI_SEND:
	case TP_RECORD_MPI_RECV: /* their communicator an identity, as events.h writes them */
		tp_record(s->type, TP_RECORD_MPI_IDENTITY, 4, a[0], a[1], a[2], a[3]);
		break;
	default: /* the arguments as they are (dependence, a collective) */
		tp_record(s->type, 0, 4, a[0], a[1], a[2], a[3]);
	}
	return 1;
}

/* The routine of the thread whose start names a site claimed but never written. */
__attribute__((noinline)) static void claimed_routine(void)
{
	__asm__ volatile("");
}

/* As a thread preempted in record_new_site_code, past its claim, would leave it: the record of
 * claimed_routine's code not written; then a thread's start, which names it, recorded. */
static void start_of_a_site_claimed(void)
{
	uint32_t site = tp_spawn_site_key_of_function((const void *)claimed_routine), module;
	if (!site_code_claim(site, TP_SITE_CODE_FUNCTION, &module)) {
		fprintf(stderr, "recording_writer: the site of claimed_routine was not claimed\n");
		exit(1);
	}
	tp_record_thread_start(2, (uintptr_t)claimed_routine, 1);
}

int main(int argc, char **argv)
{
	bool claimed = argc == 3 && strcmp(argv[2], "claimed") == 0;
	if ((argc != 2 && !claimed) || setenv("TASKPROBE_RECORD", argv[1], 1) != 0) {
		fprintf(stderr, "usage: %s RECORDING [claimed]\n", argv[0]);
		return 2;
	}
	/* the shim's constructor's steps the recorder needs (lifecycle.c) */
	tp_process_start();
	tp_stderr_start();
	(void)tp_settings();
	tp_real_functions_resolve();
	tp_clock_start(true);
	tp_recorder_start();
	if (claimed) {
		start_of_a_site_claimed();
		tp_recorder_at_exit();
		return 0;
	}
	for (int64_t wide = 0; wide <= ROUND_TRIP_WIDE; wide += ROUND_TRIP_WIDE)
		for (size_t i = 0; i < ROUND_TRIP_STEPS;)
			i += give(&round_trip_steps[i], wide);
	tp_recorder_at_exit();
	return 0;
}
