// SPDX-License-Identifier: MIT
/*
 * Recordings to timeline events (recording.h). Two passes: the first checks every chunk and
 * record (so that the second trusts them), keeps the site texts and each segment's clock pairs;
 * the second merges the threads' records by time with a heap of per-thread cursors, so memory
 * grows with the threads and chunks, not with the events.
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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "code_names.h"
#include "taskprobe_recording.h"

/* A mapped recording's pages are given back to the kernel (MADV_DONTNEED: the page cache keeps
 * them, a later read maps them again) after pass one, and after each this many bytes of records
 * converted: the converter's resident memory does not grow with the recording. */
#define DROP_PAGES_EVERY (32u << 20)

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
	uint64_t first_time, first_ns;   /* the pair with the smallest clock time ... */
	uint64_t last_time, last_ns;     /* ... and with the largest */
	size_t chunks;                   /* its whole chunks */
	struct recorded_module *modules; /* its modules, each number once */
	size_t n_modules;
	struct code_site *sites;
	size_t n_sites;
};

/* A whole chunk, checked. */
struct chunk_ref {
	const struct segment *segment;
	const struct tp_recording_chunk *header;
	size_t order; /* in the input, across files */
};

/* A thread's records, in its chunks' order. */
struct cursor {
	struct chunk_ref *chunks;
	size_t n_chunks, chunk;
	uint32_t offset; /* of the next record in the chunk */
	uint64_t next_ns;
	bool dropped_said; /* the current chunk's drops were said */
};

/* The arguments a record type needs, in 64-bit words (the site: its id). */
static unsigned args_needed(unsigned type)
{
	switch (type) {
	case TP_RECORD_TASK_SPAWN:
		return 4;
	case TP_RECORD_TASK_STACK:
	case TP_RECORD_TASK_WAKE:
	case TP_RECORD_TASK_DEPENDENCE:
		return 2;
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
		return 0;
	default:
		return 1;
	}
}

/* Whether records of `type` are events (else what names them: sites, modules). */
static bool is_event(unsigned type)
{
	return type != TP_RECORD_SITE && type != TP_RECORD_MODULE && type != TP_RECORD_SITE_CODE;
}

bool recording_detect(const unsigned char *data, size_t size)
{
	return size >= 8 && memcmp(data, TP_RECORDING_MAGIC, 8) == 0;
}

/* Why the records of `c` (of `size` bytes) are not whole, or NULL. */
static const char *check_records(const struct tp_recording_chunk *c, uint32_t size)
{
	const unsigned char *base = (const unsigned char *)c;
	uint32_t records = 0;
	for (uint32_t at = sizeof *c; at < size; records++) {
		const struct tp_record *r = (const struct tp_record *)(base + at);
		uint32_t bytes = size - at >= sizeof *r ? tp_record_bytes(r->word) : 0;
		if (bytes < sizeof *r || bytes > size - at)
			return "a record's size is wrong";
		unsigned type = tp_record_type(r->word);
		if (type == 0 || type >= TP_RECORD_TYPES_END)
			return "a record of an unknown type";
		unsigned words = (bytes - (unsigned)sizeof *r) / 8;
		if (words < args_needed(type))
			return "a record too short for its event";
		if (type == TP_RECORD_SITE && tp_record_small(r->word) > 8 * (words - 1))
			return "a site's text longer than its record";
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

/* Appends to *refs, growing it; false when out of memory. */
static bool refs_push(struct chunk_ref **refs, size_t *n, size_t *cap, struct chunk_ref ref)
{
	if (*n == *cap) {
		size_t grown = *cap ? *cap * 2 : 256;
		struct chunk_ref *r = realloc(*refs, grown * sizeof *r);
		if (r == NULL)
			return false;
		*refs = r;
		*cap = grown;
	}
	(*refs)[(*n)++] = ref;
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

/*
 * A record time of segment `s` in nanoseconds, on the line through its first and last pairs (in
 * long double, whose 64-bit mantissa keeps nanoseconds; any input gives a number, clamped).
 */
static uint64_t to_ns(const struct segment *s, uint64_t time)
{
	if (s->clock == TP_CLOCK_MONOTONIC)
		return time;
	if (s->last_time <= s->first_time)
		return s->first_ns;
	long double slope = ((long double)s->last_ns - (long double)s->first_ns) /
			    ((long double)s->last_time - (long double)s->first_time);
	long double ns = (long double)s->first_ns +
			 ((long double)time - (long double)s->first_time) * slope;
	if (!(ns > 0))
		return 0;
	return ns >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)ns;
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

/* Keeps the module of record `r` (checked) in `s`, unless one of its number is there already. */
static bool keep_module(struct segment *s, const struct tp_record *r)
{
	struct tp_record_module m;
	memcpy(&m, r->arg, sizeof m);
	for (size_t i = 0; i < s->n_modules; i++)
		if (s->modules[i].number == m.number)
			return true;
	struct recorded_module kept = {.number = (uint32_t)m.number,
				       .bias = m.bias,
				       .start = m.start,
				       .end = m.end,
				       .build_id_bytes = m.build_id_bytes};
	memcpy(kept.build_id, m.build_id, m.build_id_bytes);
	memcpy(kept.path, (const char *)r->arg + sizeof m, m.path_bytes);
	kept.path[m.path_bytes] = '\0';
	return append(&s->modules, &s->n_modules, &kept, sizeof kept);
}

/* Keeps the site of record `r` (checked) in `s`. */
static bool keep_code_site(struct segment *s, const struct tp_record *r)
{
	struct code_site site = {r->arg[0], r->arg[1], r->arg[2], tp_record_small(r->word)};
	return append(&s->sites, &s->n_sites, &site, sizeof site);
}

/*
 * Pass one over a file: its segments and whole chunks, the sites said to the timeline (a
 * version 5 segment's kept, to be named once read whole). Stops at the first thing that is not
 * whole, saying so.
 */
/* The next segment header at or after `at` (8-byte aligned, as the recorder writes), or `size`. */
static size_t next_header(const struct recording_input *in, size_t at)
{
	for (at = (at + 8) & ~(size_t)7; at + 8 <= in->size; at += 8)
		if (memcmp(in->data + at, TP_RECORDING_MAGIC, 8) == 0)
			return at;
	return in->size;
}

static bool scan(struct timeline *t, const struct recording_sink *sink,
		 const struct recording_input *in, struct segment **segments, size_t *n_segments,
		 struct chunk_ref **refs, size_t *n_refs, size_t *cap, FILE *errors,
		 struct recording_totals *totals)
{
	struct segment *current = NULL;
	size_t at = 0, dropped_to = 0;
	char other_version[256];
	while (at < in->size) {
		/* the pages read so far given back (see DROP_PAGES_EVERY) */
		if (in->mapped && at - dropped_to >= DROP_PAGES_EVERY) {
			size_t to = at & ~(size_t)4095;
			madvise((void *)in->data, to, MADV_DONTNEED);
			dropped_to = to;
		}
		size_t left = in->size - at;
		const unsigned char *p = in->data + at;
		const char *why = NULL;
		const struct tp_recording_chunk *c = (const struct tp_recording_chunk *)p;
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
				size_t n = *n_segments;
				if ((n & (n - 1)) == 0) { /* grown when n is 0 or a power of two */
					struct segment *grown = realloc(
						*segments, (n ? 2 * n : 1) * sizeof **segments);
					if (grown == NULL)
						return false;
					*segments = grown;
				}
				current = &(*segments)[(*n_segments)++];
				*current = (struct segment){.pid = h.pid,
							    .start_ticks = h.start_ticks,
							    .pid_namespace = h.pid_namespace,
							    .scope = *n_segments,
							    .clock = h.clock,
							    .first_time = h.clock_time,
							    .first_ns = h.ns,
							    .last_time = h.clock_time,
							    .last_ns = h.ns};
				memcpy(current->comm, h.comm, sizeof current->comm);
				current->comm[sizeof current->comm - 1] = '\0';
				at += header_size;
				continue;
			}
		} else if (current == NULL) {
			why = "not a recording (no TPRECORD header)";
		} else if (left < sizeof *c || c->magic != TP_CHUNK_MAGIC || c->size < sizeof *c ||
			   c->size % 8 != 0 || c->size > left) {
			why = "a chunk not whole";
		} else {
			why = check_records(c, c->size);
		}
		if (why != NULL) {
			/* what follows may be whole again: an image that exec'ed after a torn write */
			size_t resume = next_header(in, at);
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
			current = NULL;
			continue;
		}
		segment_pair(current, c->clock_time, c->ns);
		current->chunks++;
		totals->dropped += c->dropped;
		/* chunk pointers are kept as offsets until every segment is in place */
		struct chunk_ref ref = {
			.segment = (const struct segment *)(uintptr_t)(*n_segments - 1),
			.header = c,
			.order = *n_refs};
		if (!refs_push(refs, n_refs, cap, ref))
			return false;
		for (uint32_t r_at = sizeof *c; r_at < c->size;) {
			const struct tp_record *r = (const struct tp_record *)(p + r_at);
			unsigned type = tp_record_type(r->word);
			if (t != NULL && type == TP_RECORD_SITE)
				timeline_site(t, current->scope, r->arg[0],
					      (const char *)&r->arg[1], tp_record_small(r->word));
			else if (sink != NULL && type == TP_RECORD_SITE)
				sink->site(sink->context, current->scope, r->arg[0],
					   (const char *)&r->arg[1], tp_record_small(r->word));
			else if ((type == TP_RECORD_MODULE && !keep_module(current, r)) ||
				 (type == TP_RECORD_SITE_CODE && !keep_code_site(current, r)))
				return false;
			r_at += tp_record_bytes(r->word);
		}
		at += c->size;
	}
	return true;
}

static int by_thread_then_order(const void *a, const void *b)
{
	const struct chunk_ref *x = a, *y = b;
	if (x->segment->process != y->segment->process)
		return x->segment->process < y->segment->process ? -1 : 1;
	if (x->header->tid != y->header->tid)
		return x->header->tid < y->header->tid ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
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
static bool number_processes(struct timeline *t, struct segment *segments, size_t n)
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
			for (size_t m = j; m < k; m++) {
				order[m]->process = processes;
				order[m]->out_pid = out_pid;
			}
			if ((repeated || (several && named->chunks > 0)) && t != NULL) {
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
static const struct tp_record *cursor_record(struct cursor *c)
{
	while (c->chunk < c->n_chunks) {
		const struct tp_recording_chunk *h = c->chunks[c->chunk].header;
		if (c->offset < h->size)
			return (const struct tp_record *)((const unsigned char *)h + c->offset);
		c->chunk++;
		c->offset = sizeof *h;
		c->dropped_said = false;
	}
	return NULL;
}

/* Moves to the next event (site and module records are not events), setting next_ns; false at
 * the end. */
static bool cursor_settle(struct cursor *c)
{
	const struct tp_record *r;
	while ((r = cursor_record(c)) != NULL && !is_event(tp_record_type(r->word)))
		c->offset += tp_record_bytes(r->word);
	if (r == NULL)
		return false;
	const struct chunk_ref *ref = &c->chunks[c->chunk];
	c->next_ns = to_ns(ref->segment, ref->header->base_time + tp_record_delta(r->word));
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

/* The event of record `r` of chunk `ref`, as a perf sample of its probe would give it. */
static void event_of(const struct chunk_ref *ref, const struct tp_record *r, uint64_t ns,
		     struct timeline_event *e)
{
	memset(e, 0, sizeof *e);
	memcpy(e->comm, ref->header->comm, sizeof ref->header->comm);
	e->comm[sizeof ref->header->comm - 1] = '\0';
	e->pid = ref->segment->out_pid;
	e->process = ref->segment->process;
	e->site_scope = ref->segment->scope;
	e->tid = ref->header->tid;
	e->ns = ns;
	e->type = tp_record_type(r->word);
	unsigned small = tp_record_small(r->word);
	const uint64_t *a = r->arg;
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
	case TP_RECORD_TASK_POLL_END: /* task, done, sync */
		e->arg[0] = (int64_t)a[0];
		e->arg[1] = tp_record_poll_end_done(small);
		e->arg[2] = tp_record_poll_end_sync(small);
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
		e->named_as_process = strncmp(e->comm, ref->segment->comm,
					      sizeof ref->segment->comm) == 0;
		break;
	default:
		for (unsigned i = 0; i < args_needed(e->type); i++)
			e->arg[i] = (int64_t)a[i];
	}
}

/* Gives the mapped inputs' pages back to the kernel (see DROP_PAGES_EVERY). */
static void drop_pages(const struct recording_input *inputs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (inputs[i].mapped && inputs[i].size > 0)
			madvise((void *)inputs[i].data, inputs[i].size, MADV_DONTNEED);
}

/* Pass one over every input, the timeline told the sites unless NULL; false when out of
 * memory. */
static bool scan_all(struct timeline *t, const struct recording_sink *sink,
		     const struct recording_input *inputs, size_t n, FILE *errors,
		     struct recording_totals *totals, struct segment **segments, size_t *n_segments,
		     struct chunk_ref **refs, size_t *n_refs)
{
	size_t cap = 0;
	for (size_t i = 0; i < n; i++)
		if (!scan(t, sink, &inputs[i], segments, n_segments, refs, n_refs, &cap, errors,
			  totals))
			return false;
	for (size_t i = 0; i < *n_refs; i++)
		(*refs)[i].segment = &(*segments)[(uintptr_t)(*refs)[i].segment];
	return true;
}

/* A site (scope, id) whose text the site filter keeps. */
struct kept_site {
	uint64_t scope, id;
};

/* The sites the census's site filter keeps. */
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
	if (match && !append(&f->kept, &f->n_kept, &site, sizeof site))
		f->failed = true;
}

/*
 * speedscope's profile of a thread, as the converter writes it (timeline.c's profile_event): an
 * event pending, written unless the next one is of the same frame, in the same microsecond,
 * opening what it closed or closing what it opened (then neither is written). Here a frame is
 * the kind of slice (polls, waits, parks): a site's polls, or a kind's waits, one after another
 * are the same frame. A thread's chunk is counted alone.
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

/* Names every segment's code sites (code_names.h), each handed to `site` with its scope. */
static void name_code_sites(const struct segment *segments, size_t n,
			    void (*site)(void *context, uint64_t scope, uint64_t id,
					 const char *text, uint32_t len),
			    void *context)
{
	for (size_t i = 0; i < n; i++) {
		const struct segment *s = &segments[i];
		for (size_t j = 0; j < s->n_sites; j++) {
			const struct code_site *c = &s->sites[j];
			const struct recorded_module *m = NULL;
			for (size_t k = 0; k < s->n_modules && m == NULL; k++)
				if (s->modules[k].number == c->module)
					m = &s->modules[k];
			char text[SITE_TEXT_MAX];
			code_name(s->modules, s->n_modules, m, c->address, c->kind, text,
				  sizeof text);
			site(context, s->scope, c->id, text, (uint32_t)strlen(text));
		}
	}
}

/* A named code site to the timeline. */
static void timeline_code_site(void *t, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	timeline_site(t, scope, id, text, len);
}

static void segments_free(struct segment *segments, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(segments[i].modules);
		free(segments[i].sites);
	}
	free(segments);
}

bool recording_count(const struct recording_input *inputs, size_t n,
		     const struct timeline_options *options, struct recording_census *census)
{
	struct segment *segments = NULL;
	struct chunk_ref *refs = NULL;
	struct site_filter filter = {.options = options};
	size_t n_segments = 0, n_refs = 0;
	struct recording_totals totals = {0};
	bool ok = false;
	memset(census, 0, sizeof *census);
	census->site_share = 1;
	if (!scan_all(NULL, NULL, inputs, n, NULL, &totals, &segments, &n_segments, &refs, &n_refs))
		goto out;
	/* the sites the filter keeps, before the spawns are counted (texts come anywhere) */
	for (size_t i = 0; options->n_sites > 0 && i < n_refs; i++) {
		const struct tp_recording_chunk *h = refs[i].header;
		for (uint32_t at = sizeof *h; at < h->size;) {
			const struct tp_record *r =
				(const struct tp_record *)((const unsigned char *)h + at);
			if (tp_record_type(r->word) == TP_RECORD_SITE)
				filter_site(&filter, refs[i].segment->scope, r->arg[0],
					    (const char *)&r->arg[1], tp_record_small(r->word));
			at += tp_record_bytes(r->word);
		}
	}
	if (options->n_sites > 0)
		name_code_sites(segments, n_segments, filter_site, &filter);
	if (filter.failed)
		goto out;
	/* the origin: the earliest first record of a chunk (a chunk's records are in order) */
	uint64_t origin = UINT64_MAX;
	for (size_t i = 0; i < n_refs; i++) {
		const struct tp_recording_chunk *h = refs[i].header;
		const unsigned char *base = (const unsigned char *)h;
		for (uint32_t at = sizeof *h; at < h->size;) {
			const struct tp_record *r = (const struct tp_record *)(base + at);
			if (is_event(tp_record_type(r->word))) {
				uint64_t ns = to_ns(refs[i].segment,
						    h->base_time + tp_record_delta(r->word));
				origin = ns < origin ? ns : origin;
				break;
			}
			at += tp_record_bytes(r->word);
		}
	}
	uint64_t from = origin + options->from_ns < origin ? UINT64_MAX : origin + options->from_ns;
	uint64_t to = origin + options->to_ns < origin ? UINT64_MAX : origin + options->to_ns;
	uint64_t spawns = 0, spawns_kept = 0;
	for (size_t i = 0; i < n_refs; i++) {
		const struct tp_recording_chunk *h = refs[i].header;
		const unsigned char *base = (const unsigned char *)h;
		bool thread = options->n_tids == 0;
		for (size_t j = 0; j < options->n_tids; j++)
			thread |= options->tids[j] == h->tid;
		struct profile_count profile = {0};
		for (uint32_t at = sizeof *h; at < h->size;) {
			const struct tp_record *r = (const struct tp_record *)(base + at);
			unsigned type = tp_record_type(r->word);
			at += tp_record_bytes(r->word);
			if (!is_event(type))
				continue;
			uint64_t ns = to_ns(refs[i].segment,
					    h->base_time + tp_record_delta(r->word));
			if (!thread || ns < from || ns > to)
				continue;
			census->by_type[type]++;
			census->events++;
			/* speedscope's ends: whole microseconds from the window's start, rounded */
			uint64_t us = (ns - from + 500) / 1000;
			profile_count_event(census, &profile, type, us);
			census->last_us = us > census->last_us ? us : census->last_us;
			if (type == TP_RECORD_TASK_SPAWN && options->n_sites > 0) {
				spawns++;
				for (size_t j = 0; j < filter.n_kept; j++)
					if (filter.kept[j].id == r->arg[2] &&
					    filter.kept[j].scope == refs[i].segment->scope) {
						spawns_kept++;
						break;
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
	segments_free(segments, n_segments);
	free(refs);
	free(filter.kept);
	return ok;
}

/* recording_convert into `t`, or recording_read into `sink` (t NULL). */
static bool merge(struct timeline *t, const struct recording_sink *sink,
		  const struct recording_input *inputs, size_t n, FILE *errors,
		  struct recording_totals *totals)
{
	struct segment *segments = NULL;
	struct chunk_ref *refs = NULL;
	struct cursor *cursors = NULL, **heap = NULL;
	size_t n_segments = 0, n_refs = 0, n_cursors = 0;
	bool ok = false;
	memset(totals, 0, sizeof *totals);
	if (!scan_all(t, sink, inputs, n, errors, totals, &segments, &n_segments, &refs, &n_refs))
		goto out;
	if (t != NULL)
		name_code_sites(segments, n_segments, timeline_code_site, t);
	else
		name_code_sites(segments, n_segments, sink->site, sink->context);
	if (!number_processes(t, segments, n_segments))
		goto out;
	if (n_refs > 0)
		qsort(refs, n_refs, sizeof *refs, by_thread_then_order);
	size_t n_threads = 0;
	for (size_t i = 0; i < n_refs; i++)
		n_threads += i == 0 || refs[i].segment->process != refs[i - 1].segment->process ||
			     refs[i].header->tid != refs[i - 1].header->tid;
	cursors = calloc(n_threads + 1, sizeof *cursors);
	heap = calloc(n_threads + 1, sizeof *heap);
	if (cursors == NULL || heap == NULL)
		goto out;
	drop_pages(inputs, n);
	uint64_t read_since_drop = 0;
	for (size_t i = 0; i < n_refs;) {
		size_t j = i;
		while (j < n_refs && refs[j].segment->process == refs[i].segment->process &&
		       refs[j].header->tid == refs[i].header->tid)
			j++;
		struct cursor *c = &cursors[n_cursors++];
		*c = (struct cursor){.chunks = &refs[i],
				     .n_chunks = j - i,
				     .offset = sizeof(struct tp_recording_chunk)};
		i = j;
	}
	size_t n_heap = 0;
	for (size_t i = 0; i < n_cursors; i++)
		if (cursor_settle(&cursors[i]))
			heap[n_heap++] = &cursors[i];
	for (size_t i = n_heap; i-- > 0;)
		heap_sift_down(heap, n_heap, i);
	while (n_heap > 0 && (t == NULL || !timeline_done(t))) {
		struct cursor *c = heap[0];
		const struct chunk_ref *ref = &c->chunks[c->chunk];
		const struct tp_record *r = cursor_record(c);
		struct timeline_event e;
		event_of(ref, r, c->next_ns, &e);
		/* on the track at the chunk's first event (all drops are counted in pass one) */
		if (!c->dropped_said && ref->header->dropped > 0 && t != NULL)
			timeline_dropped(t, &e, ref->header->dropped);
		c->dropped_said = true;
		if (t != NULL)
			timeline_add(t, &e);
		else
			sink->event(sink->context, &e);
		totals->events++;
		c->offset += tp_record_bytes(r->word);
		read_since_drop += tp_record_bytes(r->word);
		if (!cursor_settle(c))
			heap[0] = heap[--n_heap];
		heap_sift_down(heap, n_heap, 0);
		if (read_since_drop >= DROP_PAGES_EVERY) {
			drop_pages(inputs, n);
			read_since_drop = 0;
		}
	}
	/* no event: the timeline names the processes that were recorded (speedscope refuses
	 * a timeline of no event at all) */
	for (size_t i = 0; t != NULL && totals->events == 0 && i < n_segments; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s (pid %" PRIu32 ")", segments[i].comm,
			 segments[i].pid);
		if (i == 0 || segments[i].process != segments[i - 1].process)
			timeline_process_name(t, segments[i].out_pid, name);
	}
	ok = true;
out:
	segments_free(segments, n_segments);
	free(refs);
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
