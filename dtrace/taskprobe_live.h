// SPDX-License-Identifier: MIT
/*
 * The live statistics (TASKPROBE_LIVE=1, shim/consumers/live.c) that `taskprobe top` (contrib/top)
 * reads: a file in shared memory, `taskprobe-live.PID` in a directory of the user's own (see
 * below), mode 0600, that the process writes with plain stores and the console maps read-only, so
 * that the console starting, stopping or dying never touches the program.
 *
 * Every thread writes only its own slot (struct tp_live_thread) and its own row per spawn site
 * (struct tp_live_site_stats): no lock and no shared cache line per event. A site's figures are
 * the sums of its rows over all slots. Readers see each 64-bit value whole (relaxed atomic
 * stores); a row's values may be a few events apart from each other.
 *
 * Durations are nanoseconds. Times ("since") are in the process's clock: CLOCK_MONOTONIC
 * nanoseconds, or with the time-stamp counter (clock TP_LIVE_CLOCK_TSC) ns_at_start +
 * (tsc - tsc_at_start) * ns_per_tsc_2_32 / 2^32, which a reader on the same machine computes
 * for its own "now" from its own rdtsc. ns_per_tsc_2_32 is 0 until the process has timed the
 * counter (its first milliseconds), when its times are CLOCK_MONOTONIC's.
 *
 * Layout: the header, then TP_LIVE_SITES sites, then TP_LIVE_WAIT_SITES wait sites, then
 * TP_LIVE_STACKS stacks, then
 * TP_LIVE_MODULES modules, then TP_LIVE_THREADS slots, then from `rows_offset` each slot's rows
 * (TP_LIVE_SITES of them, `rows_stride` bytes apart per slot), present once the slot's `rows_ready`
 * is set: the file is sparse and a slot's rows are given space only when a thread first takes it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TP_LIVE_MAGIC   "TPLIVE\0\0"
#define TP_LIVE_VERSION 20

#define TP_LIVE_STRING_OF(literal) #literal
#define TP_LIVE_STRING(macro)      TP_LIVE_STRING_OF(macro)

/* Rows per slot: 0 no site, 1 to TP_LIVE_SITE_ROWS task sites in order of first spawn, then the
 * overflow's, which every later site shares (a path's place tags each row in a byte, its row plus
 * one: TP_LIVE_PATH_ROW_OF; 126 before version 14, which a time-step code of sixty regions of two
 * worksharing loops, each a site and each loop's barrier one, filled). */
#define TP_LIVE_SITE_ROWS     253
#define TP_LIVE_SITES         (TP_LIVE_SITE_ROWS + 2)
#define TP_LIVE_NO_SITE       0
#define TP_LIVE_OVERFLOW      (TP_LIVE_SITE_ROWS + 1)
#define TP_LIVE_OVERFLOW_TEXT "(sites beyond the first " TP_LIVE_STRING(TP_LIVE_SITE_ROWS) ")"
/* The no-site row's name in every reader's output (top, exit report, timeline, --analyze): the
 * program's serial code, OpenMP's initial tasks. The scripts say "(no site)": theirs also holds the
 * tasks spawned before they attached. */
#define TP_LIVE_NO_SITE_TEXT "(no site: initial tasks)"
/* What every reader says under its sync sites' table when the header's syncs_unlisted is set,
 * first (tp_live_syncs_unlisted_words says their time and waits after it). */
// clang-format off
#define TP_LIVE_SYNCS_UNLISTED_TEXT                                                                \
	"(waits at sync sites beyond the first " TP_LIVE_STRING(TP_LIVE_SITE_ROWS) " sites are "   \
	"in no line"
// clang-format on
/*
 * Spawn stacks sampled: each thread's first spawns at a site, then one in ..._EVERY; wait
 * stacks: each thread's first waits at a wait site, then one in ..._EVERY of the site's waits.
 */
#define TP_LIVE_STACK_SAMPLE_FIRST 4
#define TP_LIVE_STACK_SAMPLE_EVERY 4096
#define TP_LIVE_THREADS            256 /* threads alive at once with figures; later ones counted */
/*
 * Of those, the slots a thread that has only waited may take (at its first wait): the others
 * stay for threads that run tasks, whose sites' figures live in their slots' rows.
 */
#define TP_LIVE_WAITING_THREADS (TP_LIVE_THREADS * 3 / 4)
#define TP_LIVE_WAIT_KINDS      8   /* a thread's time waited by the contract's kind (below 8) */
#define TP_LIVE_STACKS          128 /* distinct stacks kept (sampled), over all sites */
#define TP_LIVE_SITE_TEXT       256
#define TP_LIVE_STACK_FRAMES    128 /* a stack's frames kept (TASKPROBE_STACK_DEPTH's most) */
#define TP_LIVE_MODULES         128 /* the modules sites and stacks lie in (program, libraries) */
#define TP_LIVE_MODULE_PATH     1024
#define TP_LIVE_BUILD_ID        32
#define TP_LIVE_NO_MODULE       UINT32_MAX /* an address in no module known (JIT code) */
#define TP_LIVE_WAIT_SITES      128 /* call sites of waits: the last one counts every later one */
#define TP_LIVE_BUCKETS         40  /* log2 histograms: bucket b counts [2^b, 2^(b+1)) ns */
/*
 * The costs' histograms (struct tp_live_site_stats), compact: 32-bit counts in log2 buckets from
 * 2^TP_LIVE_COST_SHIFT ns, cost bucket b being log2 bucket b + TP_LIVE_COST_SHIFT (the first also
 * counts shorter costs, the last longer ones): 64 ns to 4 ms.
 */
#define TP_LIVE_COST_BUCKETS 16
#define TP_LIVE_COST_SHIFT   6
/* The log2 bucket of the cost histograms' last, which counts every longer value too: open. */
#define TP_LIVE_COST_OPEN (TP_LIVE_COST_SHIFT + TP_LIVE_COST_BUCKETS - 1)
/*
 * A value's position in its octave [2^log2, 2^(log2+1)) (`log2` its binary logarithm), in 256ths
 * of it: what a reader needs to read the median of values of one size as their size, not as
 * their log2 bucket's middle. (A value a histogram's first bucket counts from below it has its
 * own octave's.)
 */
#define TP_LIVE_POSITION_BITS 8
static inline uint32_t tp_live_position(uint64_t ns, unsigned log2)
{
	return (uint32_t)((ns << TP_LIVE_POSITION_BITS) >> log2) &
	       ((1u << TP_LIVE_POSITION_BITS) - 1);
}

/*
 * A value's position in its cost histogram's bucket (version 17): tp_live_position, and in the
 * open last bucket (TP_LIVE_COST_OPEN), which counts every longer value too, in 256ths of
 * octaves above the bucket's own: a task of 60 ms lies 4.84 octaves above 2^21 ns. The median of
 * long tasks is then read around their positions' mean (tp_live_bucket_open), not as ">= 2.10
 * ms"; a mean of octaves, not of times, so that one task preempted for 60 ms moves the median of
 * forty of 6 ms by 6%, not 25%. A u32 adds TP_LIVE_POSITIONED of them (each below 43 octaves): a
 * bucket's first 262,144 times on a thread at a site stand for all of them (one compare a task
 * for every bucket: a cap for each cost 8 instructions a task more).
 */
#define TP_LIVE_POSITIONED (1u << 18)
static inline uint32_t tp_live_cost_position(uint64_t ns, unsigned log2)
{
	uint32_t p = tp_live_position(ns, log2);
	return log2 > TP_LIVE_COST_OPEN ? p + ((log2 - TP_LIVE_COST_OPEN) << TP_LIVE_POSITION_BITS)
					: p;
}

/* Whether every reader reads the task times' positions in log2 bucket `b` (tp_live_quantile): not
 * in the cost histograms' first bucket, which counts values from below it (--analyze, whose
 * buckets are whole, reads them as the live statistics do). */
static inline bool tp_live_bucket_positioned(unsigned b)
{
	return b > TP_LIVE_COST_SHIFT && b <= TP_LIVE_COST_OPEN;
}

enum tp_live_clock {
	TP_LIVE_CLOCK_MONOTONIC = 1,
	TP_LIVE_CLOCK_TSC = 2,
};

/*
 * With TP_LIVE_CLOCK_TSC, a time is the time-stamp counter converted to CLOCK_MONOTONIC
 * nanoseconds from the header's tsc_at_start, ns_at_start and ns_per_tsc_2_32 (nanoseconds a
 * tick, times 2^TP_LIVE_TSC_RATE_SHIFT), which the process times over its statistics' first
 * moments: until then the rate is 0 and its times are CLOCK_MONOTONIC's.
 */
#define TP_LIVE_TSC_RATE_SHIFT 32

/* The rate of a counter read `tsc` at CLOCK_MONOTONIC `ns`, after the pair at start. */
static inline uint64_t tp_live_tsc_rate(uint64_t tsc_at_start, uint64_t ns_at_start, uint64_t tsc,
					uint64_t ns)
{
	return (uint64_t)(((unsigned __int128)(ns - ns_at_start) << TP_LIVE_TSC_RATE_SHIFT) /
			  (tsc - tsc_at_start));
}

/* The counter's reading `tsc` in CLOCK_MONOTONIC nanoseconds, at `rate`. */
static inline uint64_t tp_live_tsc_ns(uint64_t tsc, uint64_t tsc_at_start, uint64_t ns_at_start,
				      uint64_t rate)
{
	return ns_at_start + (uint64_t)(((unsigned __int128)(tsc - tsc_at_start) * rate) >>
					TP_LIVE_TSC_RATE_SHIFT);
}

/* What a thread does now (struct tp_live_thread's state). */
enum tp_live_state {
	TP_LIVE_RUNNING = 0, /* not in a task, not parked: a worker between tasks spins or looks */
	TP_LIVE_POLLING = 1, /* polls a task (its site: `site`) */
	TP_LIVE_PARKED = 2,  /* blocked in the kernel: in an interposed wait, polling no task */
};

/* A slot's `worker`. */
enum tp_live_worker {
	TP_LIVE_NOT_A_WORKER = 0,
	TP_LIVE_WORKER = 1,       /* a worker now */
	TP_LIVE_WORKER_ENDED = 2, /* a worker until its worker-thread-stop */
};

/* A slot's `in_use`. */
enum tp_live_slot_use {
	TP_LIVE_SLOT_FREE = 0,
	TP_LIVE_SLOT_LIVE = 1,  /* a running thread's */
	TP_LIVE_SLOT_ENDED = 2, /* an ended thread's, until another takes it (free ones first) */
};

/* A site or stack entry's `state`. */
enum tp_live_entry_state {
	TP_LIVE_ENTRY_EMPTY = 0,
	TP_LIVE_ENTRY_WRITING = 1,
	TP_LIVE_ENTRY_READY = 2, /* its text is whole (release store) */
};

/* What marked a region of interest (region-of-interest's in-process consumers; the recording's
 * TP_RECORD_REGION_OF_INTEREST since version 15): OpenMP's omp_control_tool, MPI's MPI_Pcontrol. */
enum tp_roi_marker {
	TP_ROI_BY_OMP_CONTROL_TOOL = 0,
	TP_ROI_BY_MPI_PCONTROL = 1,
	/* an MPI rank's window, MPI_Init's end to MPI_Finalize's start, where the program marks
	 * none of its own (work_span.h's tp_roi_step): never recorded, every reader finds it */
	TP_ROI_BY_MPI_WINDOW = 2,
};

/*
 * The span's commits (version 19): a time-step code's critical path runs through every region of
 * every step, more sites than a path keeps (TP_LIVE_PATH_SITES). When OpenMP's initial task goes
 * on after an outermost region's join, every path the program makes later starts from its path
 * there: its time by site is committed, here, and the path keeps one place for all of it (tag 0,
 * its fragments word the commit's label: TP_LIVE_PATH_COMMITTED_PLACE), so its other places are free
 * for the next region's sites. Snapshot `label % TP_LIVE_COMMITS` holds the whole committed time
 * by site row of the commit labelled `label` (the base it was made on, itself a commit or none,
 * plus the path's places then); a reader of a path with a committed place reads the snapshot of
 * its label while that is among the last TP_LIVE_COMMITS (tp_live_path_sites_read), inside
 * `seq`. A path that lost a join to an older one (a worker preempted after its region's barrier)
 * still reads its own label's snapshot; one older than that says its committed time as in sites
 * not kept.
 */
#define TP_LIVE_COMMITS 4
struct tp_live_commit {
	uint64_t other_ns;                 /* its time in sites the paths did not keep */
	uint64_t ns[TP_LIVE_SITES];        /* by site row */
	uint32_t fragments[TP_LIVE_SITES]; /* by site row, TP_LIVE_PATH_SINCE_LOSS: at least */
};
struct tp_live_commits {
	uint32_t seq;   /* odd while a commit writes a snapshot */
	uint32_t count; /* commits made: the last one's label (0: none) */
	uint32_t rows;  /* rows at and past this are 0 in every snapshot */
	uint32_t reserved;
	struct tp_live_commit snapshots[TP_LIVE_COMMITS];
};

struct tp_live_header {
	char magic[8];        /* TP_LIVE_MAGIC */
	uint32_t version;     /* TP_LIVE_VERSION */
	uint32_t header_size; /* sizeof (struct tp_live_header) */
	uint64_t file_size;
	uint32_t pid;
	uint32_t clock; /* enum tp_live_clock */
	uint64_t tsc_at_start;
	uint64_t ns_at_start;       /* CLOCK_MONOTONIC, when the statistics began */
	uint64_t ns_per_tsc_2_32;   /* nanoseconds a tick, times 2^32 (tp_live_tsc_ns), or 0 */
	uint64_t long_poll_ns;      /* polls at least this long are counted as long */
	uint64_t rows_offset;       /* where slot 0's rows begin */
	uint64_t rows_stride;       /* bytes between two slots' rows */
	uint32_t exited;            /* 1 once the process ended (exited_ns: when) */
	uint32_t kept;              /* 1: left for a reader after the end (TASKPROBE_LIVE=keep) */
	uint64_t threads_uncounted; /* threads that found every slot taken: not counted */
	/* tasks that found no room in the table: left out of the figures */
	uint64_t tasks_untracked;
	uint64_t events_dropped; /* signal handlers' events inside their thread's update */
	uint64_t stacks_dropped; /* sampled stacks that found the stack table full */
	char comm[16];           /* the process's name at start */
	uint64_t exited_ns;      /* in the process's clock */
	/* threads whose rows found no space in the file (a full /dev/shm): not counted */
	uint64_t threads_without_space;
	/* the inode of the process's pid namespace (/proc/self/ns/pid), 0 when unknown */
	uint64_t pid_namespace;
	/* when the process started: /proc/PID/stat's starttime (clock ticks since boot), 0 unknown */
	uint64_t start_ticks;
	uint32_t notes; /* enum tp_live_note, OR'ed */
	/* task dependences the work and span left out (their table full): the span may be short */
	uint64_t dependences_dropped;
	/* threads that only waited and found the slots they may take (TP_LIVE_WAITING_THREADS)
	 * taken: their waits count at their sites, the threads are not listed */
	uint64_t waiting_threads_unlisted;
	/* the calls that marked the region of interest: bit 1 << enum tp_roi_marker of each (0:
	 * none told, omp_control_tool's) */
	uint32_t roi_markers;
	/* not 0: a wait at a sync site found every row taken (TP_LIVE_SITE_ROWS, shared with the
	 * task sites): its site is in no line of the readers' tables, which say so; its time and
	 * waits are counted in the overflow row's sync figures (version 19) */
	uint64_t syncs_unlisted;
	/*
	 * The region of interest (issue 35: omp_control_tool's start and stop, or pause): start
	 * and stop pairs ended, whether one is going on now (roi_on) and since when, and the
	 * ended pairs' run time and placed length added up, and the placed length at the start
	 * of the one going on (each slot keeps its computation alike: roi_*_ns). Without a pair,
	 * the factors are the whole run's.
	 */
	uint32_t roi_pairs;
	uint32_t roi_on;
	uint64_t roi_start_ns;
	uint64_t roi_run_ns;
	uint64_t roi_placed_ns;
	uint64_t roi_placed_at_start_ns;
	/* an MPI rank's in MPI_COMM_WORLD, and the world's size, from its MPI_Init's end (version
	 * 16; mpi_size 0: none known, mpi_size stored last): what a reader names a rank by */
	uint32_t mpi_rank, mpi_size;
	struct tp_live_commits commits; /* the span's committed time by site (version 19) */
	/*
	 * An MPI rank's window for its job's factors across ranks (version 20; taskprobe_mpi_job.h):
	 * the slot (plus one) of its thread that called MPI_Init, when its MPI_Init ended
	 * (mpi_on_ns, stored last: 0 before) and its MPI_Finalize started (mpi_off_ns, stored last:
	 * 0 before), and that thread's time in MPI calls at each (tp_live_mpi_time).
	 */
	uint32_t mpi_slot;
	uint64_t
		mpi_job; /* its job's identity (a hash of the launcher's: the same in every rank) */
	uint64_t mpi_host; /* its host's (a hash of its name): only one host's clocks compare */
	uint64_t mpi_at_on_ns, mpi_at_off_ns;
	uint64_t mpi_on_ns, mpi_off_ns;
};

/* What a reader says of the process beside its figures (the header's `notes`). */
enum tp_live_note {
	/* built for GCC's libgomp, run on LLVM's libomp (taskprobe preloads it for OMPT) */
	TP_LIVE_NOTE_LIBGOMP_ON_LIBOMP = 1,
};

/*
 * A site: row `i` of every slot is the i-th task site spawned at (TP_LIVE_OVERFLOW: all later
 * ones; its key, which wait sites share, in `site_id`). A site of the
 * program's is kept as its call's address (a return address) in a module, named by the reader
 * (the shim reads no debug information for it); the rows of no site and of the overflow have
 * their words in `text`.
 */
struct tp_live_site {
	uint32_t state;       /* enum tp_live_entry_state */
	uint32_t site_id;     /* the site's key: one per call address (the shim's spawn_site.h) */
	uint32_t by_executor; /* 1: its tasks are the executor's own (OpenMP's implicit tasks) */
	uint32_t module;      /* the module of `address`, or TP_LIVE_NO_MODULE */
	uint64_t address;     /* the spawn call's return address; 0 for a row of words */
	char text[TP_LIVE_SITE_TEXT];
	/*
	 * A sync construct's site (a barrier's, taskwait's, taskgroup's or mutual exclusion's
	 * call, where a task's poll ended waiting: issue 35), not a task site: the contract's
	 * sync kind (0: a task site), and for a mutual exclusion the kind of its acquires (the
	 * contract's: 1 critical, 2 ordered, 3 lock, 4 nested lock; 0 none seen yet).
	 */
	uint32_t sync_kind;
	uint32_t mutex_kind;
};

/*
 * A call site of waits (interposed waits of every thread, a worker's or not): its figures are
 * shared (atomic adds: a wait is a system call, so one more atomic add is noise). The entry for
 * a site is found by its key from a hash of it; the last entry (TP_LIVE_WAIT_SITES - 1) counts
 * the waits of sites that found no room.
 */
struct tp_live_wait_site {
	uint32_t state;    /* enum tp_live_entry_state: READY once kind, module, address are set */
	uint32_t site_key; /* the shim's key of the call site (0: free; set first) */
	uint32_t kind;     /* the contract's wait kind of its first wait */
	uint32_t module;   /* of `address`, or TP_LIVE_NO_MODULE */
	uint64_t address;  /* the wait's call site (a return address); 0 for the overflow entry */
	uint64_t waits;    /* ended */
	uint64_t total_ns; /* their time */
	uint64_t longest_ns;
	uint64_t threads; /* bit tid % 64 set for every thread that waited here */
	uint64_t waiting; /* started and not ended now */
};

/*
 * A spawn stack seen under a site, or a wait stack under a wait site (sampled, as
 * TP_LIVE_STACK_SAMPLE_* say): return addresses, innermost first, named by the reader with the
 * modules' table.
 */
#define TP_LIVE_STACK_OF_WAIT_SITE 0x80000000u /* `site` of a wait stack: this | its entry */
struct tp_live_stack {
	uint32_t state; /* enum tp_live_entry_state */
	uint32_t site;  /* its site's row, or TP_LIVE_STACK_OF_WAIT_SITE | its wait site's entry */
	uint32_t stack_id; /* the contract's stack id */
	uint32_t samples;  /* spawns or waits sampled with this stack */
	uint32_t depth;    /* frames in pcs */
	uint32_t reserved;
	uint64_t pcs[TP_LIVE_STACK_FRAMES];
};

/*
 * A module the sites' and stacks' addresses lie in, as the dynamic loader loaded it: the reader
 * opens `path` (and its debug information), and names addresses in it. Entry `i` is module `i`,
 * published once whole (state READY), never changed after.
 */
struct tp_live_module {
	uint32_t state;         /* enum tp_live_entry_state */
	uint32_t build_id_size; /* bytes of build_id; 0 when it has none */
	uint64_t bias;          /* its dlpi_addr: addresses in its file + bias = addresses here */
	uint64_t start, end;    /* its loaded segments span [start, end) */
	uint8_t build_id[TP_LIVE_BUILD_ID];
	char path[TP_LIVE_MODULE_PATH]; /* NUL-terminated */
};

/*
 * A longest path through the task graph (work and span: docs/analysis.md): its
 * length, and TP_LIVE_PATH_SITES of the sites it ran in (a site new to a full path takes the
 * place of the one with the least time once a fragment of it is longer than that time:
 * work_span.h's tp_span_path_extend_new): each is (row + 1) << TP_LIVE_PATH_NS_BITS |
 * nanoseconds, its highest byte its tag (0: unused; the one added tells row 0, tasks without a
 * site, with no time yet from a free place; version 14, where it was row << 57 | 1 << 56 with
 * rows below 128: TP_LIVE_PATH_ROW_OF); the rest of its length ran in others. A kept site's fragments
 * word holds TP_LIVE_PATH_SINCE_LOSS when its place was taken after the path had given up
 * another's (version 12): the site may have been one given up, its time then only what it ran
 * since (a lower bound: six constructs in a row, one given up early, read 12.8% where the
 * recording's 18.4%).
 */
#define TP_LIVE_PATH_SITES   4
#define TP_LIVE_PATH_NS_BITS 56 /* 2^56 ns is 2.2 years; a tag in the byte above */
#define TP_LIVE_PATH_NS_MASK ((1ull << TP_LIVE_PATH_NS_BITS) - 1)
/* The row of a used place `v` (not 0): its tag less one. Rows fit a byte's tags 1 to 255. */
#define TP_LIVE_PATH_ROW_OF(v)      ((uint32_t)((v) >> TP_LIVE_PATH_NS_BITS) - 1)
#define TP_LIVE_PATH_SINCE_LOSS     (1u << 31)
#define TP_LIVE_PATH_FRAGMENTS_MASK (TP_LIVE_PATH_SINCE_LOSS - 1)
/* A used place of tag 0 (`v` its value): the path's committed time (version 19: struct
 * tp_live_commits), its fragments word the commit's label, of these bits. A site's place is
 * tagged from 1, a free one is 0. */
#define TP_LIVE_PATH_COMMITTED_PLACE(v) ((v) != 0 && ((v) >> TP_LIVE_PATH_NS_BITS) == 0)
#define TP_LIVE_PATH_LABEL_MASK         ((1u << 30) - 1)
struct tp_live_path {
	uint64_t ns;
	/* the same path burdened: with the delay before each of its fragments started
	 * (tp_live_start_delay) */
	uint64_t burdened_ns;
	/* when the last of what the path joins ended (its own end, or a shorter path's joined with
	 * it): when the fragment after it could start */
	uint64_t ended_ns;
	/*
	 * The placed length (issue 35, the POP factors' critical path's computation): the longest
	 * path with waits at no cost and each thread also running its fragments in the order it
	 * ran them. Taken as the larger of the two at every join (never what picks the longer
	 * path: `ns` does), and at each poll's start also after the thread's previous fragment.
	 */
	uint64_t placed_ns;
	uint64_t sites[TP_LIVE_PATH_SITES];
	uint32_t fragments[TP_LIVE_PATH_SITES]; /* each kept site's fragments on the path */
};

struct tp_live_thread {
	uint32_t in_use;     /* enum tp_live_slot_use */
	uint32_t generation; /* raised each time a thread takes the slot */
	uint32_t tid;
	uint32_t worker; /* enum tp_live_worker: whether an executor (or TASKPROBE_WORKERS) says it
			    is a worker */
	char name[16];
	uint32_t rows_ready; /* its rows have space: the sites' figures may be read */
	uint32_t state;      /* enum tp_live_state */
	uint64_t state_since;
	uint32_t site;      /* the row of the task it polls (state POLLING) */
	uint32_t wait_kind; /* the contract's wait kind it is in now, 0 none */
	uint64_t wait_since;
	uint64_t wait_task; /* the task polled while it waits: a task blocking its worker */
	uint64_t busy_ns;   /* time polling tasks, the current poll excluded */
	uint64_t parked_ns; /* time parked (state PARKED), the current park excluded */
	uint64_t polls;
	uint64_t taken_ns; /* when the thread took the slot (its figures count from then) */
	/* the call site of the wait it is in now (wait_kind not 0), and its module */
	uint64_t wait_address;
	uint32_t wait_module;
	/*
	 * The task graph's figures of the threads that had this slot (kept when another takes it):
	 * work, the span's longest path, the parallel part's time. `path_seq` is odd while
	 * `longest` changes: a reader reads it, then `longest`, then it again, and retries when it
	 * was odd or moved.
	 */
	uint32_t path_seq;
	uint64_t work_ns;        /* the polls of the graph's tasks: its computation (issue 35) */
	uint64_t graph_first_ns; /* the first such poll's start, 0 before */
	uint64_t graph_last_ns;  /* the last such poll's end */
	struct tp_live_path longest; /* the longest path through the graph ended on the slot */
	/*
	 * The fragment it polls now, which a reader counts up to its own now (tp_live_graph_read):
	 * when its time was last counted into work_ns (0: it polls no task of the graph now), when
	 * it started, the longest path's and the placed length's at its start, and the row of
	 * its parallel region (0: none). `open_paused` (not 0): its thread waits in an MPI call,
	 * which is no computation (work_span.h's tp_span_wait_pauses): the fragment stopped at
	 * open_counted_ns, and its start moves on by the wait when it goes on.
	 */
	uint64_t open_counted_ns;
	uint64_t open_start_ns;
	uint64_t open_path_ns, open_placed_ns;
	uint32_t open_region;
	uint32_t open_paused;
	/* the sites of the path to the start of its task's first poll, as `longest`'s, and that
	 * path's length (version 15): when that poll is the span's end, what a reader names the
	 * span's sites by (a region's implicit task going on in a time-step loop: its path starts
	 * at the region's fork, which is no path ended). A later poll's path starts where what it
	 * joins ended: open_path_ns is then another length, and the longest path ended of that
	 * length is its path. */
	uint64_t open_sites_ns;
	uint64_t open_sites[TP_LIVE_PATH_SITES];
	uint32_t open_fragments[TP_LIVE_PATH_SITES];
	/* its computation (work_ns, the open fragment's time counted) inside the region of
	 * interest's ended pairs, and at the start of the one going on (the header's roi_*) */
	uint64_t roi_counted_ns;
	uint64_t roi_at_start_ns;
	/*
	 * The routine the thread was started with (pthread_create's, seen while the statistics
	 * are on), and its module: a reader names a thread that set no name of its own by it; 0
	 * for the main thread and threads started before.
	 */
	uint64_t start_routine;
	uint32_t start_module;
	/*
	 * Its waits (interposed, outermost: a signal handler's inside one is the same wait) since
	 * it took the slot: how many, their time by the contract's kind, and the longest one's
	 * kind, time and call site (its module); the wait going on now excluded.
	 */
	uint32_t longest_wait_kind;
	uint64_t waits;
	uint64_t waited_ns[TP_LIVE_WAIT_KINDS];
	uint64_t longest_wait_ns;
	uint64_t longest_wait_address;
	uint32_t longest_wait_module;
	/*
	 * Its time in MPI calls (version 20): the ended calls' (an MPI_Test loop's time between its
	 * calls too, as the recorder makes one wait of them: TP_MPI_POLL_GAP_NS), and since when the
	 * call going on counts (0: none; in such a loop, the end of the loop's call before it).
	 * `mpi_seq` is odd while they change: a reader reads it, then them, then it again, and
	 * retries when it was odd or moved (tp_live_mpi_time).
	 */
	uint32_t mpi_seq;
	uint64_t mpi_ns;
	uint64_t mpi_since_ns;
	/* the row of the outermost parallel region instance the thread forked and has not
	 * joined (0: none; version 18), forked at `fork_ns`: a reader counts its time so far
	 * into the region's (tp_live_computation_read), as it counts a fragment going on */
	uint32_t fork_row;
	/*
	 * When the thread started (its start seen; the statistics' start for the main thread;
	 * else when it took the slot), and when it ended (0 while it runs): its running time is
	 * the time between, its waits' time taken out.
	 */
	uint64_t started_ns;
	uint64_t ended_ns;
	uint64_t fork_ns;
};

/*
 * Slot `t`'s longest path, read whole: `path_seq` equal and even before and after it; after
 * TP_LIVE_PATH_READ_TRIES a torn one is taken as read (a reader never waits on the program).
 */
#define TP_LIVE_PATH_READ_TRIES 64
/* Path `p` read value by value, as a writer may change it meanwhile (inside a sequence). */
static inline void tp_live_path_load(const struct tp_live_path *p, struct tp_live_path *out)
{
	out->ns = __atomic_load_n(&p->ns, __ATOMIC_RELAXED);
	out->burdened_ns = __atomic_load_n(&p->burdened_ns, __ATOMIC_RELAXED);
	out->ended_ns = __atomic_load_n(&p->ended_ns, __ATOMIC_RELAXED);
	out->placed_ns = __atomic_load_n(&p->placed_ns, __ATOMIC_RELAXED);
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++) {
		out->sites[k] = __atomic_load_n(&p->sites[k], __ATOMIC_RELAXED);
		out->fragments[k] = __atomic_load_n(&p->fragments[k], __ATOMIC_RELAXED);
	}
}

static inline void tp_live_read_longest(const struct tp_live_thread *t, struct tp_live_path *out)
{
	for (unsigned tries = 0; tries < TP_LIVE_PATH_READ_TRIES; tries++) {
		uint32_t before = __atomic_load_n(&t->path_seq, __ATOMIC_ACQUIRE);
		tp_live_path_load(&t->longest, out);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (before % 2 == 0 && __atomic_load_n(&t->path_seq, __ATOMIC_RELAXED) == before)
			return;
	}
}

/* One thread's figures for one site. */
struct tp_live_site_stats {
	uint64_t spawned;
	uint64_t done;    /* terminated */
	uint64_t busy_ns; /* polling (its polls: the poll histogram's, added up; version 11) */
	uint64_t idle_ns; /* suspended between polls (ended polls of unfinished tasks) */
	/* scheduling delay: woken (or spawned ready) to polled (how many: the delay histogram's) */
	uint64_t delay_ns;
	uint64_t longest_poll_ns;
	uint64_t long_polls;     /* polls of at least the header's long_poll_ns */
	uint64_t blocking_waits; /* waits entered while polling a task of the site */
	uint64_t blocking_ns;
	uint64_t first_spawn_ns; /* in the process's clock (see above), 0 before */
	/*
	 * For the row of a parallel region: its instances this thread was the primary of, each
	 * from its fork to its join (its primary's implicit task's spawn to that task's end, after
	 * the region's barrier), added up (version 17): with region_ns, the region's efficiency.
	 */
	uint64_t region_time_ns;
	uint64_t poll_histogram[TP_LIVE_BUCKETS];
	uint64_t delay_histogram[TP_LIVE_BUCKETS];
	/*
	 * What a task of the site costs (tp_live_too_small): the gaps between two spawns of its
	 * tasks in one poll, and its tasks' delays before their first poll (tp_live_start_delay).
	 * Compact (TP_LIVE_COST_BUCKETS), so that a slot's rows stay well below the stacks' space.
	 */
	uint32_t spawn_gap_histogram[TP_LIVE_COST_BUCKETS];
	uint32_t start_delay_histogram[TP_LIVE_COST_BUCKETS];
	/*
	 * Each ended task's time, its polls added up (compact, as the costs'; the last bucket
	 * counts every task of 4 ms or more): a task that spawns and waits for its children runs
	 * in several polls, and the granularity's verdict judges the task, not its polls.
	 */
	uint32_t task_time_histogram[TP_LIVE_COST_BUCKETS];
	/*
	 * For the row of a parallel region (its implicit tasks' site): the thread's computation
	 * inside the region (its fragments of the tasks of the region, an explicit task's being
	 * its parent's), the fragment going on now excluded: the region's load balance.
	 */
	uint64_t region_ns;
	/*
	 * For the row of a sync construct's site (the site's sync_kind): the time this thread
	 * waited there (its time outside its polls while the innermost task it suspended that is
	 * suspended still waits at the site: shim/consumers/sync_waited.h) and how many waits
	 * (its tasks' polls that ended a wait there).
	 */
	uint64_t sync_waited_ns;
	uint64_t sync_waits;
	/*
	 * For the row of a barrier's site: the thread's computation in the phases the barrier
	 * ended (in parallel regions, from the thread's previous barrier's end to this one's:
	 * the explicit tasks it ran inside the barrier too), added up: the load balance of what
	 * the barrier waits for, a worksharing loop's when it is the loop's (version 13).
	 */
	uint64_t phase_ns;
	/*
	 * Where in their buckets the task times lie (version 16): each bucket's times' positions
	 * in it (tp_live_cost_position; in octaves above the last bucket in it: version 17) added
	 * up, of its first TP_LIVE_POSITIONED times (what 32 bits hold): the median of tasks of
	 * one size is their size (tp_live_quantile).
	 */
	uint32_t task_time_positions[TP_LIVE_COST_BUCKETS];
	/*
	 * For the row of a parallel region: the regions this thread forked inside one of its
	 * instances, or the instances it forked inside another region (version 17). A nested
	 * region's instances run at once on several threads, and its computation is not the outer
	 * region's: neither has an efficiency (tp_live_region_efficiency), nor the nested one a
	 * time. The last of the row's 1024 bytes: a task event finds its row's address with a shift
	 * (version 10).
	 */
	uint64_t region_nested;
};
_Static_assert(sizeof(struct tp_live_site_stats) == 1024, "a row's size is a power of two");

/*
 * A reader's cost figures of a site (the console's snapshot, the exit report), the ones
 * tp_live_granularity_of reads: its rows' compact cost histograms in log2 buckets
 * (TP_LIVE_BUCKETS: cost bucket b is log2 bucket b + TP_LIVE_COST_SHIFT), and where in their
 * buckets the task times lie: their positions (tp_live_cost_position) added up, of how many.
 */
struct tp_live_costs {
	uint64_t task_time[TP_LIVE_BUCKETS], spawn_gap[TP_LIVE_BUCKETS],
		start_delay[TP_LIVE_BUCKETS];
	uint64_t task_time_positions[TP_LIVE_BUCKETS], task_time_positioned[TP_LIVE_BUCKETS];
};

/* A thread's row of a site added to a reader's cost figures of the site, as every reader adds
 * them. */
static inline void tp_live_costs_add(struct tp_live_costs *c, const struct tp_live_site_stats *r)
{
	for (unsigned b = 0; b < TP_LIVE_COST_BUCKETS; b++) {
		unsigned to = b + TP_LIVE_COST_SHIFT;
		/* the positions before the count: the writer adds a task's count first (its
		 * fence), so that no position is read without its task (one of 1 s would read 500 s
		 * in the open bucket) */
		uint32_t positions = __atomic_load_n(&r->task_time_positions[b], __ATOMIC_ACQUIRE),
			 tasks = __atomic_load_n(&r->task_time_histogram[b], __ATOMIC_RELAXED);
		c->task_time[to] += tasks;
		if (tp_live_bucket_positioned(to))
			c->task_time_positioned[to] += tasks < TP_LIVE_POSITIONED
							       ? tasks
							       : TP_LIVE_POSITIONED;
		c->task_time_positions[to] += positions;
		c->spawn_gap[to] += __atomic_load_n(&r->spawn_gap_histogram[b], __ATOMIC_RELAXED);
		c->start_delay[to] += __atomic_load_n(&r->start_delay_histogram[b],
						      __ATOMIC_RELAXED);
	}
}

/* Two sites' cost figures made one (two call addresses of one construct). */
static inline void tp_live_costs_merge(struct tp_live_costs *to, const struct tp_live_costs *from)
{
	for (unsigned b = 0; b < TP_LIVE_BUCKETS; b++) {
		to->task_time[b] += from->task_time[b];
		to->task_time_positions[b] += from->task_time_positions[b];
		to->task_time_positioned[b] += from->task_time_positioned[b];
		to->spawn_gap[b] += from->spawn_gap[b];
		to->start_delay[b] += from->start_delay[b];
	}
}

/*
 * A sync construct's site's kind in words, as every reader says it (its site's sync_kind, and a
 * mutual exclusion's mutex_kind): "barrier", "taskwait", "taskgroup", or the mutual exclusion's
 * "critical", "ordered", "lock", "nest lock" (the contract's names, TP_EXCLUSION_KIND_NAMES, as
 * the scripts print them; "mutex" before its first acquire).
 */
static inline const char *tp_live_sync_kind_words(uint32_t sync, uint32_t mutex)
{
	static const char *const syncs[] = {"", "barrier", "taskwait", "taskgroup", "mutex"};
	static const char *const mutexes[] = {"mutex", "critical", "ordered", "lock", "nest lock"};
	if (sync == 4)
		return mutex < sizeof mutexes / sizeof mutexes[0] ? mutexes[mutex] : "mutex";
	return sync < sizeof syncs / sizeof syncs[0] ? syncs[sync] : "?";
}

/* `now` - `then`, 0 when `then` is later (a value read a moment apart). */
static inline uint64_t tp_live_since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

#define TP_LIVE_PAGE         4096u
#define TP_LIVE_ROUND_UP(n)  (((n) + TP_LIVE_PAGE - 1) / TP_LIVE_PAGE * TP_LIVE_PAGE)
#define TP_LIVE_SITES_OFFSET ((uint64_t)sizeof(struct tp_live_header))
#define TP_LIVE_WAITS_OFFSET (TP_LIVE_SITES_OFFSET + TP_LIVE_SITES * sizeof(struct tp_live_site))
#define TP_LIVE_STACKS_OFFSET                                                                      \
	(TP_LIVE_WAITS_OFFSET + TP_LIVE_WAIT_SITES * sizeof(struct tp_live_wait_site))
#define TP_LIVE_MODULES_OFFSET                                                                     \
	(TP_LIVE_STACKS_OFFSET + TP_LIVE_STACKS * sizeof(struct tp_live_stack))
#define TP_LIVE_THREADS_OFFSET                                                                     \
	(TP_LIVE_MODULES_OFFSET + TP_LIVE_MODULES * sizeof(struct tp_live_module))
#define TP_LIVE_ROWS_OFFSET                                                                        \
	TP_LIVE_ROUND_UP(TP_LIVE_THREADS_OFFSET + TP_LIVE_THREADS * sizeof(struct tp_live_thread))
#define TP_LIVE_ROWS_STRIDE TP_LIVE_ROUND_UP(TP_LIVE_SITES * sizeof(struct tp_live_site_stats))
#define TP_LIVE_FILE_SIZE   (TP_LIVE_ROWS_OFFSET + TP_LIVE_THREADS * (uint64_t)TP_LIVE_ROWS_STRIDE)

/*
 * The file's space: the stacks' whole pages (130 KiB) get it only when a first stack is sampled,
 * and a slot's rows when a thread first takes the slot; the rest (the header, the sites, the
 * wait sites, the modules, the slots, and the pages the stacks share with them) at start.
 */
#define TP_LIVE_STACKS_SPACE_OFFSET TP_LIVE_ROUND_UP(TP_LIVE_STACKS_OFFSET)
#define TP_LIVE_STACKS_SPACE_END    (TP_LIVE_MODULES_OFFSET / TP_LIVE_PAGE * TP_LIVE_PAGE)
#define TP_LIVE_STACKS_SPACE        (TP_LIVE_STACKS_SPACE_END - TP_LIVE_STACKS_SPACE_OFFSET)
#define TP_LIVE_SPACE_AT_START      (TP_LIVE_ROWS_OFFSET - TP_LIVE_STACKS_SPACE)

/*
 * The file's directory is one only its user can write, so that no other user can make, squat or
 * replace a name in it: TASKPROBE_LIVE_DIR when set (as given); else
 * $XDG_RUNTIME_DIR/TP_LIVE_XDG_SUBDIR; else TP_LIVE_SHM_DIR/TP_LIVE_USER_DIR_PREFIX UID (where
 * TP_LIVE_SHM_DIR cannot be written: $TMPDIR, else TP_LIVE_TMP_DIR, in its place). The shim
 * makes it (mode 0700) and uses it only when it is a directory, not a link, owned by the user and
 * writable by no other; when another user made that name first, the shim says so and makes its
 * own beside it, named TP_LIVE_USER_DIR_PREFIX UID "." and TP_LIVE_BESIDE_RANDOM random
 * characters (mkdtemp's), which readers look in too.
 */
#define TP_LIVE_XDG_SUBDIR      "taskprobe"
#define TP_LIVE_USER_DIR_PREFIX "taskprobe-"
#define TP_LIVE_SHM_DIR         "/dev/shm"
#define TP_LIVE_TMP_DIR         "/tmp"
#define TP_LIVE_BESIDE_RANDOM   6

/*
 * The file's name in its directory: "taskprobe-live." and the pid (at most TP_LIVE_PID_DIGITS
 * digits). It is made under the name with TP_LIVE_UNFINISHED_SUFFIX after it and renamed once
 * whole: a reader never finds one half made.
 */
#define TP_LIVE_FILE_PREFIX       "taskprobe-live."
#define TP_LIVE_UNFINISHED_SUFFIX ".new"
#define TP_LIVE_PID_DIGITS        10
