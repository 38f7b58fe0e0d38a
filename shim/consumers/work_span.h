// SPDX-License-Identifier: MIT
/*
 * Work and span as the program runs (issue 29, docs/analysis.md): the task
 * graph's figures kept online, Cilkscale's way, in constant state per open task and per thread,
 * never the graph. The live statistics (live.c) keep a struct tp_span_task beside each task
 * alive and a struct tp_span_thread per thread, and call these at the task events; taskprobe top
 * and the exit report read the figures from the threads' slots. Knows no interposer and no
 * executor: only the contract's events and sync kinds.
 *
 * The graph is the one `taskprobe-timeline --analyze` builds from a recording
 * (contrib/timeline/analysis.h): a node is a fragment, one poll of a task, weighted by its time;
 * the edges are spawn (the parent's fragment up to the spawn -> the child's start), a task's
 * fragments in order, joins (at a taskwait's end its children's ends; at a taskgroup's end its
 * descendants'; at a barrier's end everything that ended before; a task switched out follows
 * what its thread ran meanwhile, unless that was a child it ran undeferred: nested work),
 * dependences (the predecessor's end -> the successor's start) and forks (a parallel region's
 * implicit tasks start after its encountering task's fragment up to the region's start: on
 * another thread they have no parent, and join, at their spawn, the fork the region's primary
 * published by then, tp_span_fork). OpenMP's initial task (no parent, no site) is in the graph like
 * any other: its serial code is work and lies on the span, so that regions in a row compose in
 * series (issue 35). A path is its length, its placed length (taskprobe_live.h) and the sites it
 * ran in (struct tp_live_path); what a task keeps is three of them:
 *
 *   in     the longest path to its start (spawned, not polled yet) or to its last fragment's end;
 *   kids   the longest path to the end of a child ended since its last join;
 *   desc   the same of every descendant (its taskgroup's end joins them).
 *
 * A child's end folds into its parent's kids and desc (under the parent's lock: children end on
 * any thread); a poll's start takes the largest of what its sync joins; a poll's end extends it
 * by the poll's time. What it cannot see that the recording's analysis can: a descendant that
 * ends after its parent ended does not reach the grandparent's taskgroup (the parent's state is
 * gone); a dependence whose predecessor ends while its successor is being made counts the
 * predecessor's path to its last suspension only.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "taskprobe_contract.h" /* enum tp_sync_kind */
#include "taskprobe_figures.h"
#include "work_span_regions.h" /* a new task's start, a region's fork */

/*
 * The graph's rules (issue 35 item 6): what joins what, decided here alone for the live
 * statistics (work_span.c, live.c) and for the recording's analysis (taskprobe-timeline
 * --analyze, contrib/timeline/analysis.c), which include this header. Each side keeps its own
 * paths (here values of constant size; there nodes it can walk back for the timeline's critical
 * path) and takes the longest of what a rule says joins.
 */

/*
 * What joins the start of a task's poll, by the sync its last poll ended in (tp_span_join_of).
 * A join of children, descendants or everything ended takes them, and forgets them: the next
 * join is of those that end after (a barrier's end forgets the children and descendants too,
 * joined with everything).
 */
enum tp_span_join {
	TP_SPAN_JOIN_THREAD,      /* switched out: what its thread ran meanwhile, if it follows */
	TP_SPAN_JOIN_CHILDREN,    /* its children ended since its last join */
	TP_SPAN_JOIN_DESCENDANTS, /* its descendants (children too) ended since its last join */
	TP_SPAN_JOIN_ENDED,       /* everything ended before its barrier completed */
};

/*
 * The join of a task's poll start after a poll that ended waiting in `sync` (enum
 * tp_sync_kind): a taskwait's end joins its children, a taskgroup's end its descendants, a
 * barrier's end everything that ended before the barrier completed. A task switched out (no
 * sync, or waiting to enter a mutual exclusion: its acquire joins the release) follows what its
 * thread ran meanwhile, if tp_span_follows_thread says so.
 */
static inline enum tp_span_join tp_span_join_of(unsigned sync)
{
	switch (sync) {
	case TP_SYNC_TASKWAIT:
		return TP_SPAN_JOIN_CHILDREN;
	case TP_SYNC_TASKGROUP:
		return TP_SPAN_JOIN_DESCENDANTS;
	case TP_SYNC_BARRIER:
		return TP_SPAN_JOIN_ENDED;
	default:
		return TP_SPAN_JOIN_THREAD;
	}
}

/*
 * Whether a task switched out follows what its thread ran meanwhile: another task's fragment
 * (`thread_ran_another`), ended after this task's last (`thread_free_after`: a tied task
 * resumes only once that ended), unless that was a child run undeferred (`ran_undeferred`):
 * nested work, joined as a child run elsewhere would be.
 */
static inline bool tp_span_follows_thread(bool ran_undeferred, bool thread_ran_another,
					  bool thread_free_after)
{
	return !ran_undeferred && thread_ran_another && thread_free_after;
}

/*
 * Whether the task that leaves a barrier, where it waited since `suspended_ns`, takes what
 * ended so far as the barrier's (the last taken at `frozen_ns`): the first to leave it does,
 * having entered it after the last was taken; the others join the same.
 */
static inline bool tp_span_barrier_freezes(uint64_t frozen_ns, uint64_t suspended_ns)
{
	return frozen_ns <= suspended_ns;
}

/*
 * What a task's poll start does to the paths (tp_span_start_steps): the body of the rule both
 * engines run, each over its own paths. The start path is the task's own (its start, or its last
 * fragment's end), joined with what the JOINS steps name, in their order; then the FORGETS steps'
 * paths are forgotten: a join of children, descendants or everything ended takes them and
 * forgets them, so that the next join is of those that end after (a barrier's end forgets the
 * children and descendants too, joined with everything).
 */
enum tp_span_start_step {
	TP_SPAN_JOINS_THREAD = 1 << 0, /* what its thread ran meanwhile (its last fragment) */
	TP_SPAN_JOINS_KIDS = 1 << 1,   /* its children ended since its last join */
	TP_SPAN_JOINS_DESC = 1 << 2,   /* its descendants ended since its last join */
	TP_SPAN_JOINS_ENDED = 1 << 3,  /* everything ended before its barrier completed */
	TP_SPAN_FORGETS_KIDS = 1 << 4,
	TP_SPAN_FORGETS_DESC = 1 << 5,
};

/* The steps of join `join` (a switch out's none: its one step is its thread's, if any). */
static inline unsigned tp_span_join_steps(enum tp_span_join join)
{
	switch (join) {
	case TP_SPAN_JOIN_CHILDREN:
		return TP_SPAN_JOINS_KIDS | TP_SPAN_FORGETS_KIDS;
	case TP_SPAN_JOIN_DESCENDANTS:
		return TP_SPAN_JOINS_KIDS | TP_SPAN_JOINS_DESC | TP_SPAN_FORGETS_KIDS |
		       TP_SPAN_FORGETS_DESC;
	case TP_SPAN_JOIN_ENDED:
		return TP_SPAN_JOINS_ENDED | TP_SPAN_FORGETS_KIDS | TP_SPAN_FORGETS_DESC;
	case TP_SPAN_JOIN_THREAD:
		break;
	}
	return 0;
}

/* The steps of the poll start of a task polled once before, whose last poll ended waiting in
 * `sync`; for a task switched out, tp_span_follows_thread's arguments. */
static inline unsigned tp_span_start_steps(unsigned sync, bool ran_undeferred,
					   bool thread_ran_another, bool thread_free_after)
{
	if (tp_span_join_of(sync) != TP_SPAN_JOIN_THREAD)
		return tp_span_join_steps(tp_span_join_of(sync));
	return tp_span_follows_thread(ran_undeferred, thread_ran_another, thread_free_after)
		       ? TP_SPAN_JOINS_THREAD
		       : 0;
}

/*
 * A fragment's start, in both engines: polled from `now` by a thread free since `free_ns`, after
 * a start path ended at `could_ns` (when it could start) whose placed length is `*placed_ns`.
 * The thread runs its fragments in the order it ran them: the placed length also joins its
 * previous fragment's end (`placed_before`). Returns the fragment's delay (tp_live_start_delay:
 * the burdened span's).
 */
static inline uint64_t tp_span_fragment_starts(uint64_t *placed_ns, uint64_t placed_before,
					       uint64_t now, uint64_t could_ns, uint64_t free_ns)
{
	uint64_t delay = tp_live_start_delay(now, could_ns, free_ns);
	if (*placed_ns < placed_before)
		*placed_ns = placed_before;
	return delay;
}

/*
 * The fragment's part polled from `start_ns` (its thread free since `free_ns`), which could start
 * at `*could_ns`, joins a release ended at `released_ns` (its acquire's, at the part's start:
 * tp_span_acquire_splits): it could start once released, and its wait for that is no delay of the
 * burdened span's. Returns its delay.
 */
static inline uint64_t tp_span_start_rejoined(uint64_t *could_ns, uint64_t start_ns,
					      uint64_t free_ns, uint64_t released_ns)
{
	if (*could_ns < released_ns)
		*could_ns = released_ns;
	return tp_live_start_delay(start_ns, *could_ns, free_ns);
}

/*
 * Whether a task created `undeferred`, its start `from` (tp_span_spawn_from), is nested work: its
 * parent, polled here, is switched out to run it (its `ran_undeferred`), and joins it at its next
 * join as a child run elsewhere would be, not by following its thread. Only a task the program
 * spawned (`by_program`): one the executor created undeferred is a team of one's implicit task
 * (tp_span_region_task), whose encountering task goes on after it.
 */
static inline bool tp_span_spawn_nests(enum tp_span_spawn_from from, bool undeferred,
				       bool by_program)
{
	return from == TP_SPAN_FROM_FRAGMENT && undeferred && by_program;
}

/*
 * Whether a task the program spawned without dependences (`nestable`: woken by its parent at its
 * spawn), polled for the first time, is nested work of its parent: its thread polled the parent
 * last (`parent_polled_last`), which was switched out for it (`parent_switched_out`: its poll
 * ended at no sync). libomp runs a new task at once in its parent's place when the spawning
 * thread's deque is full (and a taskyield may run a child there); the parent resumes after it on
 * that thread, which is the schedule, not the graph: a thief could have run the child while the
 * parent went on. So, as a child created undeferred (tp_span_spawn_nests), it sets its parent's
 * `ran_undeferred`, and joins it at its next join as a child run elsewhere would be. Not an
 * implicit task (a parallel region's: the encountering task goes on after the region), nor one
 * with dependences (libomp reports none on a task already ended, which the thread's order keeps).
 * On two threads, BOTS uts's test input said span 95.7 ms, parallelism 2.34, its children chained
 * behind their parents; 1.94 ms, as on one thread, with this rule.
 */
static inline bool tp_span_first_poll_nests(bool nestable, bool parent_polled_last,
					    bool parent_switched_out)
{
	return nestable && parent_polled_last && parent_switched_out;
}

/*
 * A task's end (tp_span_end_steps), in both engines: its path to its end joins its parent's
 * children ended (`kids`: what its parent's next taskwait joins) and its nearest ancestor
 * alive's descendants ended (`desc`: what that ancestor's taskgroup's end joins), with its own
 * descendants ended before it (`own_desc`: only a task that spawned has any); its successors by
 * dependences start after it. The live engine's nearest ancestor alive is its parent while that
 * has not ended, none after (the parent's state is gone: docs/analysis.md); --analyze keeps an
 * ended task while a child of it is alive, and walks up.
 */
struct tp_span_end_steps {
	bool kids, desc, own_desc;
};

/* The steps of a task's end: its parent alive or not, an ancestor alive or not, spawned or not. */
static inline struct tp_span_end_steps tp_span_end_steps(bool parent_alive, bool ancestor_alive,
							 bool spawned)
{
	return (struct tp_span_end_steps){
		.kids = parent_alive,
		.desc = ancestor_alive,
		.own_desc = ancestor_alive && spawned,
	};
}

/*
 * A mutual exclusion's edges: an acquire joins the path to the object's last release, or, when
 * another task holds it still as far as the events say (its release comes late: a thread
 * preempted between the runtime's unlock and its event), that holder's path: it let the object
 * go before. Its path to that release is its path up to now while a thread polls it, whichever
 * thread that is (its release said late), its part so far one fragment on it
 * (tp_span_release_part_is_fragment); else its path to its last fragment's end (switched out
 * inside its section: a task not polled does no work, and its path ended there). A release is
 * the object's last only while its task holds it (a late one is dropped).
 */
enum tp_span_acquire_join {
	TP_SPAN_ACQUIRES_RELEASE,     /* the object's last release (none: nothing) */
	TP_SPAN_ACQUIRES_HOLDER_NOW,  /* the holder's path up to now */
	TP_SPAN_ACQUIRES_HOLDER_LAST, /* the holder's path to its last fragment's end */
};

/* What an acquire joins: `held`, by the acquirer itself or not, its holder polled now or not. */
static inline enum tp_span_acquire_join tp_span_acquire_joins(bool held, bool held_by_acquirer,
							      bool holder_polled)
{
	if (!held || held_by_acquirer)
		return TP_SPAN_ACQUIRES_RELEASE;
	return holder_polled ? TP_SPAN_ACQUIRES_HOLDER_NOW : TP_SPAN_ACQUIRES_HOLDER_LAST;
}

static inline bool tp_span_release_kept(bool held_by_releaser)
{
	return held_by_releaser;
}

/*
 * A holder's poll ends (both engines): switched out, it holds the object still, and an acquire
 * joins its path to that fragment's end (TP_SPAN_ACQUIRES_HOLDER_LAST); done (its release
 * lost), it let the object go no later than its end, which is the object's last release.
 */
static inline bool tp_span_end_releases(bool done)
{
	return done;
}

/*
 * Whether a release splits its task's fragment there: only at the end of a section in its sync
 * site's row (`in_section`: its wait had a site), whose time on the path is that site's, one
 * fragment of it. A section whose wait had no site (none said, or the sites' table full) goes on
 * in its task's row: its poll stays one fragment, and the path to the release is the fragment's
 * part up to it (as a spawn's is).
 */
static inline bool tp_span_release_splits(bool in_section)
{
	return in_section;
}

/*
 * Whether the path to a release, or to a holder's section so far (TP_SPAN_ACQUIRES_HOLDER_NOW),
 * counts the releaser's part of its fragment up to there as one fragment on the path (as a
 * spawn's part up to the spawn is on the child's): always, unless the release split the
 * fragment there (`split`: tp_span_release_splits), which counted that part already. --analyze's
 * nodes are so (a part is a node); the live engine extends such paths with
 * tp_span_path_extend's `fragment` this.
 */
static inline bool tp_span_release_part_is_fragment(bool split)
{
	return !split;
}

/*
 * A poll's end (both engines): the path to its fragment's end is the path to its start extended
 * by its time, part by part where an acquire or a release split it (tp_span_part_is_fragment),
 * each part's time in its part's site (tp_span_part_site). A task suspended keeps that path,
 * ended at its poll's end, and the sync its poll ended in: its next poll starts from them
 * (tp_span_start_steps), in its section again if it holds its object still
 * (tp_span_resumes_section); a task done keeps none: its path goes to its parent and its
 * successors (tp_span_end_steps).
 */

/*
 * The site a fragment's part goes on in: its task's (`own`), or, inside a mutual exclusion's
 * section whose wait had a site (`section`: tp_span_section_site; 0: none), that sync site's:
 * the path's time inside a section is the section's (issue 35).
 */
static inline uint32_t tp_span_part_site(uint32_t section, uint32_t own)
{
	return section != 0 ? section : own;
}

/*
 * The section that a task's next acquire begins is in the site of the wait its last poll ended
 * in (`sync` at `sync_site`, 0: none) when that was a wait to enter a mutual exclusion
 * (TP_SYNC_MUTEX); else it has no site of its own (0: it goes on in its task's).
 */
static inline uint32_t tp_span_section_site(unsigned sync, uint32_t sync_site)
{
	return sync == TP_SYNC_MUTEX ? sync_site : 0;
}

/* Where a fragment's part ends (tp_span_part_is_fragment). */
enum tp_span_part_end {
	TP_SPAN_PART_AT_ACQUIRE, /* the section begins: the rest is tp_span_part_site's */
	TP_SPAN_PART_AT_RELEASE, /* a section in its sync site's ends (tp_span_release_splits) */
	TP_SPAN_PART_AT_POLL_END,
};

/*
 * Whether a fragment's part ended `at` counts as one fragment on the path: a poll is one fragment
 * (a fragment split in parts counts once), and a section in a site of its own another, so that a
 * site's fragments on the path are its polls' and its sections' there: the part up to an acquire
 * is no fragment of its own (the part after the section's release, or the section when the poll
 * ends inside it, counts the poll); a section's part up to its release and a poll's last part are.
 */
static inline bool tp_span_part_is_fragment(enum tp_span_part_end at)
{
	return at != TP_SPAN_PART_AT_ACQUIRE;
}

/*
 * Whether an acquire `part_ns` into its fragment's part going on splits that part off before it
 * joins the release (both engines): whenever the part has time. The section can start only once
 * both its task reached the acquire and the object was released: the path to its start is the
 * longer of the path through the part before it (its task's, no fragment of its own:
 * tp_span_part_is_fragment) and the path to the release, not the part's start joined with the
 * release and the part added after. An acquire at its part's start (the poll its wait ended,
 * woken by the release) joins the release at the fragment's start (tp_span_start_rejoined).
 */
static inline bool tp_span_acquire_splits(uint64_t part_ns)
{
	return part_ns > 0;
}

/*
 * The part going on after a split at `now` (an acquire's part before, a section's release), in
 * both engines: it starts at `now` and could start then (the part before it ended there), so it
 * has no delay of the burdened span's, and a release it joins moves none (tp_span_start_rejoined:
 * the fragment's delay stays with its first part).
 */
static inline void tp_span_part_begins(uint64_t *start_ns, uint64_t *could_ns, uint64_t *delay_ns,
				       uint64_t now)
{
	*start_ns = *could_ns = now;
	*delay_ns = 0;
}

/*
 * Whether a wait of the contract's `kind`, its thread's outermost, pauses the fragment the thread
 * polls, in both engines: a thread inside an MPI call waits for other processes, and that time
 * is neither computation nor on the path (the MPI factors count it, and the hybrid efficiency
 * says it as MPI's). Paused, the fragment's time stops; its wait's end resumes it, its start
 * moved on by the wait (live.c's live_fragment_resumes, analysis.c's on_wait_end). Other waits
 * inside a poll (a lock of the program's own, a read) stay the task's time: the executor cannot
 * run other work meanwhile, and neither could any schedule.
 */
static inline bool tp_span_wait_pauses(uint32_t kind)
{
	return kind == TP_WAIT_MPI;
}

/* What a region of interest's start or stop does to the factors (tp_roi_step). */
enum tp_roi_step {
	TP_ROI_IGNORED,        /* nothing */
	TP_ROI_TAKEN,          /* starts or stops the region of interest */
	TP_ROI_FORGETS_WINDOW, /* forgets the MPI window counted so far, then starts */
};

/*
 * A start (`on`) or stop of a region of interest by `marker` (enum tp_roi_marker), the calls
 * that marked one so far `markers` (bit 1 << marker of each), in both engines. An MPI rank's
 * window (MPI_Init's end to MPI_Finalize's start: TP_ROI_BY_MPI_WINDOW) is its region of
 * interest, as the ranks' line's and OTF-CPT's are, unless the program marks its own: its
 * first start forgets the window (its factors are of its regions alone), a stop of its own
 * while only the window is counted stops nothing, and once it marked its own the window's
 * start does nothing; the window's end still stops a region the program left open, as
 * OTF-CPT's MPI_Finalize does (MPI_Finalize's time is no computation of the region: counted,
 * a balanced 100 ms region read a parallel efficiency of 0.67).
 */
static inline enum tp_roi_step tp_roi_step(unsigned markers, bool on, unsigned marker)
{
	const unsigned window = 1u << TP_ROI_BY_MPI_WINDOW;
	if (marker == TP_ROI_BY_MPI_WINDOW)
		return on && (markers & ~window) != 0 ? TP_ROI_IGNORED : TP_ROI_TAKEN;
	if (markers == window)
		return on ? TP_ROI_FORGETS_WINDOW : TP_ROI_IGNORED;
	return TP_ROI_TAKEN;
}

/*
 * Whether a task switched out inside a mutual exclusion's section, polled again, goes on in its
 * section (its sync site's row, until its release): only while it holds the object still as far
 * as the events say (`still_holder`). An acquire of the object meanwhile joined its path to its
 * last fragment's end (TP_SPAN_ACQUIRES_HOLDER_LAST): it let the object go before that, its
 * release comes late (and is dropped), and its next fragment is its task's.
 */
static inline bool tp_span_resumes_section(bool still_holder)
{
	return still_holder;
}

/*
 * A task's, beside its entry in the table of tasks alive. Each flag is a byte of its own, written
 * by one thread at a time: the thread polling the task (started, ran_undeferred, sync, holding),
 * its spawner (forked), or any thread that makes a successor of it (successors: atomic adds).
 */
struct tp_span_task {
	struct tp_live_path in, kids, desc;
	uint64_t parent; /* its parent task's id, 0 none (free: the next free entry's address) */
	int lock; /* taken to fold a child's end into kids and desc, or a predecessor's into in */
	uint32_t parent_at;  /* its parent's entry in the table of tasks alive, plus 1; 0 none */
	bool started;        /* polled once: `in` is its last fragment's end */
	bool ran_undeferred; /* switched out to run a child undeferred: nested work, no join */
	bool nestable;       /* the program's, no dependences (tp_span_first_poll_nests) */
	uint8_t successors;  /* edges waiting on its end in the dependences' table (255: or more) */
	bool spawner;        /* has spawned: children's ends may come into kids and desc */
	uint8_t sync;        /* the sync region its last poll ended in (enum tp_sync_kind) */
	bool holding;        /* switched out holding a mutual exclusion object (the pool's holds) */
	uint16_t sync_row;   /* and that sync construct's site row (0: none) */
	/* `desc` is `kids` (tp_span_desc): the same children ended, none of them with descendants
	 * ended before it, since both were last forgotten; kept once, not twice, at each end */
	bool desc_is_kids;
	bool overflowed; /* its successors wait in an overflow record (live_dependences.c) */
	uint8_t overflow_record; /* as a successor, its record there plus 1 (0: none), and */
	/* its end joins the region instance whose fork its start was (a primary's implicit task:
	 * live.c's live_region_forked), at any depth of nesting */
	bool joins;
	uint16_t overflow_generation; /* the record's generation then */
	/* the live statistics' times of the task (the converter's analysis keeps its own) */
	uint64_t ready_ns; /* woken (or spawned ready), not yet polled: 0 when not */
	/* its last poll ended unfinished, not yet polled again: 0 when not */
	uint64_t suspended_ns;
	uint64_t polled_ns; /* its polls' time so far, but the one going on */
};

/* Task `t`'s descendants ended since its last join (its `desc`, or its `kids` standing for it). */
static inline const struct tp_live_path *tp_span_desc(const struct tp_span_task *t)
{
	return t->desc_is_kids ? &t->kids : &t->desc;
}

/*
 * The tasks' states: a pool of entries handed out by a thread's own cache, most recently freed
 * first, so that a thread that spawns and ends tasks reuses the same few (in its caches): an
 * entry is found from its task's entry in the table of tasks alive, by its address. A cache gives
 * entries back to the pool in batches once it holds more than it needs, and all of them when its
 * thread ends. A cache's list is of addresses (each task's alloc and free, no conversion); the
 * pool's batches are of ids, 1 to the pool's capacity (0: none), beside a count in one word.
 */
#define TP_SPAN_CHUNK 64 /* entries a cache takes from the pool at a time */
#define TP_SPAN_BATCH 64 /* and gives back at a time, once it holds twice as many */
/* The most entries a cache holds unused: a pool this much larger per thread never runs out
 * before the table of tasks alive fills. */
#define TP_SPAN_CACHE_MOST (2 * TP_SPAN_BATCH + TP_SPAN_CHUNK)
struct tp_span_cache {
	struct tp_span_task
		*free;           /* its free list's first entry (NULL: none), linked by `parent` */
	uint32_t count;          /* entries on that list */
	uint32_t bump, bump_end; /* a chunk of the pool never used yet */
};

/*
 * The pool's memory: `capacity` entries, reserved (pages given as they are touched), and beside
 * them `holds`, as many: the mutual exclusion object each entry's task holds while switched out
 * (its `holding`), apart so that the entries of tasks that hold none stay as small.
 */
void tp_span_pool_start(struct tp_span_task *entries, uint64_t *holds, uint32_t capacity);
/* The calling thread ends: its cache's entries go back to the pool. */
void tp_span_cache_flush(struct tp_span_cache *c);
/* Entry `id` (not 0). */
extern struct tp_span_task *tp_span_pool __attribute__((visibility("hidden")));
static inline struct tp_span_task *tp_span_at(uint32_t id)
{
	return &tp_span_pool[id - 1];
}

/* Entry `t`'s place in the pool, in bytes (a table of the shim's keeps it in 32 bits), and back. */
static inline uint32_t tp_span_offset(const struct tp_span_task *t)
{
	return (uint32_t)((const char *)t - (const char *)tp_span_pool);
}

static inline struct tp_span_task *tp_span_at_offset(uint32_t offset)
{
	return (struct tp_span_task *)((char *)tp_span_pool + offset);
}

/* A thread's: its fragment now, and the last one it ran. */
struct tp_span_thread {
	/* the longest path to the start of the fragment it polls now; between polls, to the end of
	 * the last fragment of the graph it ran */
	struct tp_live_path in;
	unsigned site_at; /* the place of the polled task's site among `in`'s sites */
	/* the row of the mutual exclusion's section its polled task is in (0: none, or its wait
	 * had no site): it goes on across the task's switch outs until its release */
	uint32_t section_row;
	uint64_t last_task; /* that last fragment's task */
	uint64_t free_ns;   /* when it ended */
	/* the fragment it polls now: its poll's start, when it could start (the last end of what
	 * joins it) and the delay its burdened start path has for that (tp_live_start_delay);
	 * an acquire's join moves the last two (tp_span_acquired) */
	uint64_t start_ns, could_ns, delay_ns;
	bool in_graph; /* the fragment it polls now is in the graph */
	/* the mutual exclusion object its polled task acquired last and holds (0: none): its
	 * switch out marks it (tp_span_mutex) */
	uint64_t holds;
};

/* tp_span_path_site's place of a site without one on a full path: this + its row. */
#define TP_SPAN_PLACE_NEW TP_LIVE_PATH_SITES
/* `p` extended by `ns` of a fragment of site row `row`, placeless at its start: in its place if it
 * has one now, else in that of the site with the least time if `ns` is more (a lower bound if the
 * path gave one up before: TP_LIVE_PATH_SINCE_LOSS), else in no site kept: a site back for a
 * moment (an implicit task after its barrier) puts out none of milliseconds. */
void tp_span_path_extend_new(struct tp_live_path *p, uint32_t row, uint64_t ns, bool fragment);
/* `p` longer by `ns`, in no site it keeps. */
static inline void tp_span_path_lengthen(struct tp_live_path *p, uint64_t ns)
{
	p->ns += ns;
	p->burdened_ns += ns;
	p->placed_ns += ns;
}

/* `p` extended by `ns` of a fragment in the site at place `at` (tp_span_path_site's), counted as
 * one of its fragments on the path when `fragment` (a fragment split in parts counts once). */
static inline void tp_span_path_extend(struct tp_live_path *p, unsigned at, uint64_t ns,
				       bool fragment)
{
	if (__builtin_expect(at >= TP_SPAN_PLACE_NEW, 0)) {
		tp_span_path_extend_new(p, at - TP_SPAN_PLACE_NEW, ns, fragment);
		return;
	}
	tp_span_path_lengthen(p, ns);
	p->sites[at] += ns; /* the site's time, below its row */
	p->fragments[at] += fragment;
}

/* `p` extended by a fragment `ns` long in the site at place `at` (tp_span_path_site's). */
static inline void tp_span_path_add(struct tp_live_path *p, unsigned at, uint64_t ns)
{
	tp_span_path_extend(p, at, ns, true);
}

/* `into` becomes `p` when `p` is longer; it ended when the later of them did, and its placed
 * length is the larger of the two (each joins the fragment after). */
static inline void tp_span_path_max(struct tp_live_path *into, const struct tp_live_path *p)
{
	uint64_t ended = p->ended_ns > into->ended_ns ? p->ended_ns : into->ended_ns;
	uint64_t placed = p->placed_ns > into->placed_ns ? p->placed_ns : into->placed_ns;
	if (p->ns > into->ns)
		*into = *p;
	into->ended_ns = ended;
	into->placed_ns = placed;
}

/*
 * Path `p` forgotten: of length 0, it is never taken over another, and its sites are never read
 * (tp_span_path_max); its end and placed length are, at the joins that do not take it.
 */
static inline void tp_span_path_forget(struct tp_live_path *p)
{
	p->ns = p->burdened_ns = p->ended_ns = p->placed_ns = 0;
}

/*
 * Path `p`, OpenMP's initial task's as it goes on after an outermost region's join (every path
 * its thread makes later starts from it), committed into `c` (taskprobe_live.h's struct tp_live_commits): its
 * places' time by site added to the snapshot of the commit its committed place has (none: to
 * nothing), as a new commit's snapshot; then the path has one place, committed, of all its time,
 * and the others free for the next region's sites. False, the path as it was, when its committed
 * place's snapshot is too old to build on (the new one would overwrite it) or its places are more
 * than its length; true when it has nothing new to commit. Commits are made one at a time.
 */
bool tp_span_commit(struct tp_live_commits *c, struct tp_live_path *p);
/* Fresh statistics (a child of fork, whose parent's thread may have been inside a commit). */
void tp_span_commits_start(void);
/*
 * The same of `th`'s start path, its fragment going on of site row `row` (its place then taken
 * again in the committed path), by one thread alone (the first that commits until the main
 * thread, `main_thread`, does: a program's other roots commit none), once fewer than
 * TP_SPAN_COMMIT_FREE of its places are free: a
 * region's own sites (its implicit task's, a construct's inside it) then have places, and a loop
 * of one region a step (its initial task's and its region's places) commits nothing (a commit
 * cost `time-steps` 300 instructions a region).
 */
#define TP_SPAN_COMMIT_FREE 2
void tp_span_thread_commits(struct tp_span_thread *th, struct tp_live_commits *c, uint32_t row,
			    bool main_thread);

/*
 * Forks: per site row of parallel regions, the path to the last start of such a region (its
 * encountering task's fragment up to the start of the region's implicit task on the primary),
 * published by the primary at its implicit task's spawn, read by the region's other threads,
 * whose implicit tasks have no parent, at their spawn. A region's other implicit tasks may begin
 * before its primary's (the executor releases them first): an outermost region's then start
 * after the initial task's fragment so far (live_shared_paths.c: live_initial_so_far),
 * --analyze's rule too. The fork published after such a spawn is NOT joined: it lies after the
 * worker's real start (the primary's runtime time between the release and its report), and a
 * path through it would be longer than any order the run had; a nested region's worker spawned
 * first misses its encountering task's fragment (a path too short, never too long). An earlier
 * region's fork of the same row is never longer than the one of the region they are in: joining
 * it is harmless.
 */
/*
 * A path threads share (a region's fork, a barrier's frozen path), with the moment it was
 * written: written by one thread at a time, which holds `lock`, and read by any without it,
 * inside a sequence (`seq`, odd while written), so that many threads leaving a barrier or
 * starting a region's implicit tasks never queue on one lock.
 */
struct tp_span_shared {
	int lock;
	uint32_t seq;
	uint64_t at_ns;
	struct tp_live_path path;
};
/* `s` becomes `p` written at `at_ns`: the caller holds s->lock. */
void tp_span_shared_write(struct tp_span_shared *s, const struct tp_live_path *p, uint64_t at_ns);
/* `s`'s path, read whole (torn only past a writer that never finishes), into `out`; returns
 * when it was written. */
uint64_t tp_span_shared_read(const struct tp_span_shared *s, struct tp_live_path *out);

/* `forks` has a fork per site row, `rows` of them: zeroed, for fresh statistics. */
void tp_span_forks_start(struct tp_span_shared *forks, uint32_t rows);
/* A region of site row `row` starts with the path `p`: its primary's implicit task's start, whose
 * ended_ns is that task's spawn (tp_span_spawned). */
void tp_span_fork(uint32_t row, const struct tp_live_path *p);
/* When the last region of site row `row` started (its fork's ended_ns; 0: none). */
uint64_t tp_span_fork_at(uint32_t row);

/*
 * Whether the poll of `t` that starts needs the barrier's frozen path: its last poll ended in a
 * barrier (a task not polled yet has none: tp_span_spawned).
 */
static inline bool tp_span_barrier_needs(const struct tp_span_task *t)
{
	/* tp_span_join_of's one sync that joins everything ended: one compare at every poll */
	return t->sync == TP_SYNC_BARRIER;
}

/*
 * The thread's fragment polled now is split at `now`, its part's first `ns`: those are added to
 * its start path in the site they ran in (a part of the fragment on the path: one of its
 * fragments there when `fragment`), and the rest is a part begun at `now`
 * (tp_span_part_begins), whose site the caller says (th->site_at): the critical path's time
 * inside a mutual exclusion's sections is its sync site's, not its task's (issue 35).
 */
void tp_span_split(struct tp_span_thread *th, uint64_t ns, uint64_t now, bool fragment);

/*
 * Mutual exclusion (issue 35): the path to a release of an object (a lock, a critical or ordered
 * construct) is remembered for it; an acquire of it joins that path. In a fixed table by the
 * object's hash, each entry under its own lock: an object whose entry another took meanwhile
 * (TP_SPAN_MUTEXES objects in use at once, or a collision) finds none (an edge lost, never a
 * wait), and a release whose entry another object's holder has is dropped.
 *
 * Acquires come in the order the runtime granted them, releases not always: a holder's thread
 * preempted between the runtime's unlock and its release event says its release after the next
 * holder's acquire (on a loaded machine even after that holder's own release). So the entry
 * also keeps its holder (the task, its path at its fragment's part going on and since when, or,
 * switched out, its path to its last fragment's end): an acquire that finds another task
 * holding the object takes the holder's path up to now while a thread polls it, its section so
 * far one fragment on it, else its path to its last fragment's end (a task not polled does no
 * work: tp_span_acquire_joins); it let the object go before. A release is the object's last
 * only while its task holds it: a late one is dropped. --analyze's rule, the same (analysis.c:
 * on_acquire, on_release). A task's switch out and its next poll tell the entry of the object it
 * acquired last only (tp_span_thread's `holds`): one holding another object too is taken as
 * polled for that one.
 */
#define TP_SPAN_MUTEXES 1024
struct tp_span_mutex {
	int lock;
	uint64_t object;
	uint64_t holder; /* the task that holds it (0: none) */
	struct tp_live_path released;
	/* the holder's path where its fragment's part going on began (`held_at`: its site's
	 * place), at `held_from`; switched out (not `holder_polled`), to its last fragment's end */
	struct tp_live_path held;
	uint64_t held_from;
	unsigned held_at;
	uint32_t held_section; /* switched out: its section's row (tp_span_thread's section_row) */
	bool holder_polled;
};
/* `mutexes` has TP_SPAN_MUTEXES entries, zeroed (fresh pages), for fresh statistics. */
void tp_span_mutexes_start(struct tp_span_mutex *mutexes);
/*
 * `object` is released by task `task` on thread `th` at `now`, `ns` into its fragment's part
 * going on (`split`: the release split the fragment there, tp_span_release_splits, and `ns` is
 * 0): its path to now kept, if the task holds it, that part one fragment on it unless split
 * (tp_span_release_part_is_fragment).
 */
void tp_span_released(const struct tp_span_thread *th, uint64_t task, uint64_t ns, uint64_t now,
		      bool split, uint64_t object);
/*
 * `object` is acquired by task `task` on `th` at `now`, at its fragment's part's start (the part
 * before the acquire split off: tp_span_acquire_splits): that start joins the object's last
 * release, or its holder's path up to now. Its wait for it is no start delay: the burdened start
 * path's delay is from the release (tp_live_start_delay).
 */
void tp_span_acquired(struct tp_span_thread *th, uint64_t task, uint64_t now, uint64_t object);
/* Task `task` on `th` holds `object` from `now`, its path at the fragment's part going on now. */
void tp_span_holds(const struct tp_span_thread *th, uint64_t task, uint64_t now, uint64_t object);

/*
 * The events (the contract's task-acquire and task-release), as the live statistics take them:
 * task `task`, polled by `th`, acquires `object` at `now`, `ns` into its fragment's part going
 * on. Its part so far stays in the site it ran in, and its section starts after the longer of
 * that part and the object's last release (tp_span_acquire_splits, tp_span_acquired); the
 * section is site row `section_row`'s (its sync construct's; 0 when not known: then its task's,
 * `row`); it holds the object from now. The caller's part going on starts at `now`.
 */
void tp_span_acquire(struct tp_span_thread *th, uint64_t task, uint64_t now, uint64_t ns,
		     uint32_t section_row, uint32_t row, uint64_t object);
/*
 * Task `task`, polled by `th`, releases `object` at `now`, `ns` into its fragment's part going
 * on: a section in its sync construct's row (th's section_row, kept across the task's switch
 * outs) is one fragment of that site's on the path, and the rest is site row `row`'s (its
 * task's); the path to now is the object's next acquirer's, while the task holds it. Returns
 * whether the release split the fragment (tp_span_release_splits): the caller's part going on
 * is then from `now`.
 */
bool tp_span_release(struct tp_span_thread *th, uint64_t task, uint64_t now, uint64_t ns,
		     uint32_t row, uint64_t object);

/* A predecessor ended with `end`: its successor `succ` (not started; while `*succ_id` is `id`)
 * starts after it. */
void tp_span_predecessor_ended(struct tp_span_task *succ, const uint64_t *succ_id, uint64_t id,
			       const struct tp_live_path *end);
