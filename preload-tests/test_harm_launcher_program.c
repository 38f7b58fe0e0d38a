// SPDX-License-Identifier: MIT
/*
 * Do no harm (launcher, the suite `harm`: see test_harm.c): the program is run as the program it
 * is, a name that is a shell builtin too; no path from the environment is ever evaluated as shell
 * words; the live statistics file `taskprobe run`'s program leaves (killed, exec'ed, its
 * privileges dropped) goes at its end, and no other; a single-threaded program run with the exit
 * report ends as it would without it.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "harness_internal.h"
#include "taskprobe_live.h"

Test(harm, programs_named_as_shell_builtins_run_as_programs)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	static const struct {
		const char *argv[5];
		int status;
		const char *out;
	} runs[] = {
		{{"true"}, 0, ""},
		{{"false"}, 1, ""},
		{{"echo", "hi"}, 0, "hi\n"},
		{{"printf", "%s-%s\\n", "a", "b"}, 0, "a-b\n"},
		{{"test", "1", "=", "2"}, 1, ""},
		{{"[", "1", "=", "1", "]"}, 0, ""},
		{{"kill", "-l", "11"}, 0, "SEGV\n"},
		{{"pwd"}, 0, NULL},
	};
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		const char *args[10] = {"run", "--"};
		size_t n = 2;
		for (size_t k = 0; k < 5 && runs[i].argv[k] != NULL; k++)
			args[n++] = runs[i].argv[k];
		args[n] = NULL;
		struct tp_run run;
		tp_launch(args, NULL, &run);
		cr_expect_eq(run.status, runs[i].status, "%s: %s", runs[i].argv[0], run.err);
		cr_expect_eq(strstr(run.err, "taskprobe: "), NULL, "%s: %s", runs[i].argv[0],
			     run.err);
		if (runs[i].out != NULL)
			cr_expect_str_eq(run.out, runs[i].out, "%s", runs[i].argv[0]);
		else
			cr_expect(run.out[0] == '/', "%s: %s", runs[i].argv[0], run.out);
		tp_run_free(&run);
	}
}

Test(harm, a_tmpdir_with_quotes_is_a_name_never_shell_words)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	/*
	 * TMPDIR=DIR/t' 'DIR/victim' ' (a directory, made): a trap "rm -rf '$dir'" would remove
	 * DIR/t, DIR/victim and /tmp.XXXXXXXXXX.
	 */
	char *dir = tp_make_temp_dir("harm");
	char victim[300], keep[320], tmpdir[700], setting[720];
	snprintf(victim, sizeof victim, "%s/victim", dir);
	snprintf(keep, sizeof keep, "%s/keep", victim);
	snprintf(tmpdir, sizeof tmpdir, "%s/t' '%s' '", dir, victim);
	char *command;
	cr_assert(asprintf(&command, "mkdir -p -- \"%s\" '%s' && touch -- '%s'", tmpdir, victim,
			   keep) > 0);
	cr_assert_eq(system(command), 0, "%s", command);
	free(command);
	snprintf(setting, sizeof setting, "TMPDIR=%s", tmpdir);
	char json[320];
	snprintf(json, sizeof json, "%s/out.json", dir);
	const char *const runs[][8] = {
		{"record", "-o", json, "--", "/bin/true", NULL},
		{"top", "--once", "--", "/bin/true", NULL},
		{"top", "--batch", "--", "/bin/true", NULL},
	};
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		struct tp_run run;
		tp_launch(runs[i], (const char *[]){setting, NULL}, &run);
		cr_expect_eq(run.status, 0, "%s: %s", runs[i][0], run.err);
		cr_expect_eq(access(keep, F_OK), 0, "%s removed %s", runs[i][0], victim);
		tp_run_free(&run);
	}
	tp_remove_temp_dir(dir);
}

/*
 * Waits until `dir` holds no live statistics file of process `pid`: the launcher's program is
 * the launcher itself (it exec'ed), and what removes its file when it ended runs beside it, as
 * soon as it ended. Up to a minute, for a loaded machine; whether it went.
 */
static bool live_file_goes(const char *dir, pid_t pid)
{
	char path[300];
	snprintf(path, sizeof path, "%s/" TP_LIVE_FILE_PREFIX "%d", dir, (int)pid);
	for (int waited_ms = 0; waited_ms < 60000; waited_ms += 20) {
		if (access(path, F_OK) != 0)
			return true;
		tp_sleep_ms(20);
	}
	return false;
}

/* The pid of a live statistics file in `dir` other than `pid`'s, waiting for one; 0 if none. */
static pid_t other_live_file(const char *dir, pid_t pid)
{
	for (int waited_ms = 0; waited_ms < 60000; waited_ms += 20) {
		DIR *d = opendir(dir);
		cr_assert_not_null(d);
		struct dirent *e;
		long found = 0;
		const size_t prefix = sizeof TP_LIVE_FILE_PREFIX - 1;
		while (found == 0 && (e = readdir(d)) != NULL) {
			char *end;
			long n = strncmp(e->d_name, TP_LIVE_FILE_PREFIX, prefix) == 0
					 ? strtol(e->d_name + prefix, &end, 10)
					 : 0;
			if (n > 0 && *end == '\0' && n != (long)pid)
				found = n;
		}
		closedir(d);
		if (found != 0)
			return (pid_t)found;
		tp_sleep_ms(20);
	}
	return 0;
}

Test(harm, run_removes_the_live_file_its_program_leaves_and_no_other, .timeout = 300)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *dir = tp_make_temp_dir("harm");
	char setting[300];
	snprintf(setting, sizeof setting, "TASKPROBE_LIVE_DIR=%s", dir);
	const char *static_hello = tp_target("static_hello");
	/* each ending where the shim cannot remove the file itself */
	const struct {
		const char *what, *program[8];
		int status;
		const char *out;
		bool as_root; /* dropping privileges */
	} endings[] = {
		{"killed by SIGTERM", {"/bin/sh", "-c", "kill -TERM $$"}, 128 + 15, "", false},
		{"SIGABRT (abort())",
		 {"/bin/sh", "-c", "ulimit -c 0; kill -ABRT $$"},
		 128 + 6,
		 "",
		 false},
		{"exec'ed a static program",
		 {"/bin/sh", "-c", "exec \"$0\"", static_hello},
		 0,
		 "hello\n",
		 false},
		{"dropped its privileges",
		 {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
		  "/bin/echo", "dropped"},
		 0,
		 "dropped\n",
		 true},
	};
	for (size_t i = 0; i < sizeof endings / sizeof endings[0]; i++) {
		if (endings[i].as_root &&
		    (geteuid() != 0 || access(endings[i].program[0], X_OK) != 0))
			continue;
		const char *args[12] = {TP_CONTRIB_DIR "/taskprobe", "run", "--"};
		size_t n = 3;
		for (size_t k = 0; endings[i].program[k] != NULL; k++)
			args[n++] = endings[i].program[k];
		args[n] = NULL;
		struct tp_run run;
		tp_start(TP_PLAIN, args, (const char *[]){setting, NULL}, &run);
		tp_finish(&run);
		cr_expect_eq(run.status, endings[i].status, "%s: %s", endings[i].what, run.err);
		cr_expect_str_eq(run.out, endings[i].out, "%s", endings[i].what);
		cr_expect(live_file_goes(dir, run.pid), "%s: its live statistics file is left",
			  endings[i].what);
		tp_run_free(&run);
	}
	/*
	 * A child that outlives the program keeps its file (it runs on: another run's file is as
	 * much another process's)
	 */
	struct tp_run run;
	tp_start(TP_PLAIN,
		 (const char *[]){TP_CONTRIB_DIR "/taskprobe", "run", "--", "/bin/sh", "-c",
				  "sleep 1000 > /dev/null 2>&1 & kill -TERM $$", NULL},
		 (const char *[]){setting, NULL}, &run);
	tp_finish(&run);
	cr_expect_eq(run.status, 128 + 15, "%s", run.err);
	cr_expect(live_file_goes(dir, run.pid), "the program's live statistics file is left");
	pid_t child = other_live_file(dir, run.pid);
	cr_expect_neq(child, 0, "the child's live statistics file was removed");
	if (child != 0) {
		char path[300];
		snprintf(path, sizeof path, "%s/" TP_LIVE_FILE_PREFIX "%d", dir, (int)child);
		cr_expect_eq(access(path, F_OK), 0, "%s", path);
		kill(child, SIGKILL);
	}
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

/*
 * A program that never creates a thread and waits once, run by the launcher (its LD_AUDIT) with
 * the exit report: the report names the wait's site after the destructors, loading libdw then,
 * where glibc (its bug 31717) set libc's thread-local storage up again for such a process (errno,
 * the ctype tables, malloc's thread cache zeroed): the report's next duration crashed it in
 * printf, its output lost, status 139 (CPython polling once did the same). The program's output
 * and status are its own, and the report names the site.
 */
Test(harm, a_single_threaded_program_run_with_the_report_ends_as_its_own)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	struct tp_run run;
	tp_launch((const char *[]){"run", "--", tp_target("late_free_wait"), NULL},
		  (const char *[]){"TASKPROBE_REPORT=stderr", NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "taken\n", "%s", run.err);
	cr_expect(strstr(run.err, "1 semaphore wait at main (late_free_wait.c:") != NULL, "%s",
		  run.err);
	tp_run_free(&run);
}

/*
 * A command as typed (""), then run by `taskprobe record -o JSON`, by `taskprobe top --once` and
 * by `taskprobe top` (its console beside the program, printing snapshots: no terminal here).
 */
enum { PREFIXES = 4 };
struct prefixes {
	char record[600], once[600], console[600];
	const char *each[PREFIXES];
};

static void command_prefixes(struct prefixes *p, const char *json)
{
	snprintf(p->record, sizeof p->record, "%s/taskprobe record -o %s --", TP_CONTRIB_DIR, json);
	snprintf(p->once, sizeof p->once, "%s/taskprobe top --once --", TP_CONTRIB_DIR);
	snprintf(p->console, sizeof p->console, "%s/taskprobe top --", TP_CONTRIB_DIR);
	p->each[0] = "";
	p->each[1] = p->record;
	p->each[2] = p->once;
	p->each[3] = p->console;
}

/*
 * Ctrl-C in a script: `bash -c "PREFIX sh -c 'sleep 5; :'; echo after"` in a process group of
 * its own, SIGINT sent to the group after two seconds. The plain command and its child die of it,
 * and so does the script (bash stops at a Ctrl-C that killed its command); under `record` and
 * `top` the launcher, which still converts or prints what was counted, ends as the program did:
 * it exited 130, and the script went on ("after", status 0). `top` printing snapshots, whose
 * program is in a group of its own, died of it with its console and left the program running;
 * then it sent the program alone the INT, and its child (a script's, make's) ran on.
 */
Test(harm, a_ctrl_c_that_kills_the_program_ends_the_launcher_as_it, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *json = tp_make_temp("harm-ctrl-c-json");
	struct prefixes prefixes;
	command_prefixes(&prefixes, json);
	for (size_t i = 0; i < PREFIXES; i++) {
		struct tp_run run;
		tp_run(TP_PLAIN,
		       (const char *[]){
			       "/bin/bash", "-c",
			       "set -m; bash -c \"$1 sh -c 'sleep 5.$$; :'; echo after\" & "
			       "pid=$!; sleep 2; kill -INT -$pid; sleep 1; "
			       "pgrep -fx \"sleep 5.$$\" >/dev/null && echo left running; "
			       "wait $pid; echo \"status $?\"; pkill -fx \"sleep 5.$$\"; exit 0",
			       "ctrl-c", prefixes.each[i], NULL},
		       NULL, &run);
		cr_expect_str_eq(run.out, "status 130\n", "[%s]: %s", prefixes.each[i], run.err);
		tp_run_free(&run);
	}
	unlink(json);
	free(json);
}

/*
 * A signal sent to the launcher's pid alone (a supervisor's `kill PID`): `PREFIX sleep` in the
 * background of a script, SIGTERM or SIGINT sent to its pid after two seconds. The plain command
 * dies of it; so does the program under `record` and `top`, and then the launcher as it did; a
 * program that handles SIGTERM and exits 3 leaves the launcher's status 3. The launcher died of
 * SIGTERM and left the program running on, orphaned, and it ignored SIGINT until the program
 * ended by itself; `top` ignored both while its console ran (a foreground command holds the
 * shell's traps), and ended 0.
 */
Test(harm, a_signal_sent_to_the_launcher_alone_reaches_the_program, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *json = tp_make_temp("harm-kill-pid-json");
	struct prefixes prefixes;
	command_prefixes(&prefixes, json);
	/* the signal, the status it leaves, and the program: a sleep, or a shell whose handler
	 * ends its sleep and exits 3 (the launcher's status is the program's, not the signal's) */
	const char *const signals[][3] = {
		{"TERM", "143", "sleep"}, {"INT", "130", "sleep"}, {"TERM", "3", "handler"}};
	for (size_t i = 0; i < PREFIXES; i++)
		for (size_t s = 0; s < sizeof signals / sizeof signals[0]; s++) {
			struct tp_run run;
			/* the sleep's length its own (this script's pid): none other's is counted */
			tp_run(TP_PLAIN,
			       (const char *[]){
				       "/bin/bash", "-c",
				       "program=(sleep 9.$$); [ $3 = sleep ] || program=(bash -c "
				       "\"trap 'kill \\$!; exit 3' TERM; sleep 9.$$ & wait\"); "
				       "set -m; $1 \"${program[@]}\" & pid=$!; sleep 2; kill -$2 "
				       "$pid; "
				       "wait $pid; echo \"status $?\"; sleep 0.2; "
				       "pgrep -fx \"sleep 9.$$\" >/dev/null && echo left running; "
				       "pkill -fx \"sleep 9.$$\"; exit 0",
				       "kill-pid", prefixes.each[i], signals[s][0], signals[s][2],
				       NULL},
			       NULL, &run);
			char want[32];
			snprintf(want, sizeof want, "status %s\n", signals[s][1]);
			cr_expect_str_eq(run.out, want, "[%s] %s: %s", prefixes.each[i],
					 signals[s][0], run.err);
			tp_run_free(&run);
		}
	unlink(json);
	free(json);
}
