// SPDX-License-Identifier: MIT
/*
 * Programs recorded and converted, and the timeline as speedscope shows it, for the converter's
 * tests (test_timeline_input.c, test_timeline_tracks.c). Failures are the test's (criterion's
 * asserts).
 */
#pragma once

#include <stdbool.h>

#include "harness.h"

/* The one file of `dir` whose name starts with `prefix` (a recording, named by its pid). */
char *only_file(const char *dir, const char *prefix);

/* Runs `target` (with `arg` or none) preloaded, recording into DIR/`prefix`.%p. */
void record_into(const char *dir, const char *prefix, const char *target, const char *arg,
		 struct tp_run *run, bool start_only);

/* `target` (with `arg` or none) recorded into DIR/rec.PID and converted into `json`: the
 * recording's path. */
char *record_and_convert(const char *dir, const char *target, const char *arg, const char *json);

/* The rows of speedscope's Sandwich view, profile by profile (sandwich_rows.mjs). */
char *speedscope_rows(const char *json);

/* The same of each of the timelines `jsons` (NULL-ended, at most 4), in `rows`, opened in one
 * browser: its start is most of the time a timeline takes to show. */
void speedscope_rows_of(const char *const jsons[], char *rows[]);
