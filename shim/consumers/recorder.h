// SPDX-License-Identifier: MIT
/*
 * The in-process recorder (TASKPROBE_RECORD=FILE): every event of the contract, as the probes
 * see it, written to FILE (dtrace/taskprobe_recording.h) without a tracer or privileges. The
 * event layer (events.h) hands it each event it fires while recording.
 *
 * Each thread records into a buffer of its own (TP_RECORD_BUFFER_BYTES, mapped at its first
 * event): no lock, no allocation, no system call per event; the time is the CPU's time-stamp
 * counter where the kernel keeps time by it (else CLOCK_MONOTONIC). A full buffer is written out
 * by its thread with one write(2) (an appended chunk), and one written last a while ago at its
 * next record (TP_RECORD_WRITE_PERIOD); a thread's last one when it ends; every
 * thread's at exit. Events are dropped and counted (in the next chunk, and said at exit) only
 * when a signal handler's event interrupts one of its thread, or the file cannot be written.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "taskprobe_recording.h"

/* A recording thread's buffer: one chunk, its header included. Stated in docs/recording.md. */
#define TP_RECORD_BUFFER_BYTES (256u * 1024u)

/*
 * A buffer is also written out at its thread's first record this long after the buffer's base
 * (its last write, in tp_clock_now's units: 2^28 counts, 54 to 268 ms for a counter of 5 to 1
 * GHz, 268 ms of CLOCK_MONOTONIC): a program killed by a signal (Ctrl-C, a timeout's SIGTERM, an
 * MPI job's abort, SIGKILL) writes nothing more, and a thread that fills its buffer slowly lost
 * all it recorded. The check is the one the records' 40-bit times need, with a smaller bound: no
 * cost a record.
 */
#define TP_RECORD_WRITE_PERIOD (UINT64_C(1) << 28)
_Static_assert(TP_RECORD_WRITE_PERIOD <= TP_RECORD_DELTA_MAX, "a record's time fits its word");

/* The lifecycle's steps for this module (lifecycle.c calls them, in the order it states). */
void tp_recorder_start(void);        /* TASKPROBE_RECORD's file opened, recording */
void tp_recorder_prepare_fork(void); /* the buffers' lists locked */
void tp_recorder_parent_after_fork(void);
void tp_recorder_child_after_fork(void); /* its own file (%p) or none; the parent's data dropped */
void tp_recorder_before_exec(void);      /* every buffer written, the file marked */
void tp_recorder_before_seccomp(void);   /* every buffer written, recording stopped */
/* the exit's mark, at `clock_time` (tp_clock_now's); every thread's records written */
void tp_recorder_before_destructors(uint64_t clock_time);
void tp_recorder_at_exit(void); /* every thread's buffer written out */
/* Whether this process has a recording's file (recording, or stopped by a failed write). */
bool tp_recorder_has_file(void);
