// SPDX-License-Identifier: MIT
/*
 * taskprobe-timeline: perf script output of the taskprobe events on stdin (or a file), Trace
 * Event Format JSON on stdout (or -o FILE), for chrome://tracing, Perfetto or speedscope.
 *
 *	perf script -F comm,pid,tid,time,event,trace -i perf.data | taskprobe-timeline > trace.json
 *
 * Exit status: 0; 1 when lines were malformed (each reported with its number, then skipped);
 * 2 when the input or output could not be used. A sample line that repeats the one before it
 * byte for byte is dropped, and the count of those said on stderr, without changing the status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"

static int usage(FILE *to, int status)
{
	fputs("usage: taskprobe-timeline [-o OUTPUT.json] [INPUT]\n"
	      "Converts `perf script -F comm,pid,tid,time,event,trace` output of the "
	      "sdt_taskprobe\n"
	      "events to Trace Event Format JSON (chrome://tracing, Perfetto, speedscope).\n",
	      to);
	return status;
}

int main(int argc, char **argv)
{
	const char *input = NULL, *output = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			output = argv[++i];
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return usage(stdout, 0);
		else if (argv[i][0] == '-' && argv[i][1] != '\0')
			return usage(stderr, 2);
		else if (input == NULL)
			input = argv[i];
		else
			return usage(stderr, 2);
	}
	FILE *in = input != NULL && strcmp(input, "-") != 0 ? fopen(input, "r") : stdin;
	if (in == NULL) {
		fprintf(stderr, "taskprobe-timeline: %s: %s\n", input, strerror(errno));
		return 2;
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
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	uint64_t number = 0, duplicates = 0;
	while ((len = getline(&line, &cap, in)) >= 0) {
		number++;
		if (len > 0 && line[len - 1] == '\n')
			len--;
		duplicates += timeline_feed(t, line, (size_t)len, number, stderr) == 1;
	}
	free(line);
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
	if (ferror(in) || fflush(out) != 0 || ferror(out)) {
		fputs("taskprobe-timeline: reading or writing failed\n", stderr);
		return 2;
	}
	return malformed > 0 ? 1 : 0;
}
