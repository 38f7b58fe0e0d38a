// SPDX-License-Identifier: MIT
/*
 * What the recordings' reader (recording.h) keeps of them between its two passes, its "book",
 * and what its files share. The jobs:
 *	recording_scan.c    pass one: every file read and checked, chunk by chunk, record by
 *	                    record; its segments (process images), clocks, modules and sites kept
 *	recording_decode.h  a record's events as the probes would give them, per format version
 *	recording.c         pass two: the threads' records merged in time order into a timeline
 *	recording_census.c  the events the options keep, counted before anything is written
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "code_names.h"
#include "recording.h"
#include "table.h"
#include "taskprobe_recording.h"

/* A mapped recording's pages are given back to the kernel (MADV_DONTNEED: the page cache keeps
 * them, a later read maps them again) after pass one, and whenever the pages read since reach
 * this many bytes (struct pages): the converter's resident memory does not grow with the
 * recording, whatever order its chunks are read in. */
#define DROP_PAGES_EVERY (16u << 20)

/*
 * What is kept of the recordings, at most (about 100 MiB in all, with the names code_names.c
 * keeps of the code sites; the census beside a speedscope conversion copies the chunk refs and
 * segments: 25 MiB more at most). The recorder writes chunks of up to 256 KiB, a process image's
 * modules and sites once: a gigabyte of its recordings is a few thousand chunks, and a program
 * has thousands of sites, not hundreds of thousands.
 */
#define MAX_CHUNKS      (1u << 20) /* 16 bytes each, and a thread's cursor: 32 more */
#define MAX_SEGMENTS    (1u << 16) /* process images with records kept: 136 bytes each */
#define MAX_MODULES     (1u << 17) /* in all the segments: 72 bytes each */
#define MAX_PATHS_BYTES (8u << 20) /* the modules' paths, each text once */
#define MAX_CODE_SITES  (1u << 16) /* in all the segments: 32 bytes each, and a name */

/* Pids given to the second and later processes of a pid: above any Linux pid (2^22 at most). */
#define SYNTHETIC_PID 0x40000000u

/* A site of a segment kept as code (version 5): named once the segment is read whole. */
struct code_site {
	uint64_t id, address, module;
	unsigned kind;
};

/* A segment: one process image's header, the fit of its clock to nanoseconds, and its code. */
struct segment {
	uint32_t pid;
	uint64_t start_ticks, pid_namespace; /* with pid, its process (0: unknown, version 2) */
	char comm[16];
	uint64_t process; /* its process in the timeline: 1 + its number */
	uint32_t out_pid; /* its process's pid in the timeline */
	uint64_t scope;   /* its site ids' scope in the timeline: 1 + its index */
	uint32_t clock;
	uint32_t version;  /* its header's format version */
	int64_t offset_ns; /* added to its times: an MPI rank's clock aligned to the others' */
	bool has_chunks;   /* a chunk of it is kept */
	uint64_t first_time, first_ns; /* the pair with the smallest clock time ... */
	uint64_t last_time, last_ns;   /* ... and with the largest */
	long double slope;             /* ns per clock unit through them (set after pass one) */
	/* The slope in 2^-64 units, cut (below 1), for to_ns's integer reckoning; 0: none, to_ns
	 * reckons in long double. */
	uint64_t slope_fixed;
	size_t chunks;                   /* its whole chunks */
	struct recorded_module *modules; /* its modules, each number once */
	size_t n_modules;
	struct code_site *sites;
	size_t n_sites;
};

/* A whole chunk, checked: its segment (an index) and thread, kept here so that ordering the
 * chunks reads nothing of the input. Chunks are in the input's order by their segments
 * (numbered in that order), then by their addresses (a segment is in one input). */
struct chunk_ref {
	const struct tp_recording_chunk *header;
	uint32_t segment, tid;
};

/*
 * The mapped inputs' pages read since they were last given back (see DROP_PAGES_EVERY), counted
 * in blocks of MAP_BLOCK bytes: a fault maps the pages around it too (the kernel's fault-around,
 * 64 KiB), so a read anywhere in a block may map all of it. Blocks read lately are remembered
 * (`seen`, by their number's low bits), not counted again until the pages are given back.
 */
#define MAP_BLOCK (64u << 10)

#define MAP_SEEN 64

struct pages {
	const struct recording_input *inputs;
	size_t n;
	unsigned shift;           /* a block is 1 << shift bytes: MAP_BLOCK, or a larger page */
	uintptr_t last;           /* the block read last */
	uint64_t mapped;          /* bytes of the blocks read since */
	uintptr_t seen[MAP_SEEN]; /* 1 + the blocks counted since */
};

/* The modules' paths, each text once (every image loads the same libraries): NUL-terminated in
 * `pool` (offset 0: the empty path), found by an open-addressed table of offsets (0: free). */
struct paths {
	char *pool;
	size_t len, cap;
	struct table offsets; /* of uint32_t offsets in the pool */
};

/* The bounds, each said once when met. */
enum bound { FULL_CHUNKS, FULL_SEGMENTS, FULL_MODULES, FULL_PATHS, FULL_SITES, BOUNDS };

/* What pass one keeps of the inputs. */
struct book {
	struct segment *segments;
	size_t n_segments;
	struct chunk_ref *refs;
	size_t n_refs, cap_refs;
	size_t n_modules, n_sites; /* kept in all the segments */
	struct paths paths;
	struct pages pages;
	const char *input; /* the input being read, and where: for messages */
	size_t at;
	bool full[BOUNDS];
	struct ranks *ranks; /* the MPI ranks' records */
	/* the module numbers kept of the segment being read */
	uint8_t numbers[TP_RECORD_MODULES_MAX / 8 + 1];
};

/* The recordings read (recording.h): pass one's book, and what it counted. */
struct recordings {
	struct book *book;
	struct recording_totals totals;
};

/* ---- recording.c ---- */

/* ---- recording_scan.c ---- */

/* A book for reading `inputs`; NULL when out of memory. */
struct book *book_new(const struct recording_input *inputs, size_t n);
void book_free(struct book *b);
/* Pass one over every input, the timeline told the sites unless NULL (else `sink`, unless NULL);
 * false when out of memory. */
bool scan_all(struct timeline *t, const struct recording_sink *sink,
	      const struct recording_input *inputs, size_t n, FILE *errors,
	      struct recording_totals *totals, struct book *b);
/* Names every segment's code sites (code_names.h), each handed to `site` with its scope; false
 * when out of memory. */
bool name_code_sites(const struct segment *segments, size_t n,
		     void (*site)(void *context, uint64_t scope, uint64_t id, const char *text,
				  uint32_t len),
		     void *context);
/* Gives the mapped inputs' pages back to the kernel (see DROP_PAGES_EVERY). */
void drop_pages(const struct recording_input *inputs, size_t n);
/* The pages were given back: what is read next is counted anew. */
void pages_dropped(struct pages *p);
/* Counts blocks [first, last] of the inputs (pages_read). */
void pages_read_blocks(struct pages *p, uintptr_t first, uintptr_t last);
/* Segment `s`'s slope (and its fixed point), once its clock pairs are all read. */
void segment_slope(struct segment *s);
/* A segment's time in its own clock's nanoseconds, for the ranks' alignment. */
uint64_t segment_ns(const void *segments, uint32_t segment, uint64_t time);
/* Appends `size`-byte `item` to *array of *n, grown at powers of two; false when out of memory. */
bool append(void *array, size_t *n, const void *item, size_t size);

/* Before `bytes` (1 or more) at `at` of the inputs are read: counted, and the pages read so far
 * given back first when they reach DROP_PAGES_EVERY. (Inline always, the link-time optimiser
 * too: called for every record, it costs a call more than its usual test.) */
static inline __attribute__((always_inline)) void pages_read(struct pages *p, const void *at,
							     size_t bytes)
{
	uintptr_t first = (uintptr_t)at >> p->shift, last = ((uintptr_t)at + bytes - 1) >> p->shift;
	/* a block counted already, here (the merge reads the threads' chunks by turns) */
	if (last == first && (first == p->last || p->seen[first % MAP_SEEN] == first + 1))
		p->last = first;
	else
		pages_read_blocks(p, first, last);
}

/* to_ns_unaligned in long double (recording_scan.c): where its integer reckoning cannot tell. */
uint64_t to_ns_long_double(const struct segment *s, uint64_t time);

/*
 * A record time of segment `s` in nanoseconds, on the line through its first and last pairs (in
 * long double, whose 64-bit mantissa keeps nanoseconds; any input gives a number, clamped).
 *
 * Reckoned in integers where that gives the long double's nanosecond, for speed (the long double
 * path cost the converter a sixth of its time). With d = time - first_time, the exact value V =
 * first_ns + d * slope is at most d / 2^64 above first_ns + d * slope_fixed / 2^64, whose whole
 * nanoseconds `ns` and fraction (in 2^-64 units) the 128-bit product gives. The long double
 * result is within 2^(b-64) of V, b the bits of ns + 1 (two roundings to a 64-bit mantissa, each
 * within half a unit in the last place of numbers below 2^b): cut to whole nanoseconds it is ns,
 * unless V's fraction is within 2^(b-63) of a whole nanosecond: then, about once in 2^17 events,
 * the long double path.
 */
static inline uint64_t to_ns_unaligned(const struct segment *s, uint64_t time)
{
	/* slope_fixed: a TSC's segment of two pairs or more, first_ns below 2^61; and d below
	 * 2^61: whole, below d, leaves ns below 2^62 */
	uint64_t d = time - s->first_time;
	if (s->slope_fixed != 0 && time >= s->first_time && d < 1ull << 61) {
		unsigned __int128 product = (unsigned __int128)d * s->slope_fixed;
		uint64_t fraction = (uint64_t)product, ns = s->first_ns + (uint64_t)(product >> 64);
		unsigned bits = 64 - (unsigned)__builtin_clzll(ns + 1); /* at most 62 */
		uint64_t margin = 2ull << bits; /* 2^(b-63), in 2^-64 units */
		if (fraction >= margin && fraction <= -(margin + d))
			return ns;
	}
	if (s->clock == TP_CLOCK_MONOTONIC)
		return time;
	if (s->last_time <= s->first_time)
		return s->first_ns;
	return to_ns_long_double(s, time);
}

/* As to_ns_unaligned, moved by the segment's offset (ranks.h), clamped. */
static inline uint64_t to_ns(const struct segment *s, uint64_t time)
{
	uint64_t ns = to_ns_unaligned(s, time);
	if (s->offset_ns < 0)
		return ns > (uint64_t)-s->offset_ns ? ns - (uint64_t)-s->offset_ns : 0;
	return UINT64_MAX - ns > (uint64_t)s->offset_ns ? ns + (uint64_t)s->offset_ns : UINT64_MAX;
}
