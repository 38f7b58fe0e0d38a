// SPDX-License-Identifier: MIT
/*
 * Do no harm (launcher, the suite `harm`: see test_harm.c): nothing of taskprobe's goes to the
 * program's standard output (top's figures and trace's output go to stderr, or to a file given
 * with -o, checked before the program starts); a program killed by a signal is said by the
 * signal's name, with its status. An output is never a file the run reads (the program, its
 * arguments, the script), and the converter's never goes through a link or over another user's
 * file.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "harness_internal.h"

/* A small input (about 40 KiB of unsorted, compressible lines) in a temporary file. */
static char *make_input(void)
{
	char *path = tp_make_temp("harm-input");
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	unsigned long x = 12345;
	for (int i = 0; i < 2000; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		fprintf(f, "line %05lu of the input, %s\n", (x >> 33) % 100000,
			(x >> 20) % 3 ? "compressible" : "a little less so");
	}
	fclose(f);
	return path;
}

/* The programs of the byte-for-byte checks, each on `input`: xz, zstd and sort. */
struct program {
	const char *path, *package, *args[4];
};

#define ALL 3

static const struct program programs[ALL] = {
	{"/usr/bin/xz", "xz-utils", {"-T2", "-c", "-k"}},
	{"/usr/bin/zstd", "zstd", {"-q", "-c"}},
	{"/usr/bin/sort", "coreutils", {NULL}},
};

/*
 * The first `n_programs` on `input` plainly, then under the launcher with `launcher_args` before
 * `--`: the same standard output, byte for byte, and the same exit status. Returns the launched
 * runs' stderr, concatenated (the caller frees).
 */
static char *same_output_as_plain(const char *const launcher_args[], size_t n_programs)
{
	char *input = make_input();
	char *errors = strdup("");
	for (size_t p = 0; p < n_programs && p < sizeof programs / sizeof programs[0]; p++) {
		const char *argv[8] = {tp_require_program(programs[p].path, programs[p].package)};
		size_t n = 1;
		for (size_t i = 0; programs[p].args[i] != NULL; i++)
			argv[n++] = programs[p].args[i];
		argv[n++] = input;
		argv[n] = NULL;
		struct tp_run plain, launched;
		tp_run(TP_PLAIN, argv, NULL, &plain);
		cr_assert_eq(plain.status, 0, "%s", plain.err);
		const char *args[24];
		size_t k = 0;
		for (size_t i = 0; launcher_args[i] != NULL; i++)
			args[k++] = launcher_args[i];
		args[k++] = "--";
		for (size_t i = 0; argv[i] != NULL; i++)
			args[k++] = argv[i];
		args[k] = NULL;
		tp_launch(args, NULL, &launched);
		cr_expect_eq(launched.status, plain.status, "%s %s: %s", launcher_args[0],
			     programs[p].path, launched.err);
		cr_expect(launched.out_len == plain.out_len &&
				  memcmp(launched.out, plain.out, plain.out_len) == 0,
			  "%s %s: stdout of %zu bytes, a plain run's %zu: %.300s", launcher_args[0],
			  programs[p].path, launched.out_len, plain.out_len, launched.err);
		char *joined;
		cr_assert(asprintf(&joined, "%s%s", errors, launched.err) >= 0);
		free(errors);
		errors = joined;
		tp_run_free(&plain);
		tp_run_free(&launched);
	}
	unlink(input);
	free(input);
	return errors;
}

Test(harm, run_keeps_stdout_byte_for_byte)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	free(same_output_as_plain((const char *const[]){"run", NULL}, ALL));
}

Test(harm, top_once_figures_go_to_stderr_never_to_the_programs_stdout)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *errors = same_output_as_plain((const char *const[]){"top", "--once", NULL}, ALL);
	/* each program's figures, on stderr */
	cr_expect_eq(tp_occurrences(errors, "taskprobe top: "), 3, "%s", errors);
	cr_expect(strstr(errors, "\nSITE ") != NULL, "%s", errors);
	free(errors);
}

Test(harm, top_batch_snapshots_go_to_stderr_never_to_the_programs_stdout)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *errors = same_output_as_plain(
		(const char *const[]){"top", "--batch", "--interval", "0.05", NULL}, ALL);
	cr_expect_geq(tp_occurrences(errors, "taskprobe top: "), 3, "%s", errors);
	free(errors);
}

Test(harm, record_keeps_stdout_byte_for_byte)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *json = tp_make_temp("harm-json");
	char *errors = same_output_as_plain((const char *const[]){"record", "-o", json, NULL}, ALL);
	cr_expect_eq(tp_occurrences(errors, "timeline written to"), 3, "%s", errors);
	unlink(json);
	free(json);
	free(errors);
}

Test(harm, top_o_writes_the_figures_to_a_new_file_or_the_users_own_and_refuses_any_other)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *dir = tp_make_temp_dir("harm");
	char figures[256], marker[256], link[256], script[600];
	snprintf(figures, sizeof figures, "%s/figures.txt", dir);
	snprintf(marker, sizeof marker, "%s/ran", dir);
	snprintf(link, sizeof link, "%s/link", dir);
	snprintf(script, sizeof script, "echo out; touch '%s'", marker);
	struct tp_run run;

	/* a new file: the figures there, the program's output alone on stdout */
	for (int again = 0; again < 2; again++) { /* then the same file, the user's own */
		tp_launch((const char *[]){"top", "--once", "-o", figures, "--", "/bin/sh", "-c",
					   script, NULL},
			  NULL, &run);
		cr_expect_eq(run.status, 0, "%s", run.err);
		cr_expect_str_eq(run.out, "out\n");
		cr_expect_eq(strstr(run.err, "taskprobe top: "), NULL, "%s", run.err);
		char *text = tp_read_file(figures, NULL);
		cr_expect(strncmp(text, "taskprobe top: sh (pid ", 23) == 0, "%s", text);
		cr_expect_eq(tp_occurrences(text, "taskprobe top: "), 1, "%s", text);
		free(text);
		struct stat st;
		cr_assert_eq(stat(figures, &st), 0);
		cr_expect_eq(st.st_mode & 0777, 0600, "made mode %o", st.st_mode & 0777);
		tp_run_free(&run);
	}
	/* a symbolic link (to a file of the user's too), a directory, no directory: refused before
	 * the program runs */
	cr_assert_eq(symlink(figures, link), 0);
	char missing[300];
	snprintf(missing, sizeof missing, "%s/no/figures.txt", dir);
	const char *refused[] = {link, dir, missing};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		unlink(marker);
		tp_launch((const char *[]){"top", "--once", "-o", refused[i], "--", "/bin/sh", "-c",
					   script, NULL},
			  NULL, &run);
		cr_expect_eq(run.status, 2, "%s: %s", refused[i], run.err);
		cr_expect_eq(tp_occurrences(run.err, "taskprobe: "), 1, "%s", run.err);
		cr_expect(strstr(run.err, refused[i]) != NULL, "%s", run.err);
		cr_expect_neq(access(marker, F_OK), 0, "%s: the program ran", refused[i]);
		cr_expect_str_eq(run.out, "");
		tp_run_free(&run);
	}
	/* another user's file (with root: nobody's) */
	if (geteuid() == 0) {
		char theirs[300];
		snprintf(theirs, sizeof theirs, "%s/theirs", dir);
		FILE *f = fopen(theirs, "w");
		cr_assert_not_null(f);
		fputs("their text\n", f);
		fclose(f);
		cr_assert_eq(chown(theirs, 65534, 65534), 0);
		tp_launch((const char *[]){"top", "--once", "-o", theirs, "--", "/bin/sh", "-c",
					   script, NULL},
			  NULL, &run);
		cr_expect_eq(run.status, 2, "%s", run.err);
		cr_expect(strstr(run.err, "another user's") != NULL, "%s", run.err);
		char *text = tp_read_file(theirs, NULL);
		cr_expect_str_eq(text, "their text\n");
		free(text);
		tp_run_free(&run);
	}
	tp_remove_temp_dir(dir);
}

/* `args`, then `/bin/sh -c command`: its status and stderr (the caller frees). */
static int launch_sh(const char *const args[], const char *command, char **err)
{
	const char *all[16];
	size_t n = 0;
	while (args[n] != NULL)
		all[n] = args[n], n++;
	all[n++] = "--";
	all[n++] = "/bin/sh";
	all[n++] = "-c";
	all[n++] = command;
	all[n] = NULL;
	struct tp_run run;
	tp_launch(all, NULL, &run);
	int status = run.status;
	*err = strdup(run.err);
	tp_run_free(&run);
	return status;
}

/*
 * `args -- /bin/sh -c 'kill -SEGV $$'`: status 139, said as "killed by SIGSEGV", never by bash's
 * job message; `exit 139` is the same status, not said as a signal.
 */
static void expect_killed_said(const char *const args[])
{
	char *err;
	int status = launch_sh(args, "kill -SEGV $$", &err);
	cr_expect_eq(status, 128 + 11, "%s: %s", args[0], err);
	cr_expect(strstr(err, "taskprobe: /bin/sh was killed by SIGSEGV\n") != NULL, "%s: %s",
		  args[0], err);
	cr_expect_eq(strstr(err, "Segmentation fault"), NULL, "%s: %s", args[0], err);
	free(err);
	status = launch_sh(args, "exit 139", &err);
	cr_expect_eq(status, 139, "%s: %s", args[0], err);
	cr_expect_eq(strstr(err, "was killed by"), NULL, "%s: %s", args[0], err);
	free(err);
}

Test(harm, a_program_killed_by_a_signal_is_said_by_name_with_its_status, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *json = tp_make_temp("harm-signal-json");
	const char *const top_once[] = {"top", "--once", NULL};
	const char *const top_batch[] = {"top", "--batch", "--interval", "0.05", NULL};
	const char *const record[] = {"record", "-o", json, NULL};
	const char *const *ways[] = {top_once, top_batch, record};
	for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++)
		expect_killed_said(ways[i]);
	unlink(json);
	free(json);
}

Test(harm, record_checks_its_output_before_the_program_runs)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *dir = tp_make_temp_dir("harm");
	char marker[300], script[400], missing[300], link[300], target[300];
	snprintf(marker, sizeof marker, "%s/ran", dir);
	snprintf(script, sizeof script, "touch '%s'", marker);
	snprintf(missing, sizeof missing, "%s/no/such/dir/x.json", dir);
	snprintf(link, sizeof link, "%s/link.json", dir);
	snprintf(target, sizeof target, "%s/target.json", dir);
	cr_assert_eq(symlink(target, link), 0);
	const char *refused[] = {missing, dir, link};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		char *err;
		int status = launch_sh((const char *[]){"record", "-o", refused[i], NULL}, script,
				       &err);
		cr_expect_eq(status, 2, "%s: %s", refused[i], err);
		cr_expect_eq(tp_occurrences(err, "taskprobe: "), 1, "one message: %s", err);
		cr_expect(strstr(err, refused[i]) != NULL, "%s", err);
		cr_expect_neq(access(marker, F_OK), 0, "%s: the program ran", refused[i]);
		cr_expect_neq(access(target, F_OK), 0, "%s: written through the link", link);
		free(err);
	}
	/* a directory the user cannot write (as nobody, with root) */
	if (geteuid() == 0) {
		char json[400];
		snprintf(json, sizeof json, "%s/x.json", dir); /* dir is root's, mode 0700 */
		cr_assert_eq(chmod(dir, 0755), 0);
		struct tp_run run;
		tp_launch_unprivileged(
			(const char *[]){"record", "-o", json, "--", "/bin/sh", "-c",
					 "touch /tmp/taskprobe-test-harm-unwritable-ran", NULL},
			NULL, &run);
		cr_expect_eq(run.status, 2, "%s", run.err);
		cr_expect_eq(tp_occurrences(run.err, "taskprobe: "), 1, "one message: %s", run.err);
		cr_expect_neq(access("/tmp/taskprobe-test-harm-unwritable-ran", F_OK), 0,
			      "the program ran");
		unlink("/tmp/taskprobe-test-harm-unwritable-ran");
		tp_run_free(&run);
	}
	tp_remove_temp_dir(dir);
}

Test(harm, trace_output_goes_to_stderr_or_to_its_file_never_to_the_programs_stdout, .timeout = 180)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	tp_require_tracer();
	char *errors = same_output_as_plain((const char *const[]){"trace", "waits", NULL}, ALL);
	cr_expect_eq(tp_occurrences(errors, "Tracing waits of PID "), 3, "%s", errors);
	free(errors);

	/* -o FILE: the script's output there, nothing of it on stdout or stderr */
	char *file = tp_make_temp("harm-trace");
	unlink(file); /* a new file */
	errors = same_output_as_plain((const char *const[]){"trace", "-o", file, "waits", NULL}, 1);
	cr_expect_eq(tp_occurrences(errors, "Tracing waits of PID "), 0, "%s", errors);
	char *text = tp_read_file(file, NULL);
	cr_expect(strncmp(text, "Tracing waits of PID ", 21) == 0, "%s", text);
	free(text);
	unlink(file);
	free(file);
	free(errors);

	/* a program killed by a signal */
	expect_killed_said((const char *const[]){"trace", "waits", NULL});
}

Test(harm, an_output_the_run_reads_is_refused_before_the_program_runs, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *dir = tp_make_temp_dir("harm");
	char program[300], data[300], alias[300], script[300], marker[300], path[4200];
	snprintf(program, sizeof program, "%s/prog", dir);
	snprintf(data, sizeof data, "%s/data.txt", dir);
	snprintf(alias, sizeof alias, "%s/alias.txt", dir); /* data.txt by another name */
	snprintf(script, sizeof script, "%s/my.bt", dir);
	snprintf(marker, sizeof marker, "%s/ran", dir);
	snprintf(path, sizeof path, "PATH=%s:%s", dir, getenv("PATH"));
	const char *const files[][2] = {
		{program, NULL},
		{data, "the data\n"},
		{script, "BEGIN { printf(\"Tracing\\n\"); }\n"},
	};
	char program_text[400];
	snprintf(program_text, sizeof program_text, "#!/bin/sh\ntouch '%s'\ncat \"$@\"\n", marker);
	const struct {
		const char *args[12];
		const char *file, *text; /* the file that must stay as it is */
	} runs[] = {
		/* the program, by its path, and found through PATH */
		{{"record", "-o", program, "--", program}, program, program_text},
		{{"record", "-o", program, "--", "prog"}, program, program_text},
		{{"record", "--perf", "-o", program, "--", "prog"}, program, program_text},
		/* an argument of the program that names a file, by its name and by another */
		{{"top", "--once", "-o", data, "--", "/bin/cat", data}, data, "the data\n"},
		{{"top", "--batch", "-o", alias, "--", "prog", data}, data, "the data\n"},
		{{"record", "-o", data, "--", "prog", data}, data, "the data\n"},
		/* the script, and a file the script is given */
		{{"trace", "-o", script, script, "--", "prog"}, script, files[2][1]},
		{{"trace", "-o", alias, script, data, "--", "prog"}, data, "the data\n"},
	};
	/* data.txt by another name (made once: the files are written in place) */
	FILE *made = fopen(data, "w");
	cr_assert_not_null(made);
	fclose(made);
	cr_assert_eq(link(data, alias), 0);
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		unlink(marker);
		for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
			FILE *f = fopen(files[k][0], "w");
			cr_assert_not_null(f);
			fputs(files[k][1] != NULL ? files[k][1] : program_text, f);
			fclose(f);
		}
		cr_assert_eq(chmod(program, 0755), 0);
		struct tp_run run;
		tp_launch(runs[i].args, (const char *[]){path, NULL}, &run);
		const char *shown = runs[i].args[0];
		cr_expect_eq(run.status, 2, "%zu %s: %s", i, shown, run.err);
		cr_expect_eq(tp_occurrences(run.err, "taskprobe: "), 1, "%zu %s: one message: %s",
			     i, shown, run.err);
		cr_expect(strstr(run.err, "give -o another file") != NULL, "%zu %s: %s", i, shown,
			  run.err);
		cr_expect_str_eq(run.out, "", "%zu %s", i, shown);
		cr_expect_neq(access(marker, F_OK), 0, "%zu %s: the program ran", i, shown);
		char *text = tp_read_file(runs[i].file, NULL);
		cr_expect_str_eq(text, runs[i].text, "%zu %s: %s was written", i, shown,
				 runs[i].file);
		free(text);
		tp_run_free(&run);
	}
	tp_remove_temp_dir(dir);
}

/*
 * The converter on its own: `-o FILE` as the launcher checks it. A new file is made mode 0600; a
 * regular file of the user's own is written over; a symbolic link (to a file of the user's or
 * to none) and another user's file are refused, status 2, nothing written.
 */
Test(harm, the_converter_never_writes_its_output_through_a_link_nor_over_another_users_file)
{
	char *dir = tp_make_temp_dir("harm");
	char input[300], out[300], victim[300], link[300], dangling[300], missing[300], theirs[300];
	snprintf(input, sizeof input, "%s/perf.txt", dir); /* perf's text: no line, no event */
	snprintf(out, sizeof out, "%s/out.json", dir);
	snprintf(victim, sizeof victim, "%s/victim", dir);
	snprintf(link, sizeof link, "%s/link.json", dir);
	snprintf(dangling, sizeof dangling, "%s/dangling.json", dir);
	snprintf(missing, sizeof missing, "%s/missing", dir);
	snprintf(theirs, sizeof theirs, "%s/theirs.json", dir);
	const char *const texts[][2] = {{input, ""}, {victim, "victim\n"}, {theirs, "theirs\n"}};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		FILE *f = fopen(texts[i][0], "w");
		cr_assert_not_null(f);
		fputs(texts[i][1], f);
		fclose(f);
	}
	cr_assert_eq(symlink(victim, link), 0);
	cr_assert_eq(symlink(missing, dangling), 0);
	struct tp_run run;
	const char *refused[] = {link, dangling, geteuid() == 0 ? theirs : NULL};
	if (geteuid() == 0)
		cr_assert_eq(chown(theirs, 65534, 65534), 0);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0] && refused[i] != NULL; i++) {
		tp_run(TP_PLAIN,
		       (const char *[]){TP_CONTRIB_DIR "/taskprobe-timeline", "-o", refused[i],
					input, NULL},
		       NULL, &run);
		cr_expect_eq(run.status, 2, "%s: %s", refused[i], run.err);
		cr_expect_eq(tp_occurrences(run.err, "taskprobe-timeline: "), 1, "%s: %s",
			     refused[i], run.err);
		cr_expect(strstr(run.err, refused[i]) != NULL, "%s", run.err);
		tp_run_free(&run);
	}
	char *text = tp_read_file(victim, NULL);
	cr_expect_str_eq(text, "victim\n", "written through %s", link);
	free(text);
	cr_expect_neq(access(missing, F_OK), 0, "made through %s", dangling);
	text = tp_read_file(theirs, NULL);
	cr_expect_str_eq(text, "theirs\n", "another user's file written over");
	free(text);

	/* a new file, mode 0600 whatever the umask; then the same, the user's own, written over */
	mode_t mask = umask(022);
	for (int again = 0; again < 2; again++) {
		if (again == 1) {
			FILE *f = fopen(out, "w");
			cr_assert_not_null(f);
			fputs("earlier text, longer than the timeline of nothing: ", f);
			for (int i = 0; i < 100; i++)
				fputs("earlier text ", f);
			fclose(f);
			cr_assert_eq(chmod(out, 0640), 0);
		}
		tp_run(TP_PLAIN,
		       (const char *[]){TP_CONTRIB_DIR "/taskprobe-timeline", "-o", out, input,
					NULL},
		       NULL, &run);
		cr_expect_eq(run.status, 0, "%s", run.err);
		text = tp_read_file(out, NULL);
		cr_expect(strncmp(text, "{\"displayTimeUnit\"", 18) == 0, "%s", text);
		cr_expect_eq(strstr(text, "earlier text"), NULL, "%s", text);
		free(text);
		struct stat st;
		cr_assert_eq(stat(out, &st), 0);
		cr_expect_eq(st.st_mode & 0777, again == 0 ? 0600 : 0640, "mode %o",
			     st.st_mode & 0777);
		tp_run_free(&run);
	}
	umask(mask);
	/* a character device, as before */
	tp_run(TP_PLAIN,
	       (const char *[]){TP_CONTRIB_DIR "/taskprobe-timeline", "-o", "/dev/null", input,
				NULL},
	       NULL, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

/*
 * A standard error whose reader has gone (`taskprobe record ... 2>&1 | head`) loses what
 * taskprobe says, never the timeline: it was left empty, the converter and then the launcher
 * killed by SIGPIPE as they said where it was, the recording deleted.
 */
Test(harm, record_writes_the_timeline_when_its_stderr_has_no_reader, .timeout = 60)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *dir = tp_make_temp_dir("stderr-gone");
	char *cmd;
	/* the reader (`true`) gone before taskprobe says anything; the program's stdout apart */
	cr_assert(asprintf(&cmd,
			   "PATH=%s:$PATH; (sleep 0.3; taskprobe record -o %s/timeline.json -- %s "
			   "2>&1 >/dev/null; echo $? > %s/status) | true",
			   TP_CONTRIB_DIR, dir, tp_target("threads"), dir) > 0);
	cr_expect_eq(system(cmd), 0, "%s", cmd);
	char path[4200];
	snprintf(path, sizeof path, "%s/status", dir);
	char *status = tp_read_file(path, NULL);
	cr_expect_str_eq(status, "0\n");
	snprintf(path, sizeof path, "%s/timeline.json", dir);
	char *json = tp_read_file(path, NULL);
	cr_assert_not_null(json, "no timeline");
	cr_expect(strlen(json) > 100 && strstr(json, "traceEvents") != NULL, "%.200s", json);
	free(json);
	free(status);
	free(cmd);
	tp_remove_temp_dir(dir);
}
