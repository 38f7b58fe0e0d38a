// SPDX-License-Identifier: MIT
/*
 * What the converter's files share (timeline.h is what its users see): a timeline's state, and
 * each file's functions for the others. The jobs:
 *	timeline.c          the converter's entry points: a timeline made, fed, finished
 *	perf_script.c       perf's text parsed into events (timeline_feed)
 *	slices.c            the slices' state machine: each thread's stack of open slices, the
 *	                    tasks alive, the window, what is kept in bounded memory
 *	names.c             site texts (the names pool) and the names of tasks, waits and threads,
 *	                    the --site and --thread filters on them
 *	write_chrome.c      the Trace Event Format JSON, with its counter tracks
 *	write_speedscope.c  speedscope's file: a profile per thread, spilled to a temporary file,
 *	                    written by a thread of its own on two cores
 *	handoff.h           batches handed from one thread to another (the relay, the writer)
 *	table.h             the hash table of the tasks, threads, sites, processes and frames
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "table.h"
#include "timeline.h"

#define MAX_LINE 4096
#define MAX_OPEN 8 /* nested slices per thread: poll > wait, park > wait, ... */
/* Site texts kept: beyond these, a site is named by its id (memory stays bounded on any input,
 * with the recordings' bookkeeping under the converter's 256 MiB; a program has thousands). */
#define MAX_SITES       TIMELINE_MAX_SITES
#define MAX_NAMES_BYTES TIMELINE_MAX_NAMES_BYTES
/* speedscope's frames (distinct names, at most MAX_NAMES_BYTES of them), and the processes
 * whose counters are kept */
#define MAX_FRAMES    (MAX_SITES + 64)
#define MAX_PROCESSES 4096u

/* Threads thread_of remembers (a power of two). */
#define THREAD_CACHE 64u

/* What a timeline of no event at all holds. */
#define NOTHING_SEEN  "nothing recorded: no task, worker, thread or wait was seen"
#define NO_SLICE_SEEN "no task poll, park or wait was seen: thread starts and stops only"

/* An event, as the converter's code calls it. */
#define sample timeline_event

/*
 * A slice open on a thread: a poll of task `id` (spawned at `site`, whose text, JSON-escaped,
 * is at `name` in the names pool; 0: none), a park, or a wait of `wait_kind` on object `id` by
 * `task`; begun at `ns`, its "B" written (`written`) once the thread has a later event; `kept`
 * when the filters keep it (else nothing of it is written); `frame`: its speedscope frame.
 */
struct open_slice {
	char kind; /* 'P'oll, 'K' park, 'W'ait */
	uint8_t wait_kind;
	bool written, kept;
	uint32_t name, frame;
	uint32_t slot; /* a poll's: its task's slot in the tasks' table as it opened (UINT32_MAX:
			* none), where its end looks first */
	uint64_t id, site, task, ns;
	uint64_t stack; /* a wait's: its stack's id (wait-stack), 0 when none was taken */
};

/* Both tables' entries (tasks, threads) start with their key and process (slices.c reads them
 * there). */
struct key_head {
	uint64_t key;     /* task id or tid; 0: free slot */
	uint32_t process; /* its process (timeline_event's process, else its pid) */
};

enum task_flags {
	TASK_POLLED = 1, /* its first poll was seen (the spawn flow ended) */
	TASK_READY = 2,  /* spawned or woken, not polled since */
	TASK_KEPT = 4,   /* the filters keep it: its site, and the thread that spawned it */
	TASK_SHOWN = 8,  /* its track's begin was written */
};

/* A task alive in the trace: 40 bytes. */
struct task {
	uint64_t key;
	uint32_t process;
	uint32_t name; /* its site's text in the names pool; 0: none */
	uint64_t site; /* its spawn site id */
	uint64_t spawn_ns;
	uint32_t spawn_tid;
	uint8_t flags;
};

/* A thread seen in the trace: its slices' stack is stacks[stack]. */
struct thread {
	uint64_t key;
	uint32_t process;
	uint32_t pid;     /* its process's pid in the timeline */
	uint32_t stack;   /* its open slices, innermost last */
	uint32_t profile; /* speedscope: 1 + its profile; 0: none */
	uint8_t depth;    /* open slices */
	uint8_t polls;    /* of them polls (the thread is a busy worker) */
	bool kept;        /* the thread filter keeps it */
};

/*
 * A site's text, by scope and site id: ids are per process image, and the scope is the pid in
 * perf's text and the segment in a recording (an exec keeps the pid; the image's ids start
 * again). `text` is the text as perf printed it and `name` the same JSON-escaped, both offsets
 * in the names pool (0: free slot). A pid reused by a later process may bring another text for
 * an id: the newer replaces it.
 */
struct site {
	uint64_t id, scope;
	uint32_t text, text_len, name;
};

struct sites {
	struct table table; /* of struct site */
	char *pool;         /* NUL-terminated texts and names; offset 0 is none */
	size_t pool_len, pool_cap;
	uint64_t refused; /* texts not kept: past MAX_SITES or MAX_NAMES_BYTES */
};

/* A counter track's state (see write_chrome.c). */
struct counter {
	int64_t value;
	uint64_t last_ns; /* of its last sample */
	bool ever, pending;
};

enum { ALIVE, READY, BUSY, COUNTERS };

struct process {
	uint64_t key; /* 1 + process; 0: free slot */
	uint32_t pid;
	struct counter c[COUNTERS];
};

/* speedscope: a growing text, spilled in blocks. */
struct buffer {
	char *data;
	uint32_t len, cap;
};

/* A thread's speedscope profile: its tid and name the timeline's; the rest its text's, which
 * the writer (struct profile_texts) owns. */
struct profile {
	uint32_t tid;
	char name[96];
	uint64_t events, last_at;
	bool pending;      /* an event not written yet: it may cancel with the next */
	char pending_type; /* 'O' or 'C' */
	uint32_t pending_frame;
	uint64_t pending_at;
	struct buffer text[1]; /* its events */
};

struct block {
	uint32_t profile;
	uint8_t kind; /* 0: events */
	uint32_t len;
	uint64_t offset, order;
};

/* An event of a speedscope profile, handed to its writer: a slice of `frame` opened ('O') or
 * closed ('C', `type`) at microsecond `at` of the window. 16 bytes. */
struct profile_event {
	uint64_t at;
	uint32_t frame;
	uint16_t profile; /* < TIMELINE_MAX_PROFILES */
	char type;
};

struct profile_writer; /* write_speedscope.c's thread, when the profiles are written by one */

/* The profiles' text (write_speedscope.c), spilled to a temporary file in blocks: the writer's
 * (a copy of it, and the profiles' text) while it runs. */
struct profile_texts {
	struct profile *profiles; /* the timeline's */
	int spill_fd;
	uint64_t spill_size, buffered;
	struct block *blocks;
	size_t n_blocks, cap_blocks;
	uint64_t written;    /* events written */
	uint32_t n_profiles; /* 1 + the last profile an event was written to */
	bool failed;         /* out of memory, or the spill file failed */
};

/* The sites' frames remembered, by their names' low bits (a power of two). */
#define SITE_FRAMES_CACHED 4096u

/* speedscope's frames: distinct names (JSON-escaped), by their text. */
struct frames {
	struct table table; /* of 1 + a frame (uint32_t), by its name */
	uint32_t *names;    /* offsets in pool */
	uint32_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
	/* a site's name (pool offset) to its frame */
	uint32_t cache_name[SITE_FRAMES_CACHED], cache_frame[SITE_FRAMES_CACHED];
	uint32_t parked; /* the parks' frame, once `parked_known` */
	bool parked_known;
};

/*
 * The line being parsed and the sample line before it take turns in `lines`: perf sometimes
 * writes a sample twice, and a line is compared with the one before it without a copy more than
 * the one parsing needs, in memory that does not grow with the line (longer lines are malformed).
 */
struct timeline {
	FILE *out;
	struct timeline_options options;
	char **sites_wanted; /* options.sites, JSON-escaped as names are */
	/* which of options.sites kept a task, and of options.tids a thread (timeline_unmatched) */
	bool *site_matched, *tid_matched;
	struct table tasks, threads; /* of struct task, struct thread */
	/* threads found lately, by their tid's low bits: thread_of's lookup without hashing
	 * (emptied whenever the threads' table changes) */
	struct thread *thread_cache[THREAD_CACHE];
	struct open_slice (*stacks)[MAX_OPEN];
	uint32_t n_stacks, cap_stacks, *free_stacks, n_free_stacks;
	struct sites sites;
	struct table processes;       /* of struct process: MAX_PROCESSES * 2 slots */
	struct process *last_process; /* process_of's last answer (the table never moves) */
	uint64_t last_ns, malformed;
	struct timeline_counts counts;
	uint32_t first_named_pid; /* the first process named (timeline_process_name) */
	uint64_t slices;          /* slices written (B, or an instant of no length) */
	bool first_event;
	/* the window: absolute once the first event is seen */
	bool started, in_window, done;
	_Atomic bool abandoned; /* timeline_abandon: set by another thread */
	uint64_t origin, from, to;
	/* speedscope */
	struct profile *profiles;
	uint32_t n_profiles;
	struct frames frames;
	struct profile_texts texts;
	struct profile_writer *writer; /* the texts' thread, once started (NULL: this one writes) */
	/* the room left in the writer's batch being filled: [events_next, events_end); none
	 * (both NULL) without a writer */
	struct profile_event *events_next, *events_end;
	bool no_writer;            /* one thread, or it could not start: this one writes */
	bool failed;               /* out of memory, or the spill file failed */
	struct analysis *analysis; /* options.critical_path: the events go to it too */
	uint32_t path_profile;     /* speedscope: 1 + the critical path's profile being written */
	char lines[2][MAX_LINE];
	size_t previous_len; /* of lines[previous]; 0: no sample line just before */
	unsigned previous;
};

/*
 * The output, written piece by piece: no format string is parsed per event (printf was three
 * quarters of the converter's time).
 */
/* `n` bytes at `s`: copied into the stream's buffer when they fit, as putc_unlocked does a byte
 * (stdio's calls for each of the JSON's many short pieces were a fifth of its conversion), else
 * handed to stdio. */
static inline void put_bytes(FILE *out, const char *s, size_t n)
{
	if ((size_t)(out->_IO_write_end - out->_IO_write_ptr) >= n) {
		memcpy(out->_IO_write_ptr, s, n);
		out->_IO_write_ptr += n;
	} else
		fwrite_unlocked(s, 1, n, out);
}

static inline void put(FILE *out, const char *s)
{
	put_bytes(out, s, strlen(s));
}

/* Writes `v`'s decimal digits at `to` (20 at most, no NUL); returns how many. Two digits a
 * division: every event written has a number or more (a time, a frame, a task). The digits are
 * counted from the bits' (a bit is log10(2) digits: 1233 / 4096), one comparison with a power
 * of ten to tell (a loop of one a digit was 15% of speedscope's writer's instructions). */
static inline size_t format_u64(char *to, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	/* clang-format off */
	static const uint64_t powers[20] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
		10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
		100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};
	/* clang-format on */
	/* (v | 1: the same count of digits, 1 for 0; the powers above 1 are even) */
	unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1), below = bits * 1233 >> 12;
	size_t n = below + 1 - ((v | 1) < powers[below]);
	char *p = to + n;
	for (; v >= 100; v /= 100) {
		p -= 2;
		memcpy(p, pairs + 2 * (v % 100), 2);
	}
	if (v >= 10)
		memcpy(p - 2, pairs + 2 * v, 2);
	else
		p[-1] = (char)('0' + v);
	return n;
}

/* `v` in decimal: its digits written in the stream's buffer where they fit (put_bytes). */
static inline void put_u64(FILE *out, uint64_t v)
{
	if (out->_IO_write_end - out->_IO_write_ptr >= 20) {
		out->_IO_write_ptr += format_u64(out->_IO_write_ptr, v);
		return;
	}
	char digits[20];
	fwrite_unlocked(digits, 1, format_u64(digits, v), out);
}

/* `s`, then the number `v`, then `after` */
static inline void put_number(FILE *out, const char *s, uint64_t v, const char *after)
{
	put(out, s);
	put_u64(out, v);
	put(out, after);
}

/* ---- names.c ---- */

/* JSON string contents: quotes, backslashes and control bytes escaped, non-ASCII as '?'.
 * Writes at most 6 bytes per byte of `s` (of `len` bytes) to `to`, returns the count. */
size_t json_escape(char *to, const char *s, size_t len);
/* The sites' table and pool, empty, and their end. */
void sites_init(struct sites *m);
void sites_free(struct sites *m);
/* The text of site `id` of `scope` as the input said it (NUL-terminated), or NULL. */
const char *site_text(const struct sites *m, uint64_t scope, uint64_t id);
/*
 * The name (offset of the escaped text in the pool) of site `id` of `scope`: `text` (of `len`
 * bytes; NULL when the sample has none) kept on first sight, the text kept before when the
 * sample has none. 0 when there is no text, or no room for it.
 */
uint32_t site_name(struct sites *m, uint64_t scope, uint64_t id, const char *text, uint32_t len);
/* A task's name (JSON-escaped) into `buf`: its site's text, else its site's id, else none's. */
const char *task_name_text(const struct timeline *t, uint64_t site, uint32_t name, char buf[32]);
/* A wait slice's name: "KIND at SITE" (the site's escaped text), or "wait KIND" with no site;
 * an MPI wait's, "MPI_CALL at SITE" or "MPI_CALL". */
void wait_name(const struct timeline *t, const struct open_slice *slice, char *out, size_t size);
/* The name of the thread whose first event is `e` (not escaped). */
const char *thread_name(const struct timeline *t, const struct timeline_event *e);
/* Whether the site filter keeps a task of this site (its name holds one of the texts). */
bool site_kept(const struct timeline *t, uint64_t site, uint32_t name);
/* Whether the thread filter keeps thread `tid`. */
bool thread_kept(const struct timeline *t, uint64_t tid);

/* ---- slices.c ---- */

void slices_init(struct timeline *t);
void slices_free(struct timeline *t);
/* The thread of `e` (of its process), named in the timeline when first seen, its slices' begins
 * written if `e` is later than they are; NULL: out of memory or tid 0. */
struct thread *thread_of(struct timeline *t, const struct timeline_event *e);
/* What event `s` of `thread` does to its slices, its tasks and the counters. */
void slices_event(struct timeline *t, const struct sample *s, struct thread *thread);
/* Closes every slice still open at the last timestamp (the recording ended first). */
void slices_close_all(struct timeline *t);

/* ---- write_chrome.c ---- */

/* Whether Trace Event Format events are written now (the format, and within the window). */
static inline bool chrome_now(const struct timeline *t)
{
	return t->options.format == TIMELINE_TRACE_EVENTS && t->in_window;
}
/* Starts an event object: {"ph":"X","pid":..,"tid":..,"ts":.. and the caller adds the rest. */
void chrome_event(struct timeline *t, char phase, const struct sample *s);
/* JSON string contents: quotes, backslashes and control bytes escaped, non-ASCII as '?'. */
void put_escaped(FILE *out, const char *s);
/* The counters' table (false when out of memory), and its end. */
bool counters_init(struct timeline *t);
void counters_free(struct timeline *t);
/* The counters of `process` (its pid `pid`, when new); NULL past MAX_PROCESSES processes. */
struct process *process_counters(struct timeline *t, uint32_t process, uint32_t pid);
/* process_counters in the JSON; NULL in speedscope's format (which has no counters): told
 * inline, the slices ask at every event. */
static inline struct process *process_of(struct timeline *t, uint32_t process, uint32_t pid)
{
	return t->options.format == TIMELINE_TRACE_EVENTS ? process_counters(t, process, pid)
							  : NULL;
}
void counter_change(struct timeline *t, struct process *p, int which, int delta, uint64_t ns);
/* Every counter's value at `ns`: the window's start (all) or end (the pending ones). */
void counters_at(struct timeline *t, uint64_t ns, bool all);
/* The begin events not written yet of `thread`'s open slices (the outermost first). */
void chrome_begins(struct timeline *t, struct thread *thread);
/* Slice `slice` of `thread` ends at `s`: its end with its arguments, or an instant if it has no
 * length (its begin not written yet). */
void chrome_slice_end(struct timeline *t, const struct open_slice *slice, const struct sample *s);
/* Every slice and task track open at the window's end `ns` ends there. */
void chrome_window_end(struct timeline *t, uint64_t ns);
void chrome_instant(struct timeline *t, const struct sample *s, const char *what, uint64_t value);
/* A task's track begins: at its spawn `s` (with the spawn's arguments), or at the window's
 * start `ns` when `s` is NULL. */
void chrome_task_begin(struct timeline *t, struct task *e, uint32_t pid, uint64_t ns,
		       const struct sample *s);
void chrome_task_end(struct timeline *t, struct task *e, const struct sample *at);
/* The flow from task `task`'s spawn (its task `e`) to its first poll `s`. */
void chrome_spawn_flow(struct timeline *t, const struct task *e, uint64_t task,
		       const struct sample *s);
/* A new thread's name, its first event `e`. */
void chrome_thread_name(struct timeline *t, const struct timeline_event *e);
/* A fragment of a process's critical path, [start, end] of it in the window, named `text`
 * (JSON-escaped); its track named at the process's `first`; nothing but that when `text` is
 * NULL (the fragment is out of the window). */
void chrome_path_fragment(struct timeline *t, const struct analysis_fragment *f, bool first,
			  uint64_t start, uint64_t end, const char *text);
/* The end of the JSON (a slice that says what the timeline holds when it has none). */
void chrome_finish(struct timeline *t);

/* ---- write_speedscope.c ---- */

/* The frames' table, empty, and the end of what the speedscope file kept. */
void speedscope_init(struct timeline *t);
void speedscope_free(struct timeline *t);
/* A speedscope profile for a new thread (up to TIMELINE_MAX_PROFILES of them). */
void speedscope_add_profile(struct timeline *t, struct thread *thread,
			    const struct timeline_event *e);
/* The frame of a name (JSON-escaped, NUL-terminated); 0 when there is no room. */
uint32_t speedscope_frame(struct timeline *t, const char *name);
/* speedscope_slice_frame's frame when it is not one found before: found, and remembered. */
uint32_t speedscope_slice_frame_found(struct timeline *t, const struct open_slice *slice);
/* A slice's frame: a park's, or a poll's of a site, as found before (inline: half the slices
 * opened are parks, most others polls of a few sites), else speedscope_slice_frame_found. */
static inline uint32_t speedscope_slice_frame(struct timeline *t, const struct open_slice *slice)
{
	if (slice->kind == 'K' && t->frames.parked_known)
		return t->frames.parked;
	size_t i = slice->name & (SITE_FRAMES_CACHED - 1);
	if (slice->kind == 'P' && slice->site != 0 && slice->name != 0 &&
	    t->frames.cache_name[i] == slice->name)
		return t->frames.cache_frame[i];
	return speedscope_slice_frame_found(t, slice);
}
/* speedscope_event's way when its room is none: event `e` handed to the writer (started first)
 * or written by this thread (no writer); NULL: the writer's batch was just filled, handed on. */
void speedscope_hand(struct timeline *t, const struct profile_event *e);
/*
 * A slice of `thread` opened ('O') or closed ('C') at `ns` in its profile, at its microsecond of
 * the window: made in its place in the writer's batch (built aside and copied, its 16 bytes
 * waited for its parts' stores). Inline, speedscope_hand aside: the slices make most events
 * open or close one, and the call's cost was as much as the rest.
 */
static inline void speedscope_event(struct timeline *t, const struct thread *thread, char type,
				    uint32_t frame, uint64_t ns)
{
	if (thread->profile == 0)
		return;
	ns = ns < t->from ? t->from : ns > t->to ? t->to : ns;
	struct profile_event *e = t->events_next;
	if (e == t->events_end) {
		struct profile_event handed = {(ns - t->from + 500) / 1000, frame,
					       (uint16_t)(thread->profile - 1), type};
		speedscope_hand(t, &handed);
		return;
	}
	e->at = (ns - t->from + 500) / 1000;
	e->frame = frame;
	e->profile = (uint16_t)(thread->profile - 1);
	e->type = type;
	if (++t->events_next == t->events_end)
		speedscope_hand(t, NULL);
}
/* A fragment of a process's critical path, as write_chrome's. */
void speedscope_path_fragment(struct timeline *t, const struct analysis_fragment *f, bool first,
			      uint64_t start, uint64_t end, const char *text);
/* Writes the speedscope file: every profile's samples, then the frames. */
void speedscope_finish(struct timeline *t);
