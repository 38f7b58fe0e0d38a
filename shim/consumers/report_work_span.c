// SPDX-License-Identifier: MIT
/*
 * The exit report's work and span (report_work_span.h): the task graph's figures the live
 * statistics kept as the program ran (work_span.h), in words, and per site its work, tasks,
 * median task time and share of the span. Read at exit, when the report is written (report.c says
 * when): nothing here runs while the program does.
 */
#include "report_work_span.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live.h"
#include "settings.h"
#include "shown_text.h"
#include "spawn_site.h"
#include "taskprobe_contract.h" /* enum tp_sync_kind */
#include "taskprobe_figures.h"  /* the graph's figures, the factors and their words */

/* One line of the per-site table: a site's rows (one per call address of its text) added up. */
struct site_figures {
	uint32_t id; /* the site's id (equal for equal texts), 0 for the rows of words */
	uint32_t row;
	bool by_executor; /* the executor's own tasks (OpenMP's implicit ones): no verdict */
	uint64_t work_ns, tasks, path_ns, path_fragments;
	bool path_at_least; /* path_ns is what it ran since it was kept again (a lower bound) */
	/* ended tasks' times (their polls added up) and the costs, from the rows' compact
	 * histograms (TP_LIVE_COST_SHIFT) into log2 buckets */
	struct tp_live_costs costs;
	/* a sync construct's site (no task site): its kinds, the time tasks waited there and
	 * how many waits (taskprobe_live.h) */
	uint32_t sync_kind, mutex_kind;
	uint64_t sync_waited_ns, sync_waits;
};

static struct site_figures figures[TP_LIVE_SITES];

/* A median (tp_live_quantile, as the console reads it) in words, "-" when none was measured. */
static const char *median_words(uint64_t ns, char *buf, size_t size)
{
	if (ns == 0)
		return "-";
	return tp_live_duration_words(ns, buf, size);
}

/* The site's granularity figures and verdict, computed as the console computes them. */
static struct tp_live_granularity granularity(const struct site_figures *f)
{
	return tp_live_granularity_of(&f->costs, f->tasks, f->by_executor);
}

/* A site's text as written: escaped (shown_text.h: it comes from the program's files). */
static const char *site_text(const struct site_figures *f, char *buf, size_t size)
{
	const char *text = f->id != 0 ? tp_spawn_site_text(f->id) : NULL;
	if (text != NULL)
		return tp_shown(buf, size, text, tp_settings()->text_utf8 ? TP_SHOWN_UTF8 : 0);
	if (f->row == TP_LIVE_NO_SITE)
		return TP_LIVE_NO_SITE_TEXT;
	if (f->row == TP_LIVE_OVERFLOW)
		return TP_LIVE_OVERFLOW_TEXT;
	snprintf(buf, size, "(site row %" PRIu32 ")", f->row);
	return buf;
}

/*
 * The table's line of `row`, whose site has key `key` (rows are given in order of first spawn):
 * the one of its site's text (named now), or a new one.
 */
static struct site_figures *line_of(uint32_t row, uint32_t key, uint32_t sync, size_t *lines)
{
	uint32_t id = row != TP_LIVE_NO_SITE && row != TP_LIVE_OVERFLOW ? tp_spawn_site_of_key(key)
									: 0;
	/* a sync construct's site is no task site, even of the same text (a GCC region's
	 * barrier is named by the region's line), and each kind of wait at it is a line */
	for (size_t i = 0; i < *lines; i++)
		if (((id != 0 && figures[i].id == id) || (id == 0 && figures[i].row == row)) &&
		    figures[i].sync_kind == sync)
			return &figures[i];
	struct site_figures *f = &figures[(*lines)++];
	memset(f, 0, sizeof *f);
	f->id = id;
	f->row = row;
	f->sync_kind = sync;
	return f;
}

/* By share of the span, then by work. */
static int by_path_then_work(const void *a, const void *b)
{
	const struct site_figures *x = a, *y = b;
	if (x->path_ns != y->path_ns)
		return x->path_ns > y->path_ns ? -1 : 1;
	return x->work_ns > y->work_ns ? -1 : x->work_ns < y->work_ns;
}

/* A thread's row of a site added to the site's line. */
static void add_row(struct site_figures *f, const struct tp_live_site_stats *r)
{
	f->work_ns += __atomic_load_n(&r->busy_ns, __ATOMIC_RELAXED);
	f->tasks += __atomic_load_n(&r->done, __ATOMIC_RELAXED);
	f->sync_waited_ns += __atomic_load_n(&r->sync_waited_ns, __ATOMIC_RELAXED);
	f->sync_waits += __atomic_load_n(&r->sync_waits, __ATOMIC_RELAXED);
	tp_live_costs_add(&f->costs, r);
}

/*
 * The POP factors (issue 35) in their words (taskprobe_figures.h), and what they were computed
 * from: the threads' computation, the critical path's (placed) and the run's time.
 */
static void factors(FILE *out, const struct tp_live_graph *g)
{
	struct tp_live_factors f = tp_live_graph_factors(g);
	if (!f.valid)
		return;
	char line[256];
	for (int l = 0; l < 2; l++) {
		tp_live_factors_words(line, sizeof line, &f, l);
		fprintf(out, "  %s\n", line);
	}
	tp_live_factors_basis_words(line, sizeof line, &f);
	fprintf(out, "  %s\n", line);
	tp_live_roi_words(line, sizeof line, g->roi_pairs, g->roi_markers);
	if (line[0] != '\0')
		fprintf(out, "  %s\n", line);
}

/* The widest of the texts of the `n` lines `order` (a table's first column), at least
 * `heading`'s, at most 60: as --analyze's (analysis_report.c: site_width). */
static int site_width(const uint32_t *order, size_t n, const char *heading)
{
	char name[512];
	int width = (int)strlen(heading);
	for (size_t i = 0; i < n; i++) {
		int w = (int)strlen(site_text(&figures[order[i]], name, sizeof name));
		width = w > width ? w : width;
	}
	return width < 60 ? width : 60;
}

/*
 * Where the load is unbalanced: per parallel region (the rows of its implicit tasks' site, one
 * line however many call addresses it has: tp_live_region_read), the load balance of the threads
 * that ran it, its efficiency, computation, time and threads; most computation first, as
 * --analyze's (a time-step loop has tens of regions).
 */
static void regions(FILE *out, const struct tp_live_thread *slots, const struct tp_live_header *h,
		    const uint32_t *line_at, uint64_t now)
{
	const struct tp_live_site *sites = (const void *)((const char *)h + TP_LIVE_SITES_OFFSET);
	static struct tp_live_region region[TP_LIVE_SITES]; /* too large a local */
	static uint32_t order[TP_LIVE_SITES], rows[TP_LIVE_SITES];
	static bool taken[TP_LIVE_SITES];
	memset(taken, 0, sizeof taken);
	size_t n = 0;
	for (uint32_t row = 1; row < TP_LIVE_SITES; row++) {
		if (taken[row] || line_at[row] == UINT32_MAX ||
		    !__atomic_load_n(&sites[row].by_executor, __ATOMIC_RELAXED))
			continue;
		unsigned of_line = 0; /* the rows of its line: this one and those after it */
		for (uint32_t other = row; other < TP_LIVE_SITES; other++)
			if (line_at[other] == line_at[row] &&
			    __atomic_load_n(&sites[other].by_executor, __ATOMIC_RELAXED)) {
				taken[other] = true;
				rows[of_line++] = other;
			}
		struct tp_live_region r = tp_live_region_read(
			slots, (const char *)h, h->rows_offset, h->rows_stride, rows, of_line, now);
		if (r.threads == 0)
			continue;
		size_t k = n++; /* a few regions: by insertion */
		for (; k > 0 && region[k - 1].computation_ns < r.computation_ns; k--) {
			region[k] = region[k - 1];
			order[k] = order[k - 1];
		}
		region[k] = r;
		order[k] = line_at[row];
	}
	int width = site_width(order, n, "parallel region");
	if (n > 0)
		fprintf(out, "  %-*s %10s %13s %12s %12s %8s\n", width, "parallel region",
			"efficiency", "load balance", "computation", "time", "threads");
	for (size_t i = 0; i < n; i++) {
		char name[512], computation[24], balance[16], time[24], efficiency[16];
		fprintf(out, "  %-*s %10s %13s %12s %12s %8u\n", width,
			site_text(&figures[order[i]], name, sizeof name),
			tp_live_efficiency_words(&region[i], efficiency, sizeof efficiency),
			tp_live_balance_words(&region[i], balance, sizeof balance),
			tp_live_duration_words(region[i].computation_ns, computation,
					       sizeof computation),
			tp_live_region_time_words(region[i].time_ns, time, sizeof time),
			region[i].threads);
	}
}

/* The phases the barrier of line `line` ended (its rows, however many call addresses it has:
 * sync_waited.h, tp_live_phase_read). */
static struct tp_live_region phases(const struct tp_live_thread *slots,
				    const struct tp_live_header *h, const uint32_t *line_at,
				    uint32_t line)
{
	static uint32_t rows[TP_LIVE_SITES];
	unsigned n = 0;
	for (uint32_t row = 1; row < TP_LIVE_SITES; row++)
		if (line_at[row] == line)
			rows[n++] = row;
	return tp_live_phase_read(slots, (const char *)h, h->rows_offset, h->rows_stride, rows, n);
}

/*
 * Where tasks waited: per sync construct's site, the time they waited there, how many waits, for
 * a barrier the load balance of the phases it ended (what its threads computed before it), and
 * for a mutual exclusion the share of the span inside its sections (a barrier's, taskwait's or
 * taskgroup's "-": a wait is on no path, its cost is the time waited). Most time waited first.
 */
static void syncs(FILE *out, const struct tp_live_thread *slots, const struct tp_live_header *h,
		  const uint32_t *line_at, size_t lines, uint64_t span)
{
	uint32_t order[TP_LIVE_SITES];
	size_t n = 0;
	for (size_t i = 0; i < lines; i++)
		if (figures[i].sync_kind != 0 && figures[i].sync_waits > 0)
			order[n++] = (uint32_t)i;
	for (size_t i = 1; i < n; i++) /* a few sites: by insertion */
		for (size_t k = i; k > 0 && figures[order[k]].sync_waited_ns >
						    figures[order[k - 1]].sync_waited_ns;
		     k--) {
			uint32_t swap = order[k];
			order[k] = order[k - 1];
			order[k - 1] = swap;
		}
	int width = site_width(order, n, "sync site");
	for (size_t i = 0; i < n; i++) {
		const struct site_figures *f = &figures[order[i]];
		char name[512], waited[24], share[16] = "-", balance[16];
		struct tp_live_region barrier = f->sync_kind == TP_SYNC_BARRIER
							? phases(slots, h, line_at, order[i])
							: (struct tp_live_region){0};
		if (i == 0)
			fprintf(out, "  %-*s %-11s %12s %8s %12s  %s\n", width, "sync site", "kind",
				"waited", "waits", "load balance", "of the critical path");
		if (f->sync_kind == 4 && span > 0)
			tp_live_share_words(share, sizeof share,
					    100.0 * (double)f->path_ns / (double)span, 1,
					    f->path_at_least);
		fprintf(out, "  %-*s %-11s %12s %8" PRIu64 " %12s  %s\n", width,
			site_text(f, name, sizeof name),
			tp_live_sync_kind_words(f->sync_kind, f->mutex_kind),
			tp_live_duration_words(f->sync_waited_ns, waited, sizeof waited),
			f->sync_waits, tp_live_balance_words(&barrier, balance, sizeof balance),
			share);
	}
	if (__atomic_load_n(&h->syncs_unlisted, __ATOMIC_RELAXED) != 0) {
		char words[384];
		tp_live_syncs_unlisted_words(words, sizeof words,
					     tp_live_syncs_unlisted_read(slots, (const char *)h,
									 h->rows_offset,
									 h->rows_stride));
		fprintf(out, "  %s\n", words);
	}
}

/*
 * The time of path `longest` by site (its places and its commit's: tp_live_path_sites_read), into
 * the sites' lines (`line_at` by row): never more than the path, whatever a torn read gave (the
 * console's rule: live_snapshot.c). Returns its time in sites it did not keep
 * (tp_live_no_share_words).
 */
static uint64_t path_sites(const struct tp_live_header *h, const struct tp_live_path *longest,
			   const uint32_t *line_at)
{
	static struct tp_live_path_sites read; /* a row each: too large a local */
	tp_live_path_sites_read(&h->commits, longest, &read);
	uint64_t other = read.other_ns;
	for (unsigned i = 0; i < read.n; i++) {
		const struct tp_live_path_site *s = &read.sites[i];
		if (line_at[s->row] == UINT32_MAX) {
			other += s->ns;
			continue;
		}
		struct site_figures *f = &figures[line_at[s->row]];
		f->path_ns += s->ns;
		f->path_fragments += s->fragments;
		f->path_at_least |= s->at_least;
	}
	return other;
}

/* The table of the `lines` task sites: their share of the span (of path `longest`, `other` of
 * it in sites not kept), fragments on it, work, tasks, median task (its polls added up: a
 * worksharing loop's implicit task is one long poll and the short ones its barrier and reduction
 * leave, whose median is theirs), spawn cost, start delay. */
static void site_table(FILE *out, size_t lines, const struct tp_live_path *longest, uint64_t other)
{
	qsort(figures, lines, sizeof figures[0], by_path_then_work);
	fprintf(out, "  %8s %8s %12s %8s %11s %11s %11s  %s\n", "span", "on path", "work ms",
		"tasks", "median task", "spawn cost", "start delay", "site");
	for (size_t i = 0; i < lines; i++) {
		const struct site_figures *f = &figures[i];
		char share[16], name[512], task[24], spawn[24], start[24];
		struct tp_live_granularity g = granularity(f);
		if ((f->work_ns == 0 && f->path_ns == 0) || f->sync_kind != 0)
			continue;
		char fragments[24];
		snprintf(fragments, sizeof fragments, "%" PRIu64, f->path_fragments);
		if (f->path_ns == 0)
			snprintf(share, sizeof share, "%s", tp_live_no_share_words(other));
		else
			tp_live_share_words(share, sizeof share,
					    100.0 * (double)f->path_ns / (double)longest->ns, 1,
					    f->path_at_least);
		if (strcmp(share, TP_LIVE_SHARE_NOT_KNOWN) == 0) /* not known: nor its fragments */
			snprintf(fragments, sizeof fragments, "%s", share);
		fprintf(out, "  %8s %8s %12.3f %8" PRIu64 " %11s %11s %11s  %s\n", share, fragments,
			(double)f->work_ns / 1e6, f->tasks,
			tp_live_task_time_words(g.task_ns, task, sizeof task),
			median_words(g.spawn_ns, spawn, sizeof spawn),
			median_words(g.start_ns, start, sizeof start),
			site_text(f, name, sizeof name));
	}
	char other_words[512];
	tp_live_path_other_words(other_words, sizeof other_words, other, longest->ns);
	if (other_words[0] != '\0')
		fprintf(out, "  %s\n", other_words);
}

void tp_report_work_span(FILE *out)
{
	const struct tp_live_header *h = tp_live_header();
	if (h == NULL)
		return;
	const char *map = (const char *)h;
	const struct tp_live_site *sites = (const void *)(map + TP_LIVE_SITES_OFFSET);
	const struct tp_live_thread *slots = (const void *)(map + TP_LIVE_THREADS_OFFSET);
	static struct tp_live_graph graph; /* a thread's computation each: too large a local */
	uint64_t now = tp_live_now();
	tp_live_graph_read(h, slots, now, &graph);
	/* the report's own thread's fragment going on (an exit inside a poll) with its sites: the
	 * path through it, when the longest, is the one whose sites are said */
	struct tp_live_path mine;
	if (tp_live_current_path(now, &mine) && mine.ns >= graph.longest.ns) {
		graph.longest = mine;
		if (mine.ns > graph.span_ns)
			graph.span_ns = mine.ns;
	}
	size_t lines = 0;
	uint32_t line_at[TP_LIVE_SITES];
	for (uint32_t row = 0; row < TP_LIVE_SITES; row++) {
		bool ready = __atomic_load_n(&sites[row].state, __ATOMIC_ACQUIRE) ==
			     TP_LIVE_ENTRY_READY;
		uint32_t key = ready ? __atomic_load_n(&sites[row].site_id, __ATOMIC_RELAXED) : 0,
			 sync = ready ? __atomic_load_n(&sites[row].sync_kind, __ATOMIC_RELAXED)
				      : 0;
		line_at[row] = ready ? (uint32_t)(line_of(row, key, sync, &lines) - figures)
				     : UINT32_MAX;
		if (!ready)
			continue;
		struct site_figures *f = &figures[line_at[row]];
		f->by_executor = __atomic_load_n(&sites[row].by_executor, __ATOMIC_RELAXED) != 0;
		f->mutex_kind = __atomic_load_n(&sites[row].mutex_kind, __ATOMIC_RELAXED);
	}
	for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
		const struct tp_live_site_stats *rows = tp_live_slot_rows(
			slots, i, map, h->rows_offset, h->rows_stride);
		if (rows == NULL)
			continue;
		for (uint32_t row = 0; row < TP_LIVE_SITES; row++)
			if (line_at[row] != UINT32_MAX)
				add_row(&figures[line_at[row]], &rows[row]);
	}
	const struct tp_live_path *longest = &graph.longest;
	char whose[64];
	if (graph.work_ns == 0 || graph.span_ns == 0) {
		fprintf(out,
			"taskprobe: no task of a parallel region was polled (%s): no work or span "
			"to "
			"report\n",
			tp_live_process_words(whose, sizeof whose));
		return;
	}
	uint64_t other = path_sites(h, longest, line_at);
	uint64_t work = graph.work_ns, span = graph.span_ns;
	/* the fragments going on now lengthen the path unburdened */
	uint64_t burdened = longest->burdened_ns + (span - longest->ns);
	uint64_t wall = graph.last_ns > graph.first_ns ? graph.last_ns - graph.first_ns : 0;
	double parallelism = (double)work / (double)span,
	       speedup = wall > 0 ? (double)work / (double)wall : 0;
	fprintf(out,
		"taskprobe: the task graph (%s): work %.3f ms, span %.3f ms: parallelism "
		"%.2f, no number of workers runs it faster than %.2fx; measured %.2fx on %u "
		"worker%s (the parallel part: %.3f ms from its first task's poll to its last's)\n",
		tp_live_process_words(whose, sizeof whose), (double)work / 1e6, (double)span / 1e6,
		parallelism, parallelism, speedup, graph.threads, graph.threads == 1 ? "" : "s",
		(double)wall / 1e6);
	fprintf(out,
		"  burdened span %.3f ms: burdened parallelism %.2f (the critical path with the "
		"delay "
		"before each of its fragments started: what spawning and scheduling cost it)\n",
		(double)burdened / 1e6, burdened > 0 ? (double)work / (double)burdened : 0);
	factors(out, &graph);
	regions(out, slots, h, line_at, now);
	syncs(out, slots, h, line_at, lines, span);
	site_table(out, lines, longest, other);
	/* tasks too small for what they cost (taskprobe_live.h: the console's and --analyze's
	 * verdict, on the same figures as the console's) */
	for (size_t i = 0; i < lines; i++) {
		const struct site_figures *f = &figures[i];
		struct tp_live_granularity g = granularity(f);
		char name[512], words[1024];
		if (f->id == 0 || !g.too_small)
			continue;
		tp_live_granularity_words(words, sizeof words, site_text(f, name, sizeof name), &g);
		fprintf(out, "  %s\n", words);
	}
	char lost[640];
	tp_live_losses_words(lost, sizeof lost, h);
	if (lost[0] != '\0')
		fprintf(out, "  (not counted: %s)\n", lost);
}
