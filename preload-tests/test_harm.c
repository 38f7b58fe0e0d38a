// SPDX-License-Identifier: MIT
/*
 * Do no harm: the suite `harm`. Putting taskprobe in front of a program changes nothing of it
 * (its output, exit status, files, limits, system calls), and nothing taskprobe reads or writes
 * can be turned against anyone (setuid programs, planted links, other users' files). This file
 * holds the shim's side; test_harm_launcher.c the launcher's and test_harm_console.c the
 * console's.
 *
 * Most tests here run a bash script that sets the scene (a limit, a link, a mount namespace of
 * the test's own with a private /dev/shm or /etc) and preloads the shim itself.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "harness_internal.h"
#include "taskprobe_contract.h"
#include "taskprobe_live.h"
#include "taskprobe_recording.h"

#define GENERATOR TP_CONTRIB_DIR "/timeline_recording"
/* The converter's stated bound on its memory (docs/recording.md, taskprobe-timeline(1)), in KiB. */
#define CONVERTER_BOUND_KIB (256 * 1024)

/* The reason the tests that preload the shim by themselves are left out of sanitizer passes. */
#define PRELOADS_ITSELF                                                                            \
	"its scripts preload the shim by themselves (through namespaces, setuid programs and "     \
	"shells), not the sanitizer's runtime"

/* A new directory for the test, mode 0755 (nobody may read it); tp_remove_temp_dir removes it. */
static char *scratch_dir(void)
{
	char *path = tp_make_temp_dir("harm");
	chmod(path, 0755);
	return path;
}

/*
 * Runs the bash script made from `format` (printf-style) as a user types it, without the shim
 * (the script preloads it where it means to: $SHIM is the shim's path, $TP_TIMELINE the
 * converter's, $TARGETS the targets' directory), with no descriptor but the standard ones
 * (tp_spawn).
 */
__attribute__((format(printf, 2, 3))) static void script(struct tp_run *run, const char *format,
							 ...)
{
	char *body;
	va_list ap;
	va_start(ap, format);
	cr_assert_geq(vasprintf(&body, format, ap), 0);
	va_end(ap);
	char *text;
	cr_assert_geq(asprintf(&text, "export SHIM='%s' TP_TIMELINE='%s' TARGETS='%s'\n%s",
			       tp_shim(), TP_TIMELINE, TP_TARGETS_DIR, body),
		      0);
	tp_run(TP_PLAIN, (const char *[]){"/bin/bash", "-c", text, NULL}, NULL, run);
	free(text);
	free(body);
}

/* The number of entries of `dir` whose names begin with `prefix`. */
static unsigned entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	cr_assert(d != NULL, "%s", dir);
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

/* The events the converter counts in `recording` (its --count line), or -1. */
static long recorded_events(const char *recording, int *status)
{
	struct tp_run run;
	tp_run(TP_PLAIN,
	       (const char *[]){TP_TIMELINE, "--count", "-o", "/dev/null", recording, NULL}, NULL,
	       &run);
	long n = -1;
	for (const char *line = run.err; n < 0 && (line = strstr(line, "taskprobe-timeline: "));
	     line++)
		if (sscanf(line, "taskprobe-timeline: %ld event", &n) != 1)
			n = -1;
	*status = run.status;
	tp_run_free(&run);
	return n;
}

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
		char recording[256];
		snprintf(recording, sizeof recording, "%s/recording.%s", dir, how);
		int status;
		cr_expect_eq(recorded_events(recording, &status), 200, "%s", how);
		cr_expect_eq(status, 0);
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
 * A program that confines itself with a filter that allows only what it uses, then starts a
 * thread (and forks): under `taskprobe run`, `taskprobe top --once` and with the exit report on,
 * it ends as it does alone (the new thread's id is not asked of the kernel, the fork's child asks
 * nothing, the report names nothing at exit).
 */
Test(harm, a_program_that_confines_itself_then_starts_a_thread_ends_as_without_the_shim,
     .timeout = 60)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	const char *program = tp_target("seccomp_thread");
	for (int way = 0; way < 2; way++) {
		const char *then = way == 0 ? "thread" : "fork";
		struct tp_run plain;
		tp_run(TP_PLAIN, (const char *[]){program, then, NULL}, NULL, &plain);
		cr_assert_eq(plain.status, 0, "%s: the filter refuses what the program needs: %s",
			     then, plain.err);
		cr_assert_str_eq(plain.out, "thread joined\n");
		struct tp_run run;
		tp_launch((const char *[]){"run", "--", program, then, NULL}, NULL, &run);
		cr_expect_eq(run.status, plain.status, "%s, taskprobe run: status %d: %s", then,
			     run.status, run.err);
		cr_expect_str_eq(run.out, plain.out, "%s, taskprobe run", then);
		tp_run_free(&run);
		tp_launch((const char *[]){"top", "--once", "--", program, then, NULL}, NULL, &run);
		cr_expect_eq(run.status, plain.status, "%s, taskprobe top: status %d: %s", then,
			     run.status, run.err);
		cr_expect_str_eq(run.out, plain.out, "%s, taskprobe top", then);
		tp_run_free(&run);
		script(&run,
		       "LD_PRELOAD=$SHIM TASKPROBE_REPORT=%s/report.%%p $TARGETS/seccomp_thread %s",
		       dir, then);
		cr_expect_eq(run.status, plain.status, "%s, the report: status %d: %s", then,
			     run.status, run.err);
		cr_expect_str_eq(run.out, plain.out, "%s, the report", then);
		cr_expect(strstr(run.err, "TASKPROBE_REPORT: the program installs a system call "
					  "filter (seccomp): no report at exit") != NULL,
			  "%s", run.err);
		tp_run_free(&run);
		tp_run_free(&plain);
	}
	tp_remove_temp_dir(dir);
}

Test(harm, descriptors_the_program_does_not_own_never_reach_its_files_nor_close_the_recording,
     .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	struct tp_run plain, traced;
	script(&plain, "$TARGETS/descriptor_games %s/plain", dir);
	cr_expect_str_eq(plain.out, "ok\n");
	/* each of 200 rounds finds the recording's descriptor and dup2()s its own file onto it */
	script(&traced,
	       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=%s/recording $TARGETS/descriptor_games %s/own",
	       dir, dir);
	cr_expect_eq(traced.status, 0, "%s", traced.err);
	cr_expect_str_eq(traced.out, "ok\n", "%s", traced.err);
	char own[256], recording[256];
	snprintf(own, sizeof own, "%s/own", dir);
	snprintf(recording, sizeof recording, "%s/recording", dir);
	size_t length;
	char *text = tp_read_file(own, &length);
	cr_expect_gt(length, 0, "the program never found the shim's descriptor");
	for (size_t at = 0; at < length; at += 8)
		cr_assert(length - at >= 8 && memcmp(text + at, "program\n", 8) == 0,
			  "a byte not the program's at %zu of its file", at);
	free(text);
	/* every wait of both phases, the second after close_range and closefrom: 40,000 waits */
	int status;
	cr_expect_geq(recorded_events(recording, &status), 80000);
	cr_expect_eq(status, 0, "the recording is not whole");
	tp_run_free(&plain);
	tp_run_free(&traced);
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

/* The records of the image that execs by a descriptor (execveat, fexecve) are written first. */
Test(harm, an_exec_by_a_descriptor_loses_no_recorded_event)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	for (int way = 0; way < 2; way++) {
		const char *how = way == 0 ? "execveat" : "fexecve";
		struct tp_run run;
		script(&run,
		       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=%s/recording.%s "
		       "$TARGETS/exec_by_descriptor "
		       "%s",
		       dir, how, how);
		cr_expect_eq(run.status, 0, "%s: %s", how, run.err);
		cr_expect_str_eq(run.out, "done\n", "%s: %s", how, run.err);
		tp_run_free(&run);
		/* 1000 waits before the exec and 1000 after: a wait-start and a wait-end each */
		char recording[256];
		snprintf(recording, sizeof recording, "%s/recording.%s", dir, how);
		int status;
		cr_expect_eq(recorded_events(recording, &status), 4000, "%s", how);
		cr_expect_eq(status, 0, "%s", how);
	}
	tp_remove_temp_dir(dir);
}

/*
 * A vfork child shares its parent's memory but has descriptors of its own: its dup2() onto the
 * recording's number leaves the parent's recording as it was.
 */
Test(harm, a_vfork_childs_dup2_onto_the_recordings_number_leaves_the_recording_whole)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	struct tp_run run;
	script(&run,
	       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=%s/recording $TARGETS/children_without_handlers "
	       "vfork",
	       dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "done\n", "%s", run.err);
	cr_expect(strstr(run.err, "recording stopped") == NULL, "%s", run.err);
	tp_run_free(&run);
	/* 1000 waits before the child and 1000 after */
	char recording[256];
	snprintf(recording, sizeof recording, "%s/recording", dir);
	int status;
	cr_expect_eq(recorded_events(recording, &status), 4000);
	cr_expect_eq(status, 0);
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

Test(harm, a_recording_is_one_process_s_and_a_child_never_overwrites_its_parents, .timeout = 60)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	if (geteuid() != 0)
		tp_skip_unless_ci("pid namespaces need root");
	char *dir = scratch_dir();
	struct tp_run run;
	/*
	 * Three programs, each pid 1 of a pid namespace, given one path: the first records, the
	 * others are refused. A daemon's parent (2000 waits, then fork and exit) keeps its events
	 * when its child, its path without %p, execs an image with the shim.
	 */
	script(&run,
	       "cd %s\nfor i in 1 2 3; do unshare -pf --mount-proc env LD_PRELOAD=$SHIM "
	       "TASKPROBE_RECORD=$PWD/namespaced $TARGETS/threads > /dev/null; stat -c %%s "
	       "namespaced; done\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=$PWD/daemon $TARGETS/daemon_like 2000 /bin/sh -c "
	       "'echo done > $PWD/marker'\n"
	       "for i in $(seq 100); do [ -s marker ] && break; sleep 0.1; done; cat marker\n",
	       dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	unsigned size[3];
	char done[8] = "";
	cr_expect_eq(sscanf(run.out, "%u %u %u %7s", &size[0], &size[1], &size[2], done), 4, "%s",
		     run.out);
	cr_expect_gt(size[0], 0);
	cr_expect(size[0] == size[1] && size[1] == size[2], "%s", run.out);
	cr_expect_str_eq(done, "done");
	char path[256];
	snprintf(path, sizeof path, "%s/daemon", dir);
	int status;
	cr_expect_eq(recorded_events(path, &status), 4000);
	cr_expect_eq(status, 0);
	cr_expect(strstr(run.err, "exists and was not made by this process: not overwritten") !=
			  NULL,
		  "%s", run.err);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

Test(harm, a_full_disk_stops_the_recording_between_chunks, .timeout = 60)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	if (geteuid() != 0)
		tp_skip_unless_ci("a small file system of the test's own (a mount namespace) needs "
				  "root");
	char *dir = scratch_dir();
	struct tp_run run;
	/* 80,000 events of 16 bytes on a 600 KiB file system: it fills up part way */
	script(&run,
	       "cd %s; mkdir small\nunshare -m bash -c 'mount -t tmpfs -o size=600k tmpfs small\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=$PWD/small/recording $TARGETS/descriptor_games "
	       "$PWD/own 0\n$TP_TIMELINE --count -o /dev/null small/recording; echo \"status $?\"'",
	       dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "ok\nstatus 0\n", "%s", run.err);
	cr_expect(strstr(run.err, "failed (No space left on device); recording stopped") != NULL,
		  "%s", run.err);
	cr_expect(strstr(run.err, "not whole") == NULL, "%s", run.err);
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

Test(harm, exit_from_a_signal_handler_that_interrupted_malloc_ends_the_program, .timeout = 400)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	struct tp_run run;
	/*
	 * Each run's handler calls exit() while the main thread is most likely inside malloc: a
	 * report that allocates or loads a library there waits for good on the lock that malloc
	 * holds (timeout ends the run: status 124). Ten runs, as one may find malloc between calls.
	 * The report is skipped, said in one line.
	 */
	script(&run,
	       "cd %s\nfor i in $(seq 10); do timeout 30 env LD_PRELOAD=$SHIM "
	       "TASKPROBE_REPORT=stderr $TARGETS/exit_in_handler 2> err; echo \"status $? $(grep "
	       "-c "
	       "'no report (pid [0-9]*): exit() was called in a signal handler' err)\"\n"
	       "cat err >&2; done",
	       dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out,
			 "status 3 1\nstatus 3 1\nstatus 3 1\nstatus 3 1\nstatus 3 1\nstatus 3 1\n"
			 "status 3 1\nstatus 3 1\nstatus 3 1\nstatus 3 1\n",
			 "%s", run.err);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

Test(harm, names_reach_the_report_and_the_analysis_escaped)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	const char *fib = tp_require_program(tp_target("omp_fib"), "clang and libomp-dev");
	char *dir = scratch_dir();
	struct tp_run run;
	/*
	 * A program whose name (its main thread's) sets the terminal's title and clears it: as it
	 * waits, in the report's waits; as a recorded process, in the converter's analysis.
	 */
	script(&run,
	       "cd %s\nname=$(printf '\\033]0;OWN\\a\\033[2J')\nln -s $TARGETS/pollers \"$name\"\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_REPORT=stderr ./\"$name\" > /dev/null\n"
	       "ln -sf %s \"$name\"\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=$PWD/recording ./\"$name\" > /dev/null\n"
	       "$TP_TIMELINE --analyze recording",
	       dir, fib);
	cr_expect_eq(run.status, 0, "%s", run.err);
	/* not printed when they fail: the terminal would run what they hold */
	cr_expect(strchr(run.out, '\033') == NULL && strchr(run.out, '\a') == NULL,
		  "the analysis holds the name's ESC or BEL unescaped");
	cr_expect(strchr(run.err, '\033') == NULL && strchr(run.err, '\a') == NULL,
		  "the report holds the name's ESC or BEL unescaped");
	cr_expect(strstr(run.err, " \"\\x1b]0;OWN\\x07\\x1b[2J\": ") != NULL,
		  "the report has no thread of the name escaped");
	cr_expect(strstr(run.out, "\\x1b]0;OWN\\x07\\x1b[2J (pid ") != NULL,
		  "the analysis has no process of the name escaped");
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

/* A converter's run on a hostile recording: its peak RSS (KiB), status and standard error. */
struct converted {
	long peak_kib;
	int status; /* the exit status, or -1 when it did not exit */
	char *err;
};

/*
 * Writes the generator's recording (contrib/bench/timeline_recording: `shape`, NULL-terminated)
 * to DIR/hostile.rec and converts it into /dev/null, from the file or, when `through_pipe`, on
 * standard input from the generator through a pipe. The converter's environment is its own (no
 * sanitizer runtime preloaded: the figure is the converter's), its temporary files in `dir`.
 */
static void convert_hostile(const char *dir, const char *const shape[], bool through_pipe,
			    struct converted *c)
{
	tp_require_program(GENERATOR, "the build's contrib/timeline_recording");
	char rec[4200], err[4200], tmpdir[4200];
	snprintf(rec, sizeof rec, "%s/hostile.rec", dir);
	snprintf(err, sizeof err, "%s/converter.err", dir);
	snprintf(tmpdir, sizeof tmpdir, "TMPDIR=%s", dir);
	char *env[] = {tmpdir, "PATH=/usr/bin:/bin", NULL};
	char *generator[8] = {GENERATOR};
	for (size_t i = 0; shape[i] != NULL && i + 2 < 8; i++)
		generator[i + 1] = (char *)shape[i];
	int link[2] = {-1, -1};
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	if (through_pipe) {
		cr_assert_eq(pipe2(link, O_CLOEXEC), 0);
		posix_spawn_file_actions_adddup2(&actions, link[1], 1);
	} else {
		posix_spawn_file_actions_addopen(&actions, 1, rec, O_WRONLY | O_CREAT | O_TRUNC,
						 0600);
	}
	pid_t writer;
	cr_assert_eq(posix_spawn(&writer, GENERATOR, &actions, NULL, generator, env), 0);
	posix_spawn_file_actions_destroy(&actions);
	int status;
	if (!through_pipe) {
		cr_assert_eq(waitpid(writer, &status, 0), writer);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the generator failed");
	}
	char *converter[] = {TP_TIMELINE,
			     "--count",
			     "--max-size",
			     "0",
			     "-o",
			     "/dev/null",
			     through_pipe ? "-" : rec,
			     NULL};
	posix_spawn_file_actions_init(&actions);
	if (through_pipe)
		posix_spawn_file_actions_adddup2(&actions, link[0], 0);
	posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	pid_t pid;
	cr_assert_eq(posix_spawn(&pid, TP_TIMELINE, &actions, NULL, converter, env), 0);
	posix_spawn_file_actions_destroy(&actions);
	if (through_pipe) {
		close(link[0]);
		close(link[1]);
		cr_assert_eq(waitpid(writer, &status, 0), writer);
	}
	struct rusage usage;
	cr_assert_eq(wait4(pid, &status, 0, &usage), pid);
	c->peak_kib = usage.ru_maxrss;
	c->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	c->err = tp_read_file(err, NULL);
	unlink(err);
	unlink(rec);
}

/* The converter stayed under its bound and said `said` (NULL: anything); its exit status. */
static void expect_bounded(const struct converted *c, const char *what, int status,
			   const char *said)
{
	cr_expect_lt(c->peak_kib, CONVERTER_BOUND_KIB, "%s: the converter's peak RSS %ld KiB: %s",
		     what, c->peak_kib, c->err);
	cr_expect_eq(c->status, status, "%s: status %d: %s", what, c->status, c->err);
	cr_expect(said == NULL || strstr(c->err, said) != NULL, "%s: no \"%s\" in: %s", what, said,
		  c->err);
	printf("converter's peak RSS, %s: %ld KiB\n", what, c->peak_kib);
}

/*
 * Two million threads of one record each (160 MB): the converter keeps 2^20 chunks (its bound
 * for them: the first holds the site's text, each other a thread's event), says from where the
 * rest are left out and how many events that was, exit status 1. It held the whole recording's
 * pages and every thread's bookkeeping: 350 MB.
 */
Test(harm, a_recording_of_two_million_one_record_threads_stays_under_the_converters_bound,
     .timeout = 60)
{
	char *dir = scratch_dir();
	struct converted c;
	convert_hostile(dir, (const char *[]){"threads", "2000000", NULL}, false, &c);
	expect_bounded(&c, "2 M one-record threads", 1,
		       "chunks (a thread's blocks of records) are left out: more than 1048576 in "
		       "all, to keep the converter's memory under its bound (256 MiB)\n");
	cr_expect(strstr(c.err, "taskprobe-timeline: 951425 events left out to keep the "
				"converter's memory bounded") != NULL,
		  "%s", c.err);
	cr_expect(strstr(c.err, "taskprobe-timeline: 1048575 events\n") != NULL, "%s", c.err);
	free(c.err);
	tp_remove_temp_dir(dir);
}

/*
 * Two million segment headers and nothing else (144 MB): the images with nothing recorded past
 * the bound are forgotten (nothing is lost: status 0), said once. It took 136 bytes a header,
 * and the file's pages: 300 MB.
 */
Test(harm, a_recording_of_two_million_bare_segment_headers_stays_under_the_converters_bound,
     .timeout = 60)
{
	char *dir = scratch_dir();
	struct converted c;
	convert_hostile(dir, (const char *[]){"segments", "2000000", NULL}, false, &c);
	expect_bounded(&c, "2 M bare segment headers", 0,
		       "process images (segments) with nothing recorded are forgotten, the "
		       "others' records left out: more than 65536 in all");
	free(c.err);
	tp_remove_temp_dir(dir);
}

/*
 * 300 segments of 1000 module records each (26 MB): the modules past the bound are not kept
 * (their code named by its address), said once. A module took 1.1 KiB (its path's room, 1 KiB,
 * whatever its path), checked against every module of its image before it: 340 MB.
 */
Test(harm, a_recording_of_300000_modules_stays_under_the_converters_bound, .timeout = 60)
{
	char *dir = scratch_dir();
	struct converted c;
	convert_hostile(dir, (const char *[]){"modules", "300", "1000", NULL}, false, &c);
	expect_bounded(&c, "300 x 1000 modules", 0,
		       "modules are not kept (their code is named by its address): more than "
		       "131072 in all");
	free(c.err);
	tp_remove_temp_dir(dir);
}

/*
 * 600 000 sites of 255-byte texts, each spawned once (187 MB, a recording of version 4's kind):
 * the texts past the timeline's bound are not kept (their sites named by their ids), said with
 * how many. The timeline kept a million texts in 64 MiB, with the recording's pages: 346 MB.
 */
Test(harm, a_recording_of_600000_site_texts_stays_under_the_converters_bound, .timeout = 60)
{
	char *dir = scratch_dir();
	struct converted c;
	convert_hostile(dir, (const char *[]){"sites", "600000", NULL}, false, &c);
	expect_bounded(&c, "600 000 site texts", 0,
		       "texts not kept, to keep the converter's memory under its bound (256 MiB); "
		       "their sites are named by their ids\n");
	free(c.err);
	tp_remove_temp_dir(dir);
}

/*
 * 150 000 task stacks of 255 return addresses (310 MB, few events) on standard input through a
 * pipe: converted whole, in the memory a file's conversion takes; the copy the pipe is read
 * into is an unlinked file, gone at the end. The pipe was read whole into memory: 304 MB.
 */
/*
 * 4000 MPI ranks of 80 messages each (2.6 million events, 96 MB): the ranks' notes and
 * operations have bounds of their own (2^19 each), said; every pass over them is n log n.
 */
Test(harm, a_recording_of_4000_mpi_ranks_stays_under_the_converters_bound, .timeout = 60)
{
	char *dir = scratch_dir();
	struct converted c;
	convert_hostile(dir, (const char *[]){"ranks", "4000", "80", NULL}, false, &c);
	expect_bounded(&c, "4000 MPI ranks", 0,
		       "more than 524288 MPI messages: the later ones do not align the ranks' "
		       "clocks\n");
	cr_expect(strstr(c.err, "MPI ranks 0 to 3999 (4000 of 4000) on 16 hosts") != NULL, "%s",
		  c.err);
	free(c.err);
	tp_remove_temp_dir(dir);
}

Test(harm, a_recording_through_a_pipe_stays_under_the_converters_bound, .timeout = 60)
{
	char *dir = scratch_dir();
	struct converted c;
	convert_hostile(dir, (const char *[]){"stacks", "150000", NULL}, true, &c);
	expect_bounded(&c, "310 MB of stacks through a pipe", 0,
		       "taskprobe-timeline: 150000 events\n");
	cr_expect_eq(entries(dir, ""), 2, "the pipe's copy was left in %s", dir); /* . .. */
	free(c.err);
	tp_remove_temp_dir(dir);
}

/* tasks(N) of omp_fib: its explicit tasks. */
static unsigned fib_tasks(unsigned n)
{
	return n < 2 ? 0 : 2 + fib_tasks(n - 1) + fib_tasks(n - 2);
}

/*
 * The records of the recording `data` (of `size` bytes: whole segments and chunks), and in
 * *spawns its task-spawn events (each in a record of its own, compact or not).
 */
static void spawn_seen(const struct tp_recording_chunk *chunk, uint64_t word, void *spawns)
{
	(void)chunk;
	*(uint64_t *)spawns += tp_record_type(word) == TP_RECORD_TASK_SPAWN ||
			       tp_record_type(word) == TP_RECORD_TASK_SPAWNED;
}

static uint64_t records_of(const char *data, size_t size, uint64_t *spawns)
{
	*spawns = 0;
	return tp_recording_walk(data, size, spawn_seen, spawns);
}

/*
 * What a recorded task costs the recording: a recursive fib's (OpenMP, two threads) at most 6
 * records and 96 bytes (version 9's compact records: spawn and wake, each poll with its start,
 * end, terminate and park, one record each), and every task is still in it. Version 7 wrote a
 * record per probe: 13 records and about 200 bytes a task.
 */
Test(harm, a_recorded_recursive_task_costs_at_most_6_records_and_96_bytes, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	const char *fib = tp_require_program(tp_target("omp_fib"), "clang and libomp-dev");
	char *dir = scratch_dir();
	struct tp_run run;
	const unsigned n = 18, tasks = fib_tasks(n);
	script(&run,
	       "cd %s\nOMP_NUM_THREADS=2 LD_PRELOAD=$SHIM TASKPROBE_RECORD=$PWD/recording %s %u\n"
	       "$TP_TIMELINE --count -o /dev/null recording",
	       dir, fib, n);
	cr_assert_eq(run.status, 0, "%s", run.err);
	char path[4200];
	snprintf(path, sizeof path, "%s/recording", dir);
	size_t size;
	char *data = tp_read_file(path, &size);
	uint64_t spawns, records = records_of(data, size, &spawns);
	/* the explicit tasks, the two threads' implicit ones and the initial task */
	cr_expect_eq(spawns, tasks + 3);
	cr_expect(strstr(run.err, " events\n") != NULL, "%s", run.err);
	cr_expect_leq(records, 6 * (uint64_t)tasks, "%.1f records a task", (double)records / tasks);
	cr_expect_leq(size, 96 * (uint64_t)tasks, "%.1f bytes a task", (double)size / tasks);
	printf("a recursive fib's task: %.1f records, %.1f bytes\n", (double)records / tasks,
	       (double)size / tasks);
	free(data);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

/* A recording of one segment and one chunk being made: its words. */
struct made_recording {
	uint64_t words[128];
	size_t n;
	uint32_t records;
};

static void made_record(struct made_recording *m, unsigned type, unsigned small, uint64_t time,
			unsigned nargs, ...)
{
	cr_assert_lt(m->n + 1 + nargs, sizeof m->words / sizeof m->words[0]);
	m->words[m->n++] = tp_record_word(type, 1 + nargs, small, time);
	va_list ap;
	va_start(ap, nargs);
	for (unsigned i = 0; i < nargs; i++)
		m->words[m->n++] = va_arg(ap, uint64_t);
	va_end(ap);
	m->records++;
}

/* Writes `m` as DIR/`name`, a recording of `version` (CLOCK_MONOTONIC: times are ns). */
static void made_write(const struct made_recording *m, const char *dir, const char *name,
		       uint32_t version)
{
	struct tp_recording_header h = {.magic = TP_RECORDING_MAGIC,
					.version = version,
					.header_size = sizeof h,
					.pid = 4242,
					.clock = TP_CLOCK_MONOTONIC,
					.clock_time = 1000,
					.ns = 1000,
					.comm = "made"};
	struct tp_recording_chunk c = {.magic = TP_CHUNK_MAGIC,
				       .size = (uint32_t)(sizeof c + 8 * m->n),
				       .tid = 4242,
				       .records = m->records,
				       .base_time = 1000000,
				       .clock_time = 2000000,
				       .ns = 2000000,
				       .comm = "made"};
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(&h, sizeof h, 1, f), 1);
	cr_assert_eq(fwrite(&c, sizeof c, 1, f), 1);
	cr_assert_eq(fwrite(m->words, 8, m->n, f), m->n);
	cr_assert_eq(fclose(f), 0);
}

/*
 * The recording round trip: version 9's compact records, every event they may hold, give the
 * converter the timeline and the analysis of the records of the probes (version 7's) that hold
 * the same events, byte for byte.
 */
Test(harm, compact_records_give_back_the_events_of_their_probes, .timeout = 60)
{
	struct made_recording v7 = {0}, v9 = {0};
	const uint64_t none = UINT64_MAX; /* a wait's timeout: none */
	/* task 2 spawned by task 1 and woken by it at once */
	made_record(&v9, TP_RECORD_TASK_SPAWNED, TP_EXECUTOR_OPENMP | TP_COMPACT_WOKEN, 100, 2,
		    tp_compact_pair(2, 1), tp_compact_pair(0, 0));
	made_record(&v7, TP_RECORD_TASK_SPAWN, TP_EXECUTOR_OPENMP, 100, 4, 2, 1, 0, 0);
	made_record(&v7, TP_RECORD_TASK_WAKE, 0, 100, 2, 2, 1);
	/* a poll of it unparked, ended 50 ns later, parked */
	made_record(&v9, TP_RECORD_TASK_POLLED,
		    TP_COMPACT_UNPARKED | TP_COMPACT_STARTED | TP_COMPACT_ENDED | TP_COMPACT_PARKED,
		    200, 1, tp_compact_pair(2, 50));
	made_record(&v7, TP_RECORD_WORKER_UNPARK, 0, 200, 0);
	made_record(&v7, TP_RECORD_TASK_POLL_START, 0, 200, 1, 2);
	made_record(&v7, TP_RECORD_TASK_POLL_END, tp_record_poll_end_small(0, 0), 250, 1, 2);
	made_record(&v7, TP_RECORD_WORKER_PARK, 0, 250, 0);
	/* task 3, woken apart; polled until it waits in a taskwait, parked */
	made_record(&v9, TP_RECORD_TASK_SPAWNED, TP_EXECUTOR_OPENMP | TP_RECORD_SPAWN_UNDEFERRED,
		    300, 2, tp_compact_pair(3, 1), tp_compact_pair(0, 0));
	made_record(&v7, TP_RECORD_TASK_SPAWN, TP_EXECUTOR_OPENMP | TP_RECORD_SPAWN_UNDEFERRED, 300,
		    4, 3, 1, 0, 0);
	made_record(&v9, TP_RECORD_TASK_WAKE, 0, 310, 2, 3, 1);
	made_record(&v7, TP_RECORD_TASK_WAKE, 0, 310, 2, 3, 1);
	made_record(&v9, TP_RECORD_TASK_POLLED, TP_COMPACT_UNPARKED, 400, 1, 0);
	made_record(&v7, TP_RECORD_WORKER_UNPARK, 0, 400, 0);
	made_record(&v9, TP_RECORD_TASK_POLLED, TP_COMPACT_STARTED, 410, 1, 3);
	made_record(&v7, TP_RECORD_TASK_POLL_START, 0, 410, 1, 3);
	made_record(&v9, TP_RECORD_TASK_PAUSED,
		    tp_record_poll_end_small(0, TP_SYNC_TASKWAIT) | TP_COMPACT_PARKED, 500, 1,
		    tp_compact_pair(3, 0));
	made_record(&v7, TP_RECORD_TASK_POLL_END, tp_record_poll_end_small(0, TP_SYNC_TASKWAIT),
		    500, 1, 3);
	made_record(&v7, TP_RECORD_WORKER_PARK, 0, 500, 0);
	/* task 2 polled again, cancelled 30 ns in: its poll ends done, parked */
	made_record(&v9, TP_RECORD_TASK_POLLED,
		    TP_COMPACT_UNPARKED | TP_COMPACT_STARTED | TP_COMPACT_TERMINATED |
			    TP_TASK_CANCELLED << TP_COMPACT_REASON_SHIFT | TP_COMPACT_ENDED |
			    TP_COMPACT_PARKED,
		    600, 1, tp_compact_pair(2, 30));
	made_record(&v7, TP_RECORD_WORKER_UNPARK, 0, 600, 0);
	made_record(&v7, TP_RECORD_TASK_POLL_START, 0, 600, 1, 2);
	made_record(&v7, TP_RECORD_TASK_TERMINATE, TP_TASK_CANCELLED, 630, 1, 2);
	made_record(&v7, TP_RECORD_TASK_POLL_END, tp_record_poll_end_small(1, 0), 630, 1, 2);
	made_record(&v7, TP_RECORD_WORKER_PARK, 0, 630, 0);
	/* task 3 back after its taskwait, ends: terminate, its poll's end and a park at once */
	made_record(&v9, TP_RECORD_TASK_POLLED, TP_COMPACT_UNPARKED | TP_COMPACT_STARTED, 700, 1,
		    3);
	made_record(&v7, TP_RECORD_WORKER_UNPARK, 0, 700, 0);
	made_record(&v7, TP_RECORD_TASK_POLL_START, 0, 700, 1, 3);
	made_record(&v9, TP_RECORD_WAIT_START, TP_WAIT_FUTEX, 710, 4, 0x9000, none, 3, 0);
	made_record(&v7, TP_RECORD_WAIT_START, TP_WAIT_FUTEX, 710, 4, 0x9000, none, 3, 0);
	made_record(&v9, TP_RECORD_WAIT_END, TP_WAIT_FUTEX, 720, 3, 0x9000, 0, 3);
	made_record(&v7, TP_RECORD_WAIT_END, TP_WAIT_FUTEX, 720, 3, 0x9000, 0, 3);
	made_record(&v9, TP_RECORD_TASK_ENDED,
		    TP_TASK_COMPLETED << TP_COMPACT_REASON_SHIFT | TP_COMPACT_ENDED |
			    TP_COMPACT_PARKED,
		    800, 1, 3);
	made_record(&v7, TP_RECORD_TASK_TERMINATE, TP_TASK_COMPLETED, 800, 1, 3);
	made_record(&v7, TP_RECORD_TASK_POLL_END, tp_record_poll_end_small(1, 0), 800, 1, 3);
	made_record(&v7, TP_RECORD_WORKER_PARK, 0, 800, 0);
	/* a worker parked by a wait without a timeout, which ends 100 ns later (-4: EINTR) */
	made_record(&v9, TP_RECORD_WAITED,
		    TP_WAIT_CONDVAR | TP_COMPACT_WAIT_PARKED | TP_COMPACT_WAIT_UNPARKED |
			    TP_COMPACT_WAIT_ENDED,
		    900, 3, 0x1000, tp_compact_pair(0, 0), tp_compact_pair((uint32_t)-4, 100));
	made_record(&v7, TP_RECORD_WORKER_PARK, 0, 900, 0);
	made_record(&v7, TP_RECORD_WAIT_START, TP_WAIT_CONDVAR, 900, 4, 0x1000, none, 0, 0);
	made_record(&v7, TP_RECORD_WAIT_END, TP_WAIT_CONDVAR, 1000, 3, 0x1000, (uint64_t)-4, 0);
	made_record(&v7, TP_RECORD_WORKER_UNPARK, 0, 1000, 0);
	/* one with a timeout that ends 20 ns in; one left open */
	made_record(&v9, TP_RECORD_WAITED, TP_WAIT_SEMAPHORE | TP_COMPACT_WAIT_ENDED, 1100, 4,
		    0x2000, tp_compact_pair(0, 0), tp_compact_pair(0, 20), 5000);
	made_record(&v7, TP_RECORD_WAIT_START, TP_WAIT_SEMAPHORE, 1100, 4, 0x2000, 5000, 0, 0);
	made_record(&v7, TP_RECORD_WAIT_END, TP_WAIT_SEMAPHORE, 1120, 3, 0x2000, 0, 0);
	made_record(&v9, TP_RECORD_WAITED, TP_WAIT_MUTEX, 1200, 3, 0x3000, tp_compact_pair(0, 0),
		    0);
	made_record(&v7, TP_RECORD_WAIT_START, TP_WAIT_MUTEX, 1200, 4, 0x3000, none, 0, 0);
	char *dir = scratch_dir();
	made_write(&v7, dir, "v7.rec", 7);
	made_write(&v9, dir, "v9.rec", TP_RECORDING_VERSION);
	struct tp_run run;
	script(&run,
	       "cd %s\nfor v in v7 v9; do $TP_TIMELINE -o $v.json $v.rec && $TP_TIMELINE "
	       "--critical-path "
	       "-o $v.speedscope.json $v.rec && $TP_TIMELINE --analyze $v.rec > $v.analysis || "
	       "exit; "
	       "done\ncmp v7.json v9.json && cmp v7.speedscope.json v9.speedscope.json && "
	       "cmp v7.analysis v9.analysis && $TP_TIMELINE --count -o /dev/null v9.rec",
	       dir);
	cr_expect_eq(run.status, 0, "%s%s", run.out, run.err);
	cr_expect(strstr(run.err, ": 31 events") != NULL, "%s", run.err);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

/*
 * Recordings of the versions before (the corpus: version 2's site texts, 5's code sites, 7's
 * sync sites and records of the probes) are converted as ever: each event, and analysed.
 */
Test(harm, recordings_of_earlier_versions_are_converted_as_before, .timeout = 60)
{
	static const struct {
		const char *file;
		unsigned events;
	} corpus[] = {
		{"omp_fib_4.rec", 111},
		{"omp_fib_4_v5.rec", 111},
		{"omp_fib_6_v7.rec", 259},
	};
	for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++) {
		struct tp_run run;
		script(&run,
		       "f=%s/%s\n$TP_TIMELINE --count -o /dev/null $f && $TP_TIMELINE --analyze $f "
		       ">/dev/null",
		       TP_CORPUS_DIR, corpus[i].file);
		char events[64];
		snprintf(events, sizeof events, ": %u events\n", corpus[i].events);
		cr_expect_eq(run.status, 0, "%s: %s", corpus[i].file, run.err);
		cr_expect(strstr(run.err, events) != NULL, "%s: no \"%s\" in: %s", corpus[i].file,
			  events, run.err);
		tp_run_free(&run);
	}
}

/*
 * A worker's blocking wait (a pool thread parks around each, TASKPROBE_WORKERS) is one record:
 * its park, start, end and unpark, two clock reads. Version 7 wrote four records, one a probe.
 */
Test(harm, a_workers_wait_is_one_record, .timeout = 60)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	struct tp_run run;
	script(&run,
	       "cd %s\nTASKPROBE_WORKERS='pool-*' LD_PRELOAD=$SHIM TASKPROBE_RECORD=$PWD/recording "
	       "$TARGETS/named_workers && $TP_TIMELINE -o /dev/null recording",
	       dir);
	cr_assert_eq(run.status, 0, "%s", run.err);
	char path[4200];
	snprintf(path, sizeof path, "%s/recording", dir);
	size_t size;
	char *data = tp_read_file(path, &size);
	unsigned by_type[TP_RECORD_TYPES_END] = {0};
	for (size_t at = 0; at < size;) {
		if (memcmp(data + at, TP_RECORDING_MAGIC, 8) == 0) {
			struct tp_recording_header h;
			memcpy(&h, data + at, sizeof h);
			at += h.header_size;
			continue;
		}
		struct tp_recording_chunk c;
		memcpy(&c, data + at, sizeof c);
		for (size_t r = at + sizeof c; r < at + c.size;) {
			uint64_t word;
			memcpy(&word, data + r, sizeof word);
			by_type[tp_record_type(word)]++;
			r += tp_record_bytes(word);
		}
		at += c.size;
	}
	/* the pool threads' 10 parked waits, the other thread's 5 and the joins: whole records */
	cr_expect_eq(by_type[TP_RECORD_WORKER_PARK] + by_type[TP_RECORD_WORKER_UNPARK] +
			     by_type[TP_RECORD_WAIT_START] + by_type[TP_RECORD_WAIT_END],
		     0,
		     "%u parks, %u unparks, %u wait-starts, %u wait-ends in records of their own",
		     by_type[TP_RECORD_WORKER_PARK], by_type[TP_RECORD_WORKER_UNPARK],
		     by_type[TP_RECORD_WAIT_START], by_type[TP_RECORD_WAIT_END]);
	cr_expect_geq(by_type[TP_RECORD_WAITED], 15);
	free(data);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}
