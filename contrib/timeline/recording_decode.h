// SPDX-License-Identifier: MIT
/*
 * A record's events, as a perf sample of each probe would give them (taskprobe_recording.h): a
 * full record is one event, a compact one (version 6 on) several (a task's spawn and wake, its
 * poll's start and end, ...), each at the record's time or at its end. What an older version's
 * record lacks (a wait's site, a poll end's sync site) is left 0.
 *
 * Inline, as taskprobe_recording.h's own decoding is: the merge and the census decode every
 * event, and a call per event costs them a few percent.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "recording_book.h"
#include "taskprobe_contract.h"
#include "taskprobe_recording.h"

/* The arguments a record type needs, in 64-bit words (the site: its id). */
static inline unsigned args_needed(unsigned type)
{
	switch (type) {
	case TP_RECORD_TASK_SPAWN:
		return 4;
	case TP_RECORD_WAITED: /* object, task and site, result and duration (then a timeout) */
		return 3;
	case TP_RECORD_TASK_SPAWNED:
	case TP_RECORD_TASK_SWITCHED:
	case TP_RECORD_TASK_STACK:
	case TP_RECORD_TASK_WAKE:
	case TP_RECORD_TASK_DEPENDENCE:
	case TP_RECORD_TASK_ACQUIRE:
	case TP_RECORD_TASK_RELEASE:
		return 2;
	case TP_RECORD_MPI_INIT:
	case TP_RECORD_MPI_SEND:
	case TP_RECORD_MPI_RECV:
	case TP_RECORD_MPI_COLLECTIVE:
		return 4;
	case TP_RECORD_THREAD_START:
	case TP_RECORD_WAIT_START:
	case TP_RECORD_WAIT_END:
	case TP_RECORD_SITE_CODE:
	case TP_RECORD_WAIT_STACK: /* kind, object, stack id (then its return addresses) */
		return 3;
	case TP_RECORD_MODULE:
		return sizeof(struct tp_record_module) / 8;
	case TP_RECORD_WORKER_START:
	case TP_RECORD_WORKER_STOP:
	case TP_RECORD_WORKER_PARK:
	case TP_RECORD_WORKER_UNPARK:
	case TP_RECORD_REGION_OF_INTEREST:
	case TP_RECORD_PROCESS_EXIT:
		return 0;
	default:
		return 1;
	}
}

/*
 * Event `i` of a record of `type` and `small` (one of tp_record_events): its type (the probe's, a
 * compact record's given back, taskprobe_recording.h), and in *at_end whether it comes at the
 * compact record's end (its time + its duration) rather than at its time.
 */
static inline unsigned compact_event_type(unsigned type, unsigned small, unsigned i, bool *at_end)
{
	*at_end = false;
	/* a compact record's events, in their order, each when its flag is set */
	enum { ALWAYS = ~0u };
	static const struct {
		unsigned flag, type;
		bool at_end;
	} polled[] = {{TP_COMPACT_UNPARKED, TP_RECORD_WORKER_UNPARK, false},
		      {TP_COMPACT_STARTED, TP_RECORD_TASK_POLL_START, false},
		      {TP_COMPACT_TERMINATED, TP_RECORD_TASK_TERMINATE, true},
		      {TP_COMPACT_ENDED, TP_RECORD_TASK_POLL_END, true},
		      {TP_COMPACT_PARKED, TP_RECORD_WORKER_PARK, true}},
	  ended[] = {{ALWAYS, TP_RECORD_TASK_TERMINATE, false},
		     {TP_COMPACT_ENDED, TP_RECORD_TASK_POLL_END, false},
		     {TP_COMPACT_PARKED, TP_RECORD_WORKER_PARK, false}},
	  switched[] = {{ALWAYS, TP_RECORD_TASK_POLL_END, false},
			{TP_COMPACT_SWITCH_WOKEN, TP_RECORD_TASK_WAKE, false},
			{ALWAYS, TP_RECORD_TASK_POLL_START, false},
			{TP_COMPACT_TERMINATED, TP_RECORD_TASK_TERMINATE, true},
			{TP_COMPACT_ENDED, TP_RECORD_TASK_POLL_END, true},
			{TP_COMPACT_PARKED, TP_RECORD_WORKER_PARK, true},
			{TP_COMPACT_RESUMED, TP_RECORD_TASK_POLL_START, true}},
	  paused[] = {{ALWAYS, TP_RECORD_TASK_POLL_END, false},
		      {TP_COMPACT_PARKED, TP_RECORD_WORKER_PARK, false}},
	  spawned[] = {{ALWAYS, TP_RECORD_TASK_SPAWN, false},
		       {TP_COMPACT_WOKEN, TP_RECORD_TASK_WAKE, false}},
	  waited[] = {{TP_COMPACT_WAIT_PARKED, TP_RECORD_WORKER_PARK, false},
		      {ALWAYS, TP_RECORD_WAIT_START, false},
		      {TP_COMPACT_WAIT_ENDED, TP_RECORD_WAIT_END, true},
		      {TP_COMPACT_WAIT_UNPARKED, TP_RECORD_WORKER_UNPARK, true}};
	const void *events;
	size_t n;
	switch (type) {
#define EVENTS(array) (events = (array), n = sizeof(array) / sizeof(array)[0])
	case TP_RECORD_TASK_POLLED:
		EVENTS(polled);
		break;
	case TP_RECORD_TASK_ENDED:
		EVENTS(ended);
		break;
	case TP_RECORD_TASK_WOKEN_POLLED: /* its wake, then a POLLED record's events */
		if (i == 0)
			return TP_RECORD_TASK_WAKE;
		return compact_event_type(TP_RECORD_TASK_POLLED, small, i - 1, at_end);
	case TP_RECORD_TASK_SWITCHED:
		EVENTS(switched);
		break;
	case TP_RECORD_TASK_PAUSED:
		EVENTS(paused);
		break;
	case TP_RECORD_TASK_SPAWNED:
		EVENTS(spawned);
		break;
	case TP_RECORD_WAITED:
		EVENTS(waited);
		break;
#undef EVENTS
	default:
		return type;
	}
	const __typeof__(polled[0]) *e = events;
	for (size_t k = 0; k < n; k++)
		if ((e[k].flag == ALWAYS || (e[k].flag & small) != 0) && i-- == 0) {
			*at_end = e[k].at_end;
			return e[k].type;
		}
	return type; /* not reached: i is below tp_record_events */
}

/* The events of the types from the first compact one on, by type and `small`, an event a byte
 * (its type, and EVENT_AT_END), the first in the low byte: compact_event_type's answers once,
 * not per event. One table (14 KB) for every file that decodes events, made at the start
 * (recording.c). */
#define COMPACT_TYPES  (TP_RECORD_TYPES_END - TP_RECORD_TASK_SPAWNED)
#define COMPACT_EVENTS 6 /* at most (TP_RECORD_TASK_SWITCHED's, _WOKEN_POLLED's) */
#define EVENT_AT_END   0x80u
extern uint64_t compact_events[COMPACT_TYPES][TP_RECORD_SMALL_MAX + 1];

/*
 * The events of record `word`, a byte each (the first in the low byte): its type (the probe's, a
 * compact record's given back, taskprobe_recording.h), with EVENT_AT_END when it comes at the
 * compact record's end (its time + its duration) rather than at its time. A record is decoded
 * once, not once per event (event_of_record).
 */
static inline uint64_t record_events(uint64_t word)
{
	unsigned type = tp_record_type(word);
	if (!tp_record_compact(type))
		return type * 0x010101010101ull; /* any event: its type, as before */
	return compact_events[type - TP_RECORD_TASK_SPAWNED][tp_record_small(word)];
}

/* Event `i` of record_events' `events`: its byte (its type, EVENT_AT_END). */
static inline unsigned events_byte(uint64_t events, unsigned i)
{
	return (unsigned)(events >> (8 * i)) & 0xffu;
}

/* Event `i` of record_events' `events`: its type, and in *at_end whether it comes at the
 * record's end. */
static inline unsigned events_type(uint64_t events, unsigned i, bool *at_end)
{
	unsigned event = events_byte(events, i);
	*at_end = (event & EVENT_AT_END) != 0;
	return event & ~EVENT_AT_END;
}

/*
 * Event `i` of record `word` (one of tp_record_events): its type (the probe's, a compact
 * record's given back, taskprobe_recording.h), and in *at_end whether it comes at the compact
 * record's end (its time + its duration) rather than at its time.
 */
static inline unsigned event_type(uint64_t word, unsigned i, bool *at_end)
{
	if (i >= COMPACT_EVENTS) {
		*at_end = false;
		return tp_record_type(word);
	}
	return events_type(record_events(word), i, at_end);
}

/* The duration a compact record holds (0: none). */
static inline uint64_t record_duration(const struct tp_record *r)
{
	switch (tp_record_type(r->word)) {
	case TP_RECORD_TASK_POLLED:
	case TP_RECORD_TASK_WOKEN_POLLED:
	case TP_RECORD_TASK_SWITCHED:
		return tp_compact_high(r->arg[0]);
	case TP_RECORD_WAITED:
		return tp_compact_high(r->arg[2]);
	default:
		return 0;
	}
}

/* The clock time of an event of record `r` of chunk `h`, at the record's end or not (as
 * event_type says). */
static inline uint64_t event_time(const struct tp_recording_chunk *h, const struct tp_record *r,
				  bool at_end)
{
	return h->base_time + tp_record_delta(r->word) + (at_end ? record_duration(r) : 0);
}

/*
 * The times of record `r` of chunk `h` (of segment `s`), in nanoseconds (to_ns), its events
 * `events` (record_events) and `n_events` of them: *ns at its time, *end_ns at its end (*ns when
 * none of its events is at its end). Once a record, not once an event.
 */
static inline void record_times(const struct segment *s, const struct tp_recording_chunk *h,
				const struct tp_record *r, uint64_t events, unsigned n_events,
				uint64_t *ns, uint64_t *end_ns)
{
	*ns = to_ns(s, event_time(h, r, false));
	*end_ns = *ns;
	for (unsigned i = 0; i < n_events && i < COMPACT_EVENTS; i++)
		if ((events >> (8 * i) & EVENT_AT_END) != 0) {
			*end_ns = to_ns(s, event_time(h, r, true));
			return;
		}
}

/* The arguments of event `e` (its type set) of compact record `r`, at the record's end or not
 * (event_type's at_end). */
static inline void compact_event_of(const struct tp_record *r, bool at_end,
				    struct timeline_event *e)
{
	unsigned small = tp_record_small(r->word);
	const uint64_t *a = r->arg;
	switch (tp_record_type(r->word)) {
	case TP_RECORD_TASK_SPAWNED: /* spawn: task, parent, site id, site, stack id, executor */
		e->arg[0] = tp_compact_low(a[0]);
		e->arg[1] = tp_compact_high(a[0]);
		if (e->type == TP_RECORD_TASK_WAKE)
			break; /* task, waker: its parent */
		e->arg[2] = tp_compact_low(a[1]);
		e->arg[4] = tp_compact_high(a[1]);
		e->arg[5] = small & TP_COMPACT_SPAWN_EXECUTOR;
		e->undeferred = (small & TP_RECORD_SPAWN_UNDEFERRED) != 0;
		e->by_program = tp_record_spawn_by_program(small);
		break;
	case TP_RECORD_TASK_POLLED:       /* poll-start: task; terminate: task, reason; poll-end */
	case TP_RECORD_TASK_WOKEN_POLLED: /* the same; wake: task, no waker */
	case TP_RECORD_TASK_SWITCHED:     /* the same, of the next task; and at the record's time a
					     poll-end, at its end a poll-start: the task switched
					     from's (done 0) */
		if (e->type == TP_RECORD_WORKER_UNPARK || e->type == TP_RECORD_WORKER_PARK)
			break;
		if (tp_record_type(r->word) == TP_RECORD_TASK_SWITCHED &&
		    (e->type == TP_RECORD_TASK_POLL_END
			     ? !at_end
			     : e->type == TP_RECORD_TASK_POLL_START && at_end)) {
			e->arg[0] = tp_compact_low(a[1]);
			break;
		}
		e->arg[0] = tp_compact_low(a[0]);
		if (e->type == TP_RECORD_TASK_TERMINATE)
			e->arg[1] = (small & TP_COMPACT_REASON) >> TP_COMPACT_REASON_SHIFT;
		else if (e->type == TP_RECORD_TASK_POLL_END) /* done after a terminate, sync none */
			e->arg[1] = (small & TP_COMPACT_TERMINATED) != 0;
		break;
	case TP_RECORD_TASK_PAUSED: /* poll-end: task, done, sync, the sync's site key */
		if (e->type != TP_RECORD_TASK_POLL_END)
			break;
		e->arg[0] = tp_compact_low(a[0]);
		e->arg[1] = tp_record_poll_end_done(small);
		e->arg[2] = tp_record_poll_end_sync(small & ~TP_COMPACT_PARKED);
		e->arg[3] = tp_compact_high(a[0]);
		break;
	case TP_RECORD_TASK_ENDED: /* terminate: task, reason; poll-end: task, done */
		if (e->type == TP_RECORD_WORKER_PARK)
			break;
		e->arg[0] = (int64_t)a[0];
		e->arg[1] = e->type == TP_RECORD_TASK_TERMINATE
				    ? (small & TP_COMPACT_REASON) >> TP_COMPACT_REASON_SHIFT
				    : 1;
		break;
	case TP_RECORD_WAITED: /* kind, object, timeout or result, task; a start's site key */
		if (e->type != TP_RECORD_WAIT_START && e->type != TP_RECORD_WAIT_END)
			break;
		e->arg[0] = small & TP_COMPACT_WAIT_KIND;
		e->arg[1] = (int64_t)a[0];
		if (e->type == TP_RECORD_WAIT_END)
			e->arg[2] = (int32_t)tp_compact_low(a[2]);
		else /* no timeout: -1 */
			e->arg[2] = tp_record_bytes(r->word) > sizeof *r + 3 * sizeof a[0]
					    ? (int64_t)a[3]
					    : -1;
		e->arg[3] = tp_compact_low(a[1]);
		if (e->type == TP_RECORD_WAIT_START)
			e->arg[4] = tp_compact_high(a[1]);
		break;
	default:
		break;
	}
}

/* The fields of an event of chunk `ref` (of `segment`) that are its chunk's: its thread's name,
 * pid, tid, process, site scope and what its spawns say (event_of's first part; the others' are
 * left as they are). */
static inline void event_of_chunk(const struct chunk_ref *ref, const struct segment *segment,
				  struct timeline_event *e)
{
	memcpy(e->comm, ref->header->comm, sizeof ref->header->comm);
	e->comm[sizeof ref->header->comm - 1] = '\0';
	memset(e->comm + sizeof ref->header->comm, 0, sizeof e->comm - sizeof ref->header->comm);
	e->pid = segment->out_pid;
	e->process = segment->process;
	e->site_scope = segment->scope;
	e->spawner_known = segment->version >= 12;
	e->teams_known = segment->version >= 16;
	e->tid = ref->header->tid;
}

/*
 * Event_of's second part: the fields of event `event` (its byte of record_events': its type,
 * and EVENT_AT_END) of record `r` at `ns` that are not its chunk's, in an event whose chunk's
 * are set (event_of_chunk). A thread's events come in runs of its chunk: the merge's relay sets
 * the chunk's once a run (they were a quarter of event_of).
 */
static inline void event_of_record(const struct segment *segment, const struct tp_record *r,
				   unsigned event, uint64_t ns, struct timeline_event *e)
{
	/* each field set, not the whole zeroed: the compiler stores the fields with a few vector
	 * stores, the whole with a `rep stos` whose start cost a tenth of a conversion */
	e->ns = ns;
	e->type = event & ~EVENT_AT_END;
	memset(e->arg, 0, sizeof e->arg);
	e->text = NULL;
	e->text_len = 0;
	e->text_arg = 0;
	e->undeferred = e->by_program = e->named_as_process = false;
	e->start_routine_site = 0;
	_Static_assert(sizeof *e == 192, "every field is set, here or in event_of_chunk");
	unsigned small = tp_record_small(r->word);
	const uint64_t *a = r->arg;
	if (tp_record_compact(tp_record_type(r->word))) {
		compact_event_of(r, (event & EVENT_AT_END) != 0, e);
		return;
	}
	switch (e->type) {
	case TP_RECORD_TASK_SPAWN: /* task, parent, site id, site (text), stack id, executor */
		e->arg[0] = (int64_t)a[0];
		e->arg[1] = (int64_t)a[1];
		e->arg[2] = (int64_t)a[2];
		e->arg[4] = (int64_t)a[3];
		e->arg[5] = tp_record_spawn_executor(small);
		e->undeferred = (small & TP_RECORD_SPAWN_UNDEFERRED) != 0;
		e->by_program = tp_record_spawn_by_program(small);
		break;
	case TP_RECORD_TASK_STACK: /* task, stack id, pcs (an address), depth */
		e->arg[0] = (int64_t)a[0];
		e->arg[1] = (int64_t)a[1];
		e->arg[3] = small;
		break;
	case TP_RECORD_TASK_POLL_END: /* task, done, sync; since version 7 the sync's site key */
		e->arg[0] = (int64_t)a[0];
		e->arg[1] = tp_record_poll_end_done(small);
		e->arg[2] = tp_record_poll_end_sync(small);
		if (tp_record_bytes(r->word) >= sizeof *r + 2 * sizeof a[0])
			e->arg[3] = (int64_t)a[1];
		break;
	case TP_RECORD_TASK_ACQUIRE:
	case TP_RECORD_TASK_RELEASE: /* task, kind, object */
		e->arg[0] = (int64_t)a[0];
		e->arg[1] = small;
		e->arg[2] = (int64_t)a[1];
		break;
	case TP_RECORD_REGION_OF_INTEREST: /* on, and a start's marker (version 15; before, 0) */
		e->arg[0] = small & 1;
		e->arg[1] = small >> 1;
		break;
	case TP_RECORD_MPI_INIT: /* rank, size, host (text), job (text): the text is host's */
		e->arg[0] = (int64_t)a[0];
		e->arg[1] = (int64_t)a[1];
		e->text = (const char *)&a[4];
		e->text_len = (uint32_t)strnlen(e->text, small);
		e->text_arg = 3;
		break;
	case TP_RECORD_TASK_TERMINATE:
		e->arg[0] = (int64_t)a[0];
		e->arg[1] = small;
		break;
	case TP_RECORD_MPI_SEND:
	case TP_RECORD_MPI_RECV: /* peer, tag, communicator (0 before version 14's), bytes */
		for (int i = 0; i < 4; i++)
			e->arg[i] = (int64_t)a[i];
		e->arg[2] = (int64_t)tp_record_mpi_communicator(small, a);
		break;
	case TP_RECORD_WAIT_START:
	case TP_RECORD_WAIT_END: /* kind, object, timeout or result, task; a start's site key */
		e->arg[0] = small;
		for (int i = 0; i < 3; i++)
			e->arg[1 + i] = (int64_t)a[i];
		/* since version 4 a start has its call site's key (a site id of the segment) */
		if (e->type == TP_RECORD_WAIT_START &&
		    tp_record_bytes(r->word) >= sizeof *r + 4 * sizeof a[0])
			e->arg[4] = (int64_t)a[3];
		break;
	case TP_RECORD_THREAD_START: /* tid, start routine, creator; the routine's site key */
		for (int i = 0; i < 3; i++)
			e->arg[i] = (int64_t)a[i];
		if (tp_record_bytes(r->word) >= sizeof *r + 4 * sizeof a[0])
			e->start_routine_site = a[3];
		e->named_as_process = strncmp(e->comm, segment->comm, sizeof segment->comm) == 0;
		break;
	default:
		for (unsigned i = 0; i < args_needed(e->type); i++)
			e->arg[i] = (int64_t)a[i];
	}
}

/* An event of record `r` of chunk `ref` (of `segment`), as a perf sample of its probe would give
 * it: `event` is its byte of record_events' (its type, and EVENT_AT_END). */
static inline void event_of(const struct chunk_ref *ref, const struct segment *segment,
			    const struct tp_record *r, unsigned event, uint64_t ns,
			    struct timeline_event *e)
{
	event_of_chunk(ref, segment, e);
	event_of_record(segment, r, event, ns, e);
}
