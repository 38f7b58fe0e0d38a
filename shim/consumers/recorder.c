// SPDX-License-Identifier: MIT
/*
 * The in-process recorder (recorder.h), its hot path: each event's record, written in line into
 * the calling thread's buffer, or folded into its last compact record. The rest of the recorder
 * and what its files share: recorder_private.h.
 */
#define _GNU_SOURCE
#include "recorder_private.h"

#include "in_process_consumers.h"

#include <limits.h>

#include "clock.h"
#include "reentry.h"
#include "spin_lock.h"

/* The calling thread's share of the recorder (recorder_private.h). */
__thread struct recorder_thread mine __attribute__((tls_model("initial-exec")));

/*
 * The record of almost every event, timed `now` (tp_clock_now's, read by the event layer), with
 * no call on its way: room for the largest is checked once, and all four arguments are written
 * (what lies past `nargs` is the next record's place, written over by it).
 */
#define FAST_RECORD_BYTES (sizeof(struct tp_record) + 4 * sizeof(uint64_t))
_Static_assert(FAST_RECORD_BYTES == 8 * COMPACT_RECORD_WORDS, "a compact record is a fast one");

static inline __attribute__((always_inline)) void record_fast(enum tp_record_type type,
							      uint32_t small, unsigned nargs,
							      uint64_t a0, uint64_t a1, uint64_t a2,
							      uint64_t a3, uint64_t now)
{
	if (__builtin_expect(mine.busy || (mine.park_pending && type != TP_RECORD_WAITED), 0)) {
		/* a signal handler's: dropped; a kept-back park first */
		record_slow(type, small, nargs, a0, a1, a2, a3, now);
		return;
	}
	/* busy before anything is read: a signal handler's event in between cannot move it */
	tp_guard_enter(&mine.busy);
	struct tp_record_buffer *b = mine.buffer;
	if (__builtin_expect(b == NULL || b->used + FAST_RECORD_BYTES > TP_RECORD_BUFFER_BYTES ||
				     now - b->base > TP_RECORD_WRITE_PERIOD,
			     0)) {
		tp_guard_leave(&mine.busy, false);
		record_slow(type, small, nargs, a0, a1, a2, a3, now);
		return;
	}
	uint64_t delta = now - b->base;
	uint32_t used = b->used;
	struct tp_record *r = (struct tp_record *)(b->data + used);
	r->word = tp_record_word(type, 1 + nargs, small | takes_park(type), delta);
	r->arg[0] = a0;
	r->arg[1] = a1;
	r->arg[2] = a2;
	r->arg[3] = a3;
	if (is_compact(type))
		b->last = used;
	b->records++;
	__atomic_store_n(&b->used, used + 8 * (1 + nargs), __ATOMIC_RELEASE);
	tp_guard_leave(&mine.busy, false);
}

void tp_record(enum tp_record_type type, uint32_t small, unsigned nargs, uint64_t a0, uint64_t a1,
	       uint64_t a2, uint64_t a3)
{
	record_fast(type, small, nargs, a0, a1, a2, a3, tp_clock_now());
}

void tp_record_at(enum tp_record_type type, uint32_t small, unsigned nargs, uint64_t a0,
		  uint64_t a1, uint64_t a2, uint64_t a3, uint64_t at)
{
	record_fast(type, small, nargs, a0, a1, a2, a3, at);
}

/*
 * Folding (taskprobe_recording.h, version 9): an event that follows another on its thread is
 * written into that one's compact record, while it is the thread's last record, in its buffer
 * and not yet written out. fold_begin gives that record, the recorder entered (busy), or NULL
 * (nothing entered); fold_done or fold_cancel leaves. A park kept back is written first, timed
 * as the event: `at` (0: now).
 */
static inline struct tp_record *fold_begin(uint64_t at)
{
	if (__builtin_expect(mine.busy || mine.park_pending, 0)) {
		if (!mine.busy) /* a kept-back park first: then nothing folds */
			park_written(at);
		return NULL;
	}
	tp_guard_enter(&mine.busy);
	struct tp_record_buffer *b = mine.buffer;
	if (b != NULL && b->last != NO_LAST) {
		struct tp_record *r = (struct tp_record *)(b->data + b->last);
		if (b->last + tp_record_bytes(r->word) == b->used &&
		    b->last >= __atomic_load_n(&b->written, __ATOMIC_RELAXED))
			return r;
	}
	tp_guard_leave(&mine.busy, false);
	return NULL;
}

static inline void fold_cancel(void)
{
	tp_guard_leave(&mine.busy, false);
}

/* `word` with `bits` set in its small argument. */
static inline uint64_t with_small(uint64_t word, unsigned bits)
{
	return word | (uint64_t)bits << (TP_RECORD_TYPE_BITS + TP_RECORD_WORDS_BITS);
}

/* Sets the record's word with `events` folded into it (their arguments stored before), and
 * leaves. */
static inline void fold_done_events(struct tp_record *r, uint64_t word, unsigned events)
{
	struct tp_record_buffer *b = mine.buffer;
	__atomic_store_n(&r->word, word, __ATOMIC_RELAXED);
	/*
	 * another thread wrote the record out meanwhile (an exit's, an exec's write of every
	 * buffer): its copy may be from before the fold, so the events are counted as lost
	 */
	if (__builtin_expect(b->last < __atomic_load_n(&b->written, __ATOMIC_RELAXED), 0))
		__atomic_fetch_add(&b->dropped, events, __ATOMIC_RELAXED);
	tp_guard_leave(&mine.busy, false);
}

/* The same with one event folded. */
static inline void fold_done(struct tp_record *r, uint64_t word)
{
	fold_done_events(r, word, 1);
}

/* The time from record `r` (of the thread's buffer) to `now`, if it fits a compact record. */
static inline bool since_record_at(const struct tp_record *r, uint64_t now, uint64_t *duration)
{
	*duration = now - (mine.buffer->base + tp_record_delta(r->word));
	return *duration <= UINT32_MAX;
}

/* Sets argument `i` of the record (one of its words: never past it, at the buffer's end). */
static inline void fold_arg(struct tp_record *r, unsigned i, uint64_t value)
{
	if (__builtin_expect(8 * (i + 2) <= tp_record_bytes(r->word), 1))
		__atomic_store_n(&r->arg[i], value, __ATOMIC_RELAXED);
}

/* The wake of a task woken as it is spawned goes in its compact record at once: no fold. */
void tp_record_task_spawn(uint64_t task, uint64_t parent, uint32_t site, uint64_t stack_id,
			  uint32_t small, bool woken, uint64_t at)
{
	record_site_code(site, TP_SITE_CODE_CALL);
	if (task <= UINT32_MAX && parent <= UINT32_MAX && stack_id <= UINT32_MAX &&
	    tp_record_spawn_executor(small) <= TP_COMPACT_SPAWN_EXECUTOR) {
		record_fast(TP_RECORD_TASK_SPAWNED, small | (woken ? TP_COMPACT_WOKEN : 0), 2,
			    tp_compact_pair((uint32_t)task, (uint32_t)parent),
			    tp_compact_pair(site, (uint32_t)stack_id), 0, 0, at);
		return;
	}
	tp_record_at(TP_RECORD_TASK_SPAWN, small, 4, task, parent, site, stack_id, at);
	if (woken)
		tp_record_at(TP_RECORD_TASK_WAKE, 0, 2, task, parent, 0, 0, at);
}

void tp_record_task_wake(uint64_t task, uint64_t waker, uint64_t at)
{
	struct tp_record *r = task <= UINT32_MAX && waker <= UINT32_MAX ? fold_begin(at) : NULL;
	if (r != NULL) {
		/* woken by its parent right after its spawn */
		if (tp_record_type(r->word) == TP_RECORD_TASK_SPAWNED &&
		    r->arg[0] == tp_compact_pair((uint32_t)task, (uint32_t)waker) &&
		    !(tp_record_small(r->word) & TP_COMPACT_WOKEN)) {
			fold_done(r, with_small(r->word, TP_COMPACT_WOKEN));
			return;
		}
		fold_cancel();
	}
	tp_record_at(TP_RECORD_TASK_WAKE, 0, 2, task, waker, 0, 0, at);
}

void tp_record_worker_unpark(bool by_wait)
{
	if (!by_wait) {
		/* an executor's: a record the poll it starts next folds into */
		tp_record(TP_RECORD_TASK_POLLED, TP_COMPACT_UNPARKED, 1, 0, 0, 0, 0);
		return;
	}
	struct tp_record *r = fold_begin(0);
	if (r != NULL) {
		/* the wait that parked the thread: right after its end, or (a jump out of it) before */
		unsigned small = tp_record_small(r->word);
		uint64_t duration;
		if (tp_record_type(r->word) == TP_RECORD_WAITED &&
		    (small & (TP_COMPACT_WAIT_PARKED | TP_COMPACT_WAIT_UNPARKED)) ==
			    TP_COMPACT_WAIT_PARKED &&
		    ((small & TP_COMPACT_WAIT_ENDED) ||
		     since_record_at(r, tp_clock_now(), &duration))) {
			if (!(small & TP_COMPACT_WAIT_ENDED))
				fold_arg(r, 2, tp_compact_pair(0, (uint32_t)duration));
			fold_done(r, with_small(r->word, TP_COMPACT_WAIT_UNPARKED));
			return;
		}
		fold_cancel();
	}
	tp_record(TP_RECORD_WORKER_UNPARK, 0, 0, 0, 0, 0, 0);
}

/* Both at one moment: the record they fold into (tp_record_worker_unpark's and
 * tp_record_task_poll_start's), made at once, with one clock read for both. */
void tp_record_unpark_poll_start(uint64_t task, uint64_t at)
{
	if (task > UINT32_MAX) {
		tp_record_at(TP_RECORD_TASK_POLLED, TP_COMPACT_UNPARKED, 1, 0, 0, 0, 0, at);
		tp_record_at(TP_RECORD_TASK_POLL_START, 0, 1, task, 0, 0, 0, at);
		return;
	}
	record_fast(TP_RECORD_TASK_POLLED, TP_COMPACT_UNPARKED | TP_COMPACT_STARTED, 1, task, 0, 0,
		    0, at);
}

/*
 * A task woken as it is first scheduled, on a thread that polls no task (unparked by its
 * executor at the same moment when `unparked`), and its poll's start: one record, no fold tried
 * (the wake comes first, and a wake folds only into its spawn).
 */
void tp_record_wake_poll_start(uint64_t task, bool unparked, uint64_t at)
{
	if (task > UINT32_MAX) {
		tp_record_task_wake(task, 0, at);
		if (unparked)
			tp_record_unpark_poll_start(task, at);
		else
			tp_record_task_poll_start(task, at);
		return;
	}
	record_fast(TP_RECORD_TASK_WOKEN_POLLED,
		    (unparked ? TP_COMPACT_UNPARKED : 0) | TP_COMPACT_STARTED, 1, task, 0, 0, 0,
		    at);
}

/* task-poll-start in a record of its own: a poll that folds into no record before it. */
static inline __attribute__((always_inline)) void poll_start_alone(uint64_t task, uint64_t at)
{
	if (task > UINT32_MAX)
		record_fast(TP_RECORD_TASK_POLL_START, 0, 1, task, 0, 0, 0, at);
	else
		record_fast(TP_RECORD_TASK_POLLED, TP_COMPACT_STARTED, 1, task, 0, 0, 0, at);
}

void tp_record_task_poll_start(uint64_t task, uint64_t at)
{
	struct tp_record *r = task <= UINT32_MAX ? fold_begin(at) : NULL;
	if (r != NULL) {
		if (tp_record_type(r->word) == TP_RECORD_TASK_POLLED &&
		    tp_record_small(r->word) == TP_COMPACT_UNPARKED) {
			fold_arg(r, 0, task);
			fold_done(r, with_small(r->word, TP_COMPACT_STARTED));
			return;
		}
		fold_cancel();
	}
	poll_start_alone(task, at);
}

/* Whether a task's end fits a compact record. */
static inline bool end_compact(uint64_t task, uint32_t reason)
{
	return task <= UINT32_MAX && reason <= TP_COMPACT_REASON >> TP_COMPACT_REASON_SHIFT;
}

/*
 * Whether record `r` is of `task`'s poll, started (a TP_RECORD_TASK_POLLED or _WOKEN_POLLED that
 * started it, or a TP_RECORD_TASK_SWITCHED to it) and then as `state` says: TP_COMPACT_STARTED
 * (nothing since), or with TP_COMPACT_TERMINATED (its terminate since). A switch's record has no
 * STARTED bit (its next's poll always starts): it is taken as set.
 */
static inline bool poll_record_of(const struct tp_record *r, uint64_t task, unsigned state)
{
	unsigned type = tp_record_type(r->word);
	return (type == TP_RECORD_TASK_POLLED || type == TP_RECORD_TASK_SWITCHED ||
		type == TP_RECORD_TASK_WOKEN_POLLED) &&
	       tp_compact_low(r->arg[0]) == task &&
	       ((tp_record_small(r->word) |
		 (type == TP_RECORD_TASK_SWITCHED ? TP_COMPACT_STARTED : 0)) &
		(TP_COMPACT_STARTED | TP_COMPACT_TERMINATED | TP_COMPACT_ENDED)) == state;
}

/*
 * Folds task-terminate into the record of the poll it ends (started, with nothing in between),
 * with `then` the events that follow it at once: none (0), the task's last poll's end
 * (TP_COMPACT_ENDED), and its thread's park by its executor (| TP_COMPACT_PARKED); and, when
 * `resumed` is not NULL and the record is the switch to the task from `resume`, that task's
 * poll again (TP_COMPACT_RESUMED, *resumed set). At once, as the folds one after the other
 * would (a drop counts each): true; else false, nothing done.
 */
static inline __attribute__((always_inline)) bool terminate_folded(uint64_t task, uint32_t reason,
								   uint64_t at, unsigned then,
								   uint64_t resume, bool *resumed)
{
	struct tp_record *r = end_compact(task, reason) ? fold_begin(at) : NULL;
	if (r == NULL)
		return false;
	uint64_t duration;
	if (poll_record_of(r, task, TP_COMPACT_STARTED) && since_record_at(r, at, &duration)) {
		if (resumed != NULL && tp_record_type(r->word) == TP_RECORD_TASK_SWITCHED &&
		    r->arg[1] == resume) {
			then |= TP_COMPACT_RESUMED;
			*resumed = true;
		}
		fold_arg(r, 0, tp_compact_pair((uint32_t)task, (uint32_t)duration));
		fold_done_events(r,
				 with_small(r->word, TP_COMPACT_TERMINATED |
							     reason << TP_COMPACT_REASON_SHIFT |
							     then),
				 1 + (unsigned)__builtin_popcount(then));
		return true;
	}
	fold_cancel();
	return false;
}

/* task-terminate in a record of its own: no fold to try, or one tried (terminate_folded). */
static void terminate_alone(uint64_t task, uint32_t reason, uint64_t at)
{
	if (end_compact(task, reason))
		tp_record_at(TP_RECORD_TASK_ENDED, reason << TP_COMPACT_REASON_SHIFT, 1, task, 0, 0,
			     0, at);
	else
		tp_record_at(TP_RECORD_TASK_TERMINATE, reason, 1, task, 0, 0, 0, at);
}

static inline __attribute__((always_inline)) void
record_task_terminate(uint64_t task, uint32_t reason, uint64_t at)
{
	if (!terminate_folded(task, reason, at, 0, 0, NULL))
		terminate_alone(task, reason, at);
}

void tp_record_task_terminate(uint64_t task, uint32_t reason, uint64_t at)
{
	record_task_terminate(task, reason, at);
}

/* Folds task-poll-end (sync none) into the record of the task's poll or of its terminate. */
static inline __attribute__((always_inline)) bool poll_end_folded(uint64_t task, uint32_t done,
								  uint64_t at)
{
	struct tp_record *r = fold_begin(at);
	if (r == NULL)
		return false;
	unsigned small = tp_record_small(r->word);
	uint64_t duration;
	/* a poll that ends with nothing in between; done, after its terminate */
	if (poll_record_of(r, task,
			   done ? TP_COMPACT_STARTED | TP_COMPACT_TERMINATED
				: TP_COMPACT_STARTED)) {
		if (done || since_record_at(r, at, &duration)) {
			if (!done)
				fold_arg(r, 0, tp_compact_pair((uint32_t)task, (uint32_t)duration));
			fold_done(r, with_small(r->word, TP_COMPACT_ENDED));
			return true;
		}
	} else if (tp_record_type(r->word) == TP_RECORD_TASK_ENDED && done && r->arg[0] == task &&
		   !(small & (TP_COMPACT_ENDED | TP_COMPACT_PARKED))) {
		fold_done(r, with_small(r->word, TP_COMPACT_ENDED));
		return true;
	}
	fold_cancel();
	return false;
}

static inline __attribute__((always_inline)) void
record_task_poll_end(uint64_t task, uint32_t done, uint32_t sync, uint32_t site, uint64_t at)
{
	if (sync == 0 && task <= UINT32_MAX && poll_end_folded(task, done, at))
		return;
	if (site != 0)
		record_site_code(site, TP_SITE_CODE_CALL);
	if (task <= UINT32_MAX && sync <= TP_COMPACT_SYNC_MAX)
		record_fast(TP_RECORD_TASK_PAUSED, tp_record_poll_end_small(done, sync), 1,
			    tp_compact_pair((uint32_t)task, site), 0, 0, 0, at);
	else if (site == 0)
		tp_record_at(TP_RECORD_TASK_POLL_END, tp_record_poll_end_small(done, sync), 1, task,
			     0, 0, 0, at);
	else
		tp_record_at(TP_RECORD_TASK_POLL_END, tp_record_poll_end_small(done, sync), 2, task,
			     site, 0, 0, at);
}

void tp_record_task_poll_end(uint64_t task, uint32_t done, uint32_t sync, uint32_t site,
			     uint64_t at)
{
	record_task_poll_end(task, done, sync, site, at);
}

/*
 * A switch is one record (TP_RECORD_TASK_SWITCHED, `small` its flags), unless the poll it ends
 * folds into the thread's last record (a poll with nothing in it), or its ids do not fit, or the
 * task ends done (its poll's end then a record of its own): true when that record was written,
 * else false, the poll's end recorded and the rest of the switch the caller's.
 */
static inline __attribute__((always_inline)) bool
switch_recorded(uint64_t ending, uint32_t done, uint64_t next, unsigned small, uint64_t at)
{
	if (done == 0 && ending <= UINT32_MAX && next <= UINT32_MAX) {
		if (!poll_end_folded(ending, 0, at)) {
			record_fast(TP_RECORD_TASK_SWITCHED, small, 2, next, ending, 0, 0, at);
			return true;
		}
	} else {
		record_task_poll_end(ending, done, 0, 0, at);
	}
	return false;
}

/*
 * Apart from the switch's record, the next poll's start folds into nothing: the poll's end before
 * it left the thread's last record ended (folded), paused, or not compact (the record's own,
 * after the last compact one), and a poll starts in a record only unparked alone. So it is
 * written at once, with no fold tried.
 */
void tp_record_task_switch(uint64_t ending, uint32_t done, uint64_t next, uint64_t at)
{
	if (!switch_recorded(ending, done, next, 0, at))
		poll_start_alone(next, at);
}

/* Apart from the switch's record, the records of the events as their calls one after the other
 * would write them. */
void tp_record_task_switch_woken(uint64_t ending, uint32_t done, uint64_t next, uint64_t at)
{
	if (switch_recorded(ending, done, next, TP_COMPACT_SWITCH_WOKEN, at))
		return;
	tp_record_task_wake(next, 0, at);
	tp_record_task_poll_start(next, at);
}

/* The next poll's start folds into the switch's record when its task is the one the switch to
 * this task left (a child run at once, then its parent again). */
void tp_record_task_end_switch(uint64_t task, uint32_t reason, uint64_t next, uint64_t at)
{
	bool resumed = false;
	if (!terminate_folded(task, reason, at, TP_COMPACT_ENDED, next, &resumed)) {
		terminate_alone(task, reason, at);
		record_task_poll_end(task, 1, 0, 0, at);
	}
	if (!resumed)
		poll_start_alone(next, at);
}

/* An executor's worker-thread-park, right after the poll's end it follows. */
static inline __attribute__((always_inline)) void record_executor_park(void)
{
	struct tp_record *r = fold_begin(0);
	if (r != NULL) {
		/* right after the poll's end its executor records */
		unsigned small = tp_record_small(r->word), bit = 0;
		switch (tp_record_type(r->word)) {
		case TP_RECORD_TASK_SWITCHED: /* its poll resumed: not parked in */
			if (small & TP_COMPACT_RESUMED)
				break;
			/* fall through */
		case TP_RECORD_TASK_POLLED:
		case TP_RECORD_TASK_WOKEN_POLLED:
			bit = (small & (TP_COMPACT_ENDED | TP_COMPACT_PARKED)) == TP_COMPACT_ENDED
				      ? TP_COMPACT_PARKED
				      : 0;
			break;
		case TP_RECORD_TASK_PAUSED:
		case TP_RECORD_TASK_ENDED:
			bit = small & TP_COMPACT_PARKED ? 0 : TP_COMPACT_PARKED;
			break;
		default:
			break;
		}
		if (bit != 0) {
			fold_done(r, with_small(r->word, bit));
			return;
		}
		fold_cancel();
	}
	tp_record(TP_RECORD_WORKER_PARK, 0, 0, 0, 0, 0, 0);
}

void tp_record_worker_park(bool by_wait)
{
	if (by_wait) {
		/* kept back, no clock read: the wait-start that follows at once takes it */
		if (__builtin_expect(mine.busy || mine.park_pending, 0))
			tp_record(TP_RECORD_WORKER_PARK, 0, 0, 0, 0, 0, 0);
		else
			mine.park_pending = true;
		return;
	}
	record_executor_park();
}

void tp_record_task_poll_end_park(uint64_t task, uint32_t done, uint64_t at)
{
	record_task_poll_end(task, done, 0, 0, at);
	record_executor_park();
}

void tp_record_task_end_park(uint64_t task, uint32_t reason, uint64_t at)
{
	if (terminate_folded(task, reason, at, TP_COMPACT_ENDED | TP_COMPACT_PARKED, 0, NULL))
		return;
	terminate_alone(task, reason, at);
	record_task_poll_end(task, 1, 0, 0, at);
	record_executor_park();
}

/* Whether a wait's events fit a compact record (TP_RECORD_WAITED). */
static inline bool wait_compact(uint32_t kind, uint64_t task)
{
	/* an MPI call's wait keeps the records of its probes: the converter aligns ranks by them */
	return task <= UINT32_MAX && kind <= TP_COMPACT_WAIT_KIND && kind != TP_WAIT_MPI;
}

/* A wait's compact record (wait_compact's), its start's; `ended`: with its end folded in at once
 * (result 0, duration 0: tp_record_wait_at_once). */
static inline __attribute__((always_inline)) void record_waited(uint32_t kind, uintptr_t object,
								int64_t timeout_ns, uint64_t task,
								uint32_t site, bool ended,
								uint64_t at)
{
	record_fast(TP_RECORD_WAITED, kind | (ended ? TP_COMPACT_WAIT_ENDED : 0),
		    timeout_ns == -1 ? 3 : 4, object, tp_compact_pair((uint32_t)task, site),
		    tp_compact_pair(0, 0), (uint64_t)timeout_ns, at);
}

static inline __attribute__((always_inline)) void record_wait_start(uint32_t kind, uintptr_t object,
								    int64_t timeout_ns,
								    uint64_t task, uint32_t site,
								    uint64_t at)
{
	if (wait_compact(kind, task))
		record_waited(kind, object, timeout_ns, task, site, false, at);
	else
		tp_record_at(TP_RECORD_WAIT_START, kind, 4, object, (uint64_t)timeout_ns, task,
			     site, at);
}

/* A wait's start at a site not yet in the file: the site's code first. */
__attribute__((noinline)) static void record_wait_start_new_site(uint32_t kind, uintptr_t object,
								 int64_t timeout_ns, uint64_t task,
								 uint32_t site, uint64_t at)
{
	record_site_code(site, TP_SITE_CODE_CALL);
	record_wait_start(kind, object, timeout_ns, task, site, at);
}

/*
 * MPI's polls (tp_mpi_call_polls: MPI_Test in a loop) are one wait while they follow each other:
 * a poll that starts within TP_MPI_POLL_GAP_NS of the end of the same call's poll by the same
 * task, that end still the thread's last record, in its buffer, goes on the same wait. A program
 * that waits by polling then records one wait, not a record pair a call (millions a second), and
 * the time between its calls (its loop's) is the wait's. The end's record is taken back (under
 * the buffer's lock, as a write-out would take it); the next end ends the wait.
 */

static bool poll_goes_on(uintptr_t call, uint64_t task, uint64_t at)
{
	uint32_t end = mine.poll_end_at - 1;
	struct tp_record_buffer *b = mine.buffer;
	mine.poll_end_at = 0;
	if (end == UINT32_MAX || b == NULL || mine.busy || mine.park_pending)
		return false;
	tp_guard_enter(&mine.busy);
	tp_spin_lock(&b->writing);
	const struct tp_record *r = (const struct tp_record *)(b->data + end);
	uint64_t ended = b->base + tp_record_delta(r->word);
	bool goes_on = end + tp_record_bytes(r->word) == b->used && end >= b->written &&
		       tp_record_type(r->word) == TP_RECORD_WAIT_END &&
		       tp_record_small(r->word) == TP_WAIT_MPI && r->arg[0] == call &&
		       r->arg[2] == task && at >= ended && at - ended <= TP_MPI_POLL_GAP_NS;
	if (goes_on) {
		b->records--;
		__atomic_store_n(&b->used, end, __ATOMIC_RELEASE);
	}
	tp_spin_unlock(&b->writing);
	tp_guard_leave(&mine.busy, false);
	return goes_on;
}

/* Every slow path a tail call: a recorded wait's start keeps no registers. */
void tp_record_wait_start(uint32_t kind, uintptr_t object, int64_t timeout_ns, uint64_t task,
			  uint32_t site, uint64_t at)
{
	if (__builtin_expect(mine.poll_end_at != 0, 0) && kind == TP_WAIT_MPI &&
	    tp_mpi_call_polls(object) && poll_goes_on(object, task, at))
		return;
	if (__builtin_expect(!site_code_recorded(site), 0))
		record_wait_start_new_site(kind, object, timeout_ns, task, site, at);
	else
		record_wait_start(kind, object, timeout_ns, task, site, at);
}

/*
 * Its record made ended: the start's record with wait-end folded in at once (result 0, duration
 * 0), as tp_record_wait_end would fold it. A wait the compact record cannot hold, or an MPI
 * call's (whose polls join: poll_goes_on), as its two events.
 */
void tp_record_wait_at_once(uint32_t kind, uintptr_t object, int64_t timeout_ns, uint64_t task,
			    uint32_t site, uint64_t at)
{
	if (__builtin_expect(!wait_compact(kind, task) || !site_code_recorded(site), 0)) {
		tp_record_wait_start(kind, object, timeout_ns, task, site, at);
		tp_record_wait_end(kind, object, 0, task, at);
		return;
	}
	record_waited(kind, object, timeout_ns, task, site, true, at);
}

/* A wait-end with a record of its own (out of line: the folded one's path keeps no registers). */
__attribute__((noinline)) static void
record_wait_end_alone(uint32_t kind, uintptr_t object, int64_t result, uint64_t task, uint64_t at)
{
	tp_record_at(TP_RECORD_WAIT_END, kind, 3, object, (uint64_t)result, task, 0, at);
}

/* An MPI poll's wait-end, where it is kept (mine.poll_end_at) for a poll that follows. */
__attribute__((noinline)) static void poll_ended(uintptr_t call, int64_t result, uint64_t task,
						 uint64_t at)
{
	struct tp_record_buffer *b = mine.buffer;
	uint32_t end = b != NULL ? b->used : 0;
	record_wait_end_alone(TP_WAIT_MPI, call, result, task, at);
	mine.poll_end_at = b != NULL && b == mine.buffer && b->used == end + 8 * 4
				   ? end + 1
				   : 0; /* its word and 3 arguments */
}

/*
 * Folds wait-end into the record of the wait that started last (parked, maybe), if it is the
 * thread's last record, else records it on its own.
 */
void tp_record_wait_end(uint32_t kind, uintptr_t object, int64_t result, uint64_t task, uint64_t at)
{
	if (kind == TP_WAIT_MPI && tp_mpi_call_polls(object)) {
		poll_ended(object, result, task, at);
		return;
	}
	struct tp_record *r = result >= INT32_MIN && result <= INT32_MAX && task <= UINT32_MAX
				      ? fold_begin(at)
				      : NULL;
	if (r != NULL) {
		unsigned small = tp_record_small(r->word);
		uint64_t duration;
		if (tp_record_type(r->word) == TP_RECORD_WAITED &&
		    (small & TP_COMPACT_WAIT_KIND) == kind &&
		    !(small & (TP_COMPACT_WAIT_ENDED | TP_COMPACT_WAIT_UNPARKED)) &&
		    r->arg[0] == object && tp_compact_low(r->arg[1]) == task &&
		    since_record_at(r, at, &duration)) {
			/* a wait's record has its third argument (3 or 4 of them) */
			__atomic_store_n(
				&r->arg[2],
				tp_compact_pair((uint32_t)(int32_t)result, (uint32_t)duration),
				__ATOMIC_RELAXED);
			fold_done(r, with_small(r->word, TP_COMPACT_WAIT_ENDED));
			return;
		}
		fold_cancel();
	}
	record_wait_end_alone(kind, object, result, task, at);
}

void tp_record_thread_start(uint64_t tid, uintptr_t routine, uint64_t creator_tid)
{
	uint32_t site = tp_spawn_site_key_of_function((const void *)routine);
	record_site_code(site, TP_SITE_CODE_FUNCTION);
	tp_record(TP_RECORD_THREAD_START, 0, 4, tid, routine, creator_tid, site);
}
