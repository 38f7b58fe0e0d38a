// SPDX-License-Identifier: MIT
/*
 * The unit test one_engine's driver (test_one_engine.c): each event of a made-up stream fed to
 * both engines at once, the recording's analysis (analysis.h, as recording_read hands events
 * over) and the live statistics' (work_span.h, called as live.c calls it), and their figures
 * compared. Times are milliseconds from the stream's start; ids as test_stream.h gives them.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "test_stream.h"

#define N      16      /* tasks (ids 1 to N - 1) and threads (tids 1 to N - 1); site ids are rows */
#define WORKER (N - 1) /* a worker's implicit task: the last id, far from the others */
/* the last site id the streams use (each site's row is its id; a task without one, OpenMP's
 * initial task, has live.c's row for it, TP_LIVE_NO_SITE) */
#define LAST_SITE STEP_C

void one_engine_setup(void);
void one_engine_teardown(void);

/*
 * Task `task` of site `site` spawned by `parent` (0: none) on thread `tid`: with neither,
 * OpenMP's initial task; with a site and no parent, a worker's implicit task of the region of
 * that site, which starts after the region's fork, or the initial task's code so far when its
 * primary has not spawned its own yet (live.c's span_spawned and initial_so_far). The primary's
 * implicit task (a site, a parent) publishes the fork. `undeferred`: run at its spawn.
 * `nestable`: the program spawned it without dependences (version 12's spawn, woken by its parent
 * at once: tp_span_first_poll_nests).
 */
void both_spawn_of(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent, uint32_t site,
		   bool undeferred, bool nestable);
void both_spawn_at(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent, uint32_t site);
/*
 * The implicit task `task` of a parallel construct's site `site` whose team is of one thread,
 * spawned by `parent` polled on thread `tid` (libomp runs it there, `parent` switched out), in a
 * stream that says which tasks the program spawned (OpenMP's adapter, recording version 16).
 */
void both_team_of_one(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent, uint32_t site);
/* A task spawned in such a stream: the program's (`by_program`; created undeferred by OpenMP's
 * initial task outside every region, and woken at once), else the executor's (an implicit
 * task, or OpenMP's initial task). */
void both_spawn_told(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent, uint32_t site,
		     bool by_program);
/*
 * OpenMP's initial task, polled on thread 1, forks a region of site REGION at `ms`: the worker's
 * implicit task (WORKER, thread 2) reported first and polled, then the primary's (task 2), which
 * thread 1 polls in the initial task's place.
 */
void both_fork(uint64_t ms);
/* That region's barrier, which both its implicit tasks reach at `ms`, completes at once: they
 * end, and thread 1 polls the initial task again. */
void both_join(uint64_t ms);
/* A task of the task construct (OpenMP's initial task without a parent). */
void both_spawn(uint32_t tid, uint64_t ms, uint64_t task, uint64_t parent);
/* `successor` (not polled yet) starts after `predecessor`'s end (not ended yet). */
void both_dependence(uint32_t tid, uint64_t ms, uint64_t predecessor, uint64_t successor);
/* A poll of `task` starts on thread `tid`. */
void both_start(uint32_t tid, uint64_t ms, uint64_t task);
/* The poll of `task` ends: done, or waiting in `sync` (0: switched out) at the construct `site`. */
void both_end(uint32_t tid, uint64_t ms, uint64_t task, bool done, unsigned sync, uint64_t site);
/* `task`, polled on `tid`, acquires the critical section's object (LOCK), or releases it. */
void both_acquire(uint32_t tid, uint64_t ms, uint64_t task);
void both_release(uint32_t tid, uint64_t ms, uint64_t task);

/*
 * Thread `tid`, polling a task, waits in an MPI call from `from_ms` to `to_ms` (wait-start and
 * wait-end of the MPI kind): its fragment pauses (work_span.h's tp_span_wait_pauses, live.c's
 * live_fragment_pauses and live_fragment_resumes).
 */
void both_mpi_wait(uint32_t tid, uint64_t from_ms, uint64_t to_ms);

/*
 * The program's image starts at `ms` (the recording's TIMELINE_IMAGE_START, live.c's
 * ns_at_start), before any event; and thread `tid`, polling no task, waits in an MPI call from
 * `from_ms` to `to_ms` (MPI_Init's, say: live.c's local.waited_to). OpenMP's initial task's first
 * poll starts at the later of the two ends (tp_span_initial_start).
 */
void both_image_start(uint64_t ms);
void both_wait_outside(uint32_t tid, uint64_t from_ms, uint64_t to_ms);

/* Both engines' threads' computation the same: the most and the average, in ms. */
void expect_computation(uint64_t maximum_ms, uint64_t average_ms);

/* Both engines' figures the same: work, span (`span_ms`, the known answer), burdened span,
 * placed path, the span's fragments, each site's time and fragments on the span, each sync
 * site's time waited and waits, each barrier's phases. */
void expect_one_answer(uint64_t span_ms);
/* The live engine's time waited at sync site `site` in `sync` (enum tp_sync_kind): `ms`, in
 * `count` waits (expect_one_answer checks that --analyze says the same). */
void expect_waited(uint32_t site, unsigned sync, uint64_t ms, uint64_t count);
/* The live engine's phases of the barrier at sync site `site` (sync_waited.h): two threads passed
 * it, having computed `least_ms` and `most_ms` before it (expect_one_answer checks that
 * --analyze says the same). */
void expect_phases(uint32_t site, uint64_t least_ms, uint64_t most_ms);
/* The analysis's report (analysis_report's text: to free). */
char *analysis_text(void);
/* The same, for a graph whose work is known too: `work_ms`. */
void expect_known_graph(uint64_t work_ms, uint64_t span_ms);
