// SPDX-License-Identifier: MIT
/*
 * Reading a process's live statistics (dtrace/taskprobe_live.h) into snapshots: the sites'
 * figures summed over the threads' rows, the workers' shares of an interval, the warnings.
 * Knows nothing of the terminal: the console's top_*.c show what this computes. Its files, by
 * job: live_process.c (whose a file is: the processes, from /proc), live_open.c (finding,
 * checking and opening a file), live_snapshot.c (reading one into a snapshot), live_merge.c (a
 * construct's call addresses one site), live_format.c (a snapshot's figures in words, its sites
 * sorted), live_text.c (text made safe for a terminal).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "taskprobe_figures.h"

/* A site with no task ended this long after its first spawn, and tasks alive: "none ended". */
#define LIVE_NONE_ENDED_NS 1000000000ull

/*
 * The file is another process's, in memory it may change at any moment: the console trusts it
 * only as far as it checked it. `header` is the header as read and checked once at open (the
 * layout's sizes and offsets, whose process it is): nothing structural is read from the map
 * again, and every value read from the map is copied once, then checked, then used. Text is read
 * within its field's size and escaped (live_escape) before anything prints it.
 */
struct live_file {
	const char *map; /* read-only, `size` bytes */
	uint64_t size;
	int fd; /* kept open: its size is looked at before every snapshot */
	struct tp_live_header header;
	char path[4096];
	dev_t dev;
	ino_t ino;
	pid_t pid;
};

enum live_open_result {
	LIVE_OPENED,
	LIVE_MISSING, /* no file (yet): not started with live statistics, or not yet started */
	LIVE_FOREIGN, /* not the process's owner's */
	LIVE_BAD,     /* not a live statistics file of this version, or damaged */
	LIVE_STALE,   /* another process's: an earlier one with the pid (its next may replace it) */
};

/*
 * Opens the live statistics of `pid` in `dir` (NULL: where the shim of that process puts them,
 * from its environment: TASKPROBE_LIVE_DIR, $XDG_RUNTIME_DIR/taskprobe, /dev/shm/taskprobe-UID
 * and /dev/shm/taskprobe-UID.*, the same in $TMPDIR and /tmp; taskprobe_live.h). Only a file of
 * the process's owner (of the caller, when the process is gone) whose header names the process
 * (pid, pid namespace, start time) is opened. `why` gets a sentence for anything but LIVE_OPENED.
 */
enum live_open_result live_open(struct live_file *f, pid_t pid, const char *dir, char *why,
				size_t why_size);
void live_close(struct live_file *f);

/*
 * A process id: digits only, 1 to the kernel's pid_max (INT_MAX when unknown). False for
 * anything else ("+7", " 7", "4294967303").
 */
bool live_parse_pid(const char *text, pid_t *pid);

/*
 * `len` bytes of `in` (up to a NUL) as text safe for a terminal, into `out` (NUL-terminated, cut
 * between characters when `size` is short): shown_text.h's escaping, valid UTF-8 kept when
 * live_text_utf8 said the terminal takes it, a newline kept when `keep_newlines`. Returns the
 * length.
 */
size_t live_escape(char *out, size_t size, const char *in, size_t len, bool keep_newlines);
/* Whether live_escape keeps valid UTF-8 (the locale's codeset is UTF-8); false at first. */
void live_text_utf8(bool utf8);

/* Escaped text of a live file's fields: at most four characters a byte (\xNN). */
#define LIVE_SHOWN(bytes)     (4 * (bytes) + 1)
#define LIVE_STACK_TEXT_SHOWN 8192 /* a stack's named frames; longer ones are cut */

/* The tasks the process has spawned so far (summed over its threads' rows); 0 if unreadable. */
uint64_t live_spawned(const struct live_file *f);
/* The process's MPI rank in MPI_COMM_WORLD, in `*rank`, once its MPI_Init ended; false before,
 * or for a process of no MPI job (or a file that can no longer be read). */
bool live_mpi_rank(const struct live_file *f, uint32_t *rank);

/*
 * The process's MPI figures for its job's line (taskprobe_mpi_job.h's, at its now), and its job's
 * and host's identities; false before its MPI_Init ended, for a process of no MPI job, or a file
 * no longer read whole.
 */
struct tp_live_mpi_rank;
bool live_mpi_job_rank(const struct live_file *f, struct tp_live_mpi_rank *rank, uint64_t *job,
		       uint64_t *host);
/*
 * The line of the MPI job whose rank `f` is (taskprobe_mpi_job.h's words), from every rank of
 * that job with statistics in `dir` (the run's; NULL: the directory of `f`'s file); empty when
 * `f` is no rank, or fewer than two ranks are read.
 */
void live_mpi_job_words(const struct live_file *f, const char *dir, char *out, size_t size);

/* Whether process `pid` is gone (killed, or ended and reaped). */
bool live_process_gone(pid_t pid);
/*
 * Whether process `pid`, which started at `start_ticks` (/proc/PID/stat's starttime), has ended:
 * gone, a zombie, or the pid another process's now (when `start_ticks` is known, not 0).
 */
bool live_process_ended(pid_t pid, uint64_t start_ticks);

/*
 * Removes the statistics of `pid`, a process of the caller's that started at `start_ticks` and
 * has ended, from where its shim put them (live_open's places, by the caller's environment and
 * working directory: the process's at start), where its shim could not remove them (killed by a
 * signal, exec'ed into a program without the shim, its privileges dropped). Only a file of the
 * caller's whose header names that very process (pid, pid namespace, start time), not one kept
 * on purpose (TASKPROBE_LIVE=keep). Whether it removed one.
 */
bool live_remove_ended(pid_t pid, uint64_t start_ticks);
/*
 * Removes, from the places live_open looks in (by the caller's environment), the statistics of
 * every process of the caller's that has ended, not kept on purpose: those of a run's children
 * killed by a signal (a multiprocessing pool's workers), which only the next process with
 * statistics there would have removed.
 */
void live_remove_all_ended(void);

/* Which of a run's processes live_open_child opens (only ones that spawned a task, and MPI
 * ranks: a rank of a program of MPI alone spawns none, its threads and waits are its figures). */
enum live_choice {
	LIVE_BUSIEST,       /* the one that spawned the most (of equals, the first by rank) */
	LIVE_FIRST_STARTED, /* the one whose statistics began first */
	/* a user's choice of another than `from`, in a circle: the next after it (an MPI job's
	 * ranks by rank, then the others in the order they started), or the one before it */
	LIVE_NEXT,
	LIVE_PREVIOUS,
};

/* A process's statistics, told apart from an earlier process with its pid (or image: exec). */
struct live_id {
	pid_t pid;
	uint64_t started_ns; /* the header's ns_at_start */
};
struct live_id live_id(const struct live_file *f);
/* Whether `id` is one of the `n` in `ids`. */
bool live_id_listed(struct live_id id, const struct live_id *ids, size_t n);

/*
 * Of the processes with statistics in `dir` other than the `n_except` in `except`, opens the one
 * `choice` says, if any has spawned a task or is an MPI rank: a run's directory holds its
 * program's children's statistics too (a script that starts the program as a child, mpirun).
 */
bool live_open_child(struct live_file *f, const char *dir, const struct live_id *except,
		     size_t n_except, enum live_choice choice, const struct live_file *from);

/*
 * Each process's statistics in `dir` that live_open opens, handed to `visit`, which says whether
 * it keeps the file (else it is closed).
 */
typedef bool live_visit(struct live_file *f, void *context);
void live_each_in_dir(const char *dir, live_visit *visit, void *context);

/* Whether the file at the path is no longer the one mapped (an exec made a new one). */
bool live_replaced(const struct live_file *f);

/* Warnings of a site (struct site_view's warnings). */
enum {
	WARN_LONG_POLLS = 1,    /* polls of at least the long-poll threshold */
	WARN_BLOCKS = 2,        /* tasks waited (blocking their worker) inside a poll */
	WARN_NONE_ENDED = 4,    /* the program's tasks alive, none ended, for LIVE_NONE_ENDED_NS */
	WARN_LONG_POLL_NOW = 8, /* a poll going on now is already long */
	WARN_TOO_SMALL = 16,    /* its tasks are too small for their cost (tp_live_too_small) */
};

struct site_view {
	uint32_t row;
	uint32_t site_id;
	bool by_executor; /* the executor's own tasks (they live as long as their region) */
	uint64_t address; /* the spawn call's return address, named into text; 0: text as read */
	uint32_t module;
	char text[LIVE_SHOWN(TP_LIVE_SITE_TEXT)]; /* escaped */
	uint64_t spawned, done, alive, polls, busy_ns, idle_ns, delay_ns, delays;
	uint64_t longest_poll_ns, long_polls, blocking_waits, blocking_ns;
	uint64_t first_spawn_ns;
	uint64_t delay_p50_ns, delay_p99_ns, poll_p50_ns, poll_p99_ns;
	uint64_t poll_histogram[TP_LIVE_BUCKETS], delay_histogram[TP_LIVE_BUCKETS];
	/* its ended tasks' times (their polls added up), the gaps between spawns of its tasks in
	 * one poll (the spawn cost) and the delays before its tasks' first polls
	 * (tp_live_start_delay), and their medians: the verdict's */
	struct tp_live_costs costs;
	uint64_t task_p50_ns, spawn_p50_ns, start_p50_ns;
	uint32_t polling_now;    /* threads polling its tasks now */
	uint64_t longest_now_ns; /* the longest of those polls so far */
	unsigned warnings;
	/* its tasks' time and fragments on the span's path (struct live_snapshot's `longest`) */
	uint64_t path_ns, path_fragments;
	bool path_at_least; /* path_ns is what it ran since it was kept again (a lower bound) */
	/* a parallel region's (the executor's tasks, by_executor): the load balance of the
	 * threads that ran it, its computation, its threads (0: none ran it) */
	struct tp_live_region region;
	/* a sync construct's site (struct live_snapshot's syncs, never its sites): its kind
	 * (the contract's sync kind, and a mutual exclusion's acquires' kind), the time tasks
	 * waited there and how many waits */
	uint32_t sync_kind, mutex_kind;
	uint64_t sync_waited_ns, sync_waits;
	/* a barrier's: the phases it ended, its threads' computation before it (sync_waited.h) */
	struct tp_live_region phases;
};

/* A thread with figures (a slot of the file): a worker, or any thread that waited. */
struct thread_view {
	uint32_t slot, generation, tid, state, site, wait_kind;
	bool worker;     /* a worker now */
	bool was_worker; /* a worker now, or one until it stopped (its shares still tell) */
	/*
	 * escaped: the name it set itself, else (its name the process's) its start routine's
	 * ("worker (pool.c:58)") when it was seen starting
	 */
	char name[LIVE_SHOWN(TP_LIVE_SITE_TEXT)];
	bool unnamed;           /* its name is the process's (named by its start routine) */
	uint64_t start_routine; /* 0: not seen starting (the main thread, or started before) */
	uint32_t start_module;
	bool ended; /* shown once the process exited */
	uint64_t state_for_ns, wait_for_ns, wait_task;
	uint64_t wait_address; /* the wait's call site, named into wait_site ("" when none) */
	uint32_t wait_module;
	char wait_site[LIVE_SHOWN(TP_LIVE_SITE_TEXT)]; /* escaped */
	uint64_t busy_ns, parked_ns; /* cumulative, the current state's time included */
	uint64_t polls;
	double busy_share, parked_share, spinning_share; /* of the last interval */
	/*
	 * Its waits since it took its slot (at its first task event or wait): how many (ended),
	 * their time by the contract's kind and in all (the wait going on now included), and the
	 * longest one (the one going on now, if longer); its running time: alive and in no
	 * interposed wait (a join, a sleep or a read counts as running).
	 */
	uint64_t waits, waited_ns[TP_LIVE_WAIT_KINDS], waited_total_ns, running_ns;
	uint64_t longest_wait_ns;
	uint32_t longest_wait_kind, longest_wait_module;
	uint64_t longest_wait_address;                         /* named into longest_wait_site */
	char longest_wait_site[LIVE_SHOWN(TP_LIVE_SITE_TEXT)]; /* escaped, "" when none */
};

/* A spawn stack (sampled) of a site. */
struct stack_view {
	uint32_t row; /* its site's, or its wait site's entry (wait_view) */
	uint32_t samples;
	uint32_t depth;
	uint64_t pcs[TP_LIVE_STACK_FRAMES]; /* named into text */
	char text[LIVE_STACK_TEXT_SHOWN];   /* escaped, its frames a line each */
};

/* A call site of waits (any thread's), its figures so far. */
struct wait_view {
	uint64_t address; /* the call site, named into text; 0: the sites beyond the table */
	uint32_t module, kind;
	uint32_t entry; /* TP_LIVE_STACK_OF_WAIT_SITE | its entry: its stacks' row */
	char text[LIVE_SHOWN(TP_LIVE_SITE_TEXT)]; /* escaped */
	uint64_t waits, total_ns, longest_ns, waiting;
	unsigned threads;     /* threads that waited there (a bit per tid % 64: a lower bound) */
	uint64_t thread_bits; /* those bits */
};

struct live_snapshot {
	/* the header checked at open; its counts, `exited`, `exited_ns` and `notes` as now */
	struct tp_live_header header;
	char comm[LIVE_SHOWN(sizeof(((struct tp_live_header *)0)->comm))]; /* escaped */
	uint64_t now_ns;     /* in the process's clock, the exit time once it exited */
	uint64_t elapsed_ns; /* since the statistics began */
	/* its MPI job's line, across ranks (live_mpi_job_words: by the console, which knows the
	 * run's directory); empty */
	char mpi_job[640];
	struct site_view sites[TP_LIVE_SITES];
	unsigned n_sites;
	struct thread_view threads[TP_LIVE_THREADS];
	unsigned n_threads;
	uint64_t alive, spawned, done;
	struct stack_view stacks[TP_LIVE_STACKS]; /* the ready ones, in the file's order */
	unsigned n_stacks;
	struct wait_view waits[TP_LIVE_WAIT_SITES]; /* by total time waited, most first */
	unsigned n_waits;
	/*
	 * The task graph so far (docs/analysis.md): its tasks' polls added up
	 * (work), the longest path through it (the span, with the time of the sites it kept),
	 * the parallel part's time from its first poll's start to its last poll's end, and the
	 * threads that polled its tasks.
	 */
	uint64_t work_ns, graph_first_ns, graph_last_ns;
	unsigned graph_threads;
	struct tp_live_path longest;
	/* the path whose time the sites' shares are of (the longest ended, or the span when a poll
	 * going on ends it: its time so far in its task's site, the path before it in none kept),
	 * and its time in sites not kept */
	uint64_t path_ns, path_other_ns;
	/* the span with the fragments going on now (longest: the path ended), and the POP
	 * factors (issue 35) of the run so far */
	uint64_t span_ns;
	struct tp_live_factors factors;
	unsigned roi_pairs;   /* the factors' region of interest: its pairs (0: the whole run) */
	unsigned roi_markers; /* the calls that marked it (taskprobe_live.h's roi_markers) */
	/* the sync constructs' sites where tasks waited (issue 35), most time waited first */
	struct site_view syncs[TP_LIVE_SITES];
	unsigned n_syncs;
	/* the waits at sync sites in no line (the header's syncs_unlisted) */
	struct tp_live_unlisted syncs_unlisted;
};

/*
 * A snapshot of `f` now; workers' shares are over the time since `previous` (NULL: since the
 * statistics began). False, with `why`, when the file can no longer be read whole (it shrank:
 * damaged, or not the program's own doing): then `out` is not one.
 */
bool live_snapshot(const struct live_file *f, const struct live_snapshot *previous,
		   struct live_snapshot *out, char *why, size_t why_size);

/*
 * Whether the program has shown no task and no worker (yet): its threads only wait, and are
 * listed by what they waited for rather than by tasks.
 */
bool live_without_tasks(const struct live_snapshot *s);

/* The site of row `row` in `s`, or NULL. */
const struct site_view *live_site(const struct live_snapshot *s, uint32_t row);

/* Sort keys of the sites table, in its columns' order. */
enum site_column {
	COLUMN_SITE,
	COLUMN_SPAWNED,
	COLUMN_ALIVE,
	COLUMN_DONE,
	COLUMN_POLLS,
	COLUMN_BUSY,
	COLUMN_DELAY_P50,
	COLUMN_DELAY_P99,
	COLUMN_IDLE,
	COLUMN_LONGEST,
	COLUMN_SPAN,    /* the site's share of the span */
	COLUMN_ON_PATH, /* its fragments on the critical path */
	COLUMN_SPAWN,   /* its spawn cost */
	COLUMN_WARNINGS,
	COLUMNS,
};
void live_sort_sites(struct live_snapshot *s, enum site_column column, bool ascending);
const char *live_column_name(enum site_column column);
/* A column by its name (as printed, case ignored), or COLUMNS. */
enum site_column live_column_by_name(const char *name);

/* "12.3ms", "1.20s", "850ns": at most 7 characters. */
void live_format_ns(char *out, size_t size, uint64_t ns);
/*
 * The task graph's figures in words: "work 125ms, span 17.0ms: parallelism 7.35 (no number of
 * workers runs this faster than 7.35x); burdened span 18.1ms: parallelism 6.91; measured 1.90x
 * on 2 workers", or why there are none; wider than `width` columns (0: any width), the figures
 * alone ("work 125ms, span 17.0ms: parallelism 7.35, burdened 6.91; measured 1.90x on 2").
 * A program without tasks (live_without_tasks): what was seen instead, as taskprobe-timeline
 * says it ("no task or worker was seen; 3 threads, 12 waits").
 */
void live_format_figures(char *out, size_t size, const struct live_snapshot *s, int width);
/* The POP factors' line `line` (0 or 1) in their words (tp_live_factors_words), "" if none. */
void live_format_factors(char *out, size_t size, const struct live_snapshot *s, int line);
/*
 * The table of parallel regions: its heading, and the line of site `v` (a parallel region a
 * thread ran), the region's text `width` wide: "SITE  EFFICIENCY  LOAD BALANCE  COMPUTATION
 * TIME  THREADS". Whether `v` is one (live_region_shown).
 */
void live_format_region_header(char *out, size_t size, int width);
bool live_region_shown(const struct site_view *v);
bool live_format_region(char *out, size_t size, const struct site_view *v, int width);
/*
 * The table of sync sites: its heading, and the line of `v` (one of the snapshot's syncs), its
 * text `width` wide: "SITE  KIND  WAITED  WAITS  LOAD BALANCE  OF THE CRITICAL PATH" (a
 * barrier's phases' balance, "-" for the others; a mutual exclusion's share of the span, "-" for a
 * barrier's, taskwait's or taskgroup's: a wait is on no path).
 */
void live_format_sync_header(char *out, size_t size, int width);
void live_format_sync(char *out, size_t size, const struct live_snapshot *s,
		      const struct site_view *v, int width);
/* "region of interest: omp_control_tool" (", 3 start/stop pairs"), "" without one. */
void live_format_roi(char *out, size_t size, const struct live_snapshot *s);
/* A site's share of the span: "42%", "<1%", or "-" off the path (or in a site it did not keep) */
void live_format_span_share(char *out, size_t size, const struct live_snapshot *s,
			    const struct site_view *v);
/*
 * "long 3, blocks 2, none ended, too small", or ""; in `width` characters, if not 0: the
 * warnings that fit whole, then how many were left out ("long 132 +1"), never a cut figure.
 */
void live_format_warnings(char *out, size_t size, const struct site_view *site, int width);
/* The site's granularity verdict in words (tp_live_too_small_words), "" when not too small. */
void live_format_too_small(char *out, size_t size, const struct site_view *v);
/* The contract's name of a wait kind ("futex", "condvar", ...), "" for 0. */
const char *live_wait_kind_name(uint32_t kind);
