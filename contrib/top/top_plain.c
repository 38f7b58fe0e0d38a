// SPDX-License-Identifier: MIT
/* Plain-text snapshots (--once, --batch, or no terminal to draw on): top_views.h. */
#define _GNU_SOURCE
#include "top_views.h"

#include <stdio.h>
#include <string.h>

#include "top_lines.h"

/* The table of parallel regions (their load balance), after a blank line; none without one. */
static void print_regions(const struct live_snapshot *s, int width)
{
	char line[LINE_MAX_CHARS];
	bool heading = false;
	for (unsigned i = 0; i < s->n_sites; i++) {
		if (!live_format_region(line, sizeof line, &s->sites[i], width))
			continue;
		if (!heading) {
			char header[LINE_MAX_CHARS];
			live_format_region_header(header, sizeof header, width);
			printf("\n%s\n", header);
			heading = true;
		}
		printf("%s\n", line);
	}
}

/* The table of sync sites (where tasks waited), after a blank line; none without one. */
static void print_syncs(const struct live_snapshot *s)
{
	char line[LINE_MAX_CHARS];
	int width = (int)strlen("SYNC SITE");
	for (unsigned i = 0; i < s->n_syncs; i++)
		if ((int)strlen(s->syncs[i].text) > width)
			width = (int)strlen(s->syncs[i].text);
	for (unsigned i = 0; i < s->n_syncs; i++) {
		if (i == 0) {
			live_format_sync_header(line, sizeof line, width);
			printf("\n%s\n", line);
		}
		live_format_sync(line, sizeof line, s, &s->syncs[i], width);
		printf("%s\n", line);
	}
	if (s->header.syncs_unlisted != 0) {
		tp_live_syncs_unlisted_words(line, sizeof line, s->syncs_unlisted);
		printf("%s\n", line);
	}
}

/* The threads' table: what each waited (a program without tasks), or each worker's figures. */
static void print_threads(const struct live_snapshot *s)
{
	char line[LINE_MAX_CHARS];
	if (live_without_tasks(s)) {
		struct waiter_layout all = every_waiter_column(s);
		waiter_header(line, sizeof line, &all, s->header.exited);
		printf("%s\n", line);
		for (unsigned i = 0; i < s->n_threads; i++) {
			waiter_line(line, sizeof line, &s->threads[i], &all);
			printf("%s\n", line);
		}
		return;
	}
	struct worker_layout all = every_worker_column(s);
	worker_header(line, sizeof line, &all, s->header.exited);
	printf("%s\n", line);
	for (unsigned i = 0; i < s->n_threads; i++) {
		worker_line(line, sizeof line, s, &s->threads[i], &all);
		printf("%s\n", line);
	}
}

/* One snapshot as plain text. */
static void print_snapshot(const struct live_snapshot *s, enum program_state state, pid_t program)
{
	char line[LINE_MAX_CHARS];
	int width = widest_site(s);
	title_line(line, sizeof line, s, state, program, 0);
	printf("%s\n", line);
	live_format_figures(line, sizeof line, s, 0);
	printf("%s\n", line);
	for (int l = 0; l < 2; l++) {
		live_format_factors(line, sizeof line, s, l);
		if (line[0] != '\0')
			printf("%s\n", line);
	}
	live_format_roi(line, sizeof line, s);
	if (line[0] != '\0')
		printf("%s\n", line);
	if (s->mpi_job[0] != '\0')
		printf("%s\n", s->mpi_job);
	printf("\n");
	site_header(line, sizeof line, width, ALL_COLUMNS);
	printf("%s\n", line);
	for (unsigned i = 0; i < s->n_sites; i++) {
		site_line(line, sizeof line, s, &s->sites[i], width, ALL_COLUMNS, 0);
		printf("%s\n", line);
	}
	if (s->n_sites == 0)
		printf("%s\n", no_site_words(s));
	for (unsigned i = 0; i < s->n_sites; i++) {
		live_format_too_small(line, sizeof line, &s->sites[i]);
		if (line[0] != '\0')
			printf("%s\n", line);
	}
	/* what the table's "?" means, when a site has one (tp_live_no_share_words) */
	tp_live_path_other_words(line, sizeof line, s->path_other_ns, s->path_ns);
	if (line[0] != '\0')
		printf("%s\n", line);
	print_regions(s, width);
	print_syncs(s);
	/* no thread (a program that ended before its first event): the line above said so, and
	 * a table of no rows would be its header alone */
	if (s->n_threads > 0) {
		printf("\n");
		print_threads(s);
	}
	if (s->n_waits > 0) { /* below the threads, as on the screen */
		int wait_width = widest_wait_site(s);
		printf("\n%s\n", WAITS_TITLE);
		wait_header(line, sizeof line, wait_width, s->header.exited);
		printf("%s\n", line);
		for (unsigned i = 0; i < s->n_waits; i++) {
			wait_line(line, sizeof line, &s->waits[i], wait_width);
			printf("%s\n", line);
		}
	}
	losses_line(line, sizeof line, s);
	if (line[0] != '\0')
		printf("\nnot counted: %s\n", line);
	fflush(stdout);
}

/* A snapshot of `f`, sorted; false (said) when the file can no longer be read. */
static bool read_snapshot(struct live_file *f, const struct live_snapshot *previous,
			  struct live_snapshot *s, const struct options *o)
{
	char why[1024];
	if (!live_snapshot(f, previous, s, why, sizeof why)) {
		fflush(stdout);
		fprintf(stderr, "taskprobe-top: %s\n", why);
		return false;
	}
	live_sort_sites(s, o->sort, o->ascending);
	return true;
}

/* Plain-text snapshots: one (--once), or one an interval until the program ends. */
int run_plain(struct live_file *f, const struct options *o)
{
	static struct live_snapshot snapshots[2];
	int current = 0;
	struct live_snapshot *previous = NULL;
	const struct follow w = following(o);
	bool settled = false; /* waited for the exiting program's process to end */
	for (;;) {
		bool ended = follow_ended(f); /* before the figures: then they are its last */
		struct live_snapshot *s = &snapshots[current];
		if (!read_snapshot(f, previous, s, o))
			return 1;
		/* the run's process has no task: another of the run's (follow_child) */
		if (follow_child(f, &w, s, false)) {
			previous = NULL;
			continue;
		}
		/* an exec's next image: followed, within a moment */
		bool stopping = s->header.exited || ended;
		if (stopping && !o->once && follow_exec(f, &w, FOLLOW_EXEC_MS)) {
			previous = NULL;
			continue;
		}
		/* an exit marked, its process running on (exit handlers, a runtime's workers ending
		 * their waits): its figures once it ended */
		if (s->header.exited && !ended && !o->once) {
			follow_settle(f);
			settled = true;
			ended = follow_ended(f);
			if (!read_snapshot(f, previous, s, o))
				return 1;
		}
		live_mpi_job_words(f, w.dir, s->mpi_job, sizeof s->mpi_job);
		print_snapshot(s, follow_state(s, ended, settled ? FOLLOW_SETTLE_MS : 0), o->pid);
		if (o->once)
			return 0;
		if (stopping) { /* its last figures are out: the run's next program, or the run's end */
			if (!follow_next_process(f, &w, s))
				return 0;
			printf("\n");
			previous = NULL;
			settled = false;
			continue;
		}
		printf("\n");
		previous = s;
		current = 1 - current;
		sleep_ms(o->interval_ms);
	}
}
