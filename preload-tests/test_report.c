// SPDX-License-Identifier: MIT
/*
 * The exit report (TASKPROBE_REPORT) with no tracer: it says when no task executor was seen, and
 * why for a program on GCC's libgomp, instead of reporting 0 tasks; and it never changes how a
 * program ends, even one that calls exit() from a thread OpenMP does not know while tasks run.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "harness_internal.h"

/* An OpenMP target built by clang, on libomp. */
static const char *openmp_target(const char *name)
{
	return tp_require_program(tp_target(name), "clang and libomp-dev");
}

static const char no_executor[] =
	"taskprobe: no task executor was seen (pid %d): no tasks to report";
static const char why_libgomp[] =
	". An OpenMP program on GCC's libgomp has no tool interface: run "
	"it on LLVM's libomp (taskprobe does, when libomp has all it calls)\n";

Test(report, a_gcc_program_on_libgomp_says_no_executor_was_seen_and_why, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	const char *argv[] = {tp_require_program(tp_target("omp_fib_gcc"), "gcc and libomp-dev"),
			      NULL};
	const char *env[] = {"TASKPROBE_REPORT=stderr", "OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	tp_run(TP_PRELOADED, argv, env, &run);
	cr_expect_eq(run.status, 0);
	cr_expect_str_eq(run.out, "fib(12) = 144\n");
	char said[512];
	snprintf(said, sizeof said, no_executor, (int)run.pid);
	strcat(said, why_libgomp);
	cr_expect(strstr(run.err, said) != NULL, "expected on stderr: %s\nit has: %s", said,
		  run.err);
	cr_expect(strstr(run.err, "spawned but never terminated") == NULL, "no task count: %s",
		  run.err);
	tp_run_free(&run);
}

Test(report, a_program_with_no_executor_says_so_and_names_no_runtime, .timeout = 120)
{
	const char *argv[] = {tp_target("threads"), "3", NULL};
	const char *env[] = {"TASKPROBE_REPORT=stderr", NULL};
	struct tp_run run;
	tp_run_preloaded_as_plain(argv, env, &run);
	char said[512];
	snprintf(said, sizeof said, no_executor, (int)run.pid);
	/* nothing else to report: one line (it waited nowhere) */
	strcat(said, ", and no thread waited in an interposed wait (joins, sleeps, select and read "
		     "are not waits here)\n");
	cr_expect_str_eq(run.err, said);
	tp_run_free(&run);
}

/*
 * The report of an OpenMP program on libomp: all its tasks terminated, so nothing of tasks left
 * (no "0 tasks spawned but never terminated"): it starts with the task graph.
 */
static void expect_task_report(const struct tp_run *run)
{
	char said[128];
	snprintf(said, sizeof said, "taskprobe: the task graph (pid %d): work ", (int)run->pid);
	cr_expect(strncmp(run->err, said, strlen(said)) == 0,
		  "expected first on stderr: %s\nit has: %s", said, run->err);
	cr_expect(strstr(run->err, "never terminated") == NULL, "%s", run->err);
	cr_expect(strstr(run->err, "no task executor") == NULL, "%s", run->err);
}

/* omp_fib run with the shim and `env`: its output, and the task report on stderr. */
static void expect_fib_and_its_report(const char *const argv[], const char *const env[])
{
	struct tp_run run;
	tp_run(TP_PRELOADED, argv, env, &run);
	cr_expect_eq(run.status, 0);
	cr_expect_str_eq(run.out, "fib(12) = 144\n");
	expect_task_report(&run);
	tp_run_free(&run);
}

Test(report, a_clang_openmp_program_still_gets_the_task_report, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	const char *argv[] = {openmp_target("omp_fib"), NULL};
	const char *env[] = {"TASKPROBE_REPORT=stderr", "OMP_NUM_THREADS=2", NULL};
	expect_fib_and_its_report(argv, env);
}

Test(report, a_gcc_program_on_preloaded_libomp_gets_the_task_report, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	if (strlen(TP_LIBOMP_PATH) == 0)
		tp_require_file("libomp.so.5 (not found at build time)", "libomp-dev");
	const char *argv[] = {tp_require_program(tp_target("omp_fib_gcc"), "gcc and libomp-dev"),
			      NULL};
	char preload[4200];
	snprintf(preload, sizeof preload, "LD_PRELOAD=%s", TP_LIBOMP_PATH);
	const char *env[] = {preload, "TASKPROBE_REPORT=stderr", "OMP_NUM_THREADS=2", NULL};
	expect_fib_and_its_report(argv, env);
}

/*
 * exit_from_thread calls exit() from a plain thread while OpenMP's threads run tasks, and libomp
 * tears its runtime down in its destructor under them: the program ends cleanly only if exit
 * ends the process soon after that destructor. So its ending is a matter of timing even with
 * no shim at all (now and then a run crashes or fails a libomp assertion, with or without the
 * shim, more often on a loaded machine), and the report, written at exit, must not make it
 * likelier: written after the destructors, as it was, it made most runs crash.
 */
#define RUNS 30
/* Unclean endings beyond those of the way compared with, put down to chance whatever the rate. */
#define CHANCE_RUNS (RUNS / 6)
/* Rounds in all when the first RUNS leave it open (more unclean endings than CHANCE_RUNS, within
 * what chance makes of the two counts: excess_may_be_chance) */
#define MORE_RUNS (4 * RUNS)

/* How exit_from_thread's runs of one way (preloaded or not, with the report or not) ended. */
struct endings {
	enum tp_mode mode;
	const char *const *env;
	const char *report; /* what the report must name, or NULL for a run without it */
	int unclean;        /* runs that did not end cleanly (exit status 0, its line on stdout) */
	int reported;       /* clean runs whose report has `report` in it */
};

/*
 * Runs exit_from_thread once the way `e` says and counts how it ended. With a report, every
 * clean run must have written it on stderr.
 */
static void run_once(struct endings *e, int i)
{
	const char *argv[] = {openmp_target("exit_from_thread"), NULL};
	struct tp_run run;
	tp_run(e->mode, argv, e->env, &run);
	if (run.status != 0 || strcmp(run.out, "exiting from a plain thread\n") != 0) {
		cr_log_info("exit_from_thread (%s%s) ended with status %d, stdout \"%.*s\"",
			    e->mode == TP_PLAIN ? "plain" : "preloaded",
			    e->report != NULL ? ", report" : "", run.status,
			    (int)strcspn(run.out, "\n"), run.out);
		e->unclean++;
	} else if (e->report != NULL) {
		char first[128]; /* the report's first line, after its count */
		snprintf(first, sizeof first, " spawned but never terminated (pid %d)\n",
			 (int)run.pid);
		cr_expect(strstr(run.err, first) != NULL, "run %d: no report on stderr: %s", i,
			  run.err);
		e->reported += strstr(run.err, e->report) != NULL;
	}
	tp_run_free(&run);
}

/*
 * Whether `more` unclean endings of one way, against `fewer` of another in as many runs, may be
 * chance: CHANCE_RUNS more or fewer, or an excess within three standard deviations of the
 * difference of two such counts (its variance is at most their sum). At the rates this VM's CI
 * has seen (a quarter to a third of the runs crash with no shim), a fixed slack of CHANCE_RUNS
 * alone is exceeded by chance in about one comparison in twenty.
 */
static bool excess_may_be_chance(int more, int fewer)
{
	int excess = more - fewer;
	return excess <= CHANCE_RUNS || (double)excess * excess <= 9.0 * (more + fewer);
}

/* The unclean endings of the worse of two ways. */
static int worse_unclean(const struct endings *a, const struct endings *b)
{
	return a->unclean > b->unclean ? a->unclean : b->unclean;
}

/* Runs each way once a round, rounds `from` to `to`: the three take turns. */
static void run_rounds(struct endings *ways, int from, int to)
{
	for (int i = from; i < to; i++)
		for (int w = 0; w < 3; w++)
			run_once(&ways[w], i);
}

/*
 * With the shim, and with the report, every run ends cleanly and writes the report; when some
 * do not, not many more with the shim alone than with no shim, nor with the report than with the
 * shim alone. The program calls exit() under libomp's running threads, which its destructor
 * frees the runtime under: a few percent of its runs crash with no shim, and at times up to a
 * third on a virtual machine (the project's CI's); every microsecond
 * after that destructor adds to it (on a virtual machine, 30 us of sleep there crashed 28 of 30
 * runs). So the shim's work after the destructors is one check when nobody listens, stays a few
 * microseconds when someone does and touches no page the run never touched, and the pages of
 * the destructors that run after libomp's are mapped in before (destructors_ready.h). A shim
 * that crashes one run in four fails (a first read of the live statistics' page after the
 * destructors did), and so does a report that crashes every other run. The three ways take
 * turns, run by run, so that the machine's state as it drifts (its load, its paging) weighs on
 * each alike; more rounds when the first RUNS leave it open (excess_may_be_chance). The tasks
 * in flight at exit are reported as `report` says (in most runs: now and then exit comes between
 * a taskwait and the next spawn, when only OpenMP's initial and implicit tasks are alive).
 */
static void expect_endings_as_without_the_report(const char *setting, const char *report)
{
	const char *with_report[] = {"TASKPROBE_REPORT=stderr", "OMP_NUM_THREADS=2", setting, NULL};
	const char *without[] = {"OMP_NUM_THREADS=2", setting, NULL};
	struct endings ways[] = {{TP_PRELOADED, with_report, report, 0, 0},
				 {TP_PRELOADED, without, NULL, 0, 0},
				 {TP_PLAIN, without, NULL, 0, 0}};
	struct endings *with = &ways[0], *shim_only = &ways[1], *plain = &ways[2];
	/*
	 * untraced: another test's tracer of the built shim would be this test's too (its uprobes'
	 * traps in the exit's last steps; it crashed 8 runs of 30 in a CI, against 1 with no shim)
	 */
	tp_use_private_shim();
	run_rounds(ways, 0, RUNS);
	int rounds = RUNS;
	if (with->unclean - worse_unclean(shim_only, plain) > CHANCE_RUNS ||
	    shim_only->unclean - plain->unclean > CHANCE_RUNS) {
		/* the counts of more runs tell a real excess from chance */
		cr_log_info("%d, %d and %d of %d runs unclean (with the report, the shim alone, no "
			    "shim): %d rounds in all",
			    with->unclean, shim_only->unclean, plain->unclean, RUNS, MORE_RUNS);
		run_rounds(ways, RUNS, MORE_RUNS);
		rounds = MORE_RUNS;
	}
	cr_expect_geq(with->reported, (rounds - with->unclean) / 2,
		      "%d of %d clean runs reported \"%s\"", with->reported, rounds - with->unclean,
		      report);
	cr_expect(excess_may_be_chance(with->unclean, worse_unclean(shim_only, plain)),
		  "%d of %d runs with the report did not end cleanly, against %d with the shim "
		  "alone and %d with no shim",
		  with->unclean, rounds, shim_only->unclean, plain->unclean);
	cr_expect(excess_may_be_chance(shim_only->unclean, plain->unclean),
		  "%d of %d runs with the shim alone did not end cleanly, against %d with no shim",
		  shim_only->unclean, rounds, plain->unclean);
}

Test(report, exit_from_a_plain_thread_during_tasks_ends_as_without_the_report, .timeout = 600)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	/* the tasks in flight, by their spawn stack (spawn_work's task construct) */
	expect_endings_as_without_the_report(NULL, "spawn_work");
}

Test(report, exit_from_a_plain_thread_ends_as_without_the_report_with_no_spawn_stacks,
     .timeout = 600)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	expect_endings_as_without_the_report("TASKPROBE_STACKS=0",
					     " with no stack (TASKPROBE_STACKS=0)");
}

/*
 * After the libraries' destructors the shim loads no library: a dlopen there starts libc and the
 * loader over again (their initialisers run a second time) under the exit's own stdio, and a
 * printf after it may fault. The report names sites with libdw, unloaded before the destructors;
 * a wait site first met in a destructor, named after them, is named by its symbol. The loader's
 * own account (LD_DEBUG=files) says what it loaded and initialised, and when.
 */
Test(report, no_library_is_loaded_after_the_destructors, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	char *dir = tp_make_temp_dir("report"), *report, *debug_output, *debug_file;
	cr_assert(asprintf(&report, "TASKPROBE_REPORT=%s/report", dir) > 0);
	cr_assert(asprintf(&debug_output, "LD_DEBUG_OUTPUT=%s/loader", dir) > 0);
	const char *argv[] = {openmp_target("omp_wait_in_destructor"), NULL};
	const char *env[] = {report, "OMP_NUM_THREADS=2", "LD_DEBUG=files", debug_output, NULL};
	struct tp_run run;
	tp_run_preloaded_as_plain(argv, env, &run);
	cr_assert(asprintf(&debug_file, "%s/loader.%d", dir, (int)run.pid) > 0);
	char *loader = tp_read_file(debug_file, NULL);
	cr_assert_not_null(loader, "the loader's account %s", debug_file);
	/* libc's destructor is the last but the loader's: what follows it is after them all */
	static const char libc[] = "/libc.so.6 ";
	const char *libc_fini = NULL;
	for (const char *fini = loader;
	     libc_fini == NULL && (fini = strstr(fini, "calling fini: ")); fini++)
		libc_fini = memmem(fini, strcspn(fini, "\n"), libc, sizeof libc - 1);
	cr_assert_not_null(libc_fini, "libc's destructor ran: %s", loader);
	cr_expect(strstr(libc_fini, "calling init") == NULL,
		  "a library was loaded after the destructors: %s", libc_fini);
	char *text = tp_read_file(strchr(report, '=') + 1, NULL);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "1 semaphore wait at wait_at_exit") != NULL,
		  "the destructor's wait, by its symbol: %s", text);
	cr_expect(strstr(text, "1 semaphore wait at wait_in_main (omp_wait_in_destructor.c:") !=
			  NULL,
		  "main's wait, by its source line: %s", text);
	free(text), free(loader), free(debug_file), free(report), free(debug_output);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

/* The lines of `text` that hold "(pid " (each process's report names its pid). */
static unsigned report_lines(const char *text)
{
	unsigned n = 0;
	for (const char *at = text; (at = strstr(at, "(pid ")) != NULL; at++)
		n++;
	return n;
}

/*
 * A script's processes with nothing to report (no executor, no wait) say nothing: of a shell and
 * its children (threads: threads joined, none waits), the one the run started says one line that
 * nothing was seen, and its children, whose parent reports too, nothing.
 */
Test(report, a_scripts_processes_with_nothing_to_report_say_one_line, .timeout = 120)
{
	char script[1024];
	const char *threads = tp_target("threads");
	snprintf(script, sizeof script, "%s 1; %s 1; %s 1", threads, threads, threads);
	const char *argv[] = {"/bin/bash", "-c", script, NULL};
	const char *env[] = {"TASKPROBE_REPORT=stderr", NULL};
	struct tp_run run;
	tp_run_preloaded_as_plain(argv, env, &run);
	cr_expect_eq(report_lines(run.err), 1, "one line in all: %s", run.err);
	char said[512];
	snprintf(said, sizeof said, no_executor, (int)run.pid);
	cr_expect(strstr(run.err, said) != NULL, "expected on stderr: %s\nit has: %s", said,
		  run.err);
	tp_run_free(&run);
}

/*
 * A report to a character device (/dev/null: the user wants none) is written there; a fifo is
 * still refused, at once (its open would wait for a reader), and the report goes to stderr.
 */
Test(report, a_report_to_dev_null_is_written_there_and_a_fifo_refused, .timeout = 120)
{
	const char *argv[] = {tp_target("threads"), "3", NULL};
	struct tp_run run, plain;
	tp_run(TP_PLAIN, argv, (const char *[]){NULL}, &plain);
	tp_run(TP_PRELOADED, argv, (const char *[]){"TASKPROBE_REPORT=/dev/null", NULL}, &run);
	cr_expect_eq(run.status, plain.status);
	cr_expect_str_eq(run.out, plain.out);
	cr_expect_str_eq(run.err, plain.err);
	tp_run_free(&run);

	char *dir = tp_make_temp_dir("report-fifo");
	char fifo[512], setting[600];
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	snprintf(setting, sizeof setting, "TASKPROBE_REPORT=%s", fifo);
	tp_run(TP_PRELOADED, argv, (const char *[]){setting, NULL}, &run);
	cr_expect_eq(run.status, plain.status);
	cr_expect_str_eq(run.out, plain.out);
	/* with no reader, the open fails (ENXIO); with one, the file's type is refused */
	cr_expect(strstr(run.err, "cannot be written: ") != NULL &&
			  strstr(run.err, "; using stderr") != NULL,
		  "%s", run.err);
	tp_run_free(&run);
	tp_run_free(&plain);
	tp_remove_temp_dir(dir);
}

/*
 * A program on GCC's libgomp says so once, at its start, rather than showing nothing: its tasks
 * are not seen. Started by a script under the launcher, which gives every process of its run
 * that needs libgomp LLVM's libomp in its place, it is one that calls what libomp lacks
 * (omp_target_alloc), which it says; preloaded by hand, it says what the launcher does.
 */
Test(report, a_libgomp_program_says_its_tasks_are_not_seen_and_why, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *lacking = tp_require_program(tp_target("omp_host_device_memory_gcc"), "gcc");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	char script[1024];
	snprintf(script, sizeof script, "%s; true", lacking);
	struct tp_run run, plain;
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	tp_run(TP_PLAIN, (const char *[]){lacking, NULL}, env, &plain);
	tp_launch((const char *[]){"run", "--", "/bin/bash", "-c", script, NULL}, env, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out);
	/* libomp's path as ldconfig names it (/lib or /usr/lib) */
	static const char told[] = "(omp_host_device_memory_gcc) runs on GCC's libgomp, which has "
				   "no tool interface: its tasks are not seen (its threads and "
				   "waits are). LLVM's libomp (";
	const char *said = strstr(run.err, told);
	/* and what libomp lacks, as the audit module found it in this child of the program */
	cr_expect(said != NULL && tp_says_libomp_lacks_device_memory(said) &&
			  strstr(said, "libomp.so.5), which taskprobe gives") != NULL,
		  "%s", run.err);
	cr_expect(said == NULL || strstr(said + strlen(told), "runs on GCC's libgomp") == NULL,
		  "once: %s", run.err);
	tp_run_free(&run);

	tp_run(TP_PRELOADED, (const char *[]){tp_target("omp_fib_gcc"), NULL}, env, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.err,
			 "(omp_fib_gcc) runs on GCC's libgomp, which has no tool "
			 "interface: its tasks are not seen (its threads and waits are). "
			 "taskprobe runs the programs of its run built for libgomp on LLVM's "
			 "libomp, when libomp is installed (libomp-dev) and has all they "
			 "call\n") != NULL,
		  "%s", run.err);
	tp_run_free(&run);
	tp_run_free(&plain);
}
