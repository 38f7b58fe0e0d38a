// SPDX-License-Identifier: MIT
/*
 * Made-up event streams for the analysis's unit tests (test_pop_conv.c, test_one_engine.c): one
 * event of the synthetic process, as recording_read hands events to analysis_add.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>

#include "analysis.h"
#include "taskprobe_contract.h"

#define STREAM_PID 4242u      /* the synthetic process's pid, its sites' scope */
#define MS         1000000ull /* a unit of the streams: 1 ms */
#define START_NS   (1000 * MS)
#define INITIAL    1u      /* OpenMP's initial task's id */
#define REGION     1u      /* the parallel construct's site id */
#define TASKS      2u      /* the task construct's */
#define CRITICAL   3u      /* a critical construct's */
#define TASKWAIT   4u      /* a taskwait's (or taskgroup's, barrier's) */
#define LOCK       0x5000u /* the critical construct's object */
#define INNER      5u      /* a parallel construct's nested in another's */
#define STEP_A     6u      /* three more parallel constructs: a time step's regions */
#define STEP_B     7u
#define STEP_C     8u

/* An analysis of the synthetic process, its sites named. */
static inline struct analysis *stream_analysis(void)
{
	struct analysis *a = analysis_new(SIZE_MAX);
	if (a == NULL)
		return NULL;
	analysis_site(a, STREAM_PID, REGION, "main (synthetic.c:10)", 21);
	analysis_site(a, STREAM_PID, TASKS, "main (synthetic.c:20)", 21);
	analysis_site(a, STREAM_PID, CRITICAL, "main (synthetic.c:30)", 21);
	analysis_site(a, STREAM_PID, TASKWAIT, "main (synthetic.c:25)", 21);
	analysis_site(a, STREAM_PID, INNER, "main (synthetic.c:40)", 21);
	analysis_site(a, STREAM_PID, STEP_A, "main (synthetic.c:50)", 21);
	analysis_site(a, STREAM_PID, STEP_B, "main (synthetic.c:60)", 21);
	analysis_site(a, STREAM_PID, STEP_C, "main (synthetic.c:70)", 21);
	return a;
}

/*
 * Event `type` of thread `tid` at `ms` into the stream, its first four arguments; a spawn is
 * OpenMP's, of a task created undeferred when `undeferred`, spawned by the program when
 * `by_program`, which the stream says when `spawner_known` (a recording of version 16 on: a
 * team of one's implicit tasks created undeferred too).
 */
static inline void stream_event_of(struct analysis *a, unsigned type, uint32_t tid, uint64_t ms,
				   int64_t a0, int64_t a1, int64_t a2, int64_t a3, bool undeferred,
				   bool by_program, bool spawner_known)
{
	struct timeline_event e = {.pid = STREAM_PID,
				   .tid = tid,
				   .ns = START_NS + ms * MS,
				   .type = type,
				   .undeferred = undeferred,
				   .by_program = by_program,
				   .spawner_known = spawner_known,
				   .teams_known = spawner_known};
	snprintf(e.comm, sizeof e.comm, "%s", "synthetic");
	e.arg[0] = a0;
	e.arg[1] = a1;
	e.arg[2] = a2;
	e.arg[3] = a3;
	if (type == TP_RECORD_TASK_SPAWN)
		e.arg[5] = TP_EXECUTOR_OPENMP;
	analysis_add(a, &e);
}

/* The same, of no task created undeferred, nor spawned by the program (as before version 12). */
static inline void stream_event(struct analysis *a, unsigned type, uint32_t tid, uint64_t ms,
				int64_t a0, int64_t a1, int64_t a2, int64_t a3)
{
	stream_event_of(a, type, tid, ms, a0, a1, a2, a3, false, false, false);
}

/* analysis_report's text (to free; NULL: no memory). */
static inline char *stream_report(struct analysis *a)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	if (out == NULL)
		return NULL;
	analysis_report(a, out, false);
	fclose(out);
	return text;
}

/* The region of interest's line as the report says it, marked by `by` (a string literal). */
#define ROI_LINE(by) "region of interest: " by " (the factors; the rest: the whole run)\n"
