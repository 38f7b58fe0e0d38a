// SPDX-License-Identifier: MIT
/*
 * The scene of the console's harm tests (test_harm_console.c, test_harm_console_names.c): a real
 * process (sleep) to attach to, a directory for its forged statistics, taskprobe-top run on it.
 * Failures are the test's (criterion's asserts).
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "harness.h"

#define TOP    TP_CONTRIB_DIR "/taskprobe-top"
#define NOBODY 65534

/* A process to attach to: `sleep 60`, with `env` (NULL-terminated, or NULL). */
void start_sleeper(struct tp_run *sleeper, const char *const env[]);

/* `sleep 60` as nobody (root only). */
void start_nobodys_sleeper(struct tp_run *sleeper);

/* Kills the sleeper, reaps it and frees its run. */
void stop_sleeper(struct tp_run *sleeper);

/* taskprobe-top with `args` (NULL-terminated) and `env`, to its end. */
void top(const char *const args[], const char *const env[], struct tp_run *run);

/* `taskprobe-top MODE --dir DIR PID`. */
void top_in(const char *mode, const char *dir, pid_t pid, struct tp_run *run);

/* Waits (up to 20 s) for a console started with tp_start to print a snapshot. */
void wait_for_snapshot(const struct tp_run *console);
