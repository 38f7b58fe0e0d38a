// SPDX-License-Identifier: MIT
/*
 * Recorded runs of omp_known_graphs and the like analyzed (taskprobe-timeline --analyze), as the
 * analysis tests read them (test_analysis.c, test_analysis_three_ways.c): the graph's figures and
 * its truth, a site's rows and share of the span. Failures are the test's (criterion's asserts).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* What --analyze said of one recorded run, and what the program said its graph was. */
struct analyzed {
	double truth_work, truth_span; /* ms, from the program */
	double work, span, parallelism;
	char *text;    /* the analysis */
	char out[256]; /* the start of the program's output */
};

/* Runs the target recorded into a new directory on `threads` threads: the recording's path in
 * `path`, the directory in `dir` (for rm_dir); the program's truth (if it says one) in `a`. */
void record(const char *const argv[], const char *threads, char dir[32], char path[300],
	    struct analyzed *a);

/* Removes the directory `dir` that record made, with what is in it. */
void rm_dir(const char *dir);

/*
 * The figures of the graph the program times, its truth's: OpenMP's initial task's serial code
 * (its row, "(no site", whichever output: its work and its share of the span) left out, which
 * every output counts (issue 35: the initial task is in the graph) and the program cannot time
 * (before main, its region's fork, its exit).
 */
double serial_work(const char *text);

/* `span` of the output `text` without its initial task's share. */
double without_the_serial_share(double span, const char *text);

/* `a`'s work and span without its initial task's (serial_work, without_the_serial_share). */
void without_the_initial_task(struct analyzed *a);

/* Runs the target recorded on `threads` threads, and analyzes the recording: the figures of the
 * program's graph (without_the_initial_task). */
void analyze_on(const char *const argv[], const char *threads, struct analyzed *a);

/* On two threads. */
void analyze(const char *const argv[], struct analyzed *a);

/* The per-site rows of the sites whose text holds `site`: their tasks and critical-path
 * fragments, added up. */
void site_rows(const struct analyzed *a, const char *site, unsigned long *tasks,
	       unsigned long *fragments);

/* Expects `got` within 5% of `truth` (`what` of the output `text`). */
void expect_near(double got, double truth, const char *what, const char *text);

/* The text of graph `graph`'s site: its construct is in the function of its name (the tree's:
 * node). */
void graph_site(const char *graph, char *site, size_t size);

/* The graph `graph` of omp_known_graphs: work and span within 5% of the truth, and the number of
 * its site's fragments on the critical path (not asserted when KNOWN_ANY_FRAGMENTS). */
#define KNOWN_ANY_FRAGMENTS ((unsigned long)-1)
void known_graph(const char *graph, double nominal_span, unsigned long path_fragments,
		 unsigned long tasks);

/* Whether `got` is within 5% of `truth`. */
bool near(double got, double truth);

/*
 * The next line of `text` from `*from` (NULL: the first) that holds `site` as a site's line, in
 * `row`; `*from` moves past it. False when there is none.
 */
bool site_line(const char *text, const char *site, const char **from, char *row, size_t size);

/*
 * The lines of the table of parallel regions in `text` whose site holds `site` (every reader's
 * columns: "main (omp_fib.c:27) 0.347 0.973 3.20 ms 4.62 ms 2"), and the first's load balance and
 * threads (-1 each when none).
 */
unsigned region_lines(const char *text, const char *site, double *balance, long *threads);

/* The efficiency of the first line of parallel region `site` in the regions' table of `text`
 * (every reader's columns, the first: "main (omp_fib.c:27) 0.347 0.973 3.20 ms 4.62 ms 2"); -1
 * when no line says one ("-": no instance ended, or nested). */
double region_efficiency_of(const char *text, const char *site);

/* The waits at sync site `site` of kind `kind` in `text` (the sync sites' table, every reader's
 * columns: "main (omp_fib.c:27) barrier 8.40 ms 4 0.808 -"); -1 when no line has them. */
long sync_waits_of(const char *text, const char *site, const char *kind);

/* The time waited at sync site `site` of kind `kind` in `text`, in ms; -1 when none. */
double sync_waited_of(const char *text, const char *site, const char *kind);

/* The load balance of the phases sync site `site`'s barrier ended (what its threads computed
 * before it: sync_waited.h) in `text`; -1 when no line says one. */
double sync_balance_of(const char *text, const char *site);

/* A duration as the outputs write it, "27.78 ms" or "0 ns", in ms; -1 when none is there. */
double duration_ms(const char *text);

/*
 * The median task time of site `site` in the task sites' table of `text` (the exit report's and
 * --analyze's "median task" column, after `before` columns of figures), in ms; -1 when none is
 * said (no line, "-", or a lower bound ">=2.10 ms", as before tasks of 2.1 ms and more were read).
 */
double median_task_ms(const char *text, const char *site, unsigned before);

/* The share of the span of the sites whose text holds `site`: on each line of `text` that holds
 * it, the first word ending in '%' ("-" off the path: 0; ">=" a lower bound: its figure), added
 * up; -1 when no line holds it. */
double share_of(const char *text, const char *site);

struct tp_pop_run;

/* The runs a pop target is given to show what a test holds it to (pop_run_until). */
#define POP_TRIES 5

/* The build of pop target `name` (a GCC build's name ends in "_gcc"), or the test skipped. */
const char *pop_program(const char *name);

/* Whether a run's outputs give what a test holds them to (`context`: the test's). */
typedef bool pop_judge(const struct tp_pop_run *pop, const void *context);

/*
 * Runs pop target `name` on two threads with POP_TIMES into `pop` (freed first) until `kept` says
 * yes, POP_TRIES runs at most, a pause after each refused (the load beside it may pass). Returns
 * whether the last run was kept; when none was, says so (`judged_by`: how the last is judged).
 */
bool pop_run_until(const char *name, pop_judge *kept, const void *context, const char *judged_by,
		   struct tp_pop_run *pop);
