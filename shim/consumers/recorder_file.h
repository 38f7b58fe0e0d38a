// SPDX-License-Identifier: MIT
/*
 * The recorder's file (TASKPROBE_RECORD, dtrace/taskprobe_recording.h): the recorder (recorder.c)
 * encodes each thread's events into buffers and hands them here as chunks, which are appended
 * whole. The descriptor is one of the shim's own (own_files.h); a write that fails or would be
 * refused (a full disk, RLIMIT_FSIZE, a descriptor the program took) stops the recording, said
 * once, before anything torn could follow.
 */
#pragma once

#include <stdbool.h>
#include <sys/uio.h>

/*
 * Opens this process's file for the TASKPROBE_RECORD `pattern` (made, or continued after an
 * exec) and writes its segment's header; false (said) if it cannot.
 */
bool tp_record_file_open(const char *pattern);

/*
 * Appends `parts` with one writev(2), so that a chunk is never split by another thread's (a
 * regular file's writes are cut short only by an error, such as a full disk); or says why not
 * (once) and stops the recording, before anything torn could follow. Not a cancellation point
 * (a thread cancelled here would leave the buffer's lock held). errno is the caller's to keep.
 */
bool tp_record_file_write(const struct iovec *parts, int n_parts);

/* Whether this process records into a file of its own (not a vfork child of the recorder). */
bool tp_record_file_here(void);

/* Whether writing stopped (a failure, a system call filter): nothing more is written. */
bool tp_record_file_stopped(void);

/* The file's path (TASKPROBE_RECORD with %p replaced), for what the recorder says. */
const char *tp_record_file_path(void);

/* Stops writing and closes the file: recording ends (a system call filter comes). */
void tp_record_file_stop(void);

/*
 * In a fork's child: the writers' lock reset, the parent's file closed (the child makes its own);
 * false when there was none.
 */
bool tp_record_file_child_after_fork(void);
