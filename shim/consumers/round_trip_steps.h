// SPDX-License-Identifier: MIT
/*
 * The recording's round trip (meson test --suite unit: recording_round_trip): events as the probes
 * carry them, given to the recorder by test_recording_writer.c as the event layer gives them, and
 * read back by contrib/timeline/test_recording_round_trip.c as the converter reads every
 * recording. What goes in must come out: each event, in order, with its arguments (the
 * converter's: timeline.h, `arg`), whichever records the recorder made of it. The same steps are
 * given twice: with ids that fit 32 bits (version 9's compact records, events folded into one
 * another) and with ids above them (a record per event).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "taskprobe_recording.h"

struct round_trip_step {
	unsigned type;  /* enum tp_record_type: the probe */
	int64_t arg[6]; /* its arguments as the converter gives them */
	bool by_wait;   /* worker-thread-park/unpark: a wait's (else the executor's) */
	bool joint;     /* given with the next step in one call, at one moment, as the event layer
			   gives an executor's unpark and the poll it starts, a spawn and its wake,
			   a switch, a task's end with what follows it (events.h) */
};

/* Task ids, shifted by ROUND_TRIP_WIDE in the second pass: none of them fits 32 bits then. */
#define ROUND_TRIP_WIDE (INT64_C(1) << 33)
/* Which arguments are task ids, by type (bit i: arg[i]). */
static inline unsigned round_trip_task_args(unsigned type)
{
	switch (type) {
	case TP_RECORD_TASK_SPAWN:
	case TP_RECORD_TASK_WAKE:
	case TP_RECORD_TASK_DEPENDENCE:
		return 0x3;
	case TP_RECORD_TASK_POLL_START:
	case TP_RECORD_TASK_POLL_END:
	case TP_RECORD_TASK_TERMINATE:
	case TP_RECORD_TASK_ACQUIRE:
	case TP_RECORD_TASK_RELEASE:
		return 0x1;
	case TP_RECORD_WAIT_START:
	case TP_RECORD_WAIT_END:
		return 0x8;
	default:
		return 0;
	}
}

/*
 * An OpenMP-like run of one thread: each run of events the recorder folds, and each it must not
 * (a different task, a waker not the parent, something in between, a sync site, a timeout).
 */
/* clang-format off */
#define STEP(type, ...) {type, {__VA_ARGS__}, false, false}
#define BY_WAIT(type)   {type, {0}, true, false} /* a wait's park or unpark */
#define JOINT(type, ...) {type, {__VA_ARGS__}, false, true} /* given with the next step */
/* clang-format on */
static const struct round_trip_step round_trip_steps[] = {
	/* a task spawned and woken by its parent (one record) */
	STEP(TP_RECORD_TASK_SPAWN, 2, 1, 0, 0, 7, 1),
	STEP(TP_RECORD_TASK_WAKE, 2, 1),
	/* spawned and woken by its parent in one call (one record) */
	JOINT(TP_RECORD_TASK_SPAWN, 4, 1, 0, 0, 7, 1),
	STEP(TP_RECORD_TASK_WAKE, 4, 1),
	/* polled from unpark to park, finished (one record) */
	STEP(TP_RECORD_WORKER_UNPARK, 0),
	STEP(TP_RECORD_TASK_POLL_START, 2),
	STEP(TP_RECORD_TASK_TERMINATE, 2, 0),
	STEP(TP_RECORD_TASK_POLL_END, 2, 1, 0, 0),
	STEP(TP_RECORD_WORKER_PARK, 0),
	/* woken by another than its parent: not folded */
	STEP(TP_RECORD_TASK_SPAWN, 3, 1, 0, 0, 0, 1),
	STEP(TP_RECORD_TASK_WAKE, 3, 9),
	STEP(TP_RECORD_TASK_DEPENDENCE, 2, 3),
	/* unparked to poll it at one moment, the poll ended unfinished (one record) */
	JOINT(TP_RECORD_WORKER_UNPARK, 0),
	STEP(TP_RECORD_TASK_POLL_START, 3),
	STEP(TP_RECORD_TASK_POLL_END, 3, 0, 0, 0),
	STEP(TP_RECORD_WORKER_PARK, 0),
	/* a poll that waits in a taskwait, then one that ends unfinished */
	STEP(TP_RECORD_TASK_POLL_START, 3),
	STEP(TP_RECORD_TASK_POLL_END, 3, 0, 2, 0),
	STEP(TP_RECORD_TASK_POLL_START, 3),
	STEP(TP_RECORD_TASK_POLL_END, 3, 0, 0, 0),
	/* a critical section, and the region of interest (MPI_Pcontrol's: enum tp_roi_marker) */
	STEP(TP_RECORD_REGION_OF_INTEREST, 1, 1),
	STEP(TP_RECORD_TASK_POLL_START, 3),
	STEP(TP_RECORD_TASK_ACQUIRE, 3, 1, 0x5000),
	STEP(TP_RECORD_TASK_RELEASE, 3, 1, 0x5000),
	STEP(TP_RECORD_REGION_OF_INTEREST, 0),
	/* terminated apart from its poll, whose end and the park follow (one record) */
	STEP(TP_RECORD_TASK_TERMINATE, 3, 1),
	STEP(TP_RECORD_TASK_POLL_END, 3, 1, 0, 0),
	STEP(TP_RECORD_WORKER_PARK, 0),
	/* a wait with no timeout, in no task (one record) */
	STEP(TP_RECORD_WAIT_START, 1, 0x1000, -1, 0, 0),
	STEP(TP_RECORD_WAIT_END, 1, 0x1000, 0, 0),
	/* a parking wait with a timeout, interrupted, in a task (one record) */
	BY_WAIT(TP_RECORD_WORKER_PARK),
	STEP(TP_RECORD_WAIT_START, 2, 0x2000, 5000, 3, 0),
	STEP(TP_RECORD_WAIT_END, 2, 0x2000, -4, 3),
	BY_WAIT(TP_RECORD_WORKER_UNPARK),
	/* a wait whose end is another object's: not folded */
	STEP(TP_RECORD_WAIT_START, 2, 0x3000, -1, 0, 0),
	STEP(TP_RECORD_WAIT_END, 2, 0x3008, 1, 0),
	/* the event layer's combined calls (events.h), each at one moment: a switch (the poll's
	 * end folds, the next poll a record) */
	STEP(TP_RECORD_TASK_POLL_START, 5),
	JOINT(TP_RECORD_TASK_POLL_END, 5, 0, 0, 0),
	STEP(TP_RECORD_TASK_POLL_START, 6),
	/* a switch to a task it wakes (the wake and the poll a record each) */
	JOINT(TP_RECORD_TASK_POLL_END, 6, 0, 0, 0),
	JOINT(TP_RECORD_TASK_WAKE, 7, 0),
	STEP(TP_RECORD_TASK_POLL_START, 7),
	/* a task's end and a switch (the end folds, the next poll a record) */
	JOINT(TP_RECORD_TASK_TERMINATE, 7, 0),
	JOINT(TP_RECORD_TASK_POLL_END, 7, 1, 0, 0),
	STEP(TP_RECORD_TASK_POLL_START, 8),
	/* a poll's end and its executor's park (folded) */
	JOINT(TP_RECORD_TASK_POLL_END, 8, 0, 0, 0),
	STEP(TP_RECORD_WORKER_PARK, 0),
	/* a task's end and its executor's park (folded into its poll's record) */
	STEP(TP_RECORD_TASK_POLL_START, 9),
	JOINT(TP_RECORD_TASK_TERMINATE, 9, 0),
	JOINT(TP_RECORD_TASK_POLL_END, 9, 1, 0, 0),
	STEP(TP_RECORD_WORKER_PARK, 0),
	/* a child spawned and run at once by its parent's thread, its end, its parent's poll again
	 * (the parent's poll a record, the spawn one, then the switch's, into which the rest fold:
	 * version 10) */
	STEP(TP_RECORD_TASK_POLL_START, 10),
	STEP(TP_RECORD_TASK_SPAWN, 11, 10, 0, 0, 0, 1),
	JOINT(TP_RECORD_TASK_POLL_END, 10, 0, 0, 0),
	STEP(TP_RECORD_TASK_POLL_START, 11),
	JOINT(TP_RECORD_TASK_TERMINATE, 11, 0),
	JOINT(TP_RECORD_TASK_POLL_END, 11, 1, 0, 0),
	STEP(TP_RECORD_TASK_POLL_START, 10),
	/* the same, but the child's end switches to another task than its parent (the spawn a
	 * record, the switch one with the child's end folded, the next poll a record) */
	STEP(TP_RECORD_TASK_SPAWN, 12, 10, 0, 0, 0, 1),
	JOINT(TP_RECORD_TASK_POLL_END, 10, 0, 0, 0),
	STEP(TP_RECORD_TASK_POLL_START, 12),
	JOINT(TP_RECORD_TASK_TERMINATE, 12, 0),
	JOINT(TP_RECORD_TASK_POLL_END, 12, 1, 0, 0),
	STEP(TP_RECORD_TASK_POLL_START, 13),
	/* a switch whose next task ends apart, then its poll and its executor's park (the spawn a
	 * record, the rest one) */
	STEP(TP_RECORD_TASK_SPAWN, 14, 13, 0, 0, 0, 1),
	JOINT(TP_RECORD_TASK_POLL_END, 13, 0, 0, 0),
	STEP(TP_RECORD_TASK_POLL_START, 14),
	STEP(TP_RECORD_TASK_TERMINATE, 14, 2),
	STEP(TP_RECORD_TASK_POLL_END, 14, 1, 0, 0),
	STEP(TP_RECORD_WORKER_PARK, 0),
	/* a task with dependences woken as a parked thread starts it, its end and the park (one
	 * record: version 11); the same on a thread not parked, ended apart (one record) */
	JOINT(TP_RECORD_TASK_WAKE, 17, 0),
	STEP(TP_RECORD_WORKER_UNPARK, 0),
	STEP(TP_RECORD_TASK_POLL_START, 17),
	JOINT(TP_RECORD_TASK_TERMINATE, 17, 0),
	JOINT(TP_RECORD_TASK_POLL_END, 17, 1, 0, 0),
	STEP(TP_RECORD_WORKER_PARK, 0),
	STEP(TP_RECORD_WORKER_UNPARK, 0),
	JOINT(TP_RECORD_TASK_WAKE, 18, 0),
	STEP(TP_RECORD_TASK_POLL_START, 18),
	STEP(TP_RECORD_TASK_TERMINATE, 18, 0),
	STEP(TP_RECORD_TASK_POLL_END, 18, 1, 0, 0),
	/* a child with dependences, woken as its parent's thread switches to it at once, its end,
	 * its parent's poll again (the parent's poll a record, the spawn one, the rest the switch's:
	 * version 11) */
	STEP(TP_RECORD_TASK_POLL_START, 15),
	STEP(TP_RECORD_TASK_SPAWN, 16, 15, 0, 0, 0, 1),
	JOINT(TP_RECORD_TASK_POLL_END, 15, 0, 0, 0),
	JOINT(TP_RECORD_TASK_WAKE, 16, 0),
	STEP(TP_RECORD_TASK_POLL_START, 16),
	JOINT(TP_RECORD_TASK_TERMINATE, 16, 0),
	JOINT(TP_RECORD_TASK_POLL_END, 16, 1, 0, 0),
	STEP(TP_RECORD_TASK_POLL_START, 15),
	/* messages */
	STEP(TP_RECORD_MPI_SEND, 1, 7, 0x44000000, 64),
	STEP(TP_RECORD_MPI_RECV, 1, 7, 0x44000000, 128),
	STEP(TP_RECORD_MPI_COLLECTIVE, 17, 2, 0x7a3c5e9f0b1d2e4f, 4),
};
#define ROUND_TRIP_STEPS (sizeof round_trip_steps / sizeof round_trip_steps[0])
