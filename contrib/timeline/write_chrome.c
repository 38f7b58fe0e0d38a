// SPDX-License-Identifier: MIT
/*
 * The Trace Event Format JSON (chrome://tracing, Perfetto). Slices are "B"/"E" pairs on the
 * thread's track, kept properly nested by the thread's stack of open slices (slices.c); task
 * tracks are async "b"/"e" events and flows "s"/"f" pairs, both with the id "PID:TASK" (task ids
 * are per process).
 *
 * A slice's name is its site's text (or "site S", or the initial tasks' "(no site: initial
 * tasks)"), or its wait's kind, and nothing else: speedscope names a frame by its begin event's
 * name and arguments together (JSON.stringify(args) appended), so a "B" carries no arguments and
 * its "E" carries them (Perfetto adds an end's arguments to its slice). speedscope orders a begin
 * and an end of equal time by comparing those names, begin first only when they are equal: so a
 * slice of no length (perf's microseconds) is written as an instant "i" with its arguments
 * instead, which speedscope leaves out (it would weigh nothing) and Perfetto shows as a slice of
 * no length. A begin is therefore written once its thread has an event of a later time.
 *
 * Counters ("C" events, per process): tasks alive (spawned, not ended), tasks ready (spawned or
 * woken, not polled since), workers busy (threads in a poll). A counter's sample is written at
 * a change that comes TIMELINE_COUNTER_NS or more after its last sample; a change sooner than
 * that is written TIMELINE_COUNTER_NS after the last sample, with the value then (so a burst of
 * changes gives one sample each 100 us, and the value after the burst is never lost), and the
 * last value at the end.
 */
#define _GNU_SOURCE
#include "timeline_private.h"

#include <inttypes.h>
#include <string.h>

#include "hash.h"

/* JSON string contents: quotes, backslashes and control bytes escaped, non-ASCII as '?'. */
void put_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc_unlocked(c < 0x80 ? c : '?', out);
	}
}

/* Starts an event object: {"ph":"X","pid":..,"tid":..,"ts":.. and the caller adds the rest. */
void chrome_event(struct timeline *t, char phase, const struct sample *s)
{
	FILE *out = t->out;
	put(out, t->first_event ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
	t->first_event = false;
	t->counts.written++;
	fputc_unlocked(phase, out);
	put_number(out, "\",\"pid\":", s->pid, ",\"tid\":");
	put_number(out, "", s->tid, ",\"ts\":");
	put_u64(out, s->ns / 1000);
	unsigned fraction = (unsigned)(s->ns % 1000);
	char tail[4] = {'.', (char)('0' + fraction / 100), (char)('0' + fraction / 10 % 10),
			(char)('0' + fraction % 10)};
	put_bytes(out, tail, sizeof tail);
}

static void task_name(const struct timeline *t, uint64_t site, uint32_t name)
{
	char buf[32];
	put(t->out, "\"name\":\"");
	put(t->out, task_name_text(t, site, name, buf));
	put(t->out, "\"");
}

/* A task's id in the timeline: tasks of different processes may have the same id. */
static void put_task_id(FILE *out, uint32_t pid, uint64_t task)
{
	put_number(out, ",\"id\":\"", pid, ":");
	put_number(out, "", task, "\"");
}

static const char *const counter_names[COUNTERS] = {"tasks alive", "tasks ready", "workers busy"};

static uint64_t process_hash(const void *context, const void *slot)
{
	(void)context;
	return tp_hash_finish(((const struct process *)slot)->key);
}

struct process *process_counters(struct timeline *t, uint32_t process, uint32_t pid)
{
	struct table *x = &t->processes;
	if (t->last_process != NULL && t->last_process->key == process + 1ULL)
		return t->last_process;
	if (x->size == 0)
		return NULL;
	size_t used = 0;
	for (size_t i = table_home(x, tp_hash_finish(process + 1ULL));;
	     i = table_next(x, i), used++) {
		struct process *p = table_slot(x, i);
		if (p->key == process + 1ULL)
			return t->last_process = p;
		if (!table_used(x, i)) {
			if (used >= MAX_PROCESSES) /* half full: no more processes' counters */
				return NULL;
			p = table_fill(x, i);
			p->key = process + 1ULL;
			p->pid = pid;
			return t->last_process = p;
		}
	}
}

static void counter_write(struct timeline *t, const struct process *p, int which, uint64_t ns)
{
	if (!chrome_now(t))
		return;
	struct sample at = {.pid = p->pid, .tid = p->pid, .ns = ns};
	chrome_event(t, 'C', &at);
	put(t->out, ",\"name\":\"");
	put(t->out, counter_names[which]);
	put_number(t->out, "\",\"args\":{\"value\":", (uint64_t)p->c[which].value, "}}");
}

/* The sample a change less than TIMELINE_COUNTER_NS after the last one left pending, once
 * `ns` is past its time. */
static void counter_catch_up(struct timeline *t, struct process *p, int which, uint64_t ns)
{
	struct counter *c = &p->c[which];
	if (c->pending && ns >= c->last_ns + TIMELINE_COUNTER_NS) {
		c->last_ns += TIMELINE_COUNTER_NS;
		c->pending = false;
		counter_write(t, p, which, c->last_ns);
	}
}

void counter_change(struct timeline *t, struct process *p, int which, int delta, uint64_t ns)
{
	if (p == NULL)
		return;
	struct counter *c = &p->c[which];
	counter_catch_up(t, p, which, ns);
	c->value += delta;
	if (c->value < 0)
		c->value = 0;
	if (!c->ever || ns >= c->last_ns + TIMELINE_COUNTER_NS) {
		c->ever = true;
		c->pending = false;
		c->last_ns = ns;
		counter_write(t, p, which, ns);
	} else {
		c->pending = true;
	}
}

/* Every counter's value at `ns`: the window's start (all) or end (the pending ones). */
void counters_at(struct timeline *t, uint64_t ns, bool all)
{
	for (size_t i = 0; i < t->processes.size; i++) {
		struct process *p = table_slot(&t->processes, i);
		for (int which = 0; p->key != 0 && which < COUNTERS; which++) {
			struct counter *c = &p->c[which];
			if (!c->ever || (!all && !c->pending))
				continue;
			c->pending = false;
			c->last_ns = ns;
			counter_write(t, p, which, ns);
		}
	}
}

/* The rest of a slice's event: its name, its arguments when `args`, and the closing brace. */
static void slice_label(const struct timeline *t, const struct open_slice *slice, bool args)
{
	FILE *out = t->out;
	switch (slice->kind) {
	case 'P':
		fputc_unlocked(',', out);
		task_name(t, slice->site, slice->name);
		if (args) {
			put_number(out, ",\"args\":{\"task\":", slice->id, "");
			if (slice->site != 0)
				put_number(out, ",\"site\":", slice->site, "");
			put(out, "}");
		}
		put(out, "}");
		break;
	case 'W': {
		char name[2048];
		wait_name(t, slice, name, sizeof name);
		fprintf(out, ",\"name\":\"%s\"", name);
		if (args) {
			fprintf(out, ",\"args\":{\"object\":\"0x%" PRIx64 "\",\"task\":%" PRIu64,
				slice->id, slice->task);
			if (slice->stack != 0)
				put_number(out, ",\"stack\":", slice->stack, "");
			fputc_unlocked('}', out);
		}
		fputc_unlocked('}', out);
		break;
	}
	default:
		fputs(",\"name\":\"parked\"}", out);
	}
}

/* The begin events not written yet of `thread`'s open slices (the outermost first). */
void chrome_begins(struct timeline *t, struct thread *thread)
{
	if (!chrome_now(t))
		return;
	for (unsigned i = 0; i < thread->depth; i++) {
		struct open_slice *slice = &t->stacks[thread->stack][i];
		if (slice->written || !slice->kept)
			continue;
		struct sample at = {
			.pid = thread->pid, .tid = (uint32_t)thread->key, .ns = slice->ns};
		slice->written = true;
		t->slices++;
		chrome_event(t, 'B', &at);
		slice_label(t, slice, false);
	}
}

void chrome_instant(struct timeline *t, const struct sample *s, const char *what, uint64_t value)
{
	if (!chrome_now(t))
		return;
	chrome_event(t, 'i', s);
	put(t->out, ",\"s\":\"t\",\"name\":\"");
	put(t->out, what);
	put_number(t->out, " ", value, "\"}");
}

/* A task's track begins: at its spawn `s` (with the spawn's arguments), or at the window's
 * start `ns` when `s` is NULL. */
void chrome_task_begin(struct timeline *t, struct task *e, uint32_t pid, uint64_t ns,
		       const struct sample *s)
{
	struct sample at = {.pid = pid, .tid = e->spawn_tid, .ns = ns};
	e->flags |= TASK_SHOWN;
	chrome_event(t, 'b', &at);
	put(t->out, ",\"cat\":\"task\"");
	put_task_id(t->out, pid, e->key);
	fputc_unlocked(',', t->out);
	task_name(t, e->site, e->name);
	put_number(t->out, ",\"args\":{\"task\":", e->key, "");
	if (s != NULL)
		put_number(t->out, ",\"parent\":", (uint64_t)s->arg[1], "");
	put_number(t->out, ",\"site\":", e->site, "");
	if (s != NULL)
		put_number(t->out, ",\"stack\":", (uint64_t)s->arg[4], "");
	put(t->out, "}}");
}

void chrome_task_end(struct timeline *t, struct task *e, const struct sample *at)
{
	e->flags &= (uint8_t)~TASK_SHOWN;
	chrome_event(t, 'e', at);
	put(t->out, ",\"cat\":\"task\"");
	put_task_id(t->out, at->pid, e->key);
	fputc_unlocked(',', t->out);
	task_name(t, e->site, e->name);
	fputc_unlocked('}', t->out);
}

void timeline_process_name(struct timeline *t, uint32_t pid, const char *name)
{
	struct sample at = {.pid = pid};
	if (t->first_named_pid == 0)
		t->first_named_pid = pid;
	if (t->options.format != TIMELINE_TRACE_EVENTS)
		return;
	chrome_event(t, 'M', &at);
	fputs(",\"name\":\"process_name\",\"args\":{\"name\":\"", t->out);
	put_escaped(t->out, name);
	fputs("\"}}", t->out);
}

void timeline_process_sort(struct timeline *t, uint32_t pid, int64_t index)
{
	struct sample at = {.pid = pid};
	if (t->options.format != TIMELINE_TRACE_EVENTS)
		return;
	chrome_event(t, 'M', &at);
	fprintf(t->out, ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%" PRId64 "}}",
		index);
}

void timeline_flow(struct timeline *t, const struct timeline_event *at, bool start, const char *cat,
		   const char *id)
{
	if (t->done || !chrome_now(t))
		return;
	struct thread *thread = thread_of(t, at);
	if (thread == NULL || !thread->kept || t->done)
		return;
	chrome_event(t, start ? 's' : 'f', at);
	fprintf(t->out, "%s,\"cat\":\"%s\",\"id\":\"%s\",\"name\":\"%s\"}",
		start ? "" : ",\"bp\":\"e\"", cat, id, cat);
}

/* `ns` in microseconds with three decimals, as begin_event writes a timestamp. */
static void put_us(FILE *out, uint64_t ns)
{
	put_u64(out, ns / 1000);
	unsigned fraction = (unsigned)(ns % 1000);
	char tail[5] = {'.', (char)('0' + fraction / 100), (char)('0' + fraction / 10 % 10),
			(char)('0' + fraction % 10), '\0'};
	put(out, tail);
}

bool counters_init(struct timeline *t)
{
	table_init(&t->processes, sizeof(struct process), sizeof(uint64_t), 2 * MAX_PROCESSES,
		   process_hash, NULL);
	return table_grow(&t->processes);
}

void counters_free(struct timeline *t)
{
	table_free(&t->processes);
}

void chrome_slice_end(struct timeline *t, const struct open_slice *slice, const struct sample *s)
{
	if (slice->written) {
		chrome_event(t, 'E', s);
		slice_label(t, slice, true);
		return;
	}
	t->slices++;
	chrome_event(t, 'i', s);
	put(t->out, ",\"s\":\"t\"");
	slice_label(t, slice, true);
}

void chrome_window_end(struct timeline *t, uint64_t ns)
{
	for (size_t i = 0; i < t->threads.size; i++) {
		struct thread *thread = table_slot(&t->threads, i);
		if (thread->key == 0)
			continue;
		struct sample at = {.pid = thread->pid, .tid = (uint32_t)thread->key, .ns = ns};
		chrome_begins(t, thread);
		for (unsigned j = thread->depth; j-- > 0;) {
			struct open_slice *slice = &t->stacks[thread->stack][j];
			if (slice->kept && slice->written) {
				chrome_event(t, 'E', &at);
				slice_label(t, slice, true);
			}
		}
	}
	for (size_t i = 0; i < t->tasks.size; i++) {
		struct task *e = table_slot(&t->tasks, i);
		const struct process *p = e->key != 0 ? process_of(t, e->process, 0) : NULL;
		if (p != NULL && (e->flags & TASK_SHOWN)) {
			struct sample at = {.pid = p->pid, .tid = e->spawn_tid, .ns = ns};
			chrome_task_end(t, e, &at);
		}
	}
}

void chrome_spawn_flow(struct timeline *t, const struct task *e, uint64_t task,
		       const struct sample *s)
{
	struct sample from = {.pid = s->pid, .tid = e->spawn_tid, .ns = e->spawn_ns};
	chrome_event(t, 's', &from);
	put(t->out, ",\"cat\":\"spawn\"");
	put_task_id(t->out, s->pid, task);
	put(t->out, ",\"name\":\"spawn\"}");
	chrome_event(t, 'f', s);
	put(t->out, ",\"bp\":\"e\",\"cat\":\"spawn\"");
	put_task_id(t->out, s->pid, task);
	put(t->out, ",\"name\":\"spawn\"}");
}

void chrome_thread_name(struct timeline *t, const struct timeline_event *e)
{
	chrome_event(t, 'M', e);
	fputs(",\"name\":\"thread_name\",\"args\":{\"name\":\"", t->out);
	put_escaped(t->out, thread_name(t, e));
	fprintf(t->out, " %" PRIu32 "\"}}", e->tid);
}

void chrome_path_fragment(struct timeline *t, const struct analysis_fragment *f, bool first,
			  uint64_t start, uint64_t end, const char *text)
{
	FILE *out = t->out;
	if (first) {
		struct sample at = {.pid = f->pid, .tid = TIMELINE_PATH_TID};
		chrome_event(t, 'M', &at);
		put(out, ",\"name\":\"thread_name\",\"args\":{\"name\":\"critical path\"}}");
		chrome_event(t, 'M', &at);
		put(out, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":-1}}");
	}
	if (text == NULL)
		return;
	struct sample at = {.pid = f->pid, .tid = TIMELINE_PATH_TID, .ns = start};
	t->slices++;
	chrome_event(t, 'X', &at);
	put(out, ",\"dur\":");
	put_us(out, end - start);
	put(out, ",\"name\":\"");
	put(out, text);
	put(out, "\"");
	put_number(out, ",\"args\":{\"task\":", f->task, "");
	put_number(out, ",\"thread\":", f->tid, "");
	if (f->site_id != 0)
		put_number(out, ",\"site\":", f->site_id, "");
	if (f->part) /* its task's part before a section: no fragment of its own */
		put(out, ",\"part\":1");
	put(out, "}}");
}

void chrome_finish(struct timeline *t)
{
	/* a timeline without any slice: a slice of no length says what it holds (speedscope
	 * refuses a timeline without any slice) */
	if (t->slices == 0) {
		struct sample at = {.pid = t->first_named_pid, .tid = t->first_named_pid};
		chrome_event(t, 'X', &at);
		put(t->out, ",\"dur\":0,\"name\":\"");
		put(t->out, t->counts.events == 0 ? NOTHING_SEEN : NO_SLICE_SEEN);
		put(t->out, "\"}");
	}
	fputs("\n]}\n", t->out);
}
