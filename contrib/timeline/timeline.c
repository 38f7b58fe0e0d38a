// SPDX-License-Identifier: MIT
/*
 * The converter's entry points (timeline.h): a timeline made with its options, fed events (from
 * perf's text, perf_script.c, or from recordings), and finished: the slices still open closed,
 * the critical path written, the output ended. Which file does what: timeline_private.h.
 */
#define _GNU_SOURCE
#include "timeline_private.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "taskprobe_contract.h"

unsigned converter_threads(void)
{
	const char *set = getenv("TASKPROBE_TIMELINE_THREADS");
	if (set != NULL && (strcmp(set, "1") == 0 || strcmp(set, "2") == 0))
		return (unsigned)(set[0] - '0');
	static bool said; /* once, though asked by each part of the conversion */
	if (set != NULL && set[0] != '\0' && !said) {
		fprintf(stderr,
			"taskprobe-timeline: TASKPROBE_TIMELINE_THREADS=%s: not 1 or 2, ignored\n",
			set);
		said = true;
	}
	cpu_set_t cpus;
	return sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) < 2 ? 1 : 2;
}

struct timeline *timeline_new(FILE *out, const struct timeline_options *options)
{
	struct timeline *t = calloc(1, sizeof *t);
	if (t == NULL)
		return NULL;
	t->out = out;
	t->first_event = true;
	t->texts.spill_fd = -1;
	slices_init(t);
	sites_init(&t->sites);
	speedscope_init(t);
	t->options.to_ns = UINT64_MAX;
	if (options != NULL)
		t->options = *options;
	bool counters = counters_init(t);
	t->sites_wanted = calloc(t->options.n_sites + 1, sizeof *t->sites_wanted);
	t->site_matched = calloc(t->options.n_sites + t->options.n_tids + 1, sizeof(bool));
	t->tid_matched = t->site_matched != NULL ? t->site_matched + t->options.n_sites : NULL;
	if (!counters || t->sites_wanted == NULL || t->site_matched == NULL) {
		counters_free(t);
		free(t->sites_wanted);
		free(t->site_matched);
		free(t);
		return NULL;
	}
	for (size_t i = 0; i < t->options.n_sites; i++) {
		size_t len = strlen(t->options.sites[i]);
		t->sites_wanted[i] = malloc(len * 6 + 1);
		if (t->sites_wanted[i] != NULL)
			t->sites_wanted[i][json_escape(t->sites_wanted[i], t->options.sites[i],
						       len)] = '\0';
		else
			t->sites_wanted[i] = strdup("");
	}
	if (t->options.critical_path &&
	    (t->analysis = analysis_new(ANALYSIS_RESIDENT_MAX_BESIDE_TIMELINE)) == NULL) {
		counters_free(t);
		for (size_t i = 0; i < t->options.n_sites; i++)
			free(t->sites_wanted[i]);
		free(t->sites_wanted);
		free(t->site_matched);
		free(t);
		return NULL;
	}
	if (out != NULL)
		timeline_output(t, out);
	return t;
}

void timeline_output(struct timeline *t, FILE *out)
{
	t->out = out;
	if (t->options.format == TIMELINE_TRACE_EVENTS)
		fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", out);
}

bool timeline_done(const struct timeline *t)
{
	return t->done || atomic_load_explicit(&t->abandoned, memory_order_relaxed);
}

void timeline_abandon(struct timeline *t)
{
	atomic_store_explicit(&t->abandoned, true, memory_order_relaxed);
}

void timeline_counts(const struct timeline *t, struct timeline_counts *counts)
{
	*counts = t->counts;
	counts->site_texts_refused = t->sites.refused;
}

void timeline_site(struct timeline *t, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	if (id != 0 && len > 0)
		(void)site_name(&t->sites, scope, id, text, len);
	if (t->analysis != NULL)
		analysis_site(t->analysis, scope, id, text, len);
}

void timeline_dropped(struct timeline *t, const struct timeline_event *at, uint64_t count)
{
	if (t->done)
		return;
	struct thread *thread = thread_of(t, at);
	if (thread != NULL && thread->kept && !t->done)
		chrome_instant(t, at, "events not recorded:", count);
}

/* A fragment of a process's critical path (analysis_critical_path, in time order): a slice on
 * the process's "critical path" track (its first: the track named), clipped to the window. */
static void path_fragment(void *context, const struct analysis_fragment *f, bool first)
{
	struct timeline *t = context;
	uint64_t start = f->start_ns > t->from ? f->start_ns : t->from,
		 end = f->end_ns < t->to ? f->end_ns : t->to;
	/* its name; none when it is out of the window (its track made all the same) */
	const char *text = NULL;
	char buf[32], section[600];
	if (start <= end && f->end_ns >= t->from && f->start_ns <= t->to) {
		uint32_t name = f->site_id != 0
					? site_name(&t->sites, f->site_scope, f->site_id, NULL, 0)
					: 0;
		text = task_name_text(t, f->site_id, name, buf);
	}
	if (text != NULL && f->exclusion != 0) {
		/* a section of a mutual exclusion, named by its construct and its kind */
		static const char *const kinds[] = TP_EXCLUSION_KIND_NAMES;
		snprintf(section, sizeof section, "%s: %s",
			 kinds[f->exclusion <= TP_EXCLUSION_KINDS ? f->exclusion : 0], text);
		text = section;
	}
	if (t->options.format == TIMELINE_SPEEDSCOPE)
		speedscope_path_fragment(t, f, first, start, end, text);
	else
		chrome_path_fragment(t, f, first, start, end, text);
}

uint64_t timeline_finish(struct timeline *t, struct timeline_counts *counts, bool *ok)
{
	if (!t->started) {
		t->started = t->in_window = true;
		t->to = UINT64_MAX;
	}
	/* slices still open (the recording ended first) end at the last timestamp */
	if (!t->done) {
		slices_close_all(t);
		counters_at(t, t->last_ns, false);
	}
	if (t->analysis != NULL) {
		analysis_critical_path(t->analysis, path_fragment, t);
		analysis_free(t->analysis);
		t->analysis = NULL;
	}
	if (t->options.format == TIMELINE_SPEEDSCOPE)
		speedscope_finish(t);
	else
		chrome_finish(t);
	uint64_t malformed = t->malformed;
	if (counts != NULL)
		timeline_counts(t, counts);
	if (ok != NULL)
		*ok = !t->failed;
	timeline_discard(t);
	return malformed;
}

void timeline_discard(struct timeline *t)
{
	if (t->analysis != NULL)
		analysis_free(t->analysis);
	for (size_t i = 0; i < t->options.n_sites; i++)
		free(t->sites_wanted[i]);
	free(t->sites_wanted);
	free(t->site_matched);
	speedscope_free(t);
	counters_free(t);
	slices_free(t);
	sites_free(&t->sites);
	free(t);
}
