// SPDX-License-Identifier: MIT
/*
 * perf script output of the taskprobe events, turned into Trace Event Format JSON (what
 * chrome://tracing, Perfetto and speedscope load): one track per thread with poll, park and wait
 * slices; a track per task from spawn to its end; a flow arrow from each spawn to the task's
 * first poll; per process three counter tracks (tasks alive, tasks ready, workers busy). Or, in
 * speedscope's own file format (TIMELINE_SPEEDSCOPE), a profile per thread of its slices only,
 * a tenth the size. Tasks and threads are told apart by their process and id (perf's text: its
 * pid). It streams, in bounded memory: at most TIMELINE_MAX_TASKS tasks alive and
 * TIMELINE_MAX_THREADS threads are kept (beyond them the oldest are forgotten, and counted).
 *
 * Input: lines of `perf script -F comm,pid,tid,time,event,trace`, such as
 *	omp_latency 10060/10062 11927.194745: sdt_taskprobe:task__spawn: (7f76..) arg1=1025 arg2=0 ...
 * Arguments are numbers, or strings ("TEXT"; (fault) when unread): task__spawn's arg4, its site's
 * text, names the task's slices and track (else "site S", or "(no site: initial tasks)" with no
 * site, as the console names them): a slice's name is its site, or its wait's kind, alone; its
 * task, site or object are its end event's arguments, never its begin's (speedscope would make
 * a frame of each task).
 * Lines of other events are skipped; a line that is not a perf script sample is reported with
 * its number and skipped; a sample line repeating the one just before it is dropped.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "taskprobe_recording.h"

struct timeline;

/*
 * An event no probe fires: a recording segment's start (its header's time: the shim's start in
 * the image, or the fork's in a child), handed to a recording_sink (the analysis) before the
 * segment's events, on its main thread; never to a timeline. Above every record type.
 */
#define TIMELINE_IMAGE_START 0x100u

/* One event as the converter takes it, from perf's text or from a recording. */
struct timeline_event {
	char comm[64]; /* the thread's name */
	uint32_t pid, tid;
	uint64_t ns;
	unsigned type;  /* enum tp_record_type: the probe */
	int64_t arg[6]; /* the probe's arguments, in its order; 0 for a string */
	/* the text of argument `text_arg` (1 to 6; 0: none) when it is a string: `text_len` bytes
	 * at `text` (task-spawn's site, its fourth); a string perf could not read is none */
	const char *text;
	uint32_t text_len;
	uint8_t text_arg;
	/* whose site ids these are, when not the pid's (a recording: its segment, an exec keeping
	 * the pid but starting its ids again), as given to timeline_site; 0: the pid's */
	uint64_t site_scope;
	/* which process (a recording's pid, start and pid namespace, numbered); 0: the pid is.
	 * `pid` is what the timeline shows, unique per process */
	uint64_t process;
	/* task-spawn of a recording: the task was created undeferred, the program spawned it
	 * (an explicit task: version 12 on, `spawner_known`; taskprobe_recording.h); a team of
	 * one's implicit task is created undeferred (version 16 on, `teams_known`) */
	bool undeferred, by_program, spawner_known, teams_known;
	/*
	 * thread-start of a recording: its start routine's site id (of site_scope; 0: none), and
	 * whether the thread's name is its process's (it set none: named by its start routine)
	 */
	uint64_t start_routine_site;
	bool named_as_process;
};

/* What a timeline holds so far. */
struct timeline_counts {
	uint64_t events;  /* converted */
	uint64_t tasks;   /* spawned */
	uint64_t workers; /* started */
	uint64_t threads; /* tracks */
	uint64_t waits;   /* slices */
	/* bounded memory: tasks alive beyond TIMELINE_MAX_TASKS, threads beyond
	 * TIMELINE_MAX_THREADS, forgotten (the oldest tasks; threads with no slice open first);
	 * speedscope profiles beyond TIMELINE_MAX_PROFILES threads not written */
	uint64_t tasks_forgotten, threads_forgotten, threads_unprofiled;
	/* site texts not kept (their sites named by their ids): past TIMELINE_MAX_SITES sites, or
	 * TIMELINE_MAX_NAMES_BYTES of texts */
	uint64_t site_texts_refused;
	uint64_t written; /* events (JSON) or samples (speedscope) written */
};

#define TIMELINE_MAX_TASKS       (1u << 19)
#define TIMELINE_MAX_THREADS     (1u << 16)
#define TIMELINE_MAX_PROFILES    4096u
#define TIMELINE_MAX_SITES       (1u << 18)
#define TIMELINE_MAX_NAMES_BYTES (32u << 20)
/* A counter track's samples: at most one per this many nanoseconds (see write_chrome.c) */
#define TIMELINE_COUNTER_NS 100000u

enum timeline_format {
	TIMELINE_TRACE_EVENTS, /* Trace Event Format JSON */
	TIMELINE_SPEEDSCOPE,   /* speedscope's file format: sampled profiles, one per thread */
};

/* What to write: all of it by default (zeroed, to_ns UINT64_MAX). */
struct timeline_options {
	enum timeline_format format;
	/* the window, in nanoseconds from the first event: slices cut by it are clipped to it */
	uint64_t from_ns, to_ns;
	const char *const *sites; /* substrings of site texts: their tasks' polls and tracks */
	size_t n_sites;
	const uint64_t *tids; /* threads: their tracks */
	size_t n_tids;
	/* a track per process named "critical path" (TIMELINE_PATH_TID; speedscope: a profile):
	 * the fragments of its task graph's critical path (analysis.h), each named by its site,
	 * whatever the site and thread filters keep, clipped to the window (the path through what
	 * ended by its end: later events are not read). Computed from the events timeline_add is
	 * given (recordings), not perf's text; written at the end. */
	bool critical_path;
};

/* The critical path track's thread id in the Trace Event Format: above any Linux tid
 * (PID_MAX_LIMIT is 2^22). */
#define TIMELINE_PATH_TID 4194304u

/* A converter writing to `out` (options: NULL for all of it, as JSON); NULL when out of memory.
 * `out` may be NULL until timeline_output, when site texts come before it is known whether
 * anything is written (the recordings' census: recording.h). */
struct timeline *timeline_new(FILE *out, const struct timeline_options *options);
/* The output of a timeline made without one, before anything else than timeline_site. */
void timeline_output(struct timeline *t, FILE *out);

/* Whether the window has ended (or the timeline was abandoned): later events change nothing
 * written. */
bool timeline_done(const struct timeline *t);
/* The timeline will not be written (timeline_discard): timeline_done from now on. Called from
 * any thread (the one that finds the output over --max-size beside the conversion). */
void timeline_abandon(struct timeline *t);

/* One line of input (without its newline); `number` counts from 1. Returns 0; 1 when the line
 * is byte for byte the sample line just before it (perf sometimes writes a sample twice), which
 * is dropped; or -1 when the line is malformed (said on `errors` for the first 10 of them). */
int timeline_feed(struct timeline *t, const char *line, size_t len, uint64_t number, FILE *errors);

/* The text of site `id` of `scope` (a timeline_event's site_scope), for the spawns that follow. */
void timeline_site(struct timeline *t, uint64_t scope, uint64_t id, const char *text, uint32_t len);

/* One event of a recording (not perf's text), in time order with the others. */
void timeline_add(struct timeline *t, const struct timeline_event *e);

/*
 * Whether a task's wake or terminate that is not its thread's first event changes nothing in
 * `t` but its count of events and its latest time, of an input of at most `threads` threads: a
 * merge may then leave them out (timeline_left_out).
 */
bool timeline_takes_no_task_instants(const struct timeline *t, size_t threads);

/* `n` events left out (timeline_takes_no_task_instants), the latest at `ns`. */
void timeline_left_out(struct timeline *t, uint64_t n, uint64_t ns);

/* Names process `pid` in the timeline (a "process_name" metadata event). */
void timeline_process_name(struct timeline *t, uint32_t pid, const char *name);

/* Orders process `pid` among the others (a "process_sort_index" metadata event: lower first). */
void timeline_process_sort(struct timeline *t, uint32_t pid, int64_t index);

/* A flow's start (`start`) or end at event `at`'s thread and time, of category `cat` (its name
 * too) and id `id` (plain text: no quote or backslash): its slice there is its end. */
void timeline_flow(struct timeline *t, const struct timeline_event *at, bool start, const char *cat,
		   const char *id);

void timeline_counts(const struct timeline *t, struct timeline_counts *counts);

/* Says on `out` each --thread value that matched no thread of the input so far, and each --site
 * value no task's site; returns how many. */
size_t timeline_unmatched(const struct timeline *t, FILE *out);

/* `count` events of e's thread were not recorded before e->ns: said on its track. */
void timeline_dropped(struct timeline *t, const struct timeline_event *at, uint64_t count);

/* A new temporary file (mode 0600, in $TMPDIR or /tmp), unlinked already; -1 with errno. */
int timeline_temp_file(void);

/* Closes the slices still open at the last timestamp, ends the JSON, frees `t`. Returns the
 * number of malformed lines in all; *counts (unless NULL) what the timeline held. False in
 * *ok when out of memory or the speedscope format's spill file failed. */
uint64_t timeline_finish(struct timeline *t, struct timeline_counts *counts, bool *ok);
/* Frees `t`, writing nothing more (a timeline not written: over --max-size). */
void timeline_discard(struct timeline *t);

/*
 * Threads a conversion runs on (a recording's census and merge, speedscope's writing):
 * TASKPROBE_TIMELINE_THREADS (1 or 2; any other value said, and ignored), else 2 where this
 * process may run on two CPUs or more (on one, a second thread would only take turns with the
 * first).
 */
unsigned converter_threads(void);
