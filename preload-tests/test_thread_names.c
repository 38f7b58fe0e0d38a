// SPDX-License-Identifier: MIT
/*
 * Threads by name: one that set a name of its own keeps it; one that set none (its name is the
 * program's) is shown by its start routine, in taskprobe top, the recorded timeline, a tracer's
 * thread-start and the shipped scripts. On thread_names: two threads started at pool_worker,
 * unnamed, and one at io_loop that names itself "io-loop" (the target is built -g).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define POOL_THREADS 2 /* thread_names.c's */

/* "pool_worker (thread_names.c:L)": L the line its code begins at (its opening brace). */
static const char *pool_worker_with_line(void)
{
	static char name[64];
	snprintf(name, sizeof name, "pool_worker (thread_names.c:%d)",
		 tp_source_line("thread_names.c", "void *pool_worker(", "{"));
	return name;
}

/* How many rows of `text`'s threads table have `name` in its THREAD column. */
static unsigned threads_named(const char *text, const char *name, unsigned *rows)
{
	const char *header = strstr(text, "\nTID ");
	cr_assert(header != NULL, "%s", text);
	header++;
	/* "TID" (8) " " THREAD (its width) " " " BUSY" */
	const char *thread = strstr(header, "THREAD"), *busy = strstr(header, "BUSY");
	cr_assert(thread != NULL && busy != NULL && busy > thread, "%s", text);
	int from = (int)(thread - header), width = (int)(busy - thread) - 2;
	unsigned n = 0;
	*rows = 0;
	for (const char *row = strchr(header, '\n');
	     row != NULL && row[1] != '\0' && row[1] != '\n'; row = strchr(row + 1, '\n')) {
		(*rows)++;
		char cell[128];
		snprintf(cell, sizeof cell, "%.*s", width, row + 1 + from);
		for (size_t len = strlen(cell); len > 0 && cell[len - 1] == ' ';)
			cell[--len] = '\0';
		n += strcmp(cell, name) == 0;
	}
	return n;
}

Test(thread_names, top_shows_an_unnamed_thread_by_its_start_routine_and_a_named_one_by_name)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *env[] = {"TASKPROBE_WORKERS=*", NULL};
	struct tp_run run;
	tp_launch_unprivileged((const char *[]){"top", "--once", "--",
						tp_unprivileged_copy(tp_target("thread_names")),
						NULL},
			       env, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "3 threads, 3 rounds\n");
	/* the three threads park in their waits (workers by TASKPROBE_WORKERS); main does not */
	unsigned rows;
	cr_expect_eq(threads_named(run.err, pool_worker_with_line(), &rows), POOL_THREADS, "%s",
		     run.err);
	cr_expect_eq(threads_named(run.err, "io-loop", &rows), 1, "%s", run.err);
	cr_expect_eq(rows, POOL_THREADS + 1, "%s", run.err);
	tp_run_free(&run);
}

Test(thread_names, the_recorded_timeline_names_thread_tracks_so, .timeout = 60)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char json[512], thread[128];
	snprintf(json, sizeof json, "%s/thread_names.json", tp_unprivileged_out());
	struct tp_run run;
	tp_launch_unprivileged((const char *[]){"record", "-o", json, "--",
						tp_unprivileged_copy(tp_target("thread_names")),
						NULL},
			       NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	const char *summary = tp_timeline_summary(json);
	/* the main thread fires no event: no track */
	snprintf(thread, sizeof thread, "\nthread\t%s\t%d\n", pool_worker_with_line(),
		 POOL_THREADS);
	cr_expect(strstr(summary, thread) != NULL, "%s", summary);
	cr_expect(strstr(summary, "\nthread\tio-loop\t1\n") != NULL, "%s", summary);
	cr_expect_eq(tp_timeline_count(summary, "M="), POOL_THREADS + 1, "three threads': %s",
		     summary);
	tp_run_free(&run);
}

Test(thread_names, a_tracers_thread_start_names_the_start_routine_from_its_symbol)
{
	TP_NOT_UNDER(TP_ASAN, TP_START_ROUTINES_UNDER_ASAN);
	struct tp_run run;
	tp_run(TP_TRACED, (const char *[]){tp_target("thread_names"), NULL}, NULL, &run);
	cr_assert_eq(run.status, 0);
	cr_assert_eq(tp_assert_threads_paired(&run, POOL_THREADS + 1), POOL_THREADS + 1);
	/* named in the process without debug information: function and module */
	unsigned pool = 0, io = 0;
	for (size_t i = 0; i < tp_count(&run, "thread__start", 0); i++) {
		const char *name = tp_nth(&run, "thread__start", 0, i)->site;
		pool += strcmp(name, "pool_worker (thread_names)") == 0;
		io += strcmp(name, "io_loop (thread_names)") == 0;
	}
	cr_expect_eq(pool, POOL_THREADS);
	cr_expect_eq(io, 1);
	tp_run_free(&run);
}

Test(thread_names, waits_bt_sums_parked_time_by_thread_name_or_start_routine, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_START_ROUTINES_UNDER_ASAN);
	const char *argv[] = {tp_target("thread_names"), NULL};
	const char *env[] = {"TASKPROBE_WORKERS=*", NULL};
	struct tp_run run;
	tp_run_script("waits.bt", NULL, argv, env, &run);
	cr_expect_eq(run.status, 0);
	size_t pool = 0, io = 0, all = 0;
	for (const char *l = run.trace; l != NULL;
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		pool += strncmp(l, "@parked_ms[pool_worker (thread_names), ",
				strlen("@parked_ms[pool_worker (thread_names), ")) == 0;
		io += strncmp(l, "@parked_ms[io-loop, ", strlen("@parked_ms[io-loop, ")) == 0;
		all += strncmp(l, "@parked_ms[", strlen("@parked_ms[")) == 0;
	}
	cr_expect_eq(pool, POOL_THREADS, "%s", run.trace);
	cr_expect_eq(io, 1, "%s", run.trace);
	cr_expect_eq(all, POOL_THREADS + 1, "%s\nbpftrace said: %s", run.trace, run.trace_errors);
	tp_run_free(&run);
}

/* How many rows of workers.bt's report name a worker `name` ("10:21:07 NAME  TID ..."). */
static size_t workers_named(const char *trace, const char *name)
{
	size_t n = 0, len = strlen(name);
	for (const char *l = trace; l != NULL; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		int used = 0;
		if (sscanf(l, "%*d:%*d:%*d %n", &used) == 0 && used > 0 &&
		    strncmp(l + used, name, len) == 0 && strncmp(l + used + len, "  ", 2) == 0)
			n++;
	}
	return n;
}

Test(thread_names, workers_bt_reports_workers_by_name_or_start_routine, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_START_ROUTINES_UNDER_ASAN);
	const char *argv[] = {tp_target("thread_names"), NULL};
	const char *env[] = {"TASKPROBE_WORKERS=*", NULL};
	/* an interval far longer than the run: the one report is the one made at its end */
	const char *every_minute[] = {"60", NULL};
	struct tp_run run;
	tp_run_script("workers.bt", every_minute, argv, env, &run);
	cr_expect_eq(run.status, 0);
	cr_expect_eq(workers_named(run.trace, "pool_worker (thread_names)"), POOL_THREADS, "%s",
		     run.trace);
	cr_expect_eq(workers_named(run.trace, "io-loop"), 1, "%s", run.trace);
	tp_run_free(&run);
}

/*
 * A thread no symbol names, that set no name of its own: by its library and "thread" (the tid
 * beside it) when its start routine lies in a stripped library, else by its process's name. On
 * bare_pool_user: two threads of the stripped library libbare_pool.so, and on x86-64 one started
 * at code outside every module.
 */
#define BARE_POOL_THREADS 2 /* bare_pool.h's */
#define BARE_POOL_NAME    "libbare_pool.so thread"
#if defined(__x86_64__)
#define OUTSIDE_MODULES 1
#else
#define OUTSIDE_MODULES 0 /* bare_pool_user starts its third thread at jit_thread itself */
#endif

Test(thread_names, top_shows_a_thread_no_symbol_names_by_its_library_or_its_process)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *env[] = {"TASKPROBE_WORKERS=*", NULL};
	struct tp_run run;
	tp_launch((const char *[]){"top", "--once", "--", tp_target("bare_pool_user"), NULL}, env,
		  &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "2 pool threads, 1 other, 3 rounds\n");
	unsigned rows;
	cr_expect_eq(threads_named(run.err, BARE_POOL_NAME, &rows), BARE_POOL_THREADS, "%s",
		     run.err);
	if (OUTSIDE_MODULES)
		cr_expect_eq(threads_named(run.err, "bare_pool_user", &rows), 1, "%s", run.err);
	cr_expect_eq(rows, BARE_POOL_THREADS + 1, "%s", run.err);
	tp_run_free(&run);
}

Test(thread_names, the_recorded_timeline_names_a_thread_no_symbol_names_so, .timeout = 60)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *dir = tp_make_temp_dir("bare_pool"), json[512], thread[128];
	snprintf(json, sizeof json, "%s/bare_pool.json", dir);
	struct tp_run run;
	tp_launch((const char *[]){"record", "-o", json, "--", tp_target("bare_pool_user"), NULL},
		  NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	const char *summary = tp_timeline_summary(json);
	snprintf(thread, sizeof thread, "\nthread\t%s\t%d\n", BARE_POOL_NAME, BARE_POOL_THREADS);
	cr_expect(strstr(summary, thread) != NULL, "%s", summary);
	if (OUTSIDE_MODULES)
		cr_expect(strstr(summary, "\nthread\tbare_pool_user\t1\n") != NULL, "%s", summary);
	cr_expect(strstr(summary, "\nthread\t0x") == NULL, "%s", summary);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

Test(thread_names, a_tracers_thread_start_names_a_stripped_librarys_routine_by_the_library)
{
	TP_NOT_UNDER(TP_ASAN, TP_START_ROUTINES_UNDER_ASAN);
	struct tp_run run;
	tp_run(TP_TRACED, (const char *[]){tp_target("bare_pool_user"), NULL}, NULL, &run);
	cr_assert_eq(run.status, 0);
	cr_assert_eq(tp_assert_threads_paired(&run, BARE_POOL_THREADS + 1), BARE_POOL_THREADS + 1);
	/* the routine outside every module has no name: NULL, its thread shown by its own */
	unsigned pool = 0, none = 0;
	for (size_t i = 0; i < tp_count(&run, "thread__start", 0); i++) {
		const char *name = tp_nth(&run, "thread__start", 0, i)->site;
		pool += strcmp(name, BARE_POOL_NAME) == 0;
		none += name[0] == '\0';
	}
	cr_expect_eq(pool, BARE_POOL_THREADS);
	if (OUTSIDE_MODULES)
		cr_expect_eq(none, 1);
	tp_run_free(&run);
}
