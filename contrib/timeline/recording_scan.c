// SPDX-License-Identifier: MIT
/*
 * Pass one over the recordings (recording.h): every chunk and record checked, so that pass two
 * trusts them; the site texts said as they come; per segment (a process image) its clock's
 * pairs, its modules and its code sites kept, each module path once. A file that stops being a
 * recording is said, and read on from the next segment header. What is kept is bounded (see
 * recording_book.h): beyond a bound, what comes later is left out, said once and counted.
 */
#define _GNU_SOURCE
#include "recording_book.h"
#include "recording_decode.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hash.h"
#include "ranks.h"
#include "taskprobe_contract.h"

bool recording_detect(const unsigned char *data, size_t size)
{
	return size >= 8 && memcmp(data, TP_RECORDING_MAGIC, 8) == 0;
}

/* Gives the mapped inputs' pages back to the kernel (see DROP_PAGES_EVERY). */
void drop_pages(const struct recording_input *inputs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (inputs[i].mapped && inputs[i].size > 0)
			madvise((void *)inputs[i].data, inputs[i].size, MADV_DONTNEED);
}

/* The pages were given back: what is read next is counted anew. */
void pages_dropped(struct pages *p)
{
	p->mapped = 0;
	p->last = 0;
	memset(p->seen, 0, sizeof p->seen);
}

/* Counts blocks [first, last] of the inputs (pages_read). */
void pages_read_blocks(struct pages *p, uintptr_t first, uintptr_t last)
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

/* Whether pass one keeps something of a record of `type` (chunk_records): a site, a module, an
 * MPI rank's record, a region of interest; a wait, which may be an MPI one. */
static bool kept_in_pass_one(unsigned type)
{
	return type == TP_RECORD_SITE || type == TP_RECORD_MODULE || type == TP_RECORD_SITE_CODE ||
	       type == TP_RECORD_MPI_INIT || type == TP_RECORD_MPI_SEND ||
	       type == TP_RECORD_MPI_RECV || type == TP_RECORD_MPI_COLLECTIVE ||
	       type == TP_RECORD_REGION_OF_INTEREST || type == TP_RECORD_WAIT_START ||
	       type == TP_RECORD_WAIT_END;
}

/* Why the records of `c` (of `size` bytes) are not whole, or NULL; in *kept whether one of them
 * is of a type pass one keeps something of (else chunk_records need not read them again). */
static const char *check_records(struct pages *pages, const struct tp_recording_chunk *c,
				 uint32_t size, bool *kept)
{
	const unsigned char *base = (const unsigned char *)c;
	uint32_t records = 0;
	*kept = false;
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
		*kept |= kept_in_pass_one(type);
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
		if (tp_record_events(r->word) > COMPACT_EVENTS)
			return "a compact record of more events than it can hold";
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

/* Segment `s`'s slope, once its pairs are all read: a division once, not per event; and, when it
 * is below 1 (a clock of ticks shorter than a nanosecond: a TSC's), in 64-bit fixed point for
 * to_ns_unaligned's integer reckoning. */
void segment_slope(struct segment *s)
{
	s->slope_fixed = 0;
	if (s->last_time <= s->first_time)
		return;
	s->slope = ((long double)s->last_ns - (long double)s->first_ns) /
		   ((long double)s->last_time - (long double)s->first_time);
	/* (below 2^61 ns, and 2^61 ticks on, ns stays below 2^62, as to_ns_unaligned needs) */
	if (s->clock != TP_CLOCK_MONOTONIC && s->slope > 0 && s->slope < 1 &&
	    s->first_ns < 1ull << 61)
		s->slope_fixed = (uint64_t)ldexpl(s->slope, 64);
}

/* to_ns_unaligned in long double: first_ns + (time - first_time) * slope, each step rounded to
 * the 64-bit mantissa, the sum cut to whole nanoseconds, clamped. */
uint64_t to_ns_long_double(const struct segment *s, uint64_t time)
{
	long double ns = (long double)s->first_ns +
			 ((long double)time - (long double)s->first_time) * s->slope;
	if (!(ns > 0))
		return 0;
	return ns >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)ns;
}

/* A segment's time in its own clock's nanoseconds, for the ranks' alignment. */
uint64_t segment_ns(const void *segments, uint32_t segment, uint64_t time)
{
	return to_ns_unaligned(&((const struct segment *)segments)[segment], time);
}

/*
 * Appends `size`-byte `item` to *array of *n, grown at powers of two; false when out of memory.
 */
bool append(void *array, size_t *n, const void *item, size_t size)
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

/* A path's hash, by its text (the pool's offset in the slot). */
static uint64_t path_hash(const void *context, const void *slot)
{
	const struct paths *p = context;
	return tp_hash_text(p->pool + *(const uint32_t *)slot);
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
	struct table *x = &p->offsets;
	if (!table_room(x))
		return false;
	size_t i = table_home(x, tp_hash_text(path));
	for (; table_used(x, i); i = table_next(x, i)) {
		uint32_t kept = *(const uint32_t *)table_slot(x, i);
		if (strcmp(p->pool + kept, path) == 0) {
			*offset = kept;
			return true;
		}
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
	*(uint32_t *)table_fill(x, i) = (uint32_t)p->len;
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
			      .version = h->version,
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
 * The segment header at `p` (`left` bytes there) read into *h and its size into *size; NULL, or
 * why it is not one this converter reads (`other_version`: one of another format version).
 */
static const char *read_segment_header(struct book *b, const unsigned char *p, size_t left,
				       struct tp_recording_header *h, uint32_t *size,
				       char other_version[256])
{
	/* version 2's header is version 3's without the process's start and namespace; versions
	 * 4 and 5 have version 3's (they add records) */
	uint32_t version = 0, header_size = sizeof *h;
	const size_t version_end = offsetof(struct tp_recording_header, header_size);
	if (left >= version_end)
		memcpy(&version, p + version_end - sizeof version, sizeof version);
	if (version == 2)
		header_size = TP_RECORDING_HEADER_V2_SIZE;
	if (left < header_size)
		return "a header not whole";
	pages_read(&b->pages, p, header_size);
	memset(h, 0, sizeof *h);
	memcpy(h, p, header_size);
	*size = header_size;
	if (h->version < TP_RECORDING_VERSION_OLDEST || h->version > TP_RECORDING_VERSION) {
		snprintf(other_version, 256,
			 "a recording of format version %" PRIu32
			 ", which this taskprobe-timeline does not read (it reads versions %d to "
			 "%d): convert it with the taskprobe-timeline of the taskprobe that "
			 "recorded it",
			 h->version, TP_RECORDING_VERSION_OLDEST, TP_RECORDING_VERSION);
		return other_version;
	}
	if (h->header_size != header_size ||
	    (h->clock != TP_CLOCK_MONOTONIC && h->clock != TP_CLOCK_TSC))
		return "a header that does not hold together";
	return NULL;
}

/*
 * The records of chunk `c` (checked, kept) of segment `s` of input `in`: the MPI ranks' noted,
 * the sites said to the timeline (or the sink), the modules and code sites kept. False when out
 * of memory.
 */
static bool chunk_records(struct timeline *t, const struct recording_sink *sink, struct book *b,
			  struct segment *s, const struct tp_recording_chunk *c,
			  const struct recording_input *in, FILE *errors)
{
	const unsigned char *p = (const unsigned char *)c;
	for (uint32_t r_at = sizeof *c; r_at < c->size;) {
		const struct tp_record *r = (const struct tp_record *)(p + r_at);
		pages_read(&b->pages, r, sizeof *r);
		unsigned type = tp_record_type(r->word);
		if (type == TP_RECORD_SITE || type == TP_RECORD_MODULE ||
		    type == TP_RECORD_SITE_CODE || type == TP_RECORD_MPI_INIT ||
		    type == TP_RECORD_MPI_SEND || type == TP_RECORD_MPI_RECV ||
		    type == TP_RECORD_MPI_COLLECTIVE || type == TP_RECORD_WAIT_START ||
		    type == TP_RECORD_WAIT_END)
			pages_read(&b->pages, r, tp_record_bytes(r->word));
		if ((type == TP_RECORD_MPI_INIT || type == TP_RECORD_MPI_SEND ||
		     type == TP_RECORD_MPI_RECV || type == TP_RECORD_MPI_COLLECTIVE ||
		     type == TP_RECORD_REGION_OF_INTEREST ||
		     ((type == TP_RECORD_WAIT_START || type == TP_RECORD_WAIT_END) &&
		      tp_record_small(r->word) == TP_WAIT_MPI)) &&
		    !ranks_note(b->ranks, (uint32_t)(s - b->segments), c->tid,
				c->base_time + tp_record_delta(r->word), r, in->name))
			return false;
		if (t != NULL && type == TP_RECORD_SITE)
			timeline_site(t, s->scope, r->arg[0], (const char *)&r->arg[1],
				      tp_record_small(r->word));
		else if (sink != NULL && type == TP_RECORD_SITE)
			sink->site(sink->context, s->scope, r->arg[0], (const char *)&r->arg[1],
				   tp_record_small(r->word));
		else if ((type == TP_RECORD_MODULE && !keep_module(b, s, r, errors)) ||
			 (type == TP_RECORD_SITE_CODE && !keep_code_site(b, s, r, errors)))
			return false;
		r_at += tp_record_bytes(r->word);
	}
	return true;
}

/*
 * Pass one over a file: its segments and whole chunks, the sites said to the timeline (a
 * version 5 segment's kept, to be named once read whole). Stops at the first thing that is not
 * whole, saying so, and reads on from the next segment header. False when out of memory.
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
		bool kept = false; /* (check_records) */
		const struct tp_recording_chunk *c = (const struct tp_recording_chunk *)p;
		b->at = at;
		pages_read(&b->pages, p, left < sizeof *c ? left : sizeof *c);
		if (left >= 8 && memcmp(p, TP_RECORDING_MAGIC, 8) == 0) {
			struct tp_recording_header h;
			uint32_t header_size = 0;
			why = read_segment_header(b, p, left, &h, &header_size, other_version);
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
			why = check_records(&b->pages, c, c->size, &kept);
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
		if (current == &skipped || b->n_refs == MAX_CHUNKS)
			totals->left_out += chunk_events(&b->pages, c);
		else if (!keep_chunk(b, current, c) ||
			 (kept && !chunk_records(t, sink, b, current, c, in, errors)))
			return false;
		at += c->size;
	}
	forget_numbers(b, current);
	return true;
}

/* A book for reading `inputs`; NULL when out of memory. */
struct book *book_new(const struct recording_input *inputs, size_t n)
{
	struct book *b = calloc(1, sizeof *b);
	unsigned shift = 0;
	while ((1l << shift) < sysconf(_SC_PAGESIZE) || (1u << shift) < MAP_BLOCK)
		shift++;
	if (b != NULL) {
		b->pages = (struct pages){.inputs = inputs, .n = n, .shift = shift};
		table_init(&b->paths.offsets, sizeof(uint32_t), sizeof(uint32_t), 256, path_hash,
			   &b->paths);
	}
	if (b != NULL && (b->ranks = ranks_new()) == NULL) {
		free(b);
		return NULL;
	}
	return b;
}

void book_free(struct book *b)
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
		table_free(&b->paths.offsets);
	}
	free(b);
}

/* Pass one over every input, the timeline told the sites unless NULL; false when out of
 * memory. */
bool scan_all(struct timeline *t, const struct recording_sink *sink,
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

/* The longest site text made here (as the shim's). */
#define SITE_TEXT_MAX 256

/* Names every segment's code sites (code_names.h), each handed to `site` with its scope; false
 * when out of memory. */
bool name_code_sites(const struct segment *segments, size_t n,
		     void (*site)(void *context, uint64_t scope, uint64_t id, const char *text,
				  uint32_t len),
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
