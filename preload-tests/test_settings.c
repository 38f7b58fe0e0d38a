// SPDX-License-Identifier: MIT
/* Settings: a bad value gives one `taskprobe:` line and the default; the program is unaffected. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* Parameters are copied into the test's process: no pointers in them. */
struct setting_case {
	char assignment[64]; /* NAME=value */
	bool bad;
};

/* The warnings in `text`: lines that start with "taskprobe: TASKPROBE_" (the variable). */
static size_t shim_lines(const char *text)
{
	size_t n = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += strncmp(l, "taskprobe: TASKPROBE_", 21) == 0;
	return n;
}

ParameterizedTestParameters(settings, each_value)
{
	static struct setting_case cases[] = {
		{"TASKPROBE_STACKS=0", false},
		{"TASKPROBE_STACKS=1", false},
		{"TASKPROBE_STACKS=", true},
		{"TASKPROBE_STACKS=yes", true},
		{"TASKPROBE_STACKS=2", true},
		{"TASKPROBE_STACK_DEPTH=1", false},
		{"TASKPROBE_STACK_DEPTH=128", false},
		{"TASKPROBE_STACK_DEPTH=0", true},
		{"TASKPROBE_STACK_DEPTH=129", true},
		{"TASKPROBE_STACK_DEPTH=-5", true},
		{"TASKPROBE_STACK_DEPTH=abc", true},
		{"TASKPROBE_STACK_DEPTH=12abc", true},
		{"TASKPROBE_STACK_DEPTH=99999999999999999999999", true},
		{"TASKPROBE_STACK_DEPTH=", true},
		{"TASKPROBE_WORKERS=pool-*", false},
		{"TASKPROBE_WORKERS=", true},
		{"TASKPROBE_REPORT=stderr", false},
		{"TASKPROBE_REPORT=", true},
		/* a variable that is no setting, misspelled or not */
		{"TASKPROBE_REPROT=stderr", true},
		{"TASKPROBE_NO_SUCH_SETTING=1", true},
	};
	return cr_make_param_array(struct setting_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct setting_case *c, settings, each_value)
{
	const char *argv[] = {tp_target("threads"), "2", NULL};
	const char *env[] = {c->assignment, NULL};
	struct tp_run plain, preloaded;
	tp_run(TP_PLAIN, argv, NULL, &plain);
	tp_run(TP_PRELOADED, argv, env, &preloaded);

	cr_expect_eq(preloaded.status, plain.status);
	cr_expect_str_eq(preloaded.out, plain.out);
	cr_expect_eq(shim_lines(preloaded.err), c->bad ? 1 : 0, "%s gave: %s", c->assignment,
		     preloaded.err);
	if (c->bad) {
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)strcspn(c->assignment, "="),
			 c->assignment);
		cr_expect(strstr(preloaded.err, name) != NULL, "the warning names %s: %s", name,
			  preloaded.err);
		cr_expect(strstr(preloaded.err, "using") != NULL ||
				  strstr(preloaded.err, "ignored") != NULL,
			  "the warning names the default: %s", preloaded.err);
	}
	tp_run_free(&plain);
	tp_run_free(&preloaded);
}

Test(settings, an_overlong_worker_glob_is_refused_once)
{
	static char assignment[400] = "TASKPROBE_WORKERS=";
	memset(assignment + strlen(assignment), 'w', 300);
	const char *argv[] = {tp_target("threads"), "2", NULL};
	const char *env[] = {assignment, NULL};
	struct tp_run run;
	tp_run(TP_PRELOADED, argv, env, &run);
	cr_expect_eq(run.status, 0);
	cr_expect_eq(shim_lines(run.err), 1, "%s", run.err);
	tp_run_free(&run);
}

/*
 * A misspelled setting is said once, with the setting it is nearest to: by the process started
 * with it, not again by its children (whose parent was started with it too: it said it). The
 * script ends with a builtin: a command bash execs in its own place has bash's parent, and says
 * it again (docs/settings.md).
 */
Test(settings, a_misspelled_setting_is_said_once_with_the_one_meant)
{
	char script[1024];
	const char *threads = tp_target("threads");
	snprintf(script, sizeof script, "%s 1; %s 1; %s 1; true", threads, threads, threads);
	const char *argv[] = {"/bin/bash", "-c", script, NULL};
	const char *env[] = {"TASKPROBE_REPROT=stderr", NULL};
	struct tp_run run;
	tp_run_preloaded_as_plain(argv, env, &run);
	cr_expect_str_eq(run.err, "taskprobe: TASKPROBE_REPROT is not a setting of taskprobe (did "
				  "you mean TASKPROBE_REPORT?): ignored\n");
	tp_run_free(&run);
}

/*
 * A setting near none of them is said with where the settings are listed: the man page, which
 * is installed beside the library (the README's Settings section moved to docs/).
 */
Test(settings, a_setting_near_none_names_the_page_that_lists_them)
{
	const char *argv[] = {tp_target("threads"), "1", NULL};
	const char *env[] = {"TASKPROBE_COLOURS=1", NULL};
	struct tp_run run;
	tp_run_preloaded_as_plain(argv, env, &run);
	cr_expect_str_eq(run.err, "taskprobe: TASKPROBE_COLOURS is not a setting of taskprobe "
				  "(libtaskprobe(7), ENVIRONMENT): ignored\n");
	tp_run_free(&run);
}
