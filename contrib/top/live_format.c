// SPDX-License-Identifier: MIT
/* A snapshot's figures in words and its sites sorted by a column (live_view.h). */
#define _GNU_SOURCE
#include "live_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "taskprobe_contract.h"

static const char *const column_names[COLUMNS] = {
	"site",    "spawned", "alive",   "done",  "polls",  "busy",  "delay50",
	"delay99", "idle",    "longest", "span%", "onpath", "spawn", "warnings",
};

const char *live_column_name(enum site_column column)
{
	return column < COLUMNS ? column_names[column] : "?";
}

enum site_column live_column_by_name(const char *name)
{
	for (unsigned c = 0; c < COLUMNS; c++)
		if (strcasecmp(name, column_names[c]) == 0)
			return (enum site_column)c;
	return COLUMNS;
}

/* The longest of a site's polls: ended, or going on now. */
static uint64_t longest(const struct site_view *v)
{
	return v->longest_now_ns > v->longest_poll_ns ? v->longest_now_ns : v->longest_poll_ns;
}

static uint64_t warning_weight(const struct site_view *v)
{
	return v->long_polls + v->blocking_waits +
	       ((v->warnings & (WARN_NONE_ENDED | WARN_LONG_POLL_NOW)) ? 1u << 30 : 0);
}

static uint64_t sort_value(const struct site_view *v, enum site_column c)
{
	switch (c) {
	case COLUMN_SPAWNED:
		return v->spawned;
	case COLUMN_ALIVE:
		return v->alive;
	case COLUMN_DONE:
		return v->done;
	case COLUMN_POLLS:
		return v->polls;
	case COLUMN_BUSY:
		return v->busy_ns;
	case COLUMN_DELAY_P50:
		return v->delay_p50_ns;
	case COLUMN_DELAY_P99:
		return v->delay_p99_ns;
	case COLUMN_IDLE:
		return v->idle_ns;
	case COLUMN_LONGEST:
		return longest(v);
	case COLUMN_SPAN:
		return v->path_ns;
	case COLUMN_ON_PATH:
		return v->path_fragments;
	case COLUMN_SPAWN:
		return v->spawn_p50_ns;
	case COLUMN_WARNINGS:
		return warning_weight(v);
	default:
		return 0;
	}
}

static enum site_column sort_column;
static bool sort_ascending;

static int compare_sites(const void *a, const void *b)
{
	const struct site_view *x = a, *y = b;
	int order;
	if (sort_column == COLUMN_SITE) {
		order = strcmp(x->text, y->text);
	} else {
		uint64_t vx = sort_value(x, sort_column), vy = sort_value(y, sort_column);
		order = vx < vy ? -1 : vx > vy;
	}
	if (order == 0)
		order = x->row < y->row ? -1 : x->row > y->row; /* stable between refreshes */
	return sort_ascending ? order : -order;
}

void live_sort_sites(struct live_snapshot *s, enum site_column column, bool ascending)
{
	sort_column = column;
	sort_ascending = ascending;
	qsort(s->sites, s->n_sites, sizeof s->sites[0], compare_sites);
}

void live_format_ns(char *out, size_t size, uint64_t ns)
{
	tp_live_duration_text(ns, true, out, size); /* every reader's format, in a column */
}

void live_format_warnings(char *out, size_t size, const struct site_view *v, int width)
{
	char items[5][32];
	unsigned n = 0;
	if (v->warnings & WARN_LONG_POLL_NOW) {
		char t[16];
		live_format_ns(t, sizeof t, v->longest_now_ns);
		snprintf(items[n++], sizeof items[0], "polling %s now", t);
	}
	if (v->warnings & WARN_LONG_POLLS)
		snprintf(items[n++], sizeof items[0], "long %llu",
			 (unsigned long long)v->long_polls);
	if (v->warnings & WARN_BLOCKS)
		snprintf(items[n++], sizeof items[0], "blocks %llu",
			 (unsigned long long)v->blocking_waits);
	if (v->warnings & WARN_NONE_ENDED)
		snprintf(items[n++], sizeof items[0], "none ended");
	if (v->warnings & WARN_TOO_SMALL)
		snprintf(items[n++], sizeof items[0], "too small");
	/* the most that fit whole, with room for " +N" when some do not */
	size_t used = 0, all = 0;
	for (unsigned i = 0; i < n; i++)
		all += (i > 0 ? 2 : 0) + strlen(items[i]);
	unsigned shown = n;
	if (width > 0 && all > (size_t)width) {
		size_t room = (size_t)width > 3 ? (size_t)width - 3 : 0; /* " +N" */
		size_t len = 0;
		for (shown = 0; shown < n; shown++) {
			size_t next = len + (shown > 0 ? 2 : 0) + strlen(items[shown]);
			if (next > room)
				break;
			len = next;
		}
	}
	out[0] = '\0';
	for (unsigned i = 0; i < shown && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%s", i > 0 ? ", " : "",
					 items[i]);
	if (shown < n && used < size)
		snprintf(out + used, size - used, "%s+%u", used > 0 ? " " : "", n - shown);
}

void live_format_too_small(char *out, size_t size, const struct site_view *v)
{
	out[0] = '\0';
	if (!(v->warnings & WARN_TOO_SMALL))
		return;
	/* in the exit report's words, figure for figure */
	struct tp_live_granularity g = {v->task_p50_ns, v->spawn_p50_ns, v->start_p50_ns, 1};
	tp_live_granularity_words(out, size, v->text, &g);
}

bool live_without_tasks(const struct live_snapshot *s)
{
	for (unsigned i = 0; i < s->n_threads; i++)
		if (s->threads[i].was_worker)
			return false;
	return s->n_sites == 0;
}

void live_format_figures(char *out, size_t size, const struct live_snapshot *s, int width)
{
	bool ended = s->header.exited;
	if (live_without_tasks(s)) {
		uint64_t waits = 0;
		for (unsigned i = 0; i < s->n_waits; i++)
			waits += s->waits[i].waits;
		uint64_t threads = s->n_threads + s->header.waiting_threads_unlisted;
		snprintf(out, size, "no task or worker %s; %llu thread%s, %llu wait%s%s",
			 ended ? "was seen" : "seen yet", (unsigned long long)threads,
			 threads == 1 ? "" : "s", (unsigned long long)waits, waits == 1 ? "" : "s",
			 ended ? "" : " so far");
		return;
	}
	if (s->work_ns == 0 || s->span_ns == 0) {
		snprintf(out, size, "task graph: no task of a parallel region %s",
			 ended ? "was polled" : "polled yet");
		return;
	}
	char work[16], span[16], elapsed[16];
	uint64_t wall = s->graph_last_ns > s->graph_first_ns ? s->graph_last_ns - s->graph_first_ns
							     : 0;
	live_format_ns(work, sizeof work, s->work_ns);
	live_format_ns(span, sizeof span, s->span_ns);
	live_format_ns(elapsed, sizeof elapsed, wall);
	double parallelism = (double)s->work_ns / (double)s->span_ns,
	       speedup = wall > 0 ? (double)s->work_ns / (double)wall : 0;
	/* the fragments going on now lengthen the path unburdened (as the exit report says) */
	uint64_t burdened_ns = s->longest.burdened_ns + (s->span_ns - s->longest.ns);
	char burdened[16];
	live_format_ns(burdened, sizeof burdened, burdened_ns);
	double burdened_parallelism = burdened_ns > 0 ? (double)s->work_ns / (double)burdened_ns
						      : 0;
	int n = snprintf(
		out, size,
		"work %s, span %s: parallelism %.2f (no number of workers runs this faster "
		"than %.2fx); burdened span %s: parallelism %.2f; measured %.2fx on %u "
		"worker%s (%s from the first task's poll to the last's)",
		work, span, parallelism, parallelism, burdened, burdened_parallelism, speedup,
		s->graph_threads, s->graph_threads == 1 ? "" : "s", elapsed);
	if (width > 0 && n > width) /* the figures alone, on a narrow terminal */
		snprintf(out, size,
			 "work %s, span %s: parallelism %.2f, burdened %.2f; measured %.2fx on %u",
			 work, span, parallelism, burdened_parallelism, speedup, s->graph_threads);
}

void live_format_factors(char *out, size_t size, const struct live_snapshot *s, int line)
{
	tp_live_factors_words(out, size, &s->factors, line);
}

void live_format_sync_header(char *out, size_t size, int width)
{
	snprintf(out, size, "%-*s  %-11s  %10s  %6s  %12s  %s", width, "SYNC SITE", "KIND",
		 "WAITED", "WAITS", "LOAD BALANCE", "OF THE CRITICAL PATH");
}

void live_format_sync(char *out, size_t size, const struct live_snapshot *s,
		      const struct site_view *v, int width)
{
	char waited[24], share[16] = "-", balance[16];
	if (v->sync_kind == 4 && s->span_ns > 0)
		tp_live_share_words(share, sizeof share,
				    100.0 * (double)v->path_ns / (double)s->span_ns, 1,
				    v->path_at_least);
	snprintf(out, size, "%-*.*s  %-11s  %10s  %6llu  %12s  %s", width, width, v->text,
		 tp_live_sync_kind_words(v->sync_kind, v->mutex_kind),
		 tp_live_duration_words(v->sync_waited_ns, waited, sizeof waited),
		 (unsigned long long)v->sync_waits,
		 tp_live_balance_words(&v->phases, balance, sizeof balance), share);
}

void live_format_roi(char *out, size_t size, const struct live_snapshot *s)
{
	tp_live_roi_words(out, size, s->roi_pairs, s->roi_markers);
}

void live_format_region_header(char *out, size_t size, int width)
{
	snprintf(out, size, "%-*s  %10s  %12s  %11s  %10s  %7s", width, "PARALLEL REGION",
		 "EFFICIENCY", "LOAD BALANCE", "COMPUTATION", "TIME", "THREADS");
}

bool live_region_shown(const struct site_view *v)
{
	return v->by_executor && v->region.threads != 0;
}

bool live_format_region(char *out, size_t size, const struct site_view *v, int width)
{
	if (!live_region_shown(v)) {
		snprintf(out, size, "%s", "");
		return false;
	}
	char computation[24], balance[16], time[24], efficiency[16];
	snprintf(out, size, "%-*.*s  %10s  %12s  %11s  %10s  %7u", width, width, v->text,
		 tp_live_efficiency_words(&v->region, efficiency, sizeof efficiency),
		 tp_live_balance_words(&v->region, balance, sizeof balance),
		 tp_live_duration_words(v->region.computation_ns, computation, sizeof computation),
		 tp_live_region_time_words(v->region.time_ns, time, sizeof time),
		 v->region.threads);
	return true;
}

/* A share below this many per cent is "<1%". */
#define SHARE_SHOWN_MIN 1.0
void live_format_span_share(char *out, size_t size, const struct live_snapshot *s,
			    const struct site_view *v)
{
	double share = s->path_ns > 0 ? 100.0 * (double)v->path_ns / (double)s->path_ns : 0;
	if (v->path_ns == 0)
		snprintf(out, size, "%s", tp_live_no_share_words(s->path_other_ns));
	else if (share < SHARE_SHOWN_MIN && !v->path_at_least)
		snprintf(out, size, "%s", "<1%");
	else /* a lower bound under 1%: "?", as the exit report says one under 0.1% */
		tp_live_share_words(out, size, share, 0, v->path_at_least);
}

const char *live_wait_kind_name(uint32_t kind)
{
	static const char *const names[] = TP_WAIT_KIND_NAMES;
	if (kind == 0)
		return "";
	return kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}
