// SPDX-License-Identifier: MIT
/*
 * The settings' parser in-process (meson test --suite unit): every setting read, every bad value
 * told once with the default kept, a misspelled name told its nearest. Each test is a process of
 * its own (criterion's), so each parses its own environment once, as the shim does.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <criterion/redirect.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"

/* Sets `name`=`value` for the settings about to be parsed. */
static void given(const char *name, const char *value)
{
	cr_assert_eq(setenv(name, value, 1), 0);
}

Test(settings_parse, defaults_when_nothing_is_set)
{
	const struct tp_settings *s = tp_settings();
	cr_expect(s->stacks);
	cr_expect_eq(s->stack_depth, TP_STACK_DEPTH_DEFAULT);
	cr_expect_null(s->workers);
	cr_expect_null(s->report);
	cr_expect_null(s->record);
	cr_expect_not(s->record_stacks);
	cr_expect_eq(s->live, TP_LIVE_OFF);
	cr_expect_null(s->live_dir);
	cr_expect_eq(s->live_long_poll_us, 10000);
	cr_expect_null(s->libomp);
}

Test(settings_parse, every_setting_is_read, .init = cr_redirect_stderr)
{
	given("TASKPROBE_STACKS", "0");
	given("TASKPROBE_STACK_DEPTH", "128");
	given("TASKPROBE_WORKERS", "worker-*");
	given("TASKPROBE_REPORT", "stderr");
	given("TASKPROBE_RECORD", "/tmp/rec.%p");
	given("TASKPROBE_RECORD_STACKS", "1");
	given("TASKPROBE_LIVE", "keep");
	given("TASKPROBE_LIVE_DIR", "/tmp/live");
	given("TASKPROBE_LIVE_LONG_POLL_US", "3600000000");
	given("TASKPROBE_LIBOMP", "/usr/lib/libomp.so.5");
	/* the launcher's audit module's: settings, read elsewhere, never called misspelt */
	given("TASKPROBE_LIBOMP_BRIDGE", "/x");
	given("TASKPROBE_LIBOMP_NOTES", "/y");
	given("TASKPROBE_LIBGOMP", "/z");
	const struct tp_settings *s = tp_settings();
	cr_expect_not(s->stacks);
	cr_expect_eq(s->stack_depth, 128);
	cr_expect_str_eq(s->workers, "worker-*");
	cr_expect_str_eq(s->report, "stderr");
	cr_expect_str_eq(s->record, "/tmp/rec.%p");
	cr_expect(s->record_stacks);
	cr_expect_eq(s->live, TP_LIVE_KEEP);
	cr_expect_str_eq(s->live_dir, "/tmp/live");
	cr_expect_eq(s->live_long_poll_us, 3600000000u);
	cr_expect_str_eq(s->libomp, "/usr/lib/libomp.so.5");
	fflush(stderr);
	cr_expect_stderr_eq_str("");
}

Test(settings_parse, live_takes_0_1_or_keep)
{
	given("TASKPROBE_LIVE", "1");
	cr_expect_eq(tp_settings()->live, TP_LIVE_ON);
}

Test(settings_parse, the_settings_are_copies_the_program_cannot_change)
{
	given("TASKPROBE_RECORD", "/tmp/first");
	const struct tp_settings *s = tp_settings();
	given("TASKPROBE_RECORD", "/tmp/second");
	cr_expect_str_eq(s->record, "/tmp/first");
	cr_expect_str_eq(tp_settings()->record, "/tmp/first");
}

/* Each bad value, told in one line, with the default it keeps. */
static const struct {
	const char *name, *value, *said;
} bad[] = {
	{"TASKPROBE_STACKS", "2", "TASKPROBE_STACKS=\"2\" is not 0 or 1; using 1"},
	{"TASKPROBE_STACK_DEPTH", "0",
	 "TASKPROBE_STACK_DEPTH=\"0\" is not a number from 1 to 128; using 32"},
	{"TASKPROBE_STACK_DEPTH", "12x",
	 "TASKPROBE_STACK_DEPTH=\"12x\" is not a number from 1 to 128; using 32"},
	{"TASKPROBE_RECORD_STACKS", "yes",
	 "TASKPROBE_RECORD_STACKS=\"yes\" is not 0 or 1; using 0"},
	{"TASKPROBE_LIVE", "on", "TASKPROBE_LIVE=\"on\" is not 0, 1 or keep; using 0"},
	{"TASKPROBE_LIVE_LONG_POLL_US", "3600000001",
	 "TASKPROBE_LIVE_LONG_POLL_US=\"3600000001\" is not a number of microseconds from 1 to "
	 "3600000000; using 10000"},
	{"TASKPROBE_WORKERS", "",
	 "TASKPROBE_WORKERS=\"\" is not a glob of thread names (1 to 255 characters); using none"},
	{"TASKPROBE_REPORT", "",
	 "TASKPROBE_REPORT=\"\" is not \"stderr\" or a file path; using none"},
};
#define BAD (sizeof bad / sizeof bad[0])

ParameterizedTestParameters(settings_parse, a_bad_value_is_told_once_and_the_default_kept)
{
	static size_t cases[BAD];
	for (size_t i = 0; i < BAD; i++)
		cases[i] = i;
	return cr_make_param_array(size_t, cases, BAD);
}

ParameterizedTest(size_t *i, settings_parse, a_bad_value_is_told_once_and_the_default_kept,
		  .init = cr_redirect_stderr)
{
	given(bad[*i].name, bad[*i].value);
	const struct tp_settings *s = tp_settings(),
				 defaults = {.stacks = true,
					     .stack_depth = TP_STACK_DEPTH_DEFAULT,
					     .live_long_poll_us = 10000};
	cr_expect_eq(s->stacks, defaults.stacks);
	cr_expect_eq(s->stack_depth, defaults.stack_depth);
	cr_expect_eq(s->record_stacks, defaults.record_stacks);
	cr_expect_eq(s->live, defaults.live);
	cr_expect_eq(s->live_long_poll_us, defaults.live_long_poll_us);
	cr_expect_null(s->workers);
	cr_expect_null(s->report);
	fflush(stderr);
	char said[512];
	snprintf(said, sizeof said, "taskprobe: %s\n", bad[*i].said);
	cr_expect_stderr_eq_str(said);
}

Test(settings_parse, a_path_longer_than_its_buffer_is_refused, .init = cr_redirect_stderr)
{
	char *path = malloc(5000);
	memset(path, 'a', 4999);
	path[0] = '/';
	path[4999] = '\0';
	given("TASKPROBE_RECORD", path);
	cr_expect_null(tp_settings()->record);
	free(path);
}

Test(settings_parse, a_misspelt_setting_is_told_its_nearest, .init = cr_redirect_stderr)
{
	given("TASKPROBE_REPROT", "stderr");
	cr_expect_null(tp_settings()->report);
	fflush(stderr);
	cr_expect_stderr_eq_str(
		"taskprobe: TASKPROBE_REPROT is not a setting of taskprobe (did you "
		"mean TASKPROBE_REPORT?): ignored\n");
}
