// SPDX-License-Identifier: MIT
/*
 * The in-process recorder (TASKPROBE_RECORD=FILE): every event of the contract, as the probes
 * see it, written to FILE (dtrace/taskprobe_recording.h) without a tracer or privileges. The
 * event layer (events.h) hands it each event it fires while recording.
 *
 * Each thread records into a buffer of its own (TP_RECORD_BUFFER_BYTES, mapped at its first
 * event): no lock, no allocation, no system call per event; the time is the CPU's time-stamp
 * counter where the kernel keeps time by it (else CLOCK_MONOTONIC). A full buffer is written out
 * by its thread with one write(2) (an appended chunk); a thread's last one when it ends; every
 * thread's at exit. Events are dropped and counted (in the next chunk, and said at exit) only
 * when a signal handler's event interrupts one of its thread, or the file cannot be written.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "taskprobe_recording.h"

/* A recording thread's buffer: one chunk, its header included. Stated in docs/recording.md. */
#define TP_RECORD_BUFFER_BYTES (256u * 1024u)

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
