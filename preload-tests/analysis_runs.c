// SPDX-License-Identifier: MIT
/* Recorded runs analyzed, as the analysis tests read them (analysis_runs.h). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis_runs.h"
#include "harness.h"
#include "taskprobe_live.h"

void record(const char *const argv[], const char *threads, char dir[32], char path[300],
	    struct analyzed *a)
{
	char setting[160], omp[40];
	strcpy(dir, "/tmp/taskprobe-analysis-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(setting, sizeof setting, "TASKPROBE_RECORD=%s/rec.%%p", dir);
	snprintf(omp, sizeof omp, "OMP_NUM_THREADS=%s", threads);
	struct tp_run run;
	/* untraced, whatever other tests trace: their figures and what the consumers leave out */
	tp_use_private_shim();
	tp_run(TP_PRELOADED, argv, (const char *[]){setting, omp, NULL}, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	memset(a, 0, sizeof *a);
	snprintf(a->out, sizeof a->out, "%s", run.out);
	const char *truth = strstr(run.out, "truth work");
	if (truth != NULL)
		cr_assert_eq(sscanf(truth, "truth work %lf ms span %lf ms", &a->truth_work,
				    &a->truth_span),
			     2);
	tp_run_free(&run);

	DIR *d = opendir(dir);
	cr_assert_not_null(d);
	path[0] = '\0';
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (strncmp(e->d_name, "rec.", 4) == 0)
			snprintf(path, 300, "%s/%s", dir, e->d_name);
	closedir(d);
	cr_assert_neq(path[0], '\0', "nothing recorded in %s", dir);
}

void rm_dir(const char *dir)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
	cr_expect_eq(system(cmd), 0);
	free(cmd);
}

double serial_work(const char *text)
{
	double serial = 0;
	for (const char *line = text; line != NULL && *line != '\0';) {
		const char *end = strchr(line, '\n');
		size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
		double work;
		unsigned long tasks;
		size_t named = sizeof TP_LIVE_NO_SITE_TEXT - 1;
		if (len > named && memcmp(line + len - named, TP_LIVE_NO_SITE_TEXT, named) == 0 &&
		    sscanf(line, " %lf %lu", &work, &tasks) == 2)
			serial += work;
		line = end != NULL ? end + 1 : NULL;
	}
	return serial;
}

double without_the_serial_share(double span, const char *text)
{
	double share = share_of(text, "(no site");
	return share > 0 ? span - span * share / 100 : span;
}

void without_the_initial_task(struct analyzed *a)
{
	a->work -= serial_work(a->text);
	a->span = without_the_serial_share(a->span, a->text);
}

void analyze_on(const char *const argv[], const char *threads, struct analyzed *a)
{
	char dir[32], path[300];
	record(argv, threads, dir, path, a);
	struct tp_run run;
	tp_run(TP_PLAIN, (const char *[]){TP_TIMELINE, "--analyze", path, NULL}, NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	a->text = strdup(run.out);
	tp_run_free(&run);
	rm_dir(dir);

	const char *work = strstr(a->text, "work T1"), *span = strstr(a->text, "span Tinf"),
		   *parallelism = strstr(a->text, "parallelism");
	cr_assert(work != NULL && span != NULL && parallelism != NULL, "%s", a->text);
	cr_assert_eq(sscanf(work, "work T1 %lf ms", &a->work), 1, "%s", a->text);
	cr_assert_eq(sscanf(span, "span Tinf %lf ms", &a->span), 1, "%s", a->text);
	cr_assert_eq(sscanf(parallelism, "parallelism %lf", &a->parallelism), 1, "%s", a->text);
	without_the_initial_task(a);
}

void analyze(const char *const argv[], struct analyzed *a)
{
	analyze_on(argv, "2", a);
}

void site_rows(const struct analyzed *a, const char *site, unsigned long *tasks,
	       unsigned long *fragments)
{
	unsigned rows = 0;
	*tasks = *fragments = 0;
	for (const char *line = a->text; line != NULL && *line != '\0';) {
		const char *end = strchr(line, '\n');
		size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
		char row[512];
		snprintf(row, sizeof row, "%.*s", (int)len, line);
		double work;
		unsigned long row_tasks, row_fragments;
		const char *site_at = strstr(row, site);
		/* work, tasks, ..., fragments, site */
		if (site_at != NULL && sscanf(row, " %lf %lu", &work, &row_tasks) == 2) {
			const char *p = site_at;
			while (p > row && p[-1] == ' ')
				p--;
			while (p > row && p[-1] != ' ')
				p--;
			cr_assert_eq(sscanf(p, "%lu", &row_fragments), 1, "%s", row);
			*tasks += row_tasks;
			*fragments += row_fragments;
			rows++;
		}
		line = end != NULL ? end + 1 : NULL;
	}
	cr_assert_gt(rows, 0, "no row for %s in:\n%s", site, a->text);
}

void expect_near(double got, double truth, const char *what, const char *text)
{
	cr_expect(near(got, truth), "%s: %.3f ms, the truth %.3f ms:\n%s", what, got, truth, text);
}

void graph_site(const char *graph, char *site, size_t size)
{
	snprintf(site, size, "%s (omp_known_graphs.c:",
		 strcmp(graph, "tree") == 0 || strcmp(graph, "twin") == 0 ? "node" : graph);
}

/*
 * A graph's truth is its spins' own lengths, and what lies around a spin (a task's end, a
 * critical section's entry) is not in it: on a loaded machine a preemption there moves the
 * graph's figures from its truth (a flat graph's span measured 17.06 ms against a truth of
 * 16.04, one task preempted twice), or a task's end past the exit's start, where the window
 * ends. So a run whose work or span is not near its truth, or whose site ended fewer tasks, is
 * run again, KNOWN_GRAPH_TRIES times at most; the last one is judged.
 */
#define KNOWN_GRAPH_TRIES 3

void known_graph(const char *graph, double nominal_span, unsigned long path_fragments,
		 unsigned long tasks)
{
	struct analyzed a;
	unsigned long got_tasks, got_fragments;
	char site[64];
	graph_site(graph, site, sizeof site);
	for (int try = 1;; try++) {
		analyze((const char *[]){tp_target("omp_known_graphs"), graph, NULL}, &a);
		got_tasks = got_fragments = 0;
		site_rows(&a, site, &got_tasks, &got_fragments);
		if (try == KNOWN_GRAPH_TRIES || (near(a.work, a.truth_work) &&
						 near(a.span, a.truth_span) && got_tasks == tasks))
			break;
		cr_log_info(
			"%s: work %.3f ms span %.3f ms, the truth %.3f and %.3f, %lu tasks: again",
			graph, a.work, a.span, a.truth_work, a.truth_span, got_tasks);
		free(a.text);
	}
	cr_assert_gt(a.truth_work, 0, "the program said no truth");
	expect_near(a.work, a.truth_work, "work", a.text);
	expect_near(a.span, a.truth_span, "span", a.text);
	/* the span is the graph's: its spins' own lengths would say so, far from a wrong path's */
	cr_expect_geq(a.truth_span, nominal_span);
	cr_expect_eq(got_tasks, tasks, "%s: %lu tasks:\n%s", site, got_tasks, a.text);
	cr_expect(path_fragments == KNOWN_ANY_FRAGMENTS || got_fragments == path_fragments,
		  "%s: %lu fragments on the critical path:\n%s", site, got_fragments, a.text);
	free(a.text);
}

bool near(double got, double truth)
{
	return got >= truth * 0.95 && got <= truth * 1.05;
}

/* Whether the site at `at` in `text` is a thread's task now in top's threads table ("polling
 * fib (fib.c:12) for 2.0ms"), not a site's line. */
static bool polled_now(const char *text, const char *at)
{
	static const char polling[] = "polling ";
	return at - text >= (long)strlen(polling) &&
	       strncmp(at - strlen(polling), polling, strlen(polling)) == 0;
}

bool site_line(const char *text, const char *site, const char **from, char *row, size_t size)
{
	for (const char *at = strstr(*from != NULL ? *from : text, site); at != NULL;
	     at = strstr(at + 1, site)) {
		if (polled_now(text, at))
			continue;
		const char *line = at;
		while (line > text && line[-1] != '\n')
			line--;
		const char *end = strchr(at, '\n');
		snprintf(row, size, "%.*s", (int)(end != NULL ? end - line : (long)strlen(line)),
			 line);
		*from = end != NULL ? end : at + strlen(at);
		return true;
	}
	return false;
}

/*
 * The figures of a line of the regions' table, `row`, of site `site` (every reader's columns:
 * efficiency, load balance, computation, time, threads; "-" for an efficiency or a time not
 * known): load balance, threads and efficiency (-1 when "-"); false when it is no such line.
 */
static bool region_figures(const char *row, const char *site, double *balance, long *threads,
			   double *efficiency)
{
	/* the site's own ')' (a function's name may hold one: operator()) */
	const char *at = strstr(row, site), *after = strchr(at + strlen(site) - 1, ')');
	if (after == NULL)
		return false;
	char copy[512], *word[8], *save = NULL, *end;
	unsigned n = 0;
	snprintf(copy, sizeof copy, "%s", after + 1);
	for (char *w = strtok_r(copy, " ", &save); w != NULL && n < 8;
	     w = strtok_r(NULL, " ", &save))
		word[n++] = w;
	/* a time is a figure and a unit, or "-"; every figure whole (top's waits' table has a
	 * line of as many words at a site: "futex 4 80.3ms 40.1ms 2 0") */
	if (n != 7 && n != 6)
		return false;
	*efficiency = strcmp(word[0], "-") == 0 ? -1 : strtod(word[0], &end);
	if (strcmp(word[0], "-") != 0 && *end != '\0')
		return false;
	*balance = strtod(word[1], &end);
	if (*end != '\0' || (strtod(word[2], &end), *end != '\0'))
		return false;
	*threads = strtol(word[n - 1], &end, 10);
	return *end == '\0' && strchr(word[3], 's') != NULL;
}

unsigned region_lines(const char *text, const char *site, double *balance, long *threads)
{
	char row[512];
	unsigned n = 0;
	*balance = -1;
	*threads = -1;
	for (const char *from = NULL; site_line(text, site, &from, row, sizeof row);) {
		double b, efficiency;
		long t;
		if (region_figures(row, site, &b, &t, &efficiency) && n++ == 0) {
			*balance = b;
			*threads = t;
		}
	}
	return n;
}

double region_efficiency_of(const char *text, const char *site)
{
	char row[512];
	for (const char *from = NULL; site_line(text, site, &from, row, sizeof row);) {
		double balance, efficiency;
		long threads;
		if (region_figures(row, site, &balance, &threads, &efficiency))
			return efficiency;
	}
	return -1;
}

double share_of(const char *text, const char *site)
{
	double sum = -1;
	char row[512];
	for (const char *from = NULL; site_line(text, site, &from, row, sizeof row);) {
		sum = sum < 0 ? 0 : sum;
		for (char *word = strtok(row, " "); word != NULL; word = strtok(NULL, " "))
			if (word[strlen(word) - 1] == '%') {
				/* a lower bound (tp_live_share_words) read as its figure */
				sum += strtod(word + (strncmp(word, ">=", 2) == 0 ? 2 : 0), NULL);
				break;
			}
	}
	return sum;
}

/*
 * What follows kind `kind` on the line of sync site `site` in `text` (the sync sites' line
 * holding both: "main (omp_fib.c:27) barrier 8.40 ms 4 -", in every reader's columns): "8.40 ms 4
 * -", in `row`; NULL when no line has them.
 */
static const char *sync_line_of(const char *text, const char *site, const char *kind, char *row,
				size_t size)
{
	char word[40];
	snprintf(word, sizeof word, " %s ", kind);
	for (const char *from = NULL; site_line(text, site, &from, row, size);) {
		const char *at = strstr(row, word);
		if (at != NULL)
			return at + strlen(word);
	}
	return NULL;
}

/* The waits at sync site `site` of kind `kind` in `text`; -1 when no line has them. */
long sync_waits_of(const char *text, const char *site, const char *kind)
{
	char row[512];
	const char *after = sync_line_of(text, site, kind, row, sizeof row);
	double waited;
	long waits;
	return after != NULL && sscanf(after, "%lf %*s %ld", &waited, &waits) == 2 ? waits : -1;
}

/* A duration as the outputs write it, "27.78 ms" or "0 ns", in ms; -1 when none is there. */
double duration_ms(const char *text)
{
	char *unit;
	double v = strtod(text, &unit);
	if (unit == text)
		return -1;
	unit += strspn(unit, " ");
	return strncmp(unit, "ns", 2) == 0   ? v / 1e6
	       : strncmp(unit, "us", 2) == 0 ? v / 1e3
	       : strncmp(unit, "ms", 2) == 0 ? v
	       : strncmp(unit, "s", 1) == 0  ? v * 1e3
					     : -1;
}

double median_task_ms(const char *text, const char *site, unsigned before)
{
	const char *table = strstr(text, "median task"), *from = table;
	char row[512];
	if (table == NULL || !site_line(text, site, &from, row, sizeof row))
		return -1;
	const char *at = row;
	for (unsigned column = 0; column < before; column++) {
		at += strspn(at, " ");
		at += strcspn(at, " ");
	}
	return duration_ms(at + strspn(at, " "));
}

/* The time waited at sync site `site` of kind `kind` in `text`, in ms; -1 when none. */
double sync_waited_of(const char *text, const char *site, const char *kind)
{
	char row[512];
	const char *after = sync_line_of(text, site, kind, row, sizeof row);
	return after != NULL ? duration_ms(after) : -1;
}

/* The load balance of the phases sync site `site`'s barrier ended in `text` (its line of kind
 * "barrier": "main (ws.c:10) barrier 80.01 ms 2 0.667 -"); -1 when no line has one. */
double sync_balance_of(const char *text, const char *site)
{
	char row[512], balance[16];
	const char *after = sync_line_of(text, site, "barrier", row, sizeof row);
	if (after == NULL || sscanf(after, "%*f %*s %*d %15s", balance) != 1)
		return -1;
	char *end;
	double v = strtod(balance, &end);
	return end != balance ? v : -1;
}

/* The build of pop target `name` (a GCC build's name ends in "_gcc"), or the test skipped. */
const char *pop_program(const char *name)
{
	size_t len = strlen(name);
	bool gcc = len > 4 && strcmp(name + len - 4, "_gcc") == 0;
	return tp_require_program(tp_target(name),
				  gcc ? "gcc and libomp-dev" : "clang and libomp-dev");
}

/*
 * Runs pop target `name` on two threads with POP_TIMES into `pop` (freed first) until `kept` says
 * yes, POP_TRIES runs at most, a pause after each refused (the load beside it may pass). Returns
 * whether the last run was kept; when none was, says so (`judged_by`: how the last is judged).
 */
bool pop_run_until(const char *name, pop_judge *kept, const void *context, const char *judged_by,
		   struct tp_pop_run *pop)
{
	const char *argv[] = {pop_program(name), NULL};
	for (int try = 1;; try++) {
		tp_pop_run_free(pop);
		tp_pop_run(argv, (const char *[]){"OMP_NUM_THREADS=2", "POP_TIMES=1", NULL}, pop);
		if (kept(pop, context))
			return true;
		if (try == POP_TRIES) {
			cr_log_info("%s: the machine moved all %d runs: the last judged by %s",
				    name, POP_TRIES, judged_by);
			return false;
		}
		usleep(250000 * (useconds_t)try);
	}
}
