// SPDX-License-Identifier: MIT
/*
 * taskprobe-timeline's output (output_size.h): its size estimated before it is written, its file
 * opened, and a recording's census counted in a thread beside the conversion to speedscope.
 */
#define _GNU_SOURCE
#include "output_size.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The estimated size is said from this size on. */
#define SAY_SIZE_FROM 1000000

/* A size said to people: "12.3 MB" (powers of 1000: what ls -lh --si says). */
const char *human(uint64_t bytes, char buf[32])
{
	static const char *const units[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
	double v = (double)bytes;
	unsigned u = 0;
	while (v >= 1000 && u < 5) {
		v /= 1000;
		u++;
	}
	snprintf(buf, 32, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
	return buf;
}

/*
 * The JSON's estimated bytes per recorded event of each type, measured on recordings of OpenMP
 * programs (the figures of contrib/bench/timeline; within 4% of the size written for omp_fib's
 * and ping_pong's): what the converter writes for it, its share of a spawn's track and flow, of
 * a slice's begin and end.
 */
static const double json_bytes[TP_RECORD_TYPES_END] = {
	[TP_RECORD_TASK_SPAWN] = 330,    [TP_RECORD_TASK_STACK] = 0,
	[TP_RECORD_TASK_WAKE] = 80,      [TP_RECORD_TASK_POLL_START] = 115,
	[TP_RECORD_TASK_POLL_END] = 170, [TP_RECORD_TASK_TERMINATE] = 85,
	[TP_RECORD_WORKER_START] = 80,   [TP_RECORD_WORKER_STOP] = 80,
	[TP_RECORD_WORKER_PARK] = 80,    [TP_RECORD_WORKER_UNPARK] = 80,
	[TP_RECORD_THREAD_START] = 80,   [TP_RECORD_THREAD_STOP] = 80,
	[TP_RECORD_WAIT_START] = 90,     [TP_RECORD_WAIT_END] = 150,
};
/*
 * speedscope's: the opens and closes of the slices it keeps, which the census counts (most of a
 * program's polls or waits may be shorter than the microsecond it keeps), each
 * {"type":"O","frame":F,"at":T}, of these bytes besides the digits of T, and of F (a few).
 */
#define SPEEDSCOPE_EVENT_BYTES 29.5

/* The record types whose output the site filter keeps by its share of the spawns. */
static bool task_type(unsigned type)
{
	return type != TP_RECORD_WORKER_START && type != TP_RECORD_WORKER_STOP &&
	       type != TP_RECORD_THREAD_START && type != TP_RECORD_THREAD_STOP;
}

uint64_t estimate(const struct recording_census *c, enum timeline_format format)
{
	double total = 4096;
	if (format == TIMELINE_SPEEDSCOPE) {
		/* T's digits: those of the last microsecond, most of the times have as many */
		double event = SPEEDSCOPE_EVENT_BYTES;
		for (uint64_t us = c->last_us; us >= 10; us /= 10)
			event++;
		for (unsigned type = 1; type < TP_RECORD_TYPES_END; type++)
			total += (double)c->speedscope_events[type] * event *
				 (task_type(type) ? c->site_share : 1);
		return (uint64_t)total;
	}
	for (unsigned type = 1; type < TP_RECORD_TYPES_END; type++)
		total += (double)c->by_type[type] * json_bytes[type] *
			 (task_type(type) ? c->site_share : 1);
	return (uint64_t)total;
}

/*
 * Opens the output as the launcher checks its -o: never through a symbolic link (a link planted
 * at the name would have the timeline written wherever it points); a new file made mode 0600; a
 * regular file written over only when it is the user's own (never another user's, left where
 * this user writes); anything else (a terminal, /dev/null, a pipe) written as it is. NULL, said,
 * when refused or it cannot be opened.
 */
FILE *open_output(const char *output)
{
	int fd = open(output, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "taskprobe-timeline: %s: %s\n", output,
			errno == ELOOP ? "a symbolic link: refused (give -o a new file, or a "
					 "regular file of your own)"
				       : strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (S_ISREG(st.st_mode) && st.st_uid != geteuid()) {
		fprintf(stderr, "taskprobe-timeline: %s is another user's file: not written over\n",
			output);
		close(fd);
		return NULL;
	}
	FILE *file = NULL;
	if ((S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0) || (file = fdopen(fd, "w")) == NULL) {
		fprintf(stderr, "taskprobe-timeline: %s: %s\n", output, strerror(errno));
		close(fd);
	}
	return file;
}

/* The size check before anything is written: says the estimate; false (said) when over. */
bool size_fits(uint64_t estimated, uint64_t other, uint64_t events, uint64_t limit,
	       enum timeline_format format)
{
	char a[32], b[32], c[32];
	const char *name = format == TIMELINE_SPEEDSCOPE ? "speedscope" : "JSON";
	/* said when it matters: a megabyte or more */
	if (estimated >= SAY_SIZE_FROM || (limit != 0 && estimated > limit))
		fprintf(stderr, "taskprobe-timeline: %" PRIu64 " events: about %s of %s\n", events,
			human(estimated, a), name);
	if (limit == 0 || estimated <= limit)
		return true;
	fprintf(stderr,
		"taskprobe-timeline: that is over --max-size %s: nothing written. Cut it down with "
		"--from TIME and --to TIME (a window), --site TEXT or --thread TID; or "
		"--max-size 0 to write it whatever its size\n",
		human(limit, b));
	if (format == TIMELINE_TRACE_EVENTS)
		fprintf(stderr,
			"taskprobe-timeline: --format speedscope would write about %s (a profile "
			"of slices per thread: no task tracks, flows or counters)\n",
			human(other, c));
	return false;
}

/* The census beside the conversion: its thread, what it reads, what it says. */
struct census_beside {
	struct census_apart *apart;
	struct timeline *t; /* abandoned when the timeline is not to be written */
	const struct timeline_options *options;
	const char *output;
	uint64_t limit;
	/* the conversion's messages, said after the census's */
	FILE *errors;
	char *said;
	size_t said_len;
	pthread_t thread;
	/* the census's verdict: CLI_GO_ON with `file` opened, or the exit status */
	int status;
	FILE *file;
};

static void *count_beside(void *arg)
{
	struct census_beside *c = arg;
	struct recording_census census;
	const struct timeline_options *options = c->options;
	enum timeline_format other = options->format == TIMELINE_SPEEDSCOPE ? TIMELINE_TRACE_EVENTS
									    : TIMELINE_SPEEDSCOPE;
	c->status = CLI_GO_ON;
	if (!census_apart_count(c->apart, &census)) {
		fputs("taskprobe-timeline: out of memory\n", stderr);
		c->status = 2;
	} else if (!size_fits(estimate(&census, options->format), estimate(&census, other),
			      census.events, c->limit, options->format))
		c->status = STATUS_TOO_LARGE;
	else if ((c->file = c->output != NULL ? open_output(c->output) : stdout) == NULL)
		c->status = 2;
	if (c->status != CLI_GO_ON)
		timeline_abandon(c->t);
	return NULL;
}

struct census_beside *census_beside_start(const struct recordings *read, struct timeline *t,
					  const struct timeline_options *options,
					  const char *output, uint64_t limit)
{
	struct census_beside *c = calloc(1, sizeof *c);
	if (c == NULL)
		return NULL;
	*c = (struct census_beside){.t = t, .options = options, .output = output, .limit = limit};
	c->apart = recordings_census_apart(read, options);
	c->errors = c->apart != NULL ? open_memstream(&c->said, &c->said_len) : NULL;
	if (c->errors != NULL && pthread_create(&c->thread, NULL, count_beside, c) == 0)
		return c;
	if (c->errors != NULL)
		fclose(c->errors);
	free(c->said);
	census_apart_free(c->apart);
	free(c);
	return NULL;
}

FILE *census_beside_errors(const struct census_beside *c)
{
	return c->errors;
}

int census_beside_end(struct census_beside *c, FILE **file)
{
	pthread_join(c->thread, NULL);
	int status = c->status;
	*file = c->file;
	if (fclose(c->errors) == 0 && status == CLI_GO_ON)
		fwrite(c->said, 1, c->said_len, stderr);
	free(c->said);
	census_apart_free(c->apart);
	free(c);
	return status;
}
