// SPDX-License-Identifier: MIT
/*
 * taskprobe-timeline's inputs and outputs (issue 27): an output that is an input refused; pipes
 * read as files are; a recording of no task, or of nothing, turned into a timeline that says so;
 * sites named only from the program's file; malformed records said. Its rows (sites, processes)
 * are test_timeline_tracks.c's.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "taskprobe_recording.h"
#include "timeline_recorded.h"

/* Whether the file at `path` holds `len` bytes equal to `data`. */
static bool file_is(const char *path, const char *data, size_t len)
{
	size_t now;
	char *content = tp_read_file(path, &now);
	bool same = now == len && memcmp(content, data, len) == 0;
	free(content);
	return same;
}

/*
 * `-o r1.rec r1.rec` cut its input to nothing, then died of SIGBUS reading it. An output that
 * is an input (the same name, a hard link, a symbolic link to it, or the input named through a
 * link) is refused before anything is opened for writing: status 2, a message, the input
 * whole. And the output is not cut short when an input turns out unusable.
 */
Test(timeline, an_output_that_is_an_input_is_refused)
{
	char *dir = tp_make_temp_dir("timeline-input"), *rec = tp_path_in(dir, "r1.rec"),
	     *hard = tp_path_in(dir, "hard"), *soft = tp_path_in(dir, "soft"),
	     *txt = tp_path_in(dir, "perf.txt"), *kept = tp_path_in(dir, "kept.json");
	size_t len;
	char *data = tp_read_file(TP_CORPUS_DIR "/omp_fib_4.rec", &len);
	FILE *f = fopen(rec, "w");
	fwrite(data, 1, len, f);
	fclose(f);
	cr_assert_eq(link(rec, hard), 0);
	cr_assert_eq(symlink(rec, soft), 0);
	const char *const cases[][3] = {
		{rec, rec, NULL},
		{hard, rec, NULL},
		{soft, rec, NULL},
		{rec, soft, NULL},
		{rec, TP_CORPUS_DIR "/omp_fib_4.rec", rec}, /* the second input */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tp_run run;
		tp_convert((const char *[]){"-o", cases[i][0], cases[i][1], cases[i][2], NULL},
			   &run);
		cr_expect_eq(run.status, 2, "-o %s %s: %s", cases[i][0], cases[i][1], run.err);
		cr_expect_not_null(strstr(run.err, "is the input"), "%s", run.err);
		cr_expect_not_null(strstr(run.err, "nothing written"), "%s", run.err);
		cr_expect(file_is(rec, data, len), "-o %s %s: the input was written", cases[i][0],
			  cases[i][1]);
		tp_run_free(&run);
	}
	/* perf's text on standard input, the output the same file */
	char *cmd;
	cr_assert(asprintf(&cmd, "cp %s/omp_latency.txt '%s' && '%s' -o '%s' < '%s'", TP_CORPUS_DIR,
			   txt, TP_TIMELINE, txt, txt) > 0);
	int status = system(cmd);
	free(cmd);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 2, "status %d", status);
	size_t text_len;
	char *text = tp_read_file(TP_CORPUS_DIR "/omp_latency.txt", &text_len);
	cr_expect(file_is(txt, text, text_len), "standard input's file was written");
	free(text);

	/* an existing output stays as it was when an input is not a recording */
	f = fopen(kept, "w");
	fputs("keep me\n", f);
	fclose(f);
	struct tp_run run;
	tp_convert((const char *[]){"-o", kept, rec, TP_CORPUS_DIR "/omp_latency.txt", NULL}, &run);
	cr_expect_eq(run.status, 2, "%s", run.err);
	cr_expect(file_is(kept, "keep me\n", 8), "the output was written before the inputs were "
						 "checked");
	tp_run_free(&run);
	/* a terminal or /dev/null may be an output and an input */
	tp_convert((const char *[]){"-o", "/dev/null", rec, NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	free(data);
	free(rec);
	free(hard);
	free(soft);
	free(txt);
	free(kept);
	tp_remove_temp_dir(dir);
}

/* What bash prints of `command` ($0 the converter, $1 and $2 the arguments). */
static char *bash_out(const char *command, const char *one, const char *two)
{
	struct tp_run run;
	tp_run(TP_PLAIN, (const char *[]){"/bin/bash", "-c", command, TP_TIMELINE, one, two, NULL},
	       NULL, &run);
	cr_expect_eq(run.status, 0, "%s: %s", command, run.err);
	char *out = strdup(run.out);
	tp_run_free(&run);
	return out;
}

/*
 * An input that is a pipe (`<(cat r1.rec)`) gave an empty timeline and status 0: a pipe, or
 * standard input, gives the timeline its file gives, recordings and perf's text alike.
 */
Test(timeline, a_pipe_gives_the_timeline_of_its_file)
{
	const char *rec = TP_CORPUS_DIR "/omp_fib_4.rec", *txt = TP_CORPUS_DIR "/omp_latency.txt";
	char *file = bash_out("\"$0\" \"$1\"", rec, NULL);
	cr_expect_gt(strlen(file), 1000);
	char *pipe = bash_out("\"$0\" <(cat \"$1\")", rec, NULL);
	cr_expect_str_eq(pipe, file);
	char *standard = bash_out("cat \"$1\" | \"$0\"", rec, NULL);
	cr_expect_str_eq(standard, file);
	char *dash = bash_out("cat \"$1\" | \"$0\" -", rec, NULL);
	cr_expect_str_eq(dash, file);
	free(file);
	free(pipe);
	free(standard);
	free(dash);
	/* two recordings, one of them a pipe */
	file = bash_out("\"$0\" \"$1\" \"$2\"", rec, rec);
	pipe = bash_out("\"$0\" \"$1\" <(cat \"$2\")", rec, rec);
	cr_expect_str_eq(pipe, file);
	free(file);
	free(pipe);
	file = bash_out("\"$0\" \"$1\"", txt, NULL);
	cr_expect_gt(strlen(file), 1000);
	pipe = bash_out("\"$0\" <(cat \"$1\")", txt, NULL);
	cr_expect_str_eq(pipe, file);
	standard = bash_out("cat \"$1\" | \"$0\"", txt, NULL);
	cr_expect_str_eq(standard, file);
	free(file);
	free(pipe);
	free(standard);
}

/*
 * A recording of no task and no worker (`taskprobe record -- make -j2`) gave
 * {"traceEvents":[]}, which speedscope refuses ("Unrecognized format"). A process that recorded
 * nothing gives a timeline speedscope opens, saying so, and the converter says what was and was
 * not seen; threads and waits are content: their tracks are there.
 */
Test(timeline, a_recording_without_tasks_says_what_it_holds, .timeout = 120)
{
	char *dir = tp_make_temp_dir("timeline-input");
	char *json[3] = {tp_path_in(dir, "true.json"), tp_path_in(dir, "waits.json"),
			 tp_path_in(dir, "empty.json")};
	struct tp_run run;
	record_into(dir, "true", "/bin/true", NULL, &run, false);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	char *rec = only_file(dir, "true.");
	tp_convert((const char *[]){"-o", json[0], rec, NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_not_null(strstr(run.err, "no task or worker was seen; 0 threads, 0 waits"), "%s",
			   run.err);
	tp_run_free(&run);

	/* a program of one thread and 9 waits (timed_waits), and no task */
	record_into(dir, "waits", tp_target("timed_waits"), NULL, &run, false);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	char *waits = only_file(dir, "waits.");
	tp_convert((const char *[]){"-o", json[1], waits, NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_not_null(strstr(run.err, "no task or worker was seen; 1 thread, 9 waits"), "%s",
			   run.err);
	tp_run_free(&run);
	const char *summary = tp_timeline_summary(json[1]);
	cr_expect(strncmp(summary, "M=1 B=9 E=9 b=0 e=0 s=0 f=0", 27) == 0, "%s", summary);
	cr_expect_eq(tp_timeline_count(summary, "unbalanced slices="), 0, "%s", summary);

	/* perf's text of no taskprobe event: a timeline speedscope opens, and what was seen */
	char *empty = tp_path_in(dir, "empty.txt");
	FILE *f = fopen(empty, "w");
	fclose(f);
	tp_convert((const char *[]){"-o", json[2], empty, NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_not_null(strstr(run.err, "no task or worker was seen; 0 threads, 0 waits"), "%s",
			   run.err);
	tp_run_free(&run);

	/* the three in speedscope, in one browser */
	char *shown[3];
	speedscope_rows_of((const char *const[]){json[0], json[1], json[2], NULL}, shown);
	cr_expect_null(strstr(shown[0], "refused"), "%s", shown[0]);
	cr_expect_null(strstr(shown[0], "error\t"), "%s", shown[0]);
	cr_expect_not_null(strstr(shown[0], "row\tnothing recorded: no task, worker, thread or "
					    "wait was seen\n"),
			   "%s", shown[0]);
	/* wait slices, named by their kind and call site */
	cr_expect_not_null(strstr(shown[1], "row\tcondvar at main (timed_waits.c:"), "%s",
			   shown[1]);
	cr_expect_not_null(strstr(shown[1], "row\tsemaphore at main (timed_waits.c:"), "%s",
			   shown[1]);
	cr_expect_null(strstr(shown[2], "refused"), "%s", shown[2]);
	for (int k = 0; k < 3; k++) {
		free(shown[k]);
		free(json[k]);
	}
	free(empty);
	free(waits);
	free(rec);
	tp_remove_temp_dir(dir);
}

/* The names of the timeline's task tracks but the initial tasks', one a line ("NAME\tTASKS"). */
static char *track_names(const char *json)
{
	char *summary = strdup(tp_timeline_summary(json)), *save = NULL, *names = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&names, &size);
	for (char *line = strtok_r(summary, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "track\t", 6) == 0 &&
		    strncmp(line + 6, "(no site: initial tasks)\t", 25) != 0)
			fprintf(out, "%s\n", line + 6);
	fclose(out);
	free(summary);
	return names;
}

/*
 * A recording keeps its sites as addresses in modules with their build ids: the converter names
 * them from the program's file only while that file is the one that ran. Replaced by another
 * program (a rebuild: here another OpenMP program, whose debug information would give real
 * names of the wrong code) or deleted, the sites are named by their address in the module,
 * never by what another file says.
 */
Test(timeline, sites_are_named_only_from_the_file_the_program_ran, .timeout = 120)
{
	const char *fib = tp_require_program(tp_target("omp_fib"), "clang and libomp-dev");
	char *dir = tp_make_temp_dir("timeline-input"), *copy = tp_path_in(dir, "omp_fib"),
	     *json = tp_path_in(dir, "timeline.json");
	char *cmd;
	cr_assert(asprintf(&cmd, "cp '%s' '%s'", fib, copy) > 0);
	cr_assert_eq(system(cmd), 0);
	free(cmd);
	char *rec = record_and_convert(dir, copy, "6", json);
	/* the file that ran: each construct by its function and line (fib 6: 12 tasks a construct) */
	char *names = track_names(json), want[128];
	snprintf(want, sizeof want, "fib (omp_fib.c:%d)\t%u\n",
		 tp_source_line("omp_fib.c", "long fib(", "#pragma omp task"), tp_fib_tasks(6) / 2);
	cr_expect_not_null(strstr(names, want), "%s in:\n%s", want, names);
	free(names);
	const char *const replaced_by[] = {tp_target("omp_constructs"), NULL};
	for (size_t i = 0; i < 2; i++) {
		if (replaced_by[i] != NULL)
			cr_assert(asprintf(&cmd, "cp '%s' '%s'", replaced_by[i], copy) > 0);
		else
			cr_assert(asprintf(&cmd, "rm '%s'", copy) > 0);
		cr_assert_eq(system(cmd), 0);
		free(cmd);
		struct tp_run run;
		tp_convert((const char *[]){"-o", json, rec, NULL}, &run);
		cr_assert_eq(run.status, 0, "%s", run.err);
		tp_run_free(&run);
		/* main's parallel construct and fib's two task constructs, each by its address */
		names = track_names(json);
		unsigned sites = 0, tasks = 0, n;
		unsigned long long address;
		char module[64];
		for (const char *line = names; *line != '\0'; line = strchr(line, '\n') + 1) {
			cr_expect_eq(sscanf(line, "%llx (%63[^)])\t%u", &address, module, &n), 3,
				     "%s", line);
			cr_expect_str_eq(module, "omp_fib");
			cr_expect(strncmp(line, "0x", 2) == 0, "%s", line);
			sites++;
			tasks += n;
		}
		cr_expect_eq(sites, 3, "%s", names);
		cr_expect_eq(tasks, tp_fib_tasks(6) + 2, "%s", names);
		free(names);
	}
	free(rec);
	free(copy);
	free(json);
	tp_remove_temp_dir(dir);
}

/* The first record of `type` in recording `data` of `len` bytes (its first segment), or NULL. */
static struct tp_record *first_record(char *data, size_t len, unsigned type)
{
	for (size_t at = sizeof(struct tp_recording_header);
	     at + sizeof(struct tp_recording_chunk) <= len;) {
		struct tp_recording_chunk c;
		memcpy(&c, data + at, sizeof c);
		if (c.magic != TP_CHUNK_MAGIC || c.size < sizeof c || c.size > len - at)
			return NULL;
		for (size_t r_at = at + sizeof c; r_at < at + c.size;) {
			struct tp_record *r = (struct tp_record *)(data + r_at);
			if (tp_record_type(r->word) == type)
				return r;
			r_at += tp_record_bytes(r->word);
		}
		at += c.size;
	}
	return NULL;
}

/*
 * A recording's module and site records are checked against their record and the file: one
 * that does not hold together (a path or build id longer than its record or its limit, no
 * module number, a span that ends before it starts, a site of no id or an unknown kind) is said,
 * with where, and the rest read on (status 1); a recording of a format version this converter
 * does not read says which it is and which it reads; one of an older version it reads (sites as
 * texts) is named by its texts.
 */
Test(timeline, malformed_module_and_site_records_and_other_versions_are_said, .timeout = 60)
{
	const char *fib = tp_require_program(tp_target("omp_fib"), "clang and libomp-dev");
	char *dir = tp_make_temp_dir("timeline-input"), *json = tp_path_in(dir, "timeline.json"),
	     *bad = tp_path_in(dir, "bad");
	struct tp_run run;
	record_into(dir, "rec", fib, "4", &run, false);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	char *rec = only_file(dir, "rec.");
	size_t len;
	char *data = tp_read_file(rec, &len);
	struct tp_record *module = first_record(data, len, TP_RECORD_MODULE),
			 *site = first_record(data, len, TP_RECORD_SITE_CODE);
	cr_assert(module != NULL && site != NULL);
	struct tp_record_module m;
	memcpy(&m, module->arg, sizeof m);
	const uint32_t record_path_room = tp_record_bytes(module->word) -
					  (uint32_t)(sizeof *module + sizeof m);
	/* each change: the field's offset in the record's arguments, its size, its value */
	struct {
		struct tp_record *record;
		size_t offset, size;
		uint64_t value;
		const char *said;
	} changes[] = {
		{module, offsetof(struct tp_record_module, number), 8, 0, "module record"},
		{module, offsetof(struct tp_record_module, number), 8, TP_RECORD_MODULES_MAX + 1,
		 "module record"},
		{module, offsetof(struct tp_record_module, end), 8, m.start - 1, "module record"},
		{module, offsetof(struct tp_record_module, build_id_bytes), 4,
		 TP_RECORD_MODULE_BUILD_ID_MAX + 1, "module record"},
		{module, offsetof(struct tp_record_module, path_bytes), 4, record_path_room + 1,
		 "module record"},
		{module, offsetof(struct tp_record_module, path_bytes), 4, 0xffffffffu,
		 "module record"},
		{site, 0, 8, 0, "site record"},
		{site, 2 * 8, 8, TP_RECORD_MODULES_MAX + 1, "site record"},
	};
	for (size_t i = 0; i < sizeof changes / sizeof changes[0] + 1; i++) {
		char *copy = malloc(len);
		memcpy(copy, data, len);
		if (i < sizeof changes / sizeof changes[0]) {
			char *field = copy + ((char *)changes[i].record - data) + 8 +
				      changes[i].offset;
			memcpy(field, &changes[i].value, changes[i].size);
		} else { /* a site of an unknown kind: the small argument */
			struct tp_record *r = (struct tp_record *)(copy + ((char *)site - data));
			r->word = tp_record_word(TP_RECORD_SITE_CODE, tp_record_bytes(r->word) / 8,
						 7, tp_record_delta(r->word));
		}
		FILE *f = fopen(bad, "w");
		fwrite(copy, 1, len, f);
		fclose(f);
		free(copy);
		tp_convert((const char *[]){"-o", json, bad, NULL}, &run);
		const char *said = i < sizeof changes / sizeof changes[0] ? changes[i].said
									  : "site record";
		cr_expect_eq(run.status, 1, "change %zu: %s", i, run.err);
		cr_expect_not_null(strstr(run.err, "skipped: a "), "change %zu: %s", i, run.err);
		cr_expect_not_null(strstr(run.err, said), "change %zu: %s", i, run.err);
		cr_expect_not_null(strstr(run.err, "does not hold together"), "change %zu: %s", i,
				   run.err);
		tp_run_free(&run);
	}
	/* versions before and after those this converter reads */
	const uint32_t versions[] = {1, TP_RECORDING_VERSION + 1};
	for (size_t i = 0; i < 2; i++) {
		char *copy = malloc(len);
		memcpy(copy, data, len);
		memcpy(copy + offsetof(struct tp_recording_header, version), &versions[i],
		       sizeof versions[i]);
		FILE *f = fopen(bad, "w");
		fwrite(copy, 1, len, f);
		fclose(f);
		free(copy);
		tp_convert((const char *[]){"-o", json, bad, NULL}, &run);
		char want[128];
		snprintf(want, sizeof want, "a recording of format version %u, which", versions[i]);
		cr_expect_eq(run.status, 1, "%s", run.err);
		cr_expect_not_null(strstr(run.err, want), "%s", run.err);
		snprintf(want, sizeof want, "reads versions %d to %d", TP_RECORDING_VERSION_OLDEST,
			 TP_RECORDING_VERSION);
		cr_expect_not_null(strstr(run.err, want), "%s", run.err);
		cr_expect_null(strstr(run.err, "killed"), "%s", run.err);
		tp_run_free(&run);
	}
	/* a recording of version 2, whose sites are texts, is read as ever */
	tp_convert((const char *[]){"-o", json, TP_CORPUS_DIR "/omp_fib_4.rec", NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	char *names = track_names(json);
	cr_expect_str_eq(names,
			 "fib (omp_fib.c:15)\t4\nfib (omp_fib.c:17)\t4\nmain (omp_fib.c:27)\t2\n");
	free(names);
	free(data);
	free(rec);
	free(bad);
	free(json);
	tp_remove_temp_dir(dir);
}

/*
 * A --thread or --site that matches nothing is said, each value that did, and the exit status is
 * 4 (the timeline is written, as it would be: its counters only); a filter that matches keeps
 * the status 0.
 */
Test(timeline, a_filter_that_matches_nothing_is_said_with_status_4, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	char *dir = tp_make_temp_dir("timeline-input"), *json = tp_path_in(dir, "timeline.json");
	struct tp_run run;
	record_into(dir, "fib", tp_require_program(tp_target("omp_fib"), "clang and libomp-dev"),
		    NULL, &run, false);
	cr_assert_eq(run.status, 0, "%s", run.err);
	char tid[32];
	snprintf(tid, sizeof tid, "%d", (int)run.pid); /* the main thread's */
	tp_run_free(&run);
	char *rec = only_file(dir, "fib.");
	tp_convert((const char *[]){"-o", json, "--thread", "99999999", rec, NULL}, &run);
	cr_expect_eq(run.status, 4, "%s", run.err);
	cr_expect_not_null(strstr(run.err, "taskprobe-timeline: --thread 99999999 matched no "
					   "thread of the input\n"),
			   "%s", run.err);
	tp_run_free(&run);
	tp_convert((const char *[]){"-o", json, "--site", "nosuchsite", "--site", "fib", rec, NULL},
		   &run);
	cr_expect_eq(run.status, 4, "%s", run.err);
	cr_expect_not_null(strstr(run.err, "taskprobe-timeline: --site nosuchsite matched no task "
					   "of the input\n"),
			   "%s", run.err);
	cr_expect_null(strstr(run.err, "--site fib "), "%s", run.err);
	tp_run_free(&run);
	tp_convert((const char *[]){"-o", json, "--site", "fib", "--thread", tid, rec, NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_null(strstr(run.err, "matched no"), "%s", run.err);
	tp_run_free(&run);
	free(rec);
	free(json);
	tp_remove_temp_dir(dir);
}

/*
 * The converter frees what it allocates, whatever it is asked: under memcheck, no block is
 * definitely lost converting a recording (to JSON, to speedscope with options in the --opt=value
 * and -oFILE forms), analysing it, reading it on standard input, or refusing an option. The
 * option arrays of the command line and the inputs' array were lost at every run.
 */
Test(timeline, the_converter_frees_what_it_allocates, .timeout = 240)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, "valgrind and the sanitizers exclude each other");
	const char *valgrind = tp_require_program("/usr/bin/valgrind", "valgrind");
	const char *fib = tp_require_program(tp_target("omp_fib"), "clang and libomp-dev");
	char *dir = tp_make_temp_dir("timeline-input"), *json = tp_path_in(dir, "out.json"),
	     *to_json;
	char *rec = record_and_convert(dir, fib, "10", json);
	cr_assert(asprintf(&to_json, "-o%s", json) > 0);
	const char *const cases[][5] = {
		{"-o", json, rec, NULL},
		{"--format=speedscope", "--site=fib", to_json, rec, NULL},
		{"--analyze", rec, NULL},
		{"-o", json, "-", NULL}, /* standard input: the recording */
		{"--no-such-option", rec, NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *cmd;
		cr_assert(asprintf(&cmd,
				   "'%s' -q --leak-check=full --show-leak-kinds=definite "
				   "--errors-for-leak-kinds=definite --error-exitcode=99 '%s' %s "
				   "%s %s "
				   "%s <'%s' >/dev/null 2>&1",
				   valgrind, TP_TIMELINE, cases[i][0], cases[i][1],
				   cases[i][2] != NULL ? cases[i][2] : "",
				   cases[i][2] != NULL && cases[i][3] != NULL ? cases[i][3] : "",
				   rec) > 0);
		int status = system(cmd);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) != 99,
			  "memcheck found an error or a leak: %s", cmd);
		free(cmd);
	}
	free(to_json);
	free(rec);
	free(json);
	tp_remove_temp_dir(dir);
}

/* The converter's output, errors and status for `rec` with options `args` (up to 6, ended by
 * NULL), on `threads` threads. */
static void convert_on(const char *threads, const char *const *args, const char *rec,
		       struct tp_run *run)
{
	char setting[64];
	snprintf(setting, sizeof setting, "TASKPROBE_TIMELINE_THREADS=%s", threads);
	const char *argv[9] = {TP_TIMELINE, rec};
	for (size_t i = 0; i < 6 && args[i] != NULL; i++)
		argv[2 + i] = args[i];
	tp_run(TP_PLAIN, argv, (const char *[]){setting, NULL}, run);
}

/* `rec` converted with each of `options` on one thread and on two: the same output, messages
 * and status. */
static void same_on_one_and_two(const char *rec, const char *const (*options)[7], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct tp_run one, two;
		convert_on("1", options[i], rec, &one);
		convert_on("2", options[i], rec, &two);
		char what[200] = "";
		for (size_t j = 0; options[i][j] != NULL; j++)
			snprintf(what + strlen(what), sizeof what - strlen(what), " %s",
				 options[i][j]);
		cr_expect_eq(one.status, 0, "%s: %s", what, one.err);
		cr_expect_gt(strlen(one.out), 1000, "%s", what);
		/* (not str_eq: criterion would print megabytes) */
		cr_expect(strcmp(two.out, one.out) == 0, "%s: two threads' output differs", what);
		cr_expect_str_eq(two.err, one.err, "%s", what);
		cr_expect_eq(two.status, one.status, "%s", what);
		tp_run_free(&one);
		tp_run_free(&two);
	}
}

/* A recording of omp_fib N in a new directory (*dir, to be removed): its file's path. */
static char *fib_recording(const char *n, char **dir)
{
	const char *target = tp_require_program(tp_target("omp_fib"), "clang and libomp-dev");
	*dir = tp_make_temp_dir("timeline-threads");
	struct tp_run run;
	record_into(*dir, "rec", target, n, &run, false);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	return only_file(*dir, "rec.");
}

/*
 * A window of `rec` that cuts its tasks short: from its first task after the initial one to
 * halfway from there to its end, in microseconds from its first event (as --from and --to
 * take them), read from its JSON timeline. A fixed window missed the tasks when a loaded
 * machine started the program slowly.
 */
static void window_within_the_tasks(const char *rec, char from[32], char to[32])
{
	struct tp_run json;
	convert_on("1", (const char *[]){"--format", "json", NULL}, rec, &json);
	cr_assert_eq(json.status, 0, "%s", json.err);
	double first = -1, task = -1, last = -1, ts;
	int begins = 0;
	for (const char *e = strstr(json.out, "{\"ph\":\""); e != NULL;
	     e = strstr(e + 1, "{\"ph\":\"")) {
		/* (strtod: sscanf would measure the whole rest of the text each time) */
		const char *t = strstr(e, "\"ts\":");
		char *after;
		if (t == NULL || (ts = strtod(t + 5, &after), after == t + 5))
			continue;
		first = first < 0 ? ts : first;
		last = ts > last ? ts : last;
		if (strncmp(e, "{\"ph\":\"b\"", 8) == 0 && ++begins == 2)
			task = ts;
	}
	cr_assert(task > first && last > task, "no task after the initial one");
	snprintf(from, 32, "%.0fus", task - first);
	snprintf(to, 32, "%.0fus", task - first + (last - task) / 2);
	tp_run_free(&json);
}

/*
 * The converter merges the records in a thread of its own beside the one writing the timeline
 * (TASKPROBE_TIMELINE_THREADS=2, the default on two CPUs or more): the output, its messages and
 * status are byte for byte what one thread gives, in each format, with the window cutting the
 * merge short, the critical path, and the analysis (the merge's other consumer); a recording of
 * more events than the threads' ring holds (8192). A setting that is not 1 or 2 is said, and
 * ignored.
 */
Test(timeline, one_thread_and_two_write_the_same, .timeout = 180)
{
	char *dir, from[32], to[32];
	char *rec = fib_recording("16", &dir);
	/* not a fixed window: a loaded machine's slow start left 2 ms with nothing in it */
	window_within_the_tasks(rec, from, to);
	const char *const options[][7] = {
		{NULL},           {"--format", "speedscope"}, {"--to", to},
		{"--from", from}, {"--critical-path"},        {"--analyze"}};
	same_on_one_and_two(rec, options, sizeof options / sizeof options[0]);
	struct tp_run one, bad;
	convert_on("1", (const char *[]){NULL}, rec, &one);
	convert_on("3", (const char *[]){NULL}, rec, &bad);
	cr_expect(strcmp(bad.out, one.out) == 0, "TASKPROBE_TIMELINE_THREADS=3's output differs");
	cr_expect_not_null(strstr(bad.err, "TASKPROBE_TIMELINE_THREADS=3: not 1 or 2, ignored\n"),
			   "%s", bad.err);
	cr_expect_eq(bad.status, 0, "%s", bad.err);
	tp_run_free(&one);
	tp_run_free(&bad);
	free(rec);
	tp_remove_temp_dir(dir);
}

/*
 * speedscope's profiles are written by a thread of their own on two cores, handed the slices'
 * opens and closes in batches (4096 a batch, 16 batches a ring): the file is byte for byte what
 * one thread writes, for a recording of many batches (omp_fib 20: 300,000 events), cut by a
 * window, by a thread or a site, and with the critical path (a profile of its own, written
 * last); and into a pipe.
 */
Test(timeline, speedscope_on_one_thread_and_two_the_same, .timeout = 240)
{
	char *dir;
	char *rec = fib_recording("20", &dir);
	char tid[32], from[32], to[32];
	snprintf(tid, sizeof tid, "%s", strrchr(rec, '.') + 1); /* the main thread's */
	window_within_the_tasks(rec, from, to);
	const char *const options[][7] = {{"--format", "speedscope"},
					  {"--format", "speedscope", "--from", from, "--to", to},
					  {"--format", "speedscope", "--thread", tid},
					  {"--format", "speedscope", "--site", "omp_fib"},
					  {"--format", "speedscope", "--critical-path"}};
	same_on_one_and_two(rec, options, sizeof options / sizeof options[0]);
	/* into a pipe: the same file */
	char *command;
	cr_assert(asprintf(&command, "'%s' --format speedscope '%s' | cat", TP_TIMELINE, rec) > 0);
	struct tp_run into_file, into_pipe;
	convert_on("2", (const char *[]){"--format", "speedscope", NULL}, rec, &into_file);
	tp_run(TP_PLAIN, (const char *[]){"/bin/sh", "-c", command, NULL}, NULL, &into_pipe);
	cr_expect_gt(strlen(into_file.out), 1000);
	cr_expect(strcmp(into_pipe.out, into_file.out) == 0,
		  "the speedscope file differs in a pipe");
	tp_run_free(&into_file);
	tp_run_free(&into_pipe);
	free(command);
	free(rec);
	tp_remove_temp_dir(dir);
}
