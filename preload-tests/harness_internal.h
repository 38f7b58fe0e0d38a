// SPDX-License-Identifier: MIT
/*
 * What the harness's modules give each other; the tests include harness.h only.
 *
 *   harness.c   the runs: tp_run (plainly, preloaded, traced), tp_run_script, tp_launch, and
 *               the runs compared (tp_run_both, tp_run_all_ways)
 *   spawn.c     processes: the target's environment (which shim, what is preloaded), a
 *               program started held until the harness lets it go, reaped with a time limit;
 *               temporary files and tp_read_file
 *   tracer.c    bpftrace: the program printing every event, started and awaited by the
 *               tracer-ready protocol, drained of its per-CPU buffers, stopped
 *   events.c    the tracer's event lines parsed into tp_events, ordered; counting them
 *   contract.c  the probe contract's checks (tp_assert_*)
 *   elf.c       symbols of target programs (nm)
 *   terminal.c  a terminal (tmux) for full-screen programs: keys typed, the screen read
 *   skip.c      the skip policy: tools a test needs (tp_require_*), nothing skipped under
 *               CI=true, and tests left out of a sanitizer pass by design (TP_NOT_UNDER)
 *   pop.c       the POP factors the exit report, the console and --analyze say (tp_pop_run)
 *   converter.c the converter run (tp_convert), python on its output, text and path helpers
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "harness.h"

/* harness.c */

/* Asserts that run `b` (named `b_name`) gave the exit status and stdout of run `a` (`a_name`). */
void tp_expect_same_result(const char *program, const struct tp_run *a, const char *a_name,
			   const struct tp_run *b, const char *b_name);

/* spawn.c */

/* Sleeps `ms` milliseconds, signals or not. */
void tp_sleep_ms(long ms);
/* Everything left to read from `f` (not closed), NUL-terminated; its length in *len. */
char *tp_read_stream(FILE *f, size_t *len);
/* A new empty file /tmp/taskprobe-test-WHAT-XXXXXX; its path (the caller frees). */
char *tp_make_temp(const char *what);
/*
 * The same, open (its descriptor returned), its path written into the caller's static `path` of
 * `size` bytes, and removed when the test process exits (the last file made in that `path`).
 */
int tp_make_temp_until_exit(const char *what, char *path, size_t size);
/*
 * The target's environment: the harness's without shim settings, plus `extra` and, unless
 * TP_PLAIN, the shim preloaded (see tp_run).
 */
char **tp_target_environment(enum tp_mode mode, const char *const extra[]);
/*
 * Starts `argv` with `envp`, stdin /dev/null, stdout and stderr into the files `out` and `err`,
 * killed if the harness dies. With `go_fd` >= 0 (a pipe's read end, close-on-exec) the program
 * waits for a byte on it before it executes.
 */
pid_t tp_spawn(char *const argv[], char *const envp[], const char *out, const char *err, int go_fd);
/* Waits for `pid` up to `ms`; kills it after. Returns the status as tp_run.status does. */
int tp_reap(pid_t pid, long ms);
/*
 * tp_reap's, where a kill is no failure of the test's (its caller has what it needs): said as a
 * note, not as the logged error that fails the run.
 */
int tp_reap_or_note(pid_t pid, long ms);

/* tracer.c */

/* Starts bpftrace on `target` with the harness's program (or the test's), writing to the files
 * `out` and `err`; returns once it is ready (the tracer-ready protocol) or fails the test. */
pid_t tp_tracer_start(pid_t target, const char *out, const char *err);
/* Starts `bpftrace SCRIPT_PATH PID script_args...` on `target`, the same way. */
pid_t tp_tracer_start_script(const char *script_path, const char *const script_args[], pid_t target,
			     const char *out, const char *err);
/* Once the target has ended: waits until the tracer has printed every event of it. */
void tp_tracer_drain(const char *out, const char *err);
/*
 * Stops the tracer (SIGINT, as Ctrl-C does: it prints its maps) and reaps it, once drained
 * (tp_tracer_drain: every event of the target printed). A tracer that does not end within a
 * minute is killed with a note: under load bpftrace has once taken over 30 s to end after
 * detaching from every probe, with the run's events all in hand.
 */
int tp_tracer_stop(pid_t tracer);

/* events.c */

/* The events of the tracer's output `text`, in time order, into run->events. */
void tp_events_parse(const char *text, struct tp_run *run);

/* skip.c */

/* Skips the test, or fails it under CI=true, where nothing may be skipped. */
void tp_skip_unless_ci(const char *why);
