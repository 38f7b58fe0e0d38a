// SPDX-License-Identifier: MIT
/* Parsing the TASKPROBE_* environment variables (docs/settings.md). */
#define _GNU_SOURCE
#include "settings.h"

#include "process.h"
#include "warn.h"

#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>

extern char **environ;

enum { SETTINGS_UNPARSED, SETTINGS_PARSING, SETTINGS_READY };

static const struct tp_settings defaults = {
	.stacks = true,
	.stack_depth = TP_STACK_DEPTH_DEFAULT,
	.workers = NULL,
	.report = NULL,
	.record = NULL,
	.record_stacks = false,
	.live = TP_LIVE_OFF,
	.live_dir = NULL,
	.live_long_poll_us = 10000,
};

static struct tp_settings parsed;
static int state = SETTINGS_UNPARSED;

static void warn_bad(const char *variable, const char *value, const char *expected,
		     const char *fallback)
{
	tp_warn("%s=\"%.200s\" is not %s; using %s", variable, value, expected, fallback);
}

/* An integer in [min, max] with nothing after it, or false. */
static bool parse_bounded(const char *text, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/* A non-empty string that fits `buf`, copied there, or NULL with a warning. */
static const char *copy_string(const char *variable, const char *value, char *buf, size_t size,
			       const char *expected)
{
	if (value[0] == '\0' || strlen(value) >= size) {
		warn_bad(variable, value, expected, "none");
		return NULL;
	}
	memcpy(buf, value, strlen(value) + 1);
	return buf;
}

/*
 * Whether the locale the environment names (LC_ALL, else LC_CTYPE, else LANG: the order
 * setlocale reads them in) has UTF-8 for its codeset, as the terminal the report may reach then
 * has: "en_US.UTF-8", "C.utf8".
 */
static bool locale_utf8(void)
{
	static const char *const variables[] = {"LC_ALL", "LC_CTYPE", "LANG"};
	for (size_t i = 0; i < sizeof variables / sizeof variables[0]; i++) {
		const char *v = secure_getenv(variables[i]);
		if (v != NULL && v[0] != '\0') {
			const char *codeset = strchr(v, '.');
			return codeset != NULL && (strncasecmp(codeset + 1, "UTF-8", 5) == 0 ||
						   strncasecmp(codeset + 1, "utf8", 4) == 0);
		}
	}
	return false;
}

/*
 * The edit distance of `a` (`a_length` characters) and `b`, a swap of two neighbours counting
 * one (REPROT is REPORT with a swap); names longer than the table are as far as can be.
 */
static size_t distance(const char *a, size_t a_length, const char *b)
{
	enum { LONGEST = 40 };
	size_t b_length = strlen(b), d[LONGEST + 1][LONGEST + 1];
	if (a_length > LONGEST || b_length > LONGEST)
		return SIZE_MAX;
	for (size_t i = 0; i <= a_length; i++)
		for (size_t j = 0; j <= b_length; j++) {
			if (i == 0 || j == 0) {
				d[i][j] = i + j;
				continue;
			}
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = d[i - 1][j - 1] + cost;
			best = d[i - 1][j] + 1 < best ? d[i - 1][j] + 1 : best;
			best = d[i][j - 1] + 1 < best ? d[i][j - 1] + 1 : best;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[a_length][b_length];
}

/* How a setting's value is read, and where it goes in struct tp_settings. */
enum setting_kind {
	FLAG,     /* 0 or 1: a bool */
	NUMBER,   /* an integer in [min, max]: an unsigned */
	TEXT,     /* a non-empty string that fits its buffer: a const char * to the copy */
	LIVE,     /* 0, 1 or keep: enum tp_live_setting */
	ELSEWHERE /* read by the launcher's audit module (shim/audit/libomp_audit.c), not here */
};

/* Copies of the strings: the program may change its environment later. */
static char workers_glob[256];
static char report_path[PATH_MAX];
static char record_path[PATH_MAX];
static char live_dir[PATH_MAX];
static char libomp_path[PATH_MAX];

#define FIELD(name) offsetof(struct tp_settings, name)
/*
 * Every TASKPROBE_ variable there is (docs/settings.md, libtaskprobe(7)): any other is a
 * misspelling, said. `expected` is what a bad value is told it should be; the default then used is
 * `defaults`'.
 */
static const struct setting {
	const char *name;
	enum setting_kind kind;
	size_t field;
	const char *expected;
	long min, max; /* NUMBER's */
	char *buffer;  /* TEXT's copy, */
	size_t size;   /* this large */
} settings[] = {
	{.name = "TASKPROBE_STACKS", .kind = FLAG, .field = FIELD(stacks), .expected = "0 or 1"},
	{.name = "TASKPROBE_STACK_DEPTH",
	 .kind = NUMBER,
	 .field = FIELD(stack_depth),
	 .expected = "a number from 1 to " TP_STRING(TP_STACK_DEPTH_MAX),
	 .min = 1,
	 .max = TP_STACK_DEPTH_MAX},
	{.name = "TASKPROBE_WORKERS",
	 .kind = TEXT,
	 .field = FIELD(workers),
	 .expected = "a glob of thread names (1 to 255 characters)",
	 .buffer = workers_glob,
	 .size = sizeof workers_glob},
	{.name = "TASKPROBE_REPORT",
	 .kind = TEXT,
	 .field = FIELD(report),
	 .expected = "\"stderr\" or a file path",
	 .buffer = report_path,
	 .size = sizeof report_path},
	{.name = "TASKPROBE_RECORD",
	 .kind = TEXT,
	 .field = FIELD(record),
	 .expected = "a file path (%p: the process id)",
	 .buffer = record_path,
	 .size = sizeof record_path},
	{.name = "TASKPROBE_RECORD_STACKS",
	 .kind = FLAG,
	 .field = FIELD(record_stacks),
	 .expected = "0 or 1"},
	{.name = "TASKPROBE_LIVE", .kind = LIVE, .field = FIELD(live), .expected = "0, 1 or keep"},
	{.name = "TASKPROBE_LIVE_DIR",
	 .kind = TEXT,
	 .field = FIELD(live_dir),
	 .expected = "a directory",
	 .buffer = live_dir,
	 .size = sizeof live_dir},
	{.name = "TASKPROBE_LIVE_LONG_POLL_US",
	 .kind = NUMBER,
	 .field = FIELD(live_long_poll_us),
	 .expected = "a number of microseconds from 1 to 3600000000",
	 .min = 1,
	 .max = 3600000000L},
	{.name = "TASKPROBE_LIBOMP",
	 .kind = TEXT,
	 .field = FIELD(libomp),
	 .expected = "the path of LLVM's libomp",
	 .buffer = libomp_path,
	 .size = sizeof libomp_path},
	{.name = "TASKPROBE_LIBOMP_BRIDGE", .kind = ELSEWHERE},
	{.name = "TASKPROBE_LIBOMP_NOTES", .kind = ELSEWHERE},
	{.name = "TASKPROBE_LIBGOMP", .kind = ELSEWHERE},
};
#define SETTINGS (sizeof settings / sizeof settings[0])

/*
 * Says each TASKPROBE_ variable of the environment that is no setting (TASKPROBE_REPROT), with
 * the setting it is nearest to when one is within two edits: a misspelled setting otherwise does
 * nothing, unsaid. The environment is only read (as secure_getenv would: nothing in a
 * secure-execution process, which says nothing). A process whose parent was started with the
 * same variable says nothing: its parent said it (a build's commands each would, else).
 */
static void warn_unknown_variables(void)
{
	if (getauxval(AT_SECURE))
		return;
	for (char **e = environ; e != NULL && *e != NULL; e++) {
		if (strncmp(*e, "TASKPROBE_", 10) != 0)
			continue;
		size_t length = strcspn(*e, "="), k = 0, nearest = SIZE_MAX, best = 3;
		while (k < SETTINGS && !(strlen(settings[k].name) == length &&
					 strncmp(*e, settings[k].name, length) == 0))
			k++;
		if (k < SETTINGS)
			continue;
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)length, *e);
		if (tp_process_parent_started_with(name))
			continue;
		for (k = 0; k < SETTINGS; k++) {
			size_t d = distance(*e, length, settings[k].name);
			if (d < best) {
				best = d;
				nearest = k;
			}
		}
		if (nearest != SIZE_MAX)
			tp_warn("%.100s is not a setting of taskprobe (did you mean %s?): ignored",
				name, settings[nearest].name);
		else
			tp_warn("%.100s is not a setting of taskprobe (libtaskprobe(7), "
				"ENVIRONMENT): ignored",
				name);
	}
}

/* Setting `t`'s value `v` into `s`, or its default kept with a warning. */
static void parse_setting(const struct setting *t, const char *v, struct tp_settings *s)
{
	char *field = (char *)s + t->field, fallback[24];
	long n;
	switch (t->kind) {
	case FLAG:
		if (parse_bounded(v, 0, 1, &n)) {
			*(bool *)field = n == 1;
			return;
		}
		snprintf(fallback, sizeof fallback, "%d", *(const bool *)field);
		break;
	case NUMBER:
		if (parse_bounded(v, t->min, t->max, &n)) {
			*(unsigned *)field = (unsigned)n;
			return;
		}
		snprintf(fallback, sizeof fallback, "%u", *(const unsigned *)field);
		break;
	case TEXT:
		*(const char **)field = copy_string(t->name, v, t->buffer, t->size, t->expected);
		return;
	case LIVE:
		if (strcmp(v, "keep") == 0)
			*(enum tp_live_setting *)field = TP_LIVE_KEEP;
		else if (parse_bounded(v, 0, 1, &n))
			*(enum tp_live_setting *)field = n == 1 ? TP_LIVE_ON : TP_LIVE_OFF;
		else
			warn_bad(t->name, v, t->expected, "0");
		return;
	case ELSEWHERE:
		return;
	}
	warn_bad(t->name, v, t->expected, fallback);
}

static void parse_environment(struct tp_settings *s)
{
	int saved_errno = errno;
	*s = defaults;
	for (size_t i = 0; i < SETTINGS; i++) {
		const char *v = secure_getenv(settings[i].name);
		if (v != NULL)
			parse_setting(&settings[i], v, s);
	}
	s->text_utf8 = locale_utf8();
	warn_unknown_variables();
	errno = saved_errno;
}

bool tp_settings_ready(void)
{
	return __atomic_load_n(&state, __ATOMIC_ACQUIRE) == SETTINGS_READY;
}

const struct tp_settings *tp_settings(void)
{
	int seen = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	if (__builtin_expect(seen == SETTINGS_READY, 1))
		return &parsed;
	if (seen == SETTINGS_UNPARSED &&
	    __atomic_compare_exchange_n(&state, &seen, SETTINGS_PARSING, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED)) {
		parse_environment(&parsed);
		__atomic_store_n(&state, SETTINGS_READY, __ATOMIC_RELEASE);
		return &parsed;
	}
	return &defaults;
}
