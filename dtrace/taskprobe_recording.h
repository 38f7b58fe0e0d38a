// SPDX-License-Identifier: MIT
/*
 * The file the in-process recorder writes (TASKPROBE_RECORD, shim/recorder.c) and the timeline
 * converter reads (contrib/timeline): the same events as the probes, with the same arguments.
 *
 * A file is one or more segments (a process that execs itself continues its file in a new
 * segment). A segment is a header, then chunks in the order they were written. A chunk holds the
 * records of one thread, in the order they happened; a thread's chunks follow each other in the
 * file, and those of different threads interleave. Little-endian, 8-byte aligned throughout.
 * A file ends after its last whole chunk: a process killed before writing its buffers leaves
 * the chunks it wrote.
 */
#pragma once

#include <stdint.h>

#define TP_RECORDING_MAGIC   "TPRECORD" /* the segment header's first 8 bytes */
#define TP_RECORDING_VERSION 1
#define TP_CHUNK_MAGIC       0x4b435054u /* "TPCK" */

/* How record times are read (a header's `clock`). */
enum tp_recording_clock {
	TP_CLOCK_MONOTONIC = 1, /* CLOCK_MONOTONIC nanoseconds */
	TP_CLOCK_TSC = 2,       /* the CPU's invariant time-stamp counter, converted by the pairs */
};

struct tp_recording_header {
	char magic[8];        /* TP_RECORDING_MAGIC */
	uint32_t version;     /* TP_RECORDING_VERSION */
	uint32_t header_size; /* sizeof (struct tp_recording_header) */
	uint32_t pid;
	uint32_t clock;      /* enum tp_recording_clock */
	uint64_t clock_time; /* a time in `clock`'s units ... */
	uint64_t ns;         /* ... and CLOCK_MONOTONIC's nanoseconds at the same moment */
	char comm[16];       /* the process's name, NUL-terminated */
};

struct tp_recording_chunk {
	uint32_t magic; /* TP_CHUNK_MAGIC */
	uint32_t size;  /* bytes, this header included; a multiple of 8 */
	uint32_t tid;
	uint32_t records;
	uint64_t dropped;    /* events of this thread lost since its chunk before (none: 0) */
	uint64_t clock_time; /* a time in the header's clock ... */
	uint64_t ns;         /* ... and CLOCK_MONOTONIC's nanoseconds, when the chunk was written */
	char comm[16];       /* the thread's name then, NUL-terminated */
};

/* One per probe of the contract, in dtrace/taskprobe.d's order, and the site texts. */
enum tp_record_type {
	TP_RECORD_TASK_SPAWN = 1,  /* arg: task, parent, site id, stack id; small: executor */
	TP_RECORD_TASK_STACK,      /* arg: task, stack id, then `small` return addresses */
	TP_RECORD_TASK_WAKE,       /* arg: task, waker */
	TP_RECORD_TASK_POLL_START, /* arg: task */
	TP_RECORD_TASK_POLL_END,   /* arg: task; small: done */
	TP_RECORD_TASK_TERMINATE,  /* arg: task; small: reason */
	TP_RECORD_WORKER_START,    /* no arguments */
	TP_RECORD_WORKER_STOP,     /* no arguments */
	TP_RECORD_WORKER_PARK,     /* no arguments */
	TP_RECORD_WORKER_UNPARK,   /* no arguments */
	TP_RECORD_THREAD_START,    /* arg: tid, start routine, creator tid */
	TP_RECORD_THREAD_STOP,     /* arg: tid */
	TP_RECORD_WAIT_START,      /* arg: object, timeout ns, task; small: kind */
	TP_RECORD_WAIT_END,        /* arg: object, result, task; small: kind */
	TP_RECORD_SITE,            /* arg: site id, then `small` bytes of its text (no NUL) */
	TP_RECORD_TYPES_END,
};

/* The probe of each record type as the ELF notes name it ([0] and TP_RECORD_SITE: none). */
#define TP_RECORD_PROBE_NAMES                                                                      \
	{                                                                                          \
		"", "task__spawn", "task__stack", "task__wake", "task__poll__start",               \
			"task__poll__end", "task__terminate", "worker__thread__start",             \
			"worker__thread__stop", "worker__thread__park", "worker__thread__unpark",  \
			"thread__start", "thread__stop", "wait__start", "wait__end", ""            \
	}

/* A record: this header, then `size` - 16 bytes of arguments (64-bit words, or text). */
struct tp_record {
	uint16_t type; /* enum tp_record_type */
	uint16_t size; /* bytes, this header included; a multiple of 8 */
	uint32_t small;
	uint64_t time; /* in the header's clock */
	uint64_t arg[];
};
