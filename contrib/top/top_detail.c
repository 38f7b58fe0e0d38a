// SPDX-License-Identifier: MIT
/* The full-screen view's detail of a site, and where the loss is (top_screen.h). */
#define _GNU_SOURCE
#include "top_screen.h"

#include <stdio.h>
#include <string.h>

#include "taskprobe_contract.h"
#include "top_lines.h"

#define HISTOGRAM_BAR 30 /* characters of the longest bar */

/* A histogram's lines: "  1.0us ..   2.0us  ####   12", from its first to its last bucket used. */
static int draw_histogram(struct screen *sc, int y, int skip, const char *title,
			  const uint64_t *histogram)
{
	char line[LINE_MAX_CHARS];
	int first = -1, last = -1;
	uint64_t most = 0;
	for (int b = 0; b < TP_LIVE_BUCKETS; b++) {
		if (histogram[b] == 0)
			continue;
		if (first < 0)
			first = b;
		last = b;
		if (histogram[b] > most)
			most = histogram[b];
	}
	int shown_lines = 0;
#define DETAIL_LINE(text, attributes)                                                              \
	do {                                                                                       \
		if (shown_lines++ >= skip)                                                         \
			put_line(y++, text, attributes, false);                                    \
	} while (0)
	DETAIL_LINE(title, style(sc, PAIR_HEADER));
	if (first < 0)
		DETAIL_LINE("  (none yet)", 0);
	for (int b = first; b >= 0 && b <= last; b++) {
		char low[16], high[16], bar[HISTOGRAM_BAR + 1];
		live_format_ns(low, sizeof low, b == 0 ? 0 : 1ull << b);
		live_format_ns(high, sizeof high, 2ull << b);
		uint64_t scaled = (histogram[b] * HISTOGRAM_BAR + most - 1) / most;
		int n = scaled < HISTOGRAM_BAR ? (int)scaled : HISTOGRAM_BAR;
		memset(bar, '#', (size_t)n);
		bar[n] = '\0';
		snprintf(line, sizeof line, "  %7s .. %7s  %-*s %llu", low, high, HISTOGRAM_BAR,
			 bar, (unsigned long long)histogram[b]);
		DETAIL_LINE(line, 0);
	}
	DETAIL_LINE("", 0);
#undef DETAIL_LINE
	return shown_lines;
}

/*
 * Whether the snapshot's stack `i` is of site `row`, and the first with its text: stacks that
 * differ only in return addresses that name the same lines (an unrolled loop's calls) are shown
 * as one.
 */
static bool stack_shown_first(const struct live_snapshot *s, unsigned i, uint32_t row)
{
	if (s->stacks[i].row != row)
		return false;
	for (unsigned k = 0; k < i; k++)
		if (s->stacks[k].row == row && strcmp(s->stacks[k].text, s->stacks[i].text) == 0)
			return false;
	return true;
}

/* The samples of stack `i` and of every later one of its site with its text. */
static unsigned stack_samples(const struct live_snapshot *s, unsigned i)
{
	unsigned n = 0;
	for (unsigned k = i; k < s->n_stacks; k++)
		if (s->stacks[k].row == s->stacks[i].row &&
		    strcmp(s->stacks[k].text, s->stacks[i].text) == 0)
			n += s->stacks[k].samples;
	return n;
}

/*
 * The stacks of `row` (a site's row, or a wait site's entry) from line `y`, the first `skip`
 * lines scrolled away, under `title` (`none` when it has none); returns the line below them.
 */
static int draw_stacks(struct screen *sc, int y, int skip, uint32_t row, const char *title,
		       const char *none)
{
	const struct live_snapshot *s = shown(sc);
	int bottom = LINES - 1, shown_lines = 0;
	char line[LINE_MAX_CHARS];
#define STACK_LINE(text, attributes)                                                               \
	do {                                                                                       \
		if (shown_lines++ >= skip && y < bottom)                                           \
			put_line(y++, text, attributes, false);                                    \
	} while (0)
	STACK_LINE(title, style(sc, PAIR_HEADER));
	bool any = false;
	for (unsigned i = 0; i < s->n_stacks; i++) {
		if (!stack_shown_first(s, i, row))
			continue;
		any = true;
		snprintf(line, sizeof line, "  %u samples:", stack_samples(s, i));
		STACK_LINE(line, A_BOLD);
		const char *frame = s->stacks[i].text;
		while (*frame != '\0') {
			const char *end = strchr(frame, '\n');
			int len = end != NULL ? (int)(end - frame) : (int)strlen(frame);
			snprintf(line, sizeof line, "    %.*s", len, frame);
			STACK_LINE(line, 0);
			frame += len + (end != NULL);
		}
	}
	if (!any)
		STACK_LINE(none, 0);
#undef STACK_LINE
	return y;
}

/* The detail of the selected wait site: its figures, then its sampled stacks. */
static void draw_wait_detail(struct screen *sc)
{
	const struct live_snapshot *s = shown(sc);
	const struct wait_view *w = NULL;
	for (unsigned i = 0; i < s->n_waits; i++)
		if (s->waits[i].entry == sc->selected_wait)
			w = &s->waits[i];
	int y = TABLES_TOP;
	if (w == NULL) {
		put_line(y, "(no site selected)", 0, false);
		return;
	}
	char line[LINE_MAX_CHARS], total[16], longest[16];
	live_format_ns(total, sizeof total, w->total_ns);
	live_format_ns(longest, sizeof longest, w->longest_ns);
	snprintf(line, sizeof line, "%.*s  (%s waits)", (int)sizeof line - 32, w->text,
		 live_wait_kind_name(w->kind));
	put_line(y++, line, A_BOLD, false);
	snprintf(line, sizeof line,
		 "waits %llu, %s in all, longest %s; %u thread%s, %llu waiting %s",
		 (unsigned long long)w->waits, total, longest, w->threads,
		 w->threads == 1 ? "" : "s", (unsigned long long)w->waiting,
		 s->header.exited ? "at the exit" : "now");
	put_line(y++, line, 0, false);
	put_line(y++, "", 0, false);
	y = draw_stacks(sc, y, sc->detail_scroll, w->entry,
			"WAIT STACKS (sampled: each thread's first " TP_LIVE_STRING(
				TP_LIVE_STACK_SAMPLE_FIRST) " waits here, then 1 "
							    "in " TP_LIVE_STRING(
								    TP_LIVE_STACK_SAMPLE_EVERY) ")",
			"  (none: stacks are off (TASKPROBE_STACKS=0), or none sampled yet)");
	if (sc->detail_scroll > 0 && y < LINES - 2)
		sc->detail_scroll--; /* scrolled past the end: come back */
}

void draw_detail(struct screen *sc)
{
	const struct live_snapshot *s = shown(sc);
	const struct site_view *v = live_site(s, sc->selected_row);
	int y = TABLES_TOP, bottom = LINES - 1;
	char line[LINE_MAX_CHARS];
	for (int k = y; k < bottom; k++)
		put_line(k, "", 0, false);
	if (sc->wait_selected) {
		draw_wait_detail(sc);
		return;
	}
	if (v == NULL) {
		put_line(y, "(no site selected)", 0, false);
		return;
	}
	char busy[16], idle[16], avg[16], p50[16], p99[16], longest[16], blocking[16], w[128],
		poll50[16], poll99[16];
	live_format_ns(busy, sizeof busy, v->busy_ns);
	live_format_ns(idle, sizeof idle, v->idle_ns);
	live_format_ns(avg, sizeof avg, v->delays > 0 ? v->delay_ns / v->delays : 0);
	live_format_ns(p50, sizeof p50, v->delay_p50_ns);
	live_format_ns(p99, sizeof p99, v->delay_p99_ns);
	live_format_ns(poll50, sizeof poll50, v->poll_p50_ns);
	live_format_ns(poll99, sizeof poll99, v->poll_p99_ns);
	live_format_ns(longest, sizeof longest, v->longest_poll_ns);
	live_format_ns(blocking, sizeof blocking, v->blocking_ns);
	live_format_warnings(w, sizeof w, v, 0);
	snprintf(line, sizeof line, "%.*s  (site %u)", (int)sizeof line - 32, v->text, v->site_id);
	put_line(y++, line, A_BOLD, false);
	/* lines that fit 80 columns */
	snprintf(line, sizeof line, "tasks %llu spawned, %llu alive, %llu done; idle %s",
		 (unsigned long long)v->spawned, (unsigned long long)v->alive,
		 (unsigned long long)v->done, idle);
	put_line(y++, line, 0, false);
	/* the task's time, not its polls': a region's implicit task is one long poll and the short
	 * ones its barrier leaves */
	char task[24];
	snprintf(line, sizeof line, "median task %s (its polls added up), as the exit report says",
		 tp_live_task_time_words(v->task_p50_ns, task, sizeof task));
	put_line(y++, line, 0, false);
	snprintf(line, sizeof line, "polls %llu, busy %s: p50 %s, p99 %s, longest %s; %llu long",
		 (unsigned long long)v->polls, busy, poll50, poll99, longest,
		 (unsigned long long)v->long_polls);
	put_line(y++, line, 0, false);
	snprintf(line, sizeof line,
		 "scheduling delay (woken to polled): %llu, mean %s, p50 %s, p99 %s",
		 (unsigned long long)v->delays, avg, p50, p99);
	put_line(y++, line, 0, false);
	snprintf(line, sizeof line, "waits blocking their worker: %llu, %s",
		 (unsigned long long)v->blocking_waits, blocking);
	put_line(y++, line, 0, false);
	char spawn[16], share[16];
	live_format_ns(spawn, sizeof spawn, v->spawn_p50_ns);
	live_format_span_share(share, sizeof share, s, v);
	char spawn_cost[48] = "spawning one: not measured yet";
	if (v->spawn_p50_ns > 0)
		snprintf(spawn_cost, sizeof spawn_cost, "spawning one costs %s (p50)", spawn);
	snprintf(line, sizeof line, "critical path: %s of the span, %llu fragment%s; %s", share,
		 (unsigned long long)v->path_fragments, v->path_fragments == 1 ? "" : "s",
		 spawn_cost);
	put_line(y++, line, 0, false);
	if (v->by_executor && v->region.threads > 0) {
		char computation[24];
		snprintf(line, sizeof line,
			 "parallel region: load balance %.3f over %u thread%s, computation %s",
			 v->region.load_balance, v->region.threads,
			 v->region.threads == 1 ? "" : "s",
			 tp_live_duration_words(v->region.computation_ns, computation,
						sizeof computation));
		put_line(y++, line, 0, false);
	}
	if (w[0] != '\0') {
		snprintf(line, sizeof line, "warnings: %s", w);
		put_line(y++, line, style(sc, PAIR_WARNING), false);
	}
	live_format_too_small(w, sizeof w, v);
	if (w[0] != '\0')
		put_line(y++, w, style(sc, PAIR_WARNING), false);
	put_line(y++, "", 0, false);

	/* scrolled part: histograms, then the stacks */
	int skip = sc->detail_scroll, used;
	used = draw_histogram(sc, y, skip, "POLL TIME", v->poll_histogram);
	y += used > skip ? used - skip : 0;
	skip = skip > used ? skip - used : 0;
	used = draw_histogram(sc, y, skip, "SCHEDULING DELAY", v->delay_histogram);
	y += used > skip ? used - skip : 0;
	skip = skip > used ? skip - used : 0;

	y = draw_stacks(
		sc, y, skip, v->row,
		"SPAWN STACKS (sampled: each thread's first spawns here, then 1 in " TP_LIVE_STRING(
			TP_LIVE_STACK_SAMPLE_EVERY) ")",
		"  (none: spawn stacks are off, or the executor started these tasks)");
	if (sc->detail_scroll > 0 && y < bottom - 1)
		sc->detail_scroll--; /* scrolled past the end: come back */
}

/*
 * Where the loss is (p), under the factors' lines: each parallel region's load balance, then the
 * sync sites where tasks waited, as --once prints them.
 */
void draw_losses(struct screen *sc)
{
	const struct live_snapshot *s = shown(sc);
	char line[LINE_MAX_CHARS];
	int y = TABLES_TOP, bottom = LINES - 1;
	/* a site's text in the room the figures leave (at least readable_width's), cut as the
	 * sites table cuts it: its function's start and its whole (file:line) */
	static struct site_view cut;
	int width = (int)strlen("PARALLEL REGION"),
	    room = COLS -
		   (int)strlen("  EFFICIENCY  LOAD BALANCE  COMPUTATION        TIME  THREADS") - 1;
	/* the regions' rows alone (the initial task's is none) */
	for (unsigned i = 0; i < s->n_sites; i++)
		if (live_region_shown(&s->sites[i]) && (int)strlen(s->sites[i].text) > width)
			width = (int)strlen(s->sites[i].text);
	for (unsigned i = 0; i < s->n_sites; i++)
		if (live_region_shown(&s->sites[i]) && width > room &&
		    readable_width(s->sites[i].text) > room)
			room = readable_width(s->sites[i].text);
	width = width < room ? width : room;
	live_format_region_header(line, sizeof line, width);
	put_line(y++, line, style(sc, PAIR_HEADER), true);
	for (unsigned i = 0; i < s->n_sites && y < bottom; i++) {
		cut = s->sites[i];
		site_text(cut.text, sizeof cut.text, s->sites[i].text, width);
		if (live_format_region(line, sizeof line, &cut, width))
			put_line(y++, line, 0, false);
	}
	if (y + 2 < bottom)
		put_line(y++, "", 0, false);
	width = (int)strlen("SYNC SITE");
	room = COLS - (int)strlen("  KIND             WAITED   WAITS  LOAD BALANCE  99.9%") - 1;
	for (unsigned i = 0; i < s->n_syncs; i++) {
		if ((int)strlen(s->syncs[i].text) > width)
			width = (int)strlen(s->syncs[i].text);
		if (readable_width(s->syncs[i].text) > room)
			room = readable_width(s->syncs[i].text);
	}
	width = width < room ? width : room;
	if (y < bottom) { /* the last heading cut at the edge on a narrow terminal, not a figure */
		live_format_sync_header(line, sizeof line, width);
		put_line(y++, line, style(sc, PAIR_HEADER), true);
	}
	for (unsigned i = 0; i < s->n_syncs && y < bottom; i++) {
		cut = s->syncs[i];
		site_text(cut.text, sizeof cut.text, s->syncs[i].text, width);
		live_format_sync(line, sizeof line, s, &cut, width);
		put_line(y++, line, 0, false);
	}
	if (s->n_syncs == 0 && y < bottom)
		put_line(y++,
			 "(no task waited at a barrier, taskwait, taskgroup or mutual exclusion)",
			 0, false);
	if (s->header.syncs_unlisted != 0 && y < bottom) {
		tp_live_syncs_unlisted_words(line, sizeof line, s->syncs_unlisted);
		put_line(y++, line, 0, false);
	}
	live_format_roi(line, sizeof line, s);
	if (line[0] != '\0' && y + 1 < bottom) {
		put_line(y++, "", 0, false);
		put_line(y++, line, 0, false);
	}
	while (y < bottom)
		put_line(y++, "", 0, false);
}
