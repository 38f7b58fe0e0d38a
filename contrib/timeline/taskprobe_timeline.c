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
 *
 * Every input is read (a regular file mapped, anything else, a pipe, read whole) and checked
 * before the output is opened: an output that is one of the inputs (the same file, by a link
 * too) is refused, and nothing is written. A timeline without any task or worker says so, and
 * what it holds.
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

/* Says what a timeline without any task or worker holds. */
static void say_empty(const struct timeline *t)
{
	struct timeline_counts c;
	timeline_counts(t, &c);
	if (c.tasks == 0 && c.workers == 0)
		fprintf(stderr,
			"taskprobe-timeline: no task or worker was seen; %llu thread%s, %llu "
			"wait%s%s\n",
			(unsigned long long)c.threads, c.threads == 1 ? "" : "s",
			(unsigned long long)c.waits, c.waits == 1 ? "" : "s",
			c.events == 0 ? " (nothing else was recorded: the timeline says so)" : "");
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
	say_empty(t);
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

/* All of `fd` from where it is, after `first` (`len` bytes, read already), in memory (8-byte
 * aligned, as recordings are read); NULL with errno on failure. */
static unsigned char *read_all(int fd, const char *first, size_t len, size_t *size)
{
	size_t cap = len + (1 << 20), n = len;
	unsigned char *data = malloc(cap);
	if (data == NULL)
		return NULL;
	memcpy(data, first, len);
	for (;;) {
		if (n == cap) {
			unsigned char *grown = realloc(data, cap *= 2);
			if (grown == NULL) {
				free(data);
				errno = ENOMEM;
				return NULL;
			}
			data = grown;
		}
		ssize_t got = read(fd, data + n, cap - n);
		if (got == 0)
			break;
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int error = errno;
			free(data);
			errno = error;
			return NULL;
		}
		n += (size_t)got;
	}
	*size = n;
	return data;
}

/* A whole file: a regular file mapped, anything else (a pipe) read; NULL with errno on failure.
 * Its device and inode in *st. */
static unsigned char *read_whole(const char *path, size_t *size, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, st) != 0)
		return NULL;
	void *m;
	if (S_ISDIR(st->st_mode)) {
		errno = EISDIR;
		m = NULL;
	} else if (S_ISREG(st->st_mode)) {
		*size = (size_t)st->st_size;
		m = *size > 0 ? mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0) : malloc(1);
		m = m == MAP_FAILED ? NULL : m;
	} else {
		m = read_all(fd, "", 0, size);
	}
	int error = errno;
	close(fd);
	errno = error;
	return m;
}

/* Converts recordings. Returns the exit status. */
static int convert_recordings(struct recording_input *inputs, size_t n, struct timeline *t,
			      bool say_counts)
{
	struct recording_totals totals;
	bool ok = recording_convert(t, inputs, n, stderr, &totals);
	say_empty(t);
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
	if (ferror(stdin)) {
		free(data);
		return NULL;
	}
	return data;
}

/*
 * Whether `output` is one of the inputs (`ids`, `n` of them), the same file by any name or link:
 * writing it would cut the input short. A terminal or /dev/null may be both.
 */
static const char *output_is_input(const char *output, const struct stat *ids,
				   const struct recording_input *inputs, size_t n)
{
	struct stat st;
	if (stat(output, &st) != 0 || S_ISCHR(st.st_mode))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (ids[i].st_dev == st.st_dev && ids[i].st_ino == st.st_ino)
			return inputs[i].name;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *output = NULL;
	bool say_counts = false;
	struct recording_input *inputs = calloc((size_t)argc + 1, sizeof *inputs);
	struct stat *ids = calloc((size_t)argc + 1, sizeof *ids);
	size_t n = 0;
	if (inputs == NULL || ids == NULL)
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
	/* every input read (standard input's perf text is streamed: its first line is read) and
	 * checked before the output is opened */
	char *first = NULL;
	size_t first_cap = 0;
	ssize_t first_len = -1;
	bool stream = false;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(inputs[i].name, "-") != 0) {
			inputs[i].data = read_whole(inputs[i].name, &inputs[i].size, &ids[i]);
		} else {
			if (fstat(STDIN_FILENO, &ids[i]) != 0) {
				fprintf(stderr, "taskprobe-timeline: standard input: %s\n",
					strerror(errno));
				return 2;
			}
			first_len = getline(&first, &first_cap, stdin);
			size_t len = first_len > 0 ? (size_t)first_len : 0;
			if (n == 1 && !recording_detect((const unsigned char *)first, len)) {
				stream = true; /* perf's text, converted line by line below */
				break;
			}
			inputs[i].data = read_stdin_after(first, len, &inputs[i].size);
		}
		if (inputs[i].data == NULL) {
			fprintf(stderr, "taskprobe-timeline: %s: %s\n", inputs[i].name,
				strerror(errno));
			return 2;
		}
	}
	const char *same = output != NULL ? output_is_input(output, ids, inputs, n) : NULL;
	if (same != NULL) {
		fprintf(stderr,
			"taskprobe-timeline: the output %s is the input %s: refused (writing it "
			"would destroy the input); nothing written\n",
			output, same);
		return 2;
	}
	bool recordings = !stream && recording_detect(inputs[0].data, inputs[0].size);
	for (size_t i = 1; recordings && i < n; i++)
		if (!recording_detect(inputs[i].data, inputs[i].size)) {
			fprintf(stderr,
				"taskprobe-timeline: %s is not a recording, and the first input "
				"is: give recordings together, or perf's text alone\n",
				inputs[i].name);
			return 2;
		}
	if (!stream && !recordings && n > 1) {
		fputs("taskprobe-timeline: perf's text is read from one input\n", stderr);
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
	int status;
	if (stream) {
		status = convert_text(stdin, t, first, first_cap, first_len);
	} else if (recordings) {
		status = convert_recordings(inputs, n, t, say_counts);
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
