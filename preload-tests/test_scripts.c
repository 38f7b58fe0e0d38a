// SPDX-License-Identifier: MIT
/*
 * The shipped D scripts (as built from their .d.in) against the provider file: DTrace is not run
 * here, so every probe a D script names must exist in dtrace/taskprobe.d and every argN it reads
 * must be an argument of each probe of its clause.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contract.h"
#include "harness.h"
#include "taskprobe_contract.h"

/* Blanks out C comments, so that probe names and argN in them are not read as code. */
static void strip_comments(char *text)
{
	for (char *p = text; (p = strstr(p, "/*")) != NULL;) {
		char *end = strstr(p + 2, "*/");
		char *stop = end != NULL ? end + 2 : p + strlen(p);
		memset(p, ' ', (size_t)(stop - p));
		p = stop;
	}
}

struct provider_probe {
	char name[48]; /* as D writes it: task-spawn */
	int nargs;
};

/* The probes of dtrace/taskprobe.d with their argument counts. */
static size_t read_provider(struct provider_probe *probes, size_t max)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/taskprobe.d", TP_SCRIPTS_DIR);
	char *text = tp_read_file(path, NULL);
	strip_comments(text);
	size_t n = 0;
	for (char *p = text; (p = strstr(p, "probe ")) != NULL && n < max; p += 6) {
		char name[48];
		if (sscanf(p, "probe %47[a-z_]", name) != 1)
			continue;
		char *open = strchr(p, '('), *close = open != NULL ? strchr(open, ')') : NULL;
		cr_assert(close != NULL, "probe %s has no argument list", name);
		int nargs = 0;
		for (char *c = open + 1; c < close; c++)
			if (!isspace((unsigned char)*c)) {
				nargs = 1;
				break;
			}
		for (char *c = open; c < close; c++)
			nargs += *c == ',';
		/* task__spawn in the provider file reads task-spawn in D */
		struct provider_probe *pp = &probes[n++];
		size_t k = 0;
		for (const char *s = name; *s && k < sizeof pp->name - 1; s++) {
			if (s[0] == '_' && s[1] == '_') {
				pp->name[k++] = '-';
				s++;
			} else {
				pp->name[k++] = *s;
			}
		}
		pp->name[k] = '\0';
		pp->nargs = nargs;
	}
	free(text);
	return n;
}

TP_SUITE_NOT_UNDER(scripts, TP_TSAN,
		   "most scripts are tried on OpenMP programs, left out as the openmp suite says; "
		   "waits.bt's test and the D checks, which read files only, go with them");

Test(scripts, every_d_script_names_provider_probes_and_their_arguments_only)
{
	struct provider_probe probes[32];
	size_t n_probes = read_provider(probes, 32);
	size_t in_contract = 0;
	while (tp_contract_probes[in_contract].name != NULL)
		in_contract++;
	cr_assert_eq(n_probes, in_contract, "the provider has %zu probes, the contract %zu",
		     n_probes, in_contract);

	DIR *dir = opendir(TP_BUILT_SCRIPTS_DIR);
	cr_assert_not_null(dir);
	size_t scripts = 0, bpftrace_scripts = 0;
	struct dirent *entry;
	while ((entry = readdir(dir)) != NULL) {
		size_t len = strlen(entry->d_name);
		bpftrace_scripts += len > 3 && strcmp(entry->d_name + len - 3, ".bt") == 0;
		if (len < 3 || strcmp(entry->d_name + len - 2, ".d") != 0 ||
		    strcmp(entry->d_name, "taskprobe.d") == 0)
			continue;
		scripts++;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", TP_BUILT_SCRIPTS_DIR, entry->d_name);
		char *text = tp_read_file(path, NULL);
		strip_comments(text);
		size_t clauses = 0;
		/* a clause: one or more "taskprobe<pid>:::name" specs, a predicate, a { body } */
		for (char *p = text; (p = strstr(p, "taskprobe")) != NULL;) {
			int max_args = 64;
			char *q = p;
			while (strncmp(q, "taskprobe", 9) == 0) {
				char *colons = strstr(q, ":::");
				cr_assert_not_null(
					colons, "%s: a taskprobe probe without :::", entry->d_name);
				char name[48] = "";
				sscanf(colons + 3, "%47[a-z-]", name);
				const struct provider_probe *found = NULL;
				for (size_t i = 0; i < n_probes; i++)
					if (strcmp(probes[i].name, name) == 0)
						found = &probes[i];
				cr_expect_not_null(found, "%s: probe %s is not in the provider",
						   entry->d_name, name);
				if (found != NULL && found->nargs < max_args)
					max_args = found->nargs;
				q = colons + 3 + strlen(name);
				q += strspn(q, " \t\n,");
			}
			char *open = strchr(q, '{');
			cr_assert_not_null(open, "%s: a clause without a body", entry->d_name);
			int depth = 0;
			char *c = open;
			do {
				depth += (*c == '{') - (*c == '}');
				c++;
			} while (depth > 0 && *c);
			for (char *a = p; a < c; a++) {
				int index;
				if (strncmp(a, "arg", 3) == 0 &&
				    (a == p || !isalnum((unsigned char)a[-1])) &&
				    sscanf(a + 3, "%d", &index) == 1)
					cr_expect_lt(
						index, max_args,
						"%s: arg%d read by a clause whose probes have %d",
						entry->d_name, index, max_args);
			}
			clauses++;
			p = c;
		}
		cr_expect_gt(clauses, 0, "%s names no taskprobe probe", entry->d_name);
		free(text);
	}
	closedir(dir);
	/* one D script for each bpftrace one (their twins are checked by name below) */
	cr_expect_eq(scripts, bpftrace_scripts, "D scripts in %s", TP_BUILT_SCRIPTS_DIR);
	cr_expect_gt(scripts, 0);
}

/* The wait kinds' names come from the contract's one list (dtrace/meson.build), in D too. */
Test(scripts, the_d_scripts_name_every_wait_kind_of_the_contract)
{
	static const char *const names[] = TP_WAIT_KIND_NAMES;
	for (const char *const *script = (const char *const[]){"waits.d", "blocking.d", NULL};
	     *script != NULL; script++) {
		char path[4096], expect[64];
		snprintf(path, sizeof path, "%s/%s", TP_BUILT_SCRIPTS_DIR, *script);
		char *text = tp_read_file(path, NULL);
		for (unsigned kind = 1; kind <= TP_WAIT_KINDS; kind++) {
			snprintf(expect, sizeof expect, "arg0 == %u ? \"%s\"", kind, names[kind]);
			cr_expect(strstr(text, expect) != NULL, "%s does not name kind %u as %s",
				  *script, kind, names[kind]);
		}
		cr_expect(strstr(text, "@WAIT_KIND") == NULL, "%s was not made by meson", *script);
		free(text);
	}
}

Test(scripts, every_bpftrace_script_has_a_d_twin_and_the_other_way_round)
{
	DIR *dir = opendir(TP_SCRIPTS_DIR);
	cr_assert_not_null(dir);
	size_t pairs = 0;
	struct dirent *entry;
	while ((entry = readdir(dir)) != NULL) {
		const char *name = entry->d_name, *twin_suffix = NULL;
		size_t len = strlen(name), stem = 0;
		if (len > 6 && strcmp(name + len - 6, ".bt.in") == 0) {
			stem = len - 6;
			twin_suffix = ".d.in";
		} else if (len > 5 && strcmp(name + len - 5, ".d.in") == 0) {
			stem = len - 5;
			twin_suffix = ".bt.in";
		}
		if (twin_suffix == NULL)
			continue;
		char twin[4096];
		snprintf(twin, sizeof twin, "%s/%.*s%s", TP_SCRIPTS_DIR, (int)stem, name,
			 twin_suffix);
		cr_expect(access(twin, R_OK) == 0, "%s has no twin %s", name, twin);
		pairs++;
	}
	closedir(dir);
	cr_expect_geq(pairs, 2 * 8, "%zu scripts", pairs);
}

/* Running the bpftrace scripts on live programs, as users do. */

static const char *omp_target(const char *name)
{
	return tp_require_program(tp_target(name), "clang and libomp-dev");
}

/*
 * The text of the spawn site of `function` as a script printed it in a map key ("[spawn_quick
 * (omp_latency.c:23)]" or "[..., spawn_quick (omp_latency.c:23)]"): sites are texts the process
 * resolved from the target's line tables (it is built -g), so they read right however late
 * bpftrace prints them.
 */
static const char *site_text(const char *trace, const char *function)
{
	static char text[256];
	size_t len = strlen(function);
	for (const char *l = trace; (l = strstr(l, function)) != NULL; l++) {
		if ((l[-1] != '[' && l[-1] != ' ') || strncmp(l + len, " (", 2) != 0 ||
		    strncmp(l + len + 2, "omp_", 4) != 0)
			continue;
		const char *close = strchr(l, ')'), *line = strstr(l, ".c:");
		if (close != NULL && line != NULL && line < close &&
		    (size_t)(close + 1 - l) < sizeof text) {
			memcpy(text, l, (size_t)(close + 1 - l));
			text[close + 1 - l] = '\0';
			return text;
		}
	}
	cr_assert_fail("no spawn site names %s:\n%s", function, trace);
	return NULL;
}

/* The sum of the counts of the histogram bpftrace printed for `key`, or -1 when none. */
static long long hist_total(const char *trace, const char *key)
{
	size_t len = strlen(key);
	for (const char *l = trace; l != NULL; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, len) != 0 || l[len] != ':')
			continue;
		long long total = 0;
		/* bucket lines: "[2, 4)     8 |@@@@   |" or "[1]    11 |...|" */
		for (l = strchr(l, '\n'); l != NULL && l[1] == '['; l = strchr(l + 1, '\n')) {
			const char *close = strpbrk(l + 1, "])");
			total += strtoll(close + 1, NULL, 10);
		}
		return total;
	}
	return -1;
}

/* How many lines start with `prefix`. */
static size_t lines_starting(const char *trace, const char *prefix)
{
	size_t n = 0;
	for (const char *l = trace; l != NULL; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += strncmp(l, prefix, strlen(prefix)) == 0;
	return n;
}

/*
 * The TID, BUSY_MS, SPIN_MS and PARKED_MS of a row of workers.bt's report ("10:21:07 WORKER TID
 * BUSY SPIN PARKED": its last four numbers, after a name that may hold spaces, as a start
 * routine's "0x1e6e0 (libomp.so.5)"); false for another line.
 */
static bool worker_row(const char *line, long long figures[4])
{
	const char *end = strchrnul(line, '\n'), *at = end;
	for (int i = 0; i < 4; i++) {
		while (at > line && at[-1] == ' ')
			at--;
		while (at > line && at[-1] != ' ')
			at--;
	}
	int used = 0;
	return sscanf(line, "%*d:%*d:%*d %n", &used) == 0 && used > 0 && at > line + used &&
	       sscanf(at, "%lld %lld %lld %lld", &figures[0], &figures[1], &figures[2],
		      &figures[3]) == 4;
}

/* omp_latency: 20 quick tasks, one computing 60 ms, one blocked in poll() for 40 ms. */
static void run_on_omp_latency(const char *script, const char *const script_args[],
			       struct tp_run *run)
{
	const char *argv[] = {omp_target("omp_latency"), NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	tp_run_script(script, script_args, argv, env, run);
	cr_expect_eq(run->status, 0);
	cr_expect_str_eq(run->out, "total 11190\n");
}

Test(scripts, polls_bt_has_the_histograms_and_the_slow_poll_on_top, .timeout = 120)
{
	struct tp_run run;
	run_on_omp_latency("polls.bt", NULL, &run);
	char key[320];
	cr_expect_geq(hist_total(run.trace, "@poll_us"), 22, "%s", run.trace);
	snprintf(key, sizeof key, "@poll_us_by_site[%s]", site_text(run.trace, "spawn_quick"));
	cr_expect_eq(hist_total(run.trace, key), 20, "%s", run.trace);
	snprintf(key, sizeof key, "@poll_us_by_site[%s]", site_text(run.trace, "spawn_slow"));
	cr_expect_eq(hist_total(run.trace, key), 1, "%s", run.trace);
	/* the slowest polls of the task sites, printed slowest last, with their sites: the 60 ms
	 * one among them, and none after it shorter. The blocked task's 40 ms poll may end later
	 * than that on a loaded machine (63.9 ms once, the suites beside it), and so may the
	 * initial task's ("(no site)": the program's serial code; 86 ms once under ASan) */
	unsigned long long task = 0, us = 0, before = 0;
	bool slow_seen = false;
	const char *prefix = "@slowest_polls_us[";
	for (const char *l = strstr(run.trace, prefix); l != NULL; l = strstr(l + 1, prefix)) {
		char site[256];
		unsigned long long id, poll_us;
		if (sscanf(l, "@slowest_polls_us[%llu, %255[^]]]: %llu", &id, site, &poll_us) !=
			    3 ||
		    strcmp(site, "(no site)") == 0)
			continue;
		cr_expect_geq(poll_us, before, "printed slowest last:\n%s", run.trace);
		before = poll_us;
		if (strcmp(site, site_text(run.trace, "spawn_slow")) == 0) {
			slow_seen = true;
			task = id;
			us = poll_us;
		}
	}
	cr_expect(slow_seen && us >= 60000 && us < 10000000 && before >= us && task > 0,
		  "the 60 ms poll at its site, %llu us, the slowest %llu us:\n%s", us, before,
		  run.trace);
	tp_run_free(&run);
}

Test(scripts, lifetimes_bt_counts_tasks_and_active_time_per_site, .timeout = 120)
{
	struct tp_run run;
	run_on_omp_latency("lifetimes.bt", NULL, &run);
	const char *sites[] = {"spawn_quick", "spawn_slow", "spawn_blocking"};
	const long long tasks[] = {20, 1, 1}, least_active_ms[] = {0, 60, 40};
	for (size_t i = 0; i < 3; i++) {
		const char *site = site_text(run.trace, sites[i]);
		char key[320];
		snprintf(key, sizeof key, "@tasks[%s]", site);
		cr_expect_eq(tp_map_value(run.trace, key), tasks[i], "%s: %s", sites[i], run.trace);
		snprintf(key, sizeof key, "@lifetime_us[%s]", site);
		cr_expect_eq(hist_total(run.trace, key), tasks[i], "%s: %s", sites[i], run.trace);
		snprintf(key, sizeof key, "@active_us[%s]", site);
		cr_expect_eq(hist_total(run.trace, key), tasks[i], "%s: %s", sites[i], run.trace);
		snprintf(key, sizeof key, "@active_total_ms[%s]", site);
		cr_expect_geq(tp_map_value(run.trace, key), least_active_ms[i], "%s: %s", sites[i],
			      run.trace);
	}
	tp_run_free(&run);
}

Test(scripts, wake_delay_bt_times_every_task_from_wake_to_first_poll, .timeout = 120)
{
	struct tp_run run;
	run_on_omp_latency("wake_delay.bt", NULL, &run);
	/* 22 explicit tasks, 2 implicit ones, the initial task: each woken once, then polled */
	cr_expect_eq(hist_total(run.trace, "@wake_to_poll_us"), 25, "%s", run.trace);
	char key[320];
	snprintf(key, sizeof key, "@longest_wait_us[%s]", site_text(run.trace, "spawn_quick"));
	cr_expect_geq(tp_map_value(run.trace, key), 0, "%s", run.trace);
	tp_run_free(&run);
}

Test(scripts, blocking_bt_names_the_task_that_blocks_its_worker, .timeout = 120)
{
	struct tp_run run;
	run_on_omp_latency("blocking.bt", NULL, &run);
	const char *blocking = site_text(run.trace, "spawn_blocking");
	/*
	 * One task waits inside its poll by construction: the one blocked in poll(). Another task
	 * may wait too, but only in a mutex: libomp's own, when it wakes a worker whose thread,
	 * kept off the CPU on a loaded machine, still holds its sleep's mutex (a real wait, never
	 * one of the program's).
	 */
	unsigned long long us = 0;
	size_t polls = 0;
	for (const char *l = strstr(run.trace, "@blocking_tasks_us["); l != NULL;
	     l = strstr(l + 1, "@blocking_tasks_us[")) {
		unsigned long long task, waited;
		char kind[16], site[256];
		cr_assert_eq(sscanf(l, "@blocking_tasks_us[%llu, %255[^,], %15[a-z]]: %llu", &task,
				    site, kind, &waited),
			     4, "%s", l);
		if (strcmp(kind, "mutex") == 0 && strcmp(site, blocking) != 0)
			continue;
		polls++;
		cr_expect_str_eq(site, blocking);
		cr_expect_str_eq(kind, "poll");
		us = waited;
	}
	cr_expect_eq(polls, 1, "%s", run.trace);
	cr_expect(us >= 40000 && us < 10000000, "%llu us", us);
	cr_expect_eq(hist_total(run.trace, "@blocked_us[poll]"), 1, "%s", run.trace);
	char key[320];
	snprintf(key, sizeof key, "@blocked_us_by_site[%s, poll]", blocking);
	cr_expect_eq(tp_map_value(run.trace, key), (long long)us, "%s", run.trace);
	tp_run_free(&run);
}

Test(scripts, workers_bt_reports_each_worker_with_the_busy_time_of_its_tasks, .timeout = 120)
{
	struct tp_run run;
	/* an interval far longer than the run: the one report is the one made at its end (a
	 * report made during a loaded run would list the workers twice) */
	const char *every_minute[] = {"60", NULL};
	run_on_omp_latency("workers.bt", every_minute, &run);
	/* the report made when the process ended: a line per worker (OMP_NUM_THREADS=2) */
	size_t workers = 0;
	long long busy_sum = 0, busy_max = 0;
	for (const char *l = strstr(run.trace, "BUSY_MS"); l != NULL; l = strchr(l + 1, '\n')) {
		long long figures[4];
		if (!worker_row(l + 1, figures))
			continue;
		long long tid = figures[0], busy = figures[1], spin = figures[2],
			  parked = figures[3];
		workers++;
		busy_sum += busy;
		busy_max = busy > busy_max ? busy : busy_max;
		cr_expect(tid > 0 && busy + spin + parked < 10000, "%s", run.trace);
	}
	cr_expect_eq(workers, 2, "%s", run.trace);
	/* 60 ms computing and 40 ms blocked inside a poll: both busy */
	cr_expect_geq(busy_sum, 100, "%s", run.trace);
	cr_expect_geq(busy_max, 60, "%s", run.trace);
	tp_run_free(&run);
}

Test(scripts, waits_bt_times_waits_by_kind_and_parked_workers, .timeout = 120)
{
	const char *argv[] = {tp_target("named_workers"), NULL};
	const char *env[] = {"TASKPROBE_WORKERS=pool-*", NULL};
	struct tp_run run;
	tp_run_script("waits.bt", NULL, argv, env, &run);
	cr_expect_eq(run.status, 0);
	/* three threads, five semaphore waits each */
	cr_expect_eq(hist_total(run.trace, "@wait_us[semaphore]"), 15, "%s", run.trace);
	cr_expect_eq(lines_starting(run.trace, "@parked_ms[pool-1, "), 1, "%s", run.trace);
	cr_expect_eq(lines_starting(run.trace, "@parked_ms[pool-2, "), 1, "%s", run.trace);
	cr_expect_eq(lines_starting(run.trace, "@parked_ms[other, "), 0, "%s", run.trace);
	tp_run_free(&run);
}

/*
 * A worker parked when the process exits (parked_at_exit: at least 100 ms) never unparks: its
 * park ends with the thread-stop the exiting thread fires for it, and waits.bt counts it there.
 */
Test(scripts, waits_bt_counts_a_park_the_exit_ended, .timeout = 120)
{
	const char *argv[] = {tp_target("parked_at_exit"), NULL};
	const char *env[] = {"TASKPROBE_WORKERS=pool-*", NULL};
	struct tp_run run;
	tp_run_script("waits.bt", NULL, argv, env, &run);
	cr_expect_eq(run.status, 0);
	cr_expect_str_eq(run.out, "exiting\n");
	cr_expect_eq(lines_starting(run.trace, "@parked_ms[pool-1, "), 1, "%s", run.trace);
	const char *parked = strstr(run.trace, "@parked_ms[pool-1, ");
	long long ms = parked != NULL ? strtoll(strstr(parked, "]: ") + 3, NULL, 10) : -1;
	cr_expect(ms >= 100 && ms < 10000, "parked %lld ms:\n%s", ms, run.trace);
	tp_run_free(&run);
}

/*
 * waits.bt on programs that confine themselves (seccomp_exit strict-thread: a thread takes strict
 * mode before its first wait; seccomp_thread thread: a filter, then a thread): they end as they
 * do alone. Naming the strict thread's first wait asked its stack's bounds (sched_getaffinity),
 * and naming the filtered program's new thread read the program's file (readlink): each killed
 * the program. (seccomp_thread's fork case is left out: a traced child of a filtered program
 * that forks cannot repair its probe sites, docs/limits.md.)
 */
Test(scripts, waits_bt_on_programs_that_confine_themselves_ends_them_as_alone, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN,
		     "the sanitizers' runtimes make system calls at exit that the filter refuses");
	const char *const programs[][3] = {{"seccomp_exit", "strict-thread", NULL},
					   {"seccomp_thread", "thread", "libc"}};
	const char *const outs[] = {"confined\n", "thread joined\n"};
	for (size_t i = 0; i < 2; i++) {
		const char *argv[] = {tp_target(programs[i][0]), programs[i][1], programs[i][2],
				      NULL};
		struct tp_run run;
		tp_run_script("waits.bt", NULL, argv, NULL, &run);
		cr_expect_eq(run.status, 0, "%s: status %d: %s", programs[i][0], run.status,
			     run.err);
		cr_expect_str_eq(run.out, outs[i], "%s", programs[i][0]);
		tp_run_free(&run);
	}
}

/* Whether `trace` has a stack whose first two frames (printed as addresses) are `f0` and `f1`. */
static bool has_stack_through(const char *trace, const char *path, const char *f0, const char *f1)
{
	for (const char *l = trace; (l = strstr(l, ", first spawned by task ")) != NULL; l++) {
		unsigned long long pc0, pc1;
		const char *frames = strchr(l, '\n');
		if (frames != NULL && sscanf(frames, " 0x%llx 0x%llx", &pc0, &pc1) == 2 &&
		    strcmp(tp_symbol_at(path, pc0), f0) == 0 &&
		    strcmp(tp_symbol_at(path, pc1), f1) == 0)
			return true;
	}
	return false;
}

Test(scripts, spawn_stacks_bt_prints_each_stack_under_its_site_and_counts_tasks, .timeout = 120)
{
	const char *argv[] = {omp_target("omp_spawn_sites"), NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	tp_run_script("spawn_stacks.bt", NULL, argv, env, &run);
	cr_expect_str_eq(run.out, "counter 35\n");

	/* one site, two stacks under it, each printed once with its frames in order */
	const char *site = site_text(run.trace, "spawn_leaf");
	cr_expect_eq(lines_starting(run.trace, "stack "), 2, "%s", run.trace);
	cr_expect(has_stack_through(run.trace, argv[0], "spawn_leaf", "via_alpha"), "%s",
		  run.trace);
	cr_expect(has_stack_through(run.trace, argv[0], "spawn_leaf", "via_beta"), "%s", run.trace);
	char key[320];
	snprintf(key, sizeof key, "@tasks_by_site[%s]", site);
	cr_expect_eq(tp_map_value(run.trace, key), 8, "%s", run.trace);
	/* 5 tasks from one stack, 3 from the other */
	cr_expect_eq(lines_starting(run.trace, "@tasks_by_stack["), 2, "%s", run.trace);
	snprintf(key, sizeof key, "@tasks_by_stack[%s, ", site);
	long long counts[2] = {-1, -1};
	size_t n = 0;
	for (const char *l = run.trace; (l = strstr(l, key)) != NULL && n < 2; l++)
		counts[n++] = strtoll(strstr(l, "]: ") + 3, NULL, 10);
	cr_expect(n == 2 && counts[0] + counts[1] == 8 && (counts[0] == 5 || counts[0] == 3),
		  "%s\nbpftrace said: %s", run.trace, run.trace_errors);
	tp_run_free(&run);
}

Test(scripts, events_bt_prints_every_event_with_its_arguments, .timeout = 120)
{
	const char *argv[] = {omp_target("omp_spawn_sites"), "200", NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	tp_run_script("events.bt", NULL, argv, env, &run);
	cr_expect_str_eq(run.out, "counter 35\n");

	/* 8 explicit tasks, 2 implicit, the initial one */
	size_t spawns = 0, terminates = 0, explicit_spawns = 0, stacks = 0;
	for (const char *l = run.trace; (l = strstr(l, " task-spawn task=")) != NULL; l++) {
		unsigned long long task, parent, site, stack;
		unsigned executor;
		cr_assert_eq(
			sscanf(l,
			       " task-spawn task=%llu parent=%llu site=%llu stack=%llu executor=%u",
			       &task, &parent, &site, &stack, &executor),
			5, "%.80s", l);
		cr_expect_eq(executor, 1);
		/* the site's text follows " at ", empty for no site */
		const char *at = strstr(l, " at "), *end = strchr(l, '\n');
		cr_assert(at != NULL && end != NULL && at < end, "%.120s", l);
		cr_expect_eq(site == 0, at + 4 == end, "%.120s", l);
		explicit_spawns += stack > 0;
		spawns++;
	}
	for (const char *l = run.trace; (l = strstr(l, " task-stack task=")) != NULL; l++)
		stacks++;
	for (const char *l = run.trace; (l = strstr(l, " task-terminate task=")) != NULL; l++)
		terminates++;
	cr_expect_eq(spawns, 11, "%s", run.trace);
	cr_expect_eq(explicit_spawns, 8);
	cr_expect_eq(stacks, 8, "%s", run.trace);
	/*
	 * 8 explicit tasks and both implicit ones end before the process does; the initial task at
	 * exit, which may come after the script saw the main thread exit.
	 */
	cr_expect(terminates >= 10 && terminates <= 11, "%zu terminates", terminates);
	cr_expect(strstr(run.trace, " thread-start tid=") != NULL &&
			  strstr(run.trace, " routine=0x") != NULL,
		  "libomp's worker thread: %s", run.trace);
	cr_expect(strstr(run.trace, " worker-thread-start\n") != NULL, "%s", run.trace);
	tp_run_free(&run);
}

/*
 * A chain of 20 tasks, each depend(inout) on the one before (omp_known_graphs chain): every
 * task-dependence events.bt prints joins a task to the one spawned just before it, and poll-ends
 * carry their sync (the implicit tasks' at the region's barrier: 1).
 */
Test(scripts, events_bt_prints_dependences_and_each_poll_ends_sync, .timeout = 120)
{
	const char *argv[] = {omp_target("omp_known_graphs"), "chain", NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	tp_run_script("events.bt", NULL, argv, env, &run);
	cr_expect_eq(run.status, 0);
	/* the chain's tasks in spawn order: those its one construct made (site nonzero) */
	unsigned long long chain[32];
	size_t tasks = 0;
	const char *site = NULL;
	char *trace = tp_trace_in_time_order(run.trace);
	for (const char *l = trace; (l = strstr(l, " task-spawn task=")) != NULL; l++) {
		unsigned long long task, parent, site_id;
		cr_assert_eq(sscanf(l, " task-spawn task=%llu parent=%llu site=%llu", &task,
				    &parent, &site_id),
			     3, "%.80s", l);
		const char *at = strstr(l, " at chain (omp_known_graphs.c:");
		if (at == NULL || at > strchr(l, '\n'))
			continue;
		cr_assert_lt(tasks, 32, "%s", run.trace);
		chain[tasks++] = task;
		site = at;
	}
	cr_expect_eq(tasks, 20, "%s", run.trace);
	cr_expect_not_null(site);
	size_t dependences = 0;
	for (const char *l = run.trace; (l = strstr(l, " task-dependence ")) != NULL; l++) {
		unsigned long long predecessor, successor;
		cr_assert_eq(sscanf(l, " task-dependence predecessor=%llu successor=%llu",
				    &predecessor, &successor),
			     2, "%.80s", l);
		size_t k = 1;
		while (k < tasks && chain[k] != successor)
			k++;
		cr_expect(k < tasks && chain[k - 1] == predecessor,
			  "task %llu after task %llu: not the chain's order", successor,
			  predecessor);
		dependences++;
	}
	/* one per task whose predecessor had not ended at its spawn: all but the first, less any
	 * whose 5 ms predecessor ended while the spawning thread was kept off the CPU */
	cr_expect(dependences >= 1 && dependences <= 19, "%zu dependences:\n%s", dependences,
		  run.trace);
	size_t syncs[4] = {0, 0, 0, 0};
	for (const char *l = run.trace; (l = strstr(l, " task-poll-end task=")) != NULL; l++) {
		unsigned long long task;
		unsigned done, sync;
		cr_assert_eq(
			sscanf(l, " task-poll-end task=%llu done=%u sync=%u", &task, &done, &sync),
			3, "%.80s", l);
		cr_assert_lt(sync, 4, "%.80s", l);
		syncs[sync]++;
	}
	cr_expect_gt(syncs[1], 0, "no barrier's poll-end:\n%s", run.trace);
	free(trace);
	tp_run_free(&run);
}

/* The most PARKED_MS and SPIN_MS of a worker in workers.bt's report on omp_idle_worker. */
static void idle_worker_report(const char *blocktime, long long *parked_max, long long *spin_max)
{
	char setting[64];
	snprintf(setting, sizeof setting, "KMP_BLOCKTIME=%s", blocktime);
	const char *argv[] = {omp_target("omp_idle_worker"), NULL};
	const char *env[] = {setting, NULL};
	const char *every_minute[] = {"60", NULL};
	struct tp_run run;
	tp_run_script("workers.bt", every_minute, argv, env, &run);
	cr_expect_eq(run.status, 0);
	*parked_max = *spin_max = -1;
	for (const char *l = strstr(run.trace, "BUSY_MS"); l != NULL; l = strchr(l + 1, '\n')) {
		long long figures[4];
		if (!worker_row(l + 1, figures))
			continue;
		long long spin = figures[2], parked = figures[3];
		*parked_max = parked > *parked_max ? parked : *parked_max;
		*spin_max = spin > *spin_max ? spin : *spin_max;
	}
	tp_run_free(&run);
}

Test(scripts, workers_bt_counts_a_worker_parked_only_while_it_is_blocked_in_a_wait, .timeout = 120)
{
	long long parked, spin;
	/* the idle worker's 200 ms in the barrier: asleep at once ... */
	idle_worker_report("0", &parked, &spin);
	cr_expect_geq(parked, 180, "parked %lld ms", parked);
	/* ... or spinning throughout */
	idle_worker_report("infinite", &parked, &spin);
	cr_expect_eq(parked, 0);
	cr_expect_geq(spin, 180, "spin %lld ms", spin);
}

/* sync.bt: each construct's waits by site and kind, and each exclusion's holds, exactly. */
Test(scripts, sync_bt_counts_waits_and_holds_by_construct_site, .timeout = 120)
{
	const char *argv[] = {
		tp_require_program(tp_target("omp_exclusion"), "clang and libomp-dev"), NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	tp_run_script("sync.bt", NULL, argv, env, &run);
	cr_expect_eq(run.status, 0);
	cr_expect_str_eq(run.out, "threads 2 sum 190 ordered 14757 locked 12 control -2 -2\n");
	/* 20 critical sections, 10 ordered ones, 10 lock holds, one nested lock, one test */
	static const struct {
		const char *marker, *kind;
		long long holds;
	} sections[] = {
		{"#pragma omp critical", "critical", 20},
		{"#pragma omp ordered", "ordered", 10},
		{"omp_set_lock(&lock)", "lock", 10},
		{"omp_set_nest_lock", "nest lock", 1},
		{"omp_test_lock", "lock", 1},
	};
	char key[160];
	for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
		const char *site = tp_source_site("omp_exclusion.c", "int main(",
						  sections[i].marker);
		snprintf(key, sizeof key, "@holds[%s, %s]", site, sections[i].kind);
		cr_expect_eq(tp_map_value(run.trace, key), sections[i].holds, "%s:\n%s", key,
			     run.trace);
		/* every acquire waits to enter (a nested lock set twice: twice at its first line) */
		snprintf(key, sizeof key, "@waits[%s, mutex]", site);
		cr_expect_eq(tp_map_value(run.trace, key), sections[i].holds, "%s:\n%s", key,
			     run.trace);
	}
	/* three worksharing loops: each thread waits once at each one's implicit barrier */
	const char *loop = tp_source_site("omp_exclusion.c", "int main(",
					  "#pragma omp parallel for");
	snprintf(key, sizeof key, "@waits[%s, barrier]", loop);
	cr_expect_eq(tp_map_value(run.trace, key), 2, "%s:\n%s", key, run.trace);
	tp_run_free(&run);
}

/* The sum of the values of the map lines that start with `prefix` ("@map[KEY]: N"). */
static long long map_sum(const char *trace, const char *prefix)
{
	long long sum = 0;
	for (const char *l = trace; l != NULL; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *value = strncmp(l, prefix, strlen(prefix)) == 0 ? strstr(l, "]: ")
									    : NULL;
		if (value != NULL && value < strchrnul(l, '\n'))
			sum += strtoll(value + 3, NULL, 10);
	}
	return sum;
}

/*
 * mpi.bt on a rank of its own (MPI's singleton: no launcher): mpi_ranks's `pairs` makes one
 * barrier on MPI_COMM_WORLD, four on a communicator of its own (both of one rank here) and one
 * reduction there; each is a wait at its site and a collective of a communicator of 1 rank.
 */
Test(scripts, mpi_bt_times_calls_by_site_and_counts_collectives_by_communicator_size,
     .timeout = 120)
{
	struct tp_run run;
	const char *argv[] = {
		tp_require_program(tp_target("mpi_ranks"), "openmpi-bin and libopenmpi-dev"),
		"pairs", NULL};
	tp_run_script("mpi.bt", NULL, argv, NULL, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "pairs over 1 ranks: 1\n");
	cr_expect(strstr(run.trace, "rank 0 of 1 on ") != NULL, "%s", run.trace);
	cr_expect_eq(map_sum(run.trace, "@mpi_calls[MPI_Barrier, pairs (mpi_ranks.c:"), 5, "%s",
		     run.trace);
	cr_expect_eq(lines_starting(run.trace, "@mpi_calls[MPI_Barrier, pairs (mpi_ranks.c:"), 3,
		     "three barriers' sites: %s", run.trace);
	cr_expect_eq(map_sum(run.trace, "@mpi_calls[MPI_Allreduce, pairs (mpi_ranks.c:"), 1, "%s",
		     run.trace);
	cr_expect_eq(map_sum(run.trace, "@collectives[MPI_Barrier, 1]"), 5, "%s", run.trace);
	cr_expect_eq(map_sum(run.trace, "@collectives[MPI_Allreduce, 1]"), 1, "%s", run.trace);
	cr_expect_eq(lines_starting(run.trace, "@collectives["), 2, "%s", run.trace);
	tp_run_free(&run);
	/* `overlap`: a barrier, then a nonblocking broadcast, counted once (at its start, not
	 * again in the MPI_Wait that completes it) */
	argv[1] = "overlap";
	tp_run_script("mpi.bt", NULL, argv, NULL, &run);
	cr_expect_str_eq(run.out, "overlap over 1 ranks: 7\n");
	cr_expect_eq(map_sum(run.trace, "@mpi_calls[MPI_Wait, overlap (mpi_ranks.c:"), 1, "%s",
		     run.trace);
	cr_expect_eq(map_sum(run.trace, "@collectives[MPI_Ibcast, 1]"), 1, "%s", run.trace);
	cr_expect_eq(lines_starting(run.trace, "@collectives["), 2, "%s", run.trace);
	tp_run_free(&run);
}
