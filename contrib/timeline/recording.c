// SPDX-License-Identifier: MIT
/*
 * Recordings to timeline events (recording.h). Two passes: the first checks every chunk and
 * record (so that the second trusts them), keeps the site texts and each segment's clock pairs;
 * the second merges the threads' records by time with a heap of per-thread cursors, so memory
 * grows with the threads and chunks, not with the events.
 *
 * What is kept of the recordings is bounded (MAX_CHUNKS and the others below), so that with the
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
#include "recording.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "code_names.h"
#include "hash.h"
#include "ranks.h"
#include "taskprobe_contract.h"
#include "taskprobe_recording.h"

/* A mapped recording's pages are given back to the kernel (MADV_DONTNEED: the page cache keeps
 * them, a later read maps them again) after pass one, and whenever the pages read since reach
 * this many bytes (struct pages): the converter's resident memory does not grow with the
 * recording, whatever order its chunks are read in. */
#define DROP_PAGES_EVERY (16u << 20)

/*
 * What is kept of the recordings, at most (about 100 MiB in all, with the names code_names.c
 * keeps of the code sites). The recorder writes chunks of up to 256 KiB, a process image's
 * modules and sites once: a gigabyte of its recordings is a few thousand chunks, and a program
 * has thousands of sites, not hundreds of thousands.
 */
#define MAX_CHUNKS      (1u << 20) /* 16 bytes each, and a thread's cursor: 32 more */
#define MAX_SEGMENTS    (1u << 16) /* process images with records kept: 136 bytes each */
#define MAX_MODULES     (1u << 17) /* in all the segments: 72 bytes each */
#define MAX_PATHS_BYTES (8u << 20) /* the modules' paths, each text once */
#define MAX_CODE_SITES  (1u << 16) /* in all the segments: 32 bytes each, and a name */

/* Pids given to the second and later processes of a pid: above any Linux pid (2^22 at most). */
#define SYNTHETIC_PID 0x40000000u

/* A site of a segment kept as code (version 5): named once the segment is read whole. */
struct code_site {
	uint64_t id, address, module;
	unsigned kind;
};

/* A segment: one process image's header, the fit of its clock to nanoseconds, and its code. */
struct segment {
	uint32_t pid;
	uint64_t start_ticks, pid_namespace; /* with pid, its process (0: unknown, version 2) */
	char comm[16];
	uint64_t process; /* its process in the timeline: 1 + its number */
	uint32_t out_pid; /* its process's pid in the timeline */
	uint64_t scope;   /* its site ids' scope in the timeline: 1 + its index */
	uint32_t clock;
	int64_t offset_ns; /* added to its times: an MPI rank's clock aligned to the others' */
	bool has_chunks;   /* a chunk of it is kept */
	uint64_t first_time, first_ns;   /* the pair with the smallest clock time ... */
	uint64_t last_time, last_ns;     /* ... and with the largest */
	long double slope;               /* ns per clock unit through them (set after pass one) */
	size_t chunks;                   /* its whole chunks */
	struct recorded_module *modules; /* its modules, each number once */
	size_t n_modules;
	struct code_site *sites;
	size_t n_sites;
};

/* A whole chunk, checked: its segment (an index) and thread, kept here so that ordering the
 * chunks reads nothing of the input. Chunks are in the input's order by their segments
 * (numbered in that order), then by their addresses (a segment is in one input). */
struct chunk_ref {
	const struct tp_recording_chunk *header;
	uint32_t segment, tid;
};

/* A thread's records, in its chunks' order: chunk refs [chunk, end). */
struct cursor {
	uint64_t next_ns;
	uint32_t chunk, end;
	uint32_t offset;   /* of the next record in the chunk */
	unsigned event;    /* the next of that record's events (tp_record_events) */
	bool dropped_said; /* the current chunk's drops were said */
};

/*
 * The mapped inputs' pages read since they were last given back (see DROP_PAGES_EVERY), counted
 * in blocks of MAP_BLOCK bytes: a fault maps the pages around it too (the kernel's fault-around,
 * 64 KiB), so a read anywhere in a block may map all of it. Blocks read lately are remembered
 * (`seen`, by their number's low bits), not counted again until the pages are given back.
 */
#define MAP_BLOCK (64u << 10)
#define MAP_SEEN  64
struct pages {
	const struct recording_input *inputs;
	size_t n;
	unsigned shift;           /* a block is 1 << shift bytes: MAP_BLOCK, or a larger page */
	uintptr_t last;           /* the block read last */
	uint64_t mapped;          /* bytes of the blocks read since */
	uintptr_t seen[MAP_SEEN]; /* 1 + the blocks counted since */
};

/* The modules' paths, each text once (every image loads the same libraries): NUL-terminated in
 * `pool` (offset 0: the empty path), found by an open-addressed table of offsets (0: free). */
struct paths {
	char *pool;
	size_t len, cap;
	uint32_t *slots;
	size_t size, used; /* size: a power of two */
};

/* The bounds, each said once when met. */
enum bound { FULL_CHUNKS, FULL_SEGMENTS, FULL_MODULES, FULL_PATHS, FULL_SITES, BOUNDS };

/* What pass one keeps of the inputs. */
struct book {
	struct segment *segments;
	size_t n_segments;
	struct chunk_ref *refs;
	size_t n_refs, cap_refs;
	size_t n_modules, n_sites; /* kept in all the segments */
	struct paths paths;
	struct pages pages;
	const char *input; /* the input being read, and where: for messages */
	size_t at;
	bool full[BOUNDS];
	struct ranks *ranks; /* the MPI ranks' records */
	/* the module numbers kept of the segment being read */
	uint8_t numbers[TP_RECORD_MODULES_MAX / 8 + 1];
};

/* The arguments a record type needs, in 64-bit words (the site: its id). */
static unsigned args_needed(unsigned type)
{
	switch (type) {
	case TP_RECORD_TASK_SPAWN:
		return 4;
	case TP_RECORD_WAITED: /* object, task and site, result and duration (then a timeout) */
		return 3;
	case TP_RECORD_TASK_SPAWNED:
	case TP_RECORD_TASK_STACK:
	case TP_RECORD_TASK_WAKE:
	case TP_RECORD_TASK_DEPENDENCE:
	case TP_RECORD_TASK_ACQUIRE:
	case TP_RECORD_TASK_RELEASE:
		return 2;
	case TP_RECORD_MPI_INIT:
	case TP_RECORD_MPI_SEND:
	case TP_RECORD_MPI_RECV:
		return 4;
	case TP_RECORD_THREAD_START:
	case TP_RECORD_WAIT_START:
	case TP_RECORD_WAIT_END:
	case TP_RECORD_SITE_CODE:
	case TP_RECORD_WAIT_STACK: /* kind, object, stack id (then its return addresses) */
		return 3;
	case TP_RECORD_MODULE:
		return sizeof(struct tp_record_module) / 8;
	case TP_RECORD_WORKER_START:
	case TP_RECORD_WORKER_STOP:
	case TP_RECORD_WORKER_PARK:
	case TP_RECORD_WORKER_UNPARK:
	case TP_RECORD_REGION_OF_INTEREST:
	case TP_RECORD_PROCESS_EXIT:
		return 0;
	default:
		return 1;
	}
}

/*
 * Event `i` of record `word` (one of tp_record_events): its type (the probe's, a compact
 * record's given back, taskprobe_recording.h), and in *at_end whether it comes at the compact
 * record's end (its time + its duration) rather than at its time.
 */
static unsigned event_type(uint64_t word, unsigned i, bool *at_end)
{
	unsigned small = tp_record_small(word), type = tp_record_type(word);
	*at_end = false;
	/* a compact record's events, in their order, each when its flag is set */
	enum { ALWAYS = ~0u };
	static const struct {
		unsigned flag, type;
		bool at_end;
	} polled[] = {{TP_COMPACT_UNPARKED, TP_RECORD_WORKER_UNPARK, false},
		      {TP_COMPACT_STARTED, TP_RECORD_TASK_POLL_START, false},
		      {TP_COMPACT_TERMINATED, TP_RECORD_TASK_TERMINATE, true},
		      {TP_COMPACT_ENDED, TP_RECORD_TASK_POLL_END, true},
		      {TP_COMPACT_PARKED, TP_RECORD_WORKER_PARK, true}},
	  ended[] = {{ALWAYS, TP_RECORD_TASK_TERMINATE, false},
		     {TP_COMPACT_ENDED, TP_RECORD_TASK_POLL_END, false},
		     {TP_COMPACT_PARKED, TP_RECORD_WORKER_PARK, false}},
	  paused[] = {{ALWAYS, TP_RECORD_TASK_POLL_END, false},
		      {TP_COMPACT_PARKED, TP_RECORD_WORKER_PARK, false}},
	  spawned[] = {{ALWAYS, TP_RECORD_TASK_SPAWN, false},
		       {TP_COMPACT_WOKEN, TP_RECORD_TASK_WAKE, false}},
	  waited[] = {{TP_COMPACT_WAIT_PARKED, TP_RECORD_WORKER_PARK, false},
		      {ALWAYS, TP_RECORD_WAIT_START, false},
		      {TP_COMPACT_WAIT_ENDED, TP_RECORD_WAIT_END, true},
		      {TP_COMPACT_WAIT_UNPARKED, TP_RECORD_WORKER_UNPARK, true}};
	const void *events;
	size_t n;
	switch (type) {
#define EVENTS(array) (events = (array), n = sizeof(array) / sizeof(array)[0])
	case TP_RECORD_TASK_POLLED:
		EVENTS(polled);
		break;
	case TP_RECORD_TASK_ENDED:
		EVENTS(ended);
		break;
	case TP_RECORD_TASK_PAUSED:
		EVENTS(paused);
		break;
	case TP_RECORD_TASK_SPAWNED:
		EVENTS(spawned);
		break;
	case TP_RECORD_WAITED:
		EVENTS(waited);
		break;
#undef EVENTS
	default:
		return type;
	}
	const __typeof__(polled[0]) *e = events;
	for (size_t k = 0; k < n; k++)
		if ((e[k].flag == ALWAYS || (e[k].flag & small) != 0) && i-- == 0) {
			*at_end = e[k].at_end;
			return e[k].type;
		}
	return type; /* not reached: i is below tp_record_events */
}

/* The duration a compact record holds (0: none). */
static uint64_t record_duration(const struct tp_record *r)
{
	switch (tp_record_type(r->word)) {
	case TP_RECORD_TASK_POLLED:
		return tp_compact_high(r->arg[0]);
	case TP_RECORD_WAITED:
		return tp_compact_high(r->arg[2]);
	default:
		return 0;
	}
}

/* The clock time of event `i` of record `r` of chunk `h`. */
static uint64_t event_time(const struct tp_recording_chunk *h, const struct tp_record *r,
			   unsigned i)
{
	bool at_end;
	(void)event_type(r->word, i, &at_end);
	return h->base_time + tp_record_delta(r->word) + (at_end ? record_duration(r) : 0);
}

bool recording_detect(const unsigned char *data, size_t size)
{
	return size >= 8 && memcmp(data, TP_RECORDING_MAGIC, 8) == 0;
}

/* Gives the mapped inputs' pages back to the kernel (see DROP_PAGES_EVERY). */
static void drop_pages(const struct recording_input *inputs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (inputs[i].mapped && inputs[i].size > 0)
			madvise((void *)inputs[i].data, inputs[i].size, MADV_DONTNEED);
}

/* The pages were given back: what is read next is counted anew. */
static void pages_dropped(struct pages *p)
{
	p->mapped = 0;
	p->last = 0;
	memset(p->seen, 0, sizeof p->seen);
}

/* Counts blocks [first, last] of the inputs (pages_read). */
static void pages_read_blocks(struct pages *p, uintptr_t first, uintptr_t last)
{
	for (uintptr_t block = first; block <= last; block++) {
		uintptr_t *seen = &p->seen[block % MAP_SEEN];
		if (*seen == block + 1)
			continue;
		if (p->mapped >= DROP_PAGES_EVERY) {
			drop_pages(p->inputs, p->n);
			pages_dropped(p);
		}
		p->mapped += (uint64_t)1 << p->shift;
		*seen = block + 1;
	}
	p->last = last;
}

/* Before `bytes` (1 or more) at `at` of the inputs are read: counted, and the pages read so far
 * given back first when they reach DROP_PAGES_EVERY. */
static inline void pages_read(struct pages *p, const void *at, size_t bytes)
{
	uintptr_t first = (uintptr_t)at >> p->shift, last = ((uintptr_t)at + bytes - 1) >> p->shift;
	if (first != p->last || last != first)
		pages_read_blocks(p, first, last);
}

/* Why the records of `c` (of `size` bytes) are not whole, or NULL. */
static const char *check_records(struct pages *pages, const struct tp_recording_chunk *c,
				 uint32_t size)
{
	const unsigned char *base = (const unsigned char *)c;
	uint32_t records = 0;
	for (uint32_t at = sizeof *c; at < size; records++) {
		const struct tp_record *r = (const struct tp_record *)(base + at);
		pages_read(pages, r, sizeof *r);
		uint32_t bytes = size - at >= sizeof *r ? tp_record_bytes(r->word) : 0;
		if (bytes < sizeof *r || bytes > size - at)
			return "a record's size is wrong";
		pages_read(pages, r, bytes);
		unsigned type = tp_record_type(r->word);
		if (type == 0 || type >= TP_RECORD_TYPES_END)
			return "a record of an unknown type";
		unsigned words = (bytes - (unsigned)sizeof *r) / 8;
		if (words < args_needed(type))
			return "a record too short for its event";
		if (type == TP_RECORD_SITE && tp_record_small(r->word) > 8 * (words - 1))
			return "a site's text longer than its record";
		if (type == TP_RECORD_MPI_INIT && tp_record_small(r->word) > 8 * (words - 4))
			return "an MPI rank's text longer than its record";
		if (type == TP_RECORD_MODULE) {
			struct tp_record_module m;
			memcpy(&m, r->arg, sizeof m);
			if (m.number == 0 || m.number > TP_RECORD_MODULES_MAX || m.start > m.end ||
			    m.build_id_bytes > TP_RECORD_MODULE_BUILD_ID_MAX ||
			    m.path_bytes > TP_RECORD_MODULE_PATH_MAX ||
			    m.path_bytes > 8 * (words - sizeof m / 8))
				return "a module record that does not hold together";
		}
		if (type == TP_RECORD_SITE_CODE &&
		    (r->arg[0] == 0 || r->arg[2] > TP_RECORD_MODULES_MAX ||
		     tp_record_small(r->word) > TP_SITE_CODE_FUNCTION))
			return "a site record that does not hold together";
		at += bytes;
	}
	return records == c->records ? NULL : "a chunk whose record count is wrong";
}

/* The events of chunk `c` (checked). */
static uint64_t chunk_events(struct pages *pages, const struct tp_recording_chunk *c)
{
	uint64_t events = 0;
	for (uint32_t at = sizeof *c; at < c->size;) {
		const struct tp_record *r = (const struct tp_record *)((const char *)c + at);
		pages_read(pages, r, sizeof *r);
		events += tp_record_events(r->word);
		at += tp_record_bytes(r->word);
	}
	return events;
}

/* Says on `errors` (unless NULL), the first time bound `which` is met, what is left out from
 * where the book is reading on. */
__attribute__((format(printf, 4, 5))) static void bound_met(struct book *b, enum bound which,
							    FILE *errors, const char *format, ...)
{
	if (b->full[which])
		return;
	b->full[which] = true;
	if (errors == NULL)
		return;
	char what[256];
	va_list ap;
	va_start(ap, format);
	vsnprintf(what, sizeof what, format, ap);
	va_end(ap);
	fprintf(errors,
		"taskprobe-timeline: %s: from byte %zu on, %s, to keep the converter's memory "
		"under "
		"its bound (256 MiB)\n",
		b->input, b->at, what);
}

/* Keeps chunk `c` of the current segment `s`; false when out of memory. */
static bool keep_chunk(struct book *b, struct segment *s, const struct tp_recording_chunk *c)
{
	if (b->n_refs == b->cap_refs) {
		size_t grown = b->cap_refs ? b->cap_refs * 2 : 256;
		struct chunk_ref *r = realloc(b->refs, grown * sizeof *r);
		if (r == NULL)
			return false;
		b->refs = r;
		b->cap_refs = grown;
	}
	b->refs[b->n_refs++] = (struct chunk_ref){
		.header = c, .segment = (uint32_t)(s - b->segments), .tid = c->tid};
	s->has_chunks = true;
	return true;
}

static void segment_pair(struct segment *s, uint64_t time, uint64_t ns)
{
	if (time < s->first_time) {
		s->first_time = time;
		s->first_ns = ns;
	}
	if (time >= s->last_time) {
		s->last_time = time;
		s->last_ns = ns;
	}
}

/* Segment `s`'s slope, once its pairs are all read: a division once, not per event. */
static void segment_slope(struct segment *s)
{
	if (s->last_time > s->first_time)
		s->slope = ((long double)s->last_ns - (long double)s->first_ns) /
			   ((long double)s->last_time - (long double)s->first_time);
}

/*
 * A record time of segment `s` in nanoseconds, on the line through its first and last pairs (in
 * long double, whose 64-bit mantissa keeps nanoseconds; any input gives a number, clamped).
 */
static uint64_t to_ns_unaligned(const struct segment *s, uint64_t time)
{
	if (s->clock == TP_CLOCK_MONOTONIC)
		return time;
	if (s->last_time <= s->first_time)
		return s->first_ns;
	long double ns = (long double)s->first_ns +
			 ((long double)time - (long double)s->first_time) * s->slope;
	if (!(ns > 0))
		return 0;
	return ns >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)ns;
}

/* As to_ns_unaligned, moved by the segment's offset (ranks.h), clamped. */
static uint64_t to_ns(const struct segment *s, uint64_t time)
{
	uint64_t ns = to_ns_unaligned(s, time);
	if (s->offset_ns < 0)
		return ns > (uint64_t)-s->offset_ns ? ns - (uint64_t)-s->offset_ns : 0;
	return UINT64_MAX - ns > (uint64_t)s->offset_ns ? ns + (uint64_t)s->offset_ns : UINT64_MAX;
}

/* A segment's time in its own clock's nanoseconds, for the ranks' alignment. */
static uint64_t segment_ns(const void *segments, uint32_t segment, uint64_t time)
{
	return to_ns_unaligned(&((const struct segment *)segments)[segment], time);
}

/*
 * Appends `size`-byte `item` to *array of *n, grown at powers of two; false when out of memory.
 */
static bool append(void *array, size_t *n, const void *item, size_t size)
{
	void **items = array;
	if ((*n & (*n - 1)) == 0) { /* grown when n is 0 or a power of two */
		void *grown = realloc(*items, (*n ? 2 * *n : 1) * size);
		if (grown == NULL)
			return false;
		*items = grown;
	}
	memcpy((char *)*items + *n * size, item, size);
	(*n)++;
	return true;
}

/*
 * The offset in the pool of `path` (NUL-terminated), kept there if new; 0 (the empty path) once
 * the pool holds MAX_PATHS_BYTES; false when out of memory.
 */
static bool path_keep(struct paths *p, const char *path, uint32_t *offset)
{
	size_t len = strlen(path);
	*offset = 0;
	if (len == 0)
		return true;
	if (p->size == 0 || (p->used + 1) * 2 > p->size) {
		size_t size = p->size ? 2 * p->size : 256;
		uint32_t *slots = calloc(size, sizeof *slots);
		if (slots == NULL)
			return false;
		for (size_t i = 0; i < p->size; i++)
			if (p->slots[i] != 0) {
				size_t j = tp_hash_text(p->pool + p->slots[i]) & (size - 1);
				while (slots[j] != 0)
					j = (j + 1) & (size - 1);
				slots[j] = p->slots[i];
			}
		free(p->slots);
		p->slots = slots;
		p->size = size;
	}
	size_t i = tp_hash_text(path) & (p->size - 1);
	for (; p->slots[i] != 0; i = (i + 1) & (p->size - 1))
		if (strcmp(p->pool + p->slots[i], path) == 0) {
			*offset = p->slots[i];
			return true;
		}
	if (p->len + len + 1 > MAX_PATHS_BYTES)
		return true;
	if (p->len + len + 1 > p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 4096;
		while (cap < p->len + len + 1)
			cap *= 2;
		char *pool = realloc(p->pool, cap);
		if (pool == NULL)
			return false;
		if (p->len == 0)
			pool[p->len++] = '\0'; /* offset 0: the empty path */
		p->pool = pool;
		p->cap = cap;
	}
	memcpy(p->pool + p->len, path, len + 1);
	p->slots[i] = (uint32_t)p->len;
	p->used++;
	*offset = (uint32_t)p->len;
	p->len += len + 1;
	return true;
}

/* Keeps the module of record `r` (checked) in the current segment `s`, unless one of its number
 * is there already (or the bound is met: said); false when out of memory. */
static bool keep_module(struct book *b, struct segment *s, const struct tp_record *r, FILE *errors)
{
	struct tp_record_module m;
	memcpy(&m, r->arg, sizeof m);
	uint8_t *seen = &b->numbers[m.number / 8], bit = (uint8_t)(1u << m.number % 8);
	if (*seen & bit)
		return true;
	if (b->n_modules == MAX_MODULES) {
		bound_met(b, FULL_MODULES, errors,
			  "modules are not kept (their code is named by its address): more than %u "
			  "in all",
			  MAX_MODULES);
		return true;
	}
	char path[TP_RECORD_MODULE_PATH_MAX + 1];
	memcpy(path, (const char *)r->arg + sizeof m, m.path_bytes);
	path[m.path_bytes] = '\0';
	uint32_t offset;
	if (!path_keep(&b->paths, path, &offset))
		return false;
	if (offset == 0 && path[0] != '\0')
		bound_met(b, FULL_PATHS, errors,
			  "modules' paths are not kept (their code is named by its address): the "
			  "paths take more than %u MiB",
			  MAX_PATHS_BYTES >> 20);
	/* paths are kept as offsets until the pool is whole */
	struct recorded_module kept = {.number = (uint32_t)m.number,
				       .bias = m.bias,
				       .start = m.start,
				       .end = m.end,
				       .build_id_bytes = m.build_id_bytes,
				       .path = (const char *)(uintptr_t)offset};
	memcpy(kept.build_id, m.build_id, m.build_id_bytes);
	*seen |= bit;
	b->n_modules++;
	return append(&s->modules, &s->n_modules, &kept, sizeof kept);
}

/* The module numbers of segment `s` (NULL: none) forgotten: another is read next. */
static void forget_numbers(struct book *b, const struct segment *s)
{
	for (size_t i = 0; s != NULL && i < s->n_modules; i++)
		b->numbers[s->modules[i].number / 8] = 0;
}

/* Keeps the site of record `r` (checked) in `s` (unless the bound is met: said); false when out
 * of memory. */
static bool keep_code_site(struct book *b, struct segment *s, const struct tp_record *r,
			   FILE *errors)
{
	if (b->n_sites == MAX_CODE_SITES) {
		bound_met(b, FULL_SITES, errors,
			  "code sites are not named (shown by their ids): more than %u in all",
			  MAX_CODE_SITES);
		return true;
	}
	struct code_site site = {r->arg[0], r->arg[1], r->arg[2], tp_record_small(r->word)};
	b->n_sites++;
	return append(&s->sites, &s->n_sites, &site, sizeof site);
}

/*
 * A segment for header `h`: a new one; past MAX_SEGMENTS the last one again when nothing of it
 * is kept, else `skipped` (its records left out, said). NULL when out of memory.
 */
static struct segment *segment_start(struct book *b, const struct tp_recording_header *h,
				     struct segment *skipped, FILE *errors)
{
	struct segment *s;
	size_t n = b->n_segments;
	if (n == MAX_SEGMENTS) {
		s = &b->segments[n - 1];
		bound_met(b, FULL_SEGMENTS, errors,
			  "process images (segments) with nothing recorded are forgotten, the "
			  "others' records left out: more than %u in all",
			  MAX_SEGMENTS);
		if (s->has_chunks || s->n_modules > 0 || s->n_sites > 0)
			s = skipped;
	} else {
		if ((n & (n - 1)) == 0) { /* grown when n is 0 or a power of two */
			struct segment *grown = realloc(b->segments,
							(n ? 2 * n : 1) * sizeof *grown);
			if (grown == NULL)
				return NULL;
			b->segments = grown;
		}
		s = &b->segments[b->n_segments++];
	}
	*s = (struct segment){.pid = h->pid,
			      .start_ticks = h->start_ticks,
			      .pid_namespace = h->pid_namespace,
			      .scope = s == skipped ? 0 : (uint64_t)(s - b->segments) + 1,
			      .clock = h->clock,
			      .first_time = h->clock_time,
			      .first_ns = h->ns,
			      .last_time = h->clock_time,
			      .last_ns = h->ns};
	memcpy(s->comm, h->comm, sizeof s->comm);
	s->comm[sizeof s->comm - 1] = '\0';
	return s;
}

/* The next segment header at or after `at` (8-byte aligned, as the recorder writes), or `size`. */
static size_t next_header(struct book *b, const struct recording_input *in, size_t at)
{
	for (at = (at + 8) & ~(size_t)7; at + 8 <= in->size; at += 8) {
		pages_read(&b->pages, in->data + at, 8);
		if (memcmp(in->data + at, TP_RECORDING_MAGIC, 8) == 0)
			return at;
	}
	return in->size;
}

/*
 * Pass one over a file: its segments and whole chunks, the sites said to the timeline (a
 * version 5 segment's kept, to be named once read whole). Stops at the first thing that is not
 * whole, saying so. False when out of memory.
 */
static bool scan(struct timeline *t, const struct recording_sink *sink,
		 const struct recording_input *in, struct book *b, FILE *errors,
		 struct recording_totals *totals)
{
	struct segment *current = NULL, skipped = {0};
	size_t at = 0;
	char other_version[256];
	b->input = in->name;
	while (at < in->size) {
		size_t left = in->size - at;
		const unsigned char *p = in->data + at;
		const char *why = NULL;
		const struct tp_recording_chunk *c = (const struct tp_recording_chunk *)p;
		b->at = at;
		pages_read(&b->pages, p, left < sizeof *c ? left : sizeof *c);
		if (left >= 8 && memcmp(p, TP_RECORDING_MAGIC, 8) == 0) {
			struct tp_recording_header h = {0};
			/* version 2's header is version 3's without the process's start and namespace;
			 * versions 4 and 5 have version 3's (they add records) */
			uint32_t version = 0, header_size = sizeof h;
			const size_t version_end = offsetof(struct tp_recording_header,
							    header_size);
			if (left >= version_end)
				memcpy(&version, p + version_end - sizeof version, sizeof version);
			if (version == 2)
				header_size = TP_RECORDING_HEADER_V2_SIZE;
			if (left < header_size) {
				why = "a header not whole";
			} else {
				pages_read(&b->pages, p, header_size);
				memcpy(&h, p, header_size);
				if (h.version < TP_RECORDING_VERSION_OLDEST ||
				    h.version > TP_RECORDING_VERSION) {
					snprintf(
						other_version, sizeof other_version,
						"a recording of format version %" PRIu32
						", which this taskprobe-timeline does not read (it "
						"reads versions %d to %d): convert it with the "
						"taskprobe-timeline of the taskprobe that recorded "
						"it",
						h.version, TP_RECORDING_VERSION_OLDEST,
						TP_RECORDING_VERSION);
					why = other_version;
				} else if (h.header_size != header_size ||
					   (h.clock != TP_CLOCK_MONOTONIC &&
					    h.clock != TP_CLOCK_TSC)) {
					why = "a header that does not hold together";
				}
			}
			if (why == NULL) {
				forget_numbers(b, current);
				current = segment_start(b, &h, &skipped, errors);
				if (current == NULL)
					return false;
				at += header_size;
				continue;
			}
		} else if (current == NULL) {
			why = "not a recording (no TPRECORD header)";
		} else if (left < sizeof *c || c->magic != TP_CHUNK_MAGIC || c->size < sizeof *c ||
			   c->size % 8 != 0 || c->size > left) {
			why = "a chunk not whole";
		} else {
			why = check_records(&b->pages, c, c->size);
		}
		if (why != NULL) {
			/* what follows may be whole again: an image that exec'ed after a torn write */
			size_t resume = next_header(b, in, at);
			totals->cut_files++;
			if (errors != NULL && why == other_version)
				fprintf(errors,
					"taskprobe-timeline: %s: bytes %zu to %zu skipped: %s\n",
					in->name, at, resume, why);
			else if (errors != NULL)
				fprintf(errors,
					"taskprobe-timeline: %s: bytes %zu to %zu skipped: %s "
					"there (a process killed while writing leaves this)\n",
					in->name, at, resume, why);
			at = resume;
			forget_numbers(b, current);
			current = NULL;
			continue;
		}
		segment_pair(current, c->clock_time, c->ns);
		current->chunks++;
		totals->dropped += c->dropped;
		if (current != &skipped && b->n_refs == MAX_CHUNKS)
			bound_met(b, FULL_CHUNKS, errors,
				  "chunks (a thread's blocks of records) are left out: more than "
				  "%u in all",
				  MAX_CHUNKS);
		if (current == &skipped || b->n_refs == MAX_CHUNKS) {
			totals->left_out += chunk_events(&b->pages, c);
			at += c->size;
			continue;
		}
		if (!keep_chunk(b, current, c))
			return false;
		for (uint32_t r_at = sizeof *c; r_at < c->size;) {
			const struct tp_record *r = (const struct tp_record *)(p + r_at);
			pages_read(&b->pages, r, sizeof *r);
			unsigned type = tp_record_type(r->word);
			if (type == TP_RECORD_SITE || type == TP_RECORD_MODULE ||
			    type == TP_RECORD_SITE_CODE || type == TP_RECORD_MPI_INIT ||
			    type == TP_RECORD_MPI_SEND || type == TP_RECORD_MPI_RECV ||
			    type == TP_RECORD_WAIT_START || type == TP_RECORD_WAIT_END)
				pages_read(&b->pages, r, tp_record_bytes(r->word));
			if ((type == TP_RECORD_MPI_INIT || type == TP_RECORD_MPI_SEND ||
			     type == TP_RECORD_MPI_RECV || type == TP_RECORD_REGION_OF_INTEREST ||
			     ((type == TP_RECORD_WAIT_START || type == TP_RECORD_WAIT_END) &&
			      tp_record_small(r->word) == TP_WAIT_MPI)) &&
			    !ranks_note(b->ranks, (uint32_t)(current - b->segments), c->tid,
					c->base_time + tp_record_delta(r->word), r, in->name))
				return false;
			if (t != NULL && type == TP_RECORD_SITE)
				timeline_site(t, current->scope, r->arg[0],
					      (const char *)&r->arg[1], tp_record_small(r->word));
			else if (sink != NULL && type == TP_RECORD_SITE)
				sink->site(sink->context, current->scope, r->arg[0],
					   (const char *)&r->arg[1], tp_record_small(r->word));
			else if ((type == TP_RECORD_MODULE &&
				  !keep_module(b, current, r, errors)) ||
				 (type == TP_RECORD_SITE_CODE &&
				  !keep_code_site(b, current, r, errors)))
				return false;
			r_at += tp_record_bytes(r->word);
		}
		at += c->size;
	}
	forget_numbers(b, current);
	return true;
}

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
static const struct tp_record *cursor_record(struct cursor *c, struct book *b)
{
	while (c->chunk < c->end) {
		const struct tp_recording_chunk *h = b->refs[c->chunk].header;
		pages_read(&b->pages, h, sizeof *h);
		if (c->offset < h->size) {
			const struct tp_record *r =
				(const struct tp_record *)((const unsigned char *)h + c->offset);
			pages_read(&b->pages, r, sizeof *r);
			return r;
		}
		c->chunk++;
		c->offset = sizeof *h;
		c->event = 0;
		c->dropped_said = false;
	}
	return NULL;
}

/* Moves to the next event (site and module records are not events), setting next_ns; false at
 * the end. */
static bool cursor_settle(struct cursor *c, struct book *b)
{
	const struct tp_record *r;
	while ((r = cursor_record(c, b)) != NULL && c->event >= tp_record_events(r->word)) {
		c->offset += tp_record_bytes(r->word);
		c->event = 0;
	}
	if (r == NULL)
		return false;
	const struct chunk_ref *ref = &b->refs[c->chunk];
	pages_read(&b->pages, r, tp_record_bytes(r->word));
	c->next_ns = to_ns(&b->segments[ref->segment], event_time(ref->header, r, c->event));
	return true;
}

static void heap_sift_down(struct cursor **heap, size_t n, size_t i)
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

/* The arguments of event `e` (its type set) of compact record `r`. */
static void compact_event_of(const struct tp_record *r, struct timeline_event *e)
{
	unsigned small = tp_record_small(r->word);
	const uint64_t *a = r->arg;
	switch (tp_record_type(r->word)) {
	case TP_RECORD_TASK_SPAWNED: /* spawn: task, parent, site id, site, stack id, executor */
		e->arg[0] = tp_compact_low(a[0]);
		e->arg[1] = tp_compact_high(a[0]);
		if (e->type == TP_RECORD_TASK_WAKE)
			break; /* task, waker: its parent */
		e->arg[2] = tp_compact_low(a[1]);
		e->arg[4] = tp_compact_high(a[1]);
		e->arg[5] = small & TP_COMPACT_SPAWN_EXECUTOR;
		e->undeferred = (small & TP_RECORD_SPAWN_UNDEFERRED) != 0;
		break;
	case TP_RECORD_TASK_POLLED: /* poll-start: task; terminate: task, reason; poll-end */
		if (e->type == TP_RECORD_WORKER_UNPARK || e->type == TP_RECORD_WORKER_PARK)
			break;
		e->arg[0] = tp_compact_low(a[0]);
		if (e->type == TP_RECORD_TASK_TERMINATE)
			e->arg[1] = (small & TP_COMPACT_REASON) >> TP_COMPACT_REASON_SHIFT;
		else if (e->type == TP_RECORD_TASK_POLL_END) /* done after a terminate, sync none */
			e->arg[1] = (small & TP_COMPACT_TERMINATED) != 0;
		break;
	case TP_RECORD_TASK_PAUSED: /* poll-end: task, done, sync, the sync's site key */
		if (e->type != TP_RECORD_TASK_POLL_END)
			break;
		e->arg[0] = tp_compact_low(a[0]);
		e->arg[1] = tp_record_poll_end_done(small);
		e->arg[2] = tp_record_poll_end_sync(small & ~TP_COMPACT_PARKED);
		e->arg[3] = tp_compact_high(a[0]);
		break;
	case TP_RECORD_TASK_ENDED: /* terminate: task, reason; poll-end: task, done */
		if (e->type == TP_RECORD_WORKER_PARK)
			break;
		e->arg[0] = (int64_t)a[0];
		e->arg[1] = e->type == TP_RECORD_TASK_TERMINATE
				    ? (small & TP_COMPACT_REASON) >> TP_COMPACT_REASON_SHIFT
				    : 1;
		break;
	case TP_RECORD_WAITED: /* kind, object, timeout or result, task; a start's site key */
		if (e->type != TP_RECORD_WAIT_START && e->type != TP_RECORD_WAIT_END)
			break;
		e->arg[0] = small & TP_COMPACT_WAIT_KIND;
		e->arg[1] = (int64_t)a[0];
		if (e->type == TP_RECORD_WAIT_END)
			e->arg[2] = (int32_t)tp_compact_low(a[2]);
		else /* no timeout: -1 */
			e->arg[2] = tp_record_bytes(r->word) > sizeof *r + 3 * sizeof a[0]
					    ? (int64_t)a[3]
					    : -1;
		e->arg[3] = tp_compact_low(a[1]);
		if (e->type == TP_RECORD_WAIT_START)
			e->arg[4] = tp_compact_high(a[1]);
		break;
	default:
		break;
	}
}

/* Event `i` of record `r` of chunk `ref` (of `segment`), as a perf sample of its probe would give
 * it. */
static void event_of(const struct chunk_ref *ref, const struct segment *segment,
		     const struct tp_record *r, unsigned i, uint64_t ns, struct timeline_event *e)
{
	memset(e, 0, sizeof *e);
	memcpy(e->comm, ref->header->comm, sizeof ref->header->comm);
	e->comm[sizeof ref->header->comm - 1] = '\0';
	e->pid = segment->out_pid;
	e->process = segment->process;
	e->site_scope = segment->scope;
	e->tid = ref->header->tid;
	e->ns = ns;
	bool at_end;
	e->type = event_type(r->word, i, &at_end);
	unsigned small = tp_record_small(r->word);
	const uint64_t *a = r->arg;
	if (tp_record_type(r->word) >= TP_RECORD_TASK_SPAWNED) {
		compact_event_of(r, e);
		return;
	}
	switch (e->type) {
	case TP_RECORD_TASK_SPAWN: /* task, parent, site id, site (text), stack id, executor */
		e->arg[0] = (int64_t)a[0];
		e->arg[1] = (int64_t)a[1];
		e->arg[2] = (int64_t)a[2];
		e->arg[4] = (int64_t)a[3];
		e->arg[5] = tp_record_spawn_executor(small);
		e->undeferred = (small & TP_RECORD_SPAWN_UNDEFERRED) != 0;
		break;
	case TP_RECORD_TASK_STACK: /* task, stack id, pcs (an address), depth */
		e->arg[0] = (int64_t)a[0];
		e->arg[1] = (int64_t)a[1];
		e->arg[3] = small;
		break;
	case TP_RECORD_TASK_POLL_END: /* task, done, sync; since version 7 the sync's site key */
		e->arg[0] = (int64_t)a[0];
		e->arg[1] = tp_record_poll_end_done(small);
		e->arg[2] = tp_record_poll_end_sync(small);
		if (tp_record_bytes(r->word) >= sizeof *r + 2 * sizeof a[0])
			e->arg[3] = (int64_t)a[1];
		break;
	case TP_RECORD_TASK_ACQUIRE:
	case TP_RECORD_TASK_RELEASE: /* task, kind, object */
		e->arg[0] = (int64_t)a[0];
		e->arg[1] = small;
		e->arg[2] = (int64_t)a[1];
		break;
	case TP_RECORD_REGION_OF_INTEREST: /* on */
		e->arg[0] = small;
		break;
	case TP_RECORD_MPI_INIT: /* rank, size, host (text), job (text): the text is host's */
		e->arg[0] = (int64_t)a[0];
		e->arg[1] = (int64_t)a[1];
		e->text = (const char *)&a[4];
		e->text_len = (uint32_t)strnlen(e->text, small);
		e->text_arg = 3;
		break;
	case TP_RECORD_TASK_TERMINATE:
		e->arg[0] = (int64_t)a[0];
		e->arg[1] = small;
		break;
	case TP_RECORD_WAIT_START:
	case TP_RECORD_WAIT_END: /* kind, object, timeout or result, task; a start's site key */
		e->arg[0] = small;
		for (int i = 0; i < 3; i++)
			e->arg[1 + i] = (int64_t)a[i];
		/* since version 4 a start has its call site's key (a site id of the segment) */
		if (e->type == TP_RECORD_WAIT_START &&
		    tp_record_bytes(r->word) >= sizeof *r + 4 * sizeof a[0])
			e->arg[4] = (int64_t)a[3];
		break;
	case TP_RECORD_THREAD_START: /* tid, start routine, creator; the routine's site key */
		for (int i = 0; i < 3; i++)
			e->arg[i] = (int64_t)a[i];
		if (tp_record_bytes(r->word) >= sizeof *r + 4 * sizeof a[0])
			e->start_routine_site = a[3];
		e->named_as_process = strncmp(e->comm, segment->comm, sizeof segment->comm) == 0;
		break;
	default:
		for (unsigned i = 0; i < args_needed(e->type); i++)
			e->arg[i] = (int64_t)a[i];
	}
}

/* A book for reading `inputs`; NULL when out of memory. */
static struct book *book_new(const struct recording_input *inputs, size_t n)
{
	struct book *b = calloc(1, sizeof *b);
	unsigned shift = 0;
	while ((1l << shift) < sysconf(_SC_PAGESIZE) || (1u << shift) < MAP_BLOCK)
		shift++;
	if (b != NULL)
		b->pages = (struct pages){.inputs = inputs, .n = n, .shift = shift};
	if (b != NULL && (b->ranks = ranks_new()) == NULL) {
		free(b);
		return NULL;
	}
	return b;
}

static void book_free(struct book *b)
{
	code_names_images_freed();
	for (size_t i = 0; b != NULL && i < b->n_segments; i++) {
		free(b->segments[i].modules);
		free(b->segments[i].sites);
	}
	if (b != NULL) {
		ranks_free(b->ranks);
		free(b->segments);
		free(b->refs);
		free(b->paths.pool);
		free(b->paths.slots);
	}
	free(b);
}

/* Pass one over every input, the timeline told the sites unless NULL; false when out of
 * memory. */
static bool scan_all(struct timeline *t, const struct recording_sink *sink,
		     const struct recording_input *inputs, size_t n, FILE *errors,
		     struct recording_totals *totals, struct book *b)
{
	for (size_t i = 0; i < n; i++)
		if (!scan(t, sink, &inputs[i], b, errors, totals))
			return false;
	for (size_t i = 0; i < b->n_segments; i++)
		segment_slope(&b->segments[i]);
	for (size_t i = 0; i < b->n_segments; i++)
		for (size_t j = 0; j < b->segments[i].n_modules; j++) {
			struct recorded_module *m = &b->segments[i].modules[j];
			m->path = b->paths.pool != NULL ? b->paths.pool + (uintptr_t)m->path : "";
		}
	return true;
}

/* A site (scope, id) whose text the site filter keeps. */
struct kept_site {
	uint64_t scope, id;
};

/* The sites the census's site filter keeps: at most this many (the estimate's share of the
 * spawns counts the spawns of the first ones). */
#define MAX_KEPT_SITES (1u << 20)
struct site_filter {
	const struct timeline_options *options;
	struct kept_site *kept;
	size_t n_kept;
	bool failed; /* out of memory */
};

/* Keeps site (scope, id) in the filter when its text holds one of the options' sites. */
static void filter_site(void *context, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	struct site_filter *f = context;
	bool match = false;
	for (size_t j = 0; j < f->options->n_sites; j++)
		match |= memmem(text, len, f->options->sites[j], strlen(f->options->sites[j])) !=
			 NULL;
	struct kept_site site = {scope, id};
	if (match && f->n_kept < MAX_KEPT_SITES &&
	    !append(&f->kept, &f->n_kept, &site, sizeof site))
		f->failed = true;
}

/*
 * speedscope's profile of a thread, as the converter writes it (write_speedscope.c's
 * speedscope_event): an event pending, written unless the next one is of the same frame, in the
 * same microsecond, opening what it closed or closing what it opened (then neither is written).
 * Here a frame is the kind of slice (polls, waits, parks): a site's polls, or a kind's waits, one
 * after another are the same frame. A thread's chunk is counted alone.
 */
struct profile_count {
	bool pending, opens;
	int frame;
	unsigned type;
	uint64_t at, last_at;
};

/* The frame (0 polls, 1 waits, 2 parks) a record type opens or closes; -1: none. */
static int slice_frame(unsigned type, bool *opens)
{
	*opens = type == TP_RECORD_TASK_POLL_START || type == TP_RECORD_WAIT_START ||
		 type == TP_RECORD_WORKER_PARK;
	switch (type) {
	case TP_RECORD_TASK_POLL_START:
	case TP_RECORD_TASK_POLL_END:
		return 0;
	case TP_RECORD_WAIT_START:
	case TP_RECORD_WAIT_END:
		return 1;
	case TP_RECORD_WORKER_PARK:
	case TP_RECORD_WORKER_UNPARK:
		return 2;
	default:
		return -1;
	}
}

/* The profile's pending event counted as written (census->speedscope_events). */
static void profile_count_flush(struct recording_census *census, struct profile_count *p)
{
	if (p->pending)
		census->speedscope_events[p->type]++;
	p->pending = false;
}

/* A record of `type` at microsecond `at` of the window, on the thread's profile. */
static void profile_count_event(struct recording_census *census, struct profile_count *p,
				unsigned type, uint64_t at)
{
	bool opens;
	int frame = slice_frame(type, &opens);
	if (frame < 0)
		return;
	at = at < p->last_at ? p->last_at : at;
	p->last_at = at;
	if (p->pending && p->frame == frame && p->at == at && p->opens != opens) {
		p->pending = false;
		return;
	}
	profile_count_flush(census, p);
	*p = (struct profile_count){true, opens, frame, type, at, at};
}

/* The longest site text made here (as the shim's). */
#define SITE_TEXT_MAX 256

/* Names every segment's code sites (code_names.h), each handed to `site` with its scope; false
 * when out of memory. */
static bool name_code_sites(const struct segment *segments, size_t n,
			    void (*site)(void *context, uint64_t scope, uint64_t id,
					 const char *text, uint32_t len),
			    void *context)
{
	/* a segment's modules by number: 1 + their index (numbers are at most 65535, checked) */
	uint32_t *by_number = calloc(TP_RECORD_MODULES_MAX + 1, sizeof *by_number);
	if (by_number == NULL)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct segment *s = &segments[i];
		for (size_t k = 0; k < s->n_modules; k++)
			by_number[s->modules[k].number] = (uint32_t)k + 1;
		for (size_t j = 0; j < s->n_sites; j++) {
			const struct code_site *c = &s->sites[j];
			uint32_t k = by_number[c->module];
			const struct recorded_module *m = k != 0 ? &s->modules[k - 1] : NULL;
			char text[SITE_TEXT_MAX];
			code_name(s->modules, s->n_modules, m, c->address, c->kind, text,
				  sizeof text);
			site(context, s->scope, c->id, text, (uint32_t)strlen(text));
		}
		for (size_t k = 0; k < s->n_modules; k++)
			by_number[s->modules[k].number] = 0;
	}
	free(by_number);
	return true;
}

/* A named code site to the timeline. */
static void timeline_code_site(void *t, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	timeline_site(t, scope, id, text, len);
}

/* The site id of a spawn's record (a compact one's too). */
static uint64_t spawn_site(const struct tp_record *r)
{
	return tp_record_type(r->word) == TP_RECORD_TASK_SPAWNED ? tp_compact_low(r->arg[1])
								 : r->arg[2];
}

/* Whether the filter keeps site `id` of `scope`. */
static bool site_kept(const struct site_filter *f, uint64_t scope, uint64_t id)
{
	for (size_t j = 0; j < f->n_kept; j++)
		if (f->kept[j].id == id && f->kept[j].scope == scope)
			return true;
	return false;
}

bool recording_count(const struct recording_input *inputs, size_t n,
		     const struct timeline_options *options, struct recording_census *census)
{
	struct book *b = book_new(inputs, n);
	struct site_filter filter = {.options = options};
	struct recording_totals totals = {0};
	bool ok = false;
	memset(census, 0, sizeof *census);
	census->site_share = 1;
	if (b == NULL || !scan_all(NULL, NULL, inputs, n, NULL, &totals, b))
		goto out;
	const struct chunk_ref *refs = b->refs;
	const struct segment *segments = b->segments;
	struct pages *pages = &b->pages;
	/* the sites the filter keeps, before the spawns are counted (texts come anywhere) */
	for (size_t i = 0; options->n_sites > 0 && i < b->n_refs; i++) {
		const struct tp_recording_chunk *h = refs[i].header;
		pages_read(pages, h, sizeof *h);
		for (uint32_t at = sizeof *h; at < h->size;) {
			const struct tp_record *r =
				(const struct tp_record *)((const unsigned char *)h + at);
			pages_read(pages, r, tp_record_bytes(r->word));
			if (tp_record_type(r->word) == TP_RECORD_SITE)
				filter_site(&filter, segments[refs[i].segment].scope, r->arg[0],
					    (const char *)&r->arg[1], tp_record_small(r->word));
			at += tp_record_bytes(r->word);
		}
	}
	if (options->n_sites > 0 &&
	    !name_code_sites(b->segments, b->n_segments, filter_site, &filter))
		goto out;
	if (filter.failed)
		goto out;
	/* the origin: the earliest first record of a chunk (a chunk's records are in order) */
	uint64_t origin = UINT64_MAX;
	for (size_t i = 0; i < b->n_refs; i++) {
		const struct tp_recording_chunk *h = refs[i].header;
		const unsigned char *base = (const unsigned char *)h;
		pages_read(pages, h, sizeof *h);
		for (uint32_t at = sizeof *h; at < h->size;) {
			const struct tp_record *r = (const struct tp_record *)(base + at);
			pages_read(pages, r, sizeof *r);
			if (tp_record_events(r->word) > 0) {
				uint64_t ns = to_ns(&segments[refs[i].segment],
						    event_time(h, r, 0));
				origin = ns < origin ? ns : origin;
				break;
			}
			at += tp_record_bytes(r->word);
		}
	}
	uint64_t from = origin + options->from_ns < origin ? UINT64_MAX : origin + options->from_ns;
	uint64_t to = origin + options->to_ns < origin ? UINT64_MAX : origin + options->to_ns;
	uint64_t spawns = 0, spawns_kept = 0;
	for (size_t i = 0; i < b->n_refs; i++) {
		const struct tp_recording_chunk *h = refs[i].header;
		const unsigned char *base = (const unsigned char *)h;
		pages_read(pages, h, sizeof *h);
		bool thread = options->n_tids == 0;
		for (size_t j = 0; j < options->n_tids; j++)
			thread |= options->tids[j] == h->tid;
		struct profile_count profile = {0};
		for (uint32_t at = sizeof *h; at < h->size;) {
			const struct tp_record *r = (const struct tp_record *)(base + at);
			pages_read(pages, r, tp_record_bytes(r->word));
			at += tp_record_bytes(r->word);
			for (unsigned k = 0, n_events = tp_record_events(r->word); k < n_events;
			     k++) {
				bool at_end;
				unsigned type = event_type(r->word, k, &at_end);
				uint64_t ns = to_ns(&segments[refs[i].segment],
						    event_time(h, r, k));
				if (!thread || ns < from || ns > to)
					continue;
				census->by_type[type]++;
				census->events++;
				/* speedscope's ends: whole microseconds from the window's start,
				 * rounded */
				uint64_t us = (ns - from + 500) / 1000;
				profile_count_event(census, &profile, type, us);
				census->last_us = us > census->last_us ? us : census->last_us;
				if (type == TP_RECORD_TASK_SPAWN && options->n_sites > 0) {
					spawns++;
					spawns_kept += site_kept(&filter,
								 segments[refs[i].segment].scope,
								 spawn_site(r));
				}
			}
		}
		profile_count_flush(census, &profile);
	}
	if (options->n_sites > 0)
		census->site_share = spawns > 0 ? (double)spawns_kept / (double)spawns : 0;
	drop_pages(inputs, n);
	ok = true;
out:
	book_free(b);
	free(filter.kept);
	return ok;
}

/* recording_convert into `t`, or recording_read into `sink` (t NULL). */
static bool merge(struct timeline *t, const struct recording_sink *sink,
		  const struct recording_input *inputs, size_t n, FILE *errors,
		  struct recording_totals *totals)
{
	struct book *b = book_new(inputs, n);
	struct cursor *cursors = NULL, **heap = NULL;
	size_t n_cursors = 0;
	bool ok = false;
	memset(totals, 0, sizeof *totals);
	if (b == NULL || !scan_all(t, sink, inputs, n, errors, totals, b))
		goto out;
	if (!(t != NULL ? name_code_sites(b->segments, b->n_segments, timeline_code_site, t)
			: name_code_sites(b->segments, b->n_segments, sink->site, sink->context)))
		goto out;
	if (!number_processes(t, b->segments, b->n_segments, b->ranks))
		goto out;
	for (size_t i = 0; i < b->n_segments; i++)
		if (!ranks_segment(b->ranks, (uint32_t)i, b->segments[i].process,
				   b->segments[i].out_pid))
			goto out;
	if (!ranks_align(b->ranks, t, segment_ns, b->segments, errors, &totals->refused))
		goto out;
	for (size_t i = 0; i < b->n_segments; i++)
		b->segments[i].offset_ns = ranks_offset(b->ranks, (uint32_t)i);
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
	while (n_heap > 0 && (t == NULL || !timeline_done(t))) {
		struct cursor *c = heap[0];
		const struct chunk_ref *ref = &refs[c->chunk];
		const struct tp_record *r = cursor_record(c, b);
		pages_read(&b->pages, r, tp_record_bytes(r->word));
		struct timeline_event e;
		event_of(ref, &segments[ref->segment], r, c->event, c->next_ns, &e);
		/* on the track at the chunk's first event (all drops are counted in pass one) */
		if (!c->dropped_said && ref->header->dropped > 0 && t != NULL)
			timeline_dropped(t, &e, ref->header->dropped);
		c->dropped_said = true;
		if (t != NULL) {
			timeline_add(t, &e);
			ranks_event(b->ranks, t, &e);
		} else
			sink->event(sink->context, &e);
		totals->events++;
		c->event++;
		if (!cursor_settle(c, b))
			heap[0] = heap[--n_heap];
		heap_sift_down(heap, n_heap, 0);
	}
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
	book_free(b);
	free(cursors);
	free(heap);
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
