// SPDX-License-Identifier: MIT
/*
 * Do no harm (the suite `harm`, test_harm.c): programs that confine themselves, with a system
 * call filter (seccomp) or as setuid programs, or that exit from a signal handler, end under the
 * shim as they do without it, and a setuid program reads none of its settings.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harm_scene.h"
#include "harness.h"
#include "harness_internal.h"
#include "taskprobe_live.h"

Test(harm, a_program_that_confines_itself_with_seccomp_ends_as_it_would_without_the_shim)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN,
		     "the sanitizers' runtimes make system calls at exit that the filter refuses");
	char *dir = scratch_dir();
	for (int way = 0; way < 2; way++) {
		const char *how = way == 0 ? "prctl" : "syscall";
		struct tp_run run;
		script(&run,
		       "LD_PRELOAD=$SHIM TASKPROBE_LIVE=1 TASKPROBE_LIVE_DIR=%s "
		       "TASKPROBE_RECORD=%s/recording.%s $TARGETS/seccomp_exit %s",
		       dir, dir, how, how);
		cr_expect_eq(run.status, 0, "%s: status %d: %s", how, run.status, run.err);
		cr_expect_str_eq(run.out, "confined\n");
		cr_expect(strstr(run.err, "installs a system call filter (seccomp): recording "
					  "stops here") != NULL,
			  "%s", run.err);
		tp_run_free(&run);
		/* the 100 waits before the filter: a wait-start and a wait-end each */
		char name[64];
		snprintf(name, sizeof name, "recording.%s", how);
		expect_recorded_events(dir, name, 200);
	}
	/* the statistics' files the filter kept the programs from removing: the next one's sweep */
	cr_expect_geq(entries(dir, TP_LIVE_FILE_PREFIX), 1);
	struct tp_run next;
	script(&next, "LD_PRELOAD=$SHIM TASKPROBE_LIVE=1 TASKPROBE_LIVE_DIR=%s /bin/true", dir);
	cr_expect_eq(next.status, 0);
	cr_expect_eq(entries(dir, TP_LIVE_FILE_PREFIX), 0);
	tp_run_free(&next);
	tp_remove_temp_dir(dir);
}

/*
 * A program that takes seccomp's strict mode (read, write and exit alone, and no time-stamp
 * counter: rdtsc faults), by prctl and by seccomp(2), and on a thread of its own before that
 * thread's first wait, then waits on a semaphore: it ends as it does alone under the live
 * statistics, the recorder, the report and `taskprobe run` (the live statistics read the counter
 * at every event: SIGSEGV at its first wait after). Traced, by test_scripts.c.
 */
Test(harm, a_program_in_seccomps_strict_mode_ends_as_it_would_without_the_shim)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN,
		     "the sanitizers' runtimes make system calls at exit that strict mode refuses");
	char *dir = scratch_dir();
	static const char *const ways[] = {"strict", "strict-syscall", "strict-thread"};
	for (size_t way = 0; way < sizeof ways / sizeof ways[0]; way++) {
		const char *how = ways[way];
		struct tp_run run, launched;
		script(&run,
		       "LD_PRELOAD=$SHIM TASKPROBE_LIVE=1 TASKPROBE_LIVE_DIR=%s "
		       "TASKPROBE_REPORT=%s/report "
		       "TASKPROBE_RECORD=%s/recording.%s $TARGETS/seccomp_exit %s",
		       dir, dir, dir, how, how);
		cr_expect_eq(run.status, 0, "%s: status %d: %s", how, run.status, run.err);
		cr_expect_str_eq(run.out, "confined\n");
		script(&launched, "TASKPROBE_LIVE_DIR=%s %s run -- $TARGETS/seccomp_exit %s", dir,
		       TP_CONTRIB_DIR "/taskprobe", how);
		cr_expect_eq(launched.status, 0, "%s under run: status %d: %s", how,
			     launched.status, launched.err);
		cr_expect_str_eq(launched.out, "confined\n");
		tp_run_free(&run);
		tp_run_free(&launched);
	}
	tp_remove_temp_dir(dir);
}

/*
 * A program started under a filter it inherits, one that kills the process on membarrier(2)
 * (which the shim asks for at its start, for its light fence: core/fence.h), ends as it would
 * without the shim, its waits recorded: the shim reads the filter in /proc/self/status and asks
 * the kernel nothing.
 */
Test(harm, a_program_started_under_an_inherited_filter_ends_as_it_would_without_the_shim)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN,
		     "the sanitizers' runtimes make system calls at exit that the filter refuses");
	char *dir = scratch_dir();
	struct tp_run run;
	script(&run,
	       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=%s/recording $TARGETS/filtered_exec "
	       "$TARGETS/seccomp_exit prctl",
	       dir);
	cr_expect_eq(run.status, 0, "status %d: %s", run.status, run.err);
	cr_expect_str_eq(run.out, "confined\n");
	tp_run_free(&run);
	/* the 100 waits of the program run in its place, before its own filter */
	expect_recorded_events(dir, "recording", 200);
	tp_remove_temp_dir(dir);
}

/*
 * A program that confines itself with a filter that allows only what it uses, then starts a
 * thread (and forks): under `taskprobe run`, `taskprobe top --once` and with the exit report on,
 * it ends as it does alone (the new thread's id is not asked of the kernel, the fork's child asks
 * nothing, the report names nothing at exit).
 */
Test(harm, a_program_that_confines_itself_then_starts_a_thread_ends_as_without_the_shim,
     .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	const char *program = tp_target("seccomp_thread");
	/* the filter installed by the C library's prctl, then through syscall(SYS_prctl) */
	for (int way = 0; way < 4; way++) {
		const char *then = way % 2 == 0 ? "thread" : "fork",
			   *how = way < 2 ? "libc" : "raw";
		struct tp_run plain;
		tp_run(TP_PLAIN, (const char *[]){program, then, how, NULL}, NULL, &plain);
		cr_assert_eq(plain.status, 0,
			     "%s %s: the filter refuses what the program needs: %s", then, how,
			     plain.err);
		cr_assert_str_eq(plain.out, "thread joined\n");
		struct tp_run run;
		tp_launch((const char *[]){"run", "--", program, then, how, NULL}, NULL, &run);
		cr_expect_eq(run.status, plain.status, "%s %s, taskprobe run: status %d: %s", then,
			     how, run.status, run.err);
		cr_expect_str_eq(run.out, plain.out, "%s %s, taskprobe run", then, how);
		tp_run_free(&run);
		tp_launch((const char *[]){"top", "--once", "--", program, then, how, NULL}, NULL,
			  &run);
		cr_expect_eq(run.status, plain.status, "%s %s, taskprobe top: status %d: %s", then,
			     how, run.status, run.err);
		cr_expect_str_eq(run.out, plain.out, "%s %s, taskprobe top", then, how);
		tp_run_free(&run);
		script(&run,
		       "LD_PRELOAD=$SHIM TASKPROBE_REPORT=%s/report.%%p $TARGETS/seccomp_thread %s "
		       "%s",
		       dir, then, how);
		cr_expect_eq(run.status, plain.status, "%s %s, the report: status %d: %s", then,
			     how, run.status, run.err);
		cr_expect_str_eq(run.out, plain.out, "%s %s, the report", then, how);
		cr_expect(strstr(run.err, "TASKPROBE_REPORT: the program installs a system call "
					  "filter (seccomp): no report at exit") != NULL,
			  "%s %s: %s", then, how, run.err);
		tp_run_free(&run);
		script(&run,
		       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=%s/recording.%%p $TARGETS/seccomp_thread "
		       "%s %s",
		       dir, then, how);
		cr_expect_eq(run.status, plain.status, "%s %s, recorded: status %d: %s", then, how,
			     run.status, run.err);
		cr_expect_str_eq(run.out, plain.out, "%s %s, recorded", then, how);
		cr_expect(strstr(run.err, "TASKPROBE_RECORD: the program installs a system call "
					  "filter (seccomp): recording stops here") != NULL,
			  "%s %s: %s", then, how, run.err);
		tp_run_free(&run);
		tp_run_free(&plain);
	}
	tp_remove_temp_dir(dir);
}

Test(harm, a_setuid_program_that_the_preload_list_names_reads_no_setting_and_says_nothing,
     .timeout = 60)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	if (geteuid() != 0)
		tp_skip_unless_ci("a mount namespace with its own /etc/ld.so.preload needs root");
	tp_require_program("/usr/bin/unshare", "util-linux");
	char *dir = scratch_dir();
	struct tp_run run;
	/*
	 * /etc/ld.so.preload names the shim in a mount namespace of the test's own (an overlay on
	 * /etc): every program there loads it, the setuid ones too. nobody asks setuid-root mount
	 * to record, report and keep statistics in a directory only root may write.
	 */
	script(&run,
	       "set -e\nD=%s\nmkdir -p $D/upper $D/work $D/secret $D/open\n"
	       "chmod 700 $D/secret; chmod 777 $D/open\ncp $SHIM $D/libtaskprobe.so\n"
	       "chmod 755 $D/libtaskprobe.so\necho $D/libtaskprobe.so > $D/upper/ld.so.preload\n"
	       "unshare -m bash -c \"mount -t overlay overlay -o "
	       "lowerdir=/etc,upperdir=$D/upper,workdir=$D/work /etc\n"
	       "runuser -u nobody -- /bin/sh -c 'TASKPROBE_RECORD=$D/secret/recording "
	       "TASKPROBE_REPORT=$D/secret/report TASKPROBE_LIVE=1 TASKPROBE_LIVE_DIR=$D/secret "
	       "exec /usr/bin/mount --version' 2> $D/setuid.err\n"
	       "runuser -u nobody -- /bin/sh -c 'TASKPROBE_RECORD=$D/open/recording exec "
	       "/bin/true'\"\n",
	       dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	char path[256];
	snprintf(path, sizeof path, "%s/secret", dir);
	cr_expect_eq(entries(path, ""), 2, "the setuid program wrote into %s", path); /* . .. */
	snprintf(path, sizeof path, "%s/setuid.err", dir);
	char *said = tp_read_file(path, NULL);
	cr_expect(strstr(said, "taskprobe") == NULL, "%s", said);
	free(said);
	/* the shim was there: the same setting is read by a program that is not setuid */
	snprintf(path, sizeof path, "%s/open/recording", dir);
	cr_expect_eq(access(path, F_OK), 0, "the preload list did not load the shim: %s", run.err);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

Test(harm, exit_from_a_signal_handler_that_interrupted_malloc_ends_the_program, .timeout = 400)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	struct tp_run run;
	/*
	 * Each run's handler calls exit() while the main thread is most likely inside malloc: a
	 * report that allocates or loads a library there waits for good on the lock that malloc
	 * holds (timeout ends the run: status 124). Ten runs, as one may find malloc between calls.
	 * The report is skipped, said in one line where the report was to go: with a file for it,
	 * in that file, never on the program's stderr (the line was there, the file left empty).
	 */
	script(&run,
	       "cd %s\nfor i in $(seq 10); do timeout 30 env LD_PRELOAD=$SHIM "
	       "TASKPROBE_REPORT=stderr $TARGETS/exit_in_handler 2> err; echo \"status $? $(grep "
	       "-c "
	       "'no report (pid [0-9]*): exit() was called in a signal handler' err)\"\n"
	       "cat err >&2; done\n"
	       "timeout 30 env LD_PRELOAD=$SHIM TASKPROBE_REPORT=$PWD/report "
	       "$TARGETS/exit_in_handler 2> err; echo \"file $? $(grep -c taskprobe err) $(grep -c "
	       "'no report (pid [0-9]*): exit() was called in a signal handler' report)\"",
	       dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out,
			 "status 3 1\nstatus 3 1\nstatus 3 1\nstatus 3 1\nstatus 3 1\nstatus 3 1\n"
			 "status 3 1\nstatus 3 1\nstatus 3 1\nstatus 3 1\nfile 3 0 1\n",
			 "%s", run.err);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

/*
 * main() ends with pthread_exit after handling a signal and blocking it (main_exits_first
 * masked): the last thread's exit() is in no handler, and the exit report is written. The check
 * read /proc/self/maps, the thread group leader's, which has no mappings once main exited:
 * finding no stack, it took the inherited mask for a handler's and skipped the report.
 */
Test(harm, the_last_threads_exit_after_main_exited_writes_the_report)
{
	TP_NOT_UNDER(TP_TSAN,
		     "TSan delays the handler of a signal the program raises to a point "
		     "that never comes (it blocks the signal next), and the program hangs");
	struct tp_run run;
	tp_run(TP_PRELOADED, (const char *[]){tp_target("main_exits_first"), "100", "masked", NULL},
	       (const char *[]){"TASKPROBE_REPORT=stderr", NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.err, "signal handler") == NULL &&
			  strstr(run.err, "taskprobe: ") != NULL,
		  "%s", run.err);
	tp_run_free(&run);
}
