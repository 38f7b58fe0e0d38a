// SPDX-License-Identifier: MIT
/*
 * The scenes of the shim's harm tests (test_harm.c, test_harm_files.c, test_harm_confined.c): a
 * directory of the test's own, a bash script that sets the scene and preloads the shim itself,
 * and what the scene left (entries of a directory, a recording's events). Failures are the
 * test's (criterion's asserts).
 */
#pragma once

#include "harness.h"

/* The reason the tests that preload the shim by themselves are left out of sanitizer passes. */
#define PRELOADS_ITSELF                                                                            \
	"its scripts preload the shim by themselves (through namespaces, setuid programs and "     \
	"shells), not the sanitizer's runtime"

/* A new directory for the test, mode 0755 (nobody may read it); tp_remove_temp_dir removes it. */
char *scratch_dir(void);

/*
 * Runs the bash script made from `format` (printf-style) as a user types it, without the shim
 * (the script preloads it where it means to: $SHIM is the shim's path, $TP_TIMELINE the
 * converter's, $TARGETS the targets' directory), with no descriptor but the standard ones
 * (tp_spawn).
 */
__attribute__((format(printf, 2, 3))) void script(struct tp_run *run, const char *format, ...);

/* The number of entries of `dir` whose names begin with `prefix`. */
unsigned entries(const char *dir, const char *prefix);

/* The events the converter counts in `recording` (its --count line), or -1. */
long recorded_events(const char *recording, int *status);

/* Expects the recording `name` in `dir` to hold `events` events, the converter to say so. */
void expect_recorded_events(const char *dir, const char *name, long events);
