// SPDX-License-Identifier: MIT
/*
 * taskprobe top's live statistics as the program keeps them (TASKPROBE_LIVE): a file of each
 * process's own, its tables' limits, bad settings, a file system without room, stale files
 * removed, the console's work kept out of the program, and the moments the recording shares. The
 * console's screen is test_top_screen.c's, its snapshots test_top_once.c's.
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
#include "top_shapes.h"

/* Sites with a row of their own: rows 1 to TP_LIVE_OVERFLOW - 1 */
#define TP_LIVE_ROWS_NAMED (TP_LIVE_OVERFLOW - 1)

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
	tp_use_private_shim(); /* its children forked: the race of docs/limits.md */
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
	/* every row named: the parallel construct's site and TP_LIVE_ROWS_NAMED - 1 task
	 * constructs' (in the sites' table: the parallel construct is in the regions' below it
	 * too), or one fewer and the region's barrier's, a sync site's row when a thread waits
	 * there before the last row is given (the sync sites' table) */
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
	cr_expect(overflow.found && overflow.spawned == 260 - (named - 1) &&
			  overflow.done == overflow.spawned,
		  "%s", run.err);
	cr_expect(strstr(run.err, "tasks 263 spawned, 0 alive, 263 done") != NULL, "%s", run.err);
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
		/* the exit report says it too, in the same words */
		tp_run(TP_PRELOADED, (const char *[]){tp_target("omp_shapes"), "gate", n, NULL},
		       (const char *[]){"TASKPROBE_REPORT=stderr", NULL}, &run);
		cr_assert_eq(run.status, 0, "%s", run.err);
		cr_expect(all > table ? strstr(run.err, want) != NULL
				      : strstr(run.err, "left out") == NULL,
			  "the report: %s: %s", want, run.err);
		tp_run_free(&run);
	}
}

/*
 * The waits counted at the sync site named `name` of kind `kind` in the table after `heading` in
 * `text` (its line: name, kind, time waited in a number and a unit, waits); how many lines name it
 * in `lines`.
 */
static unsigned long sync_site_waits(const char *text, const char *heading, const char *name,
				     const char *kind, unsigned *lines)
{
	const char *table = strstr(text, heading),
		   *end = table != NULL ? strstr(table, "\n\n") : NULL;
	unsigned long waits = 0;
	*lines = 0;
	for (const char *at = table;
	     at != NULL && (at = strstr(at + 1, name)) != NULL && (end == NULL || at < end);) {
		const char *after = at + strlen(name);
		while (*after == ' ')
			after++;
		if (strncmp(after, kind, strlen(kind)) != 0)
			continue;
		(*lines)++;
		sscanf(after + strlen(kind), "%*s %*s %lu", &waits);
	}
	return waits;
}

/*
 * A sync construct whose calls are several (a loop unrolled, or GCC's loop end named by the next
 * construct's line: NPB CG's conj_grad showed two rows of "cg.f90:570 barrier", 800 waits each,
 * where the exit report said one of 1600) is one row, as in the exit report of the same run.
 */
Test(top, a_sync_construct_of_several_calls_is_one_row_as_in_the_exit_report)
{
	TP_NOT_UNDER(TP_ASAN, TP_LAUNCHER_UNDER_SANITIZERS);
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	char dir[] = "/tmp/tp-sync-rows-XXXXXX", report[64], setting[96], name[64];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(report, sizeof report, "%s/report", dir);
	snprintf(setting, sizeof setting, "TASKPROBE_REPORT=%s", report);
	struct tp_run run;
	tp_launch((const char *[]){"top", "--once", "--", tp_target("omp_shapes"), "unrolled-waits",
				   "20", NULL},
		  (const char *[]){"OMP_NUM_THREADS=2", setting, NULL}, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "unrolled-waits 20 done 60\n");
	snprintf(name, sizeof name, "unrolled_waits (omp_shapes.c:%d)",
		 tp_source_line("omp_shapes.c", "static long unrolled_waits",
				"#pragma omp taskwait"));
	/* three calls of the one taskwait, each reached 20 times by the one thread that spawns */
	unsigned lines = 0;
	unsigned long waits = sync_site_waits(run.err, "\nSYNC SITE ", name, "taskwait", &lines);
	cr_expect(lines == 1 && waits == 60, "%u lines of %s, %lu waits:\n%s", lines, name, waits,
		  run.err);
	size_t length;
	char *text = tp_read_file(report, &length);
	cr_assert_not_null(text, "%s", report);
	waits = sync_site_waits(text, "  sync site ", name, "taskwait", &lines);
	cr_expect(lines == 1 && waits == 60, "%u lines of %s, %lu waits:\n%s", lines, name, waits,
		  text);
	free(text);
	unlink(report);
	rmdir(dir);
	tp_run_free(&run);
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
	cr_expect(!tp_maps(program.pid, "libdw"), "libdw is loaded in the program");
	tp_finish(&program);
	cr_expect_eq(program.status, 0, "%s", program.err);
	tp_run_free(&program);
	tp_remove_temp_dir(dir);
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
