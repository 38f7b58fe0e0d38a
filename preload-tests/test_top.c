// SPDX-License-Identifier: MIT
/*
 * taskprobe top: the live console, driven in a terminal (tmux) as a person uses it, and its
 * plain-text snapshots, on omp_top_shapes (three task constructs of known shapes: tasks that
 * sleep 20 ms, a task blocking its worker on a semaphore for 30 ms, short tasks).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "harness_internal.h"
#include "taskprobe_live.h"
#include "taskprobe_recording.h"

#define SLEEPY_TASKS 3 /* omp_top_shapes.c's, a round */
#define QUICK_TASKS  200
#define SLEEP_MS     20
#define BLOCK_MS     30
#define SCREEN_WAIT  20000 /* ms: a loaded machine starts slowly */
/* Sites with a row of their own: rows 1 to TP_LIVE_OVERFLOW - 1 */
#define TP_LIVE_ROWS_NAMED (TP_LIVE_OVERFLOW - 1)

/* A site's row of the sites table (a screen or a snapshot). */
struct site_row {
	bool found;
	unsigned long spawned, alive, done, polls;
	double busy_ms, delay50_ms, delay99_ms, longest_ms;
	char warnings[256];
};

/* Milliseconds of a duration as the console prints it ("24.0ms", "850ns", "1.20s"). */
static double ms_of(const char *text)
{
	char *unit;
	double v = strtod(text, &unit);
	if (strcmp(unit, "ns") == 0)
		return v / 1e6;
	if (strcmp(unit, "us") == 0)
		return v / 1e3;
	if (strcmp(unit, "s") == 0)
		return v * 1e3;
	return v;
}

/* The row of the site whose text holds `place` ("(omp_top_shapes.c:55)"). */
static struct site_row site_row(const char *screen, const char *place)
{
	struct site_row r = {0};
	const char *at = strstr(screen, place);
	if (at == NULL)
		return r;
	const char *line_end = strchr(at, '\n');
	size_t len = line_end != NULL ? (size_t)(line_end - at) : strlen(at);
	char *line = strndup(at + strlen(place), len - strlen(place));
	char busy[16], d50[16], d99[16], idle[16], longest[16], span[16], on_path[16], spawn[16];
	int used = 0;
	if (sscanf(line, "%lu %lu %lu %lu %15s %15s %15s %15s %15s %15s %15s %15s %n", &r.spawned,
		   &r.alive, &r.done, &r.polls, busy, d50, d99, idle, longest, span, on_path, spawn,
		   &used) >= 12) {
		r.found = true;
		r.busy_ms = ms_of(busy);
		r.delay50_ms = ms_of(d50);
		r.delay99_ms = ms_of(d99);
		r.longest_ms = ms_of(longest);
		snprintf(r.warnings, sizeof r.warnings, "%s", line + used);
	}
	free(line);
	return r;
}

/* "(omp_top_shapes.c:L)" for the task construct after `before` in the target's source. */
static const char *place_of(const char *before)
{
	static char places[4][64];
	static unsigned next;
	char *p = places[next++ % 4];
	snprintf(p, sizeof places[0], "(omp_top_shapes.c:%d)",
		 tp_source_line("omp_top_shapes.c", before, "#pragma omp task"));
	return p;
}

/* "(omp_top_shapes.c:L)" for the line of the blocker's sem_wait. */
static const char *wait_place(void)
{
	return strchr(tp_source_site("omp_top_shapes.c", "static void blocker(", "sem_wait(gate)"),
		      '(');
}

#define SLEEPY_SITE  place_of("i < SLEEPY_TASKS; i++")
#define BLOCKER_SITE place_of("r < rounds; r++")
/* where the blocker's task waits: "(omp_top_shapes.c:L)" of its sem_wait */
#define WAIT_PLACE wait_place()
#define QUICK_SITE place_of("i < QUICK_TASKS; i++")

static const char *target(void)
{
	return tp_unprivileged_copy(tp_target("omp_top_shapes"));
}

/* The console in a terminal on `rounds` rounds of omp_top_shapes, as nobody (with root). */
static void start_console(struct tp_terminal *t, const char *options, unsigned rounds,
			  const char *term, unsigned columns, unsigned lines)
{
	char *command;
	cr_assert(asprintf(&command, "cd /tmp && TERM=%s %s top %s -- %s %u", term,
			   tp_unprivileged_launcher(), options, target(), rounds) > 0);
	tp_terminal_start(t, command, columns, lines, true);
	free(command);
}

/* What omp_top_shapes prints after `rounds` rounds, run plainly. */
static char *plain_output(unsigned rounds)
{
	char arg[16];
	snprintf(arg, sizeof arg, "%u", rounds);
	struct tp_run plain;
	tp_run(TP_PLAIN, (const char *[]){tp_target("omp_top_shapes"), arg, NULL}, NULL, &plain);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	char *out = strdup(plain.out);
	tp_run_free(&plain);
	out[strcspn(out, "\n")] = '\0';
	return out;
}

Test(top, an_unprivileged_user_sees_live_which_site_is_slow_which_blocks_and_how_busy_workers_are)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	const unsigned rounds = 80; /* about 5 s */
	struct tp_terminal t;
	start_console(&t, "--interval 0.2", rounds, "screen", 200, 40);
	char *screen = tp_terminal_wait_for(&t, SLEEPY_SITE, SCREEN_WAIT);
	cr_expect(strstr(screen, "running") != NULL, "%s", screen);
	free(screen);
	/* figures while it runs: the sleeping tasks' polls take 20 ms and are flagged */
	tp_sleep_ms(1000);
	screen = tp_terminal_screen(&t, false);
	struct site_row sleepy = site_row(screen, SLEEPY_SITE);
	cr_assert(sleepy.found, "%s", screen);
	cr_expect(sleepy.spawned > 0 && sleepy.spawned < SLEEPY_TASKS * rounds, "%s", screen);
	/* near 20 ms: a loaded machine may wake a sleeper late, never early */
	cr_expect(sleepy.longest_ms >= SLEEP_MS - 0.5 && sleepy.longest_ms < 10 * SLEEP_MS, "%s",
		  screen);
	cr_expect(strstr(sleepy.warnings, "long ") != NULL, "%s", screen);
	struct site_row blocker = site_row(screen, BLOCKER_SITE);
	cr_expect(strstr(blocker.warnings, "blocks ") != NULL, "%s", screen);
	struct site_row quick = site_row(screen, QUICK_SITE);
	/* short tasks that never wait (one may be preempted long on a loaded machine) */
	cr_expect(quick.found && strstr(quick.warnings, "blocks") == NULL &&
			  quick.longest_ms < sleepy.longest_ms,
		  "%s", screen);
	/* a worker is busy, and the blocked worker is seen in its semaphore wait */
	cr_expect(strstr(screen, "TID") != NULL && strstr(screen, "BUSY") != NULL, "%s", screen);
	bool blocked_seen = false;
	for (int look = 0; look < 40 && !blocked_seen; look++) {
		free(screen);
		tp_sleep_ms(100);
		screen = tp_terminal_screen(&t, false);
		/* the wait at its call site, the program's line */
		blocked_seen = strstr(screen, "in a semaphore wait at ") != NULL &&
			       strstr(screen, WAIT_PLACE) != NULL &&
			       strstr(screen, "(blocking its worker)") != NULL;
	}
	cr_expect(blocked_seen, "no worker shown in its semaphore wait at %s:\n%s", WAIT_PLACE,
		  screen);
	/* the figures move on, refresh after refresh */
	struct site_row later = site_row(screen, SLEEPY_SITE);
	for (int look = 0; look < 50 && later.spawned <= sleepy.spawned; look++) {
		free(screen);
		tp_sleep_ms(100);
		screen = tp_terminal_screen(&t, false);
		later = site_row(screen, SLEEPY_SITE);
	}
	cr_expect(later.spawned > sleepy.spawned, "%lu then %lu:\n%s", sleepy.spawned,
		  later.spawned, screen);
	free(screen);
	/* q quits; the program runs on to its end, with its output as a plain run's */
	tp_terminal_keys(&t, "q");
	screen = tp_terminal_wait_for(&t, "[exit ", 60000);
	char *expected = plain_output(rounds);
	cr_expect(strstr(screen, expected) != NULL, "expected \"%s\":\n%s", expected, screen);
	cr_expect(strstr(screen, "[exit 0]") != NULL, "%s", screen);
	free(expected);
	free(screen);
	tp_terminal_stop(&t);
}

Test(top, keys_sort_select_a_site_show_its_histograms_and_stacks_and_survive_a_resize_to_80_columns)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	struct tp_terminal t;
	/* by site, ascending: "(no site...)", then the constructs in line order */
	start_console(&t, "--sort site --reverse", 200, "screen", 200, 45);
	free(tp_terminal_wait_for(&t, QUICK_SITE, SCREEN_WAIT));
	char *screen = tp_terminal_wait_for(&t, "sorted by site, ascending", SCREEN_WAIT);
	free(screen);
	/* the parallel construct's, the blocker's, then the sleepy tasks' site (all in main) */
	tp_terminal_keys(&t, "Down Down Down Enter");
	/* 20 ms polls (once the first has ended, at a refresh): the bucket from 2^24 ns */
	screen = tp_terminal_wait_for(&t, " 16.8ms ..  33.6ms  #", 5000);
	cr_expect(strstr(screen, SLEEPY_SITE) != NULL && strstr(screen, "POLL TIME") != NULL, "%s",
		  screen);
	cr_expect(strstr(screen, "SCHEDULING DELAY") != NULL, "%s", screen);
	free(screen);
	/* its spawn stacks, below the histograms, innermost frame the construct */
	tp_terminal_keys(&t, "Down Down Down Down Down Down Down Down Down Down Down Down");
	screen = tp_terminal_wait_for(&t, "SPAWN STACKS", 5000);
	char *stack = strstr(screen, "samples:");
	cr_expect(stack != NULL && strstr(stack, SLEEPY_SITE) != NULL, "%s", screen);
	free(screen);
	/* back, and another sort column */
	tp_terminal_keys(&t, "Escape");
	free(tp_terminal_wait_for(&t, "SPAWNED", 5000));
	tp_terminal_keys(&t, ">");
	free(tp_terminal_wait_for(&t, "sorted by spawned, ascending", 5000));
	tp_terminal_keys(&t, "r");
	screen = tp_terminal_wait_for(&t, "sorted by spawned, descending", 5000);
	/* the quick tasks' site spawns most: first */
	char *header = strstr(screen, "SITE ");
	cr_assert_not_null(header, "%s", screen);
	char *first = strchr(header, '\n') + 1;
	char *quick_at = strstr(screen, QUICK_SITE);
	cr_expect(quick_at != NULL && quick_at < strchr(first, '\n'), "%s", screen);
	free(screen);
	/*
	 * An 80-column terminal: lines fit, the footer stays at the bottom, and the columns that
	 * matter least are left out so that a site's "function (file:line)" and its warnings
	 * stay readable.
	 */
	const unsigned columns = 80, rows = 24;
	tp_terminal_resize(&t, columns, rows);
	tp_sleep_ms(600);
	/* the sleepy site's warnings, and a thread polling a task at a whole file:line */
	char *sleepy_row = NULL;
	bool polling_place = false;
	for (int look = 0; look < 50 && (sleepy_row == NULL || !polling_place); look++) {
		if (look > 0)
			free(screen), tp_sleep_ms(200);
		screen = tp_terminal_screen(&t, false);
		char *at = strstr(screen, SLEEPY_SITE);
		char *end = at != NULL ? strchr(at, '\n') : NULL;
		if (sleepy_row == NULL && end != NULL &&
		    memmem(at, (size_t)(end - at), "long ", 5) != NULL)
			sleepy_row = strndup(at, (size_t)(end - at));
		const char *threads = strstr(screen, "\nTID ");
		const char *polling = threads != NULL ? strstr(threads, "  polling ") : NULL;
		const char *polling_end = polling != NULL ? strchr(polling, '\n') : NULL;
		polling_place = polling_place ||
				(polling_end != NULL &&
				 memmem(polling, (size_t)(polling_end - polling),
					"(omp_top_shapes.c:", strlen("(omp_top_shapes.c:")) !=
					 NULL &&
				 memmem(polling, (size_t)(polling_end - polling), ") for ", 6) !=
					 NULL);
	}
	cr_assert_not_null(sleepy_row, "no warning on the sleepy site's row in %u columns",
			   columns);
	cr_expect(polling_place, "no thread polling a task at a file:line in %u columns:\n%s",
		  columns, screen);
	unsigned lines = 0;
	for (char *line = screen; *line != '\0'; lines++) {
		char *end = strchr(line, '\n');
		size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
		cr_expect(len <= columns, "a line of %zu columns:\n%s", len, screen);
		line = end != NULL ? end + 1 : line + len;
	}
	cr_expect_eq(lines, rows, "%s", screen);
	cr_expect(strstr(screen, "SPAWNED") != NULL && strstr(screen, "LONGEST") != NULL &&
			  strstr(screen, "WARNINGS") != NULL && strstr(screen, "IDLE") == NULL &&
			  strstr(screen, "q quit") != NULL,
		  "%s", screen);
	free(sleepy_row);
	free(screen);
	tp_terminal_keys(&t, "q");
	free(tp_terminal_wait_for(&t, "[exit 0]", 60000));
	tp_terminal_stop(&t);
}

Test(top, colours_degrade_to_attributes_and_a_dumb_terminal_gets_plain_snapshots)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	static const struct {
		const char *term;
		bool colours;
	} terminals[] = {{"screen", true}, {"vt100", false}};
	for (size_t i = 0; i < sizeof terminals / sizeof terminals[0]; i++) {
		struct tp_terminal t;
		start_console(&t, "", 40, terminals[i].term, 200, 40);
		free(tp_terminal_wait_for(&t, SLEEPY_SITE, SCREEN_WAIT));
		char *screen = tp_terminal_screen(&t, true);
		/* the title bar: black on cyan with colours, reverse video without */
		bool cyan = strstr(screen, "46m") != NULL;
		bool reverse = strstr(screen, "\033[7m") != NULL;
		cr_expect(terminals[i].colours ? cyan : (!cyan && reverse), "TERM=%s:\n%s",
			  terminals[i].term, screen);
		free(screen);
		tp_terminal_keys(&t, "q");
		free(tp_terminal_wait_for(&t, "[exit 0]", 60000));
		tp_terminal_stop(&t);
	}
	struct tp_terminal t;
	start_console(&t, "--interval 0.3", 20, "dumb", 200, 60);
	free(tp_terminal_wait_for(&t, "[exit 0]", 60000));
	char *screen = tp_terminal_history(&t);
	cr_expect(strstr(screen, "cannot draw a full-screen view (TERM=dumb)") != NULL, "%s",
		  screen);
	/* the last snapshot, once it exited: every task counted */
	const char *last = strstr(screen, "exited after");
	cr_assert_not_null(last, "%s", screen);
	last = strstr(last, "SITE");
	struct site_row sleepy = site_row(last, SLEEPY_SITE);
	cr_expect(sleepy.found && sleepy.spawned == SLEEPY_TASKS * 20u, "%s", screen);
	free(screen);
	tp_terminal_stop(&t);
}

/* `taskprobe top --once [--long-poll MS] -- PROGRAM`: the program as usual, then its figures (on
 * stderr). */
static void once(const char *long_poll, unsigned rounds, struct tp_run *run)
{
	char arg[16];
	snprintf(arg, sizeof arg, "%u", rounds);
	const char *args[8];
	size_t n = 0;
	args[n++] = "top";
	args[n++] = "--once";
	if (long_poll != NULL) {
		args[n++] = "--long-poll";
		args[n++] = long_poll;
	}
	args[n++] = "--";
	args[n++] = target();
	args[n++] = arg;
	args[n] = NULL;
	tp_launch_unprivileged(args, NULL, run);
}

Test(top, once_prints_exact_figures_when_the_program_ends)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	const unsigned rounds = 4;
	struct tp_run run;
	once(NULL, rounds, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	char *expected = plain_output(rounds);
	cr_expect(strncmp(run.out, expected, strlen(expected)) == 0, "%s", run.out);
	cr_expect(strstr(run.err, "exited after") != NULL, "%s", run.err);
	struct site_row sleepy = site_row(run.err, SLEEPY_SITE);
	struct site_row blocker = site_row(run.err, BLOCKER_SITE);
	struct site_row quick = site_row(run.err, QUICK_SITE);
	/* each sleepy task: one poll, at least 20 ms, long */
	cr_expect(sleepy.found && sleepy.spawned == SLEEPY_TASKS * rounds &&
			  sleepy.done == sleepy.spawned && sleepy.alive == 0 &&
			  sleepy.polls == sleepy.spawned,
		  "%s", run.err);
	char want[64];
	snprintf(want, sizeof want, "long %u", SLEEPY_TASKS * rounds);
	cr_expect_str_eq(sleepy.warnings, want, "%s", run.err);
	cr_expect(sleepy.busy_ms >= SLEEPY_TASKS * rounds * (SLEEP_MS - 0.5), "%s", run.err);
	/*
	 * the blocker: one a round, each waiting once in its poll (usually 30 ms, until the post:
	 * long; shorter when a loaded machine runs it only after the post)
	 */
	snprintf(want, sizeof want, "blocks %u", rounds);
	cr_expect(blocker.found && blocker.spawned == rounds && blocker.done == rounds &&
			  strstr(blocker.warnings, want) != NULL,
		  "%s", run.err);
	cr_expect(quick.found && quick.spawned == QUICK_TASKS * rounds &&
			  quick.done == quick.spawned && strstr(quick.warnings, "blocks") == NULL,
		  "%s", run.err);
	tp_run_free(&run);

	/* a higher threshold: 20 and 30 ms polls are no longer long */
	once("1000", rounds, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.err, "long poll >= 1.00s") != NULL, "%s", run.err);
	cr_expect_str_eq(site_row(run.err, SLEEPY_SITE).warnings, "", "%s", run.err);
	snprintf(want, sizeof want, "blocks %u", rounds);
	cr_expect_str_eq(site_row(run.err, BLOCKER_SITE).warnings, want, "%s", run.err);
	tp_run_free(&run);
	free(expected);
}

Test(top, attaches_to_a_program_started_by_taskprobe_run_and_says_when_there_is_nothing)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	struct tp_run program;
	tp_start(TP_PLAIN,
		 (const char *[]){TP_CONTRIB_DIR "/taskprobe", "run", "--",
				  tp_target("omp_top_shapes"), "40", NULL},
		 NULL, &program);
	char pid[16];
	snprintf(pid, sizeof pid, "%d", (int)program.pid);
	struct site_row sleepy = {0};
	struct tp_run top = {0};
	for (int attempt = 0; attempt < 100 && sleepy.spawned == 0; attempt++) {
		tp_run_free(&top);
		tp_launch((const char *[]){"top", "--once", pid, NULL}, NULL, &top);
		sleepy = site_row(top.out, SLEEPY_SITE);
		if (sleepy.spawned == 0)
			tp_sleep_ms(100);
	}
	cr_expect(sleepy.spawned > 0 && strstr(top.out, "running") != NULL, "%s%s", top.out,
		  top.err);
	tp_run_free(&top);
	/* the statistics, in the user's own directory while the program runs, go with it */
	char path[PATH_MAX];
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	if (runtime != NULL && runtime[0] == '/')
		snprintf(path, sizeof path, "%s/taskprobe/taskprobe-live.%s", runtime, pid);
	else
		snprintf(path, sizeof path, "/dev/shm/taskprobe-%u/taskprobe-live.%s",
			 (unsigned)geteuid(), pid);
	cr_expect_eq(access(path, F_OK), 0, "%s is not there", path);
	tp_finish(&program);
	cr_expect_eq(program.status, 0, "%s", program.err);
	cr_expect_neq(access(path, F_OK), 0, "%s is left", path);
	tp_run_free(&program);

	/* a process without live statistics: said, status 1 */
	tp_launch((const char *[]){"top", "--once", "1", NULL}, NULL, &top);
	cr_expect_eq(top.status, 1, "%s", top.err);
	cr_expect(strstr(top.err, "no live statistics for pid 1") != NULL, "%s", top.err);
	tp_run_free(&top);
}

/* The threads of one process's statistics, as `taskprobe-top --once` prints them. */
static char *snapshot_of(const char *dir, const char *pid)
{
	struct tp_run top;
	tp_run(TP_PLAIN,
	       (const char *[]){TP_CONTRIB_DIR "/taskprobe-top", "--once", "--dir", dir, pid, NULL},
	       NULL, &top);
	cr_expect_eq(top.status, 0, "%s", top.err);
	char *out = strdup(top.out);
	tp_run_free(&top);
	return out;
}

Test(top, forked_execed_and_spawned_children_keep_statistics_of_their_own)
{
	char dir[] = "/tmp/taskprobe-test-live-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char dir_setting[64];
	snprintf(dir_setting, sizeof dir_setting, "TASKPROBE_LIVE_DIR=%s", dir);
	const char *argv[] = {tp_target("process_tree"), NULL};
	struct tp_run plain, live;
	tp_run(TP_PLAIN, argv, NULL, &plain);
	/* a thread that only waits takes no slot: named workers (their waits park) do */
	tp_run(TP_PRELOADED, argv,
	       (const char *[]){"TASKPROBE_LIVE=keep", dir_setting,
				"TASKPROBE_WORKERS=process_tree", NULL},
	       &live);
	cr_expect_eq(live.status, plain.status);
	cr_expect_str_eq(live.out, plain.out);
	static const char *const roles[] = {"parent",      "fork-child",  "exec-child",
					    "spawn-child", "vfork-child", "grandchild"};
	char pids[6][16] = {{0}};
	for (size_t k = 0; k < 6; k++) {
		char key[64];
		snprintf(key, sizeof key, "%s ", roles[k]);
		const char *at = strstr(live.err, key);
		cr_assert_not_null(at, "%s did not say its pid: %s", roles[k], live.err);
		sscanf(at + strlen(key), "%15[0-9]", pids[k]);
	}
	/* each process's file holds its own thread (its waits), and no other process's */
	for (size_t k = 0; k < 6; k++) {
		char *out = snapshot_of(dir, pids[k]);
		char own[32];
		snprintf(own, sizeof own, "\n%-8s process_tree", pids[k]);
		cr_expect(strstr(out, own) != NULL, "%s (%s):\n%s", roles[k], pids[k], out);
		for (size_t other = 0; other < 6; other++) {
			snprintf(own, sizeof own, "\n%-8s ", pids[other]);
			cr_expect(other == k || strstr(out, own) == NULL, "%s's file shows %s:\n%s",
				  roles[k], roles[other], out);
		}
		free(out);
	}
	tp_run_free(&plain);
	tp_run_free(&live);
	char *cmd;
	cr_assert(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
	cr_expect_eq(system(cmd), 0);
	free(cmd);
}

Test(top, bad_live_settings_are_said_once_and_the_program_runs_as_ever)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	const char *argv[] = {tp_target("omp_top_shapes"), "1", NULL};
	struct tp_run plain, bad, nowhere;
	tp_run(TP_PLAIN, argv, NULL, &plain);
	tp_run(TP_PRELOADED, argv,
	       (const char *[]){"TASKPROBE_LIVE=yes", "TASKPROBE_LIVE_LONG_POLL_US=0", NULL}, &bad);
	cr_expect_eq(bad.status, plain.status);
	cr_expect_str_eq(bad.out, plain.out);
	cr_expect(strstr(bad.err, "TASKPROBE_LIVE=\"yes\" is not 0, 1 or keep; using 0") != NULL,
		  "%s", bad.err);
	cr_expect(strstr(bad.err, "TASKPROBE_LIVE_LONG_POLL_US=\"0\" is not") != NULL, "%s",
		  bad.err);
	/* a directory it cannot write: said, no statistics, the program unchanged */
	tp_run(TP_PRELOADED, argv,
	       (const char *[]){"TASKPROBE_LIVE=1", "TASKPROBE_LIVE_DIR=/proc/nowhere", NULL},
	       &nowhere);
	cr_expect_eq(nowhere.status, plain.status);
	cr_expect_str_eq(nowhere.out, plain.out);
	cr_expect(strstr(nowhere.err, "taskprobe: live statistics off: cannot make "
				      "/proc/nowhere/taskprobe-live.") != NULL,
		  "%s", nowhere.err);
	tp_run_free(&plain);
	tp_run_free(&bad);
	tp_run_free(&nowhere);
}

Test(top, sites_beyond_the_table_share_one_row_and_every_task_is_counted)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	struct tp_run run;
	tp_launch_unprivileged((const char *[]){"top", "--once", "--",
						tp_unprivileged_copy(tp_target("omp_many_sites")),
						NULL},
			       NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	/* every row named: the parallel construct's site and 125 task constructs' (in the sites'
	 * table: the parallel construct is in the regions' below it too), or 124 and the region's
	 * barrier's, a sync site's row when a thread waits there before the last row is given
	 * (the sync sites' table) */
	unsigned named = 0, syncs = 0;
	const char *regions = strstr(run.err, "\nPARALLEL REGION "),
		   *sync_table = strstr(run.err, "\nSYNC SITE "),
		   *sync_end = sync_table != NULL ? strstr(sync_table + 1, "\n\n") : NULL;
	for (const char *at = run.err;
	     (at = strstr(at, "(omp_many_sites.c:")) != NULL && (regions == NULL || at < regions);
	     at++)
		named++;
	for (const char *at = sync_table;
	     at != NULL && (at = strstr(at, "(omp_many_sites.c:")) != NULL &&
	     (sync_end == NULL || at < sync_end);
	     at++)
		syncs++;
	cr_expect_leq(syncs, 1, "%s", run.err);
	cr_expect_eq(named + syncs, TP_LIVE_ROWS_NAMED, "%s", run.err);
	/* the other constructs' tasks, one each, in the overflow row */
	struct site_row overflow = site_row(run.err, TP_LIVE_OVERFLOW_TEXT);
	cr_expect(overflow.found && overflow.spawned == 130 - (named - 1) &&
			  overflow.done == overflow.spawned,
		  "%s", run.err);
	cr_expect(strstr(run.err, "tasks 133 spawned, 0 alive, 133 done") != NULL, "%s", run.err);
	tp_run_free(&run);
}

Test(top, many_tasks_alive_at_once_are_counted_and_those_beyond_the_table_are_said)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	/*
	 * omp_shapes gate N: N tasks spawned at one construct, all alive until the last is spawned,
	 * and 4 more (the gate's task, two implicit tasks, the initial task). The table of tasks
	 * alive holds 2^18: beyond it, tasks are left out of the figures (spawn and end alike), and
	 * said.
	 */
	const unsigned long table = 1ul << 18, others = 4;
	static const unsigned long gates[] = {100000, 300000};
	for (size_t i = 0; i < sizeof gates / sizeof gates[0]; i++) {
		char n[16];
		snprintf(n, sizeof n, "%lu", gates[i]);
		struct tp_run run;
		tp_launch((const char *[]){"top", "--once", "--", tp_target("omp_shapes"), "gate",
					   n, NULL},
			  NULL, &run);
		cr_assert_eq(run.status, 0, "%s", run.err);
		unsigned long all = gates[i] + others;
		unsigned long counted = all < table ? all : table;
		char place[64], want[128];
		snprintf(place, sizeof place, "(omp_shapes.c:%d)",
			 tp_source_line("omp_shapes.c", "i < n; i++", "#pragma omp task"));
		struct site_row gate = site_row(run.err, place);
		cr_expect(gate.found && gate.spawned == counted - others &&
				  gate.done == gate.spawned && gate.alive == 0,
			  "%s", run.err);
		snprintf(want, sizeof want, "tasks %lu spawned, 0 alive, %lu done", counted,
			 counted);
		cr_expect(strstr(run.err, want) != NULL, "%s", run.err);
		snprintf(want, sizeof want, "%lu tasks (too many alive at once) left out",
			 all - counted);
		cr_expect(all > table ? strstr(run.err, want) != NULL
				      : strstr(run.err, "left out") == NULL,
			  "%s: %s", want, run.err);
		tp_run_free(&run);
	}
}

/* The number before `what` in `text` (0 if it is not there). */
static unsigned long count_before(const char *text, const char *what)
{
	const char *at = strstr(text, what);
	if (at == NULL)
		return 0;
	while (at > text && (at[-1] == ' ' || (at[-1] >= '0' && at[-1] <= '9')))
		at--;
	return strtoul(at, NULL, 10);
}

/* How many rows the threads table in `text` has (the lines after its heading, to a blank one). */
static unsigned long thread_rows(const char *text)
{
	const char *at = strstr(text, "\nTID ");
	unsigned long rows = 0;
	if (at != NULL)
		at = strchr(at + 1, '\n');
	while (at != NULL && at[1] != '\0' && at[1] != '\n') {
		rows++;
		at = strchr(at + 1, '\n');
	}
	return rows;
}

/*
 * A directory on a file system with room for a process's statistics at start and `slots`
 * threads' rows (and the launcher's few files of its run), in a mount namespace of the test's
 * own, gone with it: the launcher's run directory there through TMPDIR (`tmpdir`).
 */
static void small_file_system(unsigned slots, char *dir, char *tmpdir, size_t tmpdir_size)
{
	if (geteuid() != 0)
		tp_skip_unless_ci("mounting a small file system needs root");
	const uint64_t launcher_files = 4 * TP_LIVE_PAGE; /* the program's pid and output */
	uint64_t room = TP_LIVE_SPACE_AT_START + slots * TP_LIVE_ROWS_STRIDE + launcher_files;
	cr_assert_eq(unshare(CLONE_NEWNS), 0, "%s", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0, "%s", strerror(errno));
	cr_assert_not_null(mkdtemp(dir));
	char options[64];
	snprintf(options, sizeof options, "size=%llu,mode=1777", (unsigned long long)room);
	cr_assert_eq(mount("tmpfs", dir, "tmpfs", 0, options), 0, "%s", strerror(errno));
	snprintf(tmpdir, tmpdir_size, "TMPDIR=%s", dir);
}

/*
 * A task with dependences is ready once they ended, which OpenMP's tool interface does not say:
 * its wake is said at its first poll, the same moment. On one thread each task of a chain runs
 * when spawned, its predecessor ended: no delay before its start, none of the shim's time
 * between two events counted as one (it was, 82 ns at the median and 486 at the 99th percentile,
 * when the wake and the poll's start were events of their own).
 */
Test(top, a_dependent_tasks_wake_at_its_first_poll_is_no_delay)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	struct tp_run run;
	tp_launch((const char *[]){"top", "--once", "--", tp_target("omp_known_graphs"), "chain",
				   NULL},
		  (const char *[]){"OMP_NUM_THREADS=1", NULL}, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect(strncmp(run.out, "chain: truth work", strlen("chain: truth work")) == 0, "%s",
		  run.out);
	char place[64];
	snprintf(place, sizeof place, "(omp_known_graphs.c:%d)",
		 tp_source_line("omp_known_graphs.c", "static void chain(void)",
				"#pragma omp task"));
	struct site_row chain = site_row(run.err, place);
	cr_assert(chain.found && chain.spawned == 20 && chain.done == 20, "%s", run.err);
	/* a delay of 0 is the histogram's first bucket, shown as 1ns */
	cr_expect(chain.delay50_ms <= 1e-6 && chain.delay99_ms <= 1e-6, "%s", run.err);
	tp_run_free(&run);
}

/* `taskprobe top --once -- argv...` with `env`, and the program run plainly: same output and
 * status (the figures on stderr). */
static void once_as_plain(const char *const argv[], const char *const env[], struct tp_run *run)
{
	struct tp_run plain;
	tp_run(TP_PLAIN, argv, env, &plain);
	const char *args[8] = {"top", "--once", "--"};
	for (size_t i = 0; argv[i] != NULL && i + 4 < sizeof args / sizeof args[0]; i++)
		args[3 + i] = argv[i];
	tp_launch(args, env, run);
	cr_expect_eq(run->status, plain.status, "%s", run->err);
	cr_expect_str_eq(run->out, plain.out, "the figures go to stderr");
	tp_run_free(&plain);
}

Test(top, threads_that_find_no_space_for_their_figures_are_said_as_such)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	/*
	 * Room for two threads' rows: every thread runs an implicit task, so each asks for a
	 * slot, and the ones that find no space (after the first spawn stack took what was left,
	 * or not) are counted as such, not as threads beyond the table.
	 */
	const unsigned threads = 6;
	char dir[] = "/tmp/taskprobe-small-XXXXXX", tmpdir[64], omp_threads[32];
	small_file_system(2, dir, tmpdir, sizeof tmpdir);
	snprintf(omp_threads, sizeof omp_threads, "OMP_NUM_THREADS=%u", threads);
	struct tp_run run;
	once_as_plain((const char *[]){tp_target("omp_fib"), NULL},
		      (const char *[]){tmpdir, omp_threads, NULL}, &run);
	unsigned long counted = thread_rows(run.err);
	unsigned long without_space = count_before(
		run.err, " threads not counted (no space left for the statistics' file)");
	cr_expect(without_space >= 1 && counted + without_space == threads, "%lu + %lu: %s",
		  counted, without_space, run.err);
	cr_expect(strstr(run.err, "threads beyond") == NULL, "%s", run.err);
	tp_run_free(&run);
	umount2(dir, MNT_DETACH);
	rmdir(dir);
}

/* The path of pid's statistics in `dir`. */
static void live_file_path(char *out, size_t size, const char *dir, pid_t pid)
{
	snprintf(out, size, "%s/%s%d", dir, TP_LIVE_FILE_PREFIX, (int)pid);
}

/* Waits (up to 10 s) for `path` to be there. */
static void wait_for_file(const char *path)
{
	for (int waited = 0; access(path, F_OK) != 0 && waited < 10000; waited += 10)
		tp_sleep_ms(10);
	cr_assert_eq(access(path, F_OK), 0, "%s did not appear", path);
}

Test(top, a_killed_programs_statistics_are_removed_by_the_next_program_with_statistics)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	char dir[] = "/tmp/taskprobe-stale-XXXXXX", live_dir[64], path[128];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(live_dir, sizeof live_dir, "TASKPROBE_LIVE_DIR=%s", dir);
	const char *const live[] = {"TASKPROBE_LIVE=1", live_dir, NULL};
	const char *const keep[] = {"TASKPROBE_LIVE=keep", live_dir, NULL};
	const char *const long_run[] = {tp_target("omp_top_shapes"), "200", NULL};
	const char *const short_run[] = {tp_target("omp_fib"), NULL};

	/* killed: its file is left, not marked ended */
	struct tp_run killed, running, kept, dead, sweeper;
	tp_start(TP_PRELOADED, long_run, live, &killed);
	char killed_path[128];
	live_file_path(killed_path, sizeof killed_path, dir, killed.pid);
	wait_for_file(killed_path);
	cr_assert_eq(kill(killed.pid, SIGKILL), 0);
	tp_finish(&killed);
	cr_expect_eq(killed.status, 128 + SIGKILL);
	cr_assert_eq(access(killed_path, F_OK), 0);

	size_t len;
	char *file = tp_read_file(killed_path, &len);
	cr_assert_geq(len, sizeof(struct tp_live_header));
	struct tp_live_header *h = (struct tp_live_header *)file;

	/* the next program with statistics removes it */
	tp_start(TP_PRELOADED, long_run, live, &running);
	char running_path[128];
	live_file_path(running_path, sizeof running_path, dir, running.pid);
	wait_for_file(running_path);
	cr_expect_neq(access(killed_path, F_OK), 0, "%s is left", killed_path);

	/*
	 * And only such files: not one of a program that runs, nor one kept on purpose, nor a gone
	 * process's of another pid namespace; and unfinished ones only when old.
	 */
	tp_run(TP_PRELOADED, short_run, keep, &kept);
	char kept_path[128];
	live_file_path(kept_path, sizeof kept_path, dir, kept.pid);
	tp_run(TP_PLAIN, short_run, NULL, &dead);
	char foreign_path[128];
	live_file_path(foreign_path, sizeof foreign_path, dir, dead.pid);
	/* a gone process's unfinished files (killed while making it): an old one, a new one */
	char old_unfinished[160], new_unfinished[160];
	snprintf(old_unfinished, sizeof old_unfinished, "%s" TP_LIVE_UNFINISHED_SUFFIX,
		 foreign_path);
	snprintf(new_unfinished, sizeof new_unfinished, "%s" TP_LIVE_UNFINISHED_SUFFIX,
		 killed_path);
	for (int i = 0; i < 2; i++) {
		FILE *u = fopen(i == 0 ? old_unfinished : new_unfinished, "w");
		cr_assert_not_null(u);
		cr_assert_eq(fclose(u), 0);
	}
	const struct timespec two_minutes_ago[2] = {{time(NULL) - 120, 0}, {time(NULL) - 120, 0}};
	cr_assert_eq(utimensat(AT_FDCWD, old_unfinished, two_minutes_ago, 0), 0);
	h->pid = (uint32_t)dead.pid;
	h->pid_namespace += 1;
	FILE *f = fopen(foreign_path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(file, 1, sizeof *h, f), sizeof *h);
	cr_assert_eq(fclose(f), 0);
	free(file);
	tp_run(TP_PRELOADED, short_run, live, &sweeper);
	cr_expect_eq(sweeper.status, 0, "%s", sweeper.err);
	cr_expect_eq(access(running_path, F_OK), 0, "%s, of a program that runs, is gone",
		     running_path);
	cr_expect_eq(access(kept_path, F_OK), 0, "%s, kept, is gone", kept_path);
	cr_expect_eq(access(foreign_path, F_OK), 0, "%s, another namespace's, is gone",
		     foreign_path);
	cr_expect_neq(access(old_unfinished, F_OK), 0, "%s is left", old_unfinished);
	cr_expect_eq(access(new_unfinished, F_OK), 0, "%s, unfinished a moment ago, is gone",
		     new_unfinished);
	live_file_path(path, sizeof path, dir, sweeper.pid);
	cr_expect_neq(access(path, F_OK), 0, "%s, of a program that ended, is left", path);

	kill(running.pid, SIGKILL);
	tp_finish(&running);
	unlink(running_path);
	unlink(kept_path);
	unlink(foreign_path);
	unlink(old_unfinished);
	unlink(new_unfinished);
	cr_expect_eq(rmdir(dir), 0, "%s: %s", dir, strerror(errno));
	tp_run_free(&killed);
	tp_run_free(&running);
	tp_run_free(&kept);
	tp_run_free(&dead);
	tp_run_free(&sweeper);
}

Test(top, space_the_full_file_system_refused_is_given_back)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	/*
	 * A first stack asks for the stacks' space: a spawn stack, more than is left, and what it
	 * got before the file system was full is given back; or a wait stack (a runtime thread's
	 * first waits) while there was room, which then holds it whole. So the file holds its space
	 * at start, whole threads' rows, and the stacks' space whole or none of it.
	 */
	char dir[] = "/tmp/taskprobe-small-XXXXXX", tmpdir[64], live_dir[64];
	small_file_system(2, dir, tmpdir, sizeof tmpdir);
	snprintf(live_dir, sizeof live_dir, "TASKPROBE_LIVE_DIR=%s", dir);
	struct tp_run run;
	tp_run(TP_PRELOADED, (const char *[]){tp_target("omp_fib"), NULL},
	       (const char *[]){"TASKPROBE_LIVE=keep", live_dir, "OMP_NUM_THREADS=2", NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	char path[128];
	snprintf(path, sizeof path, "%s/%s%d", dir, TP_LIVE_FILE_PREFIX, (int)run.pid);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	uint64_t space = (uint64_t)st.st_blocks * 512;
	uint64_t rows_and_stacks = space - TP_LIVE_SPACE_AT_START;
	if (rows_and_stacks % TP_LIVE_ROWS_STRIDE != 0 && rows_and_stacks > TP_LIVE_STACKS_SPACE)
		rows_and_stacks -= TP_LIVE_STACKS_SPACE;
	cr_expect(space > TP_LIVE_SPACE_AT_START && rows_and_stacks % TP_LIVE_ROWS_STRIDE == 0,
		  "%llu bytes: %llu at start, rows of %llu and the stacks' space or none",
		  (unsigned long long)space, (unsigned long long)TP_LIVE_SPACE_AT_START,
		  (unsigned long long)TP_LIVE_ROWS_STRIDE);
	tp_run_free(&run);
	unlink(path);
	umount2(dir, MNT_DETACH);
	rmdir(dir);
}

Test(top, a_thread_that_finds_no_space_takes_an_ended_threads_slot)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	/*
	 * Room for two threads' rows, and waves of two worker threads one after another: each
	 * later thread finds no space for a free slot's rows and takes an ended thread's slot,
	 * whose rows have theirs. Every thread is counted. No stacks: a sampled wait stack asks for
	 * the stacks' space, which may fit beside one slot's rows in this room and leave none for
	 * a second.
	 */
	const unsigned waves = 5;
	char dir[] = "/tmp/taskprobe-small-XXXXXX", tmpdir[64], arg[16];
	small_file_system(2, dir, tmpdir, sizeof tmpdir);
	snprintf(arg, sizeof arg, "%u", waves);
	struct tp_run run;
	once_as_plain(
		(const char *[]){tp_target("thread_waves"), arg, NULL},
		(const char *[]){tmpdir, "TASKPROBE_WORKERS=wave-*", "TASKPROBE_STACKS=0", NULL},
		&run);
	cr_expect(strstr(run.err, "not counted") == NULL, "%s", run.err);
	char last[32];
	snprintf(last, sizeof last, " wave-%u-", waves);
	cr_expect(strstr(run.err, last) != NULL, "%s: %s", last, run.err);
	tp_run_free(&run);
	umount2(dir, MNT_DETACH);
	rmdir(dir);
}

Test(top, the_console_follows_the_program_through_an_exec)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	/* a shell (its statistics: no task) that becomes the program after a moment */
	char *command;
	cr_assert(asprintf(&command,
			   "cd /tmp && TERM=screen %s top --interval 0.2 -- /bin/sh -c "
			   "'sleep 1; exec %s 30'",
			   tp_unprivileged_launcher(), target()) > 0);
	struct tp_terminal t;
	tp_terminal_start(&t, command, 200, 40, true);
	free(command);
	free(tp_terminal_wait_for(&t, "(no task spawned, and no thread waited", SCREEN_WAIT));
	char *screen = tp_terminal_wait_for(&t, SLEEPY_SITE, SCREEN_WAIT);
	cr_expect(strstr(screen, "omp_top_shapes (pid") != NULL &&
			  strstr(screen, "running") != NULL,
		  "%s", screen);
	free(screen);
	tp_terminal_keys(&t, "q");
	screen = tp_terminal_wait_for(&t, "[exit ", 60000);
	cr_expect(strstr(screen, "omp_top_shapes: 30 rounds") != NULL && strstr(screen, "[exit 0]"),
		  "%s", screen);
	free(screen);
	tp_terminal_stop(&t);
}

Test(top, the_program_is_not_disturbed_when_the_console_is_killed)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	const unsigned rounds = 40;
	struct tp_terminal t;
	start_console(&t, "--interval 0.2", rounds, "screen", 200, 40);
	char *screen = tp_terminal_wait_for(&t, SLEEPY_SITE, SCREEN_WAIT);
	/* the console's last argument is the program's pid, which its title shows */
	const char *at = strstr(screen, "(pid ");
	cr_assert_not_null(at, "%s", screen);
	int pid = atoi(at + strlen("(pid "));
	free(screen);
	char *cmd;
	cr_assert(asprintf(&cmd, "pkill -KILL -f '^[^ ]*taskprobe-top .* %d$'", pid) > 0);
	cr_expect_eq(system(cmd), 0, "%s", cmd);
	free(cmd);
	screen = tp_terminal_wait_for(&t, "[exit ", 60000);
	char *expected = plain_output(rounds);
	cr_expect(strstr(screen, expected) != NULL && strstr(screen, "[exit 0]") != NULL,
		  "expected \"%s\" and status 0:\n%s", expected, screen);
	free(expected);
	free(screen);
	tp_terminal_stop(&t);
}

Test(top, a_program_that_a_script_starts_as_a_child_is_shown)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	/* the shell forks the program (a command follows it): the shell spawns no task */
	char *script;
	cr_assert(asprintf(&script, "%s 2; echo script done", target()) > 0);
	struct tp_run run;
	tp_launch_unprivileged(
		(const char *[]){"top", "--once", "--", "/bin/sh", "-c", script, NULL}, NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.out, "script done\n") != NULL, "%s", run.out);
	cr_expect(strstr(run.err, "taskprobe top: omp_top_shapes (pid ") != NULL &&
			  strstr(run.err, "'s run) exited after") != NULL,
		  "%s", run.err);
	struct site_row sleepy = site_row(run.err, SLEEPY_SITE);
	cr_expect(sleepy.found && sleepy.spawned == 2 * SLEEPY_TASKS &&
			  sleepy.done == sleepy.spawned,
		  "%s", run.err);
	free(script);
	tp_run_free(&run);
}

Test(top, a_script_that_runs_programs_one_after_another_shows_each_to_its_end)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	/*
	 * Two programs of known counts, each shorter than a few intervals, and a pause the script
	 * makes between them: each one's last snapshot ("exited after") is printed once, in the
	 * order they ran, with its own pid and its own counts, whether or not the console caught
	 * it running.
	 */
	static const unsigned rounds[] = {1, 3};
	char *script;
	cr_assert(asprintf(&script, "%s %u; sleep 0.3; %s %u; echo script done", target(),
			   rounds[0], target(), rounds[1]) > 0);
	struct tp_run run;
	tp_launch_unprivileged((const char *[]){"top", "--batch", "--interval", "0.2", "--",
						"/bin/sh", "-c", script, NULL},
			       NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.out, "script done\n") != NULL, "%s", run.out);
	const char *title = "taskprobe top: omp_top_shapes (pid ";
	unsigned long finals[2] = {0, 0};
	int pids[2] = {0, 0};
	unsigned n_finals = 0;
	for (const char *at = run.err; (at = strstr(at, title)) != NULL; at++) {
		const char *line_end = strchr(at, '\n');
		const char *exited = strstr(at, "'s run) exited after");
		if (exited == NULL || line_end == NULL || exited > line_end)
			continue;
		const char *next = strstr(line_end, title);
		char *snapshot = strndup(at, next != NULL ? (size_t)(next - at) : strlen(at));
		struct site_row sleepy = site_row(snapshot, SLEEPY_SITE);
		cr_expect(sleepy.found && sleepy.done == sleepy.spawned, "%s", snapshot);
		if (n_finals < 2) {
			finals[n_finals] = sleepy.spawned;
			pids[n_finals] = atoi(at + strlen(title));
		}
		n_finals++;
		free(snapshot);
	}
	cr_expect_eq(n_finals, 2, "%s", run.err);
	cr_expect(pids[0] != pids[1], "%s", run.err);
	/* in the order they ran */
	cr_expect(finals[0] == rounds[0] * SLEEPY_TASKS && finals[1] == rounds[1] * SLEEPY_TASKS,
		  "%lu, %lu: %s", finals[0], finals[1], run.err);
	free(script);
	tp_run_free(&run);
}

/*
 * The second worker's BUSY, SPIN and PARKED (percent) in `taskprobe-top --once` of
 * omp_idle_worker run with KMP_BLOCKTIME=`blocktime`: it waits 200 ms in a barrier.
 */
static void idle_worker_shares(const char *blocktime, int shares[3])
{
	char *dir = tp_make_temp_dir("idle");
	char live_dir[128], blocktime_setting[64];
	snprintf(live_dir, sizeof live_dir, "TASKPROBE_LIVE_DIR=%s", dir);
	snprintf(blocktime_setting, sizeof blocktime_setting, "KMP_BLOCKTIME=%s", blocktime);
	const char *env[] = {"TASKPROBE_LIVE=keep", live_dir, blocktime_setting, NULL};
	struct tp_run program, top;
	tp_run(TP_PRELOADED,
	       (const char *[]){tp_require_program(tp_target("omp_idle_worker"), "clang"), NULL},
	       env, &program);
	cr_assert_eq(program.status, 0, "%s", program.err);
	char pid[16];
	snprintf(pid, sizeof pid, "%d", (int)program.pid);
	tp_run(TP_PLAIN,
	       (const char *[]){TP_CONTRIB_DIR "/taskprobe-top", "--once", "--dir", dir, pid, NULL},
	       NULL, &top);
	cr_assert_eq(top.status, 0, "%s", top.err);
	/* the threads in the order they took their slots: the initial thread, then the worker */
	const char *header = strstr(top.out, "\nTID ");
	cr_assert(header != NULL && strstr(header, "BUSY") != NULL, "%s", top.out);
	/* BUSY's column: after THREAD's, whose names may hold spaces ("0x1e6e0 (libomp.so.5)") */
	size_t busy_at = (size_t)(strstr(header, "BUSY") - header) - 1;
	const char *row = strchr(header + 1, '\n');
	row = row != NULL ? strchr(row + 1, '\n') : NULL;
	cr_assert(row != NULL && strlen(row) > busy_at, "%s", top.out);
	cr_assert_eq(sscanf(row + busy_at, " %d%% %d%% %d%%", &shares[0], &shares[1], &shares[2]),
		     3, "%s", top.out);
	tp_run_free(&program);
	tp_run_free(&top);
	tp_remove_temp_dir(dir);
}

Test(top, a_workers_time_in_the_runtime_is_spin_and_only_its_sleep_is_parked)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	int asleep[3], spinning[3];
	/* libomp puts a waiting worker to sleep at once: 200 ms blocked in a wait, parked */
	idle_worker_shares("0", asleep);
	cr_expect(asleep[0] <= 5 && asleep[2] >= 90, "busy %d%%, spin %d%%, parked %d%%", asleep[0],
		  asleep[1], asleep[2]);
	/* ... or never: 200 ms spinning in the barrier, not parked */
	idle_worker_shares("infinite", spinning);
	cr_expect(spinning[1] >= 90 && spinning[2] == 0, "busy %d%%, spin %d%%, parked %d%%",
		  spinning[0], spinning[1], spinning[2]);
}

/* Whether the running process `pid` has `library` mapped. */
static bool maps_library(pid_t pid, const char *library)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	char *maps = tp_read_file(path, NULL);
	bool found = strstr(maps, library) != NULL;
	free(maps);
	return found;
}

Test(top, sites_and_stacks_are_named_by_the_console_never_in_the_program, .timeout = 120)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	/* a copy of the shim: no tracer another test attaches to the built one reads its sites */
	tp_use_shim(tp_shim_copy());
	char *dir = tp_make_temp_dir("names");
	char live_dir[128];
	snprintf(live_dir, sizeof live_dir, "TASKPROBE_LIVE_DIR=%s", dir);
	const char *env[] = {"TASKPROBE_LIVE=keep", live_dir, NULL};
	struct tp_run program, top;
	tp_start(TP_PRELOADED, (const char *[]){tp_target("omp_top_shapes"), "20", NULL}, env,
		 &program);
	char pid[16];
	snprintf(pid, sizeof pid, "%d", (int)program.pid);
	/* the console names the sites while the program runs ... */
	struct site_row sleepy = {0};
	for (int tries = 0; tries < 100 && !sleepy.found; tries++) {
		tp_sleep_ms(100);
		tp_run(TP_PLAIN,
		       (const char *[]){TP_CONTRIB_DIR "/taskprobe-top", "--once", "--dir", dir,
					pid, NULL},
		       NULL, &top);
		sleepy = site_row(top.out, SLEEPY_SITE);
		if (!sleepy.found)
			tp_run_free(&top);
	}
	cr_expect(sleepy.found, "no %s", SLEEPY_SITE);
	tp_run_free(&top);
	/* ... which by then has spawned and sampled stacks without reading any debug information */
	cr_expect(!maps_library(program.pid, "libdw"), "libdw is loaded in the program");
	tp_finish(&program);
	cr_expect_eq(program.status, 0, "%s", program.err);
	tp_run_free(&program);
	tp_remove_temp_dir(dir);
}

/* A thread's row of the threads table of a program without tasks. */
struct waiter_row {
	bool found;
	char now[16], running[16], waited[16], kinds[64], longest[256];
	unsigned long waits;
};

/*
 * The row of the thread whose name begins with `name` ("consumer (wait_sites.c:": the line its
 * start routine's entry has is the compiler's) in the threads table of `text` (a snapshot, or a
 * screen whose table has every column).
 */
static struct waiter_row waiter_row(const char *text, const char *name)
{
	struct waiter_row r = {0};
	const char *header = strstr(text, "\nTID ");
	if (header == NULL || strstr(header, "LONGEST WAIT") == NULL)
		return r;
	for (const char *row = strchr(header + 1, '\n'); row != NULL && row[1] != '\n';
	     row = strchr(row + 1, '\n')) {
		/* "TID" in 8, a space, the name */
		const char *at = row + 1 + 9;
		size_t end = strcspn(row + 1, "\n");
		size_t name_len = strcspn(at, " ") + 1;
		if (name[strlen(name) - 1] == ':') /* FUNCTION (FILE:LINE) */
			name_len = strcspn(at, ")") + 1;
		if (end < 9 + name_len || strncmp(at, name, strlen(name)) != 0)
			continue;
		char *line = strndup(at + name_len, end - 9 - name_len);
		int used = 0;
		if (sscanf(line, " %15s %15s %15s %lu %63s %n", r.now, r.running, r.waited,
			   &r.waits, r.kinds, &used) >= 5) {
			r.found = true;
			snprintf(r.longest, sizeof r.longest, "%s", line + used);
		}
		free(line);
		break;
	}
	return r;
}

/* Whether `longest` is "DURATION at SITE", exactly that site. */
static bool longest_at(const char *longest, const char *site)
{
	const char *at = strstr(longest, " at ");
	return at != NULL && ms_of(longest) > 0 && strcmp(at + 4, site) == 0;
}

/*
 * A program without tasks (wait_sites: a consumer and a producer, 100 semaphore waits each at
 * their own lines, and the main thread's 5 polls): its threads table lists each thread by what
 * it did, its waits' count, kind and longest site exact; the figures' line says what was seen,
 * not that no task was polled "yet" after the end.
 */
Test(top, a_program_without_tasks_has_each_thread_listed_with_its_waits)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	struct tp_run run;
	tp_launch_unprivileged((const char *[]){"top", "--once", "--",
						tp_unprivileged_copy(tp_target("wait_sites")),
						"100", NULL},
			       NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "consumed 100\n");
	cr_expect(strstr(run.err, "\nno task or worker was seen; 3 threads, 205 waits\n") != NULL,
		  "%s", run.err);
	cr_expect(strstr(run.err, "polled yet") == NULL, "%s", run.err);
	const struct {
		const char *thread, *kind, *site;
		unsigned long waits;
	} threads[] = {
		{"consumer (wait_sites.c:", "semaphore",
		 tp_source_site("wait_sites.c", "queue_pop(", "sem_wait(&items)"), 100},
		{"producer (wait_sites.c:", "semaphore",
		 tp_source_site("wait_sites.c", "queue_push(", "sem_wait(&free_slots)"), 100},
		{"wait_sites ", "poll",
		 tp_source_site("wait_sites.c", "int main(", "poll(&fd, 1, 1)"), 5},
	};
	for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
		struct waiter_row r = waiter_row(run.err, threads[i].thread);
		cr_expect(r.found, "no row of %s: %s", threads[i].thread, run.err);
		cr_expect_str_eq(r.now, "ended", "%s", run.err);
		cr_expect(ms_of(r.running) > 0 && ms_of(r.waited) > 0, "%s", run.err);
		cr_expect_eq(r.waits, threads[i].waits, "%s: %s", threads[i].thread, run.err);
		cr_expect_str_eq(r.kinds, threads[i].kind, "%s", run.err);
		cr_expect(longest_at(r.longest, threads[i].site), "%s: \"%s\", not at %s: %s",
			  threads[i].thread, r.longest, threads[i].site, run.err);
	}
	tp_run_free(&run);
}

/*
 * The same in the full-screen view, at 120 and 80 columns, once the program ended (the view
 * stays until q): each thread's row with its longest wait's place (on 80 columns a thread started
 * at a routine is named by the routine alone, and the site's function may be cut, its place kept).
 */
Test(top, a_program_without_tasks_has_its_threads_on_the_screen_at_120_and_80_columns)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *command;
	cr_assert(asprintf(&command, "cd /tmp && TERM=screen %s top --interval 0.5 -- %s 20000",
			   tp_unprivileged_launcher(),
			   tp_unprivileged_copy(tp_target("wait_sites"))) > 0);
	const struct {
		const char *thread, *site;
	} threads[] = {
		{"consumer", tp_source_site("wait_sites.c", "queue_pop(", "sem_wait(&items)")},
		{"producer",
		 tp_source_site("wait_sites.c", "queue_push(", "sem_wait(&free_slots)")},
		{"wait_sites", tp_source_site("wait_sites.c", "int main(", "poll(&fd, 1, 1)")},
	};
	static const unsigned widths[] = {120, 80};
	for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
		struct tp_terminal t;
		tp_terminal_start(&t, command, widths[w], 30, true);
		char *screen = tp_terminal_wait_for(&t, "exited after", SCREEN_WAIT);
		cr_expect(strstr(screen, "\nno task or worker was seen; 3 threads, 40005 waits") !=
				  NULL,
			  "%u columns:\n%s", widths[w], screen);
		const char *table = strstr(screen, "\nTID ");
		cr_assert_not_null(table, "%u columns:\n%s", widths[w], screen);
		for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
			/* the thread's row: "TID" in 8, a space, its name */
			const char *row = table;
			while ((row = strchr(row + 1, '\n')) != NULL &&
			       strncmp(row + 10, threads[i].thread, strlen(threads[i].thread)) != 0)
				;
			cr_assert_not_null(row, "%u columns: no %s:\n%s", widths[w],
					   threads[i].thread, screen);
			char *line = strndup(row + 1, strcspn(row + 1, "\n"));
			/* "... DURATION at SITE": whole on 120 columns; on 80 its function may be
			 * cut ("queue_pu~ (wait_sites.c:29)"), its place whole */
			const char *at = strstr(line, " at "),
				   *place = strchr(threads[i].site, '(');
			bool whole = at != NULL && strcmp(at + 4, threads[i].site) == 0;
			bool cut = at != NULL && at[4] == threads[i].site[0] &&
				   strlen(at) > strlen(place) &&
				   strcmp(at + strlen(at) - strlen(place), place) == 0;
			cr_expect(widths[w] == 120 ? whole : whole || cut,
				  "%u columns: %s's longest wait not at %s: %s", widths[w],
				  threads[i].thread, threads[i].site, line);
			free(line);
		}
		free(screen);
		tp_terminal_keys(&t, "q");
		free(tp_terminal_wait_for(&t, "[exit 0]", 60000));
		tp_terminal_stop(&t);
	}
	free(command);
}

/* A pid that no process has now: the highest free one below pid_max. */
static pid_t free_pid(void)
{
	long pid_max = 32768;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	if (f != NULL) {
		if (fscanf(f, "%ld", &pid_max) != 1)
			pid_max = 32768;
		fclose(f);
	}
	for (pid_t pid = (pid_t)pid_max - 1; pid > 300; pid--)
		if (kill(pid, 0) != 0 && errno == ESRCH)
			return pid;
	cr_assert_fail("no free pid");
	return 0;
}

/* A pid that nothing runs with is said as such, not only that it has no statistics. */
Test(top, a_pid_that_no_process_has_is_said_to_be_no_process)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char pid[16], said[64];
	snprintf(pid, sizeof pid, "%d", (int)free_pid());
	struct tp_run top;
	tp_launch((const char *[]){"top", pid, NULL}, NULL, &top);
	cr_expect_eq(top.status, 1, "%s", top.err);
	snprintf(said, sizeof said, "no process %s: nothing runs with that pid", pid);
	cr_expect(strstr(top.err, said) != NULL, "%s", top.err);
	tp_run_free(&top);
}

/*
 * Two calls of a wait on one line are one row of the waits table (and its detail has the
 * stacks of both).
 */
Test(top, two_calls_of_a_wait_on_one_line_are_one_row)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	struct tp_run run;
	tp_launch_unprivileged(
		(const char *[]){"top", "--once", "--",
				 tp_unprivileged_copy(tp_target("one_line_two_waits")), "40", NULL},
		NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "taken 40\n");
	const char *site = tp_source_site("one_line_two_waits.c", "static void *consumer(",
					  "sem_wait(&items); else");
	const char *table = strstr(run.err, "WAITS BY CALL SITE");
	cr_assert_not_null(table, "%s", run.err);
	/* the table's rows: to the blank line after it */
	const char *end = strstr(table, "\n\n");
	unsigned rows = 0;
	for (const char *at = table; (at = strstr(at, site)) != NULL && (end == NULL || at < end);
	     at++)
		rows++;
	cr_expect_eq(rows, 1, "%u rows of %s:\n%s", rows, site, run.err);
	/* in the screen's order: the threads, then the waits */
	const char *threads = strstr(run.err, "\nTID ");
	cr_expect(threads != NULL && threads < table, "%s", run.err);
	tp_run_free(&run);
}

/* ? and h show the keys' help; Esc, Left or Backspace go back, from it or from a detail. */
Test(top, question_mark_and_h_show_the_keys_help)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *command;
	cr_assert(asprintf(&command, "cd /tmp && TERM=screen %s top --interval 0.5 -- %s 20000",
			   tp_unprivileged_launcher(),
			   tp_unprivileged_copy(tp_target("wait_sites"))) > 0);
	struct tp_terminal t;
	tp_terminal_start(&t, command, 120, 30, true);
	free(tp_terminal_wait_for(&t, "WAITS BY CALL SITE", SCREEN_WAIT));
	static const char *const keys[] = {"?", "h"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		tp_terminal_keys(&t, keys[i]);
		char *screen = tp_terminal_wait_for(&t, "\nKEYS", 5000);
		cr_expect(strstr(screen, "Backspace") != NULL && strstr(screen, "WAITS BY") == NULL,
			  "%s", screen);
		free(screen);
		tp_terminal_keys(&t, "Escape");
		free(tp_terminal_wait_for(&t, "WAITS BY CALL SITE", 5000));
	}
	/* a wait site's detail, and back by Left */
	tp_terminal_keys(&t, "Enter");
	free(tp_terminal_wait_for(&t, "WAIT STACKS", 5000));
	tp_terminal_keys(&t, "Left");
	free(tp_terminal_wait_for(&t, "WAITS BY CALL SITE", 5000));
	tp_terminal_keys(&t, "q");
	free(tp_terminal_wait_for(&t, "[exit 0]", 60000));
	tp_terminal_stop(&t);
	free(command);
}

/*
 * Input that is not a terminal is the program's: `printf 'b\na\n' | taskprobe top -- sort`
 * sorts it, the console on the full screen with its keys from the terminal; with no terminal
 * at all (setsid), it prints snapshots and says why; with --once, as a plain run.
 */
Test(top, a_pipe_on_standard_input_reaches_the_program)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *command;
	cr_assert(
		asprintf(&command,
			 "cd /tmp && printf 'b\\na\\n' | TERM=screen %s top --interval 0.2 -- sort",
			 tp_unprivileged_launcher()) > 0);
	struct tp_terminal t;
	tp_terminal_start(&t, command, 120, 30, true);
	char *screen = tp_terminal_wait_for(&t, "exited after", SCREEN_WAIT);
	cr_expect(strstr(screen, "taskprobe top: sort") != NULL, "%s", screen);
	free(screen);
	tp_terminal_keys(&t, "q");
	screen = tp_terminal_wait_for(&t, "[exit 0]", 60000);
	cr_expect(strstr(screen, "a\nb\n[exit 0]") != NULL, "%s", screen);
	free(screen);
	tp_terminal_stop(&t);
	free(command);

	static const char *const ways[] = {
		"printf 'b\\na\\n' | setsid -w \"$0\" top -- sort",
		"printf 'b\\na\\n' | \"$0\" top --once -- sort",
	};
	for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
		struct tp_run run;
		tp_run(TP_PLAIN,
		       (const char *[]){"/bin/sh", "-c", ways[i], TP_CONTRIB_DIR "/taskprobe",
					NULL},
		       NULL, &run);
		cr_expect_eq(run.status, 0, "%s: %s", ways[i], run.err);
		cr_expect_str_eq(run.out, "a\nb\n", "%s: %s", ways[i], run.err);
		if (i == 0)
			cr_expect(strstr(run.err, "standard input is not a terminal") != NULL ||
					  strstr(run.err, "standard output is not a terminal") !=
						  NULL,
				  "%s", run.err);
		tp_run_free(&run);
	}
}

/* The figure after `word` ("long ", "blocks ") in `text` up to `end`, -1 when not there. */
static long figure_after(const char *text, const char *end, const char *word)
{
	const char *at = memmem(text, (size_t)(end - text), word, strlen(word));
	return at != NULL ? strtol(at + strlen(word), NULL, 10) : -1;
}

/* Whether `row` holds `site` readably: whole, or its function's start (6 at least) then "~ "
 * and its whole "(file:line)". */
static bool site_readable(const char *row, const char *site)
{
	if (strstr(row, site) != NULL)
		return true;
	const char *place = strchr(site, '(');
	char cut[128];
	snprintf(cut, sizeof cut, "%.6s", site);
	const char *at = strstr(row, cut), *tilde = at != NULL ? strstr(at, "~ ") : NULL;
	return tilde != NULL && strncmp(tilde + 2, place, strlen(place)) == 0 &&
	       (size_t)(tilde - at) < (size_t)(place - site);
}

/*
 * No figure is cut at the terminal's edge, at 120 and 80 columns, once omp_top_shapes ended (its
 * figures then stay): each site row's warnings say the figures its detail view says, whole
 * ("long 132, blocks 1" of a row cut in "blocks 132" is a lie), or say how many were left out;
 * the wait site keeps its function's start and its whole file:line; no line is wider than the
 * terminal.
 */
Test(top, no_figure_is_cut_and_names_keep_their_place_at_120_and_80_columns)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	const char *sites[] = {SLEEPY_SITE, BLOCKER_SITE};
	char wait_site[128];
	snprintf(wait_site, sizeof wait_site, "%s",
		 tp_source_site("omp_top_shapes.c", "static void blocker(", "sem_wait(gate)"));
	static const unsigned widths[] = {120, 80};
	for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
		struct tp_terminal t;
		start_console(&t, "--sort site", 120, "screen", widths[w], 40);
		char *screen = tp_terminal_wait_for(&t, "exited after", SCREEN_WAIT);
		for (const char *line = screen; *line != '\0';) {
			size_t len = strcspn(line, "\n");
			cr_expect(len <= widths[w], "%u columns: a line of %zu:\n%s", widths[w],
				  len, screen);
			line += len + (line[len] == '\n');
		}
		const char *waits = strstr(screen, "WAITS BY CALL SITE");
		cr_expect(waits != NULL && site_readable(waits, wait_site), "%u columns: %s:\n%s",
			  widths[w], wait_site, screen);
		/* sorted by site, descending: the sites in line order from the last */
		const char *header = strstr(screen, "SITE ");
		cr_assert_not_null(header, "%s", screen);
		for (size_t i = 0; i < sizeof sites / sizeof sites[0]; i++) {
			const char *row = strstr(screen, sites[i]);
			cr_assert_not_null(row, "%u columns: no %s:\n%s", widths[w], sites[i],
					   screen);
			const char *row_end = row + strcspn(row, "\n");
			long row_long = figure_after(row, row_end, "long "),
			     row_blocks = figure_after(row, row_end, "blocks ");
			/* its detail: to the first row (the selection follows the site first shown),
			 * Down to it, Enter */
			unsigned downs = 0;
			for (const char *r = strchr(header, '\n') + 1; strchr(r, '\n') < row;
			     r = strchr(r, '\n') + 1)
				downs++;
			char keys[256] = "Up Up Up Up Up Up Up Up ";
			for (unsigned k = 0; k < downs; k++)
				strcat(keys, "Down ");
			strcat(keys, "Enter");
			tp_terminal_keys(&t, keys);
			char *detail = tp_terminal_wait_for(&t, "POLL TIME", 5000);
			cr_expect(strstr(detail, sites[i]) != NULL, "%s", detail);
			const char *polls = strstr(detail, "\npolls "),
				   *blocking = strstr(detail, "waits blocking their worker: ");
			cr_assert(polls != NULL && blocking != NULL, "%s", detail);
			const char *long_at = strstr(polls, " long\n");
			cr_assert_not_null(long_at, "%s", detail);
			while (long_at > polls && long_at[-1] != ' ')
				long_at--;
			long detail_long = strtol(long_at, NULL, 10),
			     detail_blocks = strtol(
				     blocking + strlen("waits blocking their worker: "), NULL, 10);
			bool some_left_out = memmem(row, (size_t)(row_end - row), " +", 2) != NULL;
			cr_expect(row_long == detail_long || (row_long < 0 && some_left_out),
				  "%u columns: %s: long %ld in its row, %ld in its detail:\n%.*s",
				  widths[w], sites[i], row_long, detail_long, (int)(row_end - row),
				  row);
			cr_expect(row_blocks == (detail_blocks > 0 ? detail_blocks : -1) ||
					  (row_blocks < 0 && some_left_out),
				  "%u columns: %s: blocks %ld in its row, %ld in its detail:\n%.*s",
				  widths[w], sites[i], row_blocks, detail_blocks,
				  (int)(row_end - row), row);
			free(detail);
			tp_terminal_keys(&t, "Escape");
			free(tp_terminal_wait_for(&t, "sorted by site", 5000));
		}
		free(screen);
		tp_terminal_keys(&t, "q");
		free(tp_terminal_wait_for(&t, "[exit 0]", 60000));
		tp_terminal_stop(&t);
	}
}

/*
 * The start of thread `tid`'s last wait in the recording `data` (`size` bytes), in the recording's
 * clock: its last wait-start's record (a compact wait's or not); 0 when it has none.
 */
/* The context of the walk last_wait_start makes: the thread, and its last wait's start. */
struct last_wait {
	uint32_t tid;
	uint64_t start;
};

static void wait_start_seen(const struct tp_recording_chunk *chunk, uint64_t word, void *ctx)
{
	struct last_wait *w = ctx;
	if (chunk->tid == w->tid && (tp_record_type(word) == TP_RECORD_WAITED ||
				     tp_record_type(word) == TP_RECORD_WAIT_START))
		w->start = chunk->base_time + tp_record_delta(word);
}

static uint64_t last_wait_start(const char *data, size_t size, uint32_t tid)
{
	struct last_wait w = {tid, 0};
	tp_recording_walk(data, size, wait_start_seen, &w);
	return w.start;
}

/*
 * Recorded and counted live at once, an event has one moment for both (issue 37: the span's
 * near-ties are decided alike by the console and the recording's analysis): the start of the
 * main thread's last wait in its slot is the recorded wait's, converted at the file's rate to
 * the nanosecond.
 */
Test(top, a_recorded_event_has_the_same_moment_in_the_live_statistics)
{
	char *dir = tp_make_temp_dir("moment"), live_dir[4200], record[4200], path[4200];
	snprintf(live_dir, sizeof live_dir, "TASKPROBE_LIVE_DIR=%s", dir);
	snprintf(record, sizeof record, "TASKPROBE_RECORD=%s/recording", dir);
	struct tp_run run;
	tp_run(TP_PRELOADED, (const char *[]){tp_target("timed_waits"), NULL},
	       (const char *[]){"TASKPROBE_LIVE=keep", live_dir, record, NULL}, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);

	size_t live_size, recording_size;
	live_file_path(path, sizeof path, dir, run.pid);
	char *file = tp_read_file(path, &live_size);
	cr_assert_geq(live_size,
		      TP_LIVE_THREADS_OFFSET + TP_LIVE_THREADS * sizeof(struct tp_live_thread));
	const struct tp_live_header *h = (const struct tp_live_header *)file;
	const struct tp_live_thread *slots =
		(const struct tp_live_thread *)(file + TP_LIVE_THREADS_OFFSET);
	const struct tp_live_thread *main_slot = NULL;
	for (unsigned i = 0; i < TP_LIVE_THREADS && main_slot == NULL; i++)
		if (slots[i].in_use != TP_LIVE_SLOT_FREE && slots[i].tid == (uint32_t)run.pid)
			main_slot = &slots[i];
	cr_assert_not_null(main_slot, "no slot of the main thread %d", (int)run.pid);

	snprintf(path, sizeof path, "%s/recording", dir);
	char *data = tp_read_file(path, &recording_size);
	uint64_t recorded = last_wait_start(data, recording_size, (uint32_t)run.pid);
	cr_assert_neq(recorded, 0, "no wait of the main thread recorded");
	uint64_t ns = recorded;
	if (h->clock == TP_LIVE_CLOCK_TSC) {
		/* its waits span 40 ms each: the counter's rate is timed by the last one's start */
		cr_assert_neq(h->ns_per_tsc_2_32, 0);
		ns = tp_live_tsc_ns(recorded, h->tsc_at_start, h->ns_at_start, h->ns_per_tsc_2_32);
	}
	cr_expect_eq(main_slot->wait_since, ns,
		     "the last wait's start: %llu ns live, the recording's %llu ns (%lld apart)",
		     (unsigned long long)main_slot->wait_since, (unsigned long long)ns,
		     (long long)(main_slot->wait_since - ns));
	free(data);
	free(file);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}
