// SPDX-License-Identifier: MIT
/*
 * The in-process recorder's buffers (recorder_private.h): one a thread, mapped at its first
 * event, kept in lists and given back to the spare one at its end; a record's slow path; and
 * every buffer written out as a chunk of the recording file (recorder_file.h) by the thread that
 * filled it, at its end, or by the exiting thread.
 */
#define _GNU_SOURCE
#include "recorder_private.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "clock.h"
#include "recorder_file.h"
#include "reentry.h"
#include "settings.h"
#include "spin_lock.h"
#include "thread_identity.h"

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

int buffers_lock;
struct tp_record_buffer in_use = {.prev = &in_use, .next = &in_use};
struct tp_record_buffer spare = {.prev = &spare, .next = &spare};

uint64_t dropped_unrecorded; /* events lost before a thread had a buffer */
uint64_t dropped_at_exit;    /* recorded, but in a buffer no longer written out */
uint64_t dropped_in_chunks;  /* said in the chunks written (the converter shows them) */

void buffer_reset(struct tp_record_buffer *b)
{
	b->used = 0;
	__atomic_store_n(&b->written, 0, __ATOMIC_RELAXED);
	b->records = 0;
	b->records_written = 0;
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

/*
 * The records in data[from, to): whole ones, as their sizes say; the last one's offset in
 * *last. Atomic loads: the thread may be folding an event into its last record meanwhile (it
 * keeps its size). Another thread's buffer only: a thread counts its own as it records.
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
 * A chunk to write out: its header, then its records in one or two parts: another thread's
 * compact last record is written from a copy read word by word (its thread may fold an event
 * into it meanwhile, and then counts the event lost if it finds the record written: see
 * fold_done).
 */
struct chunk_out {
	struct tp_recording_chunk header;
	uint64_t last_copy[COMPACT_RECORD_WORDS];
	uint32_t end;     /* the buffer's bytes it holds end here */
	uint32_t records; /* the buffer's records before `end` it takes (written, or not) */
	bool has;         /* false: no chunk (nothing to write, or a closed buffer's) */
};
#define CHUNK_PARTS 3

/*
 * The chunk of the records of `b` not yet written, in `parts` (CHUNK_PARTS, unused ones empty);
 * none when there is nothing to write, or `b` is closed (what its thread recorded since is
 * counted as lost). The `owner` (its thread, inside the recorder) counted its records as it
 * wrote them, and folds nothing meanwhile: its records are neither walked nor copied.
 */
static void chunk_of(struct tp_record_buffer *b, bool owner, struct chunk_out *c,
		     struct iovec *parts)
{
	uint32_t used = __atomic_load_n(&b->used, __ATOMIC_ACQUIRE), from = b->written, last = 0;
	uint32_t records = owner ? b->records - b->records_written
				 : count_records(b->data, from, used, &last);
	c->end = used;
	c->records = records;
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
		.base_time = __atomic_load_n(&b->base, __ATOMIC_RELAXED),
	};
	tp_clock_pair(&c->header.clock_time, &c->header.ns);
	if (owner) /* its name now: another thread may have renamed it */
		tp_thread_read_name(b->comm);
	memcpy(c->header.comm, b->comm, sizeof c->header.comm);
	parts[0] = (struct iovec){&c->header, sizeof c->header};
	parts[1] = (struct iovec){b->data + from, used - from};
	const uint64_t *last_words = (const uint64_t *)(b->data + last);
	uint32_t last_bytes = used - last;
	if (!owner && records > 0 &&
	    is_compact(tp_record_type(__atomic_load_n(&last_words[0], __ATOMIC_RELAXED))) &&
	    last_bytes <= sizeof c->last_copy) {
		for (uint32_t i = 0; i < last_bytes / 8; i++)
			c->last_copy[i] = __atomic_load_n(&last_words[i], __ATOMIC_RELAXED);
		parts[1].iov_len -= last_bytes;
		parts[2] = (struct iovec){c->last_copy, last_bytes};
	}
}

/* Records up to `end`, `records` of them, taken: written out, or counted as lost. */
static void buffer_taken(struct tp_record_buffer *b, uint32_t end, uint32_t records)
{
	__atomic_store_n(&b->written, end, __ATOMIC_RELAXED);
	b->records_written += records;
}

/* After its chunk was written (or none): only its own thread empties it. */
static void chunk_written(struct tp_record_buffer *b, bool owner, const struct chunk_out *c,
			  bool ok)
{
	if (c->has)
		__atomic_fetch_add(ok ? &dropped_in_chunks : &dropped_at_exit,
				   ok ? c->header.dropped : c->header.records + c->header.dropped,
				   __ATOMIC_RELAXED);
	buffer_taken(b, c->end, c->records);
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
void buffer_write(struct tp_record_buffer *b)
{
	tp_spin_lock(&b->writing);
	buffer_write_locked(b, true);
	tp_spin_unlock(&b->writing);
}

/* A record's start, timed `at` (tp_clock_now's), or now when `at` is 0. */
struct tp_record *record_begin_at(enum tp_record_type type, unsigned small, unsigned words,
				  uint64_t at)
{
	/* a site's or a module's record is no event: the park stays kept back across it */
	if (__builtin_expect(mine.park_pending && !mine.busy && type != TP_RECORD_WAITED &&
				     type != TP_RECORD_SITE_CODE && type != TP_RECORD_MODULE,
			     0))
		park_written(at);
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
	if (now - b->base > TP_RECORD_WRITE_PERIOD) {
		/* a while since the buffer's base (TP_RECORD_WRITE_PERIOD: what it holds is written
		 * out, for a kill's sake, and a record's 40 bits of time are never short), or before
		 * it (a time given): a new chunk, a new base */
		/* (the exiting thread may be writing it out meanwhile: buffer_write takes its lock;
		 * the base, set outside it, it reads for the chunk of the records after it) */
		if (b->used > __atomic_load_n(&b->written, __ATOMIC_RELAXED))
			buffer_write(b);
		__atomic_store_n(&b->base, now, __ATOMIC_RELAXED);
	}
	errno = saved_errno;
	struct tp_record *r = (struct tp_record *)(b->data + b->used);
	r->word = tp_record_word(type, words, small, now - b->base);
	return r;
}

void record_done(const struct tp_record *r)
{
	struct tp_record_buffer *b = mine.buffer;
	if (is_compact(tp_record_type(r->word)))
		b->last = b->used;
	b->records++;
	__atomic_store_n(&b->used, b->used + tp_record_bytes(r->word), __ATOMIC_RELEASE);
	tp_guard_leave(&mine.busy, false);
}

/* tp_record's path when the fast one cannot be taken: a first event, a full buffer, a signal. */
__attribute__((noinline, cold)) void record_slow(enum tp_record_type type, uint32_t small,
						 unsigned nargs, uint64_t a0, uint64_t a1,
						 uint64_t a2, uint64_t a3, uint64_t at)
{
	struct tp_record *r = record_begin_at(type, small, 1 + nargs, at);
	if (r == NULL)
		return;
	const uint64_t args[4] = {a0, a1, a2, a3};
	for (unsigned i = 0; i < nargs; i++)
		r->arg[i] = args[i];
	record_done(r);
}

/* The park kept back (mine.park_pending) written as it is, before another event, at its moment. */
void park_written(uint64_t at)
{
	mine.park_pending = false;
	record_slow(TP_RECORD_WORKER_PARK, 0, 0, 0, 0, 0, 0, at);
}

/*
 * Every thread's records written out, by the calling thread, as the exit or an exec will end
 * them all. The threads still running record on: after what was written, or, when `close`
 * (the process's last moment), into buffers that are not written again (counted as lost).
 */
void write_all_buffers(bool close)
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

/*
 * The process's last moment, after the destructors, when everything else was written before
 * them: only this thread's records are written (those of the threads that ended were written
 * as they did), and a thread still running now (OpenMP's, after exit() from another thread)
 * has its records counted as lost, not written, without waiting for it: every moment spent here
 * is one more it runs in a runtime its destructor may have freed. A buffer its thread is
 * writing out right now is passed by uncounted (the count is then a lower bound).
 */
void write_own_close_others(void)
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
			uint32_t records = count_records(b->data, b->written, used, &last);
			if (!b->closed)
				__atomic_fetch_add(&dropped_at_exit,
						   records + __atomic_exchange_n(&b->dropped, 0,
										 __ATOMIC_RELAXED),
						   __ATOMIC_RELAXED);
			buffer_taken(b, used, records);
			b->closed = true;
			tp_spin_unlock(&b->writing);
		}
		tp_spin_unlock(&buffers_lock);
	}
	tp_guard_leave(&mine.busy, nested);
}
