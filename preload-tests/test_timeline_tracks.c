// SPDX-License-Identifier: MIT
/*
 * taskprobe-timeline's rows (issue 27, the suite `timeline`): slices named by their site alone,
 * one row per site as speedscope lists them; processes kept apart, several recordings at once or
 * a pid seen twice. test_timeline_input.c holds the converter's inputs and outputs.
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
	char *dir = tp_make_temp_dir("timeline-input"), *json = tp_path_in(dir, "timeline.json");
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
	tp_remove_temp_dir(dir);
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
	char *dir = tp_make_temp_dir("timeline-input"), *input = tp_path_in(dir, "perf.txt");
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
	tp_remove_temp_dir(dir);
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
	char *dir = tp_make_temp_dir("timeline-input"), *json = tp_path_in(dir, "timeline.json");
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
	snprintf(want, sizeof want, "pid %d tasks %u\n", (int)a.pid, tp_fib_tasks(12) + 2 + 1);
	cr_expect_not_null(strstr(said, want), "%s in %s", want, said);
	snprintf(want, sizeof want, "pid %d tasks %u\n", (int)b.pid, tp_fib_tasks(11) + 2 + 1);
	cr_expect_not_null(strstr(said, want), "%s in %s", want, said);
	free(said);
	tp_run_free(&a);
	tp_run_free(&b);
	free(json);
	tp_remove_temp_dir(dir);
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
	char *dir = tp_make_temp_dir("timeline-input"), *json = tp_path_in(dir, "timeline.json");
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
	unsigned tasks = tp_fib_tasks(10) + 2 + 1;
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
	tp_remove_temp_dir(dir);
}
