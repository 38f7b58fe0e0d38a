// SPDX-License-Identifier: MIT
/*
 * The shipped D scripts against the provider file: DTrace is not run here, so every probe a D
 * script names must exist in dtrace/taskprobe.d and every argN it reads must be an argument
 * of each probe of its clause.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

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

Test(scripts, every_d_script_names_provider_probes_and_their_arguments_only)
{
	struct provider_probe probes[32];
	size_t n_probes = read_provider(probes, 32);
	cr_assert_eq(n_probes, 13, "the provider has %zu probes", n_probes);

	DIR *dir = opendir(TP_SCRIPTS_DIR);
	cr_assert_not_null(dir);
	size_t scripts = 0;
	struct dirent *entry;
	while ((entry = readdir(dir)) != NULL) {
		size_t len = strlen(entry->d_name);
		if (len < 3 || strcmp(entry->d_name + len - 2, ".d") != 0 ||
		    strcmp(entry->d_name, "taskprobe.d") == 0)
			continue;
		scripts++;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", TP_SCRIPTS_DIR, entry->d_name);
		char *text = tp_read_file(path, NULL);
		strip_comments(text);
		size_t clauses = 0;
		/* a clause: one or more "taskprobe<pid>:::name" specs, a predicate, a { body } */
		for (char *p = text; (p = strstr(p, "taskprobe")) != NULL;) {
			int max_args = 64;
			char *q = p;
			while (strncmp(q, "taskprobe", 9) == 0) {
				char *colons = strstr(q, ":::");
				cr_assert_not_null(colons, "%s: a taskprobe probe without :::", entry->d_name);
				char name[48] = "";
				sscanf(colons + 3, "%47[a-z-]", name);
				const struct provider_probe *found = NULL;
				for (size_t i = 0; i < n_probes; i++)
					if (strcmp(probes[i].name, name) == 0)
						found = &probes[i];
				cr_expect_not_null(found, "%s: probe %s is not in the provider", entry->d_name,
						   name);
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
				if (strncmp(a, "arg", 3) == 0 && (a == p || !isalnum((unsigned char)a[-1])) &&
				    sscanf(a + 3, "%d", &index) == 1)
					cr_expect_lt(index, max_args, "%s: arg%d read by a clause whose probes have %d",
						     entry->d_name, index, max_args);
			}
			clauses++;
			p = c;
		}
		cr_expect_gt(clauses, 0, "%s names no taskprobe probe", entry->d_name);
		free(text);
	}
	closedir(dir);
	cr_expect_gt(scripts, 0, "no D scripts in %s", TP_SCRIPTS_DIR);
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
			twin_suffix = ".d";
		} else if (len > 2 && strcmp(name + len - 2, ".d") == 0 && strcmp(name, "taskprobe.d") != 0) {
			stem = len - 2;
			twin_suffix = ".bt.in";
		}
		if (twin_suffix == NULL)
			continue;
		char twin[4096];
		snprintf(twin, sizeof twin, "%s/%.*s%s", TP_SCRIPTS_DIR, (int)stem, name, twin_suffix);
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
 * The id of omp_latency's spawn site whose line ("stack N: FUNCTION <- ...") names `function`
 * first. bpftrace 0.17 symbolizes when it prints, so a site it prints after the target exited
 * shows as an address (README, "Scripts"); that address is looked up in the target's symbols.
 */
static unsigned long long site_named(const char *trace, const char *function)
{
	for (const char *l = trace; (l = strstr(l, "stack ")) != NULL; l++) {
		unsigned long long id, pc;
		char name[64];
		if ((l == trace || l[-1] == '\n') && sscanf(l, "stack %llu: %63s", &id, name) == 2 &&
		    (strcmp(name, function) == 0 ||
		     (sscanf(name, "0x%llx", &pc) == 1 &&
		      strcmp(tp_symbol_at(tp_target("omp_latency"), pc), function) == 0)))
			return id;
	}
	cr_assert_fail("no spawn site line names %s:\n%s", function, trace);
	return 0;
}

/* The value bpftrace printed for `key` ("@tasks[123]"), or -1 when it printed none. */
static long long map_value(const char *trace, const char *key)
{
	size_t len = strlen(key);
	for (const char *l = trace; l != NULL; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, key, len) == 0 && strncmp(l + len, ": ", 2) == 0)
			return strtoll(l + len + 2, NULL, 10);
	return -1;
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

/* The last line that starts with `prefix` (bpftrace prints a map's largest value last). */
static const char *last_line(const char *trace, const char *prefix)
{
	const char *last = NULL;
	for (const char *l = trace; l != NULL; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, prefix, strlen(prefix)) == 0)
			last = l;
	cr_assert_not_null(last, "no line starts with %s:\n%s", prefix, trace);
	return last;
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
	unsigned long long quick = site_named(run.trace, "spawn_quick"),
			   slow = site_named(run.trace, "spawn_slow");
	char key[64];
	cr_expect_geq(hist_total(run.trace, "@poll_us"), 22, "%s", run.trace);
	snprintf(key, sizeof key, "@poll_us_by_stack[%llu]", quick);
	cr_expect_eq(hist_total(run.trace, key), 20, "%s", run.trace);
	snprintf(key, sizeof key, "@poll_us_by_stack[%llu]", slow);
	cr_expect_eq(hist_total(run.trace, key), 1, "%s", run.trace);
	/* the slowest poll (printed last) is the 60 ms one, with its site */
	unsigned long long task, stack, us;
	const char *top = last_line(run.trace, "@slowest_polls_us[");
	cr_assert_eq(sscanf(top, "@slowest_polls_us[%llu, %llu]: %llu", &task, &stack, &us), 3, "%s", top);
	cr_expect_eq(stack, slow, "%s", run.trace);
	cr_expect(us >= 60000 && us < 10000000, "%llu us", us);
	cr_expect_gt(task, 0);
	tp_run_free(&run);
}

Test(scripts, lifetimes_bt_counts_tasks_and_active_time_per_site, .timeout = 120)
{
	struct tp_run run;
	run_on_omp_latency("lifetimes.bt", NULL, &run);
	const char *sites[] = {"spawn_quick", "spawn_slow", "spawn_blocking"};
	const long long tasks[] = {20, 1, 1}, least_active_ms[] = {0, 60, 40};
	for (size_t i = 0; i < 3; i++) {
		unsigned long long id = site_named(run.trace, sites[i]);
		char key[64];
		snprintf(key, sizeof key, "@tasks[%llu]", id);
		cr_expect_eq(map_value(run.trace, key), tasks[i], "%s: %s", sites[i], run.trace);
		snprintf(key, sizeof key, "@lifetime_us[%llu]", id);
		cr_expect_eq(hist_total(run.trace, key), tasks[i], "%s: %s", sites[i], run.trace);
		snprintf(key, sizeof key, "@active_us[%llu]", id);
		cr_expect_eq(hist_total(run.trace, key), tasks[i], "%s: %s", sites[i], run.trace);
		snprintf(key, sizeof key, "@active_total_ms[%llu]", id);
		cr_expect_geq(map_value(run.trace, key), least_active_ms[i], "%s: %s", sites[i], run.trace);
	}
	tp_run_free(&run);
}

Test(scripts, wake_delay_bt_times_every_task_from_wake_to_first_poll, .timeout = 120)
{
	struct tp_run run;
	run_on_omp_latency("wake_delay.bt", NULL, &run);
	/* 22 explicit tasks, 2 implicit ones, the initial task: each woken once, then polled */
	cr_expect_eq(hist_total(run.trace, "@wake_to_poll_us"), 25, "%s", run.trace);
	char key[64];
	snprintf(key, sizeof key, "@longest_wait_us[%llu]", site_named(run.trace, "spawn_quick"));
	cr_expect_geq(map_value(run.trace, key), 0, "%s", run.trace);
	tp_run_free(&run);
}

Test(scripts, blocking_bt_names_the_task_that_blocks_its_worker, .timeout = 120)
{
	struct tp_run run;
	run_on_omp_latency("blocking.bt", NULL, &run);
	unsigned long long blocking = site_named(run.trace, "spawn_blocking");
	/* one task waits inside its poll: the one blocked in poll() */
	cr_expect_eq(lines_starting(run.trace, "@blocking_tasks_us["), 1, "%s", run.trace);
	unsigned long long task, stack, us;
	char kind[16];
	const char *line = last_line(run.trace, "@blocking_tasks_us[");
	cr_assert_eq(sscanf(line, "@blocking_tasks_us[%llu, %llu, %15[a-z]]: %llu", &task, &stack, kind, &us),
		     4, "%s", line);
	cr_expect_eq(stack, blocking);
	cr_expect_str_eq(kind, "poll");
	cr_expect(us >= 40000 && us < 10000000, "%llu us", us);
	cr_expect_eq(hist_total(run.trace, "@blocked_us[poll]"), 1, "%s", run.trace);
	char key[64];
	snprintf(key, sizeof key, "@blocked_us_by_stack[%llu, poll]", blocking);
	cr_expect_eq(map_value(run.trace, key), (long long)us, "%s", run.trace);
	tp_run_free(&run);
}

Test(scripts, workers_bt_reports_each_worker_with_the_busy_time_of_its_tasks, .timeout = 120)
{
	struct tp_run run;
	const char *every_second[] = {"1", NULL};
	run_on_omp_latency("workers.bt", every_second, &run);
	/* the report made when the process ended: a line per worker (OMP_NUM_THREADS=2) */
	size_t workers = 0;
	long long busy_sum = 0, busy_max = 0;
	for (const char *l = strstr(run.trace, "BUSY_MS"); l != NULL; l = strchr(l + 1, '\n')) {
		char name[32];
		long long tid, busy, spin, parked;
		if (sscanf(l + 1, "%*d:%*d:%*d %31s %lld %lld %lld %lld", name, &tid, &busy, &spin,
			   &parked) != 5)
			continue;
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

Test(scripts, spawn_stacks_bt_prints_each_stack_symbolized_and_counts_tasks, .timeout = 120)
{
	/* the target lingers 200 ms after its tasks: time to symbolize while it runs */
	const char *argv[] = {omp_target("omp_spawn_sites"), "200", NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	tp_run_script("spawn_stacks.bt", NULL, argv, env, &run);
	cr_expect_str_eq(run.out, "counter 35\n");

	/* two stacks, each printed once with its frames in order, and their task counts */
	cr_expect_eq(lines_starting(run.trace, "stack "), 2, "%s", run.trace);
	cr_expect(strstr(run.trace, "    spawn_leaf\n    via_alpha\n") != NULL, "%s", run.trace);
	cr_expect(strstr(run.trace, "    spawn_leaf\n    via_beta\n") != NULL, "%s", run.trace);
	cr_expect_eq(lines_starting(run.trace, "@tasks_by_stack["), 2, "%s", run.trace);
	cr_expect(strstr(run.trace, "]: 5\n") != NULL && strstr(run.trace, "]: 3\n") != NULL,
		  "5 tasks from one stack, 3 from the other: %s\nbpftrace said: %s", run.trace,
		  run.trace_errors);
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
	size_t spawns = 0, terminates = 0, explicit_spawns = 0;
	for (const char *l = run.trace; (l = strstr(l, " task-spawn task=")) != NULL; l++) {
		unsigned long long task, parent, stack;
		unsigned depth, executor;
		cr_assert_eq(sscanf(l, " task-spawn task=%llu parent=%llu stack=%llu depth=%u executor=%u",
				    &task, &parent, &stack, &depth, &executor), 5, "%.80s", l);
		cr_expect_eq(executor, 1);
		explicit_spawns += depth > 0;
		spawns++;
	}
	for (const char *l = run.trace; (l = strstr(l, " task-terminate task=")) != NULL; l++)
		terminates++;
	cr_expect_eq(spawns, 11, "%s", run.trace);
	cr_expect_eq(explicit_spawns, 8);
	/*
	 * 8 explicit tasks and both implicit ones end before the process does; the initial task at
	 * exit, which may come after the script saw the main thread exit.
	 */
	cr_expect(terminates >= 10 && terminates <= 11, "%zu terminates", terminates);
	cr_expect(strstr(run.trace, " thread-start tid=") != NULL && strstr(run.trace, " routine=0x") != NULL,
		  "libomp's worker thread: %s", run.trace);
	cr_expect(strstr(run.trace, " worker-thread-start\n") != NULL, "%s", run.trace);
	tp_run_free(&run);
}
