// SPDX-License-Identifier: MIT
/*
 * Recordings of the in-process recorder (TASKPROBE_RECORD; format: dtrace/taskprobe_recording.h)
 * turned into the same timeline as perf's text: every thread's records merged in time order,
 * across the files of a process tree, and handed to timeline_add.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scaling.h"
#include "timeline.h"

/* A recording file's contents, read by the caller. */
struct recording_input {
	const char *name; /* for messages */
	const unsigned char *data;
	size_t size;
	bool mapped; /* a file mapped (its pages are dropped once read: see recording.c) */
};

struct recording_totals {
	uint64_t events;    /* converted */
	uint64_t dropped;   /* the recorder could not record (its chunks say how many) */
	uint64_t cut_files; /* stretches of files that are not whole, skipped (said on `errors`) */
	/* events of chunks left out to keep the converter's memory bounded (said on `errors`) */
	uint64_t left_out;
	/* the recordings were refused (two MPI jobs among them: said on `errors`), nothing converted */
	bool refused;
	/* an MPI job's efficiencies' basis (ranks_finish's), for a comparison of runs */
	struct scaling_basis job;
};

/* The events of the recordings the options keep, by record type (what the output's size is
 * estimated from): the window and the threads counted exactly, the sites by the share of the
 * spawns of the sites kept (`site_share`, 1 with no site filter). False when out of memory. */
struct recording_census {
	uint64_t by_type[TP_RECORD_TYPES_END];
	uint64_t events;
	double site_share;
	/* The events speedscope's format writes (its slices' opens and closes: it leaves out a
	 * slice within a microsecond, and joins two of a frame that meet in one), by the type of
	 * the record that makes them; the microsecond of the window's last event. */
	uint64_t speedscope_events[TP_RECORD_TYPES_END];
	uint64_t last_us;
};

/*
 * The recordings read once (pass one: every chunk and record checked, the site texts told to
 * `t`, unless NULL), then counted (recordings_count) and converted (recordings_convert): the
 * census before anything is written and the conversion share that pass rather than make one
 * each. NULL when out of memory.
 */
struct recordings;
struct recordings *recordings_read(const struct recording_input *inputs, size_t n,
				   struct timeline *t);
bool recordings_count(struct recordings *r, const struct timeline_options *options,
		      struct recording_census *census);
/*
 * The census of recordings read, in a thread beside their conversion (recordings_convert
 * changes the book: the chunks' order, the segments' processes): made of copies of what it
 * reads, before the conversion starts; counted in one thread, the same census as
 * recordings_count. NULL when out of memory, or when the options keep sites (their texts are
 * named from the code as the conversion names them: code_names.c is one thread's).
 */
struct census_apart;
struct census_apart *recordings_census_apart(const struct recordings *r,
					     const struct timeline_options *options);
bool census_apart_count(struct census_apart *c, struct recording_census *census);
void census_apart_free(struct census_apart *c);
/* Whether reading them said nothing: no file was cut, no bound met. (recordings_read says
 * nothing; where there is something to say, recording_convert reads them again, saying it.) */
bool recordings_said_nothing(const struct recordings *r);
/* recording_convert of the recordings read, into `t` (the one they were read with). */
bool recordings_convert(struct recordings *r, struct timeline *t, FILE *errors,
			struct recording_totals *totals);
void recordings_free(struct recordings *r);

/* Whether `data` starts as a recording does (else: perf's text). */
bool recording_detect(const unsigned char *data, size_t size);

/*
 * Converts the recordings into `t`. Where a file is not a recording, or stops being one (a
 * process killed while writing), that is said on `errors`, and it is read on from the next
 * segment header, if any (an image exec'ed after a torn write). Returns false when out of memory.
 */
bool recording_convert(struct timeline *t, const struct recording_input *inputs, size_t n,
		       FILE *errors, struct recording_totals *totals);

/* What recording_read hands the events to, instead of a timeline. */
struct recording_sink {
	void *context;
	/* a site's text (as timeline_site), before the events that name it */
	void (*site)(void *context, uint64_t scope, uint64_t id, const char *text, uint32_t len);
	/* each event, in time order (as timeline_add) */
	void (*event)(void *context, const struct timeline_event *e);
	/* where the efficiencies across MPI ranks are said (ranks_pop_figures; NULL: on the
	 * errors, among the converter's notes) */
	FILE *figures;
};

/* recording_convert's merge of the recordings, handed to `sink` (the analysis: analysis.h). */
bool recording_read(const struct recording_input *inputs, size_t n,
		    const struct recording_sink *sink, FILE *errors,
		    struct recording_totals *totals);
