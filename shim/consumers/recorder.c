// SPDX-License-Identifier: MIT
/*
 * The in-process recorder (recorder.h): per-thread buffers, each written out as a chunk of the
 * recording file (recorder_file.h) by the thread that filled it, at its end, or by the exiting
 * thread.
 *
 * Locks: `buffers_lock` (a spin lock) guards the lists of buffers; it is taken when a thread
 * gets or gives back a buffer and at fork and exit, never per event. Each buffer's `writing`
 * lock is taken by whoever writes it out (its thread, or the exit for all), so that no chunk is
 * written twice or half. A thread's busy mark (`mine.busy`) makes an event that a signal handler
 * fires while its thread is inside the recorder a counted drop, not a torn record.
 */
#define _GNU_SOURCE
#include "recorder.h"

#include "in_process_consumers.h"
#include "listeners.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>

#include "clock.h"
#include "code_map.h"
#include "recorder_file.h"
#include "reentry.h"
#include "settings.h"
#include "spawn_site.h"
#include "spin_lock.h"
#include "taskprobe_contract.h"
#include "thread_identity.h"
#include "shim_work.h"
#include "warn.h"

/* The largest records: a stack of the deepest capture, a module of the longest path. */
#define STACK_RECORD_MAX_BYTES (sizeof(struct tp_record) + 8 * (2 + TP_STACK_DEPTH_MAX))
#define MODULE_RECORD_MAX_BYTES                                                                    \
	(sizeof(struct tp_record) + sizeof(struct tp_record_module) + TP_CODE_PATH_MAX)
#define RECORD_MAX_BYTES                                                                           \
	(STACK_RECORD_MAX_BYTES > MODULE_RECORD_MAX_BYTES ? STACK_RECORD_MAX_BYTES                 \
							  : MODULE_RECORD_MAX_BYTES)
_Static_assert(RECORD_MAX_BYTES / 8 <= TP_RECORD_WORDS_MAX, "every record's length fits its word");
_Static_assert(TP_CODE_PATH_MAX - 1 <= TP_RECORD_MODULE_PATH_MAX, "a module's path fits");
_Static_assert(TP_CODE_BUILD_ID_MAX <= TP_RECORD_MODULE_BUILD_ID_MAX, "a build id fits");
_Static_assert(TP_CODE_MODULES_MAX <= TP_RECORD_MODULES_MAX, "a module's number fits");
_Static_assert(TP_RECORD_BUFFER_BYTES >= 8 * RECORD_MAX_BYTES, "a buffer holds many records");
_Static_assert(TP_RECORD_BUFFER_BYTES <= UINT32_MAX, "a chunk's size fits its header");

/* Buffers written out with one writev at exit or an exec (three parts each: under IOV_MAX). */
#define WRITE_BATCH 128

struct tp_record_buffer {
	char *data;       /* TP_RECORD_BUFFER_BYTES of records */
	uint32_t used;    /* bytes of data in use, the header included; set after a whole record */
	uint32_t written; /* records before it are in the file (or, closed, never will be) */
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

static int buffers_lock;
static struct tp_record_buffer in_use = {.prev = &in_use, .next = &in_use};
static struct tp_record_buffer spare = {.prev = &spare, .next = &spare};

/* The calling thread's share of the recorder, in initial-exec TLS: no allocation, no lock. */
static __thread struct {
	struct tp_record_buffer *buffer; /* its buffer, from its first event */
	bool busy;    /* inside the recorder: a signal handler's event is dropped */
	bool stopped; /* the buffer was given back at the thread's end */
	/* an interposed wait parked the thread: kept back for the wait-start that follows at once
	 * (its record holds it), written before any other event */
	bool park_pending;
} mine __attribute__((tls_model("initial-exec")));

static uint64_t dropped_unrecorded; /* events lost before a thread had a buffer */
static uint64_t dropped_at_exit;    /* recorded, but in a buffer no longer written out */
static uint64_t dropped_in_chunks;  /* said in the chunks written (the converter shows them) */
/* Whether a site key's code, and a module, are in the file (the process image's, once each). */
static uint8_t site_recorded[TP_SITE_ADDRESSES_MAX + 1]; /* by site key */
static uint8_t module_recorded[TP_CODE_MODULES_MAX];     /* by module index */

/* Opens this process's file (a new image's codes and modules recorded again in it). */
static bool open_recording(const char *pattern)
{
	memset(site_recorded, 0, sizeof site_recorded);
	memset(module_recorded, 0, sizeof module_recorded);
	return tp_record_file_open(pattern);
}

bool tp_record_stacks;

void tp_recorder_start(void)
{
	const char *pattern = tp_settings()->record;
	if (pattern == NULL)
		return;
	tp_record_stacks = tp_settings()->record_stacks; /* before recording is seen on */
	if (open_recording(pattern))
		tp_listeners_in_process_add(TP_IN_PROCESS_RECORD);
}

static void list_remove(struct tp_record_buffer *b)
{
	b->prev->next = b->next;
	b->next->prev = b->prev;
}

static void list_add(struct tp_record_buffer *list, struct tp_record_buffer *b)
{
	b->next = list->next;
	b->prev = list;
	list->next->prev = b;
	list->next = b;
}

static void buffer_reset(struct tp_record_buffer *b)
{
	b->used = 0;
	__atomic_store_n(&b->written, 0, __ATOMIC_RELAXED);
	b->last = NO_LAST;
	__atomic_store_n(&b->dropped, 0, __ATOMIC_RELAXED);
	b->base = tp_clock_now();
}

/* A buffer for the calling thread (a spare one, or new), or NULL when none can be mapped. */
static struct tp_record_buffer *buffer_get(void)
{
	tp_spin_lock(&buffers_lock);
	struct tp_record_buffer *b = spare.next != &spare ? spare.next : NULL;
	if (b != NULL)
		list_remove(b);
	tp_spin_unlock(&buffers_lock);
	if (b == NULL) {
		/* the descriptor and the data in one mapping: no allocator of the program's */
		void *m = mmap(NULL, TP_RECORD_BUFFER_BYTES + sizeof *b, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		b = (struct tp_record_buffer *)((char *)m + TP_RECORD_BUFFER_BYTES);
		b->data = m;
	}
	buffer_reset(b);
	b->tid = tp_thread_tid();
	tp_thread_read_name(b->comm);
	b->writing = 0;
	b->closed = false;
	tp_spin_lock(&buffers_lock);
	list_add(&in_use, b);
	tp_spin_unlock(&buffers_lock);
	return b;
}

/* The longest compact record (taskprobe_recording.h: a wait's), which events fold into. */
#define COMPACT_RECORD_WORDS 5

static bool is_compact(unsigned type)
{
	return type >= TP_RECORD_TASK_SPAWNED;
}

/*
 * The records in data[from, to): whole ones, as their sizes say; the last one's offset in
 * *last. Atomic loads: the thread may be folding an event into its last record meanwhile (it
 * keeps its size).
 */
static uint32_t count_records(const char *data, uint32_t from, uint32_t to, uint32_t *last)
{
	uint32_t n = 0;
	*last = from;
	for (uint32_t at = from; at < to; n++) {
		*last = at;
		at += tp_record_bytes(__atomic_load_n(
			&((const struct tp_record *)(data + at))->word, __ATOMIC_RELAXED));
	}
	return n;
}

/*
 * A chunk to write out: its header, then its records in one or two parts: a compact last record
 * is written from a copy read word by word (its thread may fold an event into it meanwhile, and
 * then counts the event lost if it finds the record written: see fold_done).
 */
struct chunk_out {
	struct tp_recording_chunk header;
	uint64_t last_copy[COMPACT_RECORD_WORDS];
	uint32_t end; /* the buffer's bytes it holds end here */
	bool has;     /* false: no chunk (nothing to write, or a closed buffer's) */
};
#define CHUNK_PARTS 3

/*
 * The chunk of the records of `b` not yet written, in `parts` (CHUNK_PARTS, unused ones empty);
 * none when there is nothing to write, or `b` is closed (what its thread recorded since is
 * counted as lost).
 */
static void chunk_of(struct tp_record_buffer *b, bool owner, struct chunk_out *c,
		     struct iovec *parts)
{
	uint32_t used = __atomic_load_n(&b->used, __ATOMIC_ACQUIRE), from = b->written, last;
	uint32_t records = count_records(b->data, from, used, &last);
	c->end = used;
	c->has = false;
	for (int i = 0; i < CHUNK_PARTS; i++)
		parts[i] = (struct iovec){NULL, 0};
	if (b->closed) {
		if (owner) /* its records since it was closed: taken, and counted */
			__atomic_fetch_add(
				&dropped_at_exit,
				records + __atomic_exchange_n(&b->dropped, 0, __ATOMIC_RELAXED),
				__ATOMIC_RELAXED);
		return;
	}
	/* taken: a signal handler on the owner thread may count more drops meanwhile */
	uint64_t dropped = __atomic_exchange_n(&b->dropped, 0, __ATOMIC_RELAXED);
	if (records == 0 && dropped == 0)
		return;
	c->has = true;
	c->header = (struct tp_recording_chunk){
		.magic = TP_CHUNK_MAGIC,
		.size = (uint32_t)(sizeof c->header + (used - from)),
		.tid = (uint32_t)b->tid,
		.records = records,
		.dropped = dropped,
		.base_time = b->base,
	};
	tp_clock_pair(&c->header.clock_time, &c->header.ns);
	if (owner) /* its name now: another thread may have renamed it */
		tp_thread_read_name(b->comm);
	memcpy(c->header.comm, b->comm, sizeof c->header.comm);
	parts[0] = (struct iovec){&c->header, sizeof c->header};
	parts[1] = (struct iovec){b->data + from, used - from};
	const uint64_t *last_words = (const uint64_t *)(b->data + last);
	uint32_t last_bytes = used - last;
	if (records > 0 &&
	    is_compact(tp_record_type(__atomic_load_n(&last_words[0], __ATOMIC_RELAXED))) &&
	    last_bytes <= sizeof c->last_copy) {
		for (uint32_t i = 0; i < last_bytes / 8; i++)
			c->last_copy[i] = __atomic_load_n(&last_words[i], __ATOMIC_RELAXED);
		parts[1].iov_len -= last_bytes;
		parts[2] = (struct iovec){c->last_copy, last_bytes};
	}
}

/* After its chunk was written (or none): only its own thread empties it. */
static void chunk_written(struct tp_record_buffer *b, bool owner, const struct chunk_out *c,
			  bool ok)
{
	if (c->has)
		__atomic_fetch_add(ok ? &dropped_in_chunks : &dropped_at_exit,
				   ok ? c->header.dropped : c->header.records + c->header.dropped,
				   __ATOMIC_RELAXED);
	__atomic_store_n(&b->written, c->end, __ATOMIC_RELAXED);
	if (owner) {
		buffer_reset(b);
		tp_thread_read_name(b->comm);
	}
}

static void buffer_write_locked(struct tp_record_buffer *b, bool owner)
{
	struct chunk_out c;
	struct iovec parts[CHUNK_PARTS];
	chunk_of(b, owner, &c, parts);
	bool ok = c.has && tp_record_file_write(parts, CHUNK_PARTS);
	chunk_written(b, owner, &c, ok);
}

/* The calling thread writes its own buffer out. */
static void buffer_write(struct tp_record_buffer *b)
{
	tp_spin_lock(&b->writing);
	buffer_write_locked(b, true);
	tp_spin_unlock(&b->writing);
}

/*
 * Room for a record of `words` words in the calling thread's buffer, marked busy, its word
 * written; NULL (the event counted as dropped) when the thread is already inside the recorder
 * (a signal handler's event) or has no buffer and cannot get one. record_done ends it.
 */
static void park_written(void);

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

/* A record's start, timed `at` (tp_clock_now's), or now when `at` is 0. */
static struct tp_record *record_begin_at(enum tp_record_type type, unsigned small, unsigned words,
					 uint64_t at)
{
	/* a site's or a module's record is no event: the park stays kept back across it */
	if (__builtin_expect(mine.park_pending && !mine.busy && type != TP_RECORD_WAITED &&
				     type != TP_RECORD_SITE_CODE && type != TP_RECORD_MODULE,
			     0))
		park_written();
	if (__builtin_expect(mine.busy || mine.stopped, 0)) {
		/* a signal handler's event inside the recorder; an event after the thread's end */
		if (mine.buffer != NULL)
			__atomic_fetch_add(&mine.buffer->dropped, 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&dropped_unrecorded, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	tp_guard_enter(&mine.busy);
	small |= takes_park(type);
	int saved_errno = errno; /* the event follows a call whose errno the program reads */
	struct tp_record_buffer *b = mine.buffer;
	if (__builtin_expect(b == NULL, 0)) {
		b = mine.buffer = buffer_get();
		if (b == NULL) {
			__atomic_fetch_add(&dropped_unrecorded, 1, __ATOMIC_RELAXED);
			errno = saved_errno;
			tp_guard_leave(&mine.busy, false);
			return NULL;
		}
	}
	if (__builtin_expect(b->used + 8 * words > TP_RECORD_BUFFER_BYTES, 0))
		buffer_write(b);
	uint64_t now = at != 0 ? at : tp_clock_now();
	if (now - b->base > TP_RECORD_DELTA_MAX) {
		/* too long since the buffer's base for a record's 40 bits (or before it: a time
		 * given): a new chunk, a new base */
		if (b->used > b->written)
			buffer_write(b);
		b->base = now;
	}
	errno = saved_errno;
	struct tp_record *r = (struct tp_record *)(b->data + b->used);
	r->word = tp_record_word(type, words, small, now - b->base);
	return r;
}

static struct tp_record *record_begin(enum tp_record_type type, unsigned small, unsigned words)
{
	return record_begin_at(type, small, words, 0);
}

static void record_done(const struct tp_record *r)
{
	struct tp_record_buffer *b = mine.buffer;
	if (is_compact(tp_record_type(r->word)))
		b->last = b->used;
	__atomic_store_n(&b->used, b->used + tp_record_bytes(r->word), __ATOMIC_RELEASE);
	tp_guard_leave(&mine.busy, false);
}

/* tp_record's path when the fast one cannot be taken: a first event, a full buffer, a signal. */
__attribute__((noinline, cold)) static void record_slow(enum tp_record_type type, uint32_t small,
							unsigned nargs, uint64_t a0, uint64_t a1,
							uint64_t a2, uint64_t a3)
{
	struct tp_record *r = record_begin(type, small, 1 + nargs);
	if (r == NULL)
		return;
	const uint64_t args[4] = {a0, a1, a2, a3};
	for (unsigned i = 0; i < nargs; i++)
		r->arg[i] = args[i];
	record_done(r);
}

/*
 * The recorder's clock (tp_clock_now), read in line when `tsc` (the time-stamp counter is the
 * clock, as the caller checked): an event's path that reads it makes no call then, and keeps no
 * registers for one.
 */
static inline __attribute__((always_inline)) uint64_t clock_read(bool tsc)
{
#if defined(__x86_64__)
	return tsc ? __rdtsc() : tp_clock_now();
#else
	(void)tsc;
	return tp_clock_now();
#endif
}

/*
 * The record of almost every event, with no call on its way where the time-stamp counter is the
 * clock: room for the largest is checked once, and all four arguments are written (what lies
 * past `nargs` is the next record's place, written over by it).
 */
#define FAST_RECORD_BYTES (sizeof(struct tp_record) + 4 * sizeof(uint64_t))
_Static_assert(FAST_RECORD_BYTES == 8 * COMPACT_RECORD_WORDS, "a compact record is a fast one");

static inline __attribute__((always_inline)) void record_fast(enum tp_record_type type,
							      uint32_t small, unsigned nargs,
							      uint64_t a0, uint64_t a1, uint64_t a2,
							      uint64_t a3, bool tsc)
{
	if (__builtin_expect(mine.busy || (mine.park_pending && type != TP_RECORD_WAITED), 0)) {
		/* a signal handler's: dropped; a kept-back park first */
		record_slow(type, small, nargs, a0, a1, a2, a3);
		return;
	}
	/* busy before anything is read: a signal handler's event in between cannot move it */
	tp_guard_enter(&mine.busy);
	struct tp_record_buffer *b = mine.buffer;
	uint64_t now = clock_read(tsc);
	if (__builtin_expect(b == NULL || b->used + FAST_RECORD_BYTES > TP_RECORD_BUFFER_BYTES ||
				     now - b->base > TP_RECORD_DELTA_MAX,
			     0)) {
		tp_guard_leave(&mine.busy, false);
		record_slow(type, small, nargs, a0, a1, a2, a3);
		return;
	}
	uint64_t delta = now - b->base;
	uint32_t used = b->used;
	struct tp_record *r = (struct tp_record *)(b->data + used);
	r->word = tp_record_word(type, 1 + nargs, small | takes_park(type), delta);
	r->arg[0] = a0;
	r->arg[1] = a1;
	r->arg[2] = a2;
	r->arg[3] = a3;
	if (is_compact(type))
		b->last = used;
	__atomic_store_n(&b->used, used + 8 * (1 + nargs), __ATOMIC_RELEASE);
	tp_guard_leave(&mine.busy, false);
}

__attribute__((noinline)) static void record_monotonic(enum tp_record_type type, uint32_t small,
						       unsigned nargs, uint64_t a0, uint64_t a1,
						       uint64_t a2, uint64_t a3)
{
	record_fast(type, small, nargs, a0, a1, a2, a3, false);
}

/* An event's record, inline where the event is frequent (a wait's start: no call on its way). */
static inline __attribute__((always_inline)) void record_event(enum tp_record_type type,
							       uint32_t small, unsigned nargs,
							       uint64_t a0, uint64_t a1,
							       uint64_t a2, uint64_t a3)
{
	if (__builtin_expect(!tp_clock_is_tsc, 0))
		record_monotonic(type, small, nargs, a0, a1, a2, a3);
	else
		record_fast(type, small, nargs, a0, a1, a2, a3, true);
}

void tp_record(enum tp_record_type type, uint32_t small, unsigned nargs, uint64_t a0, uint64_t a1,
	       uint64_t a2, uint64_t a3)
{
	record_event(type, small, nargs, a0, a1, a2, a3);
}

/*
 * Module `index` (code_map.h) into the file, once per process image: where it lay and which file
 * it was (its path and build id), for the converter to read. False when it could not be.
 */
static bool record_module(uint32_t index)
{
	if (__builtin_expect(__atomic_load_n(&module_recorded[index], __ATOMIC_RELAXED), 1) ||
	    __atomic_exchange_n(&module_recorded[index], 1, __ATOMIC_RELAXED))
		return true;
	const struct tp_code_module *m = tp_code_module(index);
	size_t path_bytes = strnlen(m->path, sizeof m->path - 1), path_words = (path_bytes + 7) / 8;
	struct tp_record_module fixed = {.number = index + 1,
					 .bias = m->bias,
					 .start = m->start,
					 .end = m->end,
					 .build_id_bytes = m->build_id_size,
					 .path_bytes = (uint32_t)path_bytes};
	memcpy(fixed.build_id, m->build_id, m->build_id_size);
	const unsigned fixed_words = sizeof fixed / 8;
	struct tp_record *r = record_begin(TP_RECORD_MODULE, 0,
					   1 + fixed_words + (unsigned)path_words);
	if (r == NULL) { /* not recorded: the next site in it tries again */
		__atomic_store_n(&module_recorded[index], 0, __ATOMIC_RELAXED);
		return false;
	}
	memcpy(r->arg, &fixed, sizeof fixed);
	if (path_words > 0)
		r->arg[fixed_words + path_words - 1] = 0; /* the path's last word, padded */
	memcpy(&r->arg[fixed_words], m->path, path_bytes);
	record_done(r);
	return true;
}

/*
 * The code of site key `site` into the file, once per process image, the first time an event
 * has it: its address and kind, after its module's record. Nothing is named here (no file or
 * debug information is read in the program's threads): the converter names the address from
 * the module's file. The recording's site ids are keys, one per address (the converter shows
 * keys of one name as one site).
 */
__attribute__((noinline, cold)) static void record_new_site_code(uint32_t site,
								 enum tp_site_code_kind kind)
{
	uintptr_t address = tp_spawn_site_key_address(site);
	if (address == 0 || __atomic_exchange_n(&site_recorded[site], 1, __ATOMIC_RELAXED))
		return;
	/*
	 * a call's module: its return address may be the first byte past the module's code. As
	 * the shim's work: a signal handler's wait meanwhile looks up no module (this thread may
	 * hold the modules' lock).
	 */
	bool nested = tp_shim_work_begin();
	uint32_t module = tp_code_module_of(kind == TP_SITE_CODE_CALL ? address - 1 : address);
	tp_shim_work_end(nested);
	struct tp_record *r = module == 0 || record_module(module - 1)
				      ? record_begin(TP_RECORD_SITE_CODE, kind, 4)
				      : NULL;
	if (r == NULL) { /* not recorded: the site's next event tries again */
		__atomic_store_n(&site_recorded[site], 0, __ATOMIC_RELAXED);
		return;
	}
	r->arg[0] = site;
	r->arg[1] = address;
	r->arg[2] = module;
	record_done(r);
}

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

void tp_record_mpi_init(uint32_t rank, uint32_t size, const char *host, const char *job)
{
	char text[TP_RECORD_SMALL_MAX];
	size_t host_bytes = strnlen(host, 64), job_bytes = strnlen(job, 128);
	memcpy(text, host, host_bytes);
	text[host_bytes] = '\0';
	memcpy(text + host_bytes + 1, job, job_bytes);
	text[host_bytes + 1 + job_bytes] = '\0';
	unsigned bytes = (unsigned)(host_bytes + job_bytes + 2), words = (bytes + 7) / 8;
	/* the system clock with the monotonic one, read together: ranks of one host agree on it */
	struct timespec real, monotonic;
	int saved_errno = errno;
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &monotonic);
	errno = saved_errno;
	struct tp_record *r = record_begin(TP_RECORD_MPI_INIT, bytes, 5 + words);
	if (r == NULL)
		return;
	r->arg[0] = rank;
	r->arg[1] = size;
	r->arg[2] = (uint64_t)real.tv_sec * 1000000000u + (uint64_t)real.tv_nsec;
	r->arg[3] = (uint64_t)monotonic.tv_sec * 1000000000u + (uint64_t)monotonic.tv_nsec;
	r->arg[4 + words - 1] = 0; /* the text's last word, padded */
	memcpy(&r->arg[4], text, bytes);
	record_done(r);
}

/*
 * Folding (taskprobe_recording.h, version 9): an event that follows another on its thread is
 * written into that one's compact record, while it is the thread's last record, in its buffer
 * and not yet written out. fold_begin gives that record, the recorder entered (busy), or NULL
 * (nothing entered); fold_done or fold_cancel leaves.
 */
static inline struct tp_record *fold_begin(void)
{
	if (__builtin_expect(mine.busy || mine.park_pending, 0)) {
		if (!mine.busy) /* a kept-back park first: then nothing folds */
			park_written();
		return NULL;
	}
	tp_guard_enter(&mine.busy);
	struct tp_record_buffer *b = mine.buffer;
	if (b != NULL && b->last != NO_LAST) {
		struct tp_record *r = (struct tp_record *)(b->data + b->last);
		if (b->last + tp_record_bytes(r->word) == b->used &&
		    b->last >= __atomic_load_n(&b->written, __ATOMIC_RELAXED))
			return r;
	}
	tp_guard_leave(&mine.busy, false);
	return NULL;
}

static inline void fold_cancel(void)
{
	tp_guard_leave(&mine.busy, false);
}

/* `word` with `bits` set in its small argument. */
static inline uint64_t with_small(uint64_t word, unsigned bits)
{
	return word | (uint64_t)bits << (TP_RECORD_TYPE_BITS + TP_RECORD_WORDS_BITS);
}

/* Sets the folded record's word (its arguments stored before), and leaves. */
static inline void fold_done(struct tp_record *r, uint64_t word)
{
	struct tp_record_buffer *b = mine.buffer;
	__atomic_store_n(&r->word, word, __ATOMIC_RELAXED);
	/*
	 * another thread wrote the record out meanwhile (an exit's, an exec's write of every
	 * buffer): its copy may be from before the fold, so the event is counted as lost
	 */
	if (__builtin_expect(b->last < __atomic_load_n(&b->written, __ATOMIC_RELAXED), 0))
		__atomic_fetch_add(&b->dropped, 1, __ATOMIC_RELAXED);
	tp_guard_leave(&mine.busy, false);
}

/* The time from record `r` (of the thread's buffer) to `now`, if it fits a compact record. */
static inline bool since_record_at(const struct tp_record *r, uint64_t now, uint64_t *duration)
{
	*duration = now - (mine.buffer->base + tp_record_delta(r->word));
	return *duration <= UINT32_MAX;
}

/* The time from record `r` (of the thread's buffer) to now, if it fits a compact record. */
static inline bool since_record(const struct tp_record *r, uint64_t *duration)
{
	return since_record_at(r, tp_clock_now(), duration);
}

/* Sets argument `i` of the record (one of its words: never past it, at the buffer's end). */
static inline void fold_arg(struct tp_record *r, unsigned i, uint64_t value)
{
	if (__builtin_expect(8 * (i + 2) <= tp_record_bytes(r->word), 1))
		__atomic_store_n(&r->arg[i], value, __ATOMIC_RELAXED);
}

void tp_record_task_spawn(uint64_t task, uint64_t parent, uint32_t site, uint64_t stack_id,
			  uint32_t small)
{
	record_site_code(site, TP_SITE_CODE_CALL);
	if (task <= UINT32_MAX && parent <= UINT32_MAX && stack_id <= UINT32_MAX &&
	    tp_record_spawn_executor(small) <= TP_COMPACT_SPAWN_EXECUTOR)
		tp_record(TP_RECORD_TASK_SPAWNED, small, 2,
			  tp_compact_pair((uint32_t)task, (uint32_t)parent),
			  tp_compact_pair(site, (uint32_t)stack_id), 0, 0);
	else
		tp_record(TP_RECORD_TASK_SPAWN, small, 4, task, parent, site, stack_id);
}

void tp_record_task_wake(uint64_t task, uint64_t waker)
{
	struct tp_record *r = task <= UINT32_MAX && waker <= UINT32_MAX ? fold_begin() : NULL;
	if (r != NULL) {
		/* woken by its parent right after its spawn */
		if (tp_record_type(r->word) == TP_RECORD_TASK_SPAWNED &&
		    r->arg[0] == tp_compact_pair((uint32_t)task, (uint32_t)waker) &&
		    !(tp_record_small(r->word) & TP_COMPACT_WOKEN)) {
			fold_done(r, with_small(r->word, TP_COMPACT_WOKEN));
			return;
		}
		fold_cancel();
	}
	tp_record(TP_RECORD_TASK_WAKE, 0, 2, task, waker, 0, 0);
}

void tp_record_worker_unpark(bool by_wait)
{
	if (!by_wait) {
		/* an executor's: a record the poll it starts next folds into */
		tp_record(TP_RECORD_TASK_POLLED, TP_COMPACT_UNPARKED, 1, 0, 0, 0, 0);
		return;
	}
	struct tp_record *r = fold_begin();
	if (r != NULL) {
		/* the wait that parked the thread: right after its end, or (a jump out of it) before */
		unsigned small = tp_record_small(r->word);
		uint64_t duration;
		if (tp_record_type(r->word) == TP_RECORD_WAITED &&
		    (small & (TP_COMPACT_WAIT_PARKED | TP_COMPACT_WAIT_UNPARKED)) ==
			    TP_COMPACT_WAIT_PARKED &&
		    ((small & TP_COMPACT_WAIT_ENDED) || since_record(r, &duration))) {
			if (!(small & TP_COMPACT_WAIT_ENDED))
				fold_arg(r, 2, tp_compact_pair(0, (uint32_t)duration));
			fold_done(r, with_small(r->word, TP_COMPACT_WAIT_UNPARKED));
			return;
		}
		fold_cancel();
	}
	tp_record(TP_RECORD_WORKER_UNPARK, 0, 0, 0, 0, 0, 0);
}

void tp_record_task_poll_start(uint64_t task)
{
	if (task > UINT32_MAX) {
		tp_record(TP_RECORD_TASK_POLL_START, 0, 1, task, 0, 0, 0);
		return;
	}
	struct tp_record *r = fold_begin();
	if (r != NULL) {
		if (tp_record_type(r->word) == TP_RECORD_TASK_POLLED &&
		    tp_record_small(r->word) == TP_COMPACT_UNPARKED) {
			fold_arg(r, 0, task);
			fold_done(r, with_small(r->word, TP_COMPACT_STARTED));
			return;
		}
		fold_cancel();
	}
	tp_record(TP_RECORD_TASK_POLLED, TP_COMPACT_STARTED, 1, task, 0, 0, 0);
}

void tp_record_task_terminate(uint64_t task, uint32_t reason)
{
	if (task > UINT32_MAX || reason > TP_COMPACT_REASON >> TP_COMPACT_REASON_SHIFT) {
		tp_record(TP_RECORD_TASK_TERMINATE, reason, 1, task, 0, 0, 0);
		return;
	}
	struct tp_record *r = fold_begin();
	if (r != NULL) {
		/* the end of the poll it started, with nothing in between */
		uint64_t duration;
		if (tp_record_type(r->word) == TP_RECORD_TASK_POLLED &&
		    tp_compact_low(r->arg[0]) == task &&
		    (tp_record_small(r->word) & (TP_COMPACT_STARTED | TP_COMPACT_TERMINATED |
						 TP_COMPACT_ENDED)) == TP_COMPACT_STARTED &&
		    since_record(r, &duration)) {
			fold_arg(r, 0, tp_compact_pair((uint32_t)task, (uint32_t)duration));
			fold_done(r,
				  with_small(r->word, TP_COMPACT_TERMINATED |
							      reason << TP_COMPACT_REASON_SHIFT));
			return;
		}
		fold_cancel();
	}
	tp_record(TP_RECORD_TASK_ENDED, reason << TP_COMPACT_REASON_SHIFT, 1, task, 0, 0, 0);
}

/* Folds task-poll-end (sync none) into the record of the task's poll or of its terminate. */
static bool poll_end_folded(uint64_t task, uint32_t done)
{
	struct tp_record *r = fold_begin();
	if (r == NULL)
		return false;
	unsigned small = tp_record_small(r->word);
	uint64_t duration;
	if (tp_record_type(r->word) == TP_RECORD_TASK_POLLED && tp_compact_low(r->arg[0]) == task) {
		/* a poll that ends with nothing in between; done, after its terminate */
		unsigned want = done ? TP_COMPACT_STARTED | TP_COMPACT_TERMINATED
				     : TP_COMPACT_STARTED;
		if ((small & (TP_COMPACT_STARTED | TP_COMPACT_TERMINATED | TP_COMPACT_ENDED)) ==
			    want &&
		    (done || since_record(r, &duration))) {
			if (!done)
				fold_arg(r, 0, tp_compact_pair((uint32_t)task, (uint32_t)duration));
			fold_done(r, with_small(r->word, TP_COMPACT_ENDED));
			return true;
		}
	} else if (tp_record_type(r->word) == TP_RECORD_TASK_ENDED && done && r->arg[0] == task &&
		   !(small & (TP_COMPACT_ENDED | TP_COMPACT_PARKED))) {
		fold_done(r, with_small(r->word, TP_COMPACT_ENDED));
		return true;
	}
	fold_cancel();
	return false;
}

void tp_record_task_poll_end(uint64_t task, uint32_t done, uint32_t sync, uint32_t site)
{
	if (sync == 0 && task <= UINT32_MAX && poll_end_folded(task, done))
		return;
	if (site != 0)
		record_site_code(site, TP_SITE_CODE_CALL);
	if (task <= UINT32_MAX && sync <= TP_COMPACT_SYNC_MAX)
		tp_record(TP_RECORD_TASK_PAUSED, tp_record_poll_end_small(done, sync), 1,
			  tp_compact_pair((uint32_t)task, site), 0, 0, 0);
	else if (site == 0)
		tp_record(TP_RECORD_TASK_POLL_END, tp_record_poll_end_small(done, sync), 1, task, 0,
			  0, 0);
	else
		tp_record(TP_RECORD_TASK_POLL_END, tp_record_poll_end_small(done, sync), 2, task,
			  site, 0, 0);
}

/* The park kept back (mine.park_pending) written as it is, before another event. */
static void park_written(void)
{
	mine.park_pending = false;
	record_slow(TP_RECORD_WORKER_PARK, 0, 0, 0, 0, 0, 0);
}

void tp_record_worker_park(bool by_wait)
{
	if (by_wait) {
		/* kept back, no clock read: the wait-start that follows at once takes it */
		if (__builtin_expect(mine.busy || mine.park_pending, 0))
			tp_record(TP_RECORD_WORKER_PARK, 0, 0, 0, 0, 0, 0);
		else
			mine.park_pending = true;
		return;
	}
	struct tp_record *r = fold_begin();
	if (r != NULL) {
		/* right after the poll's end its executor records */
		unsigned small = tp_record_small(r->word), bit = 0;
		switch (tp_record_type(r->word)) {
		case TP_RECORD_TASK_POLLED:
			bit = (small & (TP_COMPACT_ENDED | TP_COMPACT_PARKED)) == TP_COMPACT_ENDED
				      ? TP_COMPACT_PARKED
				      : 0;
			break;
		case TP_RECORD_TASK_PAUSED:
		case TP_RECORD_TASK_ENDED:
			bit = small & TP_COMPACT_PARKED ? 0 : TP_COMPACT_PARKED;
			break;
		default:
			break;
		}
		if (bit != 0) {
			fold_done(r, with_small(r->word, bit));
			return;
		}
		fold_cancel();
	}
	tp_record(TP_RECORD_WORKER_PARK, 0, 0, 0, 0, 0, 0);
}

/* Whether a wait's events fit a compact record (TP_RECORD_WAITED). */
static inline bool wait_compact(uint32_t kind, uint64_t task)
{
	/* an MPI call's wait keeps the records of its probes: the converter aligns ranks by them */
	return task <= UINT32_MAX && kind <= TP_COMPACT_WAIT_KIND && kind != TP_WAIT_MPI;
}

static inline __attribute__((always_inline)) void
record_wait_start(uint32_t kind, uintptr_t object, int64_t timeout_ns, uint64_t task, uint32_t site)
{
	if (wait_compact(kind, task))
		record_event(TP_RECORD_WAITED, kind, timeout_ns == -1 ? 3 : 4, object,
			     tp_compact_pair((uint32_t)task, site), 0, (uint64_t)timeout_ns);
	else
		tp_record(TP_RECORD_WAIT_START, kind, 4, object, (uint64_t)timeout_ns, task, site);
}

/* A wait's start at a site not yet in the file: the site's code first. */
__attribute__((noinline)) static void record_wait_start_new_site(uint32_t kind, uintptr_t object,
								 int64_t timeout_ns, uint64_t task,
								 uint32_t site)
{
	record_site_code(site, TP_SITE_CODE_CALL);
	record_wait_start(kind, object, timeout_ns, task, site);
}

/* Every slow path a tail call: a recorded wait's start keeps no registers. */
void tp_record_wait_start(uint32_t kind, uintptr_t object, int64_t timeout_ns, uint64_t task,
			  uint32_t site)
{
	if (__builtin_expect(!site_code_recorded(site), 0))
		record_wait_start_new_site(kind, object, timeout_ns, task, site);
	else
		record_wait_start(kind, object, timeout_ns, task, site);
}

/* A wait-end with a record of its own (out of line: the folded one's path keeps no registers). */
__attribute__((noinline)) static void record_wait_end_alone(uint32_t kind, uintptr_t object,
							    int64_t result, uint64_t task)
{
	tp_record(TP_RECORD_WAIT_END, kind, 3, object, (uint64_t)result, task, 0);
}

/*
 * Folds wait-end into the record of the wait that started last (parked, maybe), if it is the
 * thread's last record, else records it on its own; the clock read as clock_read(tsc).
 */
static inline __attribute__((always_inline)) void
record_wait_end(uint32_t kind, uintptr_t object, int64_t result, uint64_t task, bool tsc)
{
	struct tp_record *r = result >= INT32_MIN && result <= INT32_MAX && task <= UINT32_MAX
				      ? fold_begin()
				      : NULL;
	if (r != NULL) {
		unsigned small = tp_record_small(r->word);
		uint64_t duration;
		if (tp_record_type(r->word) == TP_RECORD_WAITED &&
		    (small & TP_COMPACT_WAIT_KIND) == kind &&
		    !(small & (TP_COMPACT_WAIT_ENDED | TP_COMPACT_WAIT_UNPARKED)) &&
		    r->arg[0] == object && tp_compact_low(r->arg[1]) == task &&
		    since_record_at(r, clock_read(tsc), &duration)) {
			/* a wait's record has its third argument (3 or 4 of them) */
			__atomic_store_n(
				&r->arg[2],
				tp_compact_pair((uint32_t)(int32_t)result, (uint32_t)duration),
				__ATOMIC_RELAXED);
			fold_done(r, with_small(r->word, TP_COMPACT_WAIT_ENDED));
			return;
		}
		fold_cancel();
	}
	record_wait_end_alone(kind, object, result, task);
}

__attribute__((noinline)) static void record_wait_end_monotonic(uint32_t kind, uintptr_t object,
								int64_t result, uint64_t task)
{
	record_wait_end(kind, object, result, task, false);
}

void tp_record_wait_end(uint32_t kind, uintptr_t object, int64_t result, uint64_t task)
{
	if (__builtin_expect(!tp_clock_is_tsc, 0))
		record_wait_end_monotonic(kind, object, result, task);
	else
		record_wait_end(kind, object, result, task, true);
}

void tp_record_thread_start(uint64_t tid, uintptr_t routine, uint64_t creator_tid)
{
	uint32_t site = tp_spawn_site_key_of_function((const void *)routine);
	record_site_code(site, TP_SITE_CODE_FUNCTION);
	tp_record(TP_RECORD_THREAD_START, 0, 4, tid, routine, creator_tid, site);
}

/* A stack's record: `n_fixed` arguments, then its return addresses (their number in `small`). */
static void record_stack(enum tp_record_type type, const uint64_t *fixed, unsigned n_fixed,
			 const uintptr_t *pcs, uint32_t depth)
{
	if (depth > TP_STACK_DEPTH_MAX)
		depth = TP_STACK_DEPTH_MAX;
	struct tp_record *r = record_begin(type, depth, 1 + n_fixed + depth);
	if (r == NULL)
		return;
	for (unsigned i = 0; i < n_fixed; i++)
		r->arg[i] = fixed[i];
	for (uint32_t i = 0; i < depth; i++)
		r->arg[n_fixed + i] = pcs[i];
	record_done(r);
}

void tp_record_task_stack(uint64_t task, uint64_t stack_id, const uintptr_t *pcs, uint32_t depth)
{
	const uint64_t fixed[] = {task, stack_id};
	record_stack(TP_RECORD_TASK_STACK, fixed, 2, pcs, depth);
}

void tp_record_wait_stack(uint32_t kind, uintptr_t object, uint64_t stack_id, const uintptr_t *pcs,
			  uint32_t depth)
{
	/* only when asked: not the stacks taken for another (the live statistics' samples) */
	if (!tp_record_wants_stacks())
		return;
	const uint64_t fixed[] = {kind, object, stack_id};
	record_stack(TP_RECORD_WAIT_STACK, fixed, 3, pcs, depth);
}

void tp_recorder_thread_renamed(void)
{
	struct tp_record_buffer *b = mine.buffer;
	if (b == NULL || mine.busy)
		return; /* a buffer taken later reads the name then */
	tp_guard_enter(&mine.busy);
	tp_spin_lock(&b->writing); /* the exit may be writing it out */
	tp_thread_read_name(b->comm);
	tp_spin_unlock(&b->writing);
	tp_guard_leave(&mine.busy, false);
}

static void thread_stopped(void)
{
	struct tp_record_buffer *b = mine.buffer;
	if (mine.busy)
		return;
	mine.stopped = true; /* a later event (a TLS destructor's wait) is counted, not kept */
	if (b == NULL)
		return;
	tp_guard_enter(&mine.busy);
	int saved_errno = errno;
	buffer_write(b);
	mine.buffer = NULL;
	tp_spin_lock(&buffers_lock);
	list_remove(b);
	list_add(&spare, b);
	tp_spin_unlock(&buffers_lock);
	errno = saved_errno;
	tp_guard_leave(&mine.busy, false);
}

void tp_record_thread_stop(uint64_t tid, bool by_itself)
{
	tp_record(TP_RECORD_THREAD_STOP, 0, 1, tid, 0, 0, 0);
	if (by_itself)
		thread_stopped();
}

/*
 * Every thread's records written out, by the calling thread, as the exit or an exec will end
 * them all. The threads still running record on: after what was written, or, when `close`
 * (the process's last moment), into buffers that are not written again (counted as lost).
 */
static void write_all_buffers(bool close)
{
	/*
	 * Nested: called from a signal handler (exit, exec) that interrupted the recorder on this
	 * thread, which may hold a lock: none is waited for, and the thread's own buffer, maybe half
	 * way through a record, is written up to its last whole one but not emptied. Guarded: a
	 * signal handler's event now would wait on these locks.
	 */
	bool nested = tp_guard_enter(&mine.busy);
	if (nested ? !tp_spin_try_lock(&buffers_lock) : (tp_spin_lock(&buffers_lock), false)) {
		tp_guard_leave(&mine.busy, nested);
		return;
	}
	/* in batches, each one writev: at exit, the time after the destructors is kept short */
	struct tp_record_buffer *batch[WRITE_BATCH];
	struct chunk_out chunks[WRITE_BATCH];
	struct iovec parts[CHUNK_PARTS * WRITE_BATCH];
	for (struct tp_record_buffer *b = in_use.next; b != &in_use;) {
		int n = 0;
		for (; b != &in_use && n < WRITE_BATCH; b = b->next) {
			if (nested ? !tp_spin_try_lock(&b->writing)
				   : (tp_spin_lock(&b->writing), false))
				continue;
			batch[n] = b;
			chunk_of(b, !nested && b == mine.buffer, &chunks[n],
				 &parts[CHUNK_PARTS * n]);
			n++;
		}
		bool ok = tp_record_file_write(parts, CHUNK_PARTS * n);
		for (int i = 0; i < n; i++) {
			chunk_written(batch[i], !nested && batch[i] == mine.buffer, &chunks[i], ok);
			batch[i]->closed = batch[i]->closed || close;
			tp_spin_unlock(&batch[i]->writing);
		}
	}
	tp_spin_unlock(&buffers_lock);
	tp_guard_leave(&mine.busy, nested);
}

static bool written_before_destructors;

/*
 * The process's last moment, after the destructors, when everything else was written before
 * them: only this thread's records are written (those of the threads that ended were written
 * as they did), and a thread still running now (OpenMP's, after exit() from another thread)
 * has its records counted as lost, not written, without waiting for it: every moment spent here
 * is one more it runs in a runtime its destructor may have freed. A buffer its thread is
 * writing out right now is passed by uncounted (the count is then a lower bound).
 */
static void write_own_close_others(void)
{
	/* nested: exit from a signal handler that interrupted the recorder */
	bool nested = tp_guard_enter(&mine.busy);
	struct tp_record_buffer *own = nested ? NULL : mine.buffer;
	if (own != NULL) {
		tp_spin_lock(&own->writing);
		buffer_write_locked(own, true);
		own->closed = true;
		tp_spin_unlock(&own->writing);
	}
	if (nested ? tp_spin_try_lock(&buffers_lock) : (tp_spin_lock(&buffers_lock), true)) {
		for (struct tp_record_buffer *b = in_use.next; b != &in_use; b = b->next) {
			if (b == own || !tp_spin_try_lock(&b->writing))
				continue;
			uint32_t used = __atomic_load_n(&b->used, __ATOMIC_ACQUIRE), last;
			if (!b->closed)
				__atomic_fetch_add(&dropped_at_exit,
						   count_records(b->data, b->written, used, &last) +
							   __atomic_exchange_n(&b->dropped, 0,
									       __ATOMIC_RELAXED),
						   __ATOMIC_RELAXED);
			__atomic_store_n(&b->written, used, __ATOMIC_RELAXED);
			b->closed = true;
			tp_spin_unlock(&b->writing);
		}
		tp_spin_unlock(&buffers_lock);
	}
	tp_guard_leave(&mine.busy, nested);
}

/*
 * At the start of exit, while every library is in place: its moment, read once for the live
 * statistics too (lifecycle.c), is recorded (where the analysis ends the polls still open, as
 * the exit report, written now, and the live statistics do: the destructors after it are not
 * the program's tasks' time), and what is recorded so far
 * is written then, so that little is left for the process's last moment, after the destructors
 * (see exit_hook.h: libomp's may leave threads running on freed state until the process ends).
 */
void tp_recorder_before_destructors(uint64_t clock_time)
{
	if (!tp_record_file_here())
		return;
	/* not by a thread whose recording ended (the last thread, after main's pthread_exit) or
	 * that recorded nothing (a track of its own for it alone): no mark then, nothing dropped
	 * (the analysis ends at the last event) */
	if (mine.buffer != NULL && !mine.stopped && !mine.busy) {
		struct tp_record *r = record_begin_at(TP_RECORD_PROCESS_EXIT, 0, 1, clock_time);
		if (r != NULL)
			record_done(r);
	}
	write_all_buffers(false);
	written_before_destructors = true;
}

void tp_recorder_at_exit(void)
{
	if (!tp_record_file_here())
		return;
	int saved_errno = errno;
	if (written_before_destructors) {
		write_own_close_others();
	} else {
		write_all_buffers(true);
	}
	errno = saved_errno;
	uint64_t dropped = __atomic_load_n(&dropped_unrecorded, __ATOMIC_RELAXED) +
			   __atomic_load_n(&dropped_at_exit, __ATOMIC_RELAXED) +
			   __atomic_load_n(&dropped_in_chunks, __ATOMIC_RELAXED);
	if (dropped > 0)
		tp_warn("TASKPROBE_RECORD: %llu events were not recorded in %.300s",
			(unsigned long long)dropped, tp_record_file_path());
}

/*
 * The records so far written, for the image that follows continues the file (it has the same
 * pid); if the exec fails, recording goes on.
 */
void tp_recorder_before_exec(void)
{
	if (!tp_record_file_here())
		return;
	int saved_errno = errno;
	write_all_buffers(false);
	errno = saved_errno;
}

/*
 * A system call filter comes, which may kill the process for a write of the recorder's: the
 * records so far are written while nothing refuses them, and recording stops, said.
 */
void tp_recorder_before_seccomp(void)
{
	if (!tp_record_file_here() || tp_record_file_stopped())
		return;
	int saved_errno = errno;
	write_all_buffers(true);
	tp_warn("TASKPROBE_RECORD: the program installs a system call filter (seccomp): recording "
		"stops here, so that no call of taskprobe's can be refused; %.300s holds what came "
		"before",
		tp_record_file_path());
	tp_record_file_stop();
	errno = saved_errno;
}

/*
 * Fork takes the lists' lock, so that the child has them whole; not when this thread is inside
 * the recorder (a fork from a signal handler that interrupted it, which may hold the lock).
 */
static __thread bool fork_took_lock;

void tp_recorder_prepare_fork(void)
{
	fork_took_lock = !mine.busy;
	if (fork_took_lock)
		tp_spin_lock(&buffers_lock);
}

void tp_recorder_parent_after_fork(void)
{
	if (fork_took_lock)
		tp_spin_unlock(&buffers_lock);
}

/*
 * The child records into a file of its own when the path has %p, else not at all: never into
 * its parent's. What the parent's threads had not written out is the parent's: dropped here.
 */
void tp_recorder_child_after_fork(void)
{
	while (in_use.next != &in_use) {
		struct tp_record_buffer *b = in_use.next;
		list_remove(b);
		list_add(&spare, b);
	}
	if (mine.buffer != NULL) {
		list_remove(mine.buffer);
		list_add(&in_use, mine.buffer);
		buffer_reset(mine.buffer);
		mine.buffer->tid = tp_thread_tid();
		tp_thread_read_name(mine.buffer->comm);
		mine.buffer->writing = 0;
		mine.buffer->closed = false;
	}
	buffers_lock = 0;
	int saved_errno = errno;
	if (tp_record_file_child_after_fork()) {
		__atomic_store_n(&dropped_unrecorded, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&dropped_at_exit, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&dropped_in_chunks, 0, __ATOMIC_RELAXED);
		const char *pattern = tp_settings()->record;
		if (strstr(pattern, "%p") == NULL || !open_recording(pattern))
			tp_listeners_in_process_remove(TP_IN_PROCESS_RECORD);
	}
	errno = saved_errno;
}
