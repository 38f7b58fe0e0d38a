// SPDX-License-Identifier: MIT
/*
 * Do no harm (launcher): see test_harm.c. Nothing of taskprobe's goes to the program's standard
 * output (top's figures and trace's output go to stderr, or to a file given with -o, checked
 * before the program starts); a program named as a shell builtin is run as the program it is; a
 * program killed by a signal is said by the signal's name, with its status; no path from the
 * environment is ever evaluated as shell words; a GCC OpenMP program moved onto libomp is told.
 * An output is never a file the run reads (the program, its arguments, the script), and the
 * converter's never goes through a link or over another user's file; the live statistics file
 * `taskprobe run`'s program leaves (killed, exec'ed, its privileges dropped) goes at its end.
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

/* A directory of the test's own (removed with everything in it by remove_tree). */
static char *make_dir(void)
{
	char *dir = strdup("/tmp/taskprobe-test-harm-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	return dir;
}
static void remove_tree(const char *dir)
{
	char *command;
	cr_assert(asprintf(&command, "rm -rf -- '%s'", dir) > 0);
	cr_expect_eq(system(command), 0);
	free(command);
}

Test(harm, top_o_writes_the_figures_to_a_new_file_or_the_users_own_and_refuses_any_other)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *dir = make_dir();
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
	remove_tree(dir);
	free(dir);
}

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

Test(harm, a_tmpdir_with_quotes_is_a_name_never_shell_words)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	/*
	 * TMPDIR=DIR/t' 'DIR/victim' ' (a directory, made): a trap "rm -rf '$dir'" would remove
	 * DIR/t, DIR/victim and /tmp.XXXXXXXXXX.
	 */
	char *dir = make_dir();
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
	remove_tree(dir);
	free(dir);
}

Test(harm, record_checks_its_output_before_the_program_runs)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *dir = make_dir();
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
	remove_tree(dir);
	free(dir);
}

Test(harm, a_gcc_openmp_program_moved_onto_libomp_is_told_once)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *fib = tp_require_program(tp_target("omp_fib_gcc"), "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	struct tp_run run, plain;
	tp_run(TP_PLAIN, (const char *[]){fib, NULL}, (const char *[]){"OMP_NUM_THREADS=2", NULL},
	       &plain);
	tp_launch((const char *[]){"run", "--", fib, NULL},
		  (const char *[]){"OMP_NUM_THREADS=2", NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out);
	cr_expect_eq(tp_occurrences(run.err, "is built for GCC's libgomp: running it on LLVM's "
					     "libomp ("),
		     1, "%s", run.err);
	cr_expect(strstr(run.err, "libomp.so.5), whose tool interface shows its tasks\n") != NULL,
		  "%s", run.err);
	tp_run_free(&run);
	tp_run_free(&plain);
}

/*
 * A GCC-built program that calls what libomp lacks (omp_target_alloc) is not moved onto libomp,
 * where it would end in a symbol lookup error: it runs as it does plainly, on libgomp, and says
 * its tasks are not seen and why (the shim's line), not that it runs on libomp.
 */
Test(harm, a_gcc_openmp_program_libomp_cannot_run_stays_on_libgomp)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *lacking = tp_require_program(tp_target("omp_host_device_memory_gcc"),
						 "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run, plain;
	tp_run(TP_PLAIN, (const char *[]){lacking, NULL}, env, &plain);
	tp_launch((const char *[]){"run", "--", lacking, NULL}, env, &run);
	cr_expect_eq(run.status, plain.status, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out);
	cr_expect_eq(tp_occurrences(run.err, "taskprobe: "), 1, "%s", run.err);
	cr_expect(strstr(run.err, "lacks some of what this one calls, or this one brings a "
				  "libgomp of its own: it stays on libgomp\n") != NULL,
		  "%s", run.err);
	tp_run_free(&run);
	tp_run_free(&plain);
}

/*
 * A GCC-built program the audit module moves onto libomp (all it calls, libomp has) that loads,
 * after its tasks, a GCC-built library calling what libomp lacks (omp_target_alloc), then looks
 * that name up in dlopen("libgomp.so.1"): under the launcher its output and status are the plain
 * run's (the call and the lookup find libgomp's, loaded behind libomp), not a symbol lookup error,
 * and its tasks are seen.
 */
Test(harm, a_library_loaded_later_finds_what_libomp_lacks, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	/* tp_target's text is static */
	char *program = strdup(
		tp_require_program(tp_target("omp_late_library_gcc"), "gcc and libomp-dev"));
	const char *library = tp_require_file(tp_target("libomp_host_copy_gcc.so"),
					      "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	const char *script = "\"$0\" \"$1\"; echo \"exit $?\"";
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run plain, run;
	tp_run(TP_PLAIN, (const char *[]){"/bin/sh", "-c", script, program, library, NULL}, env,
	       &plain);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	cr_assert(strstr(plain.out, "exit 0\n") != NULL, "%s%s", plain.out, plain.err);
	char *json = tp_make_temp("harm-late-library");
	tp_launch((const char *[]){"record", "-o", json, "--", "/bin/sh", "-c", script, program,
				   library, NULL},
		  env, &run);
	cr_expect_eq(run.status, plain.status, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out, "%s", run.err);
	cr_expect(strstr(run.err, "symbol lookup error") == NULL, "%s", run.err);
	/* the moved program's line and the timeline's, nothing else */
	cr_expect_eq(tp_occurrences(run.err, "taskprobe: "), 2, "%s", run.err);
	cr_expect(strstr(run.err, "taskprobe: 1 process of the run built for GCC's libgomp ran on "
				  "LLVM's libomp (") != NULL,
		  "%s", run.err);
	/* its 8 tasks, seen */
	char *summary = tp_timeline_summary(json);
	char track[96];
	snprintf(track, sizeof track, "\ntrack\tsum_in_tasks (omp_late_library.c:%d)\t",
		 tp_source_line("omp_late_library.c", "static long sum_in_tasks(",
				"#pragma omp task shared(sum)"));
	cr_expect_eq(tp_timeline_count(summary, track), 8, "%s: %s", track + 1, summary);
	free(summary);
	unlink(json);
	free(json);
	tp_run_free(&run);
	tp_run_free(&plain);
	free(program);
}

/*
 * A GCC-built program that finds its own libgomp.so.1 beside itself (RUNPATH $ORIGIN, as in a
 * conda or spack tree) keeps it under the launcher: its output is the plain run's (its libgomp's
 * answer), not libomp's, and it says it stays on libgomp.
 */
Test(harm, a_gcc_openmp_program_with_a_libgomp_of_its_own_keeps_it)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	/* tp_target's text is static */
	char *program = strdup(
		tp_require_program(tp_target("omp_own_runtime_gcc"), "gcc and libomp-dev"));
	const char *own_gomp = tp_require_file(tp_target("libown_gomp.so"), "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	char *dir = tp_make_temp_dir("harm-own-gomp");
	char copy[4200], libgomp[4200];
	snprintf(copy, sizeof copy, "%s/omp_own_runtime_gcc", dir);
	snprintf(libgomp, sizeof libgomp, "%s/libgomp.so.1", dir);
	struct tp_run plain, run;
	tp_run(TP_PLAIN, (const char *[]){"/bin/cp", program, copy, NULL}, NULL, &plain);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	tp_run_free(&plain);
	tp_run(TP_PLAIN, (const char *[]){"/bin/cp", own_gomp, libgomp, NULL}, NULL, &plain);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	tp_run_free(&plain);

	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	tp_run(TP_PLAIN, (const char *[]){"/bin/sh", "-c", "\"$0\"", copy, NULL}, env, &plain);
	cr_assert_str_eq(plain.out, "max threads: 42\n", "%s", plain.err);
	char *json = tp_make_temp("harm-own-gomp-json");
	tp_launch(
		(const char *[]){"record", "-o", json, "--", "/bin/sh", "-c", "\"$0\"", copy, NULL},
		env, &run);
	cr_expect_eq(run.status, plain.status, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out, "%s", run.err);
	cr_expect_eq(tp_occurrences(run.err, "ran on LLVM's libomp"), 0, "%s", run.err);
	cr_expect(strstr(run.err, "(omp_own_runtime_gcc) runs on GCC's libgomp") != NULL, "%s",
		  run.err);
	cr_expect(strstr(run.err,
			 "or this one brings a libgomp of its own: it stays on libgomp\n") != NULL,
		  "%s", run.err);
	unlink(json);
	free(json);
	tp_run_free(&run);
	tp_run_free(&plain);
	tp_remove_temp_dir(dir);
	free(program);
}

/*
 * libomp preloaded by hand (as docs/openmp.md says to, without the launcher), then under the
 * launcher: a GCC-built program a script starts runs as it does plainly so (libomp answers it,
 * libgomp behind), not ended by the dynamic linker (libomp loaded twice, the second time unknown
 * as libgomp, fails ld.so's version check).
 */
Test(harm, a_gcc_openmp_program_with_libomp_preloaded_by_hand_runs_as_plainly)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *fib = tp_require_program(tp_target("omp_fib_gcc"), "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	char preload[4200];
	snprintf(preload, sizeof preload, "TP_PRELOAD_AFTER_SHIM=%s", TP_LIBOMP_PATH);
	const char *env[] = {"OMP_NUM_THREADS=2", preload, NULL};
	struct tp_run run, plain;
	tp_run(TP_PLAIN, (const char *[]){"/bin/sh", "-c", "\"$0\" 10", fib, NULL}, env, &plain);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	tp_launch((const char *[]){"run", "--", "/bin/sh", "-c", "\"$0\" 10", fib, NULL}, env,
		  &run);
	cr_expect_eq(run.status, plain.status, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out);
	cr_expect_eq(tp_occurrences(run.err, "taskprobe: "), 0, "%s", run.err);
	tp_run_free(&run);
	tp_run_free(&plain);
}

/*
 * A script's GCC-built OpenMP programs run on libomp too, their tasks seen, and the launcher says
 * so once, at the end, for both; one that calls what libomp lacks (omp_target_alloc) stays on
 * libgomp and runs as it does plainly; ldd lists what it does plainly. The script's output and
 * status are the plain run's.
 */
Test(harm, a_scripts_gcc_openmp_programs_run_on_libomp_told_once, .timeout = 180)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	/* tp_target's text is static */
	char *fib = strdup(tp_require_program(tp_target("omp_fib_gcc"), "gcc and libomp-dev"));
	const char *lacking = tp_require_program(tp_target("omp_host_device_memory_gcc"),
						 "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	const char *script =
		"\"$0\" 10 && \"$0\" 9 && \"$1\"; ldd \"$0\" | grep -o 'lib[g]*omp[^ ]*'; "
		"exit 3";
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run plain, run;
	tp_run(TP_PLAIN, (const char *[]){"/bin/sh", "-c", script, fib, lacking, NULL}, env,
	       &plain);
	cr_assert_eq(plain.status, 3, "%s", plain.err);
	char json[128];
	snprintf(json, sizeof json, "/tmp/harm-gcc-script-%d.json", (int)getpid());
	tp_launch((const char *[]){"record", "-o", json, "--", "/bin/sh", "-c", script, fib,
				   lacking, NULL},
		  env, &run);
	cr_expect_eq(run.status, plain.status, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out);
	/* the moved programs' line, the one left on libgomp's (the shim's), the timeline's */
	cr_expect_eq(tp_occurrences(run.err, "taskprobe: "), 3, "%s", run.err);
	cr_expect_eq(tp_occurrences(run.err, "ran on LLVM's libomp"), 1, "%s", run.err);
	cr_expect(strstr(run.err,
			 "taskprobe: 2 processes of the run built for GCC's libgomp ran on "
			 "LLVM's libomp (") != NULL,
		  "%s", run.err);
	cr_expect(strstr(run.err, "whose tool interface shows their tasks: omp_fib_gcc\n") != NULL,
		  "%s", run.err);
	/* fib(10)'s tasks and fib(9)'s, half at each of its two task constructs (task tracks: the
	 * two processes' task ids are alike, so their polls are not told apart by id) */
	char *summary = tp_timeline_summary(json);
	const char *pragmas[] = {"#pragma omp task shared(a)", "#pragma omp task shared(b)"};
	for (size_t k = 0; k < 2; k++) {
		char track[64];
		snprintf(track, sizeof track, "\ntrack\tfib (omp_fib.c:%d)\t",
			 tp_source_line("omp_fib.c", "static long fib(", pragmas[k]));
		unsigned tasks = (tp_fib_tasks(10) + tp_fib_tasks(9)) / 2;
		cr_expect_eq(tp_timeline_count(summary, track), tasks, "%s%u: %s", track + 1, tasks,
			     summary);
	}
	/* the program libomp cannot run stays on libgomp, and says its tasks are not seen */
	cr_expect_eq(tp_occurrences(run.err, "runs on GCC's libgomp"), 1, "%s", run.err);
	cr_expect(strstr(run.err,
			 "(omp_host_device_memory_gcc) runs on GCC's libgomp, which has no "
			 "tool interface: its tasks are not seen (its threads and waits "
			 "are). LLVM's libomp (") != NULL,
		  "%s", run.err);
	cr_expect(strstr(run.err, "lacks some of what this one calls, or this one brings a "
				  "libgomp of its own: it stays on libgomp\n") != NULL,
		  "%s", run.err);
	free(summary);
	unlink(json);
	tp_run_free(&run);
	tp_run_free(&plain);

	/* the console on such a script: the program's tasks (fib(10)'s, the initial one and the
	 * two implicit ones of its team), it marked as on libomp, said once */
	const char *once = "\"$0\" 10";
	tp_run(TP_PLAIN, (const char *[]){"/bin/sh", "-c", once, fib, NULL}, env, &plain);
	tp_launch((const char *[]){"top", "--once", "--", "/bin/sh", "-c", once, fib, NULL}, env,
		  &run);
	cr_expect_eq(run.status, plain.status, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out);
	cr_expect_eq(tp_occurrences(run.err, "ran on LLVM's libomp"), 1, "%s", run.err);
	cr_expect(strstr(run.err, "taskprobe: 1 process of the run built for GCC's libgomp ran on "
				  "LLVM's libomp (") != NULL,
		  "%s", run.err);
	cr_expect(strstr(run.err, "(libgomp program on libomp) exited after ") != NULL, "%s",
		  run.err);
	char title[128];
	snprintf(title, sizeof title, "| tasks %u spawned, 0 alive, %u done |",
		 tp_fib_tasks(10) + 3, tp_fib_tasks(10) + 3);
	cr_expect(strstr(run.err, title) != NULL, "%s: %s", title, run.err);
	tp_run_free(&run);
	tp_run_free(&plain);
	free(fib);
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
	char *dir = make_dir();
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
	remove_tree(dir);
	free(dir);
}

Test(harm, an_output_the_run_reads_is_refused_before_the_program_runs, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *dir = make_dir();
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
	remove_tree(dir);
	free(dir);
}

/*
 * The converter on its own: `-o FILE` as the launcher checks it. A new file is made mode 0600; a
 * regular file of the user's own is written over; a symbolic link (to a file of the user's or
 * to none) and another user's file are refused, status 2, nothing written.
 */
Test(harm, the_converter_never_writes_its_output_through_a_link_nor_over_another_users_file)
{
	char *dir = make_dir();
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
	remove_tree(dir);
	free(dir);
}

/*
 * The audit module moves a process onto libomp only when its bridge (answering for libgomp) has
 * every version the libgomp to be loaded defines: a libgomp updated since the bridge was built,
 * with a version node of its own that a library loaded later could need, keeps its processes on
 * it (said by the shim), where the installed one moves them.
 */
Test(harm, a_libgomp_newer_than_the_bridge_keeps_its_processes_on_it, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *program = strdup(tp_require_program(tp_target("omp_fib_gcc"), "gcc and libomp-dev"));
	const char *newer = tp_require_file(tp_target("libnewer_gomp.so"), "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	char dir[4096], audit[4200], bridge[4200], setting[3][4300];
	snprintf(dir, sizeof dir, "%s", TP_SHIM_PATH);
	*strrchr(dir, '/') = '\0';
	snprintf(audit, sizeof audit, "LD_AUDIT=%s/libtaskprobe-audit.so", dir);
	snprintf(bridge, sizeof bridge, "TASKPROBE_LIBOMP_BRIDGE=%s/libtaskprobe-gomp-bridge.so",
		 dir);
	snprintf(setting[0], sizeof setting[0], "TASKPROBE_LIBOMP=%s", TP_LIBOMP_PATH);
	struct tp_run cache, plain, run;
	tp_run(TP_PLAIN,
	       (const char *[]){"/bin/sh", "-c",
				"ldconfig -p | awk '/libgomp\\.so\\.1 /{printf \"%s\", $NF; exit}'",
				NULL},
	       NULL, &cache);
	cr_assert_neq(cache.out[0], '\0', "no libgomp.so.1 in the loader's cache");
	const char *argv[] = {program, "10", NULL};
	tp_run(TP_PLAIN, argv, (const char *[]){"OMP_NUM_THREADS=2", NULL}, &plain);
	const char *stays = "it stays on libgomp";
	for (int newer_one = 0; newer_one <= 1; newer_one++) {
		snprintf(setting[1], sizeof setting[1], "TASKPROBE_LIBGOMP=%s",
			 newer_one ? newer : cache.out);
		const char *env[] = {"OMP_NUM_THREADS=2", audit,      bridge,
				     setting[0],          setting[1], NULL};
		tp_run(TP_PRELOADED, argv, env, &run);
		cr_expect_eq(run.status, plain.status, "%s", run.err);
		cr_expect_str_eq(run.out, plain.out, "%s", run.err);
		if (newer_one)
			cr_expect(strstr(run.err, stays) != NULL, "a newer libgomp: %s", run.err);
		else
			cr_expect(strstr(run.err, stays) == NULL, "the cache's libgomp: %s",
				  run.err);
		tp_run_free(&run);
	}
	tp_run_free(&plain);
	tp_run_free(&cache);
	free(program);
}
