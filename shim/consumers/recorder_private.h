// SPDX-License-Identifier: MIT
/*
 * The in-process recorder's parts (recorder.h), one job a file, and what they share:
 *   recorder.c            each event's record, the hot path: written in line into the thread's
 *                         buffer (record_fast), or folded into its last compact record
 *                         (fold_begin); tp_record, tp_record_task_*, tp_record_wait_*, ...
 *   recorder_buffers.c    the per-thread buffers: their lists, a thread's first buffer, the slow
 *                         path of a record (record_begin_at, record_done, record_slow), and
 *                         writing buffers out as chunks (the file itself: recorder_file.c)
 *   recorder_sites.c      the records that are no event of a thread's: a site's code and its
 *                         module (once per process image), stacks, MPI's init
 *   recorder_lifecycle.c  start, a thread's rename and end, exit, exec, seccomp and fork
 *
 * Locks: `buffers_lock` (a spin lock) guards the lists of buffers; it is taken when a thread
 * gets or gives back a buffer and at fork and exit, never per event. Each buffer's `writing`
 * lock is taken by whoever writes it out (its thread, or the exit for all), so that no chunk is
 * written twice or half. A thread's busy mark (`mine.busy`) makes an event that a signal handler
 * fires while its thread is inside the recorder a counted drop, not a torn record.
 *
 * Everything here is hidden (the shim is built -fvisibility=hidden): calls between the files are
 * direct, and the helpers of the hot path are static inline here, inlined into it as before.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "code_map.h"
#include "recorder.h"
#include "spawn_site.h"
#include "taskprobe_contract.h"

struct tp_record_buffer {
	char *data;       /* TP_RECORD_BUFFER_BYTES of records */
	uint32_t used;    /* bytes of data in use, the header included; set after a whole record */
	uint32_t written; /* records before it are in the file (or, closed, never will be) */
	uint32_t records; /* whole records in data[0, used): its thread's alone, as `used` */
	uint32_t records_written; /* of them, those before `written` (under `writing`) */
	uint64_t base;    /* the time its records' times count from (their chunk's base_time) */
	uint64_t dropped; /* events lost since the last chunk written */
	uint32_t last;    /* its thread's last compact record, the next events may fold into it
			     (NO_LAST: none); its thread's alone */
	pid_t tid;
	char comm[16]; /* the thread's name, read at its first event and after each chunk */
	int writing;   /* the lock of whoever writes it out */
	bool closed;   /* written out at exit: no more chunks */
	struct tp_record_buffer *prev, *next; /* in `in_use` or `spare` */
};

#define NO_LAST UINT32_MAX

/* The lists of buffers (recorder_buffers.c), under buffers_lock. */
extern int buffers_lock;
extern struct tp_record_buffer in_use, spare;

extern uint64_t dropped_unrecorded; /* events lost before a thread had a buffer */
extern uint64_t dropped_at_exit;    /* recorded, but in a buffer no longer written out */
extern uint64_t dropped_in_chunks;  /* said in the chunks written (the converter shows them) */

/*
 * Whether a site key's code, and a module, are in the file (recorder_sites.c): 0 not yet;
 * CODE_WRITTEN; or CODE_CLAIMED (with a site's kind above it): a thread is writing its record,
 * which the recording's end writes again (the claimer may be preempted past it).
 */
enum { CODE_WRITTEN = 1, CODE_CLAIMED = 2, CODE_KIND_SHIFT = 2 };
extern uint8_t site_recorded[TP_SITE_ADDRESSES_MAX + 1]; /* by site key */
extern uint8_t module_recorded[TP_CODE_MODULES_MAX];     /* by module index */

/* The calling thread's share of the recorder, in initial-exec TLS: no allocation, no lock. */
struct recorder_thread {
	struct tp_record_buffer *buffer; /* its buffer, from its first event */
	bool busy;    /* inside the recorder: a signal handler's event is dropped */
	bool stopped; /* the buffer was given back at the thread's end */
	/* an interposed wait parked the thread: kept back for the wait-start that follows at once
	 * (its record holds it), written before any other event */
	bool park_pending;
	/* where its last record, an MPI poll's wait-end, is in its buffer, plus 1 (0: none): a
	 * poll of the same call right after goes on the same wait (recorder.c's poll_goes_on) */
	uint32_t poll_end_at;
};
extern __thread struct recorder_thread mine __attribute__((tls_model("initial-exec")));

static inline void list_remove(struct tp_record_buffer *b)
{
	b->prev->next = b->next;
	b->next->prev = b->prev;
}

static inline void list_add(struct tp_record_buffer *list, struct tp_record_buffer *b)
{
	b->next = list->next;
	b->prev = list;
	list->next->prev = b;
	list->next = b;
}

/* The longest compact record (taskprobe_recording.h: a wait's), which events fold into. */
#define COMPACT_RECORD_WORDS 5

static inline bool is_compact(unsigned type)
{
	return tp_record_compact(type);
}

/* ---- recorder_buffers.c ---- */

void buffer_reset(struct tp_record_buffer *b);
/* The calling thread writes its own buffer out. */
void buffer_write(struct tp_record_buffer *b);

/*
 * Room for a record of `words` words in the calling thread's buffer, marked busy, its word
 * written; NULL (the event counted as dropped) when the thread is already inside the recorder
 * (a signal handler's event) or has no buffer and cannot get one. record_done ends it.
 * Timed `at` (tp_clock_now's), or now when `at` is 0.
 */
struct tp_record *record_begin_at(enum tp_record_type type, unsigned small, unsigned words,
				  uint64_t at);
void record_done(const struct tp_record *r);

static inline struct tp_record *record_begin(enum tp_record_type type, unsigned small,
					     unsigned words)
{
	return record_begin_at(type, small, words, 0);
}

/*
 * tp_record's path when the fast one cannot be taken: a first event, a full buffer, a signal.
 * Timed `at` as record_begin_at.
 */
__attribute__((noinline, cold)) void record_slow(enum tp_record_type type, uint32_t small,
						 unsigned nargs, uint64_t a0, uint64_t a1,
						 uint64_t a2, uint64_t a3, uint64_t at);
/* The park kept back (mine.park_pending) written as it is, before another event, timed as that
 * event (`at` as record_begin_at's) (cold, as the compiler found it when it shared a file with its
 * callers: their paths to it stay out of line). */
__attribute__((cold)) void park_written(uint64_t at);

/*
 * Busy: a wait's record takes the park kept back for it (its flag), which no other event came
 * between; other records take nothing (0).
 */
static inline unsigned takes_park(enum tp_record_type type)
{
	if (type != TP_RECORD_WAITED || !mine.park_pending)
		return 0;
	mine.park_pending = false;
	return TP_COMPACT_WAIT_PARKED;
}

/* Every thread's records written out (`close`: the process's last moment): see there. */
void write_all_buffers(bool close);
/* The last moment after the destructors: this thread's records written, the others' counted. */
void write_own_close_others(void);

/* ---- recorder_sites.c ---- */

__attribute__((noinline, cold)) void record_new_site_code(uint32_t site,
							  enum tp_site_code_kind kind);
/*
 * Site key `site`'s code record claimed by the calling thread (its module number, 0 for none, in
 * *module): false when there is none to write, or another thread has it. record_new_site_code's
 * first step (the test recording_writer stops there, as a claimer preempted would).
 */
bool site_code_claim(uint32_t site, enum tp_site_code_kind kind, uint32_t *module);
/* The codes and modules still claimed written by this thread (the recording's end: before its
 * buffers are written out for the last time). */
void record_claimed_codes(void);

/* Whether site key `site` needs no code record: none (0, past the table), or in the file. */
static inline bool site_code_recorded(uint32_t site)
{
	return site == 0 || site > TP_SITE_ADDRESSES_MAX ||
	       __builtin_expect(__atomic_load_n(&site_recorded[site], __ATOMIC_RELAXED), 1);
}

/* record_new_site_code the first time: after it, a load and a branch an event. */
static inline void record_site_code(uint32_t site, enum tp_site_code_kind kind)
{
	if (__builtin_expect(!site_code_recorded(site), 0))
		record_new_site_code(site, kind);
}
