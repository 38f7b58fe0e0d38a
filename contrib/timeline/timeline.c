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
 *
 * Counters ("C" events, per process): tasks alive (spawned, not ended), tasks ready (spawned or
 * woken, not polled since), workers busy (threads in a poll). A counter's sample is written at
 * a change that comes TIMELINE_COUNTER_NS or more after its last sample; a change sooner than
 * that is written TIMELINE_COUNTER_NS after the last sample, with the value then (so a burst of
 * changes gives one sample each 100 us, and the value after the burst is never lost), and the
 * last value at the end.
 *
 * speedscope's format (TIMELINE_SPEEDSCOPE): a shared table of frames (site texts, "parked",
 * wait kinds) and an "evented" profile per thread, its slices opened and closed ("O", "C") at
 * whole microseconds from the window's start: {"type":"O","frame":3,"at":1200}. A slice whose
 * ends round to one microsecond is left out (speedscope would give it no width), and a slice
 * closed and the same frame opened again in the same microsecond are one slice; each end rounded
 * to the nearest microsecond, the sums per frame stay fair. (speedscope's "sampled" profiles
 * would be smaller, but speedscope takes time quadratic in a thread's alternations to build
 * them.) Threads interleave, and a profile's events must follow each other: each thread's text
 * is kept in small buffers, spilled in blocks to an unlinked temporary file when they hold more
 * than SPILL_BUFFERED bytes in all, and copied out in order at the end.
 *
 * The window (from, to) and the filters (sites, threads) decide what is written; what is kept
 * in memory (tasks, stacks, counters) follows every event. A slice open at the window's start
 * begins there, one open at its end ends there; a task's track likewise; a flow is written with
 * the task's first poll, its start and end both or neither.
 */
#define _GNU_SOURCE
#include "timeline.h"

#include "analysis.h"

#include "hash.h"
#include "table.h"
#include "taskprobe_contract.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LINE     4096
#define MAX_OPEN     8 /* nested slices per thread: poll > wait, park > wait, ... */
#define MAX_ARGS     6
#define ERRORS_SHOWN 10
/* Site texts kept: beyond these, a site is named by its id (memory stays bounded on any input,
 * with the recordings' bookkeeping under the converter's 256 MiB; a program has thousands). */
#define MAX_SITES       TIMELINE_MAX_SITES
#define MAX_NAMES_BYTES TIMELINE_MAX_NAMES_BYTES
/* speedscope's frames (distinct names, at most MAX_NAMES_BYTES of them), and the processes
 * whose counters are kept */
#define MAX_FRAMES    (MAX_SITES + 64)
#define MAX_PROCESSES 4096u
/* speedscope's samples held in memory before they are spilled to the temporary file */
#define SPILL_BUFFERED (16u << 20)
#define BLOCK_BYTES    4096u

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
	uint64_t id, site, task, ns;
	uint64_t stack; /* a wait's: its stack's id (wait-stack), 0 when none was taken */
};

/* Both map entries start with their key and process (the maps below read them there). */
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

/* A counter track's state (see the top of this file). */
struct counter {
	int64_t value;
	uint64_t last_ns; /* of its last sample */
	bool ever, pending;
};

enum { ALIVE, READY, BUSY, COUNTERS };
static const char *const counter_names[COUNTERS] = {"tasks alive", "tasks ready", "workers busy"};

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

/* speedscope's frames: distinct names (JSON-escaped), by their text. */
struct frames {
	struct table table; /* of 1 + a frame (uint32_t), by its name */
	uint32_t *names;    /* offsets in pool */
	uint32_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
	uint32_t cache_name[4096], cache_frame[4096]; /* a site's name (pool offset) to its frame */
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
	struct open_slice (*stacks)[MAX_OPEN];
	uint32_t n_stacks, cap_stacks, *free_stacks, n_free_stacks;
	struct sites sites;
	struct table processes; /* of struct process: MAX_PROCESSES * 2 slots */
	uint64_t last_ns, malformed;
	struct timeline_counts counts;
	uint32_t first_named_pid; /* the first process named (timeline_process_name) */
	uint64_t slices;          /* slices written (B, or an instant of no length) */
	bool first_event;
	/* the window: absolute once the first event is seen */
	bool started, in_window, done;
	uint64_t origin, from, to;
	/* speedscope */
	struct profile *profiles;
	uint32_t n_profiles;
	struct frames frames;
	int spill_fd;
	uint64_t spill_size, buffered;
	struct block *blocks;
	size_t n_blocks, cap_blocks;
	bool failed;               /* out of memory, or the spill file failed */
	struct analysis *analysis; /* options.critical_path: the events go to it too */
	uint32_t path_profile;     /* speedscope: 1 + the critical path's profile being written */
	char lines[2][MAX_LINE];
	size_t previous_len; /* of lines[previous]; 0: no sample line just before */
	unsigned previous;
};

static uint64_t entry_key_hash(uint32_t process, uint64_t key)
{
	return tp_hash_pair(key, process);
}

/* A task's or a thread's hash (the tables of both: their key_head) */
static uint64_t entry_hash(const void *context, const void *slot)
{
	(void)context;
	const struct key_head *e = slot;
	return entry_key_hash(e->process, e->key);
}

static void *map_find(const struct table *m, uint32_t process, uint64_t key)
{
	if (m->size == 0 || key == 0)
		return NULL;
	for (size_t i = table_home(m, entry_key_hash(process, key)); table_used(m, i);
	     i = table_next(m, i)) {
		struct key_head *e = table_slot(m, i);
		if (e->key == key && e->process == process)
			return e;
	}
	return NULL;
}

/* The entry of `key` of `process`, added zeroed if new; NULL when out of memory (or key 0). */
static void *map_get(struct table *m, uint32_t process, uint64_t key, bool *added)
{
	struct key_head *e = map_find(m, process, key);
	*added = false;
	if (e != NULL || key == 0)
		return e;
	if (!table_room(m))
		return NULL;
	e = table_claim(m, entry_key_hash(process, key));
	e->key = key;
	e->process = process;
	*added = true;
	return e;
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
	_Static_assert(sizeof probes / sizeof *probes == TP_RECORD_TYPES_END,
		       "a probe name (or none) for each record type");
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
	return tp_hash_pair(scope ^ scope << 40, id);
}

static uint64_t site_slot_hash(const void *context, const void *slot)
{
	(void)context;
	const struct site *e = slot;
	return site_hash(e->scope, e->id);
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

/* The slot of site `id` of `scope`, or the free one where it would go; NULL: no table yet. */
static struct site *site_slot(const struct sites *m, uint64_t scope, uint64_t id)
{
	const struct table *x = &m->table;
	if (x->size == 0)
		return NULL;
	size_t i = table_home(x, site_hash(scope, id));
	for (; table_used(x, i); i = table_next(x, i)) {
		struct site *e = table_slot(x, i);
		if (e->scope == scope && e->id == id)
			break;
	}
	return table_slot(x, i);
}

/* The text of site `id` of `scope` as the input said it (NUL-terminated), or NULL. */
static const char *site_text(const struct sites *m, uint64_t scope, uint64_t id)
{
	const struct site *e = site_slot(m, scope, id);
	return e != NULL && e->text != 0 ? m->pool + e->text : NULL;
}

/*
 * The name (offset of the escaped text in the pool) of site `id` of `scope`: `text` (of `len`
 * bytes; NULL when the sample has none) kept on first sight, the text kept before when the
 * sample has none. 0 when there is no text, or no room for it.
 */
static uint32_t site_name(struct sites *m, uint64_t scope, uint64_t id, const char *text,
			  uint32_t len)
{
	struct site *e = site_slot(m, scope, id);
	if (e != NULL && e->text != 0 &&
	    (text == NULL || (e->text_len == len && memcmp(m->pool + e->text, text, len) == 0)))
		return e->name;
	if (text == NULL)
		return 0;
	/* a new site, or a new text for it: both forms appended to the pool */
	bool added = e == NULL || e->text == 0;
	if (added && (m->table.used == MAX_SITES || !table_room(&m->table))) {
		m->refused++;
		return 0;
	}
	if (!pool_reserve(m, (size_t)len * 7 + 2)) {
		m->refused++;
		return 0;
	}
	if (added)
		e = table_claim(&m->table, site_hash(scope, id));
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
	t->counts.written++;
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

/* Whether Trace Event Format events are written now (the format, and within the window). */
static bool json(const struct timeline *t)
{
	return t->options.format == TIMELINE_TRACE_EVENTS && t->in_window;
}

/* A task's name (JSON-escaped) into `buf`: its site's text, else its site's id, else none's. */
static const char *task_name_text(const struct timeline *t, uint64_t site, uint32_t name,
				  char buf[32])
{
	if (site != 0 && name != 0)
		return t->sites.pool + name;
	if (site != 0) {
		snprintf(buf, 32, "site %" PRIu64, site);
		return buf;
	}
	return NO_SITE_NAME;
}

static void task_name(const struct timeline *t, uint64_t site, uint32_t name)
{
	char buf[32];
	put(t->out, "\"name\":\"");
	put(t->out, task_name_text(t, site, name, buf));
	put(t->out, "\"");
}

/* Whether the site filter keeps a task of this site (its name holds one of the texts). */
static bool site_kept(const struct timeline *t, uint64_t site, uint32_t name)
{
	if (t->options.n_sites == 0)
		return true;
	char buf[32];
	const char *text = task_name_text(t, site, name, buf);
	bool kept = false;
	for (size_t i = 0; i < t->options.n_sites; i++)
		if (strstr(text, t->sites_wanted[i]) != NULL)
			kept = t->site_matched[i] = true;
	return kept;
}

static bool thread_kept(const struct timeline *t, uint64_t tid)
{
	if (t->options.n_tids == 0)
		return true;
	bool kept = false;
	for (size_t i = 0; i < t->options.n_tids; i++)
		if (t->options.tids[i] == tid)
			kept = t->tid_matched[i] = true;
	return kept;
}

size_t timeline_unmatched(const struct timeline *t, FILE *out)
{
	size_t n = 0;
	for (size_t i = 0; i < t->options.n_tids; i++)
		if (!t->tid_matched[i] && ++n)
			fprintf(out,
				"taskprobe-timeline: --thread %" PRIu64
				" matched no thread of the input\n",
				t->options.tids[i]);
	for (size_t i = 0; i < t->options.n_sites; i++)
		if (!t->site_matched[i] && ++n)
			fprintf(out, "taskprobe-timeline: --site %s matched no task of the input\n",
				t->options.sites[i]);
	return n;
}

/* A task's id in the timeline: tasks of different processes may have the same id. */
static void put_task_id(FILE *out, uint32_t pid, uint64_t task)
{
	put_number(out, ",\"id\":\"", pid, ":");
	put_number(out, "", task, "\"");
}

/* ---- counters ---- */

static uint64_t process_hash(const void *context, const void *slot)
{
	(void)context;
	return tp_hash_finish(((const struct process *)slot)->key);
}

static struct process *process_of(struct timeline *t, uint32_t process, uint32_t pid)
{
	struct table *x = &t->processes;
	if (x->size == 0)
		return NULL;
	size_t used = 0;
	for (size_t i = table_home(x, tp_hash_finish(process + 1ULL));;
	     i = table_next(x, i), used++) {
		struct process *p = table_slot(x, i);
		if (p->key == process + 1ULL)
			return p;
		if (!table_used(x, i)) {
			if (used >= MAX_PROCESSES) /* half full: no more processes' counters */
				return NULL;
			p = table_fill(x, i);
			p->key = process + 1ULL;
			p->pid = pid;
			return p;
		}
	}
}

static void counter_write(struct timeline *t, const struct process *p, int which, uint64_t ns)
{
	if (!json(t))
		return;
	struct sample at = {.pid = p->pid, .tid = p->pid, .ns = ns};
	begin_event(t, 'C', &at);
	put(t->out, ",\"name\":\"");
	put(t->out, counter_names[which]);
	put_number(t->out, "\",\"args\":{\"value\":", (uint64_t)p->c[which].value, "}}");
}

/* The sample a change less than TIMELINE_COUNTER_NS after the last one left pending, once
 * `ns` is past its time. */
static void counter_catch_up(struct timeline *t, struct process *p, int which, uint64_t ns)
{
	struct counter *c = &p->c[which];
	if (c->pending && ns >= c->last_ns + TIMELINE_COUNTER_NS) {
		c->last_ns += TIMELINE_COUNTER_NS;
		c->pending = false;
		counter_write(t, p, which, c->last_ns);
	}
}

static void counter_change(struct timeline *t, struct process *p, int which, int delta, uint64_t ns)
{
	if (p == NULL)
		return;
	struct counter *c = &p->c[which];
	counter_catch_up(t, p, which, ns);
	c->value += delta;
	if (c->value < 0)
		c->value = 0;
	if (!c->ever || ns >= c->last_ns + TIMELINE_COUNTER_NS) {
		c->ever = true;
		c->pending = false;
		c->last_ns = ns;
		counter_write(t, p, which, ns);
	} else {
		c->pending = true;
	}
}

/* Every counter's value at `ns`: the window's start (all) or end (the pending ones). */
static void counters_at(struct timeline *t, uint64_t ns, bool all)
{
	for (size_t i = 0; i < t->processes.size; i++) {
		struct process *p = table_slot(&t->processes, i);
		for (int which = 0; p->key != 0 && which < COUNTERS; which++) {
			struct counter *c = &p->c[which];
			if (!c->ever || (!all && !c->pending))
				continue;
			c->pending = false;
			c->last_ns = ns;
			counter_write(t, p, which, ns);
		}
	}
}

/* ---- speedscope ---- */

static bool buffer_reserve(struct timeline *t, struct buffer *b, uint32_t need)
{
	if (b->len + need <= b->cap)
		return true;
	uint32_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + need)
		cap *= 2;
	char *data = realloc(b->data, cap);
	if (data == NULL) {
		t->failed = true;
		return false;
	}
	t->buffered += cap - b->cap;
	b->data = data;
	b->cap = cap;
	return true;
}

int timeline_temp_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/taskprobe-timeline-XXXXXX",
		 dir != NULL && *dir != '\0' ? dir : "/tmp");
	int fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* Appends a profile's buffer to the spill file as a block, and empties it (freed if `release`). */
static void spill(struct timeline *t, uint32_t profile, int kind, bool release)
{
	struct buffer *b = &t->profiles[profile].text[kind];
	if (b->len > 0 && !t->failed) {
		if (t->spill_fd < 0)
			t->spill_fd = timeline_temp_file();
		if (t->n_blocks == t->cap_blocks) {
			size_t cap = t->cap_blocks ? 2 * t->cap_blocks : 1024;
			struct block *blocks = realloc(t->blocks, cap * sizeof *blocks);
			if (blocks == NULL) {
				t->failed = true;
				return;
			}
			t->blocks = blocks;
			t->cap_blocks = cap;
		}
		for (uint32_t done = 0; t->spill_fd >= 0 && done < b->len;) {
			ssize_t n = pwrite(t->spill_fd, b->data + done, b->len - done,
					   (off_t)(t->spill_size + done));
			if (n <= 0 && errno != EINTR)
				break;
			done += n > 0 ? (uint32_t)n : 0;
			if (done == b->len) {
				t->blocks[t->n_blocks] = (struct block){.profile = profile,
									.kind = (uint8_t)kind,
									.len = b->len,
									.offset = t->spill_size,
									.order = t->n_blocks};
				t->n_blocks++;
				t->spill_size += b->len;
				b->len = 0;
			}
		}
		if (b->len > 0)
			t->failed = true;
	}
	b->len = 0;
	if (release) {
		t->buffered -= b->cap;
		free(b->data);
		b->data = NULL;
		b->cap = 0;
	}
}

static void spill_all(struct timeline *t)
{
	for (uint32_t i = 0; i < t->n_profiles; i++)
		for (int kind = 0; kind < 1; kind++)
			spill(t, i, kind, true);
	t->buffered = 0;
}

/* Appends `len` bytes to a profile's text of `kind`. */
static void profile_put(struct timeline *t, uint32_t profile, int kind, const char *s, uint32_t len)
{
	struct buffer *b = &t->profiles[profile].text[kind];
	if (b->len + len > BLOCK_BYTES)
		spill(t, profile, kind, false);
	if (!buffer_reserve(t, b, len))
		return;
	memcpy(b->data + b->len, s, len);
	b->len += len;
	if (t->buffered > SPILL_BUFFERED)
		spill_all(t);
}

static uint64_t frame_hash(const void *context, const void *slot)
{
	const struct frames *f = context;
	return tp_hash_finish(tp_hash_text(f->pool + f->names[*(const uint32_t *)slot - 1]));
}

/* The frame of a name (JSON-escaped, NUL-terminated); 0 when there is no room (frame 0 is then
 * shared: the first name seen). */
static uint32_t frame_of(struct timeline *t, const char *name)
{
	struct frames *f = &t->frames;
	size_t len = strlen(name);
	uint64_t h = tp_hash_text(name);
	struct table *x = &f->table;
	if (!table_has_room(x) && (f->n >= MAX_FRAMES || !table_grow(x)))
		return 0;
	size_t i = table_home(x, tp_hash_finish(h));
	for (; table_used(x, i); i = table_next(x, i)) {
		uint32_t frame = *(const uint32_t *)table_slot(x, i);
		if (strcmp(f->pool + f->names[frame - 1], name) == 0)
			return frame - 1;
	}
	if (f->n == f->cap) {
		uint32_t cap = f->cap ? 2 * f->cap : 256;
		uint32_t *names = realloc(f->names, cap * sizeof *names);
		if (names == NULL)
			return 0;
		f->names = names;
		f->cap = cap;
	}
	if (f->pool_len + len + 1 > MAX_NAMES_BYTES)
		return 0;
	if (f->pool_len + len + 1 > f->pool_cap) {
		size_t cap = f->pool_cap ? f->pool_cap : 4096;
		while (cap < f->pool_len + len + 1)
			cap *= 2;
		char *pool = realloc(f->pool, cap);
		if (pool == NULL)
			return 0;
		f->pool = pool;
		f->pool_cap = cap;
	}
	memcpy(f->pool + f->pool_len, name, len + 1);
	f->names[f->n] = (uint32_t)f->pool_len;
	f->pool_len += len + 1;
	*(uint32_t *)table_fill(x, i) = ++f->n;
	return f->n - 1;
}

/* What waits: its kind, or for an MPI wait its call (`MPI_Allreduce`), whose number is its object. */
static const char *wait_what(const struct open_slice *slice)
{
	static const char *const calls[] = TP_MPI_CALL_NAMES;
	if (slice->wait_kind == TP_WAIT_MPI)
		return slice->id >= 1 && slice->id <= TP_MPI_CALLS ? calls[slice->id] : "MPI call";
	return wait_kind(slice->wait_kind);
}

/* A wait slice's name: "KIND at SITE" (the site's escaped text), or "wait KIND" with no site;
 * an MPI wait's, "MPI_CALL at SITE" or "MPI_CALL". */
static void wait_name(const struct timeline *t, const struct open_slice *slice, char *out,
		      size_t size)
{
	if (slice->name != 0)
		snprintf(out, size, "%s at %s", wait_what(slice), t->sites.pool + slice->name);
	else if (slice->wait_kind == TP_WAIT_MPI)
		snprintf(out, size, "%s", wait_what(slice));
	else
		snprintf(out, size, "wait %s", wait_kind(slice->wait_kind));
}

/* A slice's frame (speedscope only). */
static uint32_t slice_frame(struct timeline *t, const struct open_slice *slice)
{
	char buf[2048];
	if (slice->kind == 'K')
		return frame_of(t, "parked");
	if (slice->kind == 'W') {
		wait_name(t, slice, buf, sizeof buf);
		return frame_of(t, buf);
	}
	if (slice->site != 0 && slice->name != 0) {
		size_t i = slice->name & 4095;
		if (t->frames.cache_name[i] != slice->name) {
			t->frames.cache_name[i] = slice->name;
			t->frames.cache_frame[i] = frame_of(t, t->sites.pool + slice->name);
		}
		return t->frames.cache_frame[i];
	}
	return frame_of(t, task_name_text(t, slice->site, slice->name, buf));
}

/* Writes a profile's pending event. */
static void profile_flush(struct timeline *t, uint32_t profile)
{
	struct profile *p = &t->profiles[profile];
	if (!p->pending)
		return;
	char text[64];
	int len = snprintf(
		text, sizeof text, "%s{\"type\":\"%c\",\"frame\":%" PRIu32 ",\"at\":%" PRIu64 "}",
		p->events > 0 ? "," : "", p->pending_type, p->pending_frame, p->pending_at);
	profile_put(t, profile, 0, text, (uint32_t)len);
	p->events++;
	p->pending = false;
	t->counts.written++;
}

/*
 * A slice of `thread` opened ('O') or closed ('C') at `ns` in its profile (see the top of this
 * file): a close right after the open of its frame in the same microsecond cancels it, and so
 * does an open right after a close of its frame.
 */
static void profile_event(struct timeline *t, const struct thread *thread, char type,
			  uint32_t frame, uint64_t ns)
{
	if (thread->profile == 0)
		return;
	uint32_t profile = thread->profile - 1;
	struct profile *p = &t->profiles[profile];
	ns = ns < t->from ? t->from : ns > t->to ? t->to : ns;
	uint64_t at = (ns - t->from + 500) / 1000;
	if (at < p->last_at)
		at = p->last_at;
	p->last_at = at;
	if (p->pending && p->pending_frame == frame && p->pending_at == at &&
	    p->pending_type != type) {
		p->pending = false;
		return;
	}
	profile_flush(t, profile);
	p->pending = true;
	p->pending_type = type;
	p->pending_frame = frame;
	p->pending_at = at;
}

static int block_order(const void *a, const void *b)
{
	const struct block *x = a, *y = b;
	if (x->profile != y->profile)
		return x->profile < y->profile ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Copies a block of the spill file to the output. */
static void copy_block(struct timeline *t, const struct block *b, char *buf)
{
	if (pread(t->spill_fd, buf, b->len, (off_t)b->offset) != (ssize_t)b->len) {
		t->failed = true;
		return;
	}
	fwrite_unlocked(buf, 1, b->len, t->out);
}

/* Writes the speedscope file: every profile's samples, then the frames. */
static void speedscope_finish(struct timeline *t)
{
	FILE *out = t->out;
	uint64_t end = t->last_ns < t->to ? t->last_ns : t->to;
	if (t->from > end)
		end = t->from;
	if (t->n_profiles == 0 || t->counts.written == 0) {
		/* speedscope refuses a file without a profile: one that says what was seen */
		fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		      "\"exporter\":\"taskprobe-timeline\",\"profiles\":[{\"type\":\"evented\","
		      "\"name\":\"",
		      out);
		put(out, t->counts.events == 0 ? NOTHING_SEEN : NO_SLICE_SEEN);
		fputs("\",\"unit\":\"microseconds\",\"startValue\":0,\"endValue\":1,\"events\":["
		      "{\"type\":\"O\",\"frame\":0,\"at\":0},{\"type\":\"C\",\"frame\":0,\"at\":1}]"
		      "}],"
		      "\"shared\":{\"frames\":[{\"name\":\"",
		      out);
		put(out, t->counts.events == 0 ? NOTHING_SEEN : NO_SLICE_SEEN);
		fputs("\"}]}}\n", out);
		return;
	}
	for (uint32_t i = 0; i < t->n_profiles; i++)
		profile_flush(t, i);
	spill_all(t);
	char *buf = malloc(BLOCK_BYTES);
	if (buf == NULL) {
		t->failed = true;
		return;
	}
	qsort(t->blocks, t->n_blocks, sizeof *t->blocks, block_order);
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
	      "\"exporter\":\"taskprobe-timeline\",\"activeProfileIndex\":0,\"profiles\":[",
	      out);
	size_t b = 0;
	for (uint32_t i = 0; i < t->n_profiles; i++) {
		struct profile *p = &t->profiles[i];
		fputs(i == 0 ? "\n{\"type\":\"evented\",\"name\":\""
			     : ",\n{\"type\":\"evented\",\"name\":\"",
		      out);
		put_escaped(out, p->name);
		put_number(out, "\",\"unit\":\"microseconds\",\"startValue\":0,\"endValue\":",
			   (end - t->from + 500) / 1000, ",\"events\":[");
		for (; b < t->n_blocks && t->blocks[b].profile == i; b++)
			copy_block(t, &t->blocks[b], buf);
		fputs("]}", out);
	}
	free(buf);
	fputs("],\n\"shared\":{\"frames\":[", out);
	for (uint32_t i = 0; i < t->frames.n; i++) {
		put(out, i == 0 ? "{\"name\":\"" : ",{\"name\":\"");
		put(out, t->frames.pool + t->frames.names[i]);
		put(out, "\"}");
	}
	fputs("]}}\n", out);
}

/* ---- slices ---- */

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
	case 'W': {
		char name[2048];
		wait_name(t, slice, name, sizeof name);
		fprintf(out, ",\"name\":\"%s\"", name);
		if (args) {
			fprintf(out, ",\"args\":{\"object\":\"0x%" PRIx64 "\",\"task\":%" PRIu64,
				slice->id, slice->task);
			if (slice->stack != 0)
				put_number(out, ",\"stack\":", slice->stack, "");
			fputc('}', out);
		}
		fputc('}', out);
		break;
	}
	default:
		fputs(",\"name\":\"parked\"}", out);
	}
}

/* The begin events not written yet of `thread`'s open slices (the outermost first). */
static void write_begins(struct timeline *t, struct thread *thread)
{
	if (!json(t))
		return;
	for (unsigned i = 0; i < thread->depth; i++) {
		struct open_slice *slice = &t->stacks[thread->stack][i];
		if (slice->written || !slice->kept)
			continue;
		struct sample at = {
			.pid = thread->pid, .tid = (uint32_t)thread->key, .ns = slice->ns};
		slice->written = true;
		t->slices++;
		begin_event(t, 'B', &at);
		slice_label(t, slice, false);
	}
}

/* Whether the thread has a kept poll open (the site filter keeps its waits). */
static bool in_kept_poll(const struct timeline *t, const struct thread *thread)
{
	for (unsigned i = 0; i < thread->depth; i++)
		if (t->stacks[thread->stack][i].kind == 'P' && t->stacks[thread->stack][i].kept)
			return true;
	return false;
}

/* Opens `slice` on the sample's thread (unless its stack of slices is full). */
static bool open_slice(struct timeline *t, struct thread *thread, const struct open_slice *slice,
		       const struct sample *s)
{
	if (thread->depth == MAX_OPEN)
		return false;
	bool kept = thread->kept &&
		    (slice->kind == 'P' ? slice->kept
					: t->options.n_sites == 0 || in_kept_poll(t, thread));
	struct open_slice *open = &t->stacks[thread->stack][thread->depth++];
	*open = *slice;
	open->ns = s->ns;
	open->written = false;
	open->kept = kept;
	if (kept && thread->profile != 0) {
		open->frame = slice_frame(t, open);
		/* speedscope: its open written now (`written`), in the window */
		if (t->in_window) {
			profile_event(t, thread, 'O', open->frame, s->ns);
			open->written = true;
		}
	}
	if (slice->kind == 'W')
		t->counts.waits++;
	if (slice->kind == 'P' && thread->polls++ == 0)
		counter_change(t, process_of(t, thread->process, thread->pid), BUSY, 1, s->ns);
	return true;
}

/* Closes the innermost slice if it is of `kind` (an end whose start came before the
 * recording has nothing to close): its end with its arguments, or an instant if it has no
 * length (its begin not written yet). */
static void close_slice(struct timeline *t, struct thread *thread, char kind,
			const struct sample *s)
{
	struct open_slice *open = t->stacks[thread->stack];
	if (thread->depth == 0 || open[thread->depth - 1].kind != kind)
		return;
	if (s->ns > open[thread->depth - 1].ns)
		write_begins(t, thread);
	struct open_slice *slice = &open[--thread->depth];
	if (slice->kind == 'P' && --thread->polls == 0)
		counter_change(t, process_of(t, thread->process, thread->pid), BUSY, -1, s->ns);
	if (thread->profile != 0 && slice->kept && slice->written)
		profile_event(t, thread, 'C', slice->frame, s->ns);
	if (!slice->kept || !json(t))
		return;
	if (slice->written) {
		begin_event(t, 'E', s);
		slice_label(t, slice, true);
		return;
	}
	t->slices++;
	begin_event(t, 'i', s);
	put(t->out, ",\"s\":\"t\"");
	slice_label(t, slice, true);
}

static void instant(struct timeline *t, const struct sample *s, const char *what, uint64_t value)
{
	if (!json(t))
		return;
	begin_event(t, 'i', s);
	put(t->out, ",\"s\":\"t\",\"name\":\"");
	put(t->out, what);
	put_number(t->out, " ", value, "\"}");
}

/* ---- tasks ---- */

/* A task's track begins: at its spawn `s` (with the spawn's arguments), or at the window's
 * start `ns` when `s` is NULL. */
static void task_begin(struct timeline *t, struct task *e, uint32_t pid, uint64_t ns,
		       const struct sample *s)
{
	struct sample at = {.pid = pid, .tid = e->spawn_tid, .ns = ns};
	e->flags |= TASK_SHOWN;
	begin_event(t, 'b', &at);
	put(t->out, ",\"cat\":\"task\"");
	put_task_id(t->out, pid, e->key);
	fputc(',', t->out);
	task_name(t, e->site, e->name);
	put_number(t->out, ",\"args\":{\"task\":", e->key, "");
	if (s != NULL)
		put_number(t->out, ",\"parent\":", (uint64_t)s->arg[1], "");
	put_number(t->out, ",\"site\":", e->site, "");
	if (s != NULL)
		put_number(t->out, ",\"stack\":", (uint64_t)s->arg[4], "");
	put(t->out, "}}");
}

static void task_end(struct timeline *t, struct task *e, const struct sample *at)
{
	e->flags &= (uint8_t)~TASK_SHOWN;
	begin_event(t, 'e', at);
	put(t->out, ",\"cat\":\"task\"");
	put_task_id(t->out, at->pid, e->key);
	fputc(',', t->out);
	task_name(t, e->site, e->name);
	fputc('}', t->out);
}

static uint64_t evict_before;

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Keeps a task spawned at or after evict_before; else counts it out of its process's counters. */
static bool task_stays(void *context, void *entry)
{
	struct timeline *t = context;
	struct task *e = entry;
	if (e->spawn_ns >= evict_before)
		return true;
	struct process *p = process_of(t, e->process, 0);
	counter_change(t, p, ALIVE, -1, t->last_ns);
	if (e->flags & TASK_READY)
		counter_change(t, p, READY, -1, t->last_ns);
	t->counts.tasks_forgotten++;
	return false;
}

/* At TIMELINE_MAX_TASKS tasks alive, the older half (by spawn time) is forgotten. */
static void tasks_evict(struct timeline *t)
{
	uint64_t *times = malloc(t->tasks.used * sizeof *times);
	if (times == NULL)
		return;
	size_t n = 0;
	for (size_t i = 0; i < t->tasks.size; i++) {
		const struct task *e = table_slot(&t->tasks, i);
		if (e->key != 0)
			times[n++] = e->spawn_ns;
	}
	qsort(times, n, sizeof *times, by_u64);
	evict_before = times[n / 2] > times[0] ? times[n / 2] : times[0] + 1;
	free(times);
	table_rebuild(&t->tasks, t->tasks.size, task_stays, t);
}

static struct task *task_get(struct timeline *t, uint32_t process, uint64_t key, bool *added)
{
	if (t->tasks.used >= TIMELINE_MAX_TASKS && map_find(&t->tasks, process, key) == NULL)
		tasks_evict(t);
	return map_get(&t->tasks, process, key, added);
}

/* ---- threads ---- */

static bool thread_stays_idle(void *context, void *entry)
{
	struct timeline *t = context;
	struct thread *e = entry;
	if (e->depth > 0)
		return true;
	t->free_stacks[t->n_free_stacks++] = e->stack;
	t->counts.threads_forgotten++;
	return false;
}

/* Closes a thread's slices at the last time (it is forgotten). */
static bool thread_stays_none(void *context, void *entry)
{
	struct timeline *t = context;
	struct thread *e = entry;
	struct sample at = {.pid = e->pid, .tid = (uint32_t)e->key, .ns = t->last_ns};
	while (e->depth > 0)
		close_slice(t, e, t->stacks[e->stack][e->depth - 1].kind, &at);
	return thread_stays_idle(t, entry);
}

/* At TIMELINE_MAX_THREADS threads, those with no slice open are forgotten (all of them when
 * that is not a quarter: their slices closed). A thread seen again is named again. */
static void threads_evict(struct timeline *t)
{
	size_t before = t->threads.used;
	table_rebuild(&t->threads, t->threads.size, thread_stays_idle, t);
	if (t->threads.used > before - before / 4)
		table_rebuild(&t->threads, t->threads.size, thread_stays_none, t);
}

/* ---- events ---- */

static void convert(struct timeline *t, const struct sample *s, struct thread *thread)
{
	uint64_t task = (uint64_t)s->arg[0];
	uint32_t process = thread->process;
	struct process *counters = process_of(t, process, thread->pid);
	if (s->type == TP_RECORD_TASK_SPAWN) {
		uint64_t site = (uint64_t)s->arg[2];
		/* perf's sites are per pid; a recording's per segment (scope 1 + its index) */
		uint64_t scope = s->site_scope != 0 ? s->site_scope : s->pid;
		uint32_t name = 0;
		if (site != 0)
			name = s->text_arg == 4
				       ? site_name(&t->sites, scope, site, s->text, s->text_len)
				       : site_name(&t->sites, scope, site, NULL, 0);
		bool added;
		struct task *e = task_get(t, process, task, &added);
		t->counts.tasks++;
		if (e == NULL)
			return;
		if (added)
			counter_change(t, counters, ALIVE, 1, s->ns);
		else if (e->flags & TASK_READY) /* a task id spawned again */
			counter_change(t, counters, READY, -1, s->ns);
		e->site = site;
		e->name = name;
		e->spawn_ns = s->ns;
		e->spawn_tid = s->tid;
		e->flags = TASK_READY;
		/* the site asked first: a --site is matched by its tasks on any thread */
		if (site_kept(t, site, name) && thread->kept)
			e->flags |= TASK_KEPT;
		counter_change(t, counters, READY, 1, s->ns);
		if (json(t) && (e->flags & TASK_KEPT))
			task_begin(t, e, s->pid, s->ns, s);
	} else if (s->type == TP_RECORD_TASK_WAKE) {
		struct task *e = map_find(&t->tasks, process, task);
		if (e != NULL && !(e->flags & TASK_READY)) {
			e->flags |= TASK_READY;
			counter_change(t, counters, READY, 1, s->ns);
		}
		if (thread->kept &&
		    (t->options.n_sites == 0 || (e != NULL && e->flags & TASK_KEPT)))
			instant(t, s, "wake task", task);
	} else if (s->type == TP_RECORD_TASK_POLL_START) {
		struct task *e = map_find(&t->tasks, process, task);
		struct open_slice poll = {.kind = 'P',
					  .id = task,
					  .site = e != NULL ? e->site : 0,
					  .name = e != NULL ? e->name : 0};
		poll.kept = e != NULL ? (e->flags & TASK_KEPT) != 0 : site_kept(t, 0, 0);
		if (e != NULL && (e->flags & TASK_READY)) {
			e->flags &= (uint8_t)~TASK_READY;
			counter_change(t, counters, READY, -1, s->ns);
		}
		if (open_slice(t, thread, &poll, s) && e != NULL && !(e->flags & TASK_POLLED)) {
			e->flags |= TASK_POLLED;
			/* the flow: its start and end both, or neither */
			if (json(t) && poll.kept && thread->kept && e->spawn_ns >= t->from) {
				struct sample from = {
					.pid = s->pid, .tid = e->spawn_tid, .ns = e->spawn_ns};
				begin_event(t, 's', &from);
				put(t->out, ",\"cat\":\"spawn\"");
				put_task_id(t->out, s->pid, task);
				put(t->out, ",\"name\":\"spawn\"}");
				begin_event(t, 'f', s);
				put(t->out, ",\"bp\":\"e\",\"cat\":\"spawn\"");
				put_task_id(t->out, s->pid, task);
				put(t->out, ",\"name\":\"spawn\"}");
			}
		}
	} else if (s->type == TP_RECORD_TASK_POLL_END) {
		close_slice(t, thread, 'P', s);
		struct task *e = map_find(&t->tasks, process, task);
		if (s->arg[1] != 0 && e != NULL) {
			if (json(t) && (e->flags & TASK_SHOWN))
				task_end(t, e, s);
			counter_change(t, counters, ALIVE, -1, s->ns);
			if (e->flags & TASK_READY)
				counter_change(t, counters, READY, -1, s->ns);
			table_remove(&t->tasks, e);
		}
	} else if (s->type == TP_RECORD_TASK_TERMINATE) {
		struct task *e = map_find(&t->tasks, process, task);
		if (thread->kept &&
		    (t->options.n_sites == 0 || (e != NULL && e->flags & TASK_KEPT)))
			instant(t, s, "terminate task", task);
	} else if (s->type == TP_RECORD_WORKER_PARK) {
		struct open_slice park = {.kind = 'K'};
		open_slice(t, thread, &park, s);
	} else if (s->type == TP_RECORD_WORKER_UNPARK) {
		close_slice(t, thread, 'K', s);
	} else if (s->type == TP_RECORD_WAIT_START) {
		/* its call site (a recording's, where its record has one): named as a task's site is */
		uint64_t site = (uint64_t)s->arg[4];
		uint64_t scope = s->site_scope != 0 ? s->site_scope : s->pid;
		struct open_slice wait = {
			.kind = 'W',
			.wait_kind = (uint8_t)(s->arg[0] >= 1 && s->arg[0] <= TP_WAIT_KINDS
						       ? s->arg[0]
						       : 0),
			.id = (uint64_t)s->arg[1],
			.site = site,
			.name = site != 0 ? site_name(&t->sites, scope, site, NULL, 0) : 0,
			.task = (uint64_t)s->arg[3]};
		open_slice(t, thread, &wait, s);
	} else if (s->type == TP_RECORD_WAIT_STACK) {
		/* right after its wait's start: the innermost slice, when it is that wait */
		struct open_slice *wait = thread->depth > 0
						  ? &t->stacks[thread->stack][thread->depth - 1]
						  : NULL;
		if (wait != NULL && wait->kind == 'W' && wait->id == (uint64_t)s->arg[1])
			wait->stack = (uint64_t)s->arg[2];
	} else if (s->type == TP_RECORD_WAIT_END) {
		close_slice(t, thread, 'W', s);
	} else if (!thread->kept || t->options.n_sites > 0) {
		if (s->type == TP_RECORD_WORKER_START)
			t->counts.workers++;
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

struct timeline *timeline_new(FILE *out, const struct timeline_options *options)
{
	struct timeline *t = calloc(1, sizeof *t);
	if (t == NULL)
		return NULL;
	t->out = out;
	t->first_event = true;
	t->spill_fd = -1;
	table_init(&t->tasks, sizeof(struct task), sizeof(uint64_t), 64, entry_hash, NULL);
	table_init(&t->threads, sizeof(struct thread), sizeof(uint64_t), 64, entry_hash, NULL);
	table_init(&t->sites.table, sizeof(struct site), sizeof(uint64_t), 64, site_slot_hash,
		   NULL);
	table_init(&t->processes, sizeof(struct process), sizeof(uint64_t), 2 * MAX_PROCESSES,
		   process_hash, NULL);
	table_init(&t->frames.table, sizeof(uint32_t), sizeof(uint32_t), 1024, frame_hash,
		   &t->frames);
	t->options.to_ns = UINT64_MAX;
	if (options != NULL)
		t->options = *options;
	bool counters = table_grow(&t->processes);
	t->sites_wanted = calloc(t->options.n_sites + 1, sizeof *t->sites_wanted);
	t->site_matched = calloc(t->options.n_sites + t->options.n_tids + 1, sizeof(bool));
	t->tid_matched = t->site_matched != NULL ? t->site_matched + t->options.n_sites : NULL;
	if (!counters || t->sites_wanted == NULL || t->site_matched == NULL) {
		table_free(&t->processes);
		free(t->sites_wanted);
		free(t->site_matched);
		free(t);
		return NULL;
	}
	for (size_t i = 0; i < t->options.n_sites; i++) {
		size_t len = strlen(t->options.sites[i]);
		t->sites_wanted[i] = malloc(len * 6 + 1);
		if (t->sites_wanted[i] != NULL)
			t->sites_wanted[i][escape(t->sites_wanted[i], t->options.sites[i], len)] =
				'\0';
		else
			t->sites_wanted[i] = strdup("");
	}
	if (t->options.critical_path &&
	    (t->analysis = analysis_new(ANALYSIS_RESIDENT_MAX_BESIDE_TIMELINE)) == NULL) {
		table_free(&t->processes);
		for (size_t i = 0; i < t->options.n_sites; i++)
			free(t->sites_wanted[i]);
		free(t->sites_wanted);
		free(t->site_matched);
		free(t);
		return NULL;
	}
	if (t->options.format == TIMELINE_TRACE_EVENTS)
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

/* Every open slice of every thread, and every task alive, at the window's start `ns`. */
static void window_start(struct timeline *t, uint64_t ns)
{
	t->in_window = true;
	for (size_t i = 0; i < t->threads.size; i++) {
		struct thread *thread = table_slot(&t->threads, i);
		for (unsigned j = 0; thread->key != 0 && j < thread->depth; j++) {
			struct open_slice *slice = &t->stacks[thread->stack][j];
			if (slice->ns < ns)
				slice->ns = ns;
			if (thread->profile != 0 && slice->kept) {
				profile_event(t, thread, 'O', slice->frame, ns);
				slice->written = true;
			}
		}
	}
	for (size_t i = 0; json(t) && i < t->tasks.size; i++) {
		struct task *e = table_slot(&t->tasks, i);
		const struct process *p = e->key != 0 ? process_of(t, e->process, 0) : NULL;
		if (p != NULL && (e->flags & TASK_KEPT))
			task_begin(t, e, p->pid, ns, NULL);
	}
	counters_at(t, ns, true);
}

/* Every slice and task track open at the window's end `ns` ends there. */
static void window_end(struct timeline *t, uint64_t ns)
{
	for (size_t i = 0; i < t->threads.size; i++) {
		struct thread *thread = table_slot(&t->threads, i);
		if (thread->key == 0)
			continue;
		struct sample at = {.pid = thread->pid, .tid = (uint32_t)thread->key, .ns = ns};
		for (unsigned j = thread->depth; thread->profile != 0 && j-- > 0;) {
			struct open_slice *slice = &t->stacks[thread->stack][j];
			if (slice->kept && slice->written)
				profile_event(t, thread, 'C', slice->frame, ns);
		}
		if (json(t)) {
			write_begins(t, thread);
			for (unsigned j = thread->depth; j-- > 0;) {
				struct open_slice *slice = &t->stacks[thread->stack][j];
				if (slice->kept && slice->written) {
					begin_event(t, 'E', &at);
					slice_label(t, slice, true);
				}
			}
		}
	}
	for (size_t i = 0; json(t) && i < t->tasks.size; i++) {
		struct task *e = table_slot(&t->tasks, i);
		const struct process *p = e->key != 0 ? process_of(t, e->process, 0) : NULL;
		if (p != NULL && (e->flags & TASK_SHOWN)) {
			struct sample at = {.pid = p->pid, .tid = e->spawn_tid, .ns = ns};
			task_end(t, e, &at);
		}
	}
	counters_at(t, ns, false);
	t->in_window = false;
	t->done = true;
}

/* Moves the window to `ns` (an event's time). */
static void window_at(struct timeline *t, uint64_t ns)
{
	if (!t->started) {
		t->started = true;
		t->origin = ns;
		t->from = ns + t->options.from_ns < ns ? UINT64_MAX : ns + t->options.from_ns;
		t->to = ns + t->options.to_ns < ns ? UINT64_MAX : ns + t->options.to_ns;
	}
	if (!t->in_window && !t->done && ns >= t->from)
		window_start(t, t->from);
	if (t->in_window && ns > t->to)
		window_end(t, t->to);
}

bool timeline_done(const struct timeline *t)
{
	return t->done;
}

/*
 * The name of the thread whose first event is `e`: its own, else, for a recording's thread that
 * set none (its name its process's), its start routine's ("worker (pool.c:58)", "libomp.so.5
 * thread" for a stripped library's), unless the routine has none (outside every module).
 */
static const char *thread_name(const struct timeline *t, const struct timeline_event *e)
{
	const char *routine = NULL;
	if (e->type == TP_RECORD_THREAD_START && e->named_as_process && e->start_routine_site != 0)
		routine = site_text(&t->sites, e->site_scope, e->start_routine_site);
	return routine != NULL && routine[0] != '\0' ? routine : e->comm;
}

/* A speedscope profile for a new thread (up to TIMELINE_MAX_PROFILES of them). */
static void add_profile(struct timeline *t, struct thread *thread, const struct timeline_event *e)
{
	if (t->n_profiles == TIMELINE_MAX_PROFILES) {
		t->counts.threads_unprofiled++;
		return;
	}
	if (t->profiles == NULL) {
		t->profiles = calloc(TIMELINE_MAX_PROFILES, sizeof *t->profiles);
		if (t->profiles == NULL) {
			t->failed = true;
			return;
		}
	}
	struct profile *p = &t->profiles[t->n_profiles++];
	p->tid = e->tid;
	snprintf(p->name, sizeof p->name, "%s %" PRIu32 " (pid %" PRIu32 ")", thread_name(t, e),
		 e->tid, e->pid);
	thread->profile = t->n_profiles;
}

/*
 * The thread of `e` (of its process), named in the timeline when first seen, its slices' begins
 * written if `e` is later than they are; NULL: out of memory or tid 0.
 */
static struct thread *thread_of(struct timeline *t, const struct timeline_event *e)
{
	bool added;
	uint32_t process = (uint32_t)(e->process != 0 ? e->process : e->pid);
	if (e->ns > t->last_ns)
		t->last_ns = e->ns;
	window_at(t, e->ns);
	struct thread *thread = map_find(&t->threads, process, e->tid);
	if (thread == NULL && e->tid != 0) {
		if (t->threads.used >= TIMELINE_MAX_THREADS)
			threads_evict(t);
		uint32_t stack;
		if (t->n_free_stacks > 0) {
			stack = t->free_stacks[--t->n_free_stacks];
		} else {
			if (t->n_stacks == t->cap_stacks) {
				uint32_t cap = t->cap_stacks ? 2 * t->cap_stacks : 64;
				void *stacks = realloc(t->stacks, cap * sizeof *t->stacks);
				uint32_t *free_stacks = realloc(t->free_stacks,
								cap * sizeof *free_stacks);
				if (stacks != NULL)
					t->stacks = stacks;
				if (free_stacks != NULL)
					t->free_stacks = free_stacks;
				if (stacks == NULL || free_stacks == NULL) {
					t->failed = true;
					return NULL;
				}
				t->cap_stacks = cap;
			}
			stack = t->n_stacks++;
		}
		thread = map_get(&t->threads, process, e->tid, &added);
		if (thread == NULL) {
			t->free_stacks[t->n_free_stacks++] = stack;
			t->failed = true;
			return NULL;
		}
		thread->stack = stack;
		thread->pid = e->pid;
		thread->kept = thread_kept(t, e->tid);
		t->counts.threads++;
		if (thread->kept && t->options.format == TIMELINE_SPEEDSCOPE)
			add_profile(t, thread, e);
		if (thread->kept && t->options.format == TIMELINE_TRACE_EVENTS) {
			begin_event(t, 'M', e);
			fputs(",\"name\":\"thread_name\",\"args\":{\"name\":\"", t->out);
			put_escaped(t->out, thread_name(t, e));
			fprintf(t->out, " %" PRIu32 "\"}}", e->tid);
		}
	}
	if (thread != NULL && thread->depth > 0 &&
	    e->ns > t->stacks[thread->stack][thread->depth - 1].ns)
		write_begins(t, thread);
	t->counts.events++;
	return thread;
}

void timeline_process_name(struct timeline *t, uint32_t pid, const char *name)
{
	struct sample at = {.pid = pid};
	if (t->first_named_pid == 0)
		t->first_named_pid = pid;
	if (t->options.format != TIMELINE_TRACE_EVENTS)
		return;
	begin_event(t, 'M', &at);
	fputs(",\"name\":\"process_name\",\"args\":{\"name\":\"", t->out);
	put_escaped(t->out, name);
	fputs("\"}}", t->out);
}

void timeline_process_sort(struct timeline *t, uint32_t pid, int64_t index)
{
	struct sample at = {.pid = pid};
	if (t->options.format != TIMELINE_TRACE_EVENTS)
		return;
	begin_event(t, 'M', &at);
	fprintf(t->out, ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%" PRId64 "}}",
		index);
}

void timeline_flow(struct timeline *t, const struct timeline_event *at, bool start, const char *cat,
		   const char *id)
{
	if (t->done || !json(t))
		return;
	struct thread *thread = thread_of(t, at);
	if (thread == NULL || !thread->kept || t->done)
		return;
	begin_event(t, start ? 's' : 'f', at);
	fprintf(t->out, "%s,\"cat\":\"%s\",\"id\":\"%s\",\"name\":\"%s\"}",
		start ? "" : ",\"bp\":\"e\"", cat, id, cat);
}

void timeline_counts(const struct timeline *t, struct timeline_counts *counts)
{
	*counts = t->counts;
	counts->site_texts_refused = t->sites.refused;
}

void timeline_site(struct timeline *t, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	if (id != 0 && len > 0)
		(void)site_name(&t->sites, scope, id, text, len);
	if (t->analysis != NULL)
		analysis_site(t->analysis, scope, id, text, len);
}

void timeline_add(struct timeline *t, const struct timeline_event *e)
{
	if (t->done)
		return;
	if (t->analysis != NULL)
		analysis_add(t->analysis, e);
	struct thread *thread = thread_of(t, e);
	if (thread != NULL && !t->done) /* the event after the window's end changes nothing */
		convert(t, e, thread);
}

void timeline_dropped(struct timeline *t, const struct timeline_event *at, uint64_t count)
{
	if (t->done)
		return;
	struct thread *thread = thread_of(t, at);
	if (thread != NULL && thread->kept && !t->done)
		instant(t, at, "events not recorded:", count);
}

/* ---- the critical path ---- */

/* `ns` in microseconds with three decimals, as begin_event writes a timestamp. */
static void put_us(FILE *out, uint64_t ns)
{
	put_u64(out, ns / 1000);
	unsigned fraction = (unsigned)(ns % 1000);
	char tail[5] = {'.', (char)('0' + fraction / 100), (char)('0' + fraction / 10 % 10),
			(char)('0' + fraction % 10), '\0'};
	put(out, tail);
}

/* A fragment of a process's critical path (analysis_critical_path, in time order): a slice on
 * the process's "critical path" track (its first: the track named), clipped to the window. */
static void path_fragment(void *context, const struct analysis_fragment *f, bool first)
{
	struct timeline *t = context;
	FILE *out = t->out;
	/* the track: a JSON thread, or a speedscope profile (t->path_profile: 1 + its index) */
	if (first && t->options.format == TIMELINE_TRACE_EVENTS) {
		struct sample at = {.pid = f->pid, .tid = TIMELINE_PATH_TID};
		begin_event(t, 'M', &at);
		put(out, ",\"name\":\"thread_name\",\"args\":{\"name\":\"critical path\"}}");
		begin_event(t, 'M', &at);
		put(out, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":-1}}");
	} else if (first) {
		t->path_profile = 0;
		struct timeline_event e = {.pid = f->pid, .tid = TIMELINE_PATH_TID};
		struct thread track = {0};
		add_profile(t, &track, &e);
		if (track.profile != 0)
			snprintf(t->profiles[track.profile - 1].name,
				 sizeof t->profiles[track.profile - 1].name,
				 "critical path (pid %" PRIu32 ")", f->pid);
		t->path_profile = track.profile;
	}
	uint64_t start = f->start_ns > t->from ? f->start_ns : t->from,
		 end = f->end_ns < t->to ? f->end_ns : t->to;
	if (start > end || f->end_ns < t->from || f->start_ns > t->to)
		return;
	char buf[32], section[600];
	uint32_t name = f->site_id != 0 ? site_name(&t->sites, f->site_scope, f->site_id, NULL, 0)
					: 0;
	const char *text = task_name_text(t, f->site_id, name, buf);
	if (f->exclusion != 0) {
		/* a section of a mutual exclusion, named by its construct and its kind */
		static const char *const kinds[] = TP_EXCLUSION_KIND_NAMES;
		snprintf(section, sizeof section, "%s: %s",
			 kinds[f->exclusion <= TP_EXCLUSION_KINDS ? f->exclusion : 0], text);
		text = section;
	}
	if (t->options.format == TIMELINE_SPEEDSCOPE) {
		struct thread track = {.profile = t->path_profile};
		uint32_t frame = frame_of(t, text);
		profile_event(t, &track, 'O', frame, start);
		profile_event(t, &track, 'C', frame, end);
		return;
	}
	struct sample at = {.pid = f->pid, .tid = TIMELINE_PATH_TID, .ns = start};
	t->slices++;
	begin_event(t, 'X', &at);
	put(out, ",\"dur\":");
	put_us(out, end - start);
	put(out, ",\"name\":\"");
	put(out, text);
	put(out, "\"");
	put_number(out, ",\"args\":{\"task\":", f->task, "");
	put_number(out, ",\"thread\":", f->tid, "");
	if (f->site_id != 0)
		put_number(out, ",\"site\":", f->site_id, "");
	put(out, "}}");
}

uint64_t timeline_finish(struct timeline *t, struct timeline_counts *counts, bool *ok)
{
	if (!t->started) {
		t->started = t->in_window = true;
		t->to = UINT64_MAX;
	}
	/* slices still open (the recording ended first) end at the last timestamp */
	for (size_t i = 0; !t->done && i < t->threads.size; i++) {
		struct thread *thread = table_slot(&t->threads, i);
		struct sample s = {
			.pid = thread->pid, .tid = (uint32_t)thread->key, .ns = t->last_ns};
		while (thread->key != 0 && thread->depth > 0)
			close_slice(t, thread, t->stacks[thread->stack][thread->depth - 1].kind,
				    &s);
	}
	if (!t->done)
		counters_at(t, t->last_ns, false);
	if (t->analysis != NULL) {
		analysis_critical_path(t->analysis, path_fragment, t);
		analysis_free(t->analysis);
		t->analysis = NULL;
	}
	if (t->options.format == TIMELINE_SPEEDSCOPE) {
		speedscope_finish(t);
	} else {
		/* a timeline without any slice: a slice of no length says what it holds
		 * (speedscope refuses a timeline without any slice) */
		if (t->slices == 0) {
			struct sample at = {.pid = t->first_named_pid, .tid = t->first_named_pid};
			begin_event(t, 'X', &at);
			put(t->out, ",\"dur\":0,\"name\":\"");
			put(t->out, t->counts.events == 0 ? NOTHING_SEEN : NO_SLICE_SEEN);
			put(t->out, "\"}");
		}
		fputs("\n]}\n", t->out);
	}
	uint64_t malformed = t->malformed;
	if (counts != NULL)
		timeline_counts(t, counts);
	if (ok != NULL)
		*ok = !t->failed;
	for (uint32_t i = 0; i < t->n_profiles; i++)
		for (int kind = 0; kind < 1; kind++)
			free(t->profiles[i].text[kind].data);
	for (size_t i = 0; i < t->options.n_sites; i++)
		free(t->sites_wanted[i]);
	if (t->spill_fd >= 0)
		close(t->spill_fd);
	free(t->sites_wanted);
	free(t->site_matched);
	free(t->profiles);
	free(t->blocks);
	table_free(&t->frames.table);
	free(t->frames.names);
	free(t->frames.pool);
	table_free(&t->processes);
	free(t->stacks);
	free(t->free_stacks);
	table_free(&t->tasks);
	table_free(&t->threads);
	table_free(&t->sites.table);
	free(t->sites.pool);
	free(t);
	return malformed;
}
