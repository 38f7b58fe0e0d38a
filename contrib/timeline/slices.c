// SPDX-License-Identifier: MIT
/*
 * The slices' state machine: each thread's stack of open slices (polls, parks, waits), the
 * tasks alive and the window, driven by each event; the writers (write_chrome.c,
 * write_speedscope.c) are told what opens and closes. Tasks and threads are keyed by their
 * process and id, never by id alone.
 *
 * The window (from, to) and the filters (sites, threads) decide what is written; what is kept
 * in memory (tasks, stacks, counters) follows every event. A slice open at the window's start
 * begins there, one open at its end ends there; a task's track likewise; a flow is written with
 * the task's first poll, its start and end both or neither. Memory is bounded: at most
 * TIMELINE_MAX_TASKS tasks alive and TIMELINE_MAX_THREADS threads are kept (beyond them the
 * oldest are forgotten, and counted).
 */
#define _GNU_SOURCE
#include "timeline_private.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "taskprobe_contract.h"

static uint64_t entry_key_hash(uint32_t process, uint64_t key)
{
	return tp_hash_pair(key, process);
}

/* A task's or a thread's hash (the tables of both: their key_head) */
static uint64_t entry_hash(const void *context, const void *slot)
{
	(void)context;
	const struct key_head *e = slot;
	return entry_key_hash(e->process, e->key);
}

/* Where the probe for `key` of `process` stops in `m` (which has slots): its entry's slot, or
 * the free slot it would take. */
static size_t map_slot(const struct table *m, uint32_t process, uint64_t key)
{
	size_t i = table_home(m, entry_key_hash(process, key));
	for (; table_used(m, i); i = table_next(m, i)) {
		const struct key_head *e = table_slot(m, i);
		if (e->key == key && e->process == process)
			break;
	}
	return i;
}

static void *map_find(const struct table *m, uint32_t process, uint64_t key)
{
	if (m->size == 0 || key == 0)
		return NULL;
	size_t i = map_slot(m, process, key);
	return table_used(m, i) ? table_slot(m, i) : NULL;
}

/* map_find, slot `hint` (where the entry was: entries move only as others come and go) asked
 * first: no hash, and a probe of one slot (a task at its poll's end, found at its start). */
static void *map_find_at(const struct table *m, uint32_t process, uint64_t key, size_t hint)
{
	if (hint < m->size) {
		struct key_head *e = table_slot(m, hint);
		if (e->key == key && e->process == process && key != 0)
			return e;
	}
	return map_find(m, process, key);
}

/* The entry of `key` of `process`, added zeroed if new (in the free slot its probe found, when
 * the table has room: one probe); NULL when out of memory (or key 0). */
static void *map_get(struct table *m, uint32_t process, uint64_t key, bool *added)
{
	*added = false;
	if (key == 0)
		return NULL;
	size_t i = m->size > 0 ? map_slot(m, process, key) : 0;
	if (m->size > 0 && table_used(m, i))
		return table_slot(m, i);
	struct key_head *e;
	if (table_has_room(m)) /* (none without slots) */
		e = memset(table_fill(m, i), 0, m->slot_size);
	else if (table_grow(m))
		e = table_claim(m, entry_key_hash(process, key));
	else
		return NULL;
	e->key = key;
	e->process = process;
	*added = true;
	return e;
}

/* Whether the thread has a kept poll open (the site filter keeps its waits). */
static bool in_kept_poll(const struct timeline *t, const struct thread *thread)
{
	for (unsigned i = 0; i < thread->depth; i++)
		if (t->stacks[thread->stack][i].kind == 'P' && t->stacks[thread->stack][i].kept)
			return true;
	return false;
}

/* Opens `slice` on the sample's thread (unless its stack of slices is full). (Inline always, as
 * close_slice: most events open or close a slice, and the compiler kept each a call, which
 * saved and restored registers for a fifth of what they do.) */
static inline __attribute__((always_inline)) bool open_slice(struct timeline *t,
							     struct thread *thread,
							     const struct open_slice *slice,
							     const struct sample *s)
{
	if (thread->depth == MAX_OPEN)
		return false;
	bool kept = thread->kept &&
		    (slice->kind == 'P' ? slice->kept
					: t->options.n_sites == 0 || in_kept_poll(t, thread));
	struct open_slice *open = &t->stacks[thread->stack][thread->depth++];
	*open = *slice;
	open->ns = s->ns;
	open->written = false;
	open->kept = kept;
	if (kept && thread->profile != 0) {
		open->frame = speedscope_slice_frame(t, open);
		/* speedscope: its open written now (`written`), in the window */
		if (t->in_window) {
			speedscope_event(t, thread, 'O', open->frame, s->ns);
			open->written = true;
		}
	}
	if (slice->kind == 'W')
		t->counts.waits++;
	if (slice->kind == 'P' && thread->polls++ == 0)
		counter_change(t, process_of(t, thread->process, thread->pid), BUSY, 1, s->ns);
	return true;
}

/* Closes the innermost slice if it is of `kind` (an end whose start came before the
 * recording has nothing to close): its end with its arguments, or an instant if it has no
 * length (its begin not written yet). */
static inline __attribute__((always_inline)) void
close_slice(struct timeline *t, struct thread *thread, char kind, const struct sample *s)
{
	struct open_slice *open = t->stacks[thread->stack];
	if (thread->depth == 0 || open[thread->depth - 1].kind != kind)
		return;
	if (chrome_now(t) && s->ns > open[thread->depth - 1].ns)
		chrome_begins(t, thread);
	struct open_slice *slice = &open[--thread->depth];
	if (slice->kind == 'P' && --thread->polls == 0)
		counter_change(t, process_of(t, thread->process, thread->pid), BUSY, -1, s->ns);
	if (thread->profile != 0 && slice->kept && slice->written)
		speedscope_event(t, thread, 'C', slice->frame, s->ns);
	if (slice->kept && chrome_now(t))
		chrome_slice_end(t, slice, s);
}

static uint64_t evict_before;

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Keeps a task spawned at or after evict_before; else counts it out of its process's counters. */
static bool task_stays(void *context, void *entry)
{
	struct timeline *t = context;
	struct task *e = entry;
	if (e->spawn_ns >= evict_before)
		return true;
	struct process *p = process_of(t, e->process, 0);
	counter_change(t, p, ALIVE, -1, t->last_ns);
	if (e->flags & TASK_READY)
		counter_change(t, p, READY, -1, t->last_ns);
	t->counts.tasks_forgotten++;
	return false;
}

/* At TIMELINE_MAX_TASKS tasks alive, the older half (by spawn time) is forgotten. */
static void tasks_evict(struct timeline *t)
{
	uint64_t *times = malloc(t->tasks.used * sizeof *times);
	if (times == NULL)
		return;
	size_t n = 0;
	for (size_t i = 0; i < t->tasks.size; i++) {
		const struct task *e = table_slot(&t->tasks, i);
		if (e->key != 0)
			times[n++] = e->spawn_ns;
	}
	qsort(times, n, sizeof *times, by_u64);
	evict_before = times[n / 2] > times[0] ? times[n / 2] : times[0] + 1;
	free(times);
	table_rebuild(&t->tasks, t->tasks.size, task_stays, t);
}

static struct task *task_get(struct timeline *t, uint32_t process, uint64_t key, bool *added)
{
	if (t->tasks.used >= TIMELINE_MAX_TASKS && map_find(&t->tasks, process, key) == NULL)
		tasks_evict(t);
	return map_get(&t->tasks, process, key, added);
}

static bool thread_stays_idle(void *context, void *entry)
{
	struct timeline *t = context;
	struct thread *e = entry;
	if (e->depth > 0)
		return true;
	t->free_stacks[t->n_free_stacks++] = e->stack;
	t->counts.threads_forgotten++;
	return false;
}

/* Closes a thread's slices at the last time (it is forgotten). */
static bool thread_stays_none(void *context, void *entry)
{
	struct timeline *t = context;
	struct thread *e = entry;
	struct sample at = {.pid = e->pid, .tid = (uint32_t)e->key, .ns = t->last_ns};
	while (e->depth > 0)
		close_slice(t, e, t->stacks[e->stack][e->depth - 1].kind, &at);
	return thread_stays_idle(t, entry);
}

/* At TIMELINE_MAX_THREADS threads, those with no slice open are forgotten (all of them when
 * that is not a quarter: their slices closed). A thread seen again is named again. */
static void threads_evict(struct timeline *t)
{
	size_t before = t->threads.used;
	table_rebuild(&t->threads, t->threads.size, thread_stays_idle, t);
	if (t->threads.used > before - before / 4)
		table_rebuild(&t->threads, t->threads.size, thread_stays_none, t);
}

/* A task spawned (event `s` of `thread`): kept, counted, its track begun. */
static void task_spawned(struct timeline *t, const struct sample *s, struct thread *thread,
			 struct process *counters)
{
	uint64_t task = (uint64_t)s->arg[0];
	uint32_t process = thread->process;
	uint64_t site = (uint64_t)s->arg[2];
	/* perf's sites are per pid; a recording's per segment (scope 1 + its index) */
	uint64_t scope = s->site_scope != 0 ? s->site_scope : s->pid;
	uint32_t name = 0;
	if (site != 0)
		name = s->text_arg == 4 ? site_name(&t->sites, scope, site, s->text, s->text_len)
					: site_name(&t->sites, scope, site, NULL, 0);
	bool added;
	struct task *e = task_get(t, process, task, &added);
	t->counts.tasks++;
	if (e == NULL)
		return;
	if (added)
		counter_change(t, counters, ALIVE, 1, s->ns);
	else if (e->flags & TASK_READY) /* a task id spawned again */
		counter_change(t, counters, READY, -1, s->ns);
	e->site = site;
	e->name = name;
	e->spawn_ns = s->ns;
	e->spawn_tid = s->tid;
	e->flags = TASK_READY;
	/* the site asked first: a --site is matched by its tasks on any thread */
	if (site_kept(t, site, name) && thread->kept)
		e->flags |= TASK_KEPT;
	counter_change(t, counters, READY, 1, s->ns);
	if (chrome_now(t) && (e->flags & TASK_KEPT))
		chrome_task_begin(t, e, s->pid, s->ns, s);
}

/* A task's poll starts (event `s` of `thread`): its slice opened, the spawn's flow ended. */
static void poll_started(struct timeline *t, const struct sample *s, struct thread *thread,
			 struct process *counters)
{
	uint64_t task = (uint64_t)s->arg[0];
	struct task *e = map_find(&t->tasks, thread->process, task);
	struct open_slice poll = {.kind = 'P',
				  .id = task,
				  .site = e != NULL ? e->site : 0,
				  .name = e != NULL ? e->name : 0,
				  .slot = e != NULL ? (uint32_t)(e - (struct task *)t->tasks.slots)
						    : UINT32_MAX};
	poll.kept = e != NULL ? (e->flags & TASK_KEPT) != 0 : site_kept(t, 0, 0);
	if (e != NULL && (e->flags & TASK_READY)) {
		e->flags &= (uint8_t)~TASK_READY;
		counter_change(t, counters, READY, -1, s->ns);
	}
	if (open_slice(t, thread, &poll, s) && e != NULL && !(e->flags & TASK_POLLED)) {
		e->flags |= TASK_POLLED;
		/* the flow: its start and end both, or neither */
		if (chrome_now(t) && poll.kept && thread->kept && e->spawn_ns >= t->from)
			chrome_spawn_flow(t, e, task, s);
	}
}

/* A wait starts (event `s` of `thread`). */
static void wait_started(struct timeline *t, const struct sample *s, struct thread *thread)
{
	/* its call site (a recording's, where its record has one): named as a task's site is */
	uint64_t site = (uint64_t)s->arg[4];
	uint64_t scope = s->site_scope != 0 ? s->site_scope : s->pid;
	struct open_slice wait = {
		.kind = 'W',
		.wait_kind = (uint8_t)(s->arg[0] >= 1 && s->arg[0] <= TP_WAIT_KINDS ? s->arg[0]
										    : 0),
		.id = (uint64_t)s->arg[1],
		.site = site,
		.name = site != 0 ? site_name(&t->sites, scope, site, NULL, 0) : 0,
		.task = (uint64_t)s->arg[3]};
	open_slice(t, thread, &wait, s);
}

/* Whether a task's wake and terminate are drawn (the JSON's instants and ready counter), the
 * only things slices_event takes from them (timeline_takes_no_task_instants). */
static bool task_instants_drawn(const struct timeline *t)
{
	return t->options.format == TIMELINE_TRACE_EVENTS;
}

/* A task's wake or terminate, as the JSON draws them (the only format that does: see
 * task_instants_drawn). */
static void task_instant(struct timeline *t, const struct sample *s, struct thread *thread,
			 struct process *counters)
{
	uint64_t task = (uint64_t)s->arg[0];
	struct task *e = map_find(&t->tasks, thread->process, task);
	if (s->type == TP_RECORD_TASK_WAKE && e != NULL && !(e->flags & TASK_READY)) {
		e->flags |= TASK_READY;
		counter_change(t, counters, READY, 1, s->ns);
	}
	if (thread->kept && (t->options.n_sites == 0 || (e != NULL && e->flags & TASK_KEPT)))
		chrome_instant(t, s,
			       s->type == TP_RECORD_TASK_WAKE ? "wake task" : "terminate task",
			       task);
}

/* A thread's or a worker's start or stop: a worker counted, an instant drawn. */
static void thread_instant(struct timeline *t, const struct sample *s, struct thread *thread)
{
	if (s->type == TP_RECORD_WORKER_START)
		t->counts.workers++;
	if (!thread->kept || t->options.n_sites > 0)
		return;
	if (s->type == TP_RECORD_THREAD_START)
		chrome_instant(t, s, "thread start", (uint64_t)s->arg[0]);
	else if (s->type == TP_RECORD_THREAD_STOP)
		chrome_instant(t, s, "thread stop", (uint64_t)s->arg[0]);
	else if (s->type == TP_RECORD_WORKER_START)
		chrome_instant(t, s, "worker start", s->tid);
	else
		chrome_instant(t, s, "worker stop", s->tid);
}

/* (a switch: the event's type picks its case at once, where a chain of tests asked up to ten
 * times for the most common events, parks and unparks) */
void slices_event(struct timeline *t, const struct sample *s, struct thread *thread)
{
	uint32_t process = thread->process;
	struct process *counters = process_of(t, process, thread->pid);
	switch (s->type) {
	case TP_RECORD_TASK_SPAWN:
		task_spawned(t, s, thread, counters);
		break;
	case TP_RECORD_TASK_WAKE:
	case TP_RECORD_TASK_TERMINATE:
		/* what a wake or a terminate changes (the ready counter, an instant) is the
		 * JSON's alone: speedscope's profiles skip the task's lookup, a miss in a table
		 * of every task alive */
		if (task_instants_drawn(t))
			task_instant(t, s, thread, counters);
		break;
	case TP_RECORD_TASK_POLL_START:
		poll_started(t, s, thread, counters);
		break;
	case TP_RECORD_TASK_POLL_END: {
		/* the task looked up when it is done (not after a part of it), first where its
		 * poll, the innermost slice, found it */
		const struct open_slice *poll =
			thread->depth > 0 ? &t->stacks[thread->stack][thread->depth - 1] : NULL;
		size_t hint = poll != NULL && poll->kind == 'P' ? poll->slot : SIZE_MAX;
		close_slice(t, thread, 'P', s);
		struct task *e = s->arg[1] != 0 ? map_find_at(&t->tasks, process,
							      (uint64_t)s->arg[0], hint)
						: NULL;
		if (e != NULL) {
			if (chrome_now(t) && (e->flags & TASK_SHOWN))
				chrome_task_end(t, e, s);
			counter_change(t, counters, ALIVE, -1, s->ns);
			if (e->flags & TASK_READY)
				counter_change(t, counters, READY, -1, s->ns);
			table_remove(&t->tasks, e);
		}
		break;
	}
	case TP_RECORD_WORKER_PARK: {
		struct open_slice park = {.kind = 'K'};
		open_slice(t, thread, &park, s);
		break;
	}
	case TP_RECORD_WORKER_UNPARK:
		close_slice(t, thread, 'K', s);
		break;
	case TP_RECORD_WAIT_START:
		wait_started(t, s, thread);
		break;
	case TP_RECORD_WAIT_STACK: {
		/* right after its wait's start: the innermost slice, when it is that wait */
		struct open_slice *wait = thread->depth > 0
						  ? &t->stacks[thread->stack][thread->depth - 1]
						  : NULL;
		if (wait != NULL && wait->kind == 'W' && wait->id == (uint64_t)s->arg[1])
			wait->stack = (uint64_t)s->arg[2];
		break;
	}
	case TP_RECORD_WAIT_END:
		close_slice(t, thread, 'W', s);
		break;
	case TP_RECORD_THREAD_START:
	case TP_RECORD_THREAD_STOP:
	case TP_RECORD_WORKER_START:
	case TP_RECORD_WORKER_STOP:
		thread_instant(t, s, thread);
		break;
	default:
		break;
	}
}

/* Every open slice of every thread, and every task alive, at the window's start `ns`. */
static void window_start(struct timeline *t, uint64_t ns)
{
	t->in_window = true;
	for (size_t i = 0; i < t->threads.size; i++) {
		struct thread *thread = table_slot(&t->threads, i);
		for (unsigned j = 0; thread->key != 0 && j < thread->depth; j++) {
			struct open_slice *slice = &t->stacks[thread->stack][j];
			if (slice->ns < ns)
				slice->ns = ns;
			if (thread->profile != 0 && slice->kept) {
				speedscope_event(t, thread, 'O', slice->frame, ns);
				slice->written = true;
			}
		}
	}
	for (size_t i = 0; chrome_now(t) && i < t->tasks.size; i++) {
		struct task *e = table_slot(&t->tasks, i);
		const struct process *p = e->key != 0 ? process_of(t, e->process, 0) : NULL;
		if (p != NULL && (e->flags & TASK_KEPT))
			chrome_task_begin(t, e, p->pid, ns, NULL);
	}
	counters_at(t, ns, true);
}

/* Every slice and task track open at the window's end `ns` ends there. */
static void window_end(struct timeline *t, uint64_t ns)
{
	for (size_t i = 0; i < t->threads.size; i++) {
		struct thread *thread = table_slot(&t->threads, i);
		if (thread->key == 0)
			continue;
		for (unsigned j = thread->depth; thread->profile != 0 && j-- > 0;) {
			struct open_slice *slice = &t->stacks[thread->stack][j];
			if (slice->kept && slice->written)
				speedscope_event(t, thread, 'C', slice->frame, ns);
		}
	}
	if (chrome_now(t))
		chrome_window_end(t, ns);
	counters_at(t, ns, false);
	t->in_window = false;
	t->done = true;
}

/* Moves the window to `ns` (an event's time). */
static void window_at(struct timeline *t, uint64_t ns)
{
	if (!t->started) {
		t->started = true;
		t->origin = ns;
		t->from = ns + t->options.from_ns < ns ? UINT64_MAX : ns + t->options.from_ns;
		t->to = ns + t->options.to_ns < ns ? UINT64_MAX : ns + t->options.to_ns;
	}
	if (!t->in_window && !t->done && ns >= t->from)
		window_start(t, t->from);
	if (t->in_window && ns > t->to)
		window_end(t, t->to);
}

/*
 * The thread of `e` (of its process), named in the timeline when first seen, its slices' begins
 * written if `e` is later than they are; NULL: out of memory or tid 0.
 */
struct thread *thread_of(struct timeline *t, const struct timeline_event *e)
{
	bool added;
	uint32_t process = (uint32_t)(e->process != 0 ? e->process : e->pid);
	if (e->ns > t->last_ns)
		t->last_ns = e->ns;
	window_at(t, e->ns);
	struct thread **cached = &t->thread_cache[e->tid % THREAD_CACHE];
	struct thread *thread = *cached;
	if (thread == NULL || thread->key != e->tid || thread->process != process)
		thread = map_find(&t->threads, process, e->tid);
	if (thread == NULL && e->tid != 0) {
		/* the table changes: what is remembered of it is forgotten first */
		memset(t->thread_cache, 0, sizeof t->thread_cache);
		if (t->threads.used >= TIMELINE_MAX_THREADS)
			threads_evict(t);
		uint32_t stack;
		if (t->n_free_stacks > 0) {
			stack = t->free_stacks[--t->n_free_stacks];
		} else {
			if (t->n_stacks == t->cap_stacks) {
				uint32_t cap = t->cap_stacks ? 2 * t->cap_stacks : 64;
				void *stacks = realloc(t->stacks, cap * sizeof *t->stacks);
				uint32_t *free_stacks = realloc(t->free_stacks,
								cap * sizeof *free_stacks);
				if (stacks != NULL)
					t->stacks = stacks;
				if (free_stacks != NULL)
					t->free_stacks = free_stacks;
				if (stacks == NULL || free_stacks == NULL) {
					t->failed = true;
					return NULL;
				}
				t->cap_stacks = cap;
			}
			stack = t->n_stacks++;
		}
		thread = map_get(&t->threads, process, e->tid, &added);
		if (thread == NULL) {
			t->free_stacks[t->n_free_stacks++] = stack;
			t->failed = true;
			return NULL;
		}
		thread->stack = stack;
		thread->pid = e->pid;
		thread->kept = thread_kept(t, e->tid);
		t->counts.threads++;
		if (thread->kept && t->options.format == TIMELINE_SPEEDSCOPE)
			speedscope_add_profile(t, thread, e);
		if (thread->kept && t->options.format == TIMELINE_TRACE_EVENTS)
			chrome_thread_name(t, e);
	}
	/* (the begins are the JSON's: speedscope's profile writes each open as it comes) */
	if (thread != NULL && chrome_now(t) && thread->depth > 0 &&
	    e->ns > t->stacks[thread->stack][thread->depth - 1].ns)
		chrome_begins(t, thread);
	if (thread != NULL)
		*cached = thread;
	t->counts.events++;
	return thread;
}

/*
 * What slices_event takes from a task's wake or terminate: only the JSON's instants and ready
 * counter, nothing in the other formats; and every event's count and time (thread_of). Those
 * left out change nothing else without an analysis (which takes every event), a window (the
 * first event past its end ends it) and a thread forgotten (at TIMELINE_MAX_THREADS: one seen
 * again is named at its next event); a thread's first event is never left out.
 */
bool timeline_takes_no_task_instants(const struct timeline *t, size_t threads)
{
	return !task_instants_drawn(t) && t->analysis == NULL && t->options.from_ns == 0 &&
	       t->options.to_ns == UINT64_MAX && threads < TIMELINE_MAX_THREADS;
}

void timeline_left_out(struct timeline *t, uint64_t n, uint64_t ns)
{
	t->counts.events += n;
	if (n > 0 && ns > t->last_ns)
		t->last_ns = ns;
}

/*
 * thread_of where it is quick, inline: the thread found last with the event's tid low bits, the
 * window open and not ended by `e`, and no begin to write (speedscope's). thread_of is called
 * otherwise: whole, its every call saved and restored six registers (a tenth of what the thread
 * handing the events on does with speedscope's events).
 */
static inline struct thread *event_thread(struct timeline *t, const struct timeline_event *e)
{
	struct thread *thread = t->thread_cache[e->tid % THREAD_CACHE];
	uint32_t process = (uint32_t)(e->process != 0 ? e->process : e->pid);
	if (thread == NULL || thread->key != e->tid || thread->process != process ||
	    !t->in_window || e->ns > t->to || t->options.format == TIMELINE_TRACE_EVENTS)
		return thread_of(t, e);
	if (e->ns > t->last_ns)
		t->last_ns = e->ns;
	t->counts.events++;
	return thread;
}

/* The converter's entry for each event (timeline.h): here, beside the state machine it drives,
 * so that the compiler may fold the two calls it makes per event into it. */
void timeline_add(struct timeline *t, const struct timeline_event *e)
{
	if (t->done)
		return;
	if (t->analysis != NULL)
		analysis_add(t->analysis, e);
	struct thread *thread = event_thread(t, e);
	if (thread != NULL && !t->done) /* the event after the window's end changes nothing */
		slices_event(t, e, thread);
}

void slices_init(struct timeline *t)
{
	table_init(&t->tasks, sizeof(struct task), sizeof(uint64_t), 64, entry_hash, NULL);
	table_init(&t->threads, sizeof(struct thread), sizeof(uint64_t), 64, entry_hash, NULL);
}

void slices_free(struct timeline *t)
{
	table_free(&t->tasks);
	table_free(&t->threads);
	free(t->stacks);
	free(t->free_stacks);
}

void slices_close_all(struct timeline *t)
{
	for (size_t i = 0; i < t->threads.size; i++) {
		struct thread *thread = table_slot(&t->threads, i);
		struct sample s = {
			.pid = thread->pid, .tid = (uint32_t)thread->key, .ns = t->last_ns};
		while (thread->key != 0 && thread->depth > 0)
			close_slice(t, thread, t->stacks[thread->stack][thread->depth - 1].kind,
				    &s);
	}
}
