// SPDX-License-Identifier: MIT
/*
 * taskprobe-timeline's size and memory (issue 27 items 2, 3, 4, 6): speedscope's compact format
 * a fifth of the JSON or less on a real recording, opened by speedscope in Chromium with a profile
 * per thread and frames named by site; the size said before writing and a limit that writes
 * nothing (speedscope's from a recording, its census counted beside the conversion, too); a
 * window, sites and threads cut exactly, slices balanced; counter tracks of tasks
 * alive, ready and workers busy; the converter's peak memory under its bound on large inputs.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define GENERATOR      TP_CONTRIB_DIR "/timeline_recording"
#define OPEN_FILE      TP_SCRIPTS_DIR "/../preload-tests/speedscope/open_file.mjs"
#define SPEEDSCOPE_DIR "/usr/lib/node_modules/speedscope/dist/release"
/* The converter's stated bound on its memory (taskprobe-timeline(1)). */
#define MEMORY_BOUND_KIB (256 * 1024)

extern char **environ;

/* Records omp_fib N with two threads into DIR/rec.PID; returns the recording's path. */
static char *record_fib(const char *dir, const char *n)
{
	const char *fib = tp_require_program(tp_target("omp_fib"), "clang and libomp-dev");
	char setting[4200];
	snprintf(setting, sizeof setting, "TASKPROBE_RECORD=%s/rec.%%p", dir);
	struct tp_run run;
	tp_run(TP_PRELOADED, (const char *[]){fib, n, NULL},
	       (const char *[]){setting, "OMP_NUM_THREADS=2", NULL}, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	char path[4200];
	snprintf(path, sizeof path, "%s/rec.%d", dir, (int)run.pid);
	tp_run_free(&run);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0, "no recording %s", path);
	return strdup(path);
}

static off_t size_of(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* The events the converter said it converted (--count: "taskprobe-timeline: N events"). */
static unsigned long long events_said(const char *err)
{
	unsigned long long n = 0;
	for (const char *line = err; line != NULL && *line != '\0';) {
		unsigned long long v;
		int end = 0;
		if (sscanf(line, "taskprobe-timeline: %llu events%n", &v, &end) == 1 && end > 0 &&
		    line[end] == '\n')
			n = v;
		line = strchr(line, '\n');
		line = line != NULL ? line + 1 : NULL;
	}
	return n;
}

/* The slices' opens and closes the compact file at `path` holds ("at": each). */
static unsigned compact_events_of(const char *path)
{
	char *text = tp_read_file(path, NULL);
	unsigned n = tp_occurrences(text, "\"at\":");
	free(text);
	return n;
}

/*
 * The compact format (speedscope's own, evented profiles) takes at most 36 bytes a slice's open
 * or close ({"type":"O","frame":3,"at":1200},) and a fifth of the JSON or less, where the JSON
 * takes over a hundred bytes an event; speedscope in Chromium opens it with one profile per
 * thread of the timeline, its rows the file's frames, named by the site texts the JSON's slices
 * have. Its bytes an event of the recording are the machine's: a slice under a microsecond is
 * left out, and fib's tasks take less on an idle machine (4 bytes an event) and more on a loaded
 * one (18.4 in a suite run beside a CPU hog, every slice kept: it was held to 16).
 */
Test(timeline, compact_format_is_small_and_speedscope_opens_it, .timeout = 180)
{
	tp_require_program("/usr/bin/chromium", "chromium");
	const char *node = tp_require_program("/usr/bin/node", "nodejs");
	tp_require_file(SPEEDSCOPE_DIR "/index.html",
			"speedscope (npm install -g speedscope playwright-core)");
	char *dir = tp_make_temp_dir("timeline-size"), *recording = record_fib(dir, "20");
	char *compact = tp_path_in(dir, "fib.speedscope.json"), *json = tp_path_in(dir, "fib.json");
	struct tp_run run;
	tp_convert((const char *[]){"--count", "-o", compact, recording, NULL}, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	unsigned long long events = events_said(run.err);
	tp_run_free(&run);
	tp_convert((const char *[]){"-o", json, recording, NULL}, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	cr_assert_gt(events, 100000, "omp_fib 20 records over 100k events: %llu", events);
	double compact_per_event = (double)size_of(compact) / (double)events;
	double json_per_event = (double)size_of(json) / (double)events;
	unsigned written = compact_events_of(compact);
	cr_expect_gt(written, 0, "no slice in %s", compact);
	cr_expect_leq((double)size_of(compact) / (double)written, 36,
		      "%.1f bytes a slice's open or close (%u of them)",
		      (double)size_of(compact) / (double)written, written);
	cr_expect_gt(json_per_event, 5 * compact_per_event, "%.1f against %.1f", json_per_event,
		     compact_per_event);

	/* the JSON's threads and slice names; the compact file's profiles and frames */
	char *threads = tp_python_on("import json,sys\n"
				     "d=json.load(open(sys.argv[1]))[\"traceEvents\"]\n"
				     "print(len([e for e in d if e[\"name\"]==\"thread_name\"]))\n"
				     "print(\"\\n\".join(sorted({e[\"name\"] for e in d "
				     "if e[\"ph\"]==\"B\"})))",
				     json);
	char *frames = tp_python_on("import json,sys\n"
				    "d=json.load(open(sys.argv[1]))\n"
				    "print(len(d[\"profiles\"]))\n"
				    "print(\"\\n\".join(sorted(f[\"name\"] for f in "
				    "d[\"shared\"][\"frames\"])))",
				    compact);
	cr_expect_str_eq(frames, threads,
			 "frames and profiles of the compact file:\n%s\nthe "
			 "JSON's threads and slice names:\n%s",
			 frames, threads);
	cr_expect(strstr(frames, "fib (omp_fib.c:") != NULL, "%s", frames);

	tp_run(TP_PLAIN, (const char *[]){node, OPEN_FILE, SPEEDSCOPE_DIR, compact, NULL}, NULL,
	       &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	unsigned ms = 0, profiles = 0;
	const char *at = strstr(run.out, "ms\t"), *p = strstr(run.out, "profiles\t");
	cr_assert(at != NULL && p != NULL, "speedscope did not open it: %s", run.out);
	sscanf(at, "ms\t%u", &ms);
	sscanf(p, "profiles\t%u", &profiles);
	cr_expect_eq(profiles, (unsigned)atoi(threads), "%s", run.out);
	cr_expect_lt(ms, 20000, "speedscope took %u ms", ms);
	cr_expect(strstr(run.out, "error\t") == NULL, "%s", run.out);
	/* every row speedscope shows is a frame of the file, and the sites are among them */
	char *save = NULL, *copy = strdup(run.out);
	unsigned rows = 0;
	for (char *line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "row\t", 4) == 0) {
			char *needle;
			cr_assert(asprintf(&needle, "\n%s\n", line + 4) > 0);
			cr_expect(strstr(frames, needle) != NULL, "row %s is no frame: %s",
				  line + 4, frames);
			free(needle);
			rows++;
		}
	cr_expect(strstr(run.out, "row\tfib (omp_fib.c:") != NULL, "%s", run.out);
	cr_expect_geq(rows, profiles, "%s", run.out);
	printf("compact format: %.1f bytes an event (JSON %.1f), %llu events; speedscope opened "
	       "it in %u ms\n",
	       compact_per_event, json_per_event, events, ms);
	free(copy);
	tp_run_free(&run);
	free(threads);
	free(frames);
	free(compact);
	free(json);
	free(recording);
	tp_remove_temp_dir(dir);
}

/* Writes the generator's recording of `mode` `count` to `path`. */
static void generate(const char *mode, const char *count, const char *path)
{
	tp_require_program(GENERATOR, "the build's contrib/timeline_recording");
	char *cmd;
	cr_assert(asprintf(&cmd, "'%s' %s %s > '%s'", GENERATOR, mode, count, path) > 0);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(cmd);
}

/*
 * The size is said before anything is written; over --max-size nothing is written (status 3),
 * and the message says how big it would be and which options cut it down; --max-size 0 writes
 * it. perf's text streamed on standard input stops at the limit, its output removed.
 */
Test(timeline, the_size_is_said_and_a_limit_writes_nothing, .timeout = 60)
{
	char *dir = tp_make_temp_dir("timeline-size"), *recording = tp_path_in(dir, "spawns.rec");
	char *out = tp_path_in(dir, "out.json");
	generate("spawns", "20000", recording);
	struct tp_run run;
	tp_convert((const char *[]){"-o", out, recording, NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.err, "taskprobe-timeline: 20000 events: about ") != NULL &&
			  strstr(run.err, " MB of JSON\n") != NULL,
		  "%s", run.err);
	off_t written = size_of(out);
	cr_expect_gt(written, 1000000);
	tp_run_free(&run);
	unlink(out);

	tp_convert((const char *[]){"--max-size", "100k", "-o", out, recording, NULL}, &run);
	cr_expect_eq(run.status, 3, "%s", run.err);
	cr_expect(strstr(run.err, "that is over --max-size 102.4 kB: nothing written") != NULL,
		  "%s", run.err);
	cr_expect(strstr(run.err, "--from TIME and --to TIME") != NULL &&
			  strstr(run.err, "--site TEXT or --thread TID") != NULL &&
			  strstr(run.err, "--max-size 0") != NULL &&
			  strstr(run.err, "--format speedscope would write") != NULL,
		  "%s", run.err);
	cr_expect_eq(size_of(out), -1, "%s was made", out);
	cr_expect_eq(run.out_len, 0);
	tp_run_free(&run);

	tp_convert((const char *[]){"--max-size", "0", "-o", out, recording, NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_eq(size_of(out), written);
	tp_run_free(&run);
	unlink(out);

	/* perf's text on standard input: stopped at the limit, the file removed */
	char *text = tp_path_in(dir, "perf.txt"), *cmd;
	FILE *f = fopen(text, "w");
	cr_assert_not_null(f);
	for (int i = 1; i <= 2000; i++)
		fprintf(f,
			"     app 10/11 1.%06d: sdt_taskprobe:task__poll__start: (7f00) arg1=%d\n"
			"     app 10/11 1.%06d: sdt_taskprobe:task__poll__end: (7f00) arg1=%d "
			"arg2=1\n",
			2 * i, i, 2 * i + 1, i);
	fclose(f);
	cr_assert(asprintf(&cmd, "'%s' --max-size 10k -o '%s' < '%s' 2> '%s/err'", TP_TIMELINE, out,
			   text, dir) > 0);
	int status = system(cmd);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 3, "status %d", status);
	char *err_path = tp_path_in(dir, "err");
	char *err = tp_read_file(err_path, NULL);
	cr_expect(strstr(err, "over --max-size 10.2 kB: nothing written (the output removed)") !=
			  NULL,
		  "%s", err);
	cr_expect_eq(size_of(out), -1, "%s was left", out);
	free(err);
	free(err_path);
	free(cmd);
	free(text);
	free(out);
	free(recording);
	tp_remove_temp_dir(dir);
}

/*
 * speedscope's from a recording, on two cores: the census is counted beside the conversion and
 * the output opened only when it fits. The same bytes, said the same, as on one thread (the
 * census first); over --max-size nothing is made; an output refused (a symbolic link) is said
 * and nothing written through it.
 */
Test(timeline, speedscope_beside_its_census_writes_what_one_thread_does, .timeout = 60)
{
	char *dir = tp_make_temp_dir("timeline-size"), *recording = record_fib(dir, "16");
	char *two = tp_path_in(dir, "two.speedscope.json"),
	     *one = tp_path_in(dir, "one.speedscope.json");
	struct tp_run run, alone;
	tp_run(TP_PLAIN,
	       (const char *[]){TP_TIMELINE, "--max-size", "0", "-o", two, recording, NULL},
	       (const char *[]){"TASKPROBE_TIMELINE_THREADS=2", NULL}, &run);
	tp_run(TP_PLAIN,
	       (const char *[]){TP_TIMELINE, "--max-size", "0", "-o", one, recording, NULL},
	       (const char *[]){"TASKPROBE_TIMELINE_THREADS=1", NULL}, &alone);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_eq(alone.status, 0, "%s", alone.err);
	cr_expect_str_eq(run.err, alone.err);
	size_t len_two, len_one;
	char *text_two = tp_read_file(two, &len_two), *text_one = tp_read_file(one, &len_one);
	cr_expect(len_two > 1000 && len_two == len_one && memcmp(text_two, text_one, len_two) == 0,
		  "%zu bytes against %zu", len_two, len_one);
	tp_run_free(&run);
	tp_run_free(&alone);
	unlink(two);

	tp_run(TP_PLAIN,
	       (const char *[]){TP_TIMELINE, "--max-size", "1k", "-o", two, recording, NULL},
	       (const char *[]){"TASKPROBE_TIMELINE_THREADS=2", NULL}, &run);
	cr_expect_eq(run.status, 3, "%s", run.err);
	cr_expect(strstr(run.err, " of speedscope\ntaskprobe-timeline: that is over --max-size 1.0 "
				  "kB: nothing written") != NULL,
		  "%s", run.err);
	cr_expect_eq(size_of(two), -1, "%s was made", two);
	tp_run_free(&run);

	char *link = tp_path_in(dir, "link.speedscope.json");
	cr_assert_eq(symlink(one, link), 0);
	tp_run(TP_PLAIN,
	       (const char *[]){TP_TIMELINE, "--max-size", "0", "-o", link, recording, NULL},
	       (const char *[]){"TASKPROBE_TIMELINE_THREADS=2", NULL}, &run);
	cr_expect_eq(run.status, 2, "%s", run.err);
	cr_expect(strstr(run.err, "a symbolic link: refused") != NULL, "%s", run.err);
	cr_expect_eq(size_of(one), (off_t)len_one, "written through the link");
	tp_run_free(&run);
	free(text_two);
	free(text_one);
	free(link);
	free(two);
	free(one);
	free(recording);
	tp_remove_temp_dir(dir);
}

/*
 * perf's text of two threads: "alpha" tasks on thread 11, polled from 100 to 600 us of each
 * millisecond i (0 to 9), "beta" tasks on thread 12, polled from 300 to 800 us.
 */
static char *two_sites(const char *dir)
{
	char *path = tp_path_in(dir, "two_sites.txt");
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
#define LINE(tid, us, what, args)                                                                  \
	fprintf(f, "     app 10/%d 1.%06d: sdt_taskprobe:%s: (7f00) %s\n", tid, 1000 * i + (us),   \
		what, args)
	for (int i = 0; i < 10; i++) {
		char a[160], b[160], pa[32], pb[32], ea[32], eb[32];
		snprintf(a, sizeof a, "arg1=%d arg2=0 arg3=5 arg4=\"alpha (a.c:1)\" arg5=0 arg6=1",
			 100 + i);
		snprintf(b, sizeof b, "arg1=%d arg2=0 arg3=6 arg4=\"beta (b.c:2)\" arg5=0 arg6=1",
			 200 + i);
		snprintf(pa, sizeof pa, "arg1=%d", 100 + i);
		snprintf(pb, sizeof pb, "arg1=%d", 200 + i);
		snprintf(ea, sizeof ea, "arg1=%d arg2=1", 100 + i);
		snprintf(eb, sizeof eb, "arg1=%d arg2=1", 200 + i);
		LINE(11, 0, "task__spawn", a);
		LINE(12, 50, "task__spawn", b);
		LINE(11, 100, "task__poll__start", pa);
		LINE(12, 300, "task__poll__start", pb);
		LINE(11, 600, "task__poll__end", ea);
		LINE(12, 800, "task__poll__end", eb);
	}
#undef LINE
	fclose(f);
	return path;
}

/* Per slice name its begins and ends, first begin and last end (us from the first event), the
 * counts of task tracks and flows, and whether every thread's slices nest and balance. */
static const char *const SLICES =
	"import json,sys,collections\n"
	"d=json.load(open(sys.argv[1]))[\"traceEvents\"]\n"
	"c=collections.Counter((e[\"ph\"],e.get(\"name\")) for e in d if e[\"ph\"] in \"BE\")\n"
	"for n in sorted({k[1] for k in c}):\n"
	"  b=[e[\"ts\"] for e in d if e[\"ph\"]==\"B\" and e[\"name\"]==n]\n"
	"  x=[e[\"ts\"] for e in d if e[\"ph\"]==\"E\" and e[\"name\"]==n]\n"
	"  print(n, c[(\"B\",n)], c[(\"E\",n)], round(min(b)-1e6), round(max(x)-1e6))\n"
	"p=collections.Counter(e[\"ph\"] for e in d)\n"
	"print(\"tracks\", p[\"b\"], p[\"e\"], \"flows\", p[\"s\"], p[\"f\"])\n"
	"ok=True\n"
	"for t in {e[\"tid\"] for e in d}:\n"
	"  s=[]\n"
	"  for e in sorted([e for e in d if e[\"tid\"]==t and e[\"ph\"] in \"BE\"],"
	" key=lambda e:(e[\"ts\"],e[\"ph\"]==\"B\")):\n"
	"    if e[\"ph\"]==\"B\": s.append(e[\"name\"])\n"
	"    elif not s or s.pop()!=e[\"name\"]: ok=False\n"
	"  ok=ok and not s\n"
	"print(\"balanced\" if ok else \"unbalanced\")\n"
	"print(\"threads\", sorted(e[\"args\"][\"name\"] for e in d "
	"if e.get(\"name\")==\"thread_name\"))\n";

/* Converts `text` with `options` (NULL-terminated) to JSON and summarizes it (SLICES). */
static char *cut(const char *dir, const char *text, const char *const options[])
{
	const char *args[16];
	size_t n = 0;
	char *out = tp_path_in(dir, "cut.json");
	for (; options[n] != NULL; n++)
		args[n] = options[n];
	args[n++] = "-o";
	args[n++] = out;
	args[n++] = text;
	args[n] = NULL;
	struct tp_run run;
	tp_convert(args, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	char *summary = tp_python_on(SLICES, out);
	unlink(out);
	free(out);
	return summary;
}

/*
 * --from/--to cut the slices and task tracks to the window (slices cut by it clipped to it,
 * flows whole or left out), --site keeps its tasks, --thread its thread: counted exactly, and
 * every thread's slices balanced. In the compact format the window's slices weigh what they
 * were cut to.
 */
Test(timeline, a_window_sites_and_threads_cut_exactly, .timeout = 60)
{
	char *dir = tp_make_temp_dir("timeline-size"), *text = two_sites(dir);
	char *all = cut(dir, text, (const char *[]){NULL});
	cr_expect_str_eq(all, "alpha (a.c:1) 10 10 100 9600\n"
			      "beta (b.c:2) 10 10 300 9800\n"
			      "tracks 20 20 flows 20 20\n"
			      "balanced\n"
			      "threads ['app 11', 'app 12']\n");
	/* 2.2 ms to 5.7 ms: alpha 2 clipped at its start, beta 5 at its end; the tasks alive at
	 * 2.2 ms get tracks from there, flows only of tasks spawned in the window */
	char *window = cut(dir, text, (const char *[]){"--from", "2.2ms", "--to", "5700us", NULL});
	cr_expect_str_eq(window, "alpha (a.c:1) 4 4 2200 5600\n"
				 "beta (b.c:2) 4 4 2300 5700\n"
				 "tracks 8 8 flows 6 6\n"
				 "balanced\n"
				 "threads ['app 11', 'app 12']\n");
	char *site = cut(dir, text, (const char *[]){"--site", "alpha", NULL});
	cr_expect_str_eq(site, "alpha (a.c:1) 10 10 100 9600\n"
			       "tracks 10 10 flows 10 10\n"
			       "balanced\n"
			       "threads ['app 11', 'app 12']\n");
	char *thread = cut(dir, text, (const char *[]){"--thread", "12", NULL});
	cr_expect_str_eq(thread, "beta (b.c:2) 10 10 300 9800\n"
				 "tracks 10 10 flows 10 10\n"
				 "balanced\n"
				 "threads ['app 12']\n");
	char *both = cut(dir, text,
			 (const char *[]){"--site", "beta", "--site", "alpha", "--thread", "11",
					  "--from", "0.0042", "--to", "6ms", NULL});
	/* (the window ends at 6 ms inclusive: a task spawned then has a track of no length) */
	cr_expect_str_eq(both, "alpha (a.c:1) 2 2 4200 5600\n"
			       "tracks 3 3 flows 1 1\n"
			       "balanced\n"
			       "threads ['app 11']\n");

	/* the compact format: each frame's slices weigh 1.9 ms of the 3.5 ms window */
	char *compact = tp_path_in(dir, "cut.speedscope.json");
	struct tp_run run;
	tp_convert((const char *[]){"--from", "2.2ms", "--to", "5.7ms", "-o", compact, text, NULL},
		   &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	char *weights = tp_python_on(
		"import json,sys\n"
		"d=json.load(open(sys.argv[1]))\n"
		"f=[x[\"name\"] for x in d[\"shared\"][\"frames\"]]\n"
		"for p in d[\"profiles\"]:\n"
		"  w={}; o={}\n"
		"  for e in p[\"events\"]:\n"
		"    if e[\"type\"]==\"O\": o[e[\"frame\"]]=e[\"at\"]\n"
		"    else: "
		"w[f[e[\"frame\"]]]=w.get(f[e[\"frame\"]],0)+e[\"at\"]-o.pop(e[\"frame\"])\n"
		"  print(p[\"name\"], p[\"endValue\"], w, len(o))\n",
		compact);
	cr_expect_str_eq(weights, "app 11 (pid 10) 3500 {'alpha (a.c:1)': 1900} 0\n"
				  "app 12 (pid 10) 3500 {'beta (b.c:2)': 1900} 0\n");
	free(weights);
	free(compact);
	free(all);
	free(window);
	free(site);
	free(thread);
	free(both);
	free(text);
	tp_remove_temp_dir(dir);
}

/*
 * Counter tracks, per process: tasks alive never negative and at least two at a time in a
 * recursive program, tasks ready seen, workers busy at most the threads the program ran; a
 * counter's samples at least 100 us apart (the last one, at the end, aside).
 */
Test(timeline, counter_tracks_show_tasks_alive_ready_and_workers_busy, .timeout = 60)
{
	char *dir = tp_make_temp_dir("timeline-size"), *recording = record_fib(dir, "16");
	char *json = tp_path_in(dir, "fib.json");
	struct tp_run run;
	tp_convert((const char *[]){"-o", json, recording, NULL}, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	char *counters = tp_python_on(
		"import json,sys\n"
		"d=json.load(open(sys.argv[1]))[\"traceEvents\"]\n"
		"for n in [\"tasks alive\",\"tasks ready\",\"workers busy\"]:\n"
		"  c=[e for e in d if e[\"ph\"]==\"C\" and e[\"name\"]==n]\n"
		"  v=[e[\"args\"][\"value\"] for e in c]\n"
		"  t=[e[\"ts\"] for e in c]\n"
		"  gap=min([b-a for a,b in zip(t,t[1:-1])] or [100])\n"
		"  print(n, len(c)>0, min(v), max(v), len({e[\"pid\"] for e in c}), gap>=99.999)\n",
		json);
	char alive[8], ready[8], busy[8];
	long min_alive, max_alive, min_ready, max_ready, min_busy, max_busy;
	int pa, pr, pb;
	int got = sscanf(counters,
			 "tasks alive %7s %ld %ld %d %*s\ntasks ready %7s %ld %ld %d %*s\nworkers "
			 "busy %7s %ld %ld %d",
			 alive, &min_alive, &max_alive, &pa, ready, &min_ready, &max_ready, &pr,
			 busy, &min_busy, &max_busy, &pb);
	cr_assert_eq(got, 12, "%s", counters);
	cr_expect(strcmp(alive, "True") == 0 && strcmp(ready, "True") == 0 &&
			  strcmp(busy, "True") == 0,
		  "%s", counters);
	cr_expect(min_alive >= 0 && max_alive >= 2, "%s", counters);
	cr_expect(min_ready >= 0 && max_ready >= 1, "%s", counters);
	cr_expect(min_busy >= 0 && max_busy >= 1 && max_busy <= 2, "OMP_NUM_THREADS=2: %s",
		  counters);
	cr_expect(pa == 1 && pr == 1 && pb == 1, "one track each, in the one process: %s",
		  counters);
	cr_expect(strstr(counters, "False") == NULL, "samples 100 us apart: %s", counters);
	free(counters);
	free(json);
	free(recording);
	tp_remove_temp_dir(dir);
}

/* Runs the converter on `input` into /dev/null; its peak RSS (KiB) and what it said. */
static long converter_peak_kib(const char *input, const char *format, char **said)
{
	char err[] = "/tmp/taskprobe-timeline-size-err-XXXXXX";
	int fd = mkstemp(err);
	cr_assert_geq(fd, 0);
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, fd, 2);
	posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
	char *argv[] = {TP_TIMELINE, "--max-size", "0",  "--format",    (char *)format,
			"-o",        "/dev/null",  "--", (char *)input, NULL};
	pid_t pid;
	cr_assert_eq(posix_spawn(&pid, TP_TIMELINE, &actions, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&actions);
	int status;
	struct rusage usage;
	cr_assert_eq(wait4(pid, &status, 0, &usage), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	close(fd);
	*said = tp_read_file(err, NULL);
	unlink(err);
	return usage.ru_maxrss;
}

/*
 * The converter's memory stays under its stated bound (256 MiB) on inputs that used to take
 * gigabytes: 1.5 million spawns that never end (60 MB), and 300 thousand one-record chunks of
 * as many threads; what was forgotten to stay within it is said.
 */
Test(timeline, memory_stays_under_its_bound_on_large_recordings, .timeout = 120)
{
	char *dir = tp_make_temp_dir("timeline-size"), *spawns = tp_path_in(dir, "spawns.rec"),
	     *threads = tp_path_in(dir, "threads.rec");
	generate("spawns", "1500000", spawns);
	generate("threads", "300000", threads);
	const char *formats[] = {"json", "speedscope"};
	for (int i = 0; i < 2; i++) {
		char *said;
		long kib = converter_peak_kib(spawns, formats[i], &said);
		cr_expect_lt(kib, MEMORY_BOUND_KIB, "%s, spawns: %ld KiB", formats[i], kib);
		cr_expect(strstr(said, "tasks alive at once: the ") != NULL &&
				  strstr(said, " oldest were forgotten") != NULL,
			  "%s", said);
		printf("converter peak RSS, %s, 1.5 M spawns that never end: %ld KiB\n", formats[i],
		       kib);
		free(said);
		kib = converter_peak_kib(threads, formats[i], &said);
		cr_expect_lt(kib, MEMORY_BOUND_KIB, "%s, threads: %ld KiB", formats[i], kib);
		cr_expect(strstr(said, "300000 threads") != NULL, "%s", said);
		printf("converter peak RSS, %s, 300 k one-record chunks of as many threads: %ld "
		       "KiB\n",
		       formats[i], kib);
		free(said);
	}
	free(spawns);
	free(threads);
	tp_remove_temp_dir(dir);
}
