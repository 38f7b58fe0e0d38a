// SPDX-License-Identifier: MIT
/*
 * The file the in-process recorder writes (TASKPROBE_RECORD, shim/consumers/recorder.c) and the
 * timeline converter reads (contrib/timeline): the same events as the probes, with the same
 * arguments (since version 9 events that follow each other on a thread may share a compact record,
 * below).
 *
 * A file is one or more segments (a process that execs itself continues its file in a new
 * segment). A segment is a header, then chunks in the order they were written. A chunk holds the
 * records of one thread, in the order they happened; a thread's chunks follow each other in the
 * file, and those of different threads interleave. Little-endian, 8-byte aligned throughout.
 * A file ends after its last whole chunk: a process killed before writing its buffers leaves
 * the chunks it wrote.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define TP_RECORDING_MAGIC "TPRECORD" /* the segment header's first 8 bytes */
/*
 * 16: an implicit task of a team of one thread is created undeferred (TP_RECORD_SPAWN_UNDEFERRED);
 * 15: a region of interest's start says what marked it (TP_RECORD_REGION_OF_INTEREST's small);
 * 14: a message's communicator is its identity (TP_RECORD_MPI_IDENTITY); 13: a collective's
 * communicator (TP_RECORD_MPI_COLLECTIVE); 12: a task-spawn says whether the program spawned the task (TP_RECORD_SPAWN_BY_PROGRAM, in
 * place of the executor's sixth bit); 11: a task's wake as it is first scheduled shares its
 * poll's record (TP_COMPACT_SWITCH_WOKEN, TP_RECORD_TASK_WOKEN_POLLED); 10: a task
 * switch's compact record (TP_RECORD_TASK_SWITCHED, below); 9: compact records
 * (TP_RECORD_TASK_SPAWNED to TP_RECORD_WAITED, below): a task's or a wait's events that follow
 * each other on a thread share one record, and its ids a word; where the process's exit begins
 * (TP_RECORD_PROCESS_EXIT); 8: MPI
 * (TP_RECORD_MPI_INIT, _SEND, _RECV); 7: mutual exclusion (TP_RECORD_TASK_ACQUIRE, _RELEASE),
 * regions of interest, a sync wait's site (task-poll-end's second word); 6: wait stacks
 * (TP_RECORD_WAIT_STACK); 5: sites as code addresses with their modules (TP_RECORD_MODULE,
 * TP_RECORD_SITE_CODE), named by the converter, never site texts; 4: task-dependence,
 * poll-end's sync; 2 to 4 name sites by text (TP_RECORD_SITE). The converter reads 2 to 16.
 */
#define TP_RECORDING_VERSION        16
#define TP_RECORDING_VERSION_OLDEST 2           /* the oldest the converter reads */
#define TP_CHUNK_MAGIC              0x4b435054u /* "TPCK" */

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
	/* since version 3: with pid, which process this is (pids are reused, and repeat across pid
	 * namespaces); 0 when unknown */
	uint64_t start_ticks;   /* its start: /proc/PID/stat's starttime, clock ticks since boot */
	uint64_t pid_namespace; /* the inode of its pid namespace (/proc/PID/ns/pid) */
};
/* A version 2 header: the fields before start_ticks. */
#define TP_RECORDING_HEADER_V2_SIZE 56
_Static_assert(__builtin_offsetof(struct tp_recording_header, start_ticks) ==
		       TP_RECORDING_HEADER_V2_SIZE,
	       "version 2's header is version 3's first fields");

struct tp_recording_chunk {
	uint32_t magic; /* TP_CHUNK_MAGIC */
	uint32_t size;  /* bytes, this header included; a multiple of 8 */
	uint32_t tid;
	uint32_t records;
	uint64_t dropped;    /* events of this thread lost since its chunk before (none: 0) */
	uint64_t base_time;  /* its records' times count from this, in the header's clock */
	uint64_t clock_time; /* a time in the header's clock ... */
	uint64_t ns;         /* ... and CLOCK_MONOTONIC's nanoseconds, when the chunk was written */
	char comm[16];       /* the thread's name then, NUL-terminated */
};

/* One per probe of the contract, in dtrace/taskprobe.d's order, and the site texts; probes
 * added since, after them. */
enum tp_record_type {                           /* below 1 << TP_RECORD_TYPE_BITS */
		      TP_RECORD_TASK_SPAWN = 1, /* arg: task, parent, site id, stack id; small:
						   executor, and undeferred (below) */
		      TP_RECORD_TASK_STACK, /* arg: task, stack id, then `small` return addresses */
		      TP_RECORD_TASK_WAKE,  /* arg: task, waker */
		      TP_RECORD_TASK_POLL_START, /* arg: task */
		      TP_RECORD_TASK_POLL_END,   /* arg: task (and since version 7, when sync
						    is not 0, the sync construct's site id);
						    small: done, sync (below) */
		      TP_RECORD_TASK_TERMINATE,  /* arg: task; small: reason */
		      TP_RECORD_WORKER_START,    /* no arguments */
		      TP_RECORD_WORKER_STOP,     /* no arguments */
		      TP_RECORD_WORKER_PARK,     /* no arguments */
		      TP_RECORD_WORKER_UNPARK,   /* no arguments */
		      TP_RECORD_THREAD_START,    /* arg: tid, start routine, creator tid */
		      TP_RECORD_THREAD_STOP,     /* arg: tid */
		      TP_RECORD_WAIT_START,      /* arg: object, timeout ns, task; small: kind */
		      TP_RECORD_WAIT_END,        /* arg: object, result, task; small: kind */
		      TP_RECORD_SITE, /* arg: site id, then `small` bytes of its text (no NUL);
					 versions 2 to 4, read in any */
		      TP_RECORD_TASK_DEPENDENCE, /* arg: predecessor, successor (version 4) */
		      TP_RECORD_MODULE,       /* a module of the process (version 5): see below */
		      TP_RECORD_SITE_CODE,    /* arg: site id, address, module number; small: kind
					      (enum tp_site_code_kind) (version 5) */
		      TP_RECORD_WAIT_STACK,   /* arg: kind, object, stack id, then `small` return
					       addresses (version 6) */
		      TP_RECORD_TASK_ACQUIRE, /* arg: task, object; small: kind (version 7) */
		      TP_RECORD_TASK_RELEASE, /* arg: task, object; small: kind (version 7) */
		      TP_RECORD_REGION_OF_INTEREST, /* small: 1 start, 0 stop (version 7);
						 a start's bits above: its marker, enum
						 tp_roi_marker (version 15) */
		      TP_RECORD_MPI_INIT,           /* arg: rank, size, CLOCK_REALTIME's and
					     CLOCK_MONOTONIC's nanoseconds read together, then
					     `small` bytes of text: the host, NUL, the job, NUL
					     (version 8) */
		      TP_RECORD_MPI_SEND, /* arg: peer, tag, communicator, bytes (version 8);
					     small: TP_RECORD_MPI_IDENTITY (version 14) */
		      TP_RECORD_MPI_RECV, /* arg: peer, tag, communicator, bytes (version 8);
					     small: TP_RECORD_MPI_IDENTITY (version 14) */
		      /* version 9's compact records, each one or more events (below) */
		      TP_RECORD_TASK_SPAWNED, /* task-spawn, maybe task-wake */
		      TP_RECORD_TASK_POLLED,  /* worker-unpark, task-poll-start, -terminate,
						 -poll-end, worker-park: some of them */
		      TP_RECORD_TASK_PAUSED,  /* task-poll-end, maybe worker-park */
		      TP_RECORD_TASK_ENDED,   /* task-terminate, maybe task-poll-end and park */
		      TP_RECORD_WAITED,       /* wait-start, maybe park, unpark, wait-end */
		      /* no arguments: the process's exit begins (exit, or main's return), before
		         its destructors: where the figures' open polls end (version 9) */
		      TP_RECORD_PROCESS_EXIT,
		      /* task-poll-end of one task, task-poll-start of the next, maybe the next's
			 terminate, poll-end and the first's poll-start again (version 10) */
		      TP_RECORD_TASK_SWITCHED,
		      /* task-wake (no waker), then TP_RECORD_TASK_POLLED's events (version 11) */
		      TP_RECORD_TASK_WOKEN_POLLED,
		      /* arg: call, root, communicator, size (version 13) */
		      TP_RECORD_MPI_COLLECTIVE,
		      TP_RECORD_TYPES_END,
};

/* The probe of each record type as the ELF notes name it ([0], sites and modules: none). */
#define TP_RECORD_PROBE_NAMES                                                                      \
	{                                                                                          \
		"", "task__spawn", "task__stack", "task__wake", "task__poll__start",               \
			"task__poll__end", "task__terminate", "worker__thread__start",             \
			"worker__thread__stop", "worker__thread__park", "worker__thread__unpark",  \
			"thread__start", "thread__stop", "wait__start", "wait__end", "",           \
			"task__dependence", "", "", "wait__stack", "task__acquire",                \
			"task__release", "region__of__interest", "mpi__init", "mpi__send",         \
			"mpi__recv", "", "", "", "", "", "", "", "", "mpi__collective"             \
	}

/*
 * A record: one 64-bit word, then its arguments (64-bit words, or text). The word holds its
 * type, its length in words (itself included), a small argument (`small` above) and its time as
 * an offset from the chunk's base_time, 40 bits (the recorder starts a new chunk before that
 * would overflow: 6 minutes of a 3 GHz time-stamp counter).
 */
struct tp_record {
	uint64_t word;
	uint64_t arg[];
};

#define TP_RECORD_TYPE_BITS  6
#define TP_RECORD_WORDS_BITS 10
#define TP_RECORD_SMALL_BITS 8
#define TP_RECORD_DELTA_BITS 40
#define TP_RECORD_WORDS_MAX  ((1u << TP_RECORD_WORDS_BITS) - 1)
#define TP_RECORD_SMALL_MAX  ((1u << TP_RECORD_SMALL_BITS) - 1)
#define TP_RECORD_DELTA_MAX  ((UINT64_C(1) << TP_RECORD_DELTA_BITS) - 1)
_Static_assert(TP_RECORD_TYPE_BITS + TP_RECORD_WORDS_BITS + TP_RECORD_SMALL_BITS +
			       TP_RECORD_DELTA_BITS ==
		       64,
	       "a record's word is full");

static inline uint64_t tp_record_word(unsigned type, unsigned words, unsigned small, uint64_t delta)
{
	return (uint64_t)type | (uint64_t)words << TP_RECORD_TYPE_BITS |
	       (uint64_t)small << (TP_RECORD_TYPE_BITS + TP_RECORD_WORDS_BITS) |
	       delta << (TP_RECORD_TYPE_BITS + TP_RECORD_WORDS_BITS + TP_RECORD_SMALL_BITS);
}

static inline unsigned tp_record_type(uint64_t word)
{
	return (unsigned)(word & ((1u << TP_RECORD_TYPE_BITS) - 1));
}

/* The record's length in bytes. */
static inline uint32_t tp_record_bytes(uint64_t word)
{
	return 8 * (uint32_t)(word >> TP_RECORD_TYPE_BITS & TP_RECORD_WORDS_MAX);
}

static inline unsigned tp_record_small(uint64_t word)
{
	return (unsigned)(word >> (TP_RECORD_TYPE_BITS + TP_RECORD_WORDS_BITS) &
			  TP_RECORD_SMALL_MAX);
}

/* task-poll-end's `small`: done in bit 0, the sync region's kind above (version 4; 0 before) */
static inline unsigned tp_record_poll_end_small(uint32_t done, uint32_t sync)
{
	return (done != 0) | (sync & 0x7f) << 1;
}

static inline unsigned tp_record_poll_end_done(unsigned small)
{
	return small & 1;
}

static inline unsigned tp_record_poll_end_sync(unsigned small)
{
	return small >> 1;
}

/*
 * task-spawn's `small`: the executor in bits 0 to 4 (0 to 6 before version 12, whose executors
 * were all below 32), in bit 5 whether the program spawned the task (an explicit task; not an
 * implicit task its executor started: TP_RECORD_SPAWN_BY_PROGRAM, version 12; 0 before, where
 * the analysis takes every task for its executor's), and in bit 7 whether the task was created
 * undeferred (OpenMP: an if(0) clause, a final task's descendant, or any task of a team of one
 * thread; libomp runs it at once, its parent switched out until it ends) and without
 * dependences (with them, the analysis keeps it after what ran before it: libomp reports no
 * dependence on a task already ended, which an undeferred task's are). Not a probe argument: the
 * recording's alone, for the analysis (a child the program spawned run undeferred is nested work
 * of its parent, not a predecessor of its parent's next fragment). 0 in recordings made before.
 * Since version 16 an implicit task of a team of one is created undeferred too: nested in a
 * region, it is no region (tp_span_region_task), nor nested work (its encountering task goes on
 * after it).
 */
#define TP_RECORD_SPAWN_UNDEFERRED 0x80u
#define TP_RECORD_SPAWN_BY_PROGRAM 0x20u
#define TP_RECORD_SPAWN_EXECUTOR   0x1fu

static inline unsigned tp_record_spawn_small(uint32_t executor, bool undeferred, bool by_program)
{
	return (executor & TP_RECORD_SPAWN_EXECUTOR) |
	       (by_program ? TP_RECORD_SPAWN_BY_PROGRAM : 0) |
	       (undeferred ? TP_RECORD_SPAWN_UNDEFERRED : 0);
}

static inline unsigned tp_record_spawn_executor(unsigned small)
{
	return small & TP_RECORD_SPAWN_EXECUTOR;
}

static inline bool tp_record_spawn_by_program(unsigned small)
{
	return (small & TP_RECORD_SPAWN_BY_PROGRAM) != 0;
}

/*
 * A message's record (TP_RECORD_MPI_SEND, _RECV) whose communicator is its identity, as
 * mpi-collective's (version 14): before, the handle, a value of its process only, which no
 * reader pairs by.
 */
#define TP_RECORD_MPI_IDENTITY 1u

/* The communicator a message's record pairs by (its arguments `arg`, `small`): 0 for every
 * message of a recording before version 14, whose messages pair as one communicator's. */
static inline uint64_t tp_record_mpi_communicator(unsigned small, const uint64_t *arg)
{
	return (small & TP_RECORD_MPI_IDENTITY) != 0 ? arg[2] : 0;
}

static inline uint64_t tp_record_delta(uint64_t word)
{
	return word >> (TP_RECORD_TYPE_BITS + TP_RECORD_WORDS_BITS + TP_RECORD_SMALL_BITS);
}

/*
 * Version 5 keeps code as the program had it, for the converter to name (it reads the modules'
 * files and debug information; the program never does): each site id the events use (a spawn's,
 * a wait's, a thread's start routine's) has a TP_RECORD_SITE_CODE record, and the module of its
 * address a TP_RECORD_MODULE record, both once per process image, anywhere in its segment.
 * A module is named by its number, 1 up, in its segment; 0 is none (code in no file: a JIT's).
 */
enum tp_site_code_kind {
	TP_SITE_CODE_CALL = 0, /* the return address of the call (a task construct's, a wait's) */
	TP_SITE_CODE_FUNCTION = 1, /* a function's first instruction (a thread's start routine) */
};

/*
 * TP_RECORD_MODULE's arguments: where the module lay in the process and which file it was. The
 * path follows, `path_bytes` bytes (no NUL), padded to whole words.
 */
#define TP_RECORD_MODULE_BUILD_ID_MAX 32
#define TP_RECORD_MODULE_PATH_MAX     1023  /* the longest path kept: longer ones are cut */
#define TP_RECORD_MODULES_MAX         65535 /* a segment's module numbers are at most this */
struct tp_record_module {
	uint64_t number; /* its number in the segment, 1 up */
	uint64_t bias;   /* the loader's dlpi_addr: the file's addresses + bias = the process's */
	uint64_t start, end;     /* its loaded segments' span [start, end) in the process */
	uint32_t build_id_bytes; /* of build_id (NT_GNU_BUILD_ID), 0 when it had none */
	uint32_t path_bytes;
	uint8_t build_id[TP_RECORD_MODULE_BUILD_ID_MAX];
	/* char path[path_bytes], then padding */
};
_Static_assert(sizeof(struct tp_record_module) == 72, "a module record's fixed part is 9 words");

/*
 * Version 9's compact records. A task's events come in runs on one thread (an OpenMP task:
 * spawn and wake; unpark and poll-start; poll-end and park; terminate, poll-end and park): the
 * recorder writes the first event of a run as a compact record and folds each next one into it
 * while it is the thread's last record, in the same words (a record never grows). A folded event
 * has the time of the record (events that follow each other at once share its clock read) or
 * its end (the record's time + the `duration` it holds). The converter gives every event back,
 * with the arguments it had, in the order they happened. Ids fit 32 bits in these records (the
 * recorder writes the records of the probes, above, for a task id or a result that does not);
 * a task's parent and waker, a poll's task, are those of the record.
 *
 * TP_RECORD_TASK_SPAWNED: arg: task | parent << 32, site id | stack id << 32; small: the
 *   executor (TP_COMPACT_SPAWN_EXECUTOR), by the program (TP_RECORD_SPAWN_BY_PROGRAM, version
 *   12), undeferred (TP_RECORD_SPAWN_UNDEFERRED), and
 *   TP_COMPACT_WOKEN: task-wake of the task by its parent, right after.
 * TP_RECORD_TASK_POLLED: arg: task | duration << 32; small, in this order of the events:
 *   TP_COMPACT_UNPARKED  worker-thread-unpark at the record's time (alone: the task is 0)
 *   TP_COMPACT_STARTED   task-poll-start of the task at the record's time
 *   TP_COMPACT_TERMINATED  task-terminate at the end, its reason in TP_COMPACT_REASON
 *   TP_COMPACT_ENDED     task-poll-end at the end: done 1 after TERMINATED, else done 0, sync 0
 *   TP_COMPACT_PARKED    worker-thread-park at the end
 * TP_RECORD_TASK_PAUSED: arg: task | sync's site id << 32; small: tp_record_poll_end_small's
 *   done and sync (sync below 64), TP_COMPACT_PARKED: worker-thread-park right after.
 * TP_RECORD_TASK_ENDED: arg: task; small: the reason (TP_COMPACT_REASON), TP_COMPACT_ENDED:
 *   task-poll-end (done 1) right after, TP_COMPACT_PARKED: worker-thread-park right after that.
 * TP_RECORD_WAITED: arg: object, task | site id << 32, result | duration << 32 (the result a
 *   signed 32-bit number), then the timeout in ns unless it is -1 (none: the record is a word
 *   shorter); small: the kind (TP_COMPACT_WAIT_KIND), then
 *   TP_COMPACT_WAIT_PARKED  worker-thread-park at the record's time, before wait-start
 *   TP_COMPACT_WAIT_ENDED   wait-end (the object, the result, the task) at the end
 *   TP_COMPACT_WAIT_UNPARKED  worker-thread-unpark at the end, after wait-end if any
 * TP_RECORD_TASK_SWITCHED (version 10): a thread's switch from one task's poll to the next's, at
 *   one moment (an OpenMP task run at once by its parent's thread, a taskwait's), and what follows
 *   the next's poll at once. arg: next | duration << 32, the task switched from (a task id, below
 *   2^32). Its events, in this order:
 *   task-poll-end of the task switched from (done 0, sync 0) at the record's time
 *   TP_COMPACT_SWITCH_WOKEN  task-wake of the next (no waker) at the record's time (version 11:
 *                        a task with dependences, woken as it is first scheduled)
 *   task-poll-start of the next at the record's time
 *   TP_COMPACT_TERMINATED  task-terminate of the next at the end, its reason in TP_COMPACT_REASON
 *   TP_COMPACT_ENDED     task-poll-end of the next at the end (done 1 after TERMINATED, else 0)
 *   TP_COMPACT_PARKED    worker-thread-park at the end
 *   TP_COMPACT_RESUMED   task-poll-start of the task switched from, at the end (never with
 *                        PARKED: a thread parks in no poll)
 * TP_RECORD_TASK_WOKEN_POLLED (version 11): task-wake of its task (no waker) at the record's
 *   time, then TP_RECORD_TASK_POLLED's events, in its arguments and flags (TP_COMPACT_STARTED
 *   always): a task with dependences, woken as a thread that polls no task starts it.
 */
#define TP_COMPACT_SPAWN_EXECUTOR TP_RECORD_SPAWN_EXECUTOR
#define TP_COMPACT_WOKEN          0x40u
#define TP_COMPACT_UNPARKED       0x01u
#define TP_COMPACT_STARTED        0x02u
#define TP_COMPACT_TERMINATED     0x04u
#define TP_COMPACT_REASON_SHIFT   3
#define TP_COMPACT_REASON         (0x7u << TP_COMPACT_REASON_SHIFT) /* TERMINATED's, ENDED's */
#define TP_COMPACT_ENDED          0x40u
#define TP_COMPACT_PARKED         0x80u
#define TP_COMPACT_RESUMED        0x01u /* TP_RECORD_TASK_SWITCHED's */
#define TP_COMPACT_SWITCH_WOKEN   0x02u /* TP_RECORD_TASK_SWITCHED's */
#define TP_COMPACT_SYNC_MAX       63u
#define TP_COMPACT_WAIT_KIND      0x1fu
#define TP_COMPACT_WAIT_PARKED    0x20u
#define TP_COMPACT_WAIT_UNPARKED  0x40u
#define TP_COMPACT_WAIT_ENDED     0x80u
_Static_assert(TP_RECORD_TYPES_END <= 1u << TP_RECORD_TYPE_BITS, "a record's type fits its word");

/* The arguments of compact records: two 32-bit halves of a word. */
static inline uint64_t tp_compact_pair(uint32_t low, uint32_t high)
{
	return (uint64_t)low | (uint64_t)high << 32;
}

static inline uint32_t tp_compact_low(uint64_t arg)
{
	return (uint32_t)arg;
}

static inline uint32_t tp_compact_high(uint64_t arg)
{
	return (uint32_t)(arg >> 32);
}

/* Whether records of `type` are compact: TP_RECORD_TASK_SPAWNED to TP_RECORD_TASK_WOKEN_POLLED
 * (and TP_RECORD_PROCESS_EXIT among them, with no arguments); the types after them are full
 * records again (TP_RECORD_MPI_COLLECTIVE). */
static inline bool tp_record_compact(unsigned type)
{
	return type >= TP_RECORD_TASK_SPAWNED && type <= TP_RECORD_TASK_WOKEN_POLLED;
}

/* The number of events a record holds (a compact record's, by its flags; 0: not an event). */
static inline unsigned tp_record_events(uint64_t word)
{
	unsigned small = tp_record_small(word);
	switch (tp_record_type(word)) {
	case TP_RECORD_SITE:
	case TP_RECORD_MODULE:
	case TP_RECORD_SITE_CODE:
		return 0;
	case TP_RECORD_TASK_SPAWNED:
		return 1 + ((small & TP_COMPACT_WOKEN) != 0);
	case TP_RECORD_TASK_POLLED:
	case TP_RECORD_TASK_WOKEN_POLLED:
		return (tp_record_type(word) == TP_RECORD_TASK_WOKEN_POLLED) +
		       ((small & TP_COMPACT_UNPARKED) != 0) + ((small & TP_COMPACT_STARTED) != 0) +
		       ((small & TP_COMPACT_TERMINATED) != 0) + ((small & TP_COMPACT_ENDED) != 0) +
		       ((small & TP_COMPACT_PARKED) != 0);
	case TP_RECORD_TASK_SWITCHED:
		return 2 + ((small & TP_COMPACT_SWITCH_WOKEN) != 0) +
		       ((small & TP_COMPACT_TERMINATED) != 0) + ((small & TP_COMPACT_ENDED) != 0) +
		       ((small & TP_COMPACT_PARKED) != 0) + ((small & TP_COMPACT_RESUMED) != 0);
	case TP_RECORD_TASK_PAUSED:
		return 1 + ((small & TP_COMPACT_PARKED) != 0);
	case TP_RECORD_TASK_ENDED:
		return 1 + ((small & TP_COMPACT_ENDED) != 0) + ((small & TP_COMPACT_PARKED) != 0);
	case TP_RECORD_WAITED:
		return 1 + ((small & TP_COMPACT_WAIT_PARKED) != 0) +
		       ((small & TP_COMPACT_WAIT_UNPARKED) != 0) +
		       ((small & TP_COMPACT_WAIT_ENDED) != 0);
	default:
		return 1;
	}
}

/* A region of interest's record's small (TP_RECORD_REGION_OF_INTEREST): 1 and its marker above
 * for a start (enum tp_roi_marker, version 15), 0 for a stop. */
static inline uint32_t tp_record_roi_small(uint32_t on, uint32_t marker)
{
	return on != 0 ? 1 | marker << 1 : 0;
}

/*
 * MPI's polls (tp_mpi_call_polls: MPI_Test in a loop) are one wait while they follow each other:
 * a poll that starts within this of the end of the same call's poll by the same task goes on
 * that wait, in the clock's units (nanoseconds, or the time-stamp counter's ticks where it is the
 * clock: a third of a microsecond at 3 GHz), which the recorder compares as it writes. The
 * recorder writes one wait of them, and the live statistics keep the task's fragment paused
 * across the gaps and count them as the thread's time in MPI (live_waits.c), comparing the same
 * units, so that both engines count the loop's time as the wait's.
 */
#define TP_MPI_POLL_GAP_NS 1000
