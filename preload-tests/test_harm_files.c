// SPDX-License-Identifier: MIT
/*
 * Do no harm (the suite `harm`, test_harm.c): the files the shim writes besides the recording,
 * the exit report (TASKPROBE_REPORT) and the live statistics (TASKPROBE_LIVE), are never
 * followed through links nor truncated, live in a directory of the user's own, go with their
 * process, bow to the file size limit and take none of the program's descriptors.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harm_scene.h"
#include "harness.h"
#include "harness_internal.h"
#include "taskprobe_live.h"

Test(harm, a_file_size_limit_below_the_live_statistics_file_is_said_and_the_program_runs)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	struct tp_run run;
	/* ulimit -f counts KiB: 10 MB, below the statistics' 25 MB (the size they need at once) */
	script(&run,
	       "ulimit -f 10000\nLD_PRELOAD=$SHIM TASKPROBE_LIVE=1 TASKPROBE_LIVE_DIR=%s "
	       "/bin/echo hi",
	       dir);
	cr_expect_eq(run.status, 0, "status %d: %s", run.status, run.err);
	cr_expect_str_eq(run.out, "hi\n");
	cr_expect(strstr(run.err, "live statistics off: the file size limit") != NULL, "%s",
		  run.err);
	cr_expect_eq(entries(dir, TP_LIVE_FILE_PREFIX), 0);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

/*
 * A child made without fork handlers (_Fork, a raw clone) has its parent's memory, the pid cached
 * at start with it: its exit() leaves its parent's live statistics' file alone.
 */
Test(harm, a_child_made_without_fork_handlers_leaves_its_parents_live_file_alone)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	for (int way = 0; way < 2; way++) {
		const char *how = way == 0 ? "_Fork" : "clone";
		struct tp_run run;
		/* the parent's file, looked for once the child has exited (the shell's parent) */
		script(&run,
		       "LD_PRELOAD=$SHIM TASKPROBE_LIVE=1 TASKPROBE_LIVE_DIR=%s "
		       "$TARGETS/children_without_handlers %s 'test -e %s/%s$PPID && echo present "
		       "|| "
		       "echo missing'",
		       dir, how, dir, TP_LIVE_FILE_PREFIX);
		cr_expect_eq(run.status, 0, "%s: %s", how, run.err);
		cr_expect_str_eq(run.out, "present\ndone\n", "%s: %s", how, run.out);
		tp_run_free(&run);
		cr_expect_eq(entries(dir, TP_LIVE_FILE_PREFIX), 0, "%s: not removed at exit", how);
	}
	tp_remove_temp_dir(dir);
}

Test(harm, output_files_are_never_followed_through_links_never_truncated_and_made_0600)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	struct tp_run run;
	script(&run,
	       "cd %s\necho victim > victim; ln -s victim record-link; ln -s victim report-link\n"
	       "echo earlier > earlier-recording; echo earlier > earlier-report\n"
	       "echo theirs > theirs; chown 65534 theirs\numask 022\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=record-link TASKPROBE_REPORT=report-link "
	       "/bin/true\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=earlier-recording TASKPROBE_REPORT=theirs "
	       "/bin/true\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=new-recording TASKPROBE_REPORT=earlier-report "
	       "$TARGETS/threads > /dev/null\n"
	       "cat victim earlier-recording theirs; stat -c '%%a' new-recording\n",
	       dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "victim\nearlier\ntheirs\n600\n", "%s", run.err);
	cr_expect(strstr(run.err, "TASKPROBE_RECORD=\"record-link\" cannot be written: it is a "
				  "symbolic link") != NULL,
		  "%s", run.err);
	cr_expect(strstr(run.err, "TASKPROBE_REPORT=\"report-link\" cannot be written: it is a "
				  "symbolic link") != NULL,
		  "%s", run.err);
	cr_expect(strstr(run.err, "TASKPROBE_RECORD=\"earlier-recording\" exists and was not "
				  "made by this process: not overwritten") != NULL,
		  "%s", run.err);
	cr_expect(strstr(run.err, "TASKPROBE_REPORT=\"theirs\" cannot be written: it is another "
				  "user's file") != NULL,
		  "%s", run.err);
	/* a report is appended to what the file held */
	char path[256];
	snprintf(path, sizeof path, "%s/earlier-report", dir);
	char *report = tp_read_file(path, NULL);
	cr_expect(strncmp(report, "earlier\ntaskprobe: no task executor was seen", 44) == 0, "%s",
		  report);
	free(report);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

Test(harm, each_process_appends_its_whole_report_to_one_file)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	const char *fib = tp_require_program(tp_target("omp_fib"), "clang and libomp-dev");
	char *dir = scratch_dir();
	struct tp_run run;
	/* a shell that runs an OpenMP program: the shell's report and the program's, each whole */
	script(&run,
	       "LD_PRELOAD=$SHIM TASKPROBE_REPORT=%s/report bash -c '%s > /dev/null; true'\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_REPORT=%s/report.%%p bash -c '%s > /dev/null; true'\n"
	       "ls %s | grep -c '^report\\.[0-9]*$'",
	       dir, fib, dir, fib, dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "2\n", "one report file per process with %%p: %s", run.err);
	char path[256];
	snprintf(path, sizeof path, "%s/report", dir);
	char *report = tp_read_file(path, NULL);
	/* the program's tasks all terminated: its report starts with the task graph */
	cr_expect(strstr(report, "taskprobe: the task graph (pid ") != NULL, "%s", report);
	cr_expect(strstr(report, "no task executor was seen") != NULL, "%s", report);
	tp_run_free(&run);
	free(report);
	tp_remove_temp_dir(dir);
}

/*
 * A script's commands with nothing to report (their parent, reported, said it) leave no file of
 * their own with %p: neither those that exit (three /bin/true), nor one that ends by _exit (dash's
 * exit), nor the forked shell each made its file in before it exec'd the command (a loop of a
 * thousand commands left a thousand empty files); the script's own one line is kept.
 */
Test(harm, commands_with_nothing_to_report_leave_no_empty_files)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	struct tp_run run;
	script(&run,
	       "LD_PRELOAD=$SHIM TASKPROBE_REPORT=%s/report.%%p bash -c "
	       "'for i in 1 2 3; do /bin/true; done; sh -c \"exit 0\"; true'\n"
	       "ls %s | grep -c '^report\\.[0-9]*$'",
	       dir, dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "1\n", "one report file, the script's: %s", run.err);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

Test(harm, live_statistics_live_in_a_directory_of_the_users_own_even_when_its_name_is_taken,
     .timeout = 60)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	if (geteuid() != 0)
		tp_skip_unless_ci("a /dev/shm of the test's own (a mount namespace) needs root");
	struct tp_run run;
	/* a /dev/shm of the test's own, where nobody took root's directory name first */
	script(&run,
	       "unshare -m bash -c 'set -e; mount -t tmpfs tmpfs /dev/shm\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_LIVE=keep /bin/true\n"
	       "stat -c \"%%a %%U %%n\" /dev/shm/taskprobe-0 /dev/shm/taskprobe-0/*\n"
	       "rm -r /dev/shm/taskprobe-0; mkdir -m 777 /dev/shm/taskprobe-0\n"
	       "chown nobody /dev/shm/taskprobe-0\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_LIVE=keep /bin/true\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_LIVE=keep /bin/true\n"
	       "stat -c \"%%a %%U %%n\" /dev/shm/taskprobe-0.*/* | sed \"s/0\\.[^/]*/0.RANDOM/\"\n"
	       "ls /dev/shm/taskprobe-0 | wc -l'");
	cr_expect_eq(run.status, 0, "%s", run.err);
	/* one directory beside the taken name, used by both programs; nothing in the taken one */
	char *expected;
	cr_assert_geq(asprintf(&expected, "700 root /dev/shm/taskprobe-0\n"), 0);
	cr_expect(strncmp(run.out, expected, strlen(expected)) == 0, "%s", run.out);
	free(expected);
	const char *after = strstr(run.out, "\n600 root /dev/shm/taskprobe-0/taskprobe-live.");
	cr_expect(after != NULL, "%s", run.out);
	unsigned random_dir_files = 0;
	for (const char *p = run.out; (p = strstr(p, "600 root /dev/shm/taskprobe-0.RANDOM/"
						     "taskprobe-live.")) != NULL;
	     p++)
		random_dir_files++;
	cr_expect_eq(random_dir_files, 2, "%s", run.out);
	cr_expect(strstr(run.out, "\n0\n") != NULL, "%s", run.out);
	cr_expect(strstr(run.err, "/dev/shm/taskprobe-0 is not this user's own directory (owner "
				  "65534, mode 777): another user made it") != NULL,
		  "%s", run.err);
	cr_expect(strstr(run.err, "live statistics: using /dev/shm/taskprobe-0.") != NULL, "%s",
		  run.err);
	tp_run_free(&run);
}

Test(harm, live_files_are_removed_after_an_exec_a_privilege_drop_and_a_chdir, .timeout = 60)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	if (geteuid() != 0)
		tp_skip_unless_ci("dropping privileges and a /dev/shm of the test's own need root");
	char *dir = scratch_dir();
	struct tp_run run;
	/*
	 * Five children that exec into a program without the shim leave their files; the next
	 * program's sweep removes them. A relative directory is the one named at start.
	 */
	script(&run,
	       "cd %s; mkdir stats relative\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_LIVE=1 TASKPROBE_LIVE_DIR=$PWD/stats bash -c 'for i in "
	       "1 2 3 4 5; do env -i /bin/true; done'\n"
	       "ls stats | wc -l\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_LIVE=1 TASKPROBE_LIVE_DIR=$PWD/stats /bin/true\n"
	       "ls stats | wc -l\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_LIVE=1 TASKPROBE_LIVE_DIR=relative bash -c 'cd /; "
	       "true'\n"
	       "ls relative | wc -l\n"
	       "cp $SHIM shim.so; chmod 755 shim.so\n"
	       "unshare -m bash -c 'mount -t tmpfs tmpfs /dev/shm\n"
	       "LD_PRELOAD=$PWD/shim.so TASKPROBE_LIVE=1 setpriv --reuid=65534 --regid=65534 "
	       "--clear-groups /bin/true\n"
	       "ls /dev/shm/taskprobe-0 | wc -l\n"
	       "LD_PRELOAD=$PWD/shim.so TASKPROBE_LIVE=1 /bin/true\n"
	       "ls /dev/shm/taskprobe-0 | wc -l'\n",
	       dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	/* the last exec's left (each program swept the one before), 0 after a sweep; 0 after a
	 * chdir; 1 left by the drop, 0 after
	 */
	cr_expect_str_eq(run.out, "1\n0\n0\n1\n0\n", "%s", run.err);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

Test(harm, a_libgomp_program_on_libomp_is_marked_in_its_live_statistics)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	const char *gcc_fib = tp_require_program(tp_target("omp_fib_gcc"), "gcc");
	tp_require_file(TP_LIBOMP_PATH[0] != '\0' ? TP_LIBOMP_PATH : "/nonexistent/libomp.so.5",
			"libomp-dev");
	char *dir = scratch_dir();
	struct tp_run run;
	script(&run,
	       "LD_PRELOAD=\"%s $SHIM\" TASKPROBE_LIVE=keep TASKPROBE_LIVE_DIR=%s %s > /dev/null "
	       "& echo $!; wait",
	       TP_LIBOMP_PATH, dir, gcc_fib);
	cr_expect_eq(run.status, 0, "%s", run.err);
	char path[256];
	snprintf(path, sizeof path, "%s/" TP_LIVE_FILE_PREFIX "%d", dir, atoi(run.out));
	size_t length;
	char *file = tp_read_file(path, &length);
	cr_assert_geq(length, sizeof(struct tp_live_header));
	struct tp_live_header header;
	memcpy(&header, file, sizeof header);
	cr_expect_eq(header.notes & TP_LIVE_NOTE_LIBGOMP_ON_LIBOMP, TP_LIVE_NOTE_LIBGOMP_ON_LIBOMP);
	cr_expect_eq(header.kept, 1);
	cr_expect_neq(header.start_ticks, 0);
	free(file);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

Test(harm, the_report_and_warnings_never_reach_a_file_the_program_opened_on_descriptor_2)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	struct tp_run run;
	/*
	 * The shell closes its standard descriptors and opens its own files on them: the report at
	 * exit, and the warning of a forked child that cannot make its recording, were stderr's.
	 */
	script(&run,
	       "cd %s; mkdir sub\nLD_PRELOAD=$SHIM TASKPROBE_REPORT=stderr "
	       "TASKPROBE_RECORD=$PWD/sub/recording.%%p bash -c 'exec 0<&- 1>&- 2>&-\n"
	       "exec 0>a 1>b 2>c; echo out; echo err >&2; rm -r sub; (exit 0)'\n"
	       "cat a b c",
	       dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "out\nerr\n", "%s", run.err);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

Test(harm, a_file_size_limit_keeps_the_report_from_its_file_and_never_ends_the_program)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	struct tp_run run;
	/*
	 * ulimit -f 0: a byte written to a regular file raises SIGXFSZ, which kills (status 153).
	 * The limit is the program's alone (a subshell's), and what it says goes through a pipe.
	 */
	script(&run,
	       "cd %s\n(ulimit -f 0; LD_PRELOAD=$SHIM TASKPROBE_REPORT=$PWD/report exec /bin/true) "
	       "2>&1 | cat\necho \"file ${PIPESTATUS[0]}\"\n"
	       "(ulimit -f 0; LD_PRELOAD=$SHIM TASKPROBE_REPORT=stderr exec /bin/true 2> err)\n"
	       "echo \"stderr $?\"\nwc -c < report; wc -c < err",
	       dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	const char *said = "taskprobe: no report written to ";
	cr_expect(strncmp(run.out, said, strlen(said)) == 0 &&
			  strstr(run.out,
				 ": the file size limit (ulimit -f) leaves no room for it\n"
				 "file 0\nstderr 0\n0\n0\n") != NULL,
		  "%s", run.out);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

Test(harm, a_report_into_a_pipe_whose_reader_has_gone_leaves_the_exit_status_alone)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	struct tp_run run;
	/*
	 * The reader takes one byte and goes, then lets the program go on: a forked child's
	 * warning (it cannot make its recording) and the report at exit are written into a pipe
	 * nobody reads (EPIPE, and SIGPIPE, which kills: status 141).
	 */
	script(&run,
	       "cd %s; mkfifo done; mkdir sub\n"
	       "{ LD_PRELOAD=$SHIM TASKPROBE_REPORT=stderr TASKPROBE_RECORD=$PWD/sub/recording.%%p "
	       "bash -c 'echo hi; read -r _ < done; rm -r sub; (exit 0); echo \"child $?\" > "
	       "child' "
	       "2>&1; } | { head -c 1; exec 0<&-; echo > done; }\n"
	       "echo \" ${PIPESTATUS[0]}\"; cat child\n",
	       dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "h 0\nchild 0\n", "%s", run.err);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

Test(harm, a_report_to_a_file_costs_the_program_no_descriptor_while_it_runs)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	struct tp_run run;
	/* under a limit of 64 descriptors, the shell opens as many as it can, with and without */
	script(&run,
	       "cd %s\nulimit -n 64\ncount='n=0; while { exec {fd}< /dev/null; } 2> /dev/null; "
	       "do n=$((n + 1)); done; echo $n'\n"
	       "bash -c \"$count\"\nLD_PRELOAD=$SHIM TASKPROBE_REPORT=$PWD/report bash -c "
	       "\"$count\"\ngrep -c 'no task executor was seen' report",
	       dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	unsigned plain = 0, reported = 0, reports = 0;
	cr_expect_eq(sscanf(run.out, "%u %u %u", &plain, &reported, &reports), 3, "%s", run.out);
	cr_expect_gt(plain, 50, "%s", run.out);
	cr_expect_eq(reported, plain, "%s", run.out);
	cr_expect_eq(reports, 1, "%s", run.out);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

/*
 * bash took the recording's descriptor (1000, open and close-on-exec) for one of its own: before
 * `exec 1000>f` it saved a copy (fcntl F_DUPFD) and after it put the copy back on 1000, so the
 * script's writes to f went into the recording (f empty, the recording not whole). The shim's
 * descriptors now look closed to fcntl and dup as well.
 */
Test(harm, a_shell_script_writing_on_the_recordings_number_writes_its_own_file)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	const char *lines =
		"exec 1000>f; echo hi >&1000; exec 1000>&-; read -r x <f; echo \"f=[$x]\"";
	struct tp_run plain, traced;
	script(&plain, "cd %s && bash -c '%s'", dir, lines);
	cr_expect_str_eq(plain.out, "f=[hi]\n", "%s", plain.err);
	script(&traced, "cd %s && TASKPROBE_RECORD=%s/recording LD_PRELOAD=$SHIM bash -c '%s'", dir,
	       dir, lines);
	cr_expect_eq(traced.status, 0, "%s", traced.err);
	cr_expect_str_eq(traced.out, plain.out, "%s", traced.err);
	cr_expect_str_eq(traced.err, "", "%s", traced.err);
	char recording[512];
	snprintf(recording, sizeof recording, "%s/recording", dir);
	int status;
	recorded_events(recording, &status);
	cr_expect_eq(status, 0, "the recording is not whole");
	tp_run_free(&plain);
	tp_run_free(&traced);
	tp_remove_temp_dir(dir);
}

/*
 * A child of a program under `taskprobe run` killed by a signal (`yes` by SIGPIPE, a
 * multiprocessing pool's worker by its terminate) left its live file until the next program
 * with statistics there swept it: the console that removes the run's file at its end now sweeps
 * every ended process's (not one kept on purpose).
 */
Test(harm, a_runs_child_killed_by_a_signal_leaves_no_live_file, .timeout = 60)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *dir = scratch_dir();
	struct tp_run run;
	/* the console removes the files after the run's end, by itself: a few tenths of a second */
	script(&run,
	       "cd %s; mkdir stats\n"
	       "TASKPROBE_LIVE=keep TASKPROBE_LIVE_DIR=$PWD/stats %s/taskprobe run -- /bin/true\n"
	       "TASKPROBE_LIVE_DIR=$PWD/stats %s/taskprobe run -- bash -c 'yes | head -c1'\n"
	       "for i in $(seq 50); do [ $(ls stats | wc -l) -gt 1 ] || break; sleep 0.1; done\n"
	       "ls stats | wc -l\n",
	       dir, TP_CONTRIB_DIR, TP_CONTRIB_DIR);
	cr_expect_eq(run.status, 0, "%s", run.err);
	/* y from `yes`, then the file kept on purpose alone */
	cr_expect_str_eq(run.out, "y1\n", "%s", run.err);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}
