// SPDX-License-Identifier: MIT
/*
 * Spawn sites named as the person who wrote the constructs reads them, whichever compiler built
 * the program: "function (file:line)" with the function they wrote the construct in (never one the
 * compiler made: ".omp_outlined..N", "main._omp_fn.N") and the construct's line; one site per
 * construct, even where libomp reports a call address inside itself (a taskloop's tasks; a
 * construct an outlined region tail-calls, as a nested region's); and a line the compiler left
 * out (line 0) guessed from the nearest one, marked "~". A recording's sites are the same names,
 * made by the converter: the recording itself holds none.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_runs.h"
#include "harness.h"

#define NAMES_MAX 16

struct named_sites {
	size_t n;
	char text[NAMES_MAX][TP_SITE_READ];
	size_t tasks[NAMES_MAX];
};

/* Adds `tasks` tasks at site `text`. */
static void add_site(struct named_sites *sites, const char *text, size_t tasks)
{
	size_t k = 0;
	while (k < sites->n && strcmp(sites->text[k], text) != 0)
		k++;
	if (k == sites->n) {
		cr_assert_lt(sites->n, NAMES_MAX, "too many sites");
		snprintf(sites->text[sites->n++], TP_SITE_READ, "%s", text);
	}
	sites->tasks[k] += tasks;
}

/* The traced run's spawns by site text (site 0, the initial task's, left out). */
static void named_sites_of(const struct tp_run *run, struct named_sites *sites)
{
	memset(sites, 0, sizeof *sites);
	for (size_t i = 0; i < tp_count(run, "task__spawn", 0); i++) {
		const struct tp_event *e = tp_nth(run, "task__spawn", 0, i);
		if (e->arg[2] != 0)
			add_site(sites, e->site, 1);
	}
}

/*
 * `argv` run recorded (TASKPROBE_RECORD), and its recording converted: its sites by the names
 * of the timeline's task tracks (the initial tasks left out). The recording itself holds none
 * of the texts `absent` (up to a NULL): names are made by the converter, never in the program.
 */
static void recorded_sites_of(const char *const argv[], const char *const env[],
			      const char *const absent[], struct named_sites *sites)
{
	char *dir = tp_make_temp_dir("names");
	char setting[4300], rec[4200], json[4200];
	snprintf(rec, sizeof rec, "%s/recording", dir);
	snprintf(json, sizeof json, "%s/timeline.json", dir);
	snprintf(setting, sizeof setting, "TASKPROBE_RECORD=%s", rec);
	const char *with_record[8] = {setting};
	for (size_t i = 0; env[i] != NULL && i + 2 < 8; i++)
		with_record[i + 1] = env[i];
	struct tp_run run;
	tp_run(TP_PRELOADED, argv, with_record, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	size_t len;
	char *raw = tp_read_file(rec, &len);
	cr_assert_not_null(raw);
	for (size_t i = 0; absent[i] != NULL; i++)
		cr_expect_null(memmem(raw, len, absent[i], strlen(absent[i])),
			       "the recording holds \"%s\"", absent[i]);
	free(raw);
	tp_run(TP_PLAIN, (const char *[]){TP_TIMELINE, "-o", json, rec, NULL}, NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	memset(sites, 0, sizeof *sites);
	char *summary = strdup(tp_timeline_summary(json)), *save = NULL;
	for (char *line = strtok_r(summary, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *name = line + 6, *tab = strrchr(line, '\t');
		if (strncmp(line, "track\t", 6) != 0 || tab == NULL || tab < name)
			continue;
		*tab = '\0';
		if (strcmp(name, "(no site: initial tasks)") != 0)
			add_site(sites, name, strtoul(tab + 1, NULL, 10));
	}
	free(summary);
	tp_remove_temp_dir(dir);
}

/* The sites of `argv` as taskprobe top --once prints them: each row's text and tasks spawned. */
static void console_sites_of(const char *const argv[], const char *const env[],
			     struct named_sites *sites)
{
	const char *launched[16] = {"top", "--once", "--"};
	for (size_t i = 0; argv[i] != NULL && i + 4 < 16; i++)
		launched[i + 3] = argv[i];
	struct tp_run run;
	tp_launch(launched, env, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	memset(sites, 0, sizeof *sites);
	const char *table = strstr(run.err, "\nSITE ");
	cr_assert_not_null(table, "%s", run.err);
	for (const char *line = strchr(table + 1, '\n'); line != NULL && line[1] != '\n';
	     line = strchr(line + 1, '\n')) {
		/* "text (file:line)   SPAWNED ...": the text ends at its last ')' before the figures */
		const char *end = strstr(line + 1, ")  ");
		const char *eol = strchr(line + 1, '\n');
		if (end == NULL || (eol != NULL && end > eol))
			break;
		char text[TP_SITE_READ];
		snprintf(text, sizeof text, "%.*s", (int)(end + 1 - (line + 1)), line + 1);
		if (strcmp(text, "(no site: initial tasks)") != 0)
			add_site(sites, text, strtoul(end + 1, NULL, 10));
	}
	tp_run_free(&run);
}

/* The sites of `argv` as the exit report's task graph table lists them, with their tasks. */
static void report_sites_of(const char *const argv[], const char *const env[],
			    struct named_sites *sites)
{
	const char *with_report[8] = {"TASKPROBE_REPORT=stderr"};
	for (size_t i = 0; env[i] != NULL && i + 2 < 8; i++)
		with_report[i + 1] = env[i];
	struct tp_run run;
	tp_run(TP_PRELOADED, argv, with_report, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	memset(sites, 0, sizeof *sites);
	const char *graph = strstr(run.err, "taskprobe: the task graph");
	cr_assert_not_null(graph, "%s", run.err);
	/* the figures' lines, then "      span  on path      work ms    tasks median task  spawn
	 * cost start delay  site", then a row a site */
	const char *header = strstr(graph, "\n      span ");
	cr_assert_not_null(header, "%s", run.err);
	for (const char *line = strchr(header + 1, '\n'); line != NULL && line[1] == ' ';
	     line = strchr(line + 1, '\n')) {
		char span[16], on_path[16], word[16]; /* a share and fragments, or "-" or "?" */
		double work;
		size_t tasks;
		int at = 0, used = 0;
		if (sscanf(line + 1, "%15s %15s %lf %zu %n", span, on_path, &work, &tasks, &at) !=
			    4 ||
		    at == 0)
			break;
		/* the median task, spawn cost and start delay: "-", or a number and its unit */
		for (int duration = 0; duration < 3; duration++) {
			if (sscanf(line + 1 + at, "%15s %n", word, &used) != 1)
				break;
			at += used;
			if (strcmp(word, "-") != 0 &&
			    sscanf(line + 1 + at, "%15s %n", word, &used) == 1)
				at += used;
		}
		const char *text = line + 1 + at, *eol = strchr(text, '\n');
		char name[TP_SITE_READ];
		snprintf(name, sizeof name, "%.*s",
			 (int)(eol != NULL ? (size_t)(eol - text) : strlen(text)), text);
		if (strncmp(name, "(no site", 8) != 0)
			add_site(sites, name, tasks);
	}
	tp_run_free(&run);
}

/* All sites, one a line, for messages. */
static const char *listed(const struct named_sites *sites)
{
	static char list[NAMES_MAX * (TP_SITE_READ + 16)];
	size_t used = 0;
	list[0] = '\0';
	for (size_t k = 0; k < sites->n; k++)
		used += (size_t)snprintf(list + used, sizeof list - used, "\n  %zu at %s",
					 sites->tasks[k], sites->text[k]);
	return list;
}

struct expected_site {
	char text[TP_SITE_READ];
	size_t tasks;
};

/* Asserts that the sites are exactly `expected` (in any order), each with its tasks. */
static void expect_sites(const struct named_sites *sites, const struct expected_site *expected,
			 size_t n)
{
	for (size_t x = 0; x < n; x++) {
		size_t k = 0;
		while (k < sites->n && strcmp(sites->text[k], expected[x].text) != 0)
			k++;
		cr_expect(k < sites->n && sites->tasks[k] == expected[x].tasks,
			  "expected %zu tasks at %s; sites:%s", expected[x].tasks, expected[x].text,
			  listed(sites));
	}
	cr_expect_eq(sites->n, n, "%zu sites, expected %zu:%s", sites->n, n, listed(sites));
	/* a name the compiler made, or the runtime's, never opens a site */
	for (size_t k = 0; k < sites->n; k++)
		cr_expect(sites->text[k][0] != '.' && strstr(sites->text[k], "_omp_fn") == NULL &&
				  strstr(sites->text[k], "omp_outlined") == NULL &&
				  strstr(sites->text[k], "libomp") == NULL &&
				  strstr(sites->text[k], "+0x") == NULL,
			  "%s", sites->text[k]);
}

#define CONSTRUCTS "omp_construct_sites.c"

/* The line of the first `pragma` after `after` in omp_construct_sites.c. */
static int line_of(const char *after, const char *pragma)
{
	int line = tp_source_line(CONSTRUCTS, after, pragma);
	cr_assert_gt(line, 0, "%s after %s", pragma, after);
	return line;
}

/* Where a run's sites are read: a tracer, a recording's timeline, top --once, the exit report. */
enum sites_read_by { BY_TRACER, BY_RECORDING, BY_CONSOLE, BY_REPORT };

/*
 * The sites of `argv` read `by` one of the ways (a tracer's run is left in `run`, its output to
 * check; `absent`: texts a recording must not hold).
 */
static void sites_read(const char *const argv[], const char *const env[], enum sites_read_by by,
		       const char *const absent[], struct tp_run *run, struct named_sites *sites)
{
	if (by == BY_RECORDING) {
		recorded_sites_of(argv, env, absent, sites);
	} else if (by == BY_CONSOLE) {
		console_sites_of(argv, env, sites);
	} else if (by == BY_REPORT) {
		report_sites_of(argv, env, sites);
	} else {
		tp_run(TP_TRACED, argv, env, run);
		cr_assert_eq(run->status, 0, "%s", run->err);
		named_sites_of(run, sites);
	}
}

/*
 * omp_construct_sites, built by clang or GCC (`gcc`), read `by` each way: one site per construct,
 * at its pragma's line (GCC's calls into libomp often lie on other lines, the loop's or the next
 * construct's: its constructs are named by the functions it outlines them into, which begin at
 * the pragma's). `loop_tasks` is how many tasks a taskloop of 1000 iterations with grainsize(10)
 * makes on libomp: clang's calls split the range into 100 tasks of 10 iterations and, as libomp
 * splits a range of more than 20 tasks (10 per thread) in halves by tasks of its own, 7 splitting
 * tasks (100 -> 50 + 50 -> 4 x 25 -> 8 x 12 or 13); GCC's GOMP_taskloop asks libomp for 100
 * tasks and gets 100. GCC's programs run on libomp preloaded after the shim (the launcher's
 * audit module loads it ahead of libgomp, behind the shim too).
 */
static void expect_construct_sites(const char *target, bool gcc, size_t loop_tasks,
				   enum sites_read_by by)
{
	char preload[4200];
	snprintf(preload, sizeof preload, "TP_PRELOAD_AFTER_SHIM=%s", TP_LIBOMP_PATH);
	const char *argv[] = {
		tp_require_program(tp_target(target),
				   gcc ? "gcc (libgomp) and libomp-dev" : "clang and libomp-dev"),
		NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", gcc ? preload : NULL, NULL};
	struct tp_run run = {0};
	struct named_sites sites;
	/* the functions, the source file and the compiler's names: none in a recording */
	const char *const absent[] = {"main (",  "loops",        CONSTRUCTS,
				      "_omp_fn", "omp_outlined", NULL};
	sites_read(argv, env, by, absent, &run, &sites);
	if (by == BY_TRACER)
		cr_expect_str_eq(run.out,
				 "task 42, taskloops 332833500 249500250000, others 1 2 3 4, outer "
				 "team 2, inner teams 4, nested tasks 4\n");
	struct {
		const char *function, *after, *pragma;
		size_t tasks;
	} constructs[] = {
		/* the first parallel region's implicit tasks, and its single's task */
		{"main", "int main(", "#pragma omp parallel", 2},
		{"main", "int main(", "#pragma omp task", 1},
		/* the two taskloops, in loops() */
		{"loops", "static void loops(", "#pragma omp taskloop", loop_tasks},
		{"loops", "squares[i] =", "#pragma omp taskloop", loop_tasks},
		/* an untied task, two ordered by a dependence, a task in a taskgroup, in others() */
		{"others", "static void others(", "#pragma omp task untied", 1},
		{"others", "static void others(", "#pragma omp task depend(out", 1},
		{"others", "static void others(", "#pragma omp task depend(in", 1},
		{"others", "#pragma omp taskgroup", "#pragma omp task shared(values)", 1},
		/* the outer region, the region nested in it (on each of its 2 threads), its tasks */
		{"main", "loops();", "#pragma omp parallel", 2},
		{"main", "outer_team = omp", "#pragma omp parallel", 4},
		{"main", "inner_teams, omp", "#pragma omp task", 4},
	};
	size_t n = sizeof constructs / sizeof constructs[0];
	struct expected_site expected[sizeof constructs / sizeof constructs[0]];
	for (size_t i = 0; i < n; i++) {
		snprintf(expected[i].text, TP_SITE_READ, "%s (" CONSTRUCTS ":%d)",
			 constructs[i].function,
			 line_of(constructs[i].after, constructs[i].pragma));
		expected[i].tasks = constructs[i].tasks;
	}
	expect_sites(&sites, expected, n);
	tp_run_free(&run);
}

/* OpenMP programs stay out of the TSan pass: the suite says so (test_sites.c). */

Test(sites, gcc_constructs_are_named_by_their_function_and_line, .timeout = 180)
{
	tp_require_tracer();
	expect_construct_sites("omp_construct_sites_gcc", true, 100, BY_TRACER);
}

Test(sites, gcc_constructs_unoptimized_are_named_by_their_function_and_line, .timeout = 180)
{
	tp_require_tracer();
	/* unoptimized, GCC 12 gives every instruction of loops() its opening line, the taskloops'
	 * calls included: the functions they were outlined into tell them apart */
	expect_construct_sites("omp_construct_sites_gcc_O0", true, 100, BY_TRACER);
}

/*
 * Without debug information a site is named by its symbol, and a GCC construct's site is the
 * function GCC outlined it into: named by the function it was outlined from first, then its
 * symbol, "main [main._omp_fn.0] (module)".
 */
Test(sites, gcc_constructs_without_debug_information_are_named_by_their_function_first,
     .timeout = 180)
{
	tp_require_tracer();
	char preload[4200];
	snprintf(preload, sizeof preload, "TP_PRELOAD_AFTER_SHIM=%s", TP_LIBOMP_PATH);
	const char *argv[] = {tp_require_program(tp_target("omp_construct_sites_gcc_nodebug"),
						 "gcc (libgomp) and libomp-dev"),
			      NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", preload, NULL};
	struct tp_run run;
	tp_run(TP_TRACED, argv, env, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	struct named_sites sites;
	named_sites_of(&run, &sites);
	/* the eleven constructs: five in main, two in loops(), four in others() */
	cr_assert_eq(sites.n, 11, "%s", listed(&sites));
	size_t in_main = 0, in_loops = 0, in_others = 0, tasks = 0;
	for (size_t i = 0; i < sites.n; i++) {
		const char *t = sites.text[i];
		char function[16] = "";
		int number = -1, end = 0;
		cr_expect(sscanf(t, "%15s [%*[^.]._omp_fn.%d] (omp_construct_sites_gcc_nodebug)%n",
				 function, &number, &end) == 2 &&
				  number >= 0 && end == (int)strlen(t),
			  "%s", t);
		in_main += strcmp(function, "main") == 0;
		in_loops += strcmp(function, "loops") == 0;
		in_others += strcmp(function, "others") == 0;
		tasks += sites.tasks[i];
	}
	cr_expect_eq(in_main, 5, "%s", listed(&sites));
	cr_expect_eq(in_loops, 2, "%s", listed(&sites));
	cr_expect_eq(in_others, 4, "%s", listed(&sites));
	cr_expect_eq(tasks, 2 + 1 + 100 + 100 + 4 + 2 + 4 + 4);
	tp_run_free(&run);
}

#define LOOP_CONSTRUCTS "omp_loop_constructs.c"

/*
 * omp_loop_constructs, built by GCC -O2 -g or -Os -g (`target`), read `by` one way: each construct
 * its own site, at its pragma's line. GCC's line table puts the call of the loop's last task on the
 * loop's line, a region's call before its pragma and a taskloop's after: a construct is named by
 * the function GCC outlines it into, which begins at its pragma's line.
 */
static void expect_loop_construct_sites(const char *target, enum sites_read_by by)
{
	char preload[4200];
	snprintf(preload, sizeof preload, "TP_PRELOAD_AFTER_SHIM=%s", TP_LIBOMP_PATH);
	const char *argv[] = {tp_require_program(tp_target(target), "gcc (libgomp) and libomp-dev"),
			      NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", preload, NULL};
	const char *const absent[] = {"main (", LOOP_CONSTRUCTS, "_omp_fn", NULL};
	struct tp_run run = {0};
	struct named_sites sites;
	sites_read(argv, env, by, absent, &run, &sites);
	if (by == BY_TRACER)
		cr_expect_str_eq(
			run.out,
			"sums 15 6 15, quarters 5 10 15 20, squares 2646700, inner teams 4, "
			"nested tasks 4\n");
	tp_run_free(&run);
	struct {
		const char *after, *pragma;
		size_t tasks;
		const char *function;
	} constructs[] = {
		/* four tasks in a row, each a call (the one before each ends at its address) */
		{"void add_quarters(", "#pragma omp task", 1, "add_quarters"},
		{"&quarters[0]", "#pragma omp task", 1, "add_quarters"},
		{"&quarters[1]", "#pragma omp task", 1, "add_quarters"},
		{"&quarters[2]", "#pragma omp task", 1, "add_quarters"},
		/* the first region's implicit tasks; its loop's three tasks (one on even rounds) */
		{"int main(", "#pragma omp parallel", 2, "main"},
		{"int main(", "#pragma omp task", 5, "main"},
		{"if (round % 2", "#pragma omp task", 2, "main"},
		{"&sums[1]", "#pragma omp task", 5, "main"},
		/* 200 iterations by grainsize 20: GOMP_taskloop asks libomp for 10 tasks */
		{"int main(", "#pragma omp taskloop", 10, "main"},
		/* the outer region, the one nested in it (on each of its 2 threads), its tasks */
		{"squares[i] = (long)", "#pragma omp parallel", 2, "main"},
		{"squares[i] = (long)", "#pragma omp parallel num_threads(TEAM)\n\t\t{", 4, "main"},
		{"squares[i] = (long)", "#pragma omp task", 4, "main"},
	};
	size_t n = sizeof constructs / sizeof constructs[0];
	struct expected_site expected[sizeof constructs / sizeof constructs[0]];
	for (size_t i = 0; i < n; i++) {
		int line = tp_source_line(LOOP_CONSTRUCTS, constructs[i].after,
					  constructs[i].pragma);
		cr_assert_gt(line, 0, "%s after %s", constructs[i].pragma, constructs[i].after);
		snprintf(expected[i].text, TP_SITE_READ, "%s (" LOOP_CONSTRUCTS ":%d)",
			 constructs[i].function, line);
		expected[i].tasks = constructs[i].tasks;
	}
	expect_sites(&sites, expected, n);
}

Test(sites, gcc_tasks_in_one_loop_are_named_by_their_own_constructs, .timeout = 180)
{
	tp_require_tracer();
	expect_loop_construct_sites("omp_loop_constructs_gcc", BY_TRACER);
	expect_loop_construct_sites("omp_loop_constructs_gcc_Os", BY_TRACER);
}

Test(sites, gcc_tasks_in_one_loop_are_named_so_in_a_recording_and_the_exit_report, .timeout = 180)
{
	expect_loop_construct_sites("omp_loop_constructs_gcc", BY_RECORDING);
	expect_loop_construct_sites("omp_loop_constructs_gcc_Os", BY_RECORDING);
	expect_loop_construct_sites("omp_loop_constructs_gcc", BY_REPORT);
	expect_loop_construct_sites("omp_loop_constructs_gcc_Os", BY_REPORT);
}

Test(sites, gcc_tasks_in_one_loop_are_named_so_by_the_console, .timeout = 180)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	expect_loop_construct_sites("omp_loop_constructs_gcc", BY_CONSOLE);
	expect_loop_construct_sites("omp_loop_constructs_gcc_Os", BY_CONSOLE);
}

Test(sites, clang_constructs_are_named_by_their_function_and_line, .timeout = 180)
{
	tp_require_tracer();
	/* the nested region and its task are tail calls from their outlined regions (-O2) */
	expect_construct_sites("omp_construct_sites", false, 107, BY_TRACER);
}

/*
 * A recording keeps its sites as addresses and modules; the converter names them as a tracer's
 * sites are named, the compilers' outlined regions replaced by the function the person wrote.
 */
Test(sites, a_recordings_sites_are_named_by_the_converter_as_a_tracers_are, .timeout = 180)
{
	expect_construct_sites("omp_construct_sites", false, 107, BY_RECORDING);
	expect_construct_sites("omp_construct_sites_gcc", true, 100, BY_RECORDING);
}

/* The console names them too, offline, from the addresses the program keeps. */
Test(sites, the_console_names_every_construct_as_a_tracer_does, .timeout = 180)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	expect_construct_sites("omp_construct_sites", false, 107, BY_CONSOLE);
	expect_construct_sites("omp_construct_sites_gcc", true, 100, BY_CONSOLE);
	expect_construct_sites("omp_construct_sites_gcc_O0", true, 100, BY_CONSOLE);
}

/* And the exit report's table of the task graph, named at exit. */
Test(sites, the_exit_report_names_every_construct_as_a_tracer_does, .timeout = 180)
{
	expect_construct_sites("omp_construct_sites", false, 107, BY_REPORT);
	expect_construct_sites("omp_construct_sites_gcc", true, 100, BY_REPORT);
}

#define TAIL "omp_tail_constructs.c"

/* Whether `program`'s code holds a jump (a tail call) to the PLT stub of libomp's `entry`. */
static bool jumps_into(const char *program, const char *entry)
{
	char cmd[4300], line[512], stub[128];
	snprintf(cmd, sizeof cmd, "objdump -d --no-show-raw-insn '%s'", program);
	snprintf(stub, sizeof stub, "<%s@plt>", entry);
	FILE *p = popen(cmd, "r");
	cr_assert(p != NULL, "%s", cmd);
	bool found = false;
	while (fgets(line, sizeof line, p) != NULL)
		found = found || (strstr(line, "\tjmp ") != NULL && strstr(line, stub) != NULL);
	cr_expect_eq(pclose(p), 0, "%s", cmd);
	return found;
}

/*
 * omp_tail_constructs read `by` one of the ways: the parallel region and the task that end
 * their functions, which clang -O2 jumps into libomp from (checked in the program's code: else
 * this test would not test it), named by their own functions and lines, not by the calls of
 * those functions in main, which OMPT reports (as the exit report had it: NPB IS's region in
 * alloc_key_buff read "main (is.cpp:291)", the line calling it).
 */
static void expect_tail_construct_sites(enum sites_read_by by)
{
	const char *argv[] = {
		tp_require_program(tp_target("omp_tail_constructs"), "clang and libomp-dev"), NULL};
	cr_assert(jumps_into(argv[0], "__kmpc_fork_call") && jumps_into(argv[0], "__kmpc_omp_task"),
		  "clang made no tail calls into libomp in %s", argv[0]);
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	const char *const absent[] = {"main (", "fill", "spawn", TAIL, NULL};
	struct tp_run run = {0};
	struct named_sites sites;
	sites_read(argv, env, by, absent, &run, &sites);
	if (by == BY_TRACER)
		cr_expect_str_eq(run.out, "sum 999000, tasks 14, counted 8\n");
	struct expected_site expected[4] = {
		{.tasks = 2}, {.tasks = 2}, {.tasks = 10}, {.tasks = 4}};
	snprintf(expected[0].text, TP_SITE_READ, "fill (" TAIL ":%d)",
		 tp_source_line(TAIL, "static void fill(", "#pragma omp parallel"));
	snprintf(expected[1].text, TP_SITE_READ, "main (" TAIL ":%d)",
		 tp_source_line(TAIL, "int main(", "#pragma omp parallel"));
	snprintf(expected[2].text, TP_SITE_READ, "spawn (" TAIL ":%d)",
		 tp_source_line(TAIL, "static void spawn(", "#pragma omp task"));
	snprintf(expected[3].text, TP_SITE_READ, "spawn_and_wait (" TAIL ":%d)",
		 tp_source_line(TAIL, "static void spawn_and_wait(", "#pragma omp task"));
	expect_sites(&sites, expected, 4);
	tp_run_free(&run);
}

/* A sync site's row in a table of them (`text`): "NAME (TAIL:LINE) KIND ...". */
static void expect_sync_row(const char *text, const char *function, const char *pragma,
			    const char *kind)
{
	char after[64], name[128];
	snprintf(after, sizeof after, "static void %s(", function);
	snprintf(name, sizeof name, "  %s (" TAIL ":%d)", function,
		 tp_source_line(TAIL, after, pragma));
	/* the table's columns pad the name: one space or more before the kind */
	const char *at = strstr(text, name);
	const char *next = at != NULL ? at + strlen(name) + strspn(at + strlen(name), " ") : NULL;
	cr_expect(next != NULL && strncmp(next, kind, strlen(kind)) == 0, "no row %s %s in:\n%s",
		  name, kind, text);
}

/* omp_tail_constructs, checked to hold the jumps of its waits' tail calls. */
static const char *tail_waits_program(void)
{
	const char *program = tp_require_program(tp_target("omp_tail_constructs"),
						 "clang and libomp-dev");
	cr_assert(jumps_into(program, "__kmpc_barrier") &&
			  jumps_into(program, "__kmpc_omp_taskwait") &&
			  jumps_into(program, "omp_set_lock"),
		  "clang made no tail calls into libomp in %s", program);
	return program;
}

/* The barrier, the taskwait and the lock's acquire that end their functions in `text`'s table. */
static void expect_tail_sync_rows(const char *text)
{
	expect_sync_row(text, "meet", "#pragma omp barrier", "barrier");
	expect_sync_row(text, "spawn_and_wait", "#pragma omp taskwait", "taskwait");
	expect_sync_row(text, "take", "omp_set_lock", "lock");
}

/*
 * The barrier, the taskwait and the lock's acquire that end their functions, jumps into libomp
 * too, are sync sites of their own functions (not the calls in main): in the exit report and in
 * --analyze of a recording.
 */
Test(sites, waits_that_end_their_functions_are_named_by_them, .timeout = 120)
{
	const char *argv[] = {tail_waits_program(), NULL};
	struct tp_run run;
	tp_run(TP_PRELOADED, argv,
	       (const char *[]){"OMP_NUM_THREADS=2", "TASKPROBE_REPORT=stderr", NULL}, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	expect_tail_sync_rows(run.err);
	tp_run_free(&run);
	struct analyzed a;
	analyze(argv, &a);
	expect_tail_sync_rows(a.text);
	free(a.text);
}

Test(sites, constructs_that_end_their_functions_are_named_by_them_for_a_tracer, .timeout = 120)
{
	tp_require_tracer();
	expect_tail_construct_sites(BY_TRACER);
}

Test(sites, constructs_that_end_their_functions_are_named_by_them_everywhere, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	expect_tail_construct_sites(BY_RECORDING);
	expect_tail_construct_sites(BY_REPORT);
	expect_tail_construct_sites(BY_CONSOLE);
}

/* The lines of the constructs of a plug-in's source: its parallel region's, then its task's. */
static void plugin_lines(const char *source, const char *before, int lines[2])
{
	lines[0] = tp_source_line(source, before, "#pragma omp parallel");
	lines[1] = tp_source_line(source, before, "#pragma omp task");
	cr_assert(lines[0] > 0 && lines[1] > 0, "%s", source);
}

/*
 * Plug-ins the program loads (omp_plugin_host), the first by a relative path
 * ("./libomp_plugin.so", then a change of directory), unloaded before the exit if `unload`, and
 * then, if `other`, omp_plugin_other's where the first lay: the constructs of each are named each
 * way `by`, by the console and the converter too, whose directories are their own (the shim keeps
 * each module's absolute path), and by the exit report after the module is gone; never one
 * plug-in's code by the other's file.
 */
static void expect_plugin_sites(enum sites_read_by by, bool unload, bool other)
{
	const char *plugin = tp_require_file(tp_target("libomp_plugin.so"), "clang and libomp-dev");
	char dir[4096];
	snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(plugin, '/') - plugin), plugin);
	const char *argv[] = {tp_target("omp_plugin_host"),
			      dir,
			      "libomp_plugin.so",
			      unload ? "unload" : NULL,
			      other ? "libomp_plugin_other.so" : NULL,
			      NULL};
	if (other) { /* the test is of a plug-in loaded where another lay */
		struct tp_run plain;
		tp_run(TP_PLAIN, argv, (const char *[]){"OMP_NUM_THREADS=2", NULL}, &plain);
		cr_assert(tp_plugins_in_one_place(plain.out, "libomp_plugin.so",
						  "libomp_plugin_other.so"),
			  "the second plug-in was not loaded where the first lay:\n%s", plain.out);
		tp_run_free(&plain);
	}
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	const char *const absent[] = {"plugin_run (", "other_tasks (", "omp_plugin.c",
				      "omp_plugin_other.c", NULL};
	struct tp_run run = {0};
	struct named_sites sites;
	sites_read(argv, env, by, absent, &run, &sites);
	int lines[2], other_lines[2];
	plugin_lines("omp_plugin.c", "long sum = 0;", lines);
	struct expected_site expected[4] = {{.tasks = 2}, {.tasks = 4}, {.tasks = 2}, {.tasks = 3}};
	for (int k = 0; k < 2; k++)
		snprintf(expected[k].text, TP_SITE_READ, "plugin_run (omp_plugin.c:%d)", lines[k]);
	if (other) {
		plugin_lines("omp_plugin_other.c", "long sum = 0;", other_lines);
		for (int k = 0; k < 2; k++)
			snprintf(expected[2 + k].text, TP_SITE_READ,
				 "other_tasks (omp_plugin_other.c:%d)", other_lines[k]);
	}
	expect_sites(&sites, expected, other ? 4 : 2);
	tp_run_free(&run);
}

Test(sites, a_plugin_loaded_by_a_relative_path_is_named_in_a_recording, .timeout = 180)
{
	expect_plugin_sites(BY_RECORDING, false, false);
}

Test(sites, a_plugin_loaded_by_a_relative_path_is_named_by_the_console, .timeout = 180)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	expect_plugin_sites(BY_CONSOLE, false, false);
}

Test(sites, a_plugin_loaded_by_a_relative_path_is_named_by_the_exit_report, .timeout = 180)
{
	expect_plugin_sites(BY_REPORT, false, false);
}

/* Unloaded (dlclose) before the exit: the shim still knows where it lay, and names it then. */
Test(sites, a_plugin_unloaded_before_the_exit_is_named_by_the_exit_report, .timeout = 180)
{
	expect_plugin_sites(BY_REPORT, true, false);
}

/*
 * Unloaded, then a new build of it installed at its path (renamed over it) before the exit: the
 * report names its code by its address in it, never by the new file's symbols or lines (the code
 * there is another's: omp_plugin_other's other_tasks), whose build id is not the one that ran.
 * Named while it was loaded (a tracer of another test attached to the shim asks for the sites'
 * names at their spawns), its sites keep their right names.
 */
Test(sites, a_plugin_rebuilt_after_it_was_unloaded_is_not_named_from_the_new_file, .timeout = 180)
{
	char built[4096], dir[] = "/tmp/tp-rebuilt-XXXXXX", command[8400];
	/* tp_target's answer is its buffer's until its next call */
	snprintf(built, sizeof built, "%s",
		 tp_require_file(tp_target("libomp_plugin.so"), "clang and libomp-dev"));
	cr_assert_not_null(mkdtemp(dir));
	snprintf(command, sizeof command, "cp '%s' '%s' '%s/' && chmod -R a+rwX '%s'", built,
		 tp_target("libomp_plugin_other.so"), dir, dir);
	cr_assert_eq(system(command), 0, "%s", command);
	const char *argv[] = {tp_target("omp_plugin_host"), dir, "libomp_plugin.so", "reinstall",
			      "libomp_plugin_other.so",     NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct named_sites sites;
	report_sites_of(argv, env, &sites);
	int lines[2];
	plugin_lines("omp_plugin.c", "long sum = 0;", lines);
	/* the parallel region's 2 implicit tasks and the 4 tasks: by address, each call apart
	 * (clang unrolls the loop of four task constructs: four calls, one line) */
	size_t regions = 0, tasks = 0;
	for (size_t k = 0; k < sites.n; k++) {
		unsigned long address;
		int end = 0, line = 0;
		bool by_address = sscanf(sites.text[k], "%lx (libomp_plugin.so)%n", &address,
					 &end) == 1 &&
				  end > 0 && sites.text[k][end] == '\0';
		bool named = sscanf(sites.text[k], "plugin_run (omp_plugin.c:%d)%n", &line, &end) ==
				     1 &&
			     end > 0 && sites.text[k][end] == '\0' &&
			     line == lines[sites.tasks[k] == 2 ? 0 : 1];
		cr_expect(by_address || named, "%s: not the plug-in's code; sites:%s",
			  sites.text[k], listed(&sites));
		regions += sites.tasks[k] == 2;
		tasks += sites.tasks[k];
	}
	cr_expect(regions == 1 && tasks == 6, "sites:%s", listed(&sites));
	snprintf(command, sizeof command, "rm -rf '%s'", dir);
	cr_expect_eq(system(command), 0);
}

/*
 * Another loaded where it lay (as the loader does when their sizes allow): the code of each is
 * its own module's, in a recording and in the console (each site's module is the one that held
 * its code when it was first seen).
 */
Test(sites, plugins_loaded_in_turn_where_the_last_lay_are_each_named_in_a_recording, .timeout = 180)
{
	expect_plugin_sites(BY_RECORDING, true, true);
}

Test(sites, plugins_loaded_in_turn_where_the_last_lay_are_each_named_by_the_console, .timeout = 180)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	expect_plugin_sites(BY_CONSOLE, true, true);
}

/*
 * And by the exit report, both gone by then: each site is named by the module that held it when
 * it was kept (a site's address alone gave neither a name, "0x..."; and where a module the report
 * loads itself, libdw, lay since, its name: a wait of an MPI library's plug-in, unloaded at
 * MPI_Finalize, read "condvar wait at 0x11eeb (libdw.so.1)").
 */
Test(sites, plugins_loaded_in_turn_where_the_last_lay_are_each_named_by_the_exit_report,
     .timeout = 180)
{
	expect_plugin_sites(BY_REPORT, true, true);
}

Test(sites, a_call_the_compiler_gave_line_0_is_named_by_the_nearest_line_marked_guessed,
     .timeout = 180)
{
	tp_require_tracer();
	const char *argv[] = {
		tp_require_program(tp_target("omp_line_zero"), "clang and libomp-dev"), NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	tp_run(TP_TRACED, argv, env, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "even 20, odd 25, spawned 10\n");
	struct named_sites sites;
	named_sites_of(&run, &sites);
	/*
	 * clang merges the two branches' calls into one, at line 0: the nearest line before it in
	 * spawn() is one of the two constructs', whichever block clang laid out last.
	 */
	int first = tp_source_line("omp_line_zero.c", "static void spawn(", "#pragma omp task"),
	    second = tp_source_line("omp_line_zero.c", "} else {", "#pragma omp task");
	cr_assert(first > 0 && second > first);
	char guess[2][TP_SITE_READ];
	snprintf(guess[0], TP_SITE_READ, "spawn (omp_line_zero.c:~%d)", first);
	snprintf(guess[1], TP_SITE_READ, "spawn (omp_line_zero.c:~%d)", second);
	size_t k = 0;
	while (k < sites.n && strcmp(sites.text[k], guess[0]) != 0 &&
	       strcmp(sites.text[k], guess[1]) != 0)
		k++;
	cr_expect(k < sites.n && sites.tasks[k] == 10, "expected 10 tasks at %s or %s; sites:%s",
		  guess[0], guess[1], listed(&sites));
	/* the parallel construct, and the one call for both task constructs */
	cr_expect_eq(sites.n, 2, "%zu sites:%s", sites.n, listed(&sites));
	tp_run_free(&run);
}
