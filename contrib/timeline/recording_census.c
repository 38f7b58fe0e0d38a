// SPDX-License-Identifier: MIT
/*
 * The census of the recordings (recordings_count): the events the options keep, by record type,
 * read before anything is written so that the output's size is known first. The window and the
 * threads are counted exactly; the sites by the share of the spawns of the sites kept; and
 * speedscope's events as its writer would leave them (a slice within a microsecond out).
 */
#define _GNU_SOURCE
#include "recording_book.h"
#include "recording_decode.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "taskprobe_contract.h"

/* A site (scope, id) whose text the site filter keeps. */
struct kept_site {
	uint64_t scope, id;
};

/* The sites the census's site filter keeps: at most this many (the estimate's share of the
 * spawns counts the spawns of the first ones). */
#define MAX_KEPT_SITES (1u << 20)

struct site_filter {
	const struct timeline_options *options;
	struct kept_site *kept;
	size_t n_kept;
	bool failed; /* out of memory */
};

/* Keeps site (scope, id) in the filter when its text holds one of the options' sites. */
static void filter_site(void *context, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	struct site_filter *f = context;
	bool match = false;
	for (size_t j = 0; j < f->options->n_sites; j++)
		match |= memmem(text, len, f->options->sites[j], strlen(f->options->sites[j])) !=
			 NULL;
	struct kept_site site = {scope, id};
	if (match && f->n_kept < MAX_KEPT_SITES &&
	    !append(&f->kept, &f->n_kept, &site, sizeof site))
		f->failed = true;
}

/*
 * speedscope's profile of a thread, as the converter writes it (write_speedscope.c's
 * speedscope_event): an event pending, written unless the next one is of the same frame, in the
 * same microsecond, opening what it closed or closing what it opened (then neither is written).
 * Here a frame is the kind of slice (polls, waits, parks): a site's polls, or a kind's waits, one
 * after another are the same frame. A thread's chunk is counted alone.
 */
struct profile_count {
	bool pending, opens;
	int frame;
	unsigned type;
	uint64_t at, last_at;
};

/* The frame (1 polls, 2 waits, 3 parks) a record type opens or closes, with SLICE_OPENS when
 * it opens it; 0: none. A table: the census asks for every event. */
#define SLICE_OPENS 4
static const uint8_t slice_frames[TP_RECORD_TYPES_END] = {
	[TP_RECORD_TASK_POLL_START] = 1 | SLICE_OPENS, [TP_RECORD_TASK_POLL_END] = 1,
	[TP_RECORD_WAIT_START] = 2 | SLICE_OPENS,      [TP_RECORD_WAIT_END] = 2,
	[TP_RECORD_WORKER_PARK] = 3 | SLICE_OPENS,     [TP_RECORD_WORKER_UNPARK] = 3,
};

/* The profile's pending event counted as written (census->speedscope_events). */
static void profile_count_flush(struct recording_census *census, struct profile_count *p)
{
	if (p->pending)
		census->speedscope_events[p->type]++;
	p->pending = false;
}

/* A record of `type` at microsecond `at` of the window, on the thread's profile. */
static void profile_count_event(struct recording_census *census, struct profile_count *p,
				unsigned type, uint64_t at)
{
	int frame = slice_frames[type] & ~SLICE_OPENS;
	bool opens = (slice_frames[type] & SLICE_OPENS) != 0;
	if (frame == 0)
		return;
	at = at < p->last_at ? p->last_at : at;
	p->last_at = at;
	if (p->pending && p->frame == frame && p->at == at && p->opens != opens) {
		p->pending = false;
		return;
	}
	profile_count_flush(census, p);
	*p = (struct profile_count){true, opens, frame, type, at, at};
}

/* The site id of a spawn's record (a compact one's too). */
static uint64_t spawn_site(const struct tp_record *r)
{
	return tp_record_type(r->word) == TP_RECORD_TASK_SPAWNED ? tp_compact_low(r->arg[1])
								 : r->arg[2];
}

/* Whether the filter keeps site `id` of `scope`. */
static bool site_kept(const struct site_filter *f, uint64_t scope, uint64_t id)
{
	for (size_t j = 0; j < f->n_kept; j++)
		if (f->kept[j].id == id && f->kept[j].scope == scope)
			return true;
	return false;
}

/* A share of the census's chunks: every `step`th from `first`, counted into `census`, read
 * through `pages` (a thread's own). */
struct census_part {
	struct book *b;
	const struct timeline_options *options;
	const struct site_filter *filter;
	uint64_t from, to; /* the window, absolute */
	size_t first, step;
	struct pages *pages;
	struct recording_census census;
	uint64_t spawns, spawns_kept;
};

/* Counts the part's chunks' events. */
static void count_part(struct census_part *part)
{
	const struct book *b = part->b;
	const struct timeline_options *options = part->options;
	const struct chunk_ref *refs = b->refs;
	const struct segment *segments = b->segments;
	struct pages *pages = part->pages;
	struct recording_census *c = &part->census;
	uint64_t from = part->from, to = part->to;
	for (size_t i = part->first; i < b->n_refs; i += part->step) {
		const struct tp_recording_chunk *h = refs[i].header;
		const unsigned char *base = (const unsigned char *)h;
		pages_read(pages, h, sizeof *h);
		bool thread = options->n_tids == 0;
		for (size_t j = 0; j < options->n_tids; j++)
			thread |= options->tids[j] == h->tid;
		if (!thread)
			continue;
		struct profile_count profile = {0};
		for (uint32_t at = sizeof *h; at < h->size;) {
			const struct tp_record *r = (const struct tp_record *)(base + at);
			pages_read(pages, r, tp_record_bytes(r->word));
			at += tp_record_bytes(r->word);
			unsigned n_events = tp_record_events(r->word);
			if (n_events == 0)
				continue;
			uint64_t events = record_events(r->word), at_ns, end_ns;
			record_times(&segments[refs[i].segment], h, r, events, n_events, &at_ns,
				     &end_ns);
			for (unsigned k = 0; k < n_events; k++) {
				bool at_end;
				unsigned type = events_type(events, k, &at_end);
				uint64_t ns = at_end ? end_ns : at_ns;
				if (ns < from || ns > to)
					continue;
				c->by_type[type]++;
				c->events++;
				/* speedscope's ends: whole microseconds from the window's start,
				 * rounded */
				uint64_t us = (ns - from + 500) / 1000;
				profile_count_event(c, &profile, type, us);
				c->last_us = us > c->last_us ? us : c->last_us;
				if (type == TP_RECORD_TASK_SPAWN && options->n_sites > 0) {
					part->spawns++;
					part->spawns_kept += site_kept(
						part->filter, segments[refs[i].segment].scope,
						spawn_site(r));
				}
			}
		}
		profile_count_flush(c, &profile);
	}
}

static void *count_part_thread(void *part)
{
	count_part(part);
	return NULL;
}

/*
 * The census on two threads, each every other chunk (a chunk is counted alone, the counts are
 * sums): the second reads through pages of its own. In this thread when the second cannot start.
 * False when out of memory.
 */
static bool count_on_two(struct census_part parts[2])
{
	struct pages *pages = malloc(sizeof *pages);
	if (pages == NULL)
		return false;
	*pages = (struct pages){.inputs = parts[0].pages->inputs,
				.n = parts[0].pages->n,
				.shift = parts[0].pages->shift};
	parts[1] = parts[0];
	parts[1].first = 1;
	parts[1].pages = pages;
	parts[0].step = parts[1].step = 2;
	pthread_t other;
	bool started = pthread_create(&other, NULL, count_part_thread, &parts[1]) == 0;
	if (!started)
		parts[0].step = 1;
	count_part(&parts[0]);
	if (started)
		pthread_join(other, NULL);
	else
		parts[1].census = (struct recording_census){0};
	free(pages);
	return true;
}

/* The census of book `b`, on two threads when `two` (and there are two chunks or more). */
static bool count_book(struct book *b, const struct timeline_options *options,
		       struct recording_census *census, bool two)
{
	struct site_filter filter = {.options = options};
	bool ok = false;
	memset(census, 0, sizeof *census);
	census->site_share = 1;
	const struct chunk_ref *refs = b->refs;
	const struct segment *segments = b->segments;
	struct pages *pages = &b->pages;
	/* the sites the filter keeps, before the spawns are counted (texts come anywhere) */
	for (size_t i = 0; options->n_sites > 0 && i < b->n_refs; i++) {
		const struct tp_recording_chunk *h = refs[i].header;
		pages_read(pages, h, sizeof *h);
		for (uint32_t at = sizeof *h; at < h->size;) {
			const struct tp_record *r =
				(const struct tp_record *)((const unsigned char *)h + at);
			pages_read(pages, r, tp_record_bytes(r->word));
			if (tp_record_type(r->word) == TP_RECORD_SITE)
				filter_site(&filter, segments[refs[i].segment].scope, r->arg[0],
					    (const char *)&r->arg[1], tp_record_small(r->word));
			at += tp_record_bytes(r->word);
		}
	}
	if (options->n_sites > 0 &&
	    !name_code_sites(b->segments, b->n_segments, filter_site, &filter))
		goto out;
	if (filter.failed)
		goto out;
	/* the origin: the earliest first record of a chunk (a chunk's records are in order) */
	uint64_t origin = UINT64_MAX;
	for (size_t i = 0; i < b->n_refs; i++) {
		const struct tp_recording_chunk *h = refs[i].header;
		const unsigned char *base = (const unsigned char *)h;
		pages_read(pages, h, sizeof *h);
		for (uint32_t at = sizeof *h; at < h->size;) {
			const struct tp_record *r = (const struct tp_record *)(base + at);
			pages_read(pages, r, sizeof *r);
			if (tp_record_events(r->word) > 0) {
				bool at_end;
				(void)event_type(r->word, 0, &at_end);
				uint64_t ns = to_ns(&segments[refs[i].segment],
						    event_time(h, r, at_end));
				origin = ns < origin ? ns : origin;
				break;
			}
			at += tp_record_bytes(r->word);
		}
	}
	uint64_t from = origin + options->from_ns < origin ? UINT64_MAX : origin + options->from_ns;
	uint64_t to = origin + options->to_ns < origin ? UINT64_MAX : origin + options->to_ns;
	struct census_part parts[2] = {{.b = b,
					.options = options,
					.filter = &filter,
					.from = from,
					.to = to,
					.step = 1,
					.pages = &b->pages}};
	if (!two || b->n_refs < 2)
		count_part(&parts[0]);
	else if (!count_on_two(parts))
		goto out;
	uint64_t spawns = 0, spawns_kept = 0;
	for (size_t p = 0; p < 2; p++) {
		const struct recording_census *c = &parts[p].census;
		for (unsigned type = 0; type < TP_RECORD_TYPES_END; type++) {
			census->by_type[type] += c->by_type[type];
			census->speedscope_events[type] += c->speedscope_events[type];
		}
		census->events += c->events;
		census->last_us = c->last_us > census->last_us ? c->last_us : census->last_us;
		spawns += parts[p].spawns;
		spawns_kept += parts[p].spawns_kept;
	}
	if (options->n_sites > 0)
		census->site_share = spawns > 0 ? (double)spawns_kept / (double)spawns : 0;
	drop_pages(b->pages.inputs, b->pages.n);
	pages_dropped(pages);
	ok = true;
out:
	free(filter.kept);
	return ok;
}

bool recordings_count(struct recordings *recordings, const struct timeline_options *options,
		      struct recording_census *census)
{
	return count_book(recordings->book, options, census, converter_threads() > 1);
}

/* A census apart: a book of its own, its chunk refs and segments copies of the book's. */
struct census_apart {
	struct book b;
	const struct timeline_options *options;
};

struct census_apart *recordings_census_apart(const struct recordings *r,
					     const struct timeline_options *options)
{
	const struct book *from = r->book;
	struct census_apart *c = calloc(1, sizeof *c);
	if (options->n_sites > 0 || c == NULL)
		goto fail;
	c->options = options;
	c->b.n_refs = from->n_refs;
	c->b.n_segments = from->n_segments;
	c->b.refs = malloc((from->n_refs + 1) * sizeof *from->refs);
	c->b.segments = malloc((from->n_segments + 1) * sizeof *from->segments);
	if (c->b.refs == NULL || c->b.segments == NULL)
		goto fail;
	memcpy(c->b.refs, from->refs, from->n_refs * sizeof *from->refs);
	memcpy(c->b.segments, from->segments, from->n_segments * sizeof *from->segments);
	c->b.pages = (struct pages){
		.inputs = from->pages.inputs, .n = from->pages.n, .shift = from->pages.shift};
	return c;
fail:
	census_apart_free(c);
	return NULL;
}

bool census_apart_count(struct census_apart *c, struct recording_census *census)
{
	return count_book(&c->b, c->options, census, false);
}

void census_apart_free(struct census_apart *c)
{
	if (c == NULL)
		return;
	free(c->b.refs);
	free(c->b.segments);
	free(c);
}
