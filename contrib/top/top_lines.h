// SPDX-License-Identifier: MIT
/*
 * The console's lines (top_lines.c), for the screen and for plain text alike: the sites table,
 * the threads table (workers, or the waiting threads of a program without tasks), the waits
 * table, the title and what was not counted. Each into `out` (`size` bytes); a width of 0 is
 * unlimited (plain text).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "follow.h"
#include "live_view.h"

#define LINE_MAX_CHARS    1024
#define SITE_WIDTH_MIN    20
#define SITE_WIDTH_WANTED 40 /* "function (file:line)" whole, columns left out for it */

/* --- the sites table: the site, the number columns (live_view.h's order), the warnings --- */

#define FIRST_NUMBER_COLUMN COLUMN_SPAWNED
#define LAST_NUMBER_COLUMN  COLUMN_SPAWN
typedef unsigned column_set; /* bit c: number column c shown */
#define ALL_COLUMNS   ((1u << (LAST_NUMBER_COLUMN + 1)) - (1u << FIRST_NUMBER_COLUMN))
#define WARNINGS_ROOM 21 /* columns the screen leaves the warnings ("polling 16.2ms now +1") */

/* The width the number columns of `shown` take, a space before each. */
int columns_width(column_set shown);
/*
 * The number columns a terminal `width` wide has room for beside a site `site_wanted` wide and
 * the warnings: every one, less those a narrow terminal leaves out first.
 */
column_set site_columns_fitting(int site_wanted, int width);
void site_header(char *out, size_t size, int site_width, column_set shown);
/* A site's row; `width`, if not 0, the terminal's: the warnings that fit it whole. */
void site_line(char *out, size_t size, const struct live_snapshot *s, const struct site_view *v,
	       int site_width, column_set shown, int width);
/* A site's text in `width` characters, its "(file:line)" kept whole where it fits. */
void site_text(char *out, size_t size, const char *text, int width);
/* The fewest characters a site's text is cut to (site_text). */
int readable_width(const char *text);
/* The widest site's text, at least the header's. */
int widest_site(const struct live_snapshot *s);

/*
 * The first line of a tables without a site: the program's waits follow, or why there is
 * nothing, and what to set ("yet" while the program runs).
 */
const char *no_site_words(const struct live_snapshot *s);

/* --- the threads table --- */

/*
 * The threads table's layout: every column (plain snapshots: now_width 0), or on a narrow
 * terminal without POLLS, then THREAD, so that what a thread does now has NOW_WIDTH_WANTED.
 * THREAD is as wide as its longest name (a start routine's "worker (threadpool.c:58)"), at most
 * THREAD_WIDTH_MAX on a terminal.
 */
struct worker_layout {
	bool thread, polls;
	int thread_width;
	int now_width; /* 0: unlimited */
};

struct worker_layout every_worker_column(const struct live_snapshot *s);
/* The layout for a terminal `width` columns wide. */
struct worker_layout worker_layout(const struct live_snapshot *s, int width);
/* `exited`: the process has (the last column then says what each thread did at the exit). */
void worker_header(char *out, size_t size, const struct worker_layout *l, bool exited);
void worker_line(char *out, size_t size, const struct live_snapshot *s, const struct thread_view *w,
		 const struct worker_layout *l);

/*
 * The threads table of a program without tasks (live_without_tasks): each thread by what it did,
 * its running time, its waits' time, count and kinds, its longest wait. On a narrow terminal
 * WAITS goes, then NOW, then THREAD is cut to THREAD_WIDTH (a start routine's name without its
 * place), then KINDS goes, so that the longest wait has LONGEST_WIDTH_WANTED.
 */
struct waiter_layout {
	bool waits, now, kinds;
	int thread_width, kinds_width;
	int longest_width; /* 0: unlimited */
};

struct waiter_layout every_waiter_column(const struct live_snapshot *s);
/* The layout for a terminal `width` columns wide. */
struct waiter_layout waiter_layout(const struct live_snapshot *s, int width);
/* `exited`: the process has; its threads are then shown as they were at the exit. */
void waiter_header(char *out, size_t size, const struct waiter_layout *l, bool exited);
/* A thread's row: ended, or at the exit once the process has exited, waiting or running. */
void waiter_line(char *out, size_t size, const struct thread_view *w,
		 const struct waiter_layout *l);

/* --- the waits table: per call site of the program's waits, most time first --- */

extern const char WAITS_TITLE[];
void wait_header(char *out, size_t size, int site_width, bool exited);
void wait_line(char *out, size_t size, const struct wait_view *w, int site_width);
/* The widest wait site's text, at least the header's. */
int widest_wait_site(const struct live_snapshot *s);

/* --- above the tables --- */

/* The title; `program` is the pid asked for, whose run the process shown may be a child of. */
void title_line(char *out, size_t size, const struct live_snapshot *s, enum program_state state,
		pid_t program, int width);
/* What the statistics could not count, in words ("; " between two), or "". */
void losses_line(char *out, size_t size, const struct live_snapshot *s);
