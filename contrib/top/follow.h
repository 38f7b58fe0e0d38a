// SPDX-License-Identifier: MIT
/*
 * Following the program the console shows, for the full-screen view and the plain text alike:
 * through an exec, whose next image makes a statistics file of its own (the old one marked
 * ended first), and, with --children, into the run's other processes (a script that starts the
 * program as a child, or runs programs one after another).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "live_view.h"

/* How often the program's end and its next file are looked at, in ms. */
#define FOLLOW_CHECK_MS 100
/* How long an exec's next image may take to make its file, in ms. */
#define FOLLOW_EXEC_MS 1000

/*
 * How long an ended program's process may run on after it marked its exit, in ms, before its
 * figures are taken as its last: its other threads count until the process ends (a runtime's
 * workers end their waits while the exit handlers run), and an exec's next image runs on.
 */
#define FOLLOW_SETTLE_MS 1000

/* What the console says of the program shown. */
enum program_state {
	PROGRAM_RUNNING,
	PROGRAM_EXITING, /* it marked its exit, its process runs on: its figures may move */
	PROGRAM_EXITED,  /* it marked its exit, and its figures are its last */
	PROGRAM_GONE,    /* ended without marking its exit (killed?) */
};

/*
 * The state shown with snapshot `s`: `ended` is whether the process had ended (or gone)
 * before `s` was read, `since_exit_ms` how long ago an earlier snapshot first showed the exit
 * mark (0: none did).
 */
enum program_state follow_state(const struct live_snapshot *s, bool ended, uint64_t since_exit_ms);
/* Whether the process of `f` has ended (or gone, or its pid is another process's). */
bool follow_ended(const struct live_file *f);
/* Waits up to FOLLOW_SETTLE_MS for the process of `f` to end. */
void follow_settle(const struct live_file *f);

/* What is followed: the console's options. */
struct follow {
	pid_t run;       /* the run's own process: the one asked for */
	const char *dir; /* the run's directory of statistics (--dir), NULL when not given */
	bool children;   /* --children: the run's other processes may be shown */
	bool once;       /* --once: of those, the one that spawned the most (else the first) */
};

void sleep_ms(unsigned ms);

/*
 * Waits until process `pid`, which started at `start_ticks`, has ended (live_process_ended): told
 * by the kernel (a pidfd, of any process, not only a child), else looked at every
 * FOLLOW_GONE_CHECK_MS.
 */
void follow_until_ended(pid_t pid, uint64_t start_ticks);
#define FOLLOW_GONE_CHECK_MS 1000

/* Opens the statistics of `pid`, waiting up to `wait_ms` for them to appear; else `why`. */
bool follow_open(struct live_file *f, pid_t pid, const struct follow *w, unsigned wait_ms,
		 char *why, size_t why_size);

/*
 * The file says its process ended, but the process is there: an exec, whose next image makes a
 * file of its own, or the last moments of its exit. Opens the next image's file once it is there
 * and whole, looking for it up to `within_ms` while the process lives; false when there is none.
 */
bool follow_exec(struct live_file *f, const struct follow *w, unsigned within_ms);

/*
 * With --children: while the run's process has spawned no task, another of the run's processes
 * is shown instead, and once the one shown has ended (`ended`), the next: in the order they
 * started (a script that runs programs one after another, one shorter than an interval
 * included), each once; with --once, the one that spawned the most. True when it switched.
 */
bool follow_child(struct live_file *f, const struct follow *w, const struct live_snapshot *s,
		  bool ended);

/*
 * A user's choice (top's n and N keys): with --children, another of the run's processes that
 * spawned a task or is an MPI rank is shown instead of the one of `f`: the next after it
 * (`backwards`: the one before it), in a circle, an MPI job's ranks by rank, then the others in
 * the order they started. False when there is no other.
 */
bool follow_another(struct live_file *f, const struct follow *w, bool backwards);

/*
 * The process shown ended and its last figures are out: waits for the run's next process
 * (follow_child), true when it switched, or for the run's end, false.
 */
bool follow_next_process(struct live_file *f, const struct follow *w,
			 const struct live_snapshot *s);
