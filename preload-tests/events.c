// SPDX-License-Identifier: MIT
/*
 * The tracer's event lines (harness_internal.h): "E probe tid nsecs arg0..arg5", then a
 * task-spawn's site text or a task-stack's first frames, parsed into tp_events in time order;
 * and counting them (harness.h).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness_internal.h"

static int by_time(const void *a, const void *b)
{
	const struct tp_event *x = a, *y = b;
	return x->nsecs < y->nsecs ? -1 : x->nsecs > y->nsecs;
}

/* TP_TEST_DUMP=DIR keeps each traced run's events, to read when a test fails. */
static void dump(const struct tp_run *run)
{
	const char *dir = getenv("TP_TEST_DUMP");
	if (dir == NULL)
		return;
	char path[4096];
	snprintf(path, sizeof path, "%s/events-%d.txt", dir, (int)getpid());
	FILE *f = fopen(path, "w");
	for (size_t i = 0; f != NULL && i < run->n_events; i++) {
		const struct tp_event *e = &run->events[i];
		fprintf(f, "%llu %llu %s %lld %lld %lld %lld %lld %lld\n",
			(unsigned long long)e->nsecs, (unsigned long long)e->tid, e->probe,
			(long long)e->arg[0], (long long)e->arg[1], (long long)e->arg[2],
			(long long)e->arg[3], (long long)e->arg[4], (long long)e->arg[5]);
	}
	if (f != NULL)
		fclose(f);
}

void tp_events_parse(const char *text, struct tp_run *run)
{
	size_t cap = 1024;
	run->events = calloc(cap, sizeof *run->events);
	run->n_events = 0;
	for (const char *line = text; line != NULL && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		struct tp_event e = {0};
		long long a[6];
		unsigned long long tid, ns;
		if (sscanf(line, "E %31s %llu %llu %lld %lld %lld %lld %lld %lld", e.probe, &tid,
			   &ns, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]) != 9)
			continue;
		e.tid = tid;
		e.nsecs = ns;
		for (int i = 0; i < 6; i++)
			e.arg[i] = a[i];
		if (run->n_events == cap)
			run->events = realloc(run->events, (cap *= 2) * sizeof *run->events);
		run->events[run->n_events++] = e;
		/* a task-spawn's or wait-start's site text, a thread-start's start routine's name and
		 * a task-stack's or wait-stack's frames follow its arguments */
		struct tp_event *last = &run->events[run->n_events - 1];
		int rest = 0;
		unsigned long long fr[TP_FRAMES_READ];
		sscanf(line, "E %*s %*u %*u %*d %*d %*d %*d %*d %*d%n", &rest);
		const char *after = line + rest, *end = strchrnul(after, '\n');
		if ((strcmp(e.probe, "task__spawn") == 0 || strcmp(e.probe, "wait__start") == 0 ||
		     strcmp(e.probe, "thread__start") == 0) &&
		    *after == ' ')
			snprintf(last->site, sizeof last->site, "%.*s", (int)(end - after - 1),
				 after + 1);
		if ((strcmp(e.probe, "task__stack") == 0 || strcmp(e.probe, "wait__stack") == 0) &&
		    sscanf(after, "%llu %llu %llu %llu %llu %llu %llu %llu", &fr[0], &fr[1], &fr[2],
			   &fr[3], &fr[4], &fr[5], &fr[6], &fr[7]) == TP_FRAMES_READ)
			for (int i = 0; i < TP_FRAMES_READ; i++)
				last->frames[i] = fr[i];
	}
	/* bpftrace's per-CPU buffers interleave; nsecs orders them (stable for equal stamps). */
	qsort(run->events, run->n_events, sizeof *run->events, by_time);
	dump(run);
}

bool tp_event_is(const struct tp_event *e, const char *probe)
{
	return strcmp(e->probe, probe) == 0;
}

size_t tp_count(const struct tp_run *run, const char *probe, uint64_t tid)
{
	size_t n = 0;
	for (size_t i = 0; i < run->n_events; i++)
		if (strcmp(run->events[i].probe, probe) == 0 &&
		    (tid == 0 || run->events[i].tid == tid))
			n++;
	return n;
}

size_t tp_count_waits(const struct tp_run *run, int64_t kind)
{
	size_t n = 0;
	for (size_t i = 0; i < run->n_events; i++)
		n += strcmp(run->events[i].probe, "wait__start") == 0 &&
		     run->events[i].arg[0] == kind;
	return n;
}

const struct tp_event *tp_nth(const struct tp_run *run, const char *probe, uint64_t tid, size_t n)
{
	for (size_t i = 0; i < run->n_events; i++)
		if (strcmp(run->events[i].probe, probe) == 0 &&
		    (tid == 0 || run->events[i].tid == tid) && n-- == 0)
			return &run->events[i];
	cr_assert_fail("no event %s #%zu", probe, n);
	return NULL;
}
