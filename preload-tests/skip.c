// SPDX-License-Identifier: MIT
/*
 * The skip policy (harness.h): a test whose tool is missing is skipped, saying what to install,
 * or fails under CI=true, where nothing may be skipped. A test left out of a sanitizer pass by
 * design (TP_NOT_UNDER) is skipped with a message starting "excluded under ", always: that is
 * how preload-tests/run tells the two apart.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "harness_internal.h"

static bool tracefs_mounted(void)
{
	return access("/sys/kernel/tracing/uprobe_events", F_OK) == 0 ||
	       access("/sys/kernel/debug/tracing/uprobe_events", F_OK) == 0;
}

void tp_skip_unless_ci(const char *why)
{
	const char *ci = getenv("CI");
	if (ci != NULL && strcmp(ci, "true") == 0)
		cr_assert_fail("%s (tests never skip under CI=true)", why);
	cr_skip_test("%s", why);
}

static const char *require(const char *path, int mode, const char *package)
{
	if (access(path, mode) != 0) {
		char why[4200];
		snprintf(why, sizeof why, "%s is missing (install %s)", path, package);
		tp_skip_unless_ci(why);
	}
	return path;
}

const char *tp_require_program(const char *path, const char *package)
{
	return require(path, X_OK, package);
}

const char *tp_require_file(const char *path, const char *package)
{
	return require(path, R_OK, package);
}

void tp_require_tracer(void)
{
	const char *why = NULL;
	if (geteuid() != 0)
		why = "attaching bpftrace needs root";
	else if (system("command -v bpftrace >/dev/null 2>&1") != 0)
		why = "bpftrace is not installed";
	else if (!tracefs_mounted() &&
		 mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) != 0 &&
		 !tracefs_mounted())
		why = "tracefs is not mounted and cannot be";
	if (why != NULL)
		tp_skip_unless_ci(why);
}

static const struct {
	enum tp_sanitizer_pass pass;
	const char *setup, *name;
} sanitizer_passes[] = {{TP_ASAN, "asan", "ASan"}, {TP_TSAN, "tsan", "TSan"}};

/* The pass of `passes` the suite runs in (an index in sanitizer_passes), or -1. */
static int pass_among(unsigned passes)
{
	const char *current = getenv("TP_SANITIZER");
	for (size_t i = 0; current != NULL && i < 2; i++)
		if ((passes & sanitizer_passes[i].pass) &&
		    strcmp(current, sanitizer_passes[i].setup) == 0)
			return (int)i;
	return -1;
}

void tp_not_under(unsigned passes, const char *reason)
{
	int i = pass_among(passes);
	if (i >= 0)
		cr_skip_test("excluded under %s: %s", sanitizer_passes[i].name, reason);
}

bool tp_under(unsigned passes)
{
	return pass_among(passes) >= 0;
}
