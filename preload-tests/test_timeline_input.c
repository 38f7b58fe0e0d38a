// SPDX-License-Identifier: MIT
/*
 * taskprobe-timeline's inputs and outputs (issue 27): slices named by their site alone, as
 * speedscope lists them; processes kept apart (several recordings at once, a pid seen twice);
 * an output that is an input refused; pipes read as files are; a recording of no task, or of
 * nothing, turned into a timeline that says so.
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

#define SANDWICH_ROWS  TP_SCRIPTS_DIR "/../preload-tests/speedscope/sandwich_rows.mjs"
#define SPEEDSCOPE_DIR "/usr/lib/node_modules/speedscope/dist/release"

/* Explicit tasks of omp_fib N: a task per recursive call. */
static unsigned fib_tasks(int n)
{
	return n < 2 ? 0 : 2 + fib_tasks(n - 1) + fib_tasks(n - 2);
}

/* A new empty directory. */
static char *new_dir(void)
{
	char *dir = strdup("/tmp/taskprobe-timeline-input-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	return dir;
}

static void remove_dir(char *dir)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
	cr_expect_eq(system(cmd), 0);
	free(cmd);
	free(dir);
}

/* The one file of `dir` whose name starts with `prefix` (a recording, named by its pid). */
static char *only_file(const char *dir, const char *prefix)
{
	char *cmd, *found = NULL;
	cr_assert(asprintf(&cmd, "ls '%s' | grep '^%s'", dir, prefix) > 0);
	FILE *p = popen(cmd, "r");
	free(cmd);
	char line[4096];
	unsigned n = 0;
	while (fgets(line, sizeof line, p) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (n++ == 0)
			found = tp_path_in(dir, line);
	}
	pclose(p);
	cr_assert_eq(n, 1, "%u files %s* in %s", n, prefix, dir);
	return found;
}

/* Runs `target` (with `arg` or none) preloaded, recording into DIR/`prefix`.%p. */
static void record_into(const char *dir, const char *prefix, const char *target, const char *arg,
			struct tp_run *run, bool start_only)
{
	char setting[4300];
	snprintf(setting, sizeof setting, "TASKPROBE_RECORD=%s/%s.%%p", dir, prefix);
	const char *argv[] = {target, arg, NULL};
	const char *env[] = {setting, "OMP_NUM_THREADS=2", NULL};
	if (start_only)
		tp_start(TP_PRELOADED, argv, env, run);
	else
		tp_run(TP_PRELOADED, argv, env, run);
}

/* `target` (with `arg` or none) recorded into DIR/rec.PID and converted into `json`: the
 * recording's path. */
static char *record_and_convert(const char *dir, const char *target, const char *arg,
				const char *json)
{
	struct tp_run run;
	record_into(dir, "rec", target, arg, &run, false);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	char *rec = only_file(dir, "rec.");
	tp_convert((const char *[]){"-o", json, rec, NULL}, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	return rec;
}

/* The rows of speedscope's Sandwich view, profile by profile (sandwich_rows.mjs). */
static char *speedscope_rows(const char *json)
{
	tp_require_program("/usr/bin/chromium", "chromium");
	const char *node = tp_require_program("/usr/bin/node", "nodejs");
	tp_require_file(SPEEDSCOPE_DIR "/index.html",
			"speedscope (npm install -g speedscope playwright-core)");
	tp_require_file("/usr/lib/node_modules/playwright-core/package.json",
			"playwright-core (npm install -g speedscope playwright-core)");
	struct tp_run run;
	tp_run(TP_PLAIN, (const char *[]){node, SANDWICH_ROWS, SPEEDSCOPE_DIR, json, NULL}, NULL,
	       &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	char *rows = strdup(run.out);
	tp_run_free(&run);
	return rows;
}

/* The sorted names of `text`'s lines "row\tNAME", one per line. */
static char *sorted_rows(const char *text)
{
	char *copy = strdup(text), *save = NULL, *names[4096];
	size_t n = 0;
	for (char *line = strtok_r(copy, "\n", &save); line != NULL && n < 4096;
	     line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "row\t", 4) == 0)
			names[n++] = line + 4;
	for (size_t i = 1; i < n; i++) /* insertion sort: few rows */
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *swap = names[j];
			names[j] = names[j - 1];
			names[j - 1] = swap;
		}
	char *sorted = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&sorted, &size);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s\n", names[i]);
	fclose(out);
	free(copy);
	return sorted;
}

/*
 * speedscope names a frame by its begin event's name and arguments: with a task's id among
 * them, its Sandwich view listed a row per task. A real OpenMP recording (omp_constructs: a
 * taskloop, task groups, dependences, untied and final tasks) in speedscope in Chromium: each
 * thread's Sandwich rows are exactly the distinct names of its slices, each once, and those are
 * sites (or "parked", or a wait's kind) alone; the initial tasks are the console's
 * "(no site: initial tasks)", never "task N".
 */
Test(timeline, speedscope_lists_one_row_per_site, .timeout = 180)
{
	const char *target = tp_require_program(tp_target("omp_constructs"),
						"clang and libomp-dev");
	char *dir = new_dir(), *json = tp_path_in(dir, "timeline.json");
	char *rec = record_and_convert(dir, target, NULL, json);

	/* per thread, the distinct names of its slices (speedscope leaves instants out) */
	char *expected = tp_python_on("import json,sys,collections\n"
				      "d = json.load(open(sys.argv[1]))[\"traceEvents\"]\n"
				      "names = collections.defaultdict(set)\n"
				      "for e in d:\n"
				      "    if e[\"ph\"] in \"BX\":\n"
				      "        names[(e[\"pid\"], e[\"tid\"])].add(e[\"name\"])\n"
				      "        assert \"args\" not in e, e\n"
				      "for k in names:\n"
				      "    for n in names[k]:\n"
				      "        print(\"row\\t\" + n)\n",
				      json);
	char *want = sorted_rows(expected);
	char *shown = speedscope_rows(json);
	char *got = sorted_rows(shown);
	cr_expect_str_eq(got, want, "speedscope shows:\n%s", shown);
	cr_expect_null(strstr(shown, "refused"), "%s", shown);
	cr_expect_null(strstr(shown, "{"), "arguments in a frame's name: %s", shown);
	cr_expect_null(strstr(shown, "\ttask "), "a task named by its id: %s", shown);
	cr_expect_not_null(strstr(shown, "row\t(no site: initial tasks)\n"), "%s", shown);
	/* the sites of omp_constructs.c's main, each one row (per thread that polled it) */
	int line = tp_source_line("omp_constructs.c", "int main(", "#pragma omp parallel");
	cr_assert_gt(line, 0);
	char site[128];
	snprintf(site, sizeof site, "row\tmain (omp_constructs.c:%d)\n", line);
	cr_expect_not_null(strstr(shown, site), "no %s in %s", site, shown);
	free(expected);
	free(want);
	free(got);
	free(shown);
	free(rec);
	free(json);
	remove_dir(dir);
}

/*
 * perf's text: a slice's begin is its name alone (a site's text, "site S" for a site without
 * text, "(no site: initial tasks)" for site 0); its end has the task and site; a slice of no
 * length (a begin and an end in the same microsecond) is an instant with its arguments, which
 * speedscope leaves out and Perfetto shows as a slice of no length.
 */
Test(timeline, slices_are_named_by_their_site_alone_with_arguments_on_their_end)
{
#define SPAWN(task, site, arg4)                                                                    \
	"     app 4242/4242 100.0000" #task ": sdt_taskprobe:task__spawn: (7f00) arg1=" #task      \
	" arg2=0 arg3=" #site " arg4=" arg4 " arg5=0 arg6=1\n"
#define POLL(task, end)                                                                            \
	"     app 4242/4242 100.0001" #task                                                        \
	": sdt_taskprobe:task__poll__start: (7f01) arg1=" #task "\n"                               \
	"     app 4242/4242 100.000" end #task                                                     \
	": sdt_taskprobe:task__poll__end: (7f03) arg1=" #task " arg2=1\n"
	const char *text = SPAWN(11, 0, "\"\"") POLL(11, "2") SPAWN(12, 2, "\"quick (a.c:3)\"")
		POLL(12, "2") SPAWN(13, 2, "(fault)") POLL(13, "1") SPAWN(14, 7, "7") POLL(14, "2");
#undef SPAWN
#undef POLL
	char *dir = new_dir(), *input = tp_path_in(dir, "perf.txt");
	FILE *f = fopen(input, "w");
	fputs(text, f);
	fclose(f);
	struct tp_run run;
	tp_convert((const char *[]){input, NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	const char *out = run.out;
	cr_expect_not_null(strstr(out,
				  "\"ph\":\"B\",\"pid\":4242,\"tid\":4242,\"ts\":100000111.000,"
				  "\"name\":\"(no site: initial tasks)\"}"),
			   "%s", out);
	cr_expect_not_null(strstr(out,
				  "\"ph\":\"E\",\"pid\":4242,\"tid\":4242,\"ts\":100000211.000,"
				  "\"name\":\"(no site: initial tasks)\",\"args\":{\"task\":11}}"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "\"ts\":100000112.000,\"name\":\"quick (a.c:3)\"}"), "%s",
			   out);
	cr_expect_not_null(strstr(out, "\"ts\":100000212.000,\"name\":\"quick (a.c:3)\","
				       "\"args\":{\"task\":12,\"site\":2}}"),
			   "%s", out);
	/* task 13: its poll starts and ends in the same microsecond */
	cr_expect_not_null(strstr(out, "{\"ph\":\"i\",\"pid\":4242,\"tid\":4242,\"ts\":100000113."
				       "000,\"s\":\"t\",\"name\":\"quick (a.c:3)\",\"args\":{"
				       "\"task\":13,\"site\":2}}"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "\"ts\":100000114.000,\"name\":\"site 7\"}"), "%s", out);
	cr_expect_not_null(strstr(out, "\"name\":\"site 7\",\"args\":{\"task\":14,\"site\":7}}"),
			   "%s", out);
	cr_expect_null(strstr(out, "\"name\":\"task "), "%s", out);
	cr_expect_null(strstr(out, "(site "), "%s", out);
	/* the summary the other tests read: tasks per name, from the ends and the instant */
	char *json = tp_path_in(dir, "timeline.json");
	f = fopen(json, "w");
	fputs(out, f);
	fclose(f);
	const char *summary = tp_timeline_summary(json);
	cr_expect(strncmp(summary, "M=1 B=3 E=3 b=4 e=4 s=4 f=4 i=1\nsited tasks=1\n", 46) == 0,
		  "%s", summary);
	cr_expect(tp_timeline_named_tasks(summary, "quick (a.c:3)", 2), "%s", summary);
	cr_expect(tp_timeline_named_tasks(summary, "(no site: initial tasks)", 1), "%s", summary);
	cr_expect(tp_timeline_named_tasks(summary, "site 7", 1), "%s", summary);
	tp_run_free(&run);
	free(json);
	free(input);
	remove_dir(dir);
}

/* Per pid: its task tracks, and what does not hold across them (every line "NAME N"). */
static const char *const tasks_by_process =
	"import json,sys,collections\n"
	"d = json.load(open(sys.argv[1]))[\"traceEvents\"]\n"
	"by = {ph: collections.Counter(e[\"id\"] for e in d if e[\"ph\"] == ph) for ph in "
	"\"besf\"}\n"
	"print(\"repeated %d\" % sum(sum(n > 1 for n in by[ph].values()) for ph in \"besf\"))\n"
	"print(\"unended %d\" % len(set(by[\"b\"]) ^ set(by[\"e\"])))\n"
	"print(\"unflowed %d\" % len(set(by[\"b\"]) ^ set(by[\"s\"]) | set(by[\"s\"]) ^ "
	"set(by[\"f\"])))\n"
	"tasks = collections.Counter(e[\"pid\"] for e in d if e[\"ph\"] == \"b\")\n"
	"for pid in sorted(tasks): print(\"pid %d tasks %d\" % (pid, tasks[pid]))\n"
	"for e in d:\n"
	"    if e[\"ph\"] == \"M\" and e[\"name\"] == \"process_name\":\n"
	"        print(\"process %d %s\" % (e[\"pid\"], e[\"args\"][\"name\"]))\n";

/* The number after `key` in `text`, or -1. */
static long number_after(const char *text, const char *key)
{
	const char *at = strstr(text, key);
	return at != NULL ? strtol(at + strlen(key), NULL, 10) : -1;
}

/*
 * Two OpenMP programs at once, each recording into a file of its own, converted together: their
 * task ids are the same (each counts from 1), and were linked across the processes. Every
 * task track ends, every id of a track and of a flow is used once, and each process has its own
 * exact count of tasks.
 */
Test(timeline, processes_recorded_at_once_keep_their_tasks_apart, .timeout = 180)
{
	const char *fib = tp_require_program(tp_target("omp_fib"), "clang and libomp-dev");
	char *dir = new_dir(), *json = tp_path_in(dir, "timeline.json");
	struct tp_run a, b;
	record_into(dir, "rec", fib, "12", &a, true);
	record_into(dir, "rec", fib, "11", &b, true);
	tp_finish(&a);
	tp_finish(&b);
	cr_assert_eq(a.status, 0, "%s", a.err);
	cr_assert_eq(b.status, 0, "%s", b.err);
	char *cmd;
	cr_assert(asprintf(&cmd, "cd '%s' && '%s' -o timeline.json rec.*", dir, TP_TIMELINE) > 0);
	cr_assert_eq(system(cmd), 0);
	free(cmd);
	char *said = tp_python_on(tasks_by_process, json);
	cr_expect_eq(number_after(said, "repeated "), 0, "%s", said);
	cr_expect_eq(number_after(said, "unended "), 0, "%s", said);
	cr_expect_eq(number_after(said, "unflowed "), 0, "%s", said);
	/* the explicit tasks, an implicit task per thread, the initial task */
	char want[64];
	snprintf(want, sizeof want, "pid %d tasks %u\n", (int)a.pid, fib_tasks(12) + 2 + 1);
	cr_expect_not_null(strstr(said, want), "%s in %s", want, said);
	snprintf(want, sizeof want, "pid %d tasks %u\n", (int)b.pid, fib_tasks(11) + 2 + 1);
	cr_expect_not_null(strstr(said, want), "%s in %s", want, said);
	free(said);
	tp_run_free(&a);
	tp_run_free(&b);
	free(json);
	remove_dir(dir);
}

/* Copies `from` to `to`, its first header's start_ticks made `start_ticks`. */
static void copy_with_start(const char *from, const char *to, uint64_t start_ticks)
{
	size_t len;
	char *data = tp_read_file(from, &len);
	cr_assert_geq(len, sizeof(struct tp_recording_header));
	struct tp_recording_header h;
	memcpy(&h, data, sizeof h);
	cr_assert_eq(memcmp(h.magic, TP_RECORDING_MAGIC, 8), 0);
	cr_assert_eq(h.version, TP_RECORDING_VERSION);
	h.start_ticks = start_ticks;
	memcpy(data, &h, sizeof h);
	FILE *f = fopen(to, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	fclose(f);
	free(data);
}

/*
 * Two recordings of one pid whose starts differ (a pid reused, or the same pid in two pid
 * namespaces) are two processes: the first keeps the pid; the second gets a pid of its own,
 * and the process names say which is which, with the real pid. Each has all its tasks.
 */
Test(timeline, one_pid_of_two_processes_is_two_processes, .timeout = 120)
{
	const char *fib = tp_require_program(tp_target("omp_fib"), "clang and libomp-dev");
	char *dir = new_dir(), *json = tp_path_in(dir, "timeline.json");
	struct tp_run run;
	record_into(dir, "rec", fib, "10", &run, false);
	cr_assert_eq(run.status, 0, "%s", run.err);
	char *rec = only_file(dir, "rec."), *again = tp_path_in(dir, "again");
	size_t len;
	char *data = tp_read_file(rec, &len);
	struct tp_recording_header h;
	memcpy(&h, data, sizeof h);
	free(data);
	cr_expect_eq(h.pid, (uint32_t)run.pid);
	copy_with_start(rec, again, h.start_ticks + 1000);
	struct tp_run converted;
	tp_convert((const char *[]){"-o", json, rec, again, NULL}, &converted);
	cr_expect_eq(converted.status, 0, "%s", converted.err);
	char *said = tp_python_on(tasks_by_process, json);
	cr_expect_eq(number_after(said, "repeated "), 0, "%s", said);
	cr_expect_eq(number_after(said, "unended "), 0, "%s", said);
	cr_expect_eq(number_after(said, "unflowed "), 0, "%s", said);
	unsigned tasks = fib_tasks(10) + 2 + 1;
	char want[256];
	snprintf(want, sizeof want, "pid %d tasks %u\n", (int)run.pid, tasks);
	cr_expect_not_null(strstr(said, want), "%s in %s", want, said);
	snprintf(want, sizeof want, "pid %u tasks %u\n", 0x40000000u, tasks);
	cr_expect_not_null(strstr(said, want), "%s in %s", want, said);
	snprintf(want, sizeof want, "process %d omp_fib (pid %d)\n", (int)run.pid, (int)run.pid);
	cr_expect_not_null(strstr(said, want), "%s in %s", want, said);
	snprintf(want, sizeof want, "process %u omp_fib (pid %d again: another process",
		 0x40000000u, (int)run.pid);
	cr_expect_not_null(strstr(said, want), "%s in %s", want, said);
	/* the same file twice is one process, as before */
	tp_run_free(&converted);
	tp_convert((const char *[]){"-o", json, rec, NULL}, &converted);
	char *once = tp_python_on(tasks_by_process, json);
	cr_expect_null(strstr(once, "process "), "%s", once);
	free(once);
	free(said);
	tp_run_free(&converted);
	tp_run_free(&run);
	free(rec);
	free(again);
	free(json);
	remove_dir(dir);
}

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
	char *dir = new_dir(), *rec = tp_path_in(dir, "r1.rec"), *hard = tp_path_in(dir, "hard"),
	     *soft = tp_path_in(dir, "soft"), *txt = tp_path_in(dir, "perf.txt"),
	     *kept = tp_path_in(dir, "kept.json");
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
	remove_dir(dir);
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
	char *dir = new_dir(), *json = tp_path_in(dir, "timeline.json");
	struct tp_run run;
	record_into(dir, "true", "/bin/true", NULL, &run, false);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	char *rec = only_file(dir, "true.");
	tp_convert((const char *[]){"-o", json, rec, NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_not_null(strstr(run.err, "no task or worker was seen; 0 threads, 0 waits"), "%s",
			   run.err);
	tp_run_free(&run);
	char *shown = speedscope_rows(json);
	cr_expect_null(strstr(shown, "refused"), "%s", shown);
	cr_expect_null(strstr(shown, "error\t"), "%s", shown);
	cr_expect_not_null(strstr(shown, "row\tnothing recorded: no task, worker, thread or wait "
					 "was seen\n"),
			   "%s", shown);
	free(shown);

	/* a program of one thread and 9 waits (timed_waits), and no task */
	record_into(dir, "waits", tp_target("timed_waits"), NULL, &run, false);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	char *waits = only_file(dir, "waits.");
	tp_convert((const char *[]){"-o", json, waits, NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_not_null(strstr(run.err, "no task or worker was seen; 1 thread, 9 waits"), "%s",
			   run.err);
	tp_run_free(&run);
	const char *summary = tp_timeline_summary(json);
	cr_expect(strncmp(summary, "M=1 B=9 E=9 b=0 e=0 s=0 f=0", 27) == 0, "%s", summary);
	cr_expect_eq(tp_timeline_count(summary, "unbalanced slices="), 0, "%s", summary);
	shown = speedscope_rows(json);
	/* wait slices, named by their kind and call site */
	cr_expect_not_null(strstr(shown, "row\tcondvar at main (timed_waits.c:"), "%s", shown);
	cr_expect_not_null(strstr(shown, "row\tsemaphore at main (timed_waits.c:"), "%s", shown);
	free(shown);

	/* perf's text of no taskprobe event: a timeline speedscope opens, and what was seen */
	char *empty = tp_path_in(dir, "empty.txt");
	FILE *f = fopen(empty, "w");
	fclose(f);
	tp_convert((const char *[]){"-o", json, empty, NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_not_null(strstr(run.err, "no task or worker was seen; 0 threads, 0 waits"), "%s",
			   run.err);
	tp_run_free(&run);
	shown = speedscope_rows(json);
	cr_expect_null(strstr(shown, "refused"), "%s", shown);
	free(shown);
	free(empty);
	free(waits);
	free(rec);
	free(json);
	remove_dir(dir);
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
	char *dir = new_dir(), *copy = tp_path_in(dir, "omp_fib"),
	     *json = tp_path_in(dir, "timeline.json");
	char *cmd;
	cr_assert(asprintf(&cmd, "cp '%s' '%s'", fib, copy) > 0);
	cr_assert_eq(system(cmd), 0);
	free(cmd);
	char *rec = record_and_convert(dir, copy, "6", json);
	/* the file that ran: each construct by its function and line (fib 6: 12 tasks a construct) */
	char *names = track_names(json), want[128];
	snprintf(want, sizeof want, "fib (omp_fib.c:%d)\t%u\n",
		 tp_source_line("omp_fib.c", "long fib(", "#pragma omp task"), fib_tasks(6) / 2);
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
		cr_expect_eq(tasks, fib_tasks(6) + 2, "%s", names);
		free(names);
	}
	free(rec);
	free(copy);
	free(json);
	remove_dir(dir);
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
	char *dir = new_dir(), *json = tp_path_in(dir, "timeline.json"),
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
	remove_dir(dir);
}

/*
 * A --thread or --site that matches nothing is said, each value that did, and the exit status is
 * 4 (the timeline is written, as it would be: its counters only); a filter that matches keeps
 * the status 0.
 */
Test(timeline, a_filter_that_matches_nothing_is_said_with_status_4, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	char *dir = new_dir(), *json = tp_path_in(dir, "timeline.json");
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
	remove_dir(dir);
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
	char *dir = new_dir(), *json = tp_path_in(dir, "out.json"), *to_json;
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
	remove_dir(dir);
}
