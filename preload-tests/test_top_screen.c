// SPDX-License-Identifier: MIT
/*
 * taskprobe top's full-screen view, driven in a terminal (tmux) as a person uses it: the figures
 * moving while omp_top_shapes (top_shapes.h) runs, the keys, the colours, narrow terminals, the
 * program followed through an exec and left undisturbed when the console dies.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "harness_internal.h"
#include "top_shapes.h"

#define SCREEN_WAIT 20000 /* ms: a loaded machine starts slowly */

/* The console in a terminal on `rounds` rounds of omp_top_shapes, as nobody (with root). */
static void start_console(struct tp_terminal *t, const char *options, unsigned rounds,
			  const char *term, unsigned columns, unsigned lines)
{
	char *command;
	cr_assert(asprintf(&command, "cd /tmp && TERM=%s %s top %s -- %s %u", term,
			   tp_unprivileged_launcher(), options, top_shapes_target(), rounds) > 0);
	tp_terminal_start(t, command, columns, lines, true);
	free(command);
}

/* The pid of the program the console in `t` shows, once it shows its sites (the title's). */
static int program_shown(struct tp_terminal *t)
{
	char *screen = tp_terminal_wait_for(t, SLEEPY_SITE, SCREEN_WAIT);
	const char *at = strstr(screen, "(pid ");
	cr_assert_not_null(at, "%s", screen);
	int pid = atoi(at + strlen("(pid "));
	free(screen);
	return pid;
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
	/* 20 ms and more: a loaded machine may wake a sleeper late, never early (one beside two
	 * suites and callgrind woke it after 307 ms); in ms, not a thousand times off */
	cr_expect(sleepy.longest_ms >= SLEEP_MS - 0.5 && sleepy.longest_ms < 100 * SLEEP_MS, "%s",
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

/* The console on 200 rounds in 200 x 45, by site, ascending: "(no site...)" first, then the
 * constructs in line order. */
static void start_by_site(struct tp_terminal *t)
{
	start_console(t, "--sort site --reverse", 200, "screen", 200, 45);
	free(tp_terminal_wait_for(t, QUICK_SITE, SCREEN_WAIT));
	free(tp_terminal_wait_for(t, "sorted by site, ascending", SCREEN_WAIT));
}

Test(top, keys_sort_select_a_site_show_its_histograms_and_stacks_and_survive_a_resize_to_80_columns)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	struct tp_terminal t;
	start_by_site(&t);
	char *screen;
	/* the parallel construct's, the blocker's, then the sleepy tasks' site (all in main) */
	tp_terminal_keys(&t, "Down Down Down Enter");
	/* 20 ms polls (once the first has ended, at a refresh): the bucket from 2^24 ns, under POLL
	 * TIME (the scheduling delay's has the same text, and a delay that long under load came
	 * before any poll had ended: a CI run's flake) */
	screen = tp_terminal_wait_for(&t, "POLL TIME\n   16.8ms ..  33.6ms  #", 5000);
	cr_expect(strstr(screen, SLEEPY_SITE) != NULL && strstr(screen, "POLL TIME") != NULL, "%s",
		  screen);
	cr_expect(strstr(screen, "SCHEDULING DELAY") != NULL, "%s", screen);
	/* its tasks' median time, as the exit report says it: 20 ms and a little more (the cost
	 * histogram's open last bucket, read around its tasks' mean: ">=2.10 ms" before) */
	const char *median = strstr(screen, "\nmedian task ");
	char unit[4] = "";
	double ms = 0;
	cr_expect(median != NULL && sscanf(median, "\nmedian task %lf %3s", &ms, unit) == 2 &&
			  strcmp(unit, "ms") == 0 && ms >= SLEEP_MS - 0.5 && ms < 5 * SLEEP_MS &&
			  strstr(median, " (its polls added up)") != NULL,
		  "%s", screen);
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

/*
 * The last site selected in a short terminal scrolls the first ones out; a taller one shows them
 * again (LULESH's 30 regions: the selection's site sorted down while the waits' table below was
 * long, and five rows stayed hidden above with four empty below).
 */
Test(top, a_taller_terminal_shows_the_sites_a_shorter_one_scrolled_out)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	struct tp_terminal t;
	start_by_site(&t);
	tp_terminal_keys(&t, "Down Down Down Down Down Down");
	tp_terminal_resize(&t, 200, 14);
	char *screen = NULL;
	for (int look = 0; look < 50 && (screen == NULL || strstr(screen, "(no site") != NULL);
	     look++) {
		free(screen);
		tp_sleep_ms(100);
		screen = tp_terminal_screen(&t, false);
	}
	cr_assert(strstr(screen, "(no site") == NULL, "never scrolled:\n%s", screen);
	free(screen);
	tp_terminal_resize(&t, 200, 45);
	screen = tp_terminal_wait_for(&t, "(no site", 5000);
	cr_expect(strstr(screen, "(no site") != NULL && strstr(screen, QUICK_SITE) != NULL, "%s",
		  screen);
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

Test(top, the_console_follows_the_program_through_an_exec)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	/* a shell (its statistics: no task) that becomes the program after a moment */
	char *command;
	cr_assert(asprintf(&command,
			   "cd /tmp && TERM=screen %s top --interval 0.2 -- /bin/sh -c "
			   "'sleep 1; exec %s 30'",
			   tp_unprivileged_launcher(), top_shapes_target()) > 0);
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
	/* the console's last argument is the program's pid, which its title shows */
	int pid = program_shown(&t);
	char *cmd;
	cr_assert(asprintf(&cmd, "pkill -KILL -f '^[^ ]*taskprobe-top .* %d$'", pid) > 0);
	cr_expect_eq(system(cmd), 0, "%s", cmd);
	free(cmd);
	char *screen = tp_terminal_wait_for(&t, "[exit ", 60000);
	char *expected = plain_output(rounds);
	cr_expect(strstr(screen, expected) != NULL && strstr(screen, "[exit 0]") != NULL,
		  "expected \"%s\" and status 0:\n%s", expected, screen);
	free(expected);
	free(screen);
	tp_terminal_stop(&t);
}

/* The pid of the console (taskprobe-top) following program `pid`, and its parent's (the
 * launcher); 0 when none. */
static int console_of(int pid, int *parent)
{
	char *cmd, line[64] = "";
	cr_assert(asprintf(&cmd, "pgrep -f '^[^ ]*taskprobe-top .* %d$'", pid) > 0);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	int console = fgets(line, sizeof line, p) != NULL ? atoi(line) : 0;
	pclose(p);
	free(cmd);
	char path[64], *status;
	snprintf(path, sizeof path, "/proc/%d/status", console);
	status = console != 0 ? tp_read_file(path, NULL) : NULL;
	const char *at = status != NULL ? strstr(status, "PPid:") : NULL;
	*parent = at != NULL ? atoi(at + strlen("PPid:")) : 0;
	free(status);
	return console;
}

/* Process `pid`'s state letter (/proc/PID/stat's: R, S, T, Z...), 0 when it is gone; read as it
 * may vanish between two calls (tp_read_file would fail the test). */
static char process_state(int pid)
{
	char path[64], stat[512] = "";
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	bool read = f != NULL && fgets(stat, sizeof stat, f) != NULL;
	if (f != NULL)
		fclose(f);
	const char *state = read ? strrchr(stat, ')') : NULL;
	return state != NULL && state[1] == ' ' ? state[2] : 0;
}

/* Whether process `pid` ended within `ms` milliseconds (it may be a zombie of a parent that
 * ended: that counts as ended, its time and its CPU spent). */
static bool ends_within(int pid, unsigned ms)
{
	for (unsigned waited = 0;; waited += 50) {
		char state = process_state(pid);
		if (state == 0 || state == 'Z' || state == 'X')
			return true;
		if (waited >= ms)
			return false;
		nanosleep(&(struct timespec){0, 50000000}, NULL);
	}
}

/*
 * Ctrl-Z, in an interactive shell with job control, as a person suspends a full-screen program:
 * the console gives the terminal back and stops with its launcher (and the script that started
 * it: the shell's job), the shell says so and takes the terminal; the program runs on meanwhile;
 * `fg` brings the console back, drawn whole. In raw mode Ctrl-Z is a key, which the console
 * ignored: the only way out was q.
 */
Test(top, ctrl_z_suspends_the_console_fg_brings_it_back_and_the_program_runs_on)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	const unsigned rounds = 120; /* about 8 s */
	struct tp_terminal t;
	tp_terminal_start(&t, "exec bash --norc --noprofile -i", 200, 40, true);
	/* the console in a script of the shell's: one word to type */
	char *script, *command;
	cr_assert(asprintf(&script, "%s/go", t.dir) > 0);
	cr_assert(asprintf(&command,
			   "cd /tmp && TERM=screen %s top --interval 0.2 -- %s %u\n"
			   "echo \"[done $?]\"\n",
			   tp_unprivileged_launcher(), top_shapes_target(), rounds) > 0);
	char *write;
	cr_assert(asprintf(&write, "printf '%s' > '%s' && chmod 0755 '%s'", command, script,
			   script) > 0);
	cr_assert_eq(system(write), 0, "%s", write);
	free(write);
	free(command);
	tp_terminal_keys(&t, script);
	tp_terminal_keys(&t, "Enter");
	int pid = program_shown(&t);
	int launcher, console = console_of(pid, &launcher);
	cr_assert(console > 0 && launcher > 0, "no console of pid %d", pid);

	tp_terminal_keys(&t, "C-z");
	char *screen = tp_terminal_wait_for(&t, "Stopped", SCREEN_WAIT);
	cr_expect(strstr(screen, SLEEPY_SITE) == NULL, "the console's screen stays:\n%s", screen);
	free(screen);
	cr_expect_eq(process_state(console), 'T', "the console (pid %d) is not stopped", console);
	cr_expect_eq(process_state(launcher), 'T', "the launcher (pid %d) is not stopped",
		     launcher);
	char program = process_state(pid);
	cr_expect(program == 'R' || program == 'S', "the program (pid %d) is in state %c", pid,
		  program);

	tp_terminal_keys(&t, "f g Enter");
	screen = tp_terminal_wait_for(&t, SLEEPY_SITE, SCREEN_WAIT);
	cr_expect(strncmp(screen, "taskprobe top: omp_top_shapes (pid", 34) == 0 &&
			  strstr(screen, "Stopped") == NULL,
		  "not drawn whole again:\n%s", screen);
	free(screen);
	cr_expect(process_state(console) != 'T', "the console (pid %d) stays stopped", console);

	tp_terminal_keys(&t, "q");
	screen = tp_terminal_wait_for(&t, "[done ", 60000);
	char *expected = plain_output(rounds);
	cr_expect(strstr(screen, expected) != NULL && strstr(screen, "[done 0]") != NULL,
		  "expected \"%s\" and status 0:\n%s", expected, screen);
	free(expected);
	free(screen);
	free(script);
	tp_terminal_stop(&t);
}

/*
 * The terminal closes under the console (its tmux server killed) while the launcher leads the
 * session (`tmux new 'taskprobe top -- ./app'`, `xterm -e`, `ssh -t`): the console ends, and so do
 * the program (the launcher's hangup trap) and the launcher. The hangup reaches the session's
 * leader alone, which waited for the console: the console spun on its dead terminal at 25 to 70%
 * of a CPU, and the launcher and the program ran on, for good.
 */
Test(top, a_terminal_that_closes_ends_the_console_its_program_and_the_launcher)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	struct tp_terminal t;
	char *command;
	/* some minutes of rounds: what ends it is the hangup */
	cr_assert(asprintf(&command, "cd /tmp && exec %s top -- %s 5000",
			   tp_unprivileged_launcher(), top_shapes_target()) > 0);
	tp_terminal_start(&t, command, 200, 40, true);
	free(command);
	int pid = program_shown(&t);
	int launcher, console = console_of(pid, &launcher);
	cr_assert(console > 0 && launcher > 0, "no console of pid %d", pid);
	tp_terminal_stop(&t);
	cr_expect(ends_within(console, 10000), "the console (pid %d) runs on", console);
	cr_expect(ends_within(pid, 10000), "the program (pid %d) runs on", pid);
	cr_expect(ends_within(launcher, 10000), "the launcher (pid %d) runs on", launcher);
	/* whatever the outcome, nothing of the test is left running */
	for (int p = 0; p < 3; p++)
		kill((int[]){console, pid, launcher}[p], SIGKILL);
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

/* The pid in the title of the console in `t` once it differs from `not` (0: any) within `ms`
 * milliseconds, else -1. */
static int title_pid_other_than_within(struct tp_terminal *t, int not, unsigned ms)
{
	for (unsigned waited = 0; waited < ms; waited += 100) {
		char *screen = tp_terminal_screen(t, false);
		const char *at = strstr(screen, "(pid ");
		int pid = at != NULL && strstr(screen, SLEEPY_SITE) != NULL
				  ? atoi(at + strlen("(pid "))
				  : -1;
		free(screen);
		if (pid > 0 && pid != not )
			return pid;
		nanosleep(&(struct timespec){0, 100000000}, NULL);
	}
	return -1;
}

static int title_pid_other_than(struct tp_terminal *t, int not )
{
	return title_pid_other_than_within(t, not, SCREEN_WAIT);
}

/* The title's pid, once not `not`, is `want`. */
static void expect_title_pid(struct tp_terminal *t, int not, int want, const char *what)
{
	int pid = title_pid_other_than(t, not );
	char *screen = tp_terminal_screen(t, false);
	cr_expect_eq(pid, want, "%s: pid %d, not %d:\n%s", what, pid, want, screen);
	free(screen);
}

/*
 * n and N choose another of the run's processes (an MPI job's ranks; here a script's two
 * programs, both spawning tasks): the console showed the first to start and no key reached the
 * others. n shows the next, n again the first (a circle), N the one before; a program alone
 * says in the footer that there is no other.
 */
Test(top, n_and_n_show_the_runs_other_processes_in_turn, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	const char *shapes = top_shapes_target();
	char *command;
	cr_assert(
		asprintf(&command,
			 "cd /tmp && TERM=screen %s top --interval 0.3 -- sh -c '%s 150 >/dev/null "
			 "& sleep 0.5; %s 150 >/dev/null & wait'",
			 tp_unprivileged_launcher(), shapes, shapes) > 0);
	struct tp_terminal t;
	tp_terminal_start(&t, command, 200, 40, true);
	free(command);
	int first = title_pid_other_than(&t, 0);
	cr_assert_gt(first, 0, "no program shown");
	/* n again while the second program has spawned no task yet (it starts half a second after
	 * the first; later on a loaded machine), as a person would once the footer says so */
	int second = -1;
	for (unsigned tries = 0; tries < 6 && second < 0; tries++) {
		tp_terminal_keys(&t, "n");
		second = title_pid_other_than_within(&t, first, SCREEN_WAIT / 6);
	}
	cr_assert_gt(second, 0, "n showed no other process");
	tp_terminal_keys(&t, "n");
	expect_title_pid(&t, second, first, "n again: the first");
	tp_terminal_keys(&t, "N");
	expect_title_pid(&t, first, second, "N: the one before, in a circle");
	tp_terminal_keys(&t, "q");
	tp_terminal_stop(&t);

	cr_assert(asprintf(&command, "cd /tmp && TERM=screen %s top -- %s 40",
			   tp_unprivileged_launcher(), shapes) > 0);
	tp_terminal_start(&t, command, 120, 30, true);
	free(command);
	free(tp_terminal_wait_for(&t, SLEEPY_SITE, SCREEN_WAIT));
	tp_terminal_keys(&t, "n");
	free(tp_terminal_wait_for(&t, "n, N: no other process of the run has spawned a task",
				  5000));
	tp_terminal_keys(&t, "q");
	tp_terminal_stop(&t);
}
