// SPDX-License-Identifier: MIT
/*
 * taskprobe-timeline: recordings of the in-process recorder (TASKPROBE_RECORD files, one per
 * process), or perf script output of the taskprobe events on stdin (or a file), to Trace Event
 * Format JSON on stdout (or -o FILE), for chrome://tracing, Perfetto or speedscope.
 *
 *	taskprobe-timeline -o trace.json recording.1234 recording.1240
 *	perf script -F comm,pid,tid,time,event,trace -i perf.data | taskprobe-timeline > trace.json
 *
 * Exit status: 0; 1 when lines were malformed (each reported with its number, then skipped), a
 * recording ends in a chunk that is not whole (read up to there, and said), or events were left
 * out to keep the converter's memory under its bound (256 MiB: recording.c; said); 2 when the input
 * or output could not be used; 4 when a --thread or --site value matched nothing in the input
 * (each said; the timeline, written all the same, holds none of theirs: a typo, or the wrong
 * recording, should not pass for an empty timeline). A sample line that repeats the one before it
 * byte for byte is dropped, and the count of those said on stderr, without changing the status; so
 * are the events a recording says it could not record.
 *
 * Every input is read (a regular file mapped, anything else, a pipe, copied into an unlinked
 * temporary file and mapped) and checked before the output is opened: an output that is one of the
 * inputs (the same file, by a link too) is refused, and nothing is written. A timeline without any
 * task or worker says so, and what it holds.
 *
 * The output's size is estimated from the events counted before anything is written, and said
 * on stderr; over --max-size (default 1 GiB; 0: no limit) nothing is written, the size it would
 * have is said with the options that cut it down, and the exit status is 3. perf's text on
 * standard input is converted as it comes: there the limit stops the output when reached (a file
 * given with -o is then removed).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "output_size.h"
#include "recording.h"
#include "scaling.h"
#include "timeline.h"
#include "timeline_cli.h"

/* The exit status when a --thread or --site value matched nothing (and nothing worse happened). */
#define STATUS_UNMATCHED 4
/* The exit status when the recordings are refused (two MPI jobs among them): no output. */
#define STATUS_REFUSED ANALYSIS_REFUSED

/* Bytes per line of perf's text, each line an event, in each format. */
#define JSON_BYTES_PER_LINE       130
#define SPEEDSCOPE_BYTES_PER_LINE 34

/* The output, counted (fopencookie): at most `limit` bytes reach `out`, later ones are counted
 * (none reach it while it is NULL: not opened yet). */
struct counted {
	FILE *out;
	uint64_t written, limit;
};

static ssize_t counted_write(void *cookie, const char *buf, size_t size)
{
	struct counted *c = cookie;
	uint64_t room = c->limit == 0 || c->written >= c->limit ? (c->limit == 0 ? size : 0)
								: c->limit - c->written;
	size_t n = size < room ? size : (size_t)room;
	if (n > 0 && c->out != NULL && fwrite_unlocked(buf, 1, n, c->out) != n)
		return -1;
	c->written += size;
	return (ssize_t)size;
}

/* A mapped input read as text, its pages given back to the kernel behind the reader every
 * GIVE_BACK_EVERY bytes (MADV_DONTNEED, as recording.c does): perf's text in a file takes no
 * memory that grows with it. */
#define GIVE_BACK_EVERY (32u << 20)
struct mapped_text {
	const struct recording_input *in;
	size_t at, given_back; /* read up to `at`, given back up to `given_back` */
};

/* The reader is at `at`: the pages before it given back every GIVE_BACK_EVERY bytes. */
static void mapped_text_at(struct mapped_text *m, size_t at)
{
	m->at = at;
	if (!m->in->mapped || at - m->given_back < GIVE_BACK_EVERY)
		return;
	size_t to = at & ~((size_t)sysconf(_SC_PAGESIZE) - 1);
	madvise((void *)(m->in->data + m->given_back), to - m->given_back, MADV_DONTNEED);
	m->given_back = to;
}

static ssize_t mapped_text_read(void *cookie, char *buf, size_t size)
{
	struct mapped_text *m = cookie;
	size_t n = size < m->in->size - m->at ? size : m->in->size - m->at;
	memcpy(buf, m->in->data + m->at, n);
	mapped_text_at(m, m->at + n);
	return (ssize_t)n;
}

/* Says that site texts were not kept (the timeline's memory bound), if so. */
static void say_site_texts(const struct timeline_counts *c)
{
	if (c->site_texts_refused > 0)
		fprintf(stderr,
			"taskprobe-timeline: more than %u sites, or %u MiB of their texts: %" PRIu64
			" texts not kept, to keep the converter's memory under its bound (256 "
			"MiB); "
			"their sites are named by their ids\n",
			TIMELINE_MAX_SITES, TIMELINE_MAX_NAMES_BYTES >> 20, c->site_texts_refused);
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

/* The longest line read: a longer one is cut to this (perf_script.c finds it malformed: it takes
 * lines of up to 4095 bytes), never held whole. */
#define LINE_CAP 8192

/* perf's text, read line by line through a buffer of its own (a line is cut, never held whole):
 * `pending` bytes read already come first. */
struct text_source {
	FILE *in;
	const char *pending;
	size_t n_pending;
	char buf[1 << 16];
	size_t at, len; /* buf[at, len) not read yet */
};

/* The next line, without its newline, in `line`, cut to LINE_CAP - 1 bytes; its length so cut,
 * or -1 at the end. */
static ssize_t next_line(struct text_source *s, char *line)
{
	size_t n = 0;
	bool any = false;
	for (;;) {
		if (s->at == s->len && s->n_pending > 0) {
			s->len = s->n_pending < sizeof s->buf ? s->n_pending : sizeof s->buf;
			memcpy(s->buf, s->pending, s->len);
			s->pending += s->len;
			s->n_pending -= s->len;
			s->at = 0;
		} else if (s->at == s->len) {
			s->len = fread_unlocked(s->buf, 1, sizeof s->buf, s->in);
			s->at = 0;
			if (s->len == 0)
				return any ? (ssize_t)n : -1;
		}
		const char *from = s->buf + s->at, *nl = memchr(from, '\n', s->len - s->at);
		size_t take = nl != NULL ? (size_t)(nl - from) : s->len - s->at;
		size_t room = LINE_CAP - 1 - n, copy = take < room ? take : room;
		memcpy(line + n, from, copy);
		n += copy;
		any = true;
		s->at += take + (nl != NULL);
		if (nl != NULL)
			return (ssize_t)n;
	}
}

/* Converts perf's text from `in`, streaming, after `start` (`len` bytes of it read already).
 * Returns the exit status. */
static int convert_text(FILE *in, struct timeline *t, const char *start, size_t len)
{
	uint64_t number = 0, duplicates = 0;
	struct text_source *source = malloc(sizeof *source);
	char *line = malloc(LINE_CAP);
	if (source != NULL)
		*source = (struct text_source){.in = in, .pending = start, .n_pending = len};
	ssize_t got;
	while (line != NULL && source != NULL && (got = next_line(source, line)) >= 0) {
		number++;
		duplicates += timeline_feed(t, line, (size_t)got, number, stderr) == 1;
	}
	bool read_failed = line == NULL || source == NULL || ferror(in);
	free(line);
	free(source);
	say_empty(t);
	size_t unmatched = timeline_unmatched(t, stderr);
	bool ok;
	struct timeline_counts counts;
	uint64_t malformed = timeline_finish(t, &counts, &ok);
	say_site_texts(&counts);
	if (!ok)
		fputs("taskprobe-timeline: out of memory, or the temporary file failed\n", stderr);
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
	return read_failed || !ok ? 2 : malformed > 0 ? 1 : unmatched > 0 ? STATUS_UNMATCHED : 0;
}

/*
 * `first` (`len` bytes, read already) and the rest of `in`, copied into an unlinked temporary
 * file (timeline_temp_file: mode 0600) and mapped (8-byte aligned, as recordings are read): a
 * pipe is read as a regular file is, its pages given back as they are read, never held whole in
 * memory. NULL with errno on failure.
 */
static unsigned char *spill(FILE *in, const char *first, size_t len, size_t *size)
{
	int fd = timeline_temp_file();
	if (fd < 0)
		return NULL;
	static char buf[1 << 16];
	const char *from = first;
	size_t n = len, total = 0;
	bool ok = true;
	for (;;) {
		for (size_t done = 0; ok && done < n;) {
			ssize_t wrote = write(fd, from + done, n - done);
			if (wrote < 0 && errno == EINTR)
				continue;
			ok = wrote > 0;
			done += ok ? (size_t)wrote : 0;
		}
		total += n;
		if (!ok || (n = fread(buf, 1, sizeof buf, in)) == 0)
			break;
		from = buf;
	}
	if (ok && ferror(in)) {
		ok = false;
		errno = EIO;
	}
	void *m = NULL;
	if (ok) {
		m = total > 0 ? mmap(NULL, total, PROT_READ, MAP_PRIVATE, fd, 0) : malloc(8);
		m = m == MAP_FAILED ? NULL : m;
	}
	int error = errno;
	close(fd);
	errno = error;
	*size = total;
	return m;
}

/* A whole file: a regular file mapped, anything else (a pipe) spilled and mapped; NULL with errno
 * on failure. Its device and inode in *st. `flags`: open(2)'s besides (O_NOFOLLOW). */
static unsigned char *read_whole(const char *path, int flags, size_t *size, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | flags);
	if (fd < 0 || fstat(fd, st) != 0)
		return NULL;
	void *m;
	if (S_ISDIR(st->st_mode)) {
		errno = EISDIR;
		m = NULL;
	} else if (S_ISREG(st->st_mode)) {
		*size = (size_t)st->st_size;
		m = *size > 0 ? mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0) : malloc(8);
		m = m == MAP_FAILED ? NULL : m;
	} else {
		FILE *in = fdopen(fd, "r");
		m = in != NULL ? spill(in, "", 0, size) : NULL;
		if (in != NULL) {
			int error = errno;
			fclose(in);
			errno = error;
			return m;
		}
	}
	int error = errno;
	close(fd);
	errno = error;
	return m;
}

/*
 * Converts the recordings `read` (with the timeline `t` they were read with: check_size) to
 * `out`; read again, with a timeline of their own, when there is something to say as they are
 * read (a file cut: said where it is read). With the census `beside` the conversion, the output
 * is opened by it (*file, until then NULL) before anything is written. Returns the exit status.
 */
static int convert_recordings(struct recording_input *inputs, size_t n, struct timeline *t,
			      struct recordings *read, FILE *out, FILE **file,
			      const struct timeline_options *options, bool say_counts,
			      struct census_beside *beside)
{
	struct recording_totals totals;
	struct timeline_counts counts;
	bool ok, finished;
	if (recordings_said_nothing(read)) {
		timeline_output(t, out);
		ok = recordings_convert(
			read, t, beside != NULL ? census_beside_errors(beside) : stderr, &totals);
		recordings_free(read);
		int status = beside != NULL ? census_beside_end(beside, file) : CLI_GO_ON;
		if (status != CLI_GO_ON) {
			timeline_discard(t);
			return status;
		}
	} else {
		recordings_free(read);
		timeline_discard(t);
		if ((t = timeline_new(out, options)) == NULL) {
			fputs("taskprobe-timeline: out of memory\n", stderr);
			return 2;
		}
		ok = recording_convert(t, inputs, n, stderr, &totals);
	}
	if (!ok && totals.refused) {
		timeline_finish(t, NULL, NULL);
		return STATUS_REFUSED; /* said on stderr; the output is removed */
	}
	say_empty(t);
	size_t unmatched = timeline_unmatched(t, stderr);
	timeline_finish(t, &counts, &finished);
	ok = ok && finished;
	if (counts.tasks_forgotten > 0)
		fprintf(stderr,
			"taskprobe-timeline: more than %u tasks alive at once: the %" PRIu64
			" oldest were forgotten (their tracks left open, later polls unnamed, not "
			"counted alive)\n",
			TIMELINE_MAX_TASKS, counts.tasks_forgotten);
	if (counts.threads_forgotten > 0)
		fprintf(stderr,
			"taskprobe-timeline: more than %u threads: %" PRIu64
			" were forgotten for a while (named again when seen again)\n",
			TIMELINE_MAX_THREADS, counts.threads_forgotten);
	say_site_texts(&counts);
	if (counts.threads_unprofiled > 0)
		fprintf(stderr,
			"taskprobe-timeline: speedscope profiles for the first %u threads only: "
			"%" PRIu64 " threads left out (--thread picks them)\n",
			TIMELINE_MAX_PROFILES, counts.threads_unprofiled);
	if (say_counts)
		fprintf(stderr, "taskprobe-timeline: %llu events\n",
			(unsigned long long)totals.events);
	if (!ok) {
		fputs("taskprobe-timeline: out of memory, or the temporary file failed\n", stderr);
		return 2;
	}
	if (totals.dropped > 0)
		fprintf(stderr,
			"taskprobe-timeline: %llu events were not recorded (the recorder said so; "
			"marked on their threads' tracks)\n",
			(unsigned long long)totals.dropped);
	if (totals.left_out > 0)
		fprintf(stderr,
			"taskprobe-timeline: %" PRIu64
			" events left out to keep the converter's memory bounded (said above)\n",
			totals.left_out);
	return totals.cut_files > 0 || totals.left_out > 0 ? 1
	       : unmatched > 0                             ? STATUS_UNMATCHED
							   : 0;
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

/*
 * Whether the user's locale has UTF-8 for its codeset, as a terminal's would (the console asks
 * the same): --analyze then keeps names' valid UTF-8. The converter itself runs in the C locale.
 */
static bool terminal_utf8(void)
{
	bool utf8 = setlocale(LC_CTYPE, "") != NULL && strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	setlocale(LC_CTYPE, "C");
	return utf8;
}

/* A run of the converter: its command line, its inputs read, what they are. */
struct run {
	struct cli cli;
	struct recording_input *inputs;
	struct stat *ids; /* each input's device and inode */
	size_t n;
	/* standard input's first bytes, when it is perf's text converted as it comes */
	char magic[8];
	size_t magic_len;
	bool stream, recordings;
	/* recordings: read and counted (check_size), then converted into `t` */
	struct recordings *read;
	struct timeline *t;
	/* speedscope's: the census counted beside the conversion (check_size), which opens the
	 * output */
	struct census_beside *beside;
};

/*
 * Every input read (standard input's perf text is streamed: its first bytes are read) and
 * checked, before the output is opened. Returns CLI_GO_ON, or the exit status (the error said).
 */
static int read_inputs(struct run *r)
{
	r->n = r->cli.n_inputs > 0 ? r->cli.n_inputs : 1;
	r->inputs = calloc(r->n + 1, sizeof *r->inputs);
	r->ids = calloc(r->n + 1, sizeof *r->ids);
	if (r->inputs == NULL || r->ids == NULL)
		return 2;
	for (size_t i = 0; i < r->n; i++)
		r->inputs[i].name = r->cli.n_inputs > 0 ? r->cli.inputs[i] : "-";
	for (size_t i = 0; i < r->n; i++) {
		struct recording_input *in = &r->inputs[i];
		if (strcmp(in->name, "-") != 0) {
			in->data = read_whole(in->name, 0, &in->size, &r->ids[i]);
			in->mapped = in->size > 0;
		} else {
			if (fstat(STDIN_FILENO, &r->ids[i]) != 0) {
				fprintf(stderr, "taskprobe-timeline: standard input: %s\n",
					strerror(errno));
				return 2;
			}
			r->magic_len = fread(r->magic, 1, sizeof r->magic, stdin);
			if (r->n == 1 &&
			    !recording_detect((const unsigned char *)r->magic, r->magic_len)) {
				r->stream = true; /* perf's text, converted line by line */
				break;
			}
			in->data = spill(stdin, r->magic, r->magic_len, &in->size);
			in->mapped = in->size > 0;
		}
		if (in->data == NULL) {
			fprintf(stderr, "taskprobe-timeline: %s: %s\n", in->name, strerror(errno));
			return 2;
		}
	}
	return CLI_GO_ON;
}

/* Whether the inputs can be converted together, to that output, as asked. Returns CLI_GO_ON, or
 * the exit status (the error said). */
static int check_inputs(struct run *r)
{
	const char *output = r->cli.output;
	const char *same = output != NULL ? output_is_input(output, r->ids, r->inputs, r->n) : NULL;
	if (same != NULL) {
		fprintf(stderr,
			"taskprobe-timeline: the output %s is the input %s: refused (writing it "
			"would destroy the input); nothing written\n",
			output, same);
		return 2;
	}
	r->recordings = !r->stream && recording_detect(r->inputs[0].data, r->inputs[0].size);
	for (size_t i = 1; r->recordings && i < r->n; i++)
		if (!recording_detect(r->inputs[i].data, r->inputs[i].size)) {
			fprintf(stderr,
				"taskprobe-timeline: %s is not a recording, and the first input "
				"is: give recordings together, or perf's text alone\n",
				r->inputs[i].name);
			return 2;
		}
	if (!r->stream && !r->recordings && r->n > 1) {
		fputs("taskprobe-timeline: perf's text is read from one input\n", stderr);
		return 2;
	}
	if ((r->cli.analyze || r->cli.options.critical_path) && !r->recordings) {
		fprintf(stderr,
			"taskprobe-timeline: %s reads recordings (TASKPROBE_RECORD), not perf's "
			"text\n",
			r->cli.analyze ? "--analyze" : "--critical-path");
		return 2;
	}
	return CLI_GO_ON;
}

/* The output's size, estimated before anything is written (perf's text on standard input
 * aside: the limit stops it as it comes). Returns CLI_GO_ON, or the exit status (said). */
static int check_size(struct run *r)
{
	const struct timeline_options *options = &r->cli.options;
	enum timeline_format other_format = options->format == TIMELINE_SPEEDSCOPE
						    ? TIMELINE_TRACE_EVENTS
						    : TIMELINE_SPEEDSCOPE;
	if (r->recordings) {
		struct recording_census census;
		r->t = timeline_new(NULL, options);
		r->read = r->t != NULL ? recordings_read(r->inputs, r->n, r->t) : NULL;
		/* speedscope's text is written at the end: the census is counted beside the
		 * conversion, on two cores (where there is something to say as the recordings are
		 * read, they are read again: before) */
		if (r->read != NULL && options->format == TIMELINE_SPEEDSCOPE &&
		    converter_threads() > 1 && recordings_said_nothing(r->read) &&
		    (r->beside = census_beside_start(r->read, r->t, options, r->cli.output,
						     r->cli.limit)) != NULL)
			return CLI_GO_ON;
		if (r->read == NULL || !recordings_count(r->read, options, &census)) {
			fputs("taskprobe-timeline: out of memory\n", stderr);
			return 2;
		}
		if (!size_fits(estimate(&census, options->format), estimate(&census, other_format),
			       census.events, r->cli.limit, options->format))
			return STATUS_TOO_LARGE;
	} else if (!r->stream) {
		uint64_t lines = 0;
		struct mapped_text text = {&r->inputs[0], 0, 0};
		for (const unsigned char *p = r->inputs[0].data, *end = p + r->inputs[0].size;
		     (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++) {
			lines++;
			mapped_text_at(&text, (size_t)(p - r->inputs[0].data));
		}
		mapped_text_at(&text, r->inputs[0].size);
		uint64_t json = 4096 + lines * JSON_BYTES_PER_LINE,
			 speedscope = 4096 + lines * SPEEDSCOPE_BYTES_PER_LINE;
		bool is_json = options->format == TIMELINE_TRACE_EVENTS;
		if (!size_fits(is_json ? json : speedscope, is_json ? speedscope : json, lines,
			       r->cli.limit, options->format))
			return STATUS_TOO_LARGE;
	}
	return CLI_GO_ON;
}

/* The timeline written to `out` (the output counted), *file the output's file (opened by the
 * census beside the conversion, if any). Returns the exit status. */
static int convert(struct run *r, FILE *out, FILE **file)
{
	if (r->recordings) {
		struct timeline *t = r->t;
		struct recordings *read = r->read;
		struct census_beside *beside = r->beside;
		r->t = NULL;
		r->read = NULL;
		r->beside = NULL;
		return convert_recordings(r->inputs, r->n, t, read, out, file, &r->cli.options,
					  r->cli.say_counts, beside);
	}
	struct timeline *t = timeline_new(out, &r->cli.options);
	if (t == NULL) {
		fputs("taskprobe-timeline: out of memory\n", stderr);
		return 2;
	}
	if (r->stream)
		return convert_text(stdin, t, r->magic, r->magic_len);
	struct mapped_text text = {&r->inputs[0], 0, 0};
	FILE *in = fopencookie(&text, "r", (cookie_io_functions_t){.read = mapped_text_read});
	if (in == NULL) {
		timeline_finish(t, NULL, NULL);
		return 2;
	}
	int status = convert_text(in, t, NULL, 0);
	fclose(in);
	return status;
}

/* Opens the output (or the census beside the conversion does) and writes the timeline there.
 * Returns the exit status. */
static int write_timeline(struct run *r)
{
	const char *output = r->cli.output;
	FILE *file = r->beside != NULL ? NULL : output != NULL ? open_output(output) : stdout;
	if (file == NULL && r->beside == NULL)
		return 2;
	/* perf's text as it comes: the limit stops the output when reached */
	struct counted counted = {file, 0, r->stream ? r->cli.limit : 0};
	FILE *out = fopencookie(&counted, "w", (cookie_io_functions_t){.write = counted_write});
	/* a buffer of its own: given none, glibc ignores the size (a write every 4 KiB) */
	static char buffer[1 << 20];
	if (out == NULL || setvbuf(out, buffer, _IOFBF, sizeof buffer) != 0) {
		fputs("taskprobe-timeline: out of memory\n", stderr);
		return 2;
	}
	int status = convert(r, out, &counted.out);
	if ((file = counted.out) == NULL) { /* not opened: nothing written (said) */
		fclose(out);
		return status;
	}
	if (fclose(out) != 0 || fflush(file) != 0 || ferror(file)) {
		fputs("taskprobe-timeline: writing failed\n", stderr);
		return 2;
	}
	if (status == STATUS_REFUSED && output != NULL)
		unlink(output);
	if (counted.limit != 0 && counted.written > counted.limit) {
		char a[32], b[32];
		fprintf(stderr,
			"taskprobe-timeline: the timeline is %s, over --max-size %s: %s. Cut it "
			"down with --format speedscope, --from TIME and --to TIME, --site TEXT or "
			"--thread TID; or --max-size 0 to write it whatever its size\n",
			human(counted.written, a), human(r->cli.limit, b),
			output != NULL ? "nothing written (the output removed)"
				       : "the output stops there");
		if (output != NULL)
			unlink(output);
		return STATUS_TOO_LARGE;
	}
	return status;
}

/*
 * What cli_parse, read_inputs and the conversion allocated: the recordings read, the inputs'
 * copies or mappings, their arrays.
 */
/* What read_whole read for `in`: its mapping, or its copy (an empty file's 8 bytes). */
static void input_data_free(const struct recording_input *in)
{
	if (in->data != NULL && in->mapped)
		munmap((void *)in->data, in->size);
	else
		free((void *)in->data);
}

static void run_free(struct run *r)
{
	FILE *file = NULL;
	if (r->beside != NULL && census_beside_end(r->beside, &file) == CLI_GO_ON && file != stdout)
		fclose(file); /* (the output's stream could not be made) */
	/* the recordings read and not converted (over --max-size, the output refused) */
	recordings_free(r->read);
	if (r->t != NULL)
		timeline_discard(r->t);
	for (size_t i = 0; r->inputs != NULL && i < r->n; i++)
		input_data_free(&r->inputs[i]);
	free(r->inputs);
	free(r->ids);
	cli_free(&r->cli);
}

/* Names in order, for a run's directory (its recordings in the order of their names). */
static int by_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/*
 * The recordings of run `name` (--scaling): the file, or each regular file of the directory (by
 * name; hidden ones and anything else left out), read into `*inputs` (`*n`, paths malloc'ed).
 * Returns CLI_GO_ON, or the exit status (the error said).
 */
static int read_run(const char *name, struct recording_input **inputs, size_t *n)
{
	char **paths = NULL;
	size_t n_paths = 0;
	bool memory = true;
	struct stat st;
	DIR *dir = stat(name, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(name) : NULL;
	if (dir == NULL) {
		paths = malloc(sizeof *paths);
		memory = paths != NULL && (paths[0] = strdup(name)) != NULL;
		n_paths = memory;
	}
	for (struct dirent *d; memory && dir != NULL && (d = readdir(dir)) != NULL;) {
		if (d->d_name[0] == '.' ||
		    fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		char **more = realloc(paths, (n_paths + 1) * sizeof *paths);
		paths = more != NULL ? more : paths;
		memory = more != NULL && asprintf(&paths[n_paths], "%s/%s", name, d->d_name) >= 0;
		n_paths += memory;
	}
	bool dir_listed = dir != NULL;
	if (dir != NULL)
		closedir(dir);
	if (!memory || n_paths == 0) {
		if (!memory)
			fputs("taskprobe-timeline: out of memory\n", stderr);
		else
			fprintf(stderr, "taskprobe-timeline: %s: no recording in it\n", name);
		for (size_t i = 0; i < n_paths; i++)
			free(paths[i]);
		free(paths);
		return 2;
	}
	qsort(paths, n_paths, sizeof *paths, by_name);
	*inputs = calloc(n_paths, sizeof **inputs);
	*n = 0;
	int status = *inputs != NULL ? CLI_GO_ON : 2;
	if (*inputs == NULL)
		fputs("taskprobe-timeline: out of memory\n", stderr);
	for (size_t i = 0; i < n_paths; i++) {
		struct recording_input *in = &(*inputs)[*n];
		if (status != CLI_GO_ON) {
			free(paths[i]);
			continue;
		}
		*in = (struct recording_input){.name = paths[i]};
		/* a directory's entry that became a link or a FIFO since it was listed is
		 * neither followed nor waited for */
		in->data = read_whole(paths[i], dir_listed ? O_NOFOLLOW | O_NONBLOCK : 0, &in->size,
				      &st);
		in->mapped = in->data != NULL && in->size > 0;
		bool recording = in->data != NULL && recording_detect(in->data, in->size);
		if (in->data == NULL)
			fprintf(stderr, "taskprobe-timeline: %s: %s\n", paths[i], strerror(errno));
		else if (!recording)
			fprintf(stderr,
				"taskprobe-timeline: %s is not a recording: --scaling compares "
				"runs recorded with TASKPROBE_RECORD (taskprobe record --dir)\n",
				paths[i]);
		(*n)++;
		status = recording ? status : 2;
	}
	free(paths);
	return status;
}

/* Frees what read_run read. */
static void run_inputs_free(struct recording_input *inputs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		input_data_free(&inputs[i]);
		free((void *)inputs[i].name);
	}
	free(inputs);
}

/* --scaling: each input a run (a directory of recordings, or one), compared with the first.
 * Returns the exit status. */
static int compare_runs(const struct cli *cli)
{
	if (cli->n_inputs < 2) {
		fputs("taskprobe-timeline: --scaling compares runs: give two or more (each a "
		      "directory of recordings, or a recording), the reference first\n",
		      stderr);
		return 2;
	}
	struct scaling_run *runs = calloc(cli->n_inputs, sizeof *runs);
	if (runs == NULL) {
		fputs("taskprobe-timeline: out of memory\n", stderr);
		return 2;
	}
	bool utf8 = terminal_utf8();
	int status = 0;
	for (size_t r = 0; r < cli->n_inputs && status < 2; r++) {
		struct recording_input *inputs = NULL;
		size_t n = 0;
		runs[r].name = cli->inputs[r];
		int read = read_run(cli->inputs[r], &inputs, &n);
		int analyzed = read == CLI_GO_ON
				       ? analysis_scaling(inputs, n, stderr, utf8, &runs[r])
				       : read;
		status = analyzed > status ? analyzed : status;
		run_inputs_free(inputs, n);
	}
	if (status < 2)
		scaling_report(runs, cli->n_inputs, cli->weak, stdout);
	for (size_t r = 0; r < cli->n_inputs; r++)
		scaling_run_free(&runs[r]);
	free(runs);
	return status;
}

int main(int argc, char **argv)
{
	struct run r = {0};
	int status = cli_parse(argc, argv, &r.cli);
	if (status == CLI_GO_ON && r.cli.scaling) {
		status = compare_runs(&r.cli);
		cli_free(&r.cli);
		return status;
	}
	if (status == CLI_GO_ON)
		status = read_inputs(&r);
	if (status == CLI_GO_ON)
		status = check_inputs(&r);
	if (status == CLI_GO_ON && r.cli.analyze)
		status = analysis_run(r.inputs, r.n, stdout, stderr, terminal_utf8());
	if (status == CLI_GO_ON)
		status = check_size(&r);
	if (status == CLI_GO_ON)
		status = write_timeline(&r);
	run_free(&r);
	return status;
}
