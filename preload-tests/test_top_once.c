// SPDX-License-Identifier: MIT
/*
 * taskprobe top's plain-text snapshots (--once, --batch, a pid attached to): the exact figures of
 * omp_top_shapes (top_shapes.h) once it ended, of programs a script starts, and the threads
 * table of a program without tasks.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "analysis_runs.h"
#include "harness_internal.h"
#include "top_shapes.h"

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
	args[n++] = top_shapes_target();
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
	/* the workers' last column says what each did at the exit, as the heading says */
	const char *workers = strstr(run.err, "\nTID ");
	cr_expect(workers != NULL &&
			  strncmp(workers + strcspn(workers + 1, "\n") + 1 - strlen(" AT EXIT"),
				  " AT EXIT", strlen(" AT EXIT")) == 0,
		  "%s", run.err);
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
	/* the blocker's blocks stay, its polls are not long (a loaded machine may also find it too
	 * small, as above: it then runs only after the post) */
	snprintf(want, sizeof want, "blocks %u", rounds);
	struct site_row high = site_row(run.err, BLOCKER_SITE);
	cr_expect(strstr(high.warnings, want) != NULL && strstr(high.warnings, "long") == NULL,
		  "%s", run.err);
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

/*
 * A task that runs the whole program (a recursion's root): while it runs, a second after its
 * spawn, its site is said to have none ended, and the site of the short tasks it spawns, which
 * end, is not; its 30 ms polls, most of the time going on, are said as polling that long now;
 * once it ended, its site has none ended no more. It runs 10 s, so that a loaded machine, where
 * each `top --once` takes long and the root's poll is long half of its steps, still gives
 * enough snapshots (beside a CI run, 4 s gave none that caught it polling).
 */
Test(top, a_site_whose_tasks_all_run_on_is_said_to_have_none_ended, .timeout = 90)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	/* the task constructs after the single (the root's) and in its loop (the short tasks') */
	const char *root = tp_source_place("omp_long_root.c", "#pragma omp single",
					   "#pragma omp task");
	const char *shorts = tp_source_place("omp_long_root.c", "i < 10; i++", "#pragma omp task");
	const char *target = tp_unprivileged_copy(tp_target("omp_long_root"));
	struct tp_run program;
	tp_start(TP_PLAIN,
		 (const char *[]){TP_CONTRIB_DIR "/taskprobe", "run", "--", target, "10000", NULL},
		 NULL, &program);
	char pid[16];
	snprintf(pid, sizeof pid, "%d", (int)program.pid);
	struct site_row r = {0}, s = {0}, ended = {0}, polling = {0};
	struct tp_run top = {0};
	/* the last snapshot top took of the program running, for a message: the last attempt's may
	 * come after its end */
	char *live = NULL;
	for (int attempt = 0; attempt < 100 && (!ended.found || !polling.found); attempt++) {
		tp_run_free(&top);
		tp_sleep_ms(50);
		tp_launch((const char *[]){"top", "--once", pid, NULL}, NULL, &top);
		if (top.status == 0) {
			free(live);
			live = strdup(top.out);
		}
		r = site_row(top.out, root);
		s = site_row(top.out, shorts);
		if (strstr(r.warnings, "none ended") != NULL)
			ended = r;
		if (strstr(r.warnings, "polling ") != NULL && strstr(r.warnings, " now") != NULL)
			polling = r;
		cr_expect(!s.found || strstr(s.warnings, "none ended") == NULL, "%s: %s", shorts,
			  top.out);
	}
	cr_expect(ended.found && ended.alive == 1 && ended.done == 0,
		  "%s: the last live snapshot:\n%s\nthe last attempt's: %s\n%s", root,
		  live != NULL ? live : "(none)", top.out, top.err);
	cr_expect(polling.found, "%s: the last live snapshot:\n%s\nthe last attempt's: %s\n%s",
		  root, live != NULL ? live : "(none)", top.out, top.err);
	free(live);
	cr_expect(s.found && s.done > 0, "%s: %s", shorts, top.out);
	tp_run_free(&top);
	tp_finish(&program);
	cr_expect_eq(program.status, 0, "%s", program.err);
	tp_run_free(&program);
	/* to its end: the root ended */
	tp_launch_unprivileged((const char *[]){"top", "--once", "--", target, "1500", NULL}, NULL,
			       &top);
	cr_assert_eq(top.status, 0, "%s", top.err);
	r = site_row(top.err, root);
	cr_expect(r.found && r.done == 1 && strstr(r.warnings, "none ended") == NULL, "%s",
		  top.err);
	tp_run_free(&top);
}

Test(top, a_program_that_a_script_starts_as_a_child_is_shown)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	/* the shell forks the program (a command follows it): the shell spawns no task */
	char *script;
	cr_assert(asprintf(&script, "%s 2; echo script done", top_shapes_target()) > 0);
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
	cr_assert(asprintf(&script, "%s %u; sleep 0.3; %s %u; echo script done",
			   top_shapes_target(), rounds[0], top_shapes_target(), rounds[1]) > 0);
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
	/* at the exit: the two joined threads had ended, the main thread ran (its exit) */
	const struct {
		const char *thread, *kind, *site;
		unsigned long waits;
		const char *at_exit;
	} threads[] = {
		{"consumer (wait_sites.c:", "semaphore",
		 tp_source_site("wait_sites.c", "queue_pop(", "sem_wait(&items)"), 100, "ended"},
		{"producer (wait_sites.c:", "semaphore",
		 tp_source_site("wait_sites.c", "queue_push(", "sem_wait(&free_slots)"), 100,
		 "ended"},
		{"wait_sites ", "poll",
		 tp_source_site("wait_sites.c", "int main(", "poll(&fd, 1, 1)"), 5, "running"},
	};
	for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
		struct waiter_row r = waiter_row(run.err, threads[i].thread);
		cr_expect(r.found, "no row of %s: %s", threads[i].thread, run.err);
		cr_expect_str_eq(r.now, threads[i].at_exit, "%s", run.err);
		cr_expect(ms_of(r.running) > 0 && ms_of(r.waited) > 0, "%s", run.err);
		cr_expect_eq(r.waits, threads[i].waits, "%s: %s", threads[i].thread, run.err);
		cr_expect_str_eq(r.kinds, threads[i].kind, "%s", run.err);
		cr_expect(longest_at(r.longest, threads[i].site), "%s: \"%s\", not at %s: %s",
			  threads[i].thread, r.longest, threads[i].site, run.err);
	}
	tp_run_free(&run);
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

/*
 * Task ids come round the table of tasks alive every 2^18 tasks: omp_table_round keeps a run of
 * 256 consecutive tasks waiting (64 of one site, then 192 of the next) while 300,000 more are
 * made, whose ids come round onto the run's. Each is counted all the same (the live statistics
 * find them another home): none left out, every site's count exact.
 */
Test(top, tasks_whose_ids_come_round_onto_a_run_still_alive_are_all_counted, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	struct tp_run run;
	tp_launch_unprivileged((const char *[]){"top", "--once", "--",
						tp_unprivileged_copy(tp_target("omp_table_round")),
						NULL},
			       NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.out, "spawned 300065 ran 300064") != NULL, "%s", run.out);
	char waiting_place[64], round_place[64];
	snprintf(waiting_place, sizeof waiting_place, "(omp_table_round.c:%d)",
		 tp_source_line("omp_table_round.c", "i < WAITING; i++", "#pragma omp task"));
	snprintf(round_place, sizeof round_place, "(omp_table_round.c:%d)",
		 tp_source_line("omp_table_round.c", "i < ROUND; i++", "#pragma omp task"));
	struct site_row waiting = site_row(run.err, waiting_place);
	struct site_row round = site_row(run.err, round_place);
	cr_expect(waiting.found && waiting.spawned == 64 && waiting.done == 64, "%s: %s",
		  waiting_place, run.err);
	cr_expect(round.found && round.spawned == 300000 && round.done == 300000, "%s: %s",
		  round_place, run.err);
	cr_expect(strstr(run.err, "left out") == NULL, "%s", run.err);
	tp_run_free(&run);
}

/*
 * A program that neither spawned a task nor waited, once ended, is said to have done neither,
 * not "yet": the console's line for a program running (why nothing is there, what to set). With
 * no thread seen, no threads' table (a header of no rows).
 */
Test(top, an_ended_program_that_neither_spawned_nor_waited_is_not_said_to_do_so_yet)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	struct tp_run run;
	tp_launch_unprivileged((const char *[]){"top", "--once", "--", "/bin/true", NULL}, NULL,
			       &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.err, "\n(no task spawned, and no thread waited in an interposed wait: "
				  "tasks come from an executor") != NULL &&
			  strstr(run.err, " wait yet") == NULL,
		  "%s", run.err);
	cr_expect(strstr(run.err, "0 threads, 0 waits") != NULL && strstr(run.err, "TID") == NULL,
		  "%s", run.err);
	tp_run_free(&run);
}

/*
 * A parallel region that runs the whole program (omp_long_region: two threads spinning 3 s in one
 * region, as a code whose time-step loop lies inside its one parallel construct): while it runs,
 * its line in top says its efficiency so far (its threads computing all along: above 0.9), where
 * it said "-" until the region's end (no instance ended, no time).
 */
Test(top, a_region_going_on_has_its_efficiency_so_far, .timeout = 60)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	const char *target = tp_unprivileged_copy(tp_target("omp_long_region"));
	struct tp_run program, top = {0};
	tp_start(TP_PLAIN,
		 (const char *[]){TP_CONTRIB_DIR "/taskprobe", "run", "--", target, "3000", NULL},
		 (const char *[]){"OMP_NUM_THREADS=2", NULL}, &program);
	char pid[16], site[64];
	snprintf(pid, sizeof pid, "%d", (int)program.pid);
	snprintf(site, sizeof site, "main (omp_long_region.c:%d)",
		 tp_source_line("omp_long_region.c", "int main(", "#pragma omp parallel"));
	double efficiency = -1;
	for (int attempt = 0; attempt < 50 && efficiency < 0; attempt++) {
		tp_run_free(&top);
		tp_sleep_ms(100);
		tp_launch((const char *[]){"top", "--once", pid, NULL}, NULL, &top);
		efficiency = region_efficiency_of(top.out, site);
	}
	cr_expect(efficiency > 0.9 && efficiency <= 1, "%s: %.3f in:\n%s\n%s", site, efficiency,
		  top.out, top.err);
	tp_run_free(&top);
	tp_finish(&program);
	cr_expect_eq(program.status, 0, "%s", program.err);
	cr_expect_str_eq(program.out, "omp_long_region: 2 threads\n");
	tp_run_free(&program);
}
