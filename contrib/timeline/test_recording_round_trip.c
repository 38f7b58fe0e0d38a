// SPDX-License-Identifier: MIT
/*
 * The recording's round trip (meson test --suite unit): the shim's recorder given known events
 * (shim/consumers/round_trip_steps.h, by the program recording_writer) and the converter's
 * reader of recordings: every event comes back, in order, with its arguments, once in compact
 * records and once in a record each; and the compact pass takes fewer records.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recording.h"
#include "round_trip_steps.h"

struct read_back {
	struct timeline_event *events;
	size_t n, size;
};

static void site(void *context, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	(void)context, (void)scope, (void)id, (void)text, (void)len;
}

static void event(void *context, const struct timeline_event *e)
{
	struct read_back *r = context;
	if (r->n == r->size) {
		r->size = r->size ? 2 * r->size : 64;
		r->events = realloc(r->events, r->size * sizeof *r->events);
		cr_assert_not_null(r->events);
	}
	r->events[r->n++] = *e;
}

/* The recording the writer made (given `mode`, or none: NULL), its bytes in *size. */
static unsigned char *recorded_in(const char *mode, size_t *size)
{
	char dir[] = "/tmp/taskprobe-round-trip-XXXXXX", path[64], *cmd;
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/rec", dir);
	cr_assert(asprintf(&cmd, "'%s' '%s' %s", RECORDING_WRITER, path, mode ? mode : "") > 0);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(cmd);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "nothing recorded at %s", path);
	unsigned char *data = NULL;
	size_t n = 0;
	FILE *m = open_memstream((char **)&data, &n);
	char buffer[4096];
	for (size_t got; (got = fread(buffer, 1, sizeof buffer, f)) > 0;)
		fwrite(buffer, 1, got, m);
	fclose(m);
	fclose(f);
	unlink(path);
	rmdir(dir);
	*size = n;
	return data;
}

static unsigned char *recorded(size_t *size)
{
	return recorded_in(NULL, size);
}

/* The records in the chunks of the recording at `data`, as their headers count them. */
static size_t records_of(const unsigned char *data, size_t size)
{
	const struct tp_recording_header *h = (const void *)data;
	size_t records = 0;
	for (size_t at = h->header_size; at + sizeof(struct tp_recording_chunk) <= size;) {
		const struct tp_recording_chunk *c = (const void *)(data + at);
		cr_assert_eq(c->magic, TP_CHUNK_MAGIC);
		records += c->records;
		at += c->size;
	}
	return records;
}

Test(recording_round_trip, every_event_comes_back_with_its_arguments_in_order)
{
	size_t size;
	unsigned char *data = recorded(&size);
	cr_assert(recording_detect(data, size));
	struct read_back back = {0};
	struct recording_input input = {.name = "round trip", .data = data, .size = size};
	struct recording_sink sink = {.context = &back, .site = site, .event = event};
	struct recording_totals totals = {0};
	cr_assert(recording_read(&input, 1, &sink, stderr, &totals));
	cr_expect_eq(totals.dropped, 0);
	/* first the image's start: the header's time, on the process's main thread */
	const struct tp_recording_header *h = (const void *)data;
	cr_assert_eq(back.n, 1 + 2 * ROUND_TRIP_STEPS, "%zu events read back, %zu given", back.n,
		     1 + 2 * ROUND_TRIP_STEPS);
	cr_expect_eq(back.events[0].type, TIMELINE_IMAGE_START);
	cr_expect_eq(back.events[0].ns, h->ns,
		     "the image's start at %" PRIu64 ", its header's %" PRIu64, back.events[0].ns,
		     h->ns);
	cr_expect_eq(back.events[0].tid, h->pid);
	uint64_t last_ns = back.events[0].ns;
	for (size_t i = 0; i + 1 < back.n; i++) {
		const struct round_trip_step *s = &round_trip_steps[i % ROUND_TRIP_STEPS];
		const struct timeline_event *e = &back.events[i + 1];
		int64_t wide = i < ROUND_TRIP_STEPS ? 0 : ROUND_TRIP_WIDE;
		cr_expect_eq(e->type, s->type, "event %zu: type %u, given %u", i, e->type, s->type);
		for (unsigned k = 0; k < 6; k++) {
			int64_t given = s->arg[k] +
					(round_trip_task_args(s->type) >> k & 1 && s->arg[k] ? wide
											     : 0);
			cr_expect_eq(e->arg[k], given,
				     "event %zu (type %u): arg%u %lld, given %lld", i, s->type, k,
				     (long long)e->arg[k], (long long)given);
		}
		cr_expect_not(e->undeferred, "event %zu", i);
		cr_expect_geq(e->ns, last_ns, "event %zu before the one it follows", i);
		last_ns = e->ns;
	}
	free(back.events);
	free(data);
}

/*
 * The first pass's events fold into 43 records (the steps' comments say which share one), the
 * second's are a record each but for the wait in no task (task 0 fits 32 bits: its start and end
 * share one): 43 + ROUND_TRIP_STEPS - 1 records in the file's chunks.
 */
Test(recording_round_trip, compact_records_fold_what_follows_at_once)
{
	size_t size;
	unsigned char *data = recorded(&size);
	cr_expect_eq(records_of(data, size), 43 + ROUND_TRIP_STEPS - 1, "%zu records",
		     records_of(data, size));
	free(data);
}

struct named {
	uint64_t id;
	char text[256];
	unsigned sites;
};

static void name_of(void *context, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	struct named *n = context;
	(void)scope;
	if (len < sizeof n->text && memmem(text, len, "claimed_routine", 15) != NULL) {
		n->id = id;
		memcpy(n->text, text, len);
		n->text[len] = '\0';
		n->sites++;
	}
}

static void no_event(void *context, const struct timeline_event *e)
{
	(void)context, (void)e;
}

/*
 * A thread that claimed a site's code record may be preempted before the record is whole, while
 * another thread's event names the site and the process ends: the recording's end writes the
 * claimed record, and the converter names the site (not "site N").
 */
Test(recording_round_trip, a_site_claimed_but_not_written_when_the_process_ends_is_named)
{
	size_t size;
	unsigned char *data = recorded_in("claimed", &size);
	struct named named = {0};
	struct recording_input input = {.name = "claimed", .data = data, .size = size};
	struct recording_sink sink = {.context = &named, .site = name_of, .event = no_event};
	struct recording_totals totals = {0};
	cr_assert(recording_read(&input, 1, &sink, stderr, &totals));
	cr_expect_eq(totals.dropped, 0);
	cr_expect_eq(named.sites, 1, "the claimed site named %u times", named.sites);
	cr_expect_neq(named.id, 0);
	free(data);
}
