// SPDX-License-Identifier: MIT
/*
 * The ranks of an MPI job in one timeline (the MPI adapter's records: mpi-init, mpi-send,
 * mpi-recv, and MPI waits): each process that says its rank is named "rank N (HOST)" and ordered
 * by rank; the ranks' clocks, unrelated on different hosts, are aligned (by MPI_Init's and
 * MPI_Finalize's ends, then moved so that no message is received before it was sent); each
 * message is a flow from its send to its receive. Recordings of two jobs are refused.
 *
 * recording.c hands every MPI record to ranks_note in its first pass, then each segment's
 * process (ranks_segment), then asks ranks_align for each segment's offset, and hands the merged
 * events to ranks_event, then calls ranks_finish. ranks_align says the efficiencies across the
 * ranks (ranks_pop.h), ranks_finish the hybrid ones of MPI and OpenMP.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "scaling.h"
#include "taskprobe_recording.h"
#include "timeline.h"

struct ranks;

/* NULL when out of memory. */
struct ranks *ranks_new(void);
void ranks_free(struct ranks *r);

/* Record `rec` (checked) of thread `tid` of segment `segment`, at `time` in that segment's
 * clock, from file `input`, in the file's order. False when out of memory. */
bool ranks_note(struct ranks *r, uint32_t segment, uint32_t tid, uint64_t time,
		const struct tp_record *rec, const char *input);

/* Segment `segment` is of process `process` (recording.c's numbering), shown as `pid`. */
bool ranks_segment(struct ranks *r, uint32_t segment, uint64_t process, uint32_t pid);

/* Whether `segment` holds a rank's MPI_Init: its process is named by ranks_align, not by
 * recording.c. */
bool ranks_names(const struct ranks *r, uint32_t segment);

/*
 * Aligns the ranks' clocks: `to_ns` gives a segment's time in its own nanoseconds. Names the
 * ranks' processes in `t` (unless NULL), says on `errors` what was aligned and how well, which
 * ranks are missing or end early, and the efficiencies across ranks on `figures`
 * (ranks_pop_figures: NULL, on `errors`). False with *refused set when the recordings are of
 * several jobs (said on `errors`); false alone when out of memory.
 */
bool ranks_align(struct ranks *r, struct timeline *t,
		 uint64_t (*to_ns)(const void *context, uint32_t segment, uint64_t time),
		 const void *context, FILE *errors, FILE *figures, bool *refused);

/* The nanoseconds to add to segment `segment`'s times (0 when not a rank's). */
int64_t ranks_offset(const struct ranks *r, uint32_t segment);

/* Whether no process of the recordings is a rank: ranks_event then does nothing. */
bool ranks_none(const struct ranks *r);

/* Event `e` of the merge (after timeline_add, or handed to the analysis: t NULL): a message's
 * flow end, in `t`; a rank's polls and MPI waits, for the hybrid efficiencies. False when out
 * of memory. */
bool ranks_event(struct ranks *r, struct timeline *t, const struct timeline_event *e);

/* Every event of the merge was handed to ranks_event: says the hybrid efficiencies of MPI and
 * OpenMP (ranks_pop.h) on `figures` (ranks_pop_figures: NULL, on `errors`); the job's basis for
 * a comparison of runs in `*job` (ranks_pop_basis). */
void ranks_finish(struct ranks *r, FILE *errors, FILE *figures, struct scaling_basis *job);
