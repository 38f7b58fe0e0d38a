// SPDX-License-Identifier: MIT
/*
 * Recordings to timeline events (recording.h). Two passes: the first (recording_scan.c) checks
 * every chunk and record (so that the second trusts them), keeps the site texts and each
 * segment's clock pairs; the second, here, merges the threads' records by time with a heap of
 * per-thread cursors, so memory grows with the threads and chunks, not with the events.
 *
 * What is kept of the recordings is bounded (MAX_CHUNKS and the others: recording_book.h), so
 * that with the
 * timeline's own bounds the converter stays under 256 MiB on any input, a hostile one too: beyond
 * a bound, what comes later is left out, said once on `errors` and counted (recording_totals).
 *
 * A process is its pid, start and pid namespace (a header's, since version 3): two processes of
 * one pid (a pid reused, or pid namespaces) are two processes of the timeline, whose tasks and
 * threads are kept apart. The first of them (in the order of the inputs) keeps its pid in the
 * timeline; each other gets a pid of its own from SYNTHETIC_PID up (Trace Event Format's pids
 * are numbers), and every process of a repeated pid is named "COMM (pid PID...)" in the
 * timeline's process names, the repeats saying so. A recording of several processes (a script's,
 * mpirun's) names each process that recorded events "COMM (pid PID)" too: COMM is its last
 * image's that recorded (a shell's forked child that exec'ed the program is the program).
 */
#define _GNU_SOURCE
#include "recording_book.h"
#include "recording_decode.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handoff.h"
#include "ranks.h"

/* recording_decode.h's table of the compact records' events */
uint64_t compact_events[COMPACT_TYPES][TP_RECORD_SMALL_MAX + 1];

/* (at the start: event_type then asks nothing but the table) */
__attribute__((constructor)) static void make_compact_events(void)
{
	_Static_assert(TP_RECORD_TYPES_END < EVENT_AT_END, "a type fits beside the flag");
	for (unsigned type = TP_RECORD_TASK_SPAWNED; type < TP_RECORD_TYPES_END; type++)
		for (unsigned small = 0; small <= TP_RECORD_SMALL_MAX; small++) {
			uint64_t word = tp_record_word(type, 1, small, 0), events = 0;
			for (unsigned i = 0; i < COMPACT_EVENTS; i++) {
				bool at_end = false; /* beyond its events: its type, as before */
				unsigned event = i < tp_record_events(word)
							 ? compact_event_type(type, small, i,
									      &at_end)
							 : type;
				events |= (uint64_t)(event | (at_end ? EVENT_AT_END : 0))
					  << (8 * i);
			}
			compact_events[type - TP_RECORD_TASK_SPAWNED][small] = events;
		}
}

/* A thread's records, in its chunks' order: chunk refs [chunk, end). The record at `offset` is
 * decoded once, when the cursor comes to it: its events and their times. */
struct cursor {
	uint64_t next_ns;
	uint32_t chunk, end;
	uint32_t offset;     /* of the next record in the chunk */
	uint32_t size;       /* the chunk's (0: its header not read yet) */
	unsigned event;      /* the next of that record's events (tp_record_events) */
	unsigned event_byte; /* its byte of `events` (its type, EVENT_AT_END), once settled */
	unsigned n_events;   /* the record's events; 0: not decoded yet */
	const struct tp_record *record; /* that record, once decoded */
	uint64_t events;                /* their types (record_events) */
	uint64_t ns, end_ns; /* the record's time and its end's (when an event is at its end) */
	bool dropped_said;   /* the current chunk's drops were said */
	bool handed;         /* an event of the thread was handed on */
};

/* Chunks by their thread (process, tid), then in the input's order (see struct chunk_ref);
 * `segments` the book's. */
static int by_thread_then_order(const void *a, const void *b, void *segments)
{
	const struct chunk_ref *x = a, *y = b;
	const struct segment *s = segments;
	if (s[x->segment].process != s[y->segment].process)
		return s[x->segment].process < s[y->segment].process ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->segment != y->segment)
		return x->segment < y->segment ? -1 : 1;
	return x->header < y->header ? -1 : x->header > y->header;
}

/* Whether chunks `x` and `y` are of one thread (of one process). */
static bool same_thread(const struct segment *segments, const struct chunk_ref *x,
			const struct chunk_ref *y)
{
	return segments[x->segment].process == segments[y->segment].process && x->tid == y->tid;
}

/* Segments in order of their process (pid, start, pid namespace), then of the input. */
static int by_process(const void *a, const void *b)
{
	const struct segment *x = *(const struct segment *const *)a,
			     *y = *(const struct segment *const *)b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start_ticks != y->start_ticks)
		return x->start_ticks < y->start_ticks ? -1 : 1;
	if (x->pid_namespace != y->pid_namespace)
		return x->pid_namespace < y->pid_namespace ? -1 : 1;
	return x->scope < y->scope ? -1 : x->scope > y->scope;
}

static bool same_process(const struct segment *x, const struct segment *y)
{
	return x->pid == y->pid && x->start_ticks == y->start_ticks &&
	       x->pid_namespace == y->pid_namespace;
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Whether the `n` segments of `order` (by_process's order) hold several processes with chunks. */
static bool several_recorded(struct segment *const *order, size_t n)
{
	const struct segment *recorded = NULL;
	for (size_t i = 0; i < n; i++)
		if (order[i]->chunks > 0) {
			if (recorded != NULL && !same_process(recorded, order[i]))
				return true;
			recorded = order[i];
		}
	return false;
}

/*
 * Sets each segment's process and its pid in the timeline (see the top of this file), and names
 * the processes of a repeated pid, or every process that recorded when several did. False when
 * out of memory.
 */
static bool number_processes(struct timeline *t, struct segment *segments, size_t n,
			     const struct ranks *ranks)
{
	struct segment **order = calloc(n + 1, sizeof *order);
	uint32_t *pids = calloc(n + 1, sizeof *pids);
	if (order == NULL || pids == NULL) {
		free(order);
		free(pids);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		order[i] = &segments[i];
		pids[i] = segments[i].pid;
	}
	qsort(order, n, sizeof *order, by_process);
	qsort(pids, n, sizeof *pids, by_u32);
	uint64_t processes = 0;
	uint32_t synthetic = SYNTHETIC_PID;
	bool several = several_recorded(order, n);
	for (size_t i = 0; i < n;) {
		/* the processes of one pid: order[i, end) */
		size_t end = i;
		while (end < n && order[end]->pid == order[i]->pid)
			end++;
		/* the first of them in the input keeps the pid */
		const struct segment *first = order[i];
		for (size_t j = i + 1; j < end; j++)
			if (order[j]->scope < first->scope)
				first = order[j];
		bool repeated = !same_process(order[i], order[end - 1]);
		for (size_t j = i; j < end;) {
			size_t k = j;
			uint32_t out_pid = order[j]->pid;
			/* its name's image: the last in the input that recorded (else the last) */
			const struct segment *named = order[j];
			for (; k < end && same_process(order[k], order[j]); k++)
				if ((order[k]->chunks > 0) > (named->chunks > 0) ||
				    ((order[k]->chunks > 0) == (named->chunks > 0) &&
				     order[k]->scope > named->scope))
					named = order[k];
			bool keeps = same_process(order[j], first);
			if (!keeps) {
				while (bsearch(&synthetic, pids, n, sizeof *pids, by_u32) != NULL)
					synthetic++;
				out_pid = synthetic++;
			}
			processes++;
			bool a_rank = false; /* named by ranks.c */
			for (size_t m = j; m < k; m++) {
				order[m]->process = processes;
				order[m]->out_pid = out_pid;
				a_rank |= ranks_names(ranks, (uint32_t)(order[m] - segments));
			}
			if ((repeated || (several && named->chunks > 0)) && t != NULL && !a_rank) {
				char name[160];
				if (keeps)
					snprintf(name, sizeof name, "%s (pid %" PRIu32 ")",
						 named->comm, named->pid);
				else
					snprintf(name, sizeof name,
						 "%s (pid %" PRIu32 " again: another process than "
						 "the first of that pid, started at tick %" PRIu64
						 ", pid namespace %" PRIu64 ")",
						 named->comm, named->pid, named->start_ticks,
						 named->pid_namespace);
				timeline_process_name(t, out_pid, name);
			}
			j = k;
		}
		i = end;
	}
	free(order);
	free(pids);
	return true;
}

/* The cursor's current record, or NULL at its end (moving past empty chunks). */
static inline __attribute__((always_inline)) const struct tp_record *cursor_record(struct cursor *c,
										   struct book *b)
{
	while (c->chunk < c->end) {
		const struct tp_recording_chunk *h = b->refs[c->chunk].header;
		if (c->size == 0) { /* its header read once (pass one checked the chunk) */
			pages_read(&b->pages, h, sizeof *h);
			c->size = h->size;
		}
		if (c->offset < c->size) {
			const struct tp_record *r =
				(const struct tp_record *)((const unsigned char *)h + c->offset);
			pages_read(&b->pages, r, sizeof *r);
			return r;
		}
		c->chunk++;
		c->size = 0;
		c->offset = sizeof *h;
		c->event = 0;
		c->n_events = 0;
		c->dropped_said = false;
	}
	return NULL;
}

/* cursor_settle past the record decoded (or at the cursor's start): the next record with
 * events decoded, at its first. */
static __attribute__((noinline)) bool cursor_settle_record(struct cursor *c, struct book *b)
{
	if (c->n_events != 0) { /* past the record decoded (its bytes counted by the merge) */
		c->offset += tp_record_bytes(c->record->word);
		c->event = 0;
		c->n_events = 0;
	}
	const struct tp_record *r;
	while ((r = cursor_record(c, b)) != NULL && (c->n_events = tp_record_events(r->word)) == 0)
		c->offset += tp_record_bytes(r->word);
	if (r == NULL)
		return false;
	const struct chunk_ref *ref = &b->refs[c->chunk];
	pages_read(&b->pages, r, tp_record_bytes(r->word));
	c->record = r;
	c->events = record_events(r->word);
	record_times(&b->segments[ref->segment], ref->header, r, c->events, c->n_events, &c->ns,
		     &c->end_ns);
	c->event_byte = events_byte(c->events, 0);
	c->next_ns = c->event_byte & EVENT_AT_END ? c->end_ns : c->ns;
	return true;
}

/* Moves to the next event (site and module records are not events), setting next_ns; false at
 * the end. Inline where that is the record's next event (two of three in fib's recording): the
 * call saved and restored registers for more than the rest cost. */
static inline bool cursor_settle(struct cursor *c, struct book *b)
{
	if (c->event < c->n_events) { /* the next event of the record decoded */
		c->event_byte = events_byte(c->events, c->event);
		c->next_ns = c->event_byte & EVENT_AT_END ? c->end_ns : c->ns;
		return true;
	}
	return cursor_settle_record(c, b);
}

/* (inline: the merge sifts at every event) */
static inline void heap_sift_down(struct cursor **heap, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && heap[l]->next_ns < heap[m]->next_ns)
			m = l;
		if (r < n && heap[r]->next_ns < heap[m]->next_ns)
			m = r;
		if (m == i)
			return;
		struct cursor *tmp = heap[i];
		heap[i] = heap[m];
		heap[m] = tmp;
		i = m;
	}
}

/*
 * Events the merge left out: the tasks' wakes and terminates the timeline takes nothing from
 * (timeline_takes_no_task_instants), a fifth of a recursive program's events (BOTS fib) that
 * the thread handing the events on, the conversion's critical path, then no longer decodes
 * (or the one thread that merges and hands on, on a one-CPU machine). Counted by the merging
 * thread in a place of its own (the merge's is read by the other thread at every event), the
 * latest at `ns`.
 */
struct left_out {
	uint64_t n, ns;
};

/* The merge of pass two: the threads' cursors in a heap by their next event's time; with
 * `instants_left_out`, leaving out events (struct left_out). */
struct merge {
	struct book *b;
	struct cursor **heap;
	size_t n_heap;
	bool instants_left_out;
	struct left_out left_out; /* once the merge is over */
};

/* Whether cursor `c`'s next event is one the merge leaves out: neither its thread's first nor
 * its chunk's first (where the chunk's drops are said). Its type asked first: most events are
 * of others. */
static inline bool left_out(const struct merge *m, const struct cursor *c)
{
	unsigned type = c->event_byte & ~EVENT_AT_END;
	return (type == TP_RECORD_TASK_WAKE || type == TP_RECORD_TASK_TERMINATE) &&
	       m->instants_left_out && c->handed && c->dropped_said;
}

/* The heap's first cursor past its event (the cursor settled on its next, or gone). */
static inline void merge_advance(struct merge *m, struct cursor *c)
{
	c->event++;
	if (!cursor_settle(c, m->b))
		m->heap[0] = m->heap[--m->n_heap];
	heap_sift_down(m->heap, m->n_heap, 0);
}

/*
 * The merge's next event, where it is: its record and the record's chunk ref, its type and time
 * (what cursor_settle reckoned), and whether it is its chunk's first (where the chunk's drops are
 * said). 24 bytes: what the relay hands from thread to thread, not the event (event_of's 192).
 */
struct merged {
	const struct tp_record *record;
	uint64_t ns;
	uint32_t chunk;
	uint8_t event; /* its byte of record_events' */
	bool chunk_first;
};

/* The merge's next event in *next; false when every cursor is at its end. Events it leaves
 * out are counted in *left. */
static inline __attribute__((always_inline)) bool merge_next(struct merge *m, struct merged *next,
							     struct left_out *left)
{
	for (;;) {
		if (m->n_heap == 0)
			return false;
		/* (the record's pages were counted as it was decoded: this thread reads no more
		 * of it, the thread handing the events on does) */
		struct cursor *c = m->heap[0];
		if (__builtin_expect(!left_out(m, c), 1)) {
			*next = (struct merged){c->record, c->next_ns, c->chunk,
						(uint8_t)c->event_byte, !c->dropped_said};
			c->dropped_said = true;
			c->handed = true;
			merge_advance(m, c);
			return true;
		}
		left->n++;
		left->ns = c->next_ns; /* the merge's times never go back */
		merge_advance(m, c);
	}
}

/* Where the merged events go: the timeline, or the sink (t NULL); and the MPI ranks, if any
 * (`ranked`: a call an event spared when there are none). */
struct hand_on {
	struct timeline *t;
	const struct recording_sink *sink;
	struct ranks *ranks;
	struct recording_totals *totals;
	bool ranked;
};

/* Whether the timeline's window has ended: later events change nothing. */
static bool handed_all(const struct hand_on *to)
{
	return to->t != NULL && timeline_done(to->t);
}

/* Event `next` of book `b` handed on (its chunk's drops said first, on its track) as `e`, whose
 * fields of its chunk are set when it is the chunk of the event handed before (*chunk: its
 * index; ~0 at first). False when out of memory. */
static inline __attribute__((always_inline)) bool hand_on(const struct hand_on *to,
							  const struct book *b,
							  const struct merged *next,
							  struct timeline_event *e, uint32_t *chunk)
{
	const struct chunk_ref *ref = &b->refs[next->chunk];
	const struct segment *segment = &b->segments[ref->segment];
	if (next->chunk != *chunk) {
		event_of_chunk(ref, segment, e);
		*chunk = next->chunk;
	}
	event_of_record(segment, next->record, next->event, next->ns, e);
	if (next->chunk_first && ref->header->dropped > 0 && to->t != NULL)
		timeline_dropped(to->t, e, ref->header->dropped);
	if (to->t != NULL)
		timeline_add(to->t, e);
	else
		to->sink->event(to->sink->context, e);
	to->totals->events++;
	return !to->ranked || ranks_event(to->ranks, to->t, e);
}

/*
 * The merge handed on in this thread; *merged when all of it was (the window did not end it).
 * False when out of memory. The loop as it was before the relay, inlined into merge_book as it
 * was: built of merge_next and hand_on, or called, the link-time optimiser inlined the
 * timeline's event path otherwise, and one thread (what a one-CPU machine runs) took 2 to 3%
 * more instructions (callgrind, fib -n 20's recording: 204 to 206 M against 199.8 M; 200.4 M
 * so).
 */
static inline __attribute__((always_inline)) bool
hand_on_all(struct merge *m, const struct hand_on *to, bool *merged)
{
	struct book *b = m->b;
	struct cursor **heap = m->heap;
	struct left_out left = {0, 0};
	while (m->n_heap > 0 && !handed_all(to)) {
		struct cursor *c = heap[0];
		const struct chunk_ref *ref = &b->refs[c->chunk];
		const struct tp_record *r = c->record;
		pages_read(&b->pages, r, tp_record_bytes(r->word));
		if (__builtin_expect(left_out(m, c), 0)) { /* as merge_next leaves them out */
			left.n++;
			left.ns = c->next_ns;
			merge_advance(m, c);
			continue;
		}
		c->handed = true;
		struct timeline_event e;
		event_of(ref, &b->segments[ref->segment], r, c->event_byte, c->next_ns, &e);
		/* on the track at the chunk's first event (all drops are counted in pass one) */
		if (!c->dropped_said && ref->header->dropped > 0 && to->t != NULL)
			timeline_dropped(to->t, &e, ref->header->dropped);
		c->dropped_said = true;
		if (to->t != NULL)
			timeline_add(to->t, &e);
		else
			to->sink->event(to->sink->context, &e);
		if (to->ranked && !ranks_event(to->ranks, to->t, &e))
			return false;
		to->totals->events++;
		merge_advance(m, c);
	}
	m->left_out = left;
	*merged = m->n_heap == 0;
	return true;
}

/*
 * The merge on two cores: this thread hands the events on (the slices, the output) while
 * another decodes and merges the records, RELAY_BATCH events ahead at a time, in RELAY_BATCHES
 * batches by turns: the events and their order are the merge's, the output is byte for byte
 * what one thread writes. The merging (the records' times, the heap) is a third of the
 * conversion of fib's recording (BOTS): 150 ms of CPU beside this thread's 290. This thread is
 * the slower: the merging one fills the ring and sleeps until half of it is emptied, woken by
 * this one (handoff.h), once every RELAY_BATCH * RELAY_BATCHES / 2 events. Wakes are dear on a
 * VM (the waker's system time): batches of 512 were 5,000 to 10,000 voluntary context switches
 * for fib -n 30's 24 M events, 8% of this thread's time under perf; of 8192 (3 MiB in all), some
 * 700, and the conversion to speedscope 1.79 s against 2.32 (medians of 7 interleaved runs).
 */
#define RELAY_BATCH   8192
#define RELAY_BATCHES 16

struct relay_batch {
	struct merged next[RELAY_BATCH];
	uint32_t n;
	bool last; /* the merge's end */
};

struct relay {
	struct merge *m;
	struct relay_batch *batches;
	struct handoff h;
};

static void *relay_fill(void *arg)
{
	struct relay *r = arg;
	struct left_out left = {0, 0};
	for (uint64_t i = 0; handoff_to_fill(&r->h, i); i++) {
		struct relay_batch *batch = &r->batches[i % RELAY_BATCHES];
		uint32_t n = 0;
		while (n < RELAY_BATCH && merge_next(r->m, &batch->next[n], &left))
			n++;
		batch->n = n;
		batch->last = n < RELAY_BATCH;
		handoff_fill_done(&r->h, i, batch->last);
		if (batch->last)
			break;
	}
	r->m->left_out = left; /* read after the join */
	return NULL;
}

/* hand_on_all with the merge in a thread of its own (in this one when it cannot start). */
static bool relay(struct merge *m, const struct hand_on *to, bool *merged)
{
	/* (this thread, waiting, is on the critical path: woken at the first batch filled) */
	struct relay r = {.m = m, .h = HANDOFF_INIT(RELAY_BATCHES, 0)};
	pthread_t filler;
	r.batches = malloc(RELAY_BATCHES * sizeof *r.batches);
	if (r.batches == NULL || pthread_create(&filler, NULL, relay_fill, &r) != 0) {
		free(r.batches);
		return hand_on_all(m, to, merged);
	}
	bool ok = true, stopped = false;
	*merged = false;
	/* the event handed on, its fields of its chunk set once a run of it (hand_on) */
	struct timeline_event e = {0};
	uint32_t chunk = ~0u;
	for (uint64_t i = 0; ok && !stopped && !*merged; i++) {
		handoff_to_empty(&r.h, i);
		const struct relay_batch *batch = &r.batches[i % RELAY_BATCHES];
		for (uint32_t j = 0; ok && !stopped && j < batch->n; j++)
			if (!(stopped = handed_all(to)))
				ok = hand_on(to, m->b, &batch->next[j], &e, &chunk);
		*merged = ok && !stopped && batch->last;
		handoff_empty_done(&r.h, i);
	}
	handoff_stop(&r.h);
	pthread_join(filler, NULL);
	free(r.batches);
	return ok;
}

/* A named code site to the timeline. */
static void timeline_code_site(void *t, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	timeline_site(t, scope, id, text, len);
}

/*
 * Each segment's start (TIMELINE_IMAGE_START) to `sink`, before every event: its header's time,
 * on its main thread. A segment's events all come after it, and the analysis reads a process's
 * alone.
 */
static void images_started(const struct recording_sink *sink, const struct segment *segments,
			   size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct segment *s = &segments[i];
		if (s->scope == 0) /* a segment left out (a cut exec's) */
			continue;
		struct timeline_event e = {.pid = s->out_pid,
					   .tid = s->pid,
					   .ns = to_ns(s, s->first_time),
					   .type = TIMELINE_IMAGE_START,
					   .process = s->process,
					   .site_scope = s->scope};
		memcpy(e.comm, s->comm, sizeof s->comm);
		e.comm[sizeof s->comm - 1] = '\0';
		sink->event(sink->context, &e);
	}
}

/* Pass two over book `b` (pass one read): its events merged into `t`, or handed to `sink` (t
 * NULL); `totals` pass one's, added to. False when out of memory or refused. */
static bool merge_book(struct book *b, struct timeline *t, const struct recording_sink *sink,
		       FILE *errors, struct recording_totals *totals)
{
	const struct recording_input *inputs = b->pages.inputs;
	size_t n = b->pages.n;
	struct cursor *cursors = NULL, **heap = NULL;
	size_t n_cursors = 0;
	bool ok = false;
	if (!(t != NULL ? name_code_sites(b->segments, b->n_segments, timeline_code_site, t)
			: name_code_sites(b->segments, b->n_segments, sink->site, sink->context)))
		goto out;
	if (!number_processes(t, b->segments, b->n_segments, b->ranks))
		goto out;
	for (size_t i = 0; i < b->n_segments; i++)
		if (!ranks_segment(b->ranks, (uint32_t)i, b->segments[i].process,
				   b->segments[i].out_pid))
			goto out;
	FILE *figures = sink != NULL ? sink->figures : NULL;
	if (!ranks_align(b->ranks, t, segment_ns, b->segments, errors, figures, &totals->refused))
		goto out;
	for (size_t i = 0; i < b->n_segments; i++)
		b->segments[i].offset_ns = ranks_offset(b->ranks, (uint32_t)i);
	if (sink != NULL)
		images_started(sink, b->segments, b->n_segments);
	struct chunk_ref *refs = b->refs;
	const struct segment *segments = b->segments;
	size_t n_refs = b->n_refs;
	if (n_refs > 0)
		qsort_r(refs, n_refs, sizeof *refs, by_thread_then_order, b->segments);
	size_t n_threads = 0;
	for (size_t i = 0; i < n_refs; i++)
		n_threads += i == 0 || !same_thread(segments, &refs[i], &refs[i - 1]);
	cursors = calloc(n_threads + 1, sizeof *cursors);
	heap = calloc(n_threads + 1, sizeof *heap);
	if (cursors == NULL || heap == NULL)
		goto out;
	drop_pages(inputs, n);
	pages_dropped(&b->pages);
	for (size_t i = 0; i < n_refs;) {
		size_t j = i;
		while (j < n_refs && same_thread(segments, &refs[j], &refs[i]))
			j++;
		cursors[n_cursors++] = (struct cursor){.chunk = (uint32_t)i,
						       .end = (uint32_t)j,
						       .offset = sizeof(struct tp_recording_chunk)};
		i = j;
	}
	size_t n_heap = 0;
	for (size_t i = 0; i < n_cursors; i++)
		if (cursor_settle(&cursors[i], b))
			heap[n_heap++] = &cursors[i];
	for (size_t i = n_heap; i-- > 0;)
		heap_sift_down(heap, n_heap, i);
	/* the merge (relay_fill's, or hand_on_all's) leaves out what the timeline would not take
	 * (not with ranks: their efficiencies take every event) */
	struct merge m = {b, heap, n_heap,
			  .instants_left_out = t != NULL && ranks_none(b->ranks) &&
					       timeline_takes_no_task_instants(t, n_cursors)};
	struct hand_on to = {t, sink, b->ranks, totals, !ranks_none(b->ranks)};
	bool merged;
	if (!(converter_threads() > 1 ? relay(&m, &to, &merged) : hand_on_all(&m, &to, &merged)))
		goto out;
	if (m.left_out.n > 0) {
		timeline_left_out(t, m.left_out.n, m.left_out.ns);
		totals->events += m.left_out.n;
	}
	if (merged)
		ranks_finish(b->ranks, errors, figures, &totals->job);
	/* no event: the timeline names the processes that were recorded (speedscope refuses
	 * a timeline of no event at all) */
	for (size_t i = 0; t != NULL && totals->events == 0 && i < b->n_segments; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s (pid %" PRIu32 ")", segments[i].comm,
			 segments[i].pid);
		if (i == 0 || segments[i].process != segments[i - 1].process)
			timeline_process_name(t, segments[i].out_pid, name);
	}
	ok = true;
out:
	free(cursors);
	free(heap);
	return ok;
}

/* recording_convert into `t`, or recording_read into `sink` (t NULL). */
static bool merge(struct timeline *t, const struct recording_sink *sink,
		  const struct recording_input *inputs, size_t n, FILE *errors,
		  struct recording_totals *totals)
{
	struct book *b = book_new(inputs, n);
	memset(totals, 0, sizeof *totals);
	bool ok = b != NULL && scan_all(t, sink, inputs, n, errors, totals, b) &&
		  merge_book(b, t, sink, errors, totals);
	book_free(b);
	return ok;
}

bool recording_convert(struct timeline *t, const struct recording_input *inputs, size_t n,
		       FILE *errors, struct recording_totals *totals)
{
	return merge(t, NULL, inputs, n, errors, totals);
}

bool recording_read(const struct recording_input *inputs, size_t n,
		    const struct recording_sink *sink, FILE *errors,
		    struct recording_totals *totals)
{
	return merge(NULL, sink, inputs, n, errors, totals);
}

struct recordings *recordings_read(const struct recording_input *inputs, size_t n,
				   struct timeline *t)
{
	struct recordings *r = calloc(1, sizeof *r);
	if (r == NULL || (r->book = book_new(inputs, n)) == NULL ||
	    !scan_all(t, NULL, inputs, n, NULL, &r->totals, r->book)) {
		recordings_free(r);
		return NULL;
	}
	return r;
}

bool recordings_said_nothing(const struct recordings *r)
{
	bool full = false;
	for (int i = 0; i < BOUNDS; i++)
		full |= r->book->full[i];
	return r->totals.cut_files == 0 && !full;
}

bool recordings_convert(struct recordings *r, struct timeline *t, FILE *errors,
			struct recording_totals *totals)
{
	*totals = r->totals;
	return merge_book(r->book, t, NULL, errors, totals);
}

void recordings_free(struct recordings *r)
{
	if (r != NULL)
		book_free(r->book);
	free(r);
}
