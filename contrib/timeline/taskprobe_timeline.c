// SPDX-License-Identifier: MIT
/*
 * taskprobe-timeline: recordings of the in-process recorder (TASKPROBE_RECORD files, one per
 * process), or perf script output of the taskprobe events on stdin (or a file), to Trace Event
 * Format JSON on stdout (or -o FILE), for chrome://tracing, Perfetto or speedscope.
 *
 *	taskprobe-timeline -o trace.json recording.1234 recording.1240
 *	perf script -F comm,pid,tid,time,event,trace -i perf.data | taskprobe-timeline > trace.json
 *
 * Exit status: 0; 1 when lines were malformed (each reported with its number, then skipped) or
 * a recording ends in a chunk that is not whole (read up to there, and said); 2 when the input
 * or output could not be used. A sample line that repeats the one before it byte for byte is
 * dropped, and the count of those said on stderr, without changing the status; so are the
 * events a recording says it could not record.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recording.h"
#include "timeline.h"

static int usage(FILE *to, int status)
{
	fputs("usage: taskprobe-timeline [-o OUTPUT.json] [--count] [RECORDING... | "
	      "PERF-SCRIPT-TEXT]\n"
	      "Converts recordings of TASKPROBE_RECORD (one file per process), or\n"
	      "`perf script -F comm,pid,tid,time,event,trace` output of the sdt_taskprobe events,\n"
	      "to Trace Event Format JSON (chrome://tracing, Perfetto, speedscope).\n"
	      "--count says on stderr how many events a recording held.\n",
	      to);
	return status;
}

/* Converts perf's text from `in`, streaming; `line` may hold its first line, read already.
 * Returns the exit status. */
static int convert_text(FILE *in, struct timeline *t, char *line, size_t cap, ssize_t len)
{
	uint64_t number = 0, duplicates = 0;
	for (; len >= 0; len = getline(&line, &cap, in)) {
		number++;
		if (len > 0 && line[len - 1] == '\n')
			len--;
		duplicates += timeline_feed(t, line, (size_t)len, number, stderr) == 1;
	}
	free(line);
	bool read_failed = ferror(in);
	uint64_t malformed = timeline_finish(t);
	if (malformed > 10)
		fprintf(stderr,
			"taskprobe-timeline: %llu malformed lines in all (the first 10 said)\n",
			(unsigned long long)malformed);
	/* not an error: the timeline is what it would be had perf written each sample once */
	if (duplicates > 0)
		fprintf(stderr,
			"taskprobe-timeline: dropped %llu duplicated perf samples (identical to "
			"the sample before them)\n",
			(unsigned long long)duplicates);
	return read_failed ? 2 : malformed > 0 ? 1 : 0;
}

/* A whole file, mapped; NULL with errno on failure. */
static unsigned char *map_whole(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		return NULL;
	*size = (size_t)st.st_size;
	void *m = *size > 0 ? mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0) : malloc(1);
	close(fd);
	return m == MAP_FAILED ? NULL : m;
}

/* `first` (`len` bytes, read already) and the rest of standard input; NULL on failure. */
static unsigned char *read_stdin_after(const char *first, size_t len, size_t *size)
{
	size_t cap = len + (1 << 20), n = len;
	unsigned char *data = malloc(cap);
	if (data == NULL)
		return NULL;
	memcpy(data, first, len);
	for (size_t got; (got = fread(data + n, 1, cap - n, stdin)) > 0;) {
		n += got;
		if (n == cap) {
			unsigned char *grown = realloc(data, cap *= 2);
			if (grown == NULL) {
				free(data);
				return NULL;
			}
			data = grown;
		}
	}
	*size = n;
	return ferror(stdin) ? NULL : data;
}

/* Converts recordings. Returns the exit status. */
static int convert_recordings(struct recording_input *inputs, size_t n, struct timeline *t,
			      bool say_counts)
{
	for (size_t i = 0; i < n; i++)
		if (!recording_detect(inputs[i].data, inputs[i].size)) {
			fprintf(stderr,
				"taskprobe-timeline: %s is not a recording, and the first input "
				"is: "
				"give recordings together, or perf's text alone\n",
				inputs[i].name);
			timeline_finish(t);
			return 2;
		}
	struct recording_totals totals;
	bool ok = recording_convert(t, inputs, n, stderr, &totals);
	timeline_finish(t);
	if (say_counts)
		fprintf(stderr, "taskprobe-timeline: %llu events\n",
			(unsigned long long)totals.events);
	if (!ok) {
		fputs("taskprobe-timeline: out of memory\n", stderr);
		return 2;
	}
	if (totals.dropped > 0)
		fprintf(stderr,
			"taskprobe-timeline: %llu events were not recorded (the recorder said so; "
			"marked on their threads' tracks)\n",
			(unsigned long long)totals.dropped);
	return totals.cut_files > 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *output = NULL;
	bool say_counts = false;
	struct recording_input *inputs = calloc((size_t)argc, sizeof *inputs);
	size_t n = 0;
	if (inputs == NULL)
		return 2;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			output = argv[++i];
		else if (strcmp(argv[i], "--count") == 0)
			say_counts = true;
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return usage(stdout, 0);
		else if (argv[i][0] == '-' && argv[i][1] != '\0')
			return usage(stderr, 2);
		else
			inputs[n++].name = argv[i];
	}
	if (n == 0)
		inputs[n++].name = "-";
	/* standard input: perf's text is streamed; a recording is read whole */
	char *first = NULL;
	size_t first_cap = 0;
	ssize_t first_len = -1;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(inputs[i].name, "-") != 0) {
			inputs[i].data = map_whole(inputs[i].name, &inputs[i].size);
		} else {
			first_len = getline(&first, &first_cap, stdin);
			size_t len = first_len > 0 ? (size_t)first_len : 0;
			if (n == 1 && !recording_detect((const unsigned char *)first, len))
				break; /* perf's text, converted line by line below */
			inputs[i].data = read_stdin_after(first, len, &inputs[i].size);
		}
		if (inputs[i].data == NULL) {
			fprintf(stderr, "taskprobe-timeline: %s: %s\n", inputs[i].name,
				strerror(errno));
			return 2;
		}
	}
	FILE *out = output != NULL ? fopen(output, "w") : stdout;
	if (out == NULL) {
		fprintf(stderr, "taskprobe-timeline: %s: %s\n", output, strerror(errno));
		return 2;
	}
	struct timeline *t = timeline_new(out);
	if (t == NULL) {
		fputs("taskprobe-timeline: out of memory\n", stderr);
		return 2;
	}
	int status;
	if (inputs[0].data == NULL) {
		status = convert_text(stdin, t, first, first_cap, first_len);
	} else if (recording_detect(inputs[0].data, inputs[0].size)) {
		status = convert_recordings(inputs, n, t, say_counts);
	} else if (n > 1) {
		fputs("taskprobe-timeline: perf's text is read from one input\n", stderr);
		timeline_finish(t);
		return 2;
	} else {
		FILE *in = fmemopen((void *)inputs[0].data, inputs[0].size, "r");
		if (in == NULL) {
			timeline_finish(t);
			return 2;
		}
		first_len = getline(&first, &first_cap, in);
		status = convert_text(in, t, first, first_cap, first_len);
		fclose(in);
	}
	if (fflush(out) != 0 || ferror(out)) {
		fputs("taskprobe-timeline: writing failed\n", stderr);
		return 2;
	}
	return status;
}
