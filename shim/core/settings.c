// SPDX-License-Identifier: MIT
/* Parsing the TASKPROBE_* environment variables (docs/settings.md). */
#define _GNU_SOURCE
#include "settings.h"

#include "process.h"
#include "warn.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>

extern char **environ;

/*
 * Every variable parse_environment reads, and the launcher's audit module's
 * (TASKPROBE_LIBOMP_BRIDGE, TASKPROBE_LIBOMP_NOTES, TASKPROBE_LIBGOMP:
 * shim/audit/libomp_audit.c): any other
 * TASKPROBE_ one is a misspelling, said.
 */
static const char *const known[] = {
	"TASKPROBE_STACKS",  "TASKPROBE_STACK_DEPTH",   "TASKPROBE_WORKERS",
	"TASKPROBE_REPORT",  "TASKPROBE_RECORD",        "TASKPROBE_RECORD_STACKS",
	"TASKPROBE_LIVE",    "TASKPROBE_LIVE_DIR",      "TASKPROBE_LIVE_LONG_POLL_US",
	"TASKPROBE_LIBOMP",  "TASKPROBE_LIBOMP_BRIDGE", "TASKPROBE_LIBOMP_NOTES",
	"TASKPROBE_LIBGOMP",
};

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

/* Copies of the strings: the program may change its environment later. */
static char workers_glob[256];
static char report_path[PATH_MAX];
static char record_path[PATH_MAX];
static char live_dir[PATH_MAX];
static char libomp_path[PATH_MAX];

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
		while (k < sizeof known / sizeof known[0] &&
		       !(strlen(known[k]) == length && strncmp(*e, known[k], length) == 0))
			k++;
		if (k < sizeof known / sizeof known[0])
			continue;
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)length, *e);
		if (tp_process_parent_started_with(name))
			continue;
		for (k = 0; k < sizeof known / sizeof known[0]; k++) {
			size_t d = distance(*e, length, known[k]);
			if (d < best) {
				best = d;
				nearest = k;
			}
		}
		if (nearest != SIZE_MAX)
			tp_warn("%.100s is not a setting of taskprobe (did you mean %s?): ignored",
				name, known[nearest]);
		else
			tp_warn("%.100s is not a setting of taskprobe (libtaskprobe(7), "
				"ENVIRONMENT): ignored",
				name);
	}
}

static void parse_environment(struct tp_settings *s)
{
	int saved_errno = errno;
	const char *v;
	long n;

	*s = defaults;
	if ((v = secure_getenv("TASKPROBE_STACKS")) != NULL) {
		if (parse_bounded(v, 0, 1, &n))
			s->stacks = n == 1;
		else
			warn_bad("TASKPROBE_STACKS", v, "0 or 1", "1");
	}
	if ((v = secure_getenv("TASKPROBE_STACK_DEPTH")) != NULL) {
		if (parse_bounded(v, 1, TP_STACK_DEPTH_MAX, &n))
			s->stack_depth = (unsigned)n;
		else
			warn_bad("TASKPROBE_STACK_DEPTH", v,
				 "a number from 1 to " TP_STRING(TP_STACK_DEPTH_MAX),
				 TP_STRING(TP_STACK_DEPTH_DEFAULT));
	}
	if ((v = secure_getenv("TASKPROBE_WORKERS")) != NULL)
		s->workers = copy_string("TASKPROBE_WORKERS", v, workers_glob, sizeof workers_glob,
					 "a glob of thread names (1 to 255 characters)");
	if ((v = secure_getenv("TASKPROBE_REPORT")) != NULL)
		s->report = copy_string("TASKPROBE_REPORT", v, report_path, sizeof report_path,
					"\"stderr\" or a file path");
	if ((v = secure_getenv("TASKPROBE_RECORD")) != NULL)
		s->record = copy_string("TASKPROBE_RECORD", v, record_path, sizeof record_path,
					"a file path (%p: the process id)");
	if ((v = secure_getenv("TASKPROBE_RECORD_STACKS")) != NULL) {
		if (parse_bounded(v, 0, 1, &n))
			s->record_stacks = n == 1;
		else
			warn_bad("TASKPROBE_RECORD_STACKS", v, "0 or 1", "0");
	}
	if ((v = secure_getenv("TASKPROBE_LIVE")) != NULL) {
		if (strcmp(v, "keep") == 0)
			s->live = TP_LIVE_KEEP;
		else if (parse_bounded(v, 0, 1, &n))
			s->live = n == 1 ? TP_LIVE_ON : TP_LIVE_OFF;
		else
			warn_bad("TASKPROBE_LIVE", v, "0, 1 or keep", "0");
	}
	if ((v = secure_getenv("TASKPROBE_LIVE_DIR")) != NULL)
		s->live_dir = copy_string("TASKPROBE_LIVE_DIR", v, live_dir, sizeof live_dir,
					  "a directory");
	if ((v = secure_getenv("TASKPROBE_LIVE_LONG_POLL_US")) != NULL) {
		if (parse_bounded(v, 1, 3600000000L, &n))
			s->live_long_poll_us = (unsigned)n;
		else
			warn_bad("TASKPROBE_LIVE_LONG_POLL_US", v,
				 "a number of microseconds from 1 to 3600000000", "10000");
	}
	if ((v = secure_getenv("TASKPROBE_LIBOMP")) != NULL)
		s->libomp = copy_string("TASKPROBE_LIBOMP", v, libomp_path, sizeof libomp_path,
					"the path of LLVM's libomp");
	s->text_utf8 = locale_utf8();
	warn_unknown_variables();
	errno = saved_errno;
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
