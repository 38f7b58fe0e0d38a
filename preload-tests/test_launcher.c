// SPDX-License-Identifier: MIT
/*
 * contrib/taskprobe (the launcher) and taskprobe-timeline (the converter), run as a user runs
 * them: refusals with their messages, exit statuses passed through, a script traced from the
 * program's first instruction, a perf recording turned into a timeline; the converter on
 * malformed input and under the fuzzer.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "harness_internal.h"

TP_SUITE_NOT_UNDER(launcher, TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);

Test(launcher, refuses_a_static_program_with_a_reason)
{
	struct tp_run run;
	tp_launch((const char *[]){"run", "--", tp_target("static_hello"), NULL}, NULL, &run);
	cr_expect_eq(run.status, 2);
	cr_expect(strstr(run.err, "statically linked") != NULL, "%s", run.err);
	cr_expect_str_eq(run.out, "");
	tp_run_free(&run);
}

Test(launcher, refuses_a_setuid_program_of_another_user)
{
	if (geteuid() != 0)
		tp_skip_unless_ci("making a file of another user's needs root");
	char path[] = "/tmp/taskprobe-setuid-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	size_t len;
	char *true_program = tp_read_file("/bin/true", &len);
	cr_assert_eq(write(fd, true_program, len), (ssize_t)len);
	free(true_program);
	close(fd);
	cr_assert_eq(chown(path, 65534, 65534), 0);
	cr_assert_eq(chmod(path, 04755), 0);
	struct tp_run run;
	tp_launch((const char *[]){"run", "--", path, NULL}, NULL, &run);
	unlink(path);
	cr_expect_eq(run.status, 2);
	cr_expect(strstr(run.err, "setuid") != NULL, "%s", run.err);
	tp_run_free(&run);
}

Test(launcher, run_keeps_the_output_and_the_exit_status)
{
	const char *threads[] = {tp_target("threads"), NULL};
	struct tp_run plain, launched;
	tp_run(TP_PLAIN, threads, NULL, &plain);
	tp_launch((const char *[]){"run", "--", tp_target("threads"), NULL}, NULL, &launched);
	cr_expect_eq(launched.status, plain.status);
	cr_expect_str_eq(launched.out, plain.out);
	tp_run_free(&plain);
	tp_run_free(&launched);

	tp_launch((const char *[]){"run", "--", "sh", "-c", "echo $LD_PRELOAD; exit 7", NULL}, NULL,
		  &launched);
	cr_expect_eq(launched.status, 7);
	cr_expect(strstr(launched.out, "libtaskprobe.so") != NULL, "%s", launched.out);
	tp_run_free(&launched);
}

/*
 * `taskprobe run`'s common case (a dynamically linked 64-bit program that needs no libgomp) runs
 * without the launcher's shell (contrib/launcher/taskprobe_run.c), which hands anything else
 * back to it (TASKPROBE_RUN_CHECKED). The program gets the same either way: arguments and the
 * name it was given, environment, descriptors (one the user gave it on 4 too), signals. Which
 * way ran is told by an ldconfig first in PATH that leaves a mark: only the shell asks it.
 */
Test(launcher, run_without_its_shell_gives_the_program_what_the_shell_gives, .timeout = 60)
{
	char *dir = tp_make_temp_dir("fast-run");
	char ldconfig[4096], asked[4096], named[4096], script[4096], path[4096], with_fd[8192];
	snprintf(ldconfig, sizeof ldconfig, "%s/ldconfig", dir);
	snprintf(asked, sizeof asked, "%s/asked", dir);
	snprintf(named, sizeof named, "%s/exec_state", dir);
	snprintf(script, sizeof script, "%s/state.sh", dir);
	const char *real = access("/usr/sbin/ldconfig", X_OK) == 0 ? "/usr/sbin/ldconfig"
								   : "/sbin/ldconfig";
	FILE *f = fopen(ldconfig, "w");
	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\n: > '%s'\nexec %s \"$@\"\n", asked, real);
	fclose(f);
	f = fopen(script, "w");
	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\nexec exec_state \"$@\"\n");
	fclose(f);
	cr_assert_eq(chmod(ldconfig, 0755), 0);
	cr_assert_eq(chmod(script, 0755), 0);
	cr_assert_eq(symlink(tp_target("exec_state"), named), 0);
	snprintf(path, sizeof path, "PATH=%s:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", dir);
	snprintf(with_fd, sizeof with_fd, "exec 4</dev/null; exec '%s' run -- exec_state fd",
		 TP_CONTRIB_DIR "/taskprobe");
	struct form {
		const char *argv[8];
		const char *env[4];
		bool by_the_shell;
	} forms[] = {
		/* by its path, with arguments */
		{{TP_CONTRIB_DIR "/taskprobe", "run", "--", tp_target("exec_state"), "a", "b c"},
		 {path},
		 false},
		/* by its name in PATH, without "--", with a preload and settings of the user's */
		{{TP_CONTRIB_DIR "/taskprobe", "run", "exec_state", "--", "x"},
		 {path, "TASKPROBE_LIVE=0", "LD_PRELOAD=libm.so.6"},
		 false},
		/* a descriptor the user gave on 4 */
		{{"/bin/sh", "-c", with_fd}, {path}, false},
		/* a script: the shell's */
		{{TP_CONTRIB_DIR "/taskprobe", "run", "--", script, "y"}, {path}, true},
	};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		const char *env[6];
		size_t n = 0;
		for (; forms[i].env[n] != NULL; n++)
			env[n] = forms[i].env[n];
		env[n] = NULL;
		struct tp_run fast, shell;
		unlink(asked);
		tp_run(TP_PLAIN, forms[i].argv, env, &fast);
		bool fast_asked = access(asked, F_OK) == 0;
		unlink(asked);
		env[n] = "TASKPROBE_RUN_CHECKED=1";
		env[n + 1] = NULL;
		tp_run(TP_PLAIN, forms[i].argv, env, &shell);
		cr_expect_eq(fast.status, 0, "%zu: %s", i, fast.err);
		cr_expect_eq(shell.status, 0, "%zu: %s", i, shell.err);
		cr_expect_str_eq(fast.out, shell.out, "%zu", i);
		cr_expect_str_eq(fast.err, shell.err, "%zu", i);
		cr_expect(strstr(fast.out, "env LD_PRELOAD=") != NULL &&
				  strstr(fast.out, "/libtaskprobe.so") != NULL,
			  "%zu: %s", i, fast.out);
		cr_expect(i != 2 || strstr(fast.out, "fd 4 /dev/null") != NULL, "%s", fast.out);
		cr_expect_eq(fast_asked, forms[i].by_the_shell, "%zu", i);
		cr_expect(access(asked, F_OK) == 0, "%zu: the shell did not ask ldconfig", i);
		tp_run_free(&fast);
		tp_run_free(&shell);
	}
	tp_remove_temp_dir(dir);
}

Test(launcher, unknown_scripts_and_missing_programs_are_said)
{
	struct tp_run run;
	tp_launch((const char *[]){"trace", "no_such_script", "--", "true", NULL}, NULL, &run);
	cr_expect_eq(run.status, 2);
	cr_expect(strstr(run.err, "no script no_such_script") != NULL &&
			  strstr(run.err, "polls") != NULL,
		  "%s", run.err);
	tp_run_free(&run);
	tp_launch((const char *[]){"run", "--", "/no/such/program", NULL}, NULL, &run);
	cr_expect_eq(run.status, 2);
	cr_expect(strstr(run.err, "no such program") != NULL, "%s", run.err);
	tp_run_free(&run);
	tp_launch((const char *[]){"--help", NULL}, NULL, &run);
	cr_expect_eq(run.status, 0);
	cr_expect(strstr(run.out, "taskprobe trace [-o FILE] SCRIPT") != NULL, "%s", run.out);
	tp_run_free(&run);
}

/*
 * A use of the launcher it refuses, with a program that would make the file `marker` had it run:
 * exit status 2, stderr's first line `first`, the program never started, nothing on stdout.
 * Returns stderr (the caller frees `run`).
 */
static const char *refused_before_the_program(const char *const args[], const char *marker,
					      const char *first, struct tp_run *run)
{
	tp_launch(args, NULL, run);
	cr_expect_eq(run->status, 2, "%s", run->err);
	size_t len = strcspn(run->err, "\n");
	cr_expect(strlen(first) == len && strncmp(run->err, first, len) == 0,
		  "first line: %.*s, not: %s", (int)len, run->err, first);
	cr_expect_neq(access(marker, F_OK), 0, "the program ran: %s", run->err);
	cr_expect_str_eq(run->out, "");
	return run->err;
}

/* Every option of top and record (their tools' too) is checked before the program starts. */
Test(launcher, bad_options_are_refused_before_the_program_starts, .timeout = 60)
{
	char *dir = tp_make_temp_dir("option-errors");
	char marker[4200], touch[4300], json[4200];
	snprintf(marker, sizeof marker, "%s/the program ran", dir);
	snprintf(touch, sizeof touch, "touch '%s'", marker);
	snprintf(json, sizeof json, "%s/timeline.json", dir);
	static const struct {
		const char *options[5], *first;
	} cases[] = {
		{{"top", "--once", "--sort", "bogus"},
		 "taskprobe-top: --sort bogus: no such column"},
		{{"top", "--interval", "0"},
		 "taskprobe-top: --interval 0: give seconds from 0.05 to 3600"},
		{{"record", "--format", "bogus"},
		 "taskprobe-timeline: --format bogus: json or speedscope"},
		{{"record", "--max-size", "abc"},
		 "taskprobe-timeline: --max-size abc: a size is bytes, or a number with k, M or G "
		 "(0: no limit)"},
		{{"record", "--from", "xyz"},
		 "taskprobe-timeline: --from xyz: a time is seconds from the first event, or a "
		 "number with ns, us, ms, s or m"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *args[16];
		size_t n = 0;
		for (size_t k = 0; cases[i].options[k] != NULL; k++)
			args[n++] = cases[i].options[k];
		if (strcmp(args[0], "record") == 0) {
			args[n++] = "-o";
			args[n++] = json;
		}
		const char *program[] = {"--", "sh", "-c", touch, NULL};
		for (size_t k = 0; k < sizeof program / sizeof program[0]; k++)
			args[n++] = program[k];
		struct tp_run run;
		refused_before_the_program(args, marker, cases[i].first, &run);
		cr_expect_neq(access(json, F_OK), 0, "-o's file made: %s", run.err);
		tp_run_free(&run);
	}
	tp_remove_temp_dir(dir);
}

/* A wrong use says what was wrong, then where the usage is: not the whole usage. */
Test(launcher, usage_errors_say_what_was_wrong, .timeout = 60)
{
	char *dir = tp_make_temp_dir("usage-errors");
	char marker[4200], touch[4300];
	snprintf(marker, sizeof marker, "%s/the program ran", dir);
	snprintf(touch, sizeof touch, "touch '%s'", marker);
	static const struct {
		const char *words[4], *first;
	} cases[] = {
		{{"rnu", "--"}, "taskprobe: rnu: no such command (run, trace, record or top)"},
		{{"record", "--"}, "taskprobe: record needs -o FILE, the timeline to write"},
		{{"top", "--onc", "--"}, "taskprobe: top: --onc: no such option"},
		{{"trace", "waits"}, "taskprobe: trace needs -- before the program"},
		{{"run", "--foo", "--"}, "taskprobe: run: --foo: no such option"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *args[16];
		size_t n = 0;
		for (size_t k = 0; cases[i].words[k] != NULL; k++)
			args[n++] = cases[i].words[k];
		const char *program[] = {"sh", "-c", touch, NULL};
		for (size_t k = 0; k < sizeof program / sizeof program[0]; k++)
			args[n++] = program[k];
		struct tp_run run;
		const char *err = refused_before_the_program(args, marker, cases[i].first, &run);
		const char *second = strchr(err, '\n');
		cr_expect(second != NULL &&
				  strcmp(second + 1, "taskprobe: see taskprobe --help\n") == 0,
			  "%s", err);
		tp_run_free(&run);
	}
	tp_remove_temp_dir(dir);
}

/* taskprobe, taskprobe-top and taskprobe-timeline say the project's version, on stdout. */
Test(launcher, every_command_says_its_version)
{
	struct tp_run run;
	tp_launch((const char *[]){"--version", NULL}, NULL, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "taskprobe " TP_VERSION "\n");
	tp_run_free(&run);
	static const char *const tools[] = {"taskprobe-top", "taskprobe-timeline"};
	for (size_t i = 0; i < 2; i++) {
		char path[4200], want[128];
		snprintf(path, sizeof path, "%s/%s", TP_CONTRIB_DIR, tools[i]);
		snprintf(want, sizeof want, "%s %s\n", tools[i], TP_VERSION);
		tp_run(TP_PLAIN, (const char *[]){path, "--version", NULL}, NULL, &run);
		cr_expect_eq(run.status, 0, "%s: %s", tools[i], run.err);
		cr_expect_str_eq(run.out, want);
		tp_run_free(&run);
	}
}

/*
 * A timeline refused (over --max-size) keeps the recording, says where it is and the command
 * that converts it: the program need not run again.
 */
Test(launcher, a_refused_timeline_keeps_the_recording, .timeout = 60)
{
	char *dir = tp_make_temp_dir("refused-timeline");
	char json[4200];
	snprintf(json, sizeof json, "%s/timeline.json", dir);
	struct tp_run run;
	tp_launch((const char *[]){"record", "--max-size", "1k", "-o", json, "--",
				   tp_target("threads"), NULL},
		  NULL, &run);
	cr_expect_eq(run.status, 2, "%s", run.err);
	cr_expect_neq(access(json, F_OK), 0, "%s", run.err);
	const char *kept = strstr(run.err, "taskprobe: the recording is kept in ");
	cr_assert_not_null(kept, "%s", run.err);
	/* "...: convert it with: COMMAND" on the next line */
	const char *command = strstr(kept, "\ntaskprobe:   ");
	cr_assert_not_null(command, "%s", run.err);
	command += strlen("\ntaskprobe:   ");
	char *line = strndup(command, strcspn(command, "\n"));
	cr_expect(strstr(line, " -o ") != NULL && strstr(line, "recording.") != NULL, "%s", line);
	/* the command as said, with no limit, writes the timeline */
	char *cmd;
	cr_assert(asprintf(&cmd, "PATH=%s:$PATH; %s --max-size 0 >/dev/null 2>&1", TP_CONTRIB_DIR,
			   line) > 0);
	cr_expect_eq(system(cmd), 0, "%s", cmd);
	cr_expect_eq(access(json, F_OK), 0, "%s wrote no timeline", cmd);
	free(cmd);
	free(line);
	char *kept_dir = strndup(
		kept + strlen("taskprobe: the recording is kept in "),
		strcspn(kept + strlen("taskprobe: the recording is kept in "), ":\n"));
	tp_remove_temp_dir(kept_dir);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

Test(launcher, trace_runs_a_script_from_the_first_instruction_and_keeps_the_status, .timeout = 120)
{
	tp_require_tracer();
	const char *omp_latency = tp_require_program(tp_target("omp_latency"),
						     "clang and libomp-dev");
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	tp_launch((const char *[]){"trace", "polls", "--", omp_latency, NULL}, env, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	/* the script's output on stderr, the program's alone on stdout */
	cr_expect(strncmp(run.err, "Tracing task polls of PID ", 26) == 0, "%s", run.err);
	cr_expect_str_eq(run.out, "total 11190\n");
	/* the initial task is seen: the script was attached before the program started */
	cr_expect(strstr(run.err, "@slowest_polls_us[1, (no site)]: ") != NULL, "%s", run.err);
	cr_expect(strstr(run.err, "@poll_us_by_site[spawn_slow") != NULL, "%s", run.err);
	tp_run_free(&run);

	tp_launch((const char *[]){"trace", "waits", "--", "sh", "-c", "exit 3", NULL}, NULL, &run);
	cr_expect_eq(run.status, 3, "%s", run.err);
	tp_run_free(&run);
}

Test(launcher, trace_preloads_libomp_under_a_gcc_openmp_program, .timeout = 120)
{
	tp_require_tracer();
	const char *fib = tp_require_program(tp_target("omp_fib_gcc"), "gcc and libomp-dev");
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	tp_launch((const char *[]){"trace", "events", "--", fib, NULL}, env, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	/* fib(10) on libomp: its tasks are seen, which libgomp alone could not show */
	size_t spawns = 0;
	for (const char *l = run.err; (l = strstr(l, " task-spawn task=")) != NULL; l++)
		spawns++;
	cr_expect_gt(spawns, 100, "%zu task spawns: %s", spawns, run.err);
	tp_run_free(&run);
}

/*
 * Records omp_latency with the launcher (`record_args` before -o) and checks its timeline: two
 * threads; 25 tasks (22 explicit, 2 implicit, the initial one), each a task track from spawn to
 * end and a flow from spawn to first poll; slices paired; the polls and tracks of the 22
 * explicit tasks and the 2 implicit ones named by their spawn site's text, the initial task's
 * (no site) by its id. Returns the timeline's summary (static).
 */
static const char *record_omp_latency(const char *const record_args[], bool unprivileged)
{
	const char *omp_latency = tp_require_program(tp_target("omp_latency"),
						     "clang and libomp-dev");
	if (unprivileged)
		omp_latency = tp_unprivileged_copy(omp_latency);
	char json[4200];
	snprintf(json, sizeof json, "%s/omp_latency-%d.json",
		 unprivileged ? tp_unprivileged_out() : "/tmp", (int)getpid());
	const char *args[16] = {"record"};
	size_t n = 1;
	for (size_t i = 0; record_args[i] != NULL; i++)
		args[n++] = record_args[i];
	const char *rest[] = {"-o", json, "--", omp_latency, NULL};
	for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
		args[n++] = rest[i];
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	if (unprivileged)
		tp_launch_unprivileged(args, env, &run);
	else
		tp_launch(args, env, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "total 11190\n");
	cr_expect(strstr(run.err, "timeline written to") != NULL, "%s", run.err);
	struct stat written;
	cr_assert_eq(stat(json, &written), 0, "no %s", json);
	if (unprivileged && geteuid() == 0)
		cr_expect_eq(written.st_uid, getpwnam("nobody")->pw_uid, "not written by nobody");
	static char summary[16384];
	snprintf(summary, sizeof summary, "%s", tp_timeline_summary(json));
	unsigned m, b, e, tb, te, s, f, i, sited, unbalanced;
	cr_assert_eq(sscanf(summary,
			    "M=%u B=%u E=%u b=%u e=%u s=%u f=%u i=%u\nsited tasks=%u\n"
			    "unbalanced slices=%u",
			    &m, &b, &e, &tb, &te, &s, &f, &i, &sited, &unbalanced),
		     10, "%s", summary);
	cr_expect_eq(m, 2, "%s", summary);
	cr_expect_eq(b, e, "%s", summary);
	cr_expect_eq(unbalanced, 0, "%s", summary);
	cr_expect_eq(tb, 25, "%s", summary);
	cr_expect_eq(te, 25, "%s", summary);
	cr_expect_eq(s, 25, "%s", summary);
	cr_expect_eq(f, 25, "%s", summary);
	cr_expect_eq(sited, 0, "no task named by site id: %s", summary);
	static const struct {
		const char *function, *pragma;
		unsigned tasks;
	} sites[] = {
		{"void spawn_quick(", "#pragma omp task", 20},
		{"void spawn_slow(", "#pragma omp task", 1},
		{"void spawn_blocking(", "#pragma omp task", 1},
		{"int main(", "#pragma omp parallel", 2},
	};
	for (size_t k = 0; k < sizeof sites / sizeof sites[0]; k++) {
		int line = tp_source_line("omp_latency.c", sites[k].function, sites[k].pragma);
		cr_assert_gt(line, 0, "no %s in omp_latency.c", sites[k].function);
		char name[128];
		snprintf(name, sizeof name, "%.*s (omp_latency.c:%d)",
			 (int)(strchr(sites[k].function, '(') - strchr(sites[k].function, ' ') - 1),
			 strchr(sites[k].function, ' ') + 1, line);
		cr_expect(tp_timeline_named_tasks(summary, name, sites[k].tasks),
			  "%u tasks named %s: %s", sites[k].tasks, name, summary);
	}
	cr_expect(tp_timeline_named_tasks(summary, "(no site: initial tasks)", 1), "%s", summary);
	tp_run_free(&run);
	unlink(json);
	return summary;
}

/* The part of a summary that does not depend on scheduling: tracks, tasks and their names. */
static void expect_same_tasks(const char *a, const char *b)
{
	const char *keys[] = {"M=", "b=", "e=", "s=", "f="};
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
		cr_expect_eq(tp_timeline_count(a, keys[k]), tp_timeline_count(b, keys[k]),
			     "%s differs:\n%s\n---\n%s", keys[k], a, b);
	for (const char *line = strstr(a, "\ntrack\t"); line != NULL;
	     line = strstr(line + 1, "\ntrack\t")) {
		char want[512];
		snprintf(want, sizeof want, "%.*s\n", (int)strcspn(line + 1, "\n") + 1, line);
		cr_expect(strstr(b, want) != NULL, "%s missing:\n%s", want + 1, b);
	}
}

Test(launcher, record_writes_a_timeline_with_tracks_slices_and_flows_as_a_user_without_root,
     .timeout = 180)
{
	record_omp_latency((const char *[]){NULL}, true);
}

Test(launcher, record_with_perf_writes_the_same_timeline, .timeout = 240)
{
	tp_require_tracer();
	tp_require_program("/usr/bin/perf", "linux-perf");
	char in_process[16384];
	snprintf(in_process, sizeof in_process, "%s",
		 record_omp_latency((const char *[]){NULL}, false));
	const char *with_perf = record_omp_latency((const char *[]){"--perf", NULL}, false);
	expect_same_tasks(with_perf, in_process);
	expect_same_tasks(in_process, with_perf);

	/* the probe events were made for the recording and are gone */
	FILE *p = popen("perf probe -l 2>/dev/null | grep -c sdt_taskprobe", "r");
	char count[16] = "";
	cr_assert(fgets(count, sizeof count, p) != NULL);
	pclose(p);
	cr_expect_eq(atoi(count), 0, "sdt_taskprobe events left: %s", count);
}

TP_SUITE_NOT_UNDER(timeline, TP_ASAN | TP_TSAN, "the timeline converter does not load the shim");

Test(timeline, malformed_lines_are_said_with_their_number_and_skipped)
{
	char input[] = "/tmp/taskprobe-timeline-in-XXXXXX",
	     output[] = "/tmp/taskprobe-timeline-out-XXXXXX";
	int in = mkstemp(input), out = mkstemp(output);
	cr_assert(in >= 0 && out >= 0);
	close(out);
	FILE *f = fdopen(in, "w");
	fputs("     app 4242/4242 100.000001: sdt_taskprobe:task__spawn: (7f00) arg1=7 arg2=0 "
	      "arg3=9 arg4=0 arg5=0 arg6=1\n"
	      "this is not perf output\n"
	      "     app 4242/4243 100.000002: sdt_taskprobe:task__poll__start: (7f01) arg1=7\n"
	      "     app 4242/4243 100.000003: sdt_taskprobe:wait__end: (7f02) arg1=5 arg9=1\n"
	      "     app 4242/4243 100.000004: sched:sched_switch: prev_comm=app\n"
	      "     app 4242/4243 100.000005: sdt_taskprobe:task__poll__end: (7f03) arg1=7 "
	      "arg2=1\n",
	      f);
	fclose(f);
	const char *argv[] = {TP_TIMELINE, "-o", output, input, NULL};
	struct tp_run run;
	tp_run(TP_PLAIN, argv, NULL, &run);
	cr_expect_eq(run.status, 1);
	cr_expect(strstr(run.err, "line 2: not a perf script sample") != NULL, "%s", run.err);
	cr_expect(strstr(run.err, "line 4: an argument") != NULL, "%s", run.err);
	cr_expect_eq(strstr(run.err, "line 5"), NULL, "another event's sample is not an error: %s",
		     run.err);
	/* the good lines: one task track, its flow, one poll slice named with its site */
	const char *summary = tp_timeline_summary(output);
	cr_expect(strncmp(summary, "M=2 B=1 E=1 b=1 e=1 s=1 f=1 i=0\nsited tasks=1", 44) == 0, "%s",
		  summary);
	unlink(input);
	unlink(output);
	tp_run_free(&run);
}

/* Runs the converter on `text` (perf script output), the JSON on run->out. */
static void convert_text(const char *text, struct tp_run *run)
{
	char input[] = "/tmp/taskprobe-timeline-in-XXXXXX";
	int in = mkstemp(input);
	cr_assert_geq(in, 0);
	FILE *f = fdopen(in, "w");
	fputs(text, f);
	fclose(f);
	const char *argv[] = {TP_TIMELINE, input, NULL};
	tp_run(TP_PLAIN, argv, NULL, run);
	unlink(input);
}

/*
 * task-spawn's arg4 as perf prints a string argument: the site's text names the task's poll
 * slices and its track (JSON-escaped: perf prints the text as it is, quotes and all); a site
 * whose text could not be read (arg4="" or (fault)) keeps the text seen before for the same
 * site of the same process; site ids are per process; a task with no site is "task N"; a
 * numeric arg4 (input from before site texts) names tasks by site id.
 */
Test(timeline, spawn_site_texts_name_poll_slices_and_task_tracks)
{
	char output[] = "/tmp/taskprobe-timeline-out-XXXXXX";
	int out = mkstemp(output);
	cr_assert_geq(out, 0);
	close(out);
#define SPAWN(pid, task, site, arg4)                                                               \
	"     app " #pid "/" #pid " 100.0000" #task                                                \
	": sdt_taskprobe:task__spawn: (7f00) arg1=" #task " arg2=0 arg3=" #site " arg4=" arg4      \
	" arg5=0 arg6=1\n"
#define POLL(pid, task)                                                                            \
	"     app " #pid "/" #pid " 100.0001" #task                                                \
	": sdt_taskprobe:task__poll__start: (7f01) arg1=" #task "\n"                               \
	"     app " #pid "/" #pid " 100.0002" #task                                                \
	": sdt_taskprobe:task__poll__end: (7f03) arg1=" #task " arg2=1\n"
	const char *text = SPAWN(4242, 11, 0, "\"\"") POLL(4242, 11)
		SPAWN(4242, 12, 2, "\"spawn_quick (my app.c:23)\"") POLL(4242, 12) SPAWN(
			4242, 13, 2, "(fault)") POLL(4242, 13) SPAWN(4242, 14, 2, "\"\"")
			POLL(4242, 14) SPAWN(4242, 15, 3, "\"say \"hi\" \\ arg1 (x y.c:5)\"")
				POLL(4242, 15) SPAWN(4343, 16, 2, "\"\"") POLL(4343, 16)
					SPAWN(4343, 17, 2, "140723296435936") POLL(4343, 17)
						SPAWN(4343, 18, 0, "0") POLL(4343, 18);
#undef SPAWN
#undef POLL
	struct tp_run run;
	convert_text(text, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.err, "");
	FILE *f = fopen(output, "w");
	cr_assert_not_null(f);
	fputs(run.out, f);
	fclose(f);
	const char *summary = tp_timeline_summary(output);
	cr_expect(strncmp(summary, "M=2 B=8 E=8 b=8 e=8 s=8 f=8 i=0\nsited tasks=2\n", 46) == 0,
		  "%s", summary);
	cr_expect(tp_timeline_named_tasks(summary, "spawn_quick (my app.c:23)", 3), "%s", summary);
	cr_expect(tp_timeline_named_tasks(summary, "say \"hi\" \\ arg1 (x y.c:5)", 1), "%s",
		  summary);
	/* tasks without a site named as the console names them; another process's site 2, which
	 * has no text, by its id */
	cr_expect(tp_timeline_named_tasks(summary, "(no site: initial tasks)", 2), "%s", summary);
	cr_expect(tp_timeline_named_tasks(summary, "site 2", 2), "another process's site 2: %s",
		  summary);
	/* the poll's name alone on its begin (speedscope appends args to names), the task and its
	 * site on its end */
	cr_expect_eq(
		tp_occurrences(
			run.out,
			"\"name\":\"spawn_quick (my app.c:23)\",\"args\":{\"task\":13,\"site\":2}"),
		1, "%s", run.out);
	cr_expect_eq(tp_occurrences(run.out, "\"name\":\"say \\\"hi\\\" \\\\ arg1 (x y.c:5)\""), 4,
		     "%s", run.out);
	cr_expect_eq(tp_occurrences(run.out,
				    "\"name\":\"(no site: initial tasks)\",\"args\":{\"task\":11}"),
		     1, "%s", run.out);
	tp_run_free(&run);

	/* a string with no closing quote is a malformed line */
	convert_text("     app 1/1 1.000001: sdt_taskprobe:task__spawn: (7f00) arg1=1 arg2=0 "
		     "arg3=1 arg4=\"main (a.c:1)\n",
		     &run);
	cr_expect_eq(run.status, 1, "%s", run.err);
	cr_expect(strstr(run.err, "line 1: a string argument") != NULL, "%s", run.err);
	tp_run_free(&run);
	unlink(output);
}

Test(timeline, adjacent_duplicated_samples_are_dropped_and_counted)
{
#define SPAWN                                                                                      \
	"     app 4242/4243 100.000001: sdt_taskprobe:task__spawn: (7f00) arg1=7 arg2=0 arg3=9 "   \
	"arg4=0 arg5=0 arg6=1\n"
#define WAKE  "     app 4242/4243 100.000002: sdt_taskprobe:task__wake: (7f04) arg1=7 arg2=0\n"
#define START "     app 4242/4243 100.000003: sdt_taskprobe:task__poll__start: (7f01) arg1=7\n"
#define END   "     app 4242/4243 100.000005: sdt_taskprobe:task__poll__end: (7f03) arg1=7 arg2=1\n"
	/* the wake is written again after the poll start: a repeat, but not of the sample just
	 * before it, so the program's own (it is kept) */
	struct tp_run once, twice;
	convert_text(SPAWN WAKE START WAKE END, &once);
	cr_expect_eq(once.status, 0, "%s", once.err);
	cr_expect_str_eq(once.err, "");
	cr_expect_eq(tp_occurrences(once.out, "\"ph\":\"i\""), 2, "%s", once.out);
	cr_expect_eq(tp_occurrences(once.out, "\"ph\":\"B\""), 1, "%s", once.out);
	/* perf wrote the spawn twice, the poll start three times, the poll end twice */
	convert_text(SPAWN SPAWN WAKE START START START WAKE END END, &twice);
	cr_expect_eq(twice.status, 0, "%s", twice.err);
	cr_expect_str_eq(twice.out, once.out);
	cr_expect_str_eq(twice.err, "taskprobe-timeline: dropped 4 duplicated perf samples "
				    "(identical to the sample before them)\n");
	tp_run_free(&twice);

	/* a malformed line between two equal samples: they are not adjacent, and the status
	 * still says the malformed line */
	convert_text(SPAWN "not perf output\n" SPAWN SPAWN, &twice);
	cr_expect_eq(twice.status, 1, "%s", twice.err);
	cr_expect_eq(tp_occurrences(twice.out, "\"ph\":\"b\""), 2, "%s", twice.out);
	cr_expect(strstr(twice.err, "line 2: not a perf script sample") != NULL, "%s", twice.err);
	cr_expect(strstr(twice.err, "dropped 1 duplicated perf samples") != NULL, "%s", twice.err);
	tp_run_free(&twice);
	tp_run_free(&once);
#undef SPAWN
#undef WAKE
#undef START
#undef END
}

Test(timeline, survives_the_fuzzer, .timeout = 180)
{
	const char *fuzzer = tp_require_program(TP_CONTRIB_DIR "/fuzz_timeline",
						"libclang-rt-14-dev");
	char corpus[] = "/tmp/taskprobe-corpus-XXXXXX";
	cr_assert_not_null(mkdtemp(corpus));
	/* seeds: a real recording's lines; the fuzzer adds its finds to the temporary copy */
	char *cmd;
	cr_assert(asprintf(&cmd, "cp %s/* %s/", TP_CORPUS_DIR, corpus) > 0);
	cr_assert_eq(system(cmd), 0);
	free(cmd);
	const char *argv[] = {
		fuzzer, "-max_total_time=30", "-close_fd_mask=3", "-timeout=5", corpus, NULL};
	struct tp_run run;
	tp_run(TP_PLAIN, argv, NULL, &run);
	cr_expect_eq(run.status, 0, "the fuzzer found a crash: %s", run.err);
	cr_assert(asprintf(&cmd, "rm -rf %s", corpus) > 0);
	cr_expect_eq(system(cmd), 0);
	free(cmd);
	tp_run_free(&run);
}

Test(timeline, speedscope_in_chromium_shows_a_track_per_thread, .timeout = 120)
{
	tp_require_program("/usr/bin/chromium", "chromium");
	const char *node = tp_require_program("/usr/bin/node", "nodejs");
	/* installed by contrib/install-deps with npm install -g */
	const char *release = tp_require_file(
		"/usr/lib/node_modules/speedscope/dist/release/index.html",
		"speedscope (npm install -g speedscope playwright-core)");
	tp_require_file("/usr/lib/node_modules/playwright-core/package.json",
			"playwright-core (npm install -g speedscope playwright-core)");
	char json[] = "/tmp/taskprobe-speedscope-XXXXXX.json";
	int fd = mkstemps(json, 5);
	cr_assert_geq(fd, 0);
	close(fd);
	/* the committed recording of omp_latency: two threads */
	const char *convert[] = {TP_TIMELINE, "-o", json, TP_CORPUS_DIR "/omp_latency.txt", NULL};
	struct tp_run run;
	tp_run(TP_PLAIN, convert, NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);

	char dir[4096];
	snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(release, '/') - release), release);
	const char *show[] = {node, TP_SPEEDSCOPE_SCRIPT, dir, json, NULL};
	tp_run(TP_PLAIN, show, NULL, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	/* speedscope's profile list: one profile per thread track, named by the thread */
	cr_expect(strstr(run.out, "(1/2)") != NULL, "%s", run.out);
	cr_expect(strstr(run.out, "omp_latency 10331 (pid 10331, tid 10331)") != NULL, "%s",
		  run.out);
	cr_expect(strstr(run.out, "omp_latency 10333 (pid 10331, tid 10333)") != NULL, "%s",
		  run.out);
	tp_run_free(&run);

	/* and a timeline of the in-process recorder: the committed recording of omp_fib 4 */
	const char *convert_recording[] = {TP_TIMELINE, "-o", json, TP_CORPUS_DIR "/omp_fib_4.rec",
					   NULL};
	tp_run(TP_PLAIN, convert_recording, NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	tp_run(TP_PLAIN, show, NULL, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.out, "(1/2)") != NULL, "%s", run.out);
	cr_expect(strstr(run.out, "omp_fib 21304 (pid 21304, tid 21304)") != NULL, "%s", run.out);
	cr_expect(strstr(run.out, "omp_fib 21305 (pid 21304, tid 21305)") != NULL, "%s", run.out);
	unlink(json);
	tp_run_free(&run);
}

/* The converter's estimate for `recording` in `format` ("json", "speedscope"): what it says over
 * --max-size 1 ("N events: about 1.2 MB of JSON"), in bytes. */
static double estimated_size(const char *recording, const char *format)
{
	struct tp_run run;
	tp_run(TP_PLAIN,
	       (const char *[]){TP_TIMELINE, "--max-size", "1", "--format", format, recording,
				NULL},
	       NULL, &run);
	cr_expect_eq(run.status, 3, "%s", run.err);
	const char *about = strstr(run.err, ": about ");
	cr_assert_not_null(about, "%s", run.err);
	double size;
	char unit[8];
	cr_assert_eq(sscanf(about, ": about %lf %7s", &size, unit), 2, "%s", run.err);
	static const struct {
		const char *unit;
		double bytes;
	} units[] = {{"bytes", 1}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}};
	double bytes = -1;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(unit, units[i].unit) == 0)
			bytes = size * units[i].bytes;
	cr_assert_geq(bytes, 0, "%s", run.err);
	tp_run_free(&run);
	return bytes;
}

/*
 * The size said before a timeline is written (which --max-size compares) is within a quarter of
 * the size written, in both formats, on programs of different shapes: OpenMP tasks nested in
 * taskwaits (omp_fib, most of its polls shorter than the microsecond speedscope keeps) and two
 * threads waiting on each other (ping_pong, on a condition variable and on a futex: a wait
 * begun in the microsecond the last one ended, which speedscope's format joins to it).
 */
Test(timeline, the_size_said_is_within_a_quarter_of_the_size_written, .timeout = 120)
{
	const char *fib = tp_require_program(tp_target("omp_fib"), "clang and libomp-dev");
	char *dir = tp_make_temp_dir("estimate");
	static const struct {
		const char *args[4];
	} programs[] = {{{NULL, "18"}},
			{{TP_CONTRIB_DIR "/ping_pong", "cond", "10000"}},
			{{TP_CONTRIB_DIR "/ping_pong", "futex", "10000"}}};
	for (size_t p = 0; p < sizeof programs / sizeof programs[0]; p++) {
		char setting[4200], recording[4200], output[4200];
		snprintf(setting, sizeof setting, "TASKPROBE_RECORD=%s/rec.%%p", dir);
		const char *argv[4] = {p == 0 ? fib : programs[p].args[0], programs[p].args[1],
				       programs[p].args[2], NULL};
		struct tp_run run;
		tp_run(TP_PRELOADED, argv, (const char *[]){setting, "OMP_NUM_THREADS=2", NULL},
		       &run);
		cr_assert_eq(run.status, 0, "%s", run.err);
		snprintf(recording, sizeof recording, "%s/rec.%d", dir, (int)run.pid);
		tp_run_free(&run);
		for (size_t f = 0; f < 2; f++) {
			const char *format = f == 0 ? "json" : "speedscope";
			double said = estimated_size(recording, format);
			snprintf(output, sizeof output, "%s/out.json", dir);
			tp_run(TP_PLAIN,
			       (const char *[]){TP_TIMELINE, "--max-size", "0", "--format", format,
						"-o", output, recording, NULL},
			       NULL, &run);
			cr_expect_eq(run.status, 0, "%s", run.err);
			tp_run_free(&run);
			struct stat st;
			cr_assert_eq(stat(output, &st), 0);
			double written = (double)st.st_size;
			cr_expect(said >= 0.75 * written && said <= 1.25 * written,
				  "%s of %s: %.0f bytes said, %.0f written", format, argv[0], said,
				  written);
			unlink(output);
		}
		unlink(recording);
	}
	tp_remove_temp_dir(dir);
}
