// SPDX-License-Identifier: MIT
/*
 * The POP factors of a program, as each of taskprobe's three outputs says them (harness.h): the
 * exit report, the console and the analysis of a recording, of one run, in the words of
 * tp_live_factors_words (dtrace/taskprobe_figures.h), the one place they are made.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness_internal.h"

/*
 * Scans `format` (`conversions` of them) at the first place in `text` where `words` begin and
 * all of them are found: a phrase may also begin inside another line ("x communication
 * efficiency 0.500" before "communication efficiency 0.500 = ..."). False when none is.
 */
static bool scan_at(const char *text, const char *words, int conversions, const char *format, ...)
{
	for (const char *at = strstr(text, words); at != NULL; at = strstr(at + 1, words)) {
		va_list args;
		va_start(args, format);
		int scanned = vsscanf(at, format, args);
		va_end(args);
		if (scanned == conversions)
			return true;
	}
	return false;
}

struct tp_pop_factors tp_pop_factors_in(const char *text)
{
	struct tp_pop_factors f = {.parallelism = -1};
	double communication;
	f.said =
		scan_at(text, "parallel efficiency ", 3,
			"parallel efficiency %lf = load balance %lf x communication efficiency %lf",
			&f.parallel, &f.load_balance, &f.communication) &&
		scan_at(text, "communication efficiency ", 3,
			"communication efficiency %lf = serialisation efficiency %lf x transfer "
			"efficiency %lf",
			&communication, &f.serialisation, &f.transfer);
	/* the report's and the console's "work X, span Y: parallelism Z", --analyze's row
	 * "parallelism  Z": the first one with a number (the burdened one comes after) */
	scan_at(text, "parallelism", 1, "parallelism %lf", &f.parallelism);
	/* the report's and the console's "work Xms, span", --analyze's row "work T1  X ms" */
	if (!scan_at(text, "work ", 1, "work %lfms, span", &f.work_ms))
		scan_at(text, "work T1", 1, "work T1 %lf ms", &f.work_ms);
	f.region_of_interest = strstr(text, "region of interest") != NULL;
	return f;
}

/*
 * Runs `argv` through the launcher: `taskprobe COMMAND... -- argv...` (`command` NULL-terminated)
 * with `env` and `more` (NULL-terminated each), asserting the program's stdout and exit status
 * are `plain`'s (a run without the shim; NULL: its status is 0); what was written on stderr is in
 * run->err.
 */
static void launch_as_plain(const char *const command[], const char *const argv[],
			    const char *const env[], const char *const more[],
			    const struct tp_run *plain, const char *name, struct tp_run *run)
{
	enum { MAX = 24 };
	const char *args[MAX], *settings[MAX];
	size_t n = 0, s = 0;
	for (size_t i = 0; command[i] != NULL && n < MAX - 2; i++)
		args[n++] = command[i];
	args[n++] = "--";
	for (size_t i = 0; argv[i] != NULL && n < MAX - 1; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	for (size_t i = 0; env != NULL && env[i] != NULL && s < MAX - 1; i++)
		settings[s++] = env[i];
	for (size_t i = 0; more[i] != NULL && s < MAX - 1; i++)
		settings[s++] = more[i];
	settings[s] = NULL;
	tp_launch(args, settings, run);
	if (plain != NULL)
		tp_expect_same_result(argv[0], plain, "without the shim", run, name);
	else
		cr_assert_eq(run->status, 0, "%s %s: %s", argv[0], name, run->err);
}

/* The output `way` of `pop`: `text` said the factors, `err` the run's stderr (both taken). */
static void keep(struct tp_pop_run *pop, enum tp_pop_way way, const char *name, char *text,
		 char *err)
{
	pop->output[way] = (struct tp_pop_output){
		.way = name, .factors = tp_pop_factors_in(text), .text = text, .err = err};
}

/* tp_pop_run's; `plainly`: the program's stdout and status compared with a run without the shim,
 * else its status must be 0 (its stdout says its own times). */
static void pop_run(const char *const argv[], const char *const env[], bool plainly,
		    struct tp_pop_run *pop)
{
	const char *const top[] = {"top", "--once", NULL};
	memset(pop, 0, sizeof *pop);
	/* untraced, whatever other tests trace: their figures and what the consumers leave out */
	tp_use_private_shim();
	struct tp_run plain = {0}, launched;
	if (plainly)
		tp_run(TP_PLAIN, argv, env, &plain);
	char *dir = tp_make_temp_dir("pop"), *report, *record;
	cr_assert(asprintf(&report, "TASKPROBE_REPORT=%s/report", dir) > 0);
	cr_assert(asprintf(&record, "TASKPROBE_RECORD=%s/recording.%%p", dir) > 0);

	launch_as_plain(top, argv, env, (const char *[]){report, record, NULL},
			plainly ? &plain : NULL, "under top --once, reported and recorded",
			&launched);
	keep(pop, TP_POP_REPORT, "the exit report", tp_read_file(strchr(report, '=') + 1, NULL),
	     strdup(launched.err));
	keep(pop, TP_POP_TOP, "top --once", strdup(launched.err), strdup(launched.err));

	char *pattern;
	cr_assert(asprintf(&pattern, "%s/recording.*", dir) > 0);
	glob_t recordings;
	cr_assert_eq(glob(pattern, 0, NULL, &recordings), 0, "nothing recorded in %s", dir);
	cr_assert_eq(recordings.gl_pathc, 1, "recordings of %zu processes", recordings.gl_pathc);
	struct tp_run analysis;
	tp_run(TP_PLAIN, (const char *[]){TP_TIMELINE, "--analyze", recordings.gl_pathv[0], NULL},
	       NULL, &analysis);
	cr_expect_eq(analysis.status, 0, "%s", analysis.err);
	keep(pop, TP_POP_ANALYSIS, "--analyze", strdup(analysis.out), strdup(launched.err));
	tp_run_free(&analysis);
	pop->out = strdup(launched.out);
	tp_run_free(&launched);

	globfree(&recordings);
	free(pattern);
	free(report);
	free(record);
	pop->dir = dir;
	if (plainly)
		tp_run_free(&plain);
}

void tp_pop_run(const char *const argv[], const char *const env[], struct tp_pop_run *pop)
{
	pop_run(argv, env, true, pop);
}

void tp_pop_run_timed(const char *const argv[], const char *const env[], struct tp_pop_run *pop)
{
	pop_run(argv, env, false, pop);
}

void tp_pop_run_free(struct tp_pop_run *pop)
{
	for (size_t i = 0; i < TP_POP_WAYS; i++) {
		free(pop->output[i].text);
		free(pop->output[i].err);
	}
	free(pop->out);
	if (pop->keep)
		free(pop->dir);
	else if (pop->dir != NULL)
		tp_remove_temp_dir(pop->dir);
	memset(pop, 0, sizeof *pop);
}
