// SPDX-License-Identifier: MIT
/*
 * perf's text (timeline.h says which lines) parsed into events for the timeline: a sample line's
 * header (command, pid/tid, time), its sdt_taskprobe event and its arguments, numbers or strings.
 * A line that is not a sample is said (the first ERRORS_SHOWN) and skipped; a sample written
 * twice in a row is dropped.
 */
#define _GNU_SOURCE
#include "timeline_private.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "taskprobe_contract.h"

#define MAX_ARGS 6

#define ERRORS_SHOWN 10

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
