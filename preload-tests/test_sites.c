// SPDX-License-Identifier: MIT
/*
 * Spawn sites as a person reads them, from the probes of programs built -O2 -g without frame
 * pointers: one site per task construct, named "function (file:line)" with the construct's line;
 * "function+0xoff (module)" without debug information, "0xaddress (module)" without symbols.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define TARGETS_SOURCE_DIR TP_SCRIPTS_DIR "/../preload-tests/targets"
#define SITES_MAX          8

struct sites {
	size_t n;
	int64_t id[SITES_MAX];
	char text[SITES_MAX][TP_SITE_READ];
	size_t tasks[SITES_MAX];
};

/* The sites of the traced run's spawns (site 0 left out), with their tasks, in order of id. */
static void sites_of(const struct tp_run *run, struct sites *sites)
{
	memset(sites, 0, sizeof *sites);
	for (size_t i = 0; i < tp_count(run, "task__spawn", 0); i++) {
		const struct tp_event *e = tp_nth(run, "task__spawn", 0, i);
		if (e->arg[2] == 0)
			continue;
		size_t k = 0;
		while (k < sites->n && sites->id[k] != e->arg[2])
			k++;
		if (k == sites->n) {
			cr_assert_lt(sites->n, SITES_MAX, "too many sites");
			/* a wait's site may have taken an id first: one id space for both */
			cr_expect_gt(e->arg[2], sites->n > 0 ? sites->id[sites->n - 1] : 0,
				     "ids are small and given in order of first sight");
			sites->id[sites->n] = e->arg[2];
			snprintf(sites->text[sites->n], TP_SITE_READ, "%s", e->site);
			sites->n++;
		}
		cr_expect_str_eq(e->site, sites->text[k], "one site id, one text: site %lld",
				 (long long)e->arg[2]);
		sites->tasks[k]++;
	}
}

/* The lines of `source` (1, 2, ...) that hold `text`, in `lines`; their number. */
static size_t lines_holding(const char *source, const char *text, int lines[], size_t max)
{
	char *file = tp_read_file(source, NULL);
	size_t n = 0;
	int number = 1;
	for (char *l = file; *l != '\0' && n < max; number++) {
		char *end = strchrnul(l, '\n');
		char saved = *end;
		*end = '\0';
		if (strstr(l, text) != NULL)
			lines[n++] = number;
		*end = saved;
		l = saved != '\0' ? end + 1 : end;
	}
	free(file);
	return n;
}

static void trace(const char *target, const char *arg, struct tp_run *run)
{
	const char *argv[] = {tp_require_program(tp_target(target), "clang and libomp-dev"), arg,
			      NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	tp_run_both(argv, env, run);
}

TP_SUITE_NOT_UNDER(sites, TP_TSAN, TP_OPENMP_UNDER_TSAN);

Test(sites, a_recursive_program_has_one_site_per_task_construct_at_its_line, .timeout = 120)
{
	struct tp_run run;
	trace("omp_fib", "16", &run);
	struct sites sites;
	sites_of(&run, &sites);
	int task_lines[4], parallel_lines[2];
	cr_assert_eq(
		lines_holding(TARGETS_SOURCE_DIR "/omp_fib.c", "#pragma omp task ", task_lines, 4),
		2);
	cr_assert_eq(lines_holding(TARGETS_SOURCE_DIR "/omp_fib.c", "#pragma omp parallel",
				   parallel_lines, 2),
		     1);
	/* the parallel construct (its two implicit tasks) and the two task constructs */
	cr_assert_eq(sites.n, 3, "%zu sites", sites.n);
	char expected[3][TP_SITE_READ];
	snprintf(expected[0], TP_SITE_READ, "main (omp_fib.c:%d)", parallel_lines[0]);
	snprintf(expected[1], TP_SITE_READ, "fib (omp_fib.c:%d)", task_lines[0]);
	snprintf(expected[2], TP_SITE_READ, "fib (omp_fib.c:%d)", task_lines[1]);
	size_t found = 0;
	for (size_t k = 0; k < sites.n; k++)
		for (size_t x = 0; x < 3; x++)
			if (strcmp(sites.text[k], expected[x]) == 0) {
				found++;
				cr_expect_eq(sites.tasks[k], x == 0 ? 2 : 1596, "%s",
					     sites.text[k]);
			}
	cr_expect_eq(found, 3, "sites %s | %s | %s; expected %s | %s | %s", sites.text[0],
		     sites.text[1], sites.text[2], expected[0], expected[1], expected[2]);
	tp_run_free(&run);
}

Test(sites, an_unrolled_loops_task_construct_is_one_site, .timeout = 120)
{
	struct tp_run run;
	const char *argv[] = {tp_require_program(tp_target("omp_shapes"), "clang and libomp-dev"),
			      "unrolled", "4", NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	tp_run_both(argv, env, &run);
	cr_expect_str_eq(run.out, "unrolled 4 done 12\n");
	struct sites sites;
	sites_of(&run, &sites);
	/* the construct is two lines below the unroll pragma */
	int unroll_line;
	cr_assert_eq(lines_holding(TARGETS_SOURCE_DIR "/omp_shapes.c", "#pragma clang loop unroll",
				   &unroll_line, 1),
		     1);
	/* named by the function the construct is written in, not clang's outlined region */
	char expected[TP_SITE_READ];
	snprintf(expected, sizeof expected, "unrolled (omp_shapes.c:%d)", unroll_line + 2);
	/* three calls into libomp (the loop unrolled), one construct: one site with all 12 tasks */
	size_t with_twelve = 0;
	for (size_t k = 0; k < sites.n; k++)
		if (sites.tasks[k] == 12) {
			with_twelve++;
			cr_expect_str_eq(sites.text[k], expected);
		}
	cr_expect_eq(with_twelve, 1, "%zu sites: %s | %s", sites.n, sites.text[0], sites.text[1]);
	tp_run_free(&run);
}

Test(sites, without_debug_information_sites_fall_back_to_symbols_then_addresses, .timeout = 120)
{
	struct tp_run run;
	struct sites sites;
	trace("omp_spawn_sites_nodebug", NULL, &run);
	sites_of(&run, &sites);
	cr_assert_eq(sites.n, 2);
	cr_expect(strncmp(sites.text[1], "spawn_leaf+0x", 13) == 0 &&
			  strstr(sites.text[1], " (omp_spawn_sites_nodebug)") != NULL,
		  "%s", sites.text[1]);
	cr_expect_eq(sites.tasks[1], 8);
	tp_run_free(&run);

	trace("omp_spawn_sites_stripped", NULL, &run);
	sites_of(&run, &sites);
	cr_assert_eq(sites.n, 2);
	unsigned long long address;
	char module[64];
	cr_expect_eq(sscanf(sites.text[1], "0x%llx (%63[^)])", &address, module), 2, "%s",
		     sites.text[1]);
	cr_expect_str_eq(module, "omp_spawn_sites_stripped");
	cr_expect_eq(sites.tasks[1], 8);
	tp_run_free(&run);
}

/* Lines of `trace` that are `line` (its newline included). */
static size_t lines_equal(const char *trace, const char *line)
{
	size_t n = 0, length = strlen(line);
	for (const char *l = trace; (l = strstr(l, line)) != NULL; l += length)
		if (l == trace || l[-1] == '\n')
			n++;
	return n;
}

/*
 * Naming a site reads debug information (milliseconds): for a tracer that reads site texts it is
 * done in the process, but the spawning or waiting task's poll is ended around it, so that no
 * poll a tracer measures holds taskprobe's time. The tracer follows each thread's open poll and
 * sees every call of the shim's two naming functions.
 */
Test(sites, a_site_is_named_for_a_tracer_outside_every_poll, .timeout = 120)
{
	const char *shim = tp_shim_copy();
	char *program;
	cr_assert(
		asprintf(&program,
			 "usdt:%1$s:taskprobe:task__poll__start /pid == $1/ { @open[tid] = 1; }\n"
			 "usdt:%1$s:taskprobe:task__poll__end /pid == $1/ { delete(@open[tid]); }\n"
			 "usdt:%1$s:taskprobe:task__spawn /pid == $1/ "
			 "{ printf(\"SPAWN %%s\\n\", str(arg3)); }\n"
			 "usdt:%1$s:taskprobe:wait__start /pid == $1/ "
			 "{ printf(\"WAIT %%s\\n\", str(arg5)); }\n"
			 "uprobe:%1$s:tp_symbolize_call, uprobe:%1$s:tp_symbolize_function "
			 "/pid == $1/ { printf(\"NAMING %%s\\n\", @open[tid] ? \"in a poll\" : "
			 "\"outside\"); }\n",
			 shim) > 0);
	const char *argv[] = {tp_require_program(tp_target("omp_blocking"), "clang and libomp-dev"),
			      NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	tp_run_traced_by(shim, program, argv, env, &run);
	free(program);
	cr_expect_str_eq(run.out, "posted\n");
	int task_line, wait_line;
	cr_assert_eq(lines_holding(TARGETS_SOURCE_DIR "/omp_blocking.c", "#pragma omp task ",
				   &task_line, 1),
		     1);
	wait_line = task_line + 1; /* the task's one statement: sem_wait */
	char spawn[TP_SITE_READ], wait[TP_SITE_READ];
	snprintf(spawn, sizeof spawn, "SPAWN main (omp_blocking.c:%d)\n", task_line);
	snprintf(wait, sizeof wait, "WAIT main (omp_blocking.c:%d)\n", wait_line);
	/* the task's site and its wait's, named while a task was polled (the single's, the task) */
	cr_expect_eq(lines_equal(run.trace, spawn), 1, "%s", run.trace);
	cr_expect_eq(lines_equal(run.trace, wait), 1, "%s", run.trace);
	cr_expect_gt(lines_equal(run.trace, "NAMING outside\n"), 2, "%s", run.trace);
	cr_expect_eq(lines_equal(run.trace, "NAMING in a poll\n"), 0, "%s", run.trace);
	tp_run_free(&run);
}

/*
 * A thread that spawns at more constructs than it keeps keys for (spawn_site.h: a slot each by
 * call address), round after round: each construct's slot is taken by another between its
 * spawns, and every task is still spawned at its own construct's site.
 */
Test(sites, a_thread_going_round_many_constructs_spawns_each_task_at_its_own_site, .timeout = 120)
{
	enum { CONSTRUCTS = 260, ROUNDS = 3, LINES = 700 };
	struct tp_run run;
	trace("omp_many_sites", "3", &run);
	cr_expect_str_eq(run.out, "omp_many_sites: 780 tasks, sum 101790\n");
	int construct_lines[CONSTRUCTS];
	cr_assert_eq(lines_holding(TARGETS_SOURCE_DIR "/omp_many_sites.c", "\tTASK(",
				   construct_lines, CONSTRUCTS),
		     CONSTRUCTS);
	unsigned tasks_at[LINES] = {0}, other = 0;
	for (size_t i = 0; i < tp_count(&run, "task__spawn", 0); i++) {
		const struct tp_event *e = tp_nth(&run, "task__spawn", 0, i);
		if (e->arg[2] == 0) /* the initial task */
			continue;
		const char *site = e->site;
		const char *at = strstr(site, "(omp_many_sites.c:");
		int line = at != NULL ? atoi(at + strlen("(omp_many_sites.c:")) : 0;
		if (line > 0 && line < LINES && strncmp(site, "spawn_at_sites_", 15) == 0)
			tasks_at[line]++;
		else if (strstr(site, "main (") != site) /* the parallel construct's two */
			other++;
	}
	cr_expect_eq(other, 0, "%u tasks at no construct of the program", other);
	for (size_t k = 0; k < CONSTRUCTS; k++) {
		cr_expect_eq(tasks_at[construct_lines[k]], ROUNDS, "line %d: %u tasks",
			     construct_lines[k], tasks_at[construct_lines[k]]);
		tasks_at[construct_lines[k]] = 0;
	}
	for (int line = 0; line < LINES; line++)
		cr_expect_eq(tasks_at[line], 0, "line %d, no construct: %u tasks", line,
			     tasks_at[line]);
	tp_run_free(&run);
}
