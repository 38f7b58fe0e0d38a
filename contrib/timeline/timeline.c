// SPDX-License-Identifier: MIT
/*
 * The perf-script-to-Trace-Event-Format converter: see timeline.h. Slices are "B"/"E" pairs on
 * the thread's track, kept properly nested by a small per-thread stack of open slices; task
 * tracks are async "b"/"e" events and flows "s"/"f" pairs, both with the id "PID:TASK" (task ids
 * are per process). Tasks and threads are keyed by their process and id, never by id alone.
 * A task's poll slices and its track are named by its spawn site's text (task-spawn's arg4 read
 * as a string, `arg4="spawn_quick (app.c:23)"`), kept once per (process, site id) in an
 * append-only pool of names: a site's later spawns and its polls allocate nothing.
 *
 * A slice's name is its site's text (or "site S", or the initial tasks' "(no site: initial
 * tasks)"), or its wait's kind, and nothing else: speedscope names a frame by its begin event's
 * name and arguments together (JSON.stringify(args) appended), so a "B" carries no arguments and
 * its "E" carries them (Perfetto adds an end's arguments to its slice). speedscope orders a begin
 * and an end of equal time by comparing those names, begin first only when they are equal: so a
 * slice of no length (perf's microseconds) is written as an instant "i" with its arguments
 * instead, which speedscope leaves out (it would weigh nothing) and Perfetto shows as a slice of
 * no length. A begin is therefore written once its thread has an event of a later time.
 */
#define _GNU_SOURCE
#include "timeline.h"

#include "taskprobe_contract.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE     4096
#define MAX_OPEN     8 /* nested slices per thread: poll > wait, park > wait, ... */
#define MAX_ARGS     6
#define ERRORS_SHOWN 10
/* Site texts kept: beyond these, a site is named by its id (memory stays bounded on any input). */
#define MAX_SITES       (1u << 20)
#define MAX_NAMES_BYTES (64u << 20)

/*
 * A slice open on a thread: a poll of task `id` (spawned at `site`, whose text, JSON-escaped,
 * is at `name` in the names pool; 0: none), a park, or a wait of `wait_kind` on object `id` by
 * `task`; begun at `ns`, its "B" written (`written`) once the thread has a later event.
 */
struct open_slice {
	char kind; /* 'P'oll, 'K' park, 'W'ait */
	uint8_t wait_kind;
	bool written;
	uint32_t name;
	uint64_t id, site, task, ns;
};

/* A task alive in the trace, or a thread seen in it (one map type serves both). */
struct entry {
	uint64_t key;     /* task id or tid; 0: free slot */
	uint64_t process; /* its process (timeline_event's process, else its pid) */
	uint64_t site;    /* task: its spawn site id */
	uint32_t name;    /* task: its site's text in the names pool; 0: none */
	uint32_t pid;     /* its process's pid in the timeline */
	bool polled;      /* task: its first poll was seen (the spawn flow ended) */
	uint8_t depth;    /* thread: open slices, innermost last */
	struct open_slice open[MAX_OPEN];
};

struct map {
	struct entry *slots;
	size_t size, used; /* size: a power of two */
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
	struct site *slots;
	size_t size, used; /* size: a power of two */
	char *pool;        /* NUL-terminated texts and names; offset 0 is none */
	size_t pool_len, pool_cap;
};

/*
 * The line being parsed and the sample line before it take turns in `lines`: perf sometimes
 * writes a sample twice, and a line is compared with the one before it without a copy more than
 * the one parsing needs, in memory that does not grow with the line (longer lines are malformed).
 */
struct timeline {
	FILE *out;
	struct map tasks, threads;
	struct sites sites;
	uint64_t last_ns, malformed;
	struct timeline_counts counts;
	uint32_t first_named_pid; /* the first process named (timeline_process_name) */
	uint64_t slices;          /* opened */
	bool first_event;
	char lines[2][MAX_LINE];
	size_t previous_len; /* of lines[previous]; 0: no sample line just before */
	unsigned previous;
};

static uint64_t hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

/*
 * Doubles an open-addressed table of `size` slots of `slot_size` bytes (64 slots at first),
 * placing each slot in use at its hash: both tables here grow this way.
 */
static bool table_grow(void **slots, size_t *size, size_t slot_size, bool (*in_use)(const void *),
		       uint64_t (*hash_of)(const void *))
{
	size_t grown = *size ? *size * 2 : 64;
	char *fresh = calloc(grown, slot_size), *old = *slots;
	if (fresh == NULL)
		return false;
	for (size_t i = 0; i < *size; i++) {
		const char *slot = old + i * slot_size;
		if (!in_use(slot))
			continue;
		size_t j = hash_of(slot) & (grown - 1);
		while (in_use(fresh + j * slot_size))
			j = (j + 1) & (grown - 1);
		memcpy(fresh + j * slot_size, slot, slot_size);
	}
	free(old);
	*slots = fresh;
	*size = grown;
	return true;
}

static bool entry_in_use(const void *slot)
{
	return ((const struct entry *)slot)->key != 0;
}

static uint64_t entry_key_hash(uint64_t process, uint64_t key)
{
	return hash(key ^ process * 0x9e3779b97f4a7c15ULL);
}

static uint64_t entry_hash(const void *slot)
{
	const struct entry *e = slot;
	return entry_key_hash(e->process, e->key);
}

static bool map_grow(struct map *m)
{
	void *slots = m->slots;
	bool grown = table_grow(&slots, &m->size, sizeof *m->slots, entry_in_use, entry_hash);
	m->slots = slots;
	return grown;
}

static struct entry *map_find(const struct map *m, uint64_t process, uint64_t key)
{
	if (m->size == 0 || key == 0)
		return NULL;
	for (size_t i = entry_key_hash(process, key) & (m->size - 1);;
	     i = (i + 1) & (m->size - 1)) {
		if (m->slots[i].key == key && m->slots[i].process == process)
			return &m->slots[i];
		if (m->slots[i].key == 0)
			return NULL;
	}
}

/* The entry of `key` of `process`, added zeroed if new; NULL when out of memory (or key 0). */
static struct entry *map_get(struct map *m, uint64_t process, uint64_t key, bool *added)
{
	struct entry *e = map_find(m, process, key);
	*added = false;
	if (e != NULL || key == 0)
		return e;
	if ((m->used + 1) * 2 > m->size && !map_grow(m))
		return NULL;
	size_t i = entry_key_hash(process, key) & (m->size - 1);
	while (m->slots[i].key != 0)
		i = (i + 1) & (m->size - 1);
	memset(&m->slots[i], 0, sizeof m->slots[i]);
	m->slots[i].key = key;
	m->slots[i].process = process;
	m->used++;
	*added = true;
	return &m->slots[i];
}

/* Linear probing's deletion: later entries of the same run move back into the hole. */
static void map_remove(struct map *m, struct entry *e)
{
	size_t hole = (size_t)(e - m->slots), mask = m->size - 1;
	m->slots[hole].key = 0;
	m->used--;
	for (size_t i = (hole + 1) & mask; m->slots[i].key != 0; i = (i + 1) & mask) {
		size_t home = entry_hash(&m->slots[i]) & mask;
		/* the entry may fill the hole if its home is not within (hole, i] */
		bool stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
		if (!stays) {
			m->slots[hole] = m->slots[i];
			m->slots[i].key = 0;
			hole = i;
		}
	}
}

#define sample timeline_event

/* Reads digits at *p into a u64; false on none or overflow. */
static bool read_u64(const char **p, uint64_t *v)
{
	if (!isdigit((unsigned char)**p))
		return false;
	uint64_t x = 0;
	for (; isdigit((unsigned char)**p); (*p)++) {
		unsigned d = (unsigned)(**p - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

/* "PID/TID SECONDS.FRACTION:" at p; sets *end past the colon. */
static bool read_header(const char *p, struct sample *s, const char **end)
{
	uint64_t pid, tid, sec, frac = 0;
	if (!read_u64(&p, &pid) || *p++ != '/' || !read_u64(&p, &tid) || *p != ' ' ||
	    pid > UINT32_MAX || tid > UINT32_MAX)
		return false;
	p += strspn(p, " ");
	if (!read_u64(&p, &sec) || *p++ != '.' || sec > 1000000000ULL)
		return false;
	int digits = 0;
	for (; isdigit((unsigned char)*p); p++)
		if (digits < 9) {
			frac = frac * 10 + (uint64_t)(*p - '0');
			digits++;
		}
	if (digits == 0 || *p++ != ':')
		return false;
	while (digits++ < 9)
		frac *= 10;
	s->pid = (uint32_t)pid;
	s->tid = (uint32_t)tid;
	s->ns = sec * 1000000000ULL + frac;
	*end = p;
	return true;
}

/*
 * A string argument's value at p, just past "argN=": "TEXT" (TEXT may hold quotes and spaces:
 * it ends at the quote followed by the end of the line or by the next " argN="), or (fault)
 * when the kernel could not read it, as "" (what perf 6.1 prints for a NULL pointer) and
 * "(fault)" also say. Sets *text (NULL for none), *len and *end; false when p holds no string.
 */
static bool read_string(const char *p, const char **text, uint32_t *len, const char **end)
{
	static const char fault[] = "(fault)";
	if (strncmp(p, fault, sizeof fault - 1) == 0) {
		*text = NULL;
		*len = 0;
		*end = p + sizeof fault - 1;
		return true;
	}
	if (*p != '"')
		return false;
	const char *start = p + 1, *q = start;
	for (;; q++) {
		q = strchr(q, '"');
		if (q == NULL)
			return false;
		if (q[1 + strspn(q + 1, " ")] == '\0')
			break;
		if (strncmp(q + 1, " arg", 4) == 0) {
			const char *n = q + 5;
			uint64_t index;
			if (read_u64(&n, &index) && *n == '=')
				break;
		}
	}
	*len = (uint32_t)(q - start);
	*text = start;
	if (*len == 0 || (*len == sizeof fault - 1 && memcmp(start, fault, *len) == 0)) {
		*text = NULL;
		*len = 0;
	}
	*end = q + 1;
	return true;
}

/*
 * Parses a sample line. Returns 1 for a taskprobe event, 0 for a sample of another event,
 * -1 (with *why) for a line that is not a sample.
 */
static int parse(const char *line, struct sample *s, const char **why)
{
	memset(s, 0, sizeof *s); /* text NULL, text_arg 0 */
	/* the command may hold spaces: the header is the first " PID/TID TIME:" that parses */
	const char *rest = NULL;
	const char *p = line + strspn(line, " ");
	for (const char *c = p; *c != '\0' && c - p <= 64; c++)
		if (c > p && c[-1] == ' ' && isdigit((unsigned char)*c) &&
		    read_header(c, s, &rest)) {
			size_t n = (size_t)(c - p);
			while (n > 0 && p[n - 1] == ' ')
				n--;
			snprintf(s->comm, sizeof s->comm, "%.*s", (int)n, p);
			break;
		}
	if (rest == NULL) {
		*why = "not a perf script sample (expected: COMM PID/TID SECONDS: EVENT: ...)";
		return -1;
	}
	rest += strspn(rest, " ");
	static const char group[] = "sdt_taskprobe:";
	if (strncmp(rest, group, sizeof group - 1) != 0)
		return 0;
	rest += sizeof group - 1;
	size_t n = strcspn(rest, ": ");
	if (n == 0 || rest[n] != ':') {
		*why = "a taskprobe event without a name";
		return -1;
	}
	static const char *const probes[] = TP_RECORD_PROBE_NAMES;
	for (unsigned type = 1; type < TP_RECORD_TYPES_END; type++)
		if (strlen(probes[type]) == n && memcmp(probes[type], rest, n) == 0)
			s->type = type;
	if (s->type == 0)
		return 0; /* a probe this converter does not know */
	rest += n + 1;
	/* " (ADDRESS) arg1=V arg2=V ..." */
	for (const char *a = rest; (a = strstr(a, " arg")) != NULL;) {
		a += 4;
		uint64_t index, value;
		if (!read_u64(&a, &index) || *a++ != '=' || index < 1 || index > MAX_ARGS) {
			*why = "an argument that is not argN=VALUE with N from 1 to 6";
			return -1;
		}
		if (*a == '"' || *a == '(') {
			const char *text;
			uint32_t len;
			if (!read_string(a, &text, &len, &a)) {
				*why = "a string argument that is neither \"TEXT\" nor (fault)";
				return -1;
			}
			s->arg[index - 1] = 0;
			if (text != NULL) {
				s->text = text;
				s->text_len = len;
				s->text_arg = (uint8_t)index;
			} else if (s->text_arg == index) {
				s->text_arg = 0;
			}
			continue;
		}
		bool negative = *a == '-';
		a += negative;
		if (!read_u64(&a, &value) || (negative && value > (uint64_t)INT64_MAX + 1)) {
			*why = "an argument value that is not a 64-bit number";
			return -1;
		}
		s->arg[index - 1] = negative ? (int64_t)(0 - value) : (int64_t)value;
		if (s->text_arg == index)
			s->text_arg = 0;
	}
	return 1;
}

/* JSON string contents: quotes, backslashes and control bytes escaped, non-ASCII as '?'.
 * Writes at most 6 bytes per byte of `s` (of `len` bytes) to `to`, returns the count. */
static size_t escape(char *to, const char *s, size_t len)
{
	char *t = to;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			*t++ = '\\';
			*t++ = (char)c;
		} else if (c < 0x20) {
			t += sprintf(t, "\\u%04x", c);
		} else {
			*t++ = c < 0x80 ? (char)c : '?';
		}
	}
	return (size_t)(t - to);
}

static uint64_t site_hash(uint64_t scope, uint64_t id)
{
	return hash(id * 0x9e3779b97f4a7c15ULL ^ scope ^ (scope << 40));
}

static bool site_in_use(const void *slot)
{
	return ((const struct site *)slot)->text != 0;
}

static uint64_t site_slot_hash(const void *slot)
{
	const struct site *e = slot;
	return site_hash(e->scope, e->id);
}

static bool sites_grow(struct sites *m)
{
	void *slots = m->slots;
	bool grown = table_grow(&slots, &m->size, sizeof *m->slots, site_in_use, site_slot_hash);
	m->slots = slots;
	return grown;
}

/* Room for `need` more bytes in the pool (its first byte is the "none" offset 0). */
static bool pool_reserve(struct sites *m, size_t need)
{
	if (m->pool_len == 0)
		m->pool_len = 1;
	if (m->pool_len + need <= m->pool_cap)
		return true;
	if (m->pool_len + need > MAX_NAMES_BYTES)
		return false;
	size_t cap = m->pool_cap ? m->pool_cap : 4096;
	while (cap < m->pool_len + need)
		cap *= 2;
	char *pool = realloc(m->pool, cap);
	if (pool == NULL)
		return false;
	m->pool = pool;
	m->pool_cap = cap;
	return true;
}

/*
 * The name (offset of the escaped text in the pool) of site `id` of `scope`: `text` (of `len`
 * bytes; NULL when the sample has none) kept on first sight, the text kept before when the
 * sample has none. 0 when there is no text, or no room for it.
 */
static uint32_t site_name(struct sites *m, uint64_t scope, uint64_t id, const char *text,
			  uint32_t len)
{
	struct site *e = NULL;
	if (m->size > 0) {
		for (size_t i = site_hash(scope, id) & (m->size - 1);;
		     i = (i + 1) & (m->size - 1)) {
			e = &m->slots[i];
			if (e->text == 0 || (e->scope == scope && e->id == id))
				break;
		}
		if (e->text != 0 && (text == NULL || (e->text_len == len &&
						      memcmp(m->pool + e->text, text, len) == 0)))
			return e->name;
	}
	if (text == NULL)
		return 0;
	/* a new site, or a new text for it: both forms appended to the pool */
	bool added = e == NULL || e->text == 0;
	if (added && (m->used == MAX_SITES || ((m->used + 1) * 2 > m->size && !sites_grow(m))))
		return 0;
	if (!pool_reserve(m, (size_t)len * 7 + 2))
		return 0;
	if (added) {
		size_t i = site_hash(scope, id) & (m->size - 1);
		while (m->slots[i].text != 0)
			i = (i + 1) & (m->size - 1);
		e = &m->slots[i];
		m->used++;
	}
	e->scope = scope;
	e->id = id;
	e->text = (uint32_t)m->pool_len;
	e->text_len = len;
	memcpy(m->pool + m->pool_len, text, len);
	m->pool_len += len;
	m->pool[m->pool_len++] = '\0';
	e->name = (uint32_t)m->pool_len;
	m->pool_len += escape(m->pool + m->pool_len, text, len);
	m->pool[m->pool_len++] = '\0';
	return e->name;
}

/*
 * The output, written piece by piece: no format string is parsed per event (printf was three
 * quarters of the converter's time).
 */
static void put(FILE *out, const char *s)
{
	fputs_unlocked(s, out);
}

static void put_u64(FILE *out, uint64_t v)
{
	char digits[24], *p = digits + sizeof digits - 1;
	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	fputs_unlocked(p, out);
}

/* `s`, then the number `v`, then `after` */
static void put_number(FILE *out, const char *s, uint64_t v, const char *after)
{
	put(out, s);
	put_u64(out, v);
	put(out, after);
}

/* JSON string contents: quotes, backslashes and control bytes escaped, non-ASCII as '?'. */
static void put_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c < 0x80 ? c : '?', out);
	}
}

/* Starts an event object: {"ph":"X","pid":..,"tid":..,"ts":.. and the caller adds the rest. */
static void begin_event(struct timeline *t, char phase, const struct sample *s)
{
	FILE *out = t->out;
	put(out, t->first_event ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
	t->first_event = false;
	fputc_unlocked(phase, out);
	put_number(out, "\",\"pid\":", s->pid, ",\"tid\":");
	put_number(out, "", s->tid, ",\"ts\":");
	put_u64(out, s->ns / 1000);
	unsigned fraction = (unsigned)(s->ns % 1000);
	char tail[5] = {'.', (char)('0' + fraction / 100), (char)('0' + fraction / 10 % 10),
			(char)('0' + fraction % 10), '\0'};
	put(out, tail);
}

static const char *wait_kind(unsigned kind)
{
	static const char *const names[] = TP_WAIT_KIND_NAMES;
	return kind <= TP_WAIT_KINDS ? names[kind] : "?";
}

/* The name of the initial tasks (site 0), as the console (taskprobe top) names their row. */
#define NO_SITE_NAME "(no site: initial tasks)"
/* What a timeline of no event at all holds. */
#define NOTHING_SEEN  "nothing recorded: no task, worker, thread or wait was seen"
#define NO_SLICE_SEEN "no task poll, park or wait was seen: thread starts and stops only"

/* A task's name: its site's text (`name` in the pool), else its site's id, else no site's. */
static void task_name(const struct timeline *t, uint64_t site, uint32_t name)
{
	if (site != 0 && name != 0) {
		put(t->out, "\"name\":\"");
		put(t->out, t->sites.pool + name);
		put(t->out, "\"");
	} else if (site != 0) {
		put_number(t->out, "\"name\":\"site ", site, "\"");
	} else {
		put(t->out, "\"name\":\"" NO_SITE_NAME "\"");
	}
}

/* A task's id in the timeline: tasks of different processes may have the same id. */
static void put_task_id(FILE *out, uint32_t pid, uint64_t task)
{
	put_number(out, ",\"id\":\"", pid, ":");
	put_number(out, "", task, "\"");
}

/* The rest of a slice's event: its name, its arguments when `args`, and the closing brace. */
static void slice_label(const struct timeline *t, const struct open_slice *slice, bool args)
{
	FILE *out = t->out;
	switch (slice->kind) {
	case 'P':
		fputc(',', out);
		task_name(t, slice->site, slice->name);
		if (args) {
			put_number(out, ",\"args\":{\"task\":", slice->id, "");
			if (slice->site != 0)
				put_number(out, ",\"site\":", slice->site, "");
			put(out, "}");
		}
		put(out, "}");
		break;
	case 'W':
		fprintf(out, ",\"name\":\"wait %s\"", wait_kind(slice->wait_kind));
		if (args)
			fprintf(out,
				",\"args\":{\"object\":\"0x%" PRIx64 "\",\"task\":%" PRIu64 "}",
				slice->id, slice->task);
		fputc('}', out);
		break;
	default:
		fputs(",\"name\":\"parked\"}", out);
	}
}

/* The begin events not written yet of `thread`'s open slices (the outermost first). */
static void write_begins(struct timeline *t, struct entry *thread)
{
	for (unsigned i = 0; i < thread->depth; i++) {
		struct open_slice *slice = &thread->open[i];
		if (slice->written)
			continue;
		struct sample at = {
			.pid = thread->pid, .tid = (uint32_t)thread->key, .ns = slice->ns};
		slice->written = true;
		begin_event(t, 'B', &at);
		slice_label(t, slice, false);
	}
}

/* Opens `slice` on the sample's thread (unless its stack of slices is full). */
static bool open_slice(struct timeline *t, struct entry *thread, const struct open_slice *slice,
		       const struct sample *s)
{
	if (thread->depth == MAX_OPEN)
		return false;
	struct open_slice *open = &thread->open[thread->depth++];
	*open = *slice;
	open->ns = s->ns;
	open->written = false;
	t->slices++;
	if (slice->kind == 'W')
		t->counts.waits++;
	return true;
}

/* Closes the innermost slice if it is of `kind` (an end whose start came before the
 * recording has nothing to close): its end with its arguments, or an instant if it has no
 * length (its begin not written yet). */
static void close_slice(struct timeline *t, struct entry *thread, char kind, const struct sample *s)
{
	if (thread->depth == 0 || thread->open[thread->depth - 1].kind != kind)
		return;
	if (s->ns > thread->open[thread->depth - 1].ns)
		write_begins(t, thread);
	struct open_slice *slice = &thread->open[--thread->depth];
	if (slice->written) {
		begin_event(t, 'E', s);
		slice_label(t, slice, true);
		return;
	}
	begin_event(t, 'i', s);
	put(t->out, ",\"s\":\"t\"");
	slice_label(t, slice, true);
}

static void instant(struct timeline *t, const struct sample *s, const char *what, uint64_t value)
{
	begin_event(t, 'i', s);
	put(t->out, ",\"s\":\"t\",\"name\":\"");
	put(t->out, what);
	put_number(t->out, " ", value, "\"}");
}

static void convert(struct timeline *t, const struct sample *s, struct entry *thread)
{
	uint64_t task = (uint64_t)s->arg[0];
	uint64_t process = thread->process;
	bool added;
	if (s->type == TP_RECORD_TASK_SPAWN) {
		uint64_t site = (uint64_t)s->arg[2];
		/* perf's sites are per pid; a recording's per segment (scope 1 + its index) */
		uint64_t scope = s->site_scope != 0 ? s->site_scope : s->pid;
		uint32_t name = 0;
		if (site != 0)
			name = s->text_arg == 4
				       ? site_name(&t->sites, scope, site, s->text, s->text_len)
				       : site_name(&t->sites, scope, site, NULL, 0);
		struct entry *e = map_get(&t->tasks, process, task, &added);
		if (e != NULL) {
			e->site = site;
			e->name = name;
			e->polled = false;
		}
		t->counts.tasks++;
		begin_event(t, 'b', s);
		put(t->out, ",\"cat\":\"task\"");
		put_task_id(t->out, s->pid, task);
		fputc(',', t->out);
		task_name(t, site, name);
		put_number(t->out, ",\"args\":{\"task\":", task, ",\"parent\":");
		put_number(t->out, "", (uint64_t)s->arg[1], ",\"site\":");
		put_number(t->out, "", (uint64_t)s->arg[2], ",\"stack\":");
		put_number(t->out, "", (uint64_t)s->arg[4], "}}");
		begin_event(t, 's', s);
		put(t->out, ",\"cat\":\"spawn\"");
		put_task_id(t->out, s->pid, task);
		put(t->out, ",\"name\":\"spawn\"}");
	} else if (s->type == TP_RECORD_TASK_WAKE) {
		instant(t, s, "wake task", task);
	} else if (s->type == TP_RECORD_TASK_POLL_START) {
		struct entry *e = map_find(&t->tasks, process, task);
		struct open_slice poll = {.kind = 'P',
					  .id = task,
					  .site = e != NULL ? e->site : 0,
					  .name = e != NULL ? e->name : 0};
		if (open_slice(t, thread, &poll, s) && e != NULL && !e->polled) {
			e->polled = true;
			begin_event(t, 'f', s);
			put(t->out, ",\"bp\":\"e\",\"cat\":\"spawn\"");
			put_task_id(t->out, s->pid, task);
			put(t->out, ",\"name\":\"spawn\"}");
		}
	} else if (s->type == TP_RECORD_TASK_POLL_END) {
		close_slice(t, thread, 'P', s);
		struct entry *e = map_find(&t->tasks, process, task);
		if (s->arg[1] != 0 && e != NULL) {
			begin_event(t, 'e', s);
			put(t->out, ",\"cat\":\"task\"");
			put_task_id(t->out, s->pid, task);
			fputc(',', t->out);
			task_name(t, e->site, e->name);
			fputc('}', t->out);
			map_remove(&t->tasks, e);
		}
	} else if (s->type == TP_RECORD_TASK_TERMINATE) {
		instant(t, s, "terminate task", task);
	} else if (s->type == TP_RECORD_WORKER_PARK) {
		struct open_slice park = {.kind = 'K'};
		open_slice(t, thread, &park, s);
	} else if (s->type == TP_RECORD_WORKER_UNPARK) {
		close_slice(t, thread, 'K', s);
	} else if (s->type == TP_RECORD_WAIT_START) {
		struct open_slice wait = {
			.kind = 'W',
			.wait_kind = (uint8_t)(s->arg[0] >= 1 && s->arg[0] <= 5 ? s->arg[0] : 0),
			.id = (uint64_t)s->arg[1],
			.task = (uint64_t)s->arg[3]};
		open_slice(t, thread, &wait, s);
	} else if (s->type == TP_RECORD_WAIT_END) {
		close_slice(t, thread, 'W', s);
	} else if (s->type == TP_RECORD_THREAD_START) {
		instant(t, s, "thread start", task);
	} else if (s->type == TP_RECORD_THREAD_STOP) {
		instant(t, s, "thread stop", task);
	} else if (s->type == TP_RECORD_WORKER_START) {
		t->counts.workers++;
		instant(t, s, "worker start", s->tid);
	} else if (s->type == TP_RECORD_WORKER_STOP) {
		instant(t, s, "worker stop", s->tid);
	}
}
struct timeline *timeline_new(FILE *out)
{
	struct timeline *t = calloc(1, sizeof *t);
	if (t == NULL)
		return NULL;
	t->out = out;
	t->first_event = true;
	fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", out);
	return t;
}

int timeline_feed(struct timeline *t, const char *line, size_t len, uint64_t number, FILE *errors)
{
	const char *why = NULL;
	char *copy = t->lines[!t->previous];
	struct sample s;
	int parsed = -1;
	if (len == 0)
		return 0;
	/* the same sample twice is perf's doing, not the program's: kept, a repeated poll start
	 * would open a slice that no poll end closes, a repeated spawn a second task track. Cheap:
	 * most lines differ in length, and lines of one length differ early, in tid or time. */
	if (len == t->previous_len && memcmp(line, t->lines[t->previous], len) == 0)
		return 1;
	if (len >= MAX_LINE)
		why = "a line longer than 4095 bytes";
	else if (memchr(line, '\0', len) != NULL)
		why = "a NUL byte";
	else {
		memcpy(copy, line, len);
		copy[len] = '\0';
		parsed = parse(copy, &s, &why);
	}
	if (parsed < 0) {
		/* a repeat is only dropped right after the sample it repeats */
		t->previous_len = 0;
		if (t->malformed++ < ERRORS_SHOWN && errors != NULL)
			fprintf(errors, "taskprobe-timeline: line %" PRIu64 ": %s; skipped\n",
				number, why);
		return -1;
	}
	t->previous = !t->previous;
	t->previous_len = len;
	if (parsed == 0)
		return 0;
	timeline_add(t, &s);
	return 0;
}

/*
 * The thread of `e` (of its process), named in the timeline when first seen, its slices' begins
 * written if `e` is later than they are; NULL: out of memory or tid 0.
 */
static struct entry *thread_of(struct timeline *t, const struct timeline_event *e)
{
	bool added;
	uint64_t process = e->process != 0 ? e->process : e->pid;
	struct entry *thread = map_get(&t->threads, process, e->tid, &added);
	if (thread != NULL && added) {
		thread->pid = e->pid;
		t->counts.threads++;
		begin_event(t, 'M', e);
		fputs(",\"name\":\"thread_name\",\"args\":{\"name\":\"", t->out);
		put_escaped(t->out, e->comm);
		fprintf(t->out, " %" PRIu32 "\"}}", e->tid);
	}
	if (thread != NULL && thread->depth > 0 && e->ns > thread->open[thread->depth - 1].ns)
		write_begins(t, thread);
	if (e->ns > t->last_ns)
		t->last_ns = e->ns;
	t->counts.events++;
	return thread;
}

void timeline_process_name(struct timeline *t, uint32_t pid, const char *name)
{
	struct sample at = {.pid = pid};
	if (t->first_named_pid == 0)
		t->first_named_pid = pid;
	begin_event(t, 'M', &at);
	fputs(",\"name\":\"process_name\",\"args\":{\"name\":\"", t->out);
	put_escaped(t->out, name);
	fputs("\"}}", t->out);
}

void timeline_counts(const struct timeline *t, struct timeline_counts *counts)
{
	*counts = t->counts;
}

void timeline_site(struct timeline *t, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	if (id != 0 && len > 0)
		(void)site_name(&t->sites, scope, id, text, len);
}

void timeline_add(struct timeline *t, const struct timeline_event *e)
{
	struct entry *thread = thread_of(t, e);
	if (thread != NULL)
		convert(t, e, thread);
}

void timeline_dropped(struct timeline *t, const struct timeline_event *at, uint64_t count)
{
	if (thread_of(t, at) != NULL)
		instant(t, at, "events not recorded:", count);
}

uint64_t timeline_finish(struct timeline *t)
{
	/* slices still open (the recording ended first) end at the last timestamp */
	for (size_t i = 0; i < t->threads.size; i++) {
		struct entry *thread = &t->threads.slots[i];
		struct sample s = {
			.pid = thread->pid, .tid = (uint32_t)thread->key, .ns = t->last_ns};
		while (thread->key != 0 && thread->depth > 0)
			close_slice(t, thread, thread->open[thread->depth - 1].kind, &s);
	}
	/* a timeline without any slice: a slice of no length says what it holds (speedscope
	 * refuses a timeline without any slice) */
	if (t->slices == 0) {
		struct sample at = {.pid = t->first_named_pid, .tid = t->first_named_pid};
		begin_event(t, 'X', &at);
		put(t->out, ",\"dur\":0,\"name\":\"");
		put(t->out, t->counts.events == 0 ? NOTHING_SEEN : NO_SLICE_SEEN);
		put(t->out, "\"}");
	}
	fputs("\n]}\n", t->out);
	uint64_t malformed = t->malformed;
	free(t->tasks.slots);
	free(t->threads.slots);
	free(t->sites.slots);
	free(t->sites.pool);
	free(t);
	return malformed;
}
