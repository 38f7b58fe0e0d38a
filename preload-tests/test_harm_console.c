// SPDX-License-Identifier: MIT
/*
 * Do no harm (console): see test_harm.c. `taskprobe top PID`, run by root or by anyone, trusts
 * a live statistics file only as far as it checked it: a file of the process's owner whose
 * header names the process; every size and offset checked once and never read again; every
 * text read within its field and escaped in every mode; a file that shrinks under it said, not
 * a SIGBUS; a pid parsed strictly. The files here are forged by the test, for a real process
 * (sleep), in a directory given with --dir or where the process's own environment says.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "forged_live.h"
#include "harness_internal.h"
#include "taskprobe_live.h"

#define TOP    TP_CONTRIB_DIR "/taskprobe-top"
#define NOBODY 65534

/* A process to attach to: `argv` (which becomes `sleep 60`), with `env` (or NULL). */
static void start_sleeping(const char *const argv[], const char *const env[],
			   struct tp_run *sleeper)
{
	tp_start(TP_PLAIN, argv, env, sleeper);
	/* its /proc entry is the sleep's once it has executed */
	char path[64], exe[256];
	snprintf(path, sizeof path, "/proc/%d/exe", (int)sleeper->pid);
	for (int waited = 0; waited < 5000; waited += 10) {
		ssize_t n = readlink(path, exe, sizeof exe - 1);
		if (n > 0 && (exe[n] = '\0', strstr(exe, "sleep") != NULL))
			return;
		tp_sleep_ms(10);
	}
	cr_assert_fail("%d did not become sleep", (int)sleeper->pid);
}

/* A process to attach to: `sleep 60`, with `env` (NULL-terminated, or NULL). */
static void start_sleeper(struct tp_run *sleeper, const char *const env[])
{
	start_sleeping((const char *[]){"/bin/sleep", "60", NULL}, env, sleeper);
}

/* `sleep 60` as nobody (root only). */
static void start_nobodys_sleeper(struct tp_run *sleeper)
{
	start_sleeping((const char *[]){"/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
					"--clear-groups", "/bin/sleep", "60", NULL},
		       NULL, sleeper);
}

static void stop_sleeper(struct tp_run *sleeper)
{
	kill(sleeper->pid, SIGKILL);
	tp_finish(sleeper);
	tp_run_free(sleeper);
}

/*
 * A copy of the ELF file `from` at `to` (mode `mode`), as a module loaded at `bias` (0: an
 * executable at its own addresses), its frame returning into `symbol`.
 */
static struct forged_module module_copy(const char *from, const char *to, mode_t mode,
					uint64_t bias, const char *symbol)
{
	size_t len;
	char *image = tp_read_file(from, &len);
	int fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	cr_assert(fd >= 0, "%s: %s", to, strerror(errno));
	cr_assert_eq(write(fd, image, len), (ssize_t)len);
	cr_assert_eq(fchmod(fd, mode), 0);
	cr_assert_eq(close(fd), 0);
	free(image);
	uint64_t start = bias != 0 ? bias : 0x400000u;
	return (struct forged_module){.path = to,
				      .bias = bias,
				      .start = start,
				      .end = start + 0x1000000u,
				      .pc = bias + tp_symbol_address(from, symbol) + 1};
}

/* A new directory of the test's (mode 0700). */
static char *new_dir(void)
{
	char *dir = strdup("/tmp/taskprobe-harm-console-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	return dir;
}

static void remove_tree(const char *path)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "rm -rf '%s'", path) > 0);
	cr_expect_eq(system(cmd), 0, "%s", cmd);
	free(cmd);
}

/* taskprobe-top with `args` (NULL-terminated) and `env`, to its end. */
static void top(const char *const args[], const char *const env[], struct tp_run *run)
{
	const char *argv[16] = {TOP};
	for (size_t i = 0; args[i] != NULL; i++) {
		cr_assert_lt(i + 2, sizeof argv / sizeof argv[0]);
		argv[i + 1] = args[i];
	}
	tp_run(TP_PLAIN, argv, env, run);
}

/* `taskprobe-top MODE --dir DIR PID`. */
static void top_in(const char *mode, const char *dir, pid_t pid, struct tp_run *run)
{
	char pid_text[16];
	snprintf(pid_text, sizeof pid_text, "%d", (int)pid);
	top((const char *[]){mode, "--interval", "0.05", "--dir", dir, pid_text, NULL}, NULL, run);
}

/* The first byte of `text` (`len` bytes) a terminal would act on: a control but \n, DEL, C1. */
static const char *terminal_control(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		if ((c < 0x20 && c != '\n') || c == 0x7f || (c >= 0x80 && c <= 0x9f))
			return text + i;
	}
	return NULL;
}

Test(harm, console_refuses_a_statistics_file_another_user_owns)
{
	struct tp_run sleeper, run;
	start_sleeper(&sleeper, NULL);
	char *dir = new_dir();
	struct forged f = forged_for(sleeper.pid);
	char *path = write_forged(dir, sleeper.pid, &f);
	/* the forged file is a good one: shown when it is the process's owner's */
	top_in("--once", dir, sleeper.pid, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.out, "forgedcomm (pid ") != NULL, "%s", run.out);
	tp_run_free(&run);
	/* another user's, for root's process: refused, said, nothing shown */
	cr_assert_eq(chown(path, NOBODY, NOBODY), 0, "%s", strerror(errno));
	top_in("--once", dir, sleeper.pid, &run);
	cr_expect_eq(run.status, 1, "%s%s", run.out, run.err);
	cr_expect(strstr(run.err, "belongs to uid 65534") != NULL &&
			  strstr(run.err, "refused") != NULL,
		  "%s", run.err);
	cr_expect(strstr(run.out, "forged") == NULL, "%s", run.out);
	tp_run_free(&run);
	remove_tree(dir);
	free(path);
	free(dir);
	stop_sleeper(&sleeper);
}

Test(harm, console_refuses_a_file_whose_header_names_another_process)
{
	struct tp_run sleeper, run;
	start_sleeper(&sleeper, NULL);
	char *dir = new_dir();
	const struct forged good = forged_for(sleeper.pid);
	static const struct {
		const char *what;
		enum forged_flaw flaw;
		const char *said;
	} cases[] = {
		{"another pid", FORGED_PID_1, "names pid "},
		{"an earlier process with the pid", FORGED_EARLIER_PROCESS, "earlier process"},
		{"another pid namespace", FORGED_OTHER_PID_NAMESPACE, "another pid namespace"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct forged f = good;
		forged_flaw(&f, cases[i].flaw);
		free(write_forged(dir, sleeper.pid, &f));
		top_in("--once", dir, sleeper.pid, &run);
		cr_expect_eq(run.status, 1, "%s: %s%s", cases[i].what, run.out, run.err);
		cr_expect(strstr(run.err, cases[i].said) != NULL &&
				  strstr(run.out, "forged") == NULL,
			  "%s: %s%s", cases[i].what, run.out, run.err);
		tp_run_free(&run);
	}
	/* an older library's header, which says no start: taken */
	struct forged f = good;
	f.header.start_ticks = 0;
	free(write_forged(dir, sleeper.pid, &f));
	top_in("--once", dir, sleeper.pid, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	remove_tree(dir);
	free(dir);
	stop_sleeper(&sleeper);
}

/* Text with every kind of terminal control: OSC 52 (a clipboard write), a title, clear, CSI. */
#define OSC52 "\033]52;c;cHduZWQ=\007"

Test(harm, console_prints_no_escape_sequence_of_the_file_in_any_mode)
{
	struct tp_run sleeper, run;
	start_sleeper(&sleeper, NULL);
	char *dir = new_dir();
	struct forged f = forged_for(sleeper.pid);
	f.site_text = "evil " OSC52 "\033[2J\033[H\x9b"
		      "31m\xc2\x9b"
		      "1m\r\b\x7f (forged.c:7)";
	f.thread_name = "\033]0;pwned\007\033[2Jxx";
	f.thread_name_len = 16;
	f.stack_module = "lib" OSC52 ".so";
	memcpy(f.header.comm, "\033]0;title\007\033[2J", sizeof "\033]0;title\007\033[2J");
	f.header.exited = 1; /* --batch: its last figures, then the end */
	f.header.exited_ns = f.header.ns_at_start + 1000000;
	free(write_forged(dir, sleeper.pid, &f));
	const char *const modes[] = {"--once", "--batch"};
	for (size_t m = 0; m < 2; m++) {
		top_in(modes[m], dir, sleeper.pid, &run);
		cr_expect_eq(run.status, 0, "%s: %s", modes[m], run.err);
		const char *control = terminal_control(run.out, run.out_len);
		cr_expect_null(control, "%s: byte 0x%02x at %zu of:\n%s", modes[m],
			       control != NULL ? (unsigned char)*control : 0,
			       control != NULL ? (size_t)(control - run.out) : 0, run.out);
		cr_expect_null(memchr(run.out, 0x1b, run.out_len), "%s", modes[m]);
		/* shown, escaped: the site, the thread, the name */
		cr_expect(strstr(run.out, "evil \\x1b]52;c;cHduZWQ=\\x07\\x1b[2J") != NULL,
			  "%s: %s", modes[m], run.out);
		cr_expect(strstr(run.out, "\\x1b]0;pwned\\x07") != NULL, "%s: %s", modes[m],
			  run.out);
		cr_expect(strstr(run.out, "\\x1b]0;title\\x07") != NULL, "%s: %s", modes[m],
			  run.out);
		tp_run_free(&run);
	}
	/* the full-screen view: the texts shown escaped, as text */
	char *command;
	cr_assert(asprintf(&command, "TERM=screen %s --dir %s %d", TOP, dir, (int)sleeper.pid) > 0);
	struct tp_terminal t;
	tp_terminal_start(&t, command, 200, 40, false);
	/* the threads' table comes last on the screen: once it is drawn, so is the rest */
	char *screen = tp_terminal_wait_for(&t, "\\x1b]0;pwned\\x07", 20000);
	cr_expect(strstr(screen, "evil \\x1b]52;c;cHduZWQ=\\x07\\x1b[2J") != NULL, "%s", screen);
	cr_expect(strstr(screen, "\\x1b]0;title\\x07") != NULL, "%s", screen);
	free(screen);
	tp_terminal_keys(&t, "q");
	free(tp_terminal_wait_for(&t, "[exit 0]", 20000));
	tp_terminal_stop(&t);
	free(command);
	remove_tree(dir);
	free(dir);
	stop_sleeper(&sleeper);

	/* a directory from the process's environment, said in an error: escaped too */
	start_sleeper(&sleeper, (const char *[]){"TASKPROBE_LIVE_DIR=/nonexistent/" OSC52, NULL});
	char pid[16];
	snprintf(pid, sizeof pid, "%d", (int)sleeper.pid);
	top((const char *[]){"--once", pid, NULL}, NULL, &run);
	cr_expect_eq(run.status, 1, "%s", run.err);
	cr_expect(strstr(run.err, "/nonexistent/\\x1b]52;c;") != NULL, "%s", run.err);
	cr_expect_null(terminal_control(run.err, strlen(run.err)), "%s", run.err);
	tp_run_free(&run);
	stop_sleeper(&sleeper);
}

Test(harm, console_reads_a_comm_without_nul_within_its_sixteen_bytes)
{
	struct tp_run sleeper, run;
	start_sleeper(&sleeper, NULL);
	char *dir = new_dir();
	struct forged f = forged_for(sleeper.pid);
	memset(f.header.comm, 'A', sizeof f.header.comm);
	/* what follows comm in the header: text a read past its end would print */
	memset(&f.header.exited_ns, 'B', sizeof f.header.exited_ns);
	f.thread_name = "TTTTTTTTTTTTTTTT";
	f.thread_name_len = 16;
	free(write_forged(dir, sleeper.pid, &f));
	top_in("--once", dir, sleeper.pid, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.out, "taskprobe top: AAAAAAAAAAAAAAAA (pid ") != NULL, "%s", run.out);
	cr_expect(strstr(run.out, "AB") == NULL, "%s", run.out);
	/* a thread name of 16 bytes: 16 shown, no more (the slot's next field is rows_ready) */
	cr_expect(strstr(run.out, " TTTTTTTTTTTTTTTT ") != NULL, "%s", run.out);
	tp_run_free(&run);
	remove_tree(dir);
	free(dir);
	stop_sleeper(&sleeper);
}

/* Waits (up to 20 s) for a console started with tp_start to print a snapshot. */
static void wait_for_snapshot(const struct tp_run *console)
{
	for (int waited = 0; waited < 20000; waited += 20) {
		char *out = tp_read_file(console->out_file, NULL);
		bool printed = strstr(out, "TID") != NULL;
		free(out);
		if (printed)
			return;
		tp_sleep_ms(20);
	}
	cr_assert_fail("no snapshot: %s", tp_read_file(console->err_file, NULL));
}

Test(harm, console_says_a_file_that_shrinks_under_it_and_is_not_killed)
{
	struct tp_run sleeper, console;
	start_sleeper(&sleeper, NULL);
	char *dir = new_dir();
	struct forged f = forged_for(sleeper.pid);
	char *path = write_forged(dir, sleeper.pid, &f);
	char pid[16];
	snprintf(pid, sizeof pid, "%d", (int)sleeper.pid);
	tp_start(TP_PLAIN,
		 (const char *[]){TOP, "--batch", "--interval", "0.05", "--dir", dir, pid, NULL},
		 NULL, &console);
	wait_for_snapshot(&console);
	/* cut short and grown again, over and over (a read may come at any moment), then cut */
	pid_t cutter = fork();
	cr_assert_geq(cutter, 0);
	if (cutter == 0) {
		for (int i = 0; i < 20000; i++)
			if (truncate(path, i % 2 == 0 ? 4096 : (off_t)TP_LIVE_FILE_SIZE) != 0)
				_exit(1);
		_exit(truncate(path, 4096) != 0);
	}
	int status;
	cr_assert_eq(waitpid(cutter, &status, 0), cutter);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	tp_finish(&console);
	cr_expect_neq(console.status, 128 + SIGBUS, "killed by SIGBUS: %s", console.err);
	cr_expect_eq(console.status, 1, "%s", console.err);
	cr_expect(strstr(console.err, "shrank") != NULL, "%s", console.err);
	tp_run_free(&console);
	remove_tree(dir);
	free(path);
	free(dir);
	stop_sleeper(&sleeper);
}

Test(harm, console_refuses_sizes_and_offsets_past_the_file)
{
	struct tp_run sleeper, run;
	start_sleeper(&sleeper, NULL);
	char *dir = new_dir();
	const struct forged good = forged_for(sleeper.pid);
	static const struct {
		const char *what;
		enum forged_flaw flaw;
		bool cut; /* the file cut short of its header's size */
		const char *said;
	} cases[] = {
		{"rows far past the end", FORGED_ROWS_PAST_END, false,
		 "its rows_offset is 1152921504606846976"},
		{"a stride past the end", FORGED_STRIDE_PAST_END, false,
		 "its rows_stride is 1152921504606846976"},
		{"a size larger than the layout's", FORGED_SIZE_PAST_LAYOUT, false,
		 "its file_size is "},
		{"a file shorter than its header says", FORGED_SOUND, true, "cut short"},
		{"a header shorter than the layout's", FORGED_HEADER_SHORT, false,
		 "its header_size is 8"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct forged f = good;
		forged_flaw(&f, cases[i].flaw);
		char *path = write_forged(dir, sleeper.pid, &f);
		if (cases[i].cut)
			cr_assert_eq(truncate(path, 65536), 0);
		top_in("--once", dir, sleeper.pid, &run);
		cr_expect_eq(run.status, 1, "%s: %s%s", cases[i].what, run.out, run.err);
		cr_expect(strstr(run.err, cases[i].said) != NULL && strstr(run.err, "refused"),
			  "%s: %s", cases[i].what, run.err);
		cr_expect(strstr(run.out, "forged") == NULL, "%s: %s", cases[i].what, run.out);
		tp_run_free(&run);
		free(path);
	}
	remove_tree(dir);
	free(dir);
	stop_sleeper(&sleeper);
}

Test(harm, console_never_reads_an_offset_again_after_checking_it)
{
	struct tp_run sleeper, console;
	start_sleeper(&sleeper, NULL);
	char *dir = new_dir();
	struct forged f = forged_for(sleeper.pid);
	char *path = write_forged(dir, sleeper.pid, &f);
	char pid[16];
	snprintf(pid, sizeof pid, "%d", (int)sleeper.pid);
	tp_start(TP_PLAIN,
		 (const char *[]){TOP, "--batch", "--interval", "0.05", "--dir", dir, pid, NULL},
		 NULL, &console);
	wait_for_snapshot(&console);
	/* checked at open, then changed: rows and a stride far past the end, a huge header */
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	const uint64_t far = 1ull << 60;
	const uint32_t huge = 1u << 30;
	put(fd, &far, sizeof far, offsetof(struct tp_live_header, rows_offset));
	put(fd, &far, sizeof far, offsetof(struct tp_live_header, rows_stride));
	put(fd, &far, sizeof far, offsetof(struct tp_live_header, file_size));
	put(fd, &huge, sizeof huge, offsetof(struct tp_live_header, header_size));
	const uint32_t other_pid = 1;
	put(fd, &other_pid, sizeof other_pid, offsetof(struct tp_live_header, pid));
	tp_sleep_ms(300); /* a few snapshots */
	const uint32_t exited = 1;
	put(fd, &exited, sizeof exited, offsetof(struct tp_live_header, exited));
	cr_assert_eq(close(fd), 0);
	tp_finish(&console);
	cr_expect_eq(console.status, 0, "status %d: %s", console.status, console.err);
	/* the last snapshot: the figures where they were checked to be, the process's pid */
	char spawned[64], whose[64];
	snprintf(spawned, sizeof spawned, "(forged.c:7) %8d", FORGED_SPAWNED);
	snprintf(whose, sizeof whose, "forgedcomm (pid %s) exited after", pid);
	cr_expect(strstr(console.out, spawned) != NULL && strstr(console.out, whose) != NULL, "%s",
		  console.out);
	tp_run_free(&console);
	remove_tree(dir);
	free(path);
	free(dir);
	stop_sleeper(&sleeper);
}

Test(harm, console_refuses_a_pid_that_is_not_one_and_never_wraps_it)
{
	const char *const bad[] = {"4294967303",
				   "2147483648",
				   "99999999999999999999",
				   "+7",
				   " 7",
				   "7 ",
				   "7x",
				   "0",
				   "-1",
				   "0x7",
				   ""};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct tp_run run;
		top((const char *[]){"--once", "--", bad[i], NULL}, NULL, &run);
		cr_expect_eq(run.status, 2, "\"%s\": %s", bad[i], run.err);
		cr_expect(strstr(run.err, "is not a process id") != NULL, "\"%s\": %s", bad[i],
			  run.err);
		cr_expect(strstr(run.err, "pid 7") == NULL, "\"%s\": %s", bad[i], run.err);
		tp_run_free(&run);
	}
}

/* `taskprobe-top --once PID`, without --dir, from an environment of its own (`env`). */
static void top_of(pid_t pid, const char *const env[], struct tp_run *run)
{
	char pid_text[16];
	snprintf(pid_text, sizeof pid_text, "%d", (int)pid);
	top((const char *[]){"--once", pid_text, NULL}, env, run);
}

/* A console whose own settings point elsewhere: it must look where the process's do. */
static const char *const elsewhere[] = {"TASKPROBE_LIVE_DIR=/nonexistent",
					"XDG_RUNTIME_DIR=/nonexistent", "TMPDIR=/nonexistent",
					NULL};

Test(harm, console_looks_where_the_processs_own_environment_puts_its_file)
{
	struct tp_run sleeper, run;
	/* TASKPROBE_LIVE_DIR: a directory of the user's own; ignored once others can write it */
	char *dir = new_dir(), *setting;
	cr_assert(asprintf(&setting, "TASKPROBE_LIVE_DIR=%s", dir) > 0);
	start_sleeper(&sleeper, (const char *[]){setting, NULL});
	struct forged f = forged_for(sleeper.pid);
	free(write_forged(dir, sleeper.pid, &f));
	top_of(sleeper.pid, elsewhere, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.out, "forgedcomm (pid ") != NULL, "%s", run.out);
	tp_run_free(&run);
	cr_assert_eq(chmod(dir, 0777), 0);
	top_of(sleeper.pid, elsewhere, &run);
	cr_expect_eq(run.status, 1, "%s", run.err);
	cr_expect(strstr(run.err, "is ignored") != NULL && strstr(run.out, "forged") == NULL,
		  "%s%s", run.out, run.err);
	tp_run_free(&run);
	stop_sleeper(&sleeper);
	remove_tree(dir);
	free(setting);
	free(dir);

	/* $XDG_RUNTIME_DIR/taskprobe */
	char *runtime = new_dir(), *own;
	cr_assert(asprintf(&setting, "XDG_RUNTIME_DIR=%s", runtime) > 0);
	cr_assert(asprintf(&own, "%s/" TP_LIVE_XDG_SUBDIR, runtime) > 0);
	cr_assert_eq(mkdir(own, 0700), 0);
	start_sleeper(&sleeper, (const char *[]){setting, NULL});
	f = forged_for(sleeper.pid);
	free(write_forged(own, sleeper.pid, &f));
	top_of(sleeper.pid, elsewhere, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.out, "forgedcomm (pid ") != NULL, "%s", run.out);
	tp_run_free(&run);
	stop_sleeper(&sleeper);
	remove_tree(runtime);
	free(setting);
	free(own);
	free(runtime);

	/* /dev/shm/taskprobe-UID.XXXXXX: the shim's when another user took taskprobe-UID */
	char *beside;
	cr_assert(asprintf(&beside, "/dev/shm/" TP_LIVE_USER_DIR_PREFIX "%u.XXXXXX",
			   (unsigned)geteuid()) > 0);
	cr_assert_not_null(mkdtemp(beside), "%s: %s", beside, strerror(errno));
	start_sleeper(&sleeper, (const char *[]){"XDG_RUNTIME_DIR=", NULL});
	f = forged_for(sleeper.pid);
	free(write_forged(beside, sleeper.pid, &f));
	top_of(sleeper.pid, elsewhere, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.out, "forgedcomm (pid ") != NULL, "%s", run.out);
	tp_run_free(&run);
	/* another user's directory of that name: ignored */
	cr_assert_eq(chown(beside, NOBODY, NOBODY), 0);
	top_of(sleeper.pid, elsewhere, &run);
	cr_expect_eq(run.status, 1, "%s", run.err);
	cr_expect(strstr(run.out, "forged") == NULL, "%s", run.out);
	tp_run_free(&run);
	stop_sleeper(&sleeper);
	remove_tree(beside);
	free(beside);
}

Test(harm, console_finds_a_programs_statistics_where_its_shim_put_them)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	/* the program's runtime directory; the console's environment says another */
	char *runtime = new_dir(), *setting;
	cr_assert(asprintf(&setting, "XDG_RUNTIME_DIR=%s", runtime) > 0);
	struct tp_run program, run = {0};
	tp_start(TP_PRELOADED, (const char *[]){tp_target("omp_top_shapes"), "40", NULL},
		 (const char *[]){"TASKPROBE_LIVE=1", setting, NULL}, &program);
	char path[256];
	snprintf(path, sizeof path, "%s/" TP_LIVE_XDG_SUBDIR "/" TP_LIVE_FILE_PREFIX "%d", runtime,
		 (int)program.pid);
	bool shown = false;
	for (int attempt = 0; attempt < 100 && !shown; attempt++) {
		tp_run_free(&run);
		top_of(program.pid, elsewhere, &run);
		shown = run.status == 0 && strstr(run.out, "omp_top_shapes (pid ") != NULL &&
			strstr(run.out, "(omp_top_shapes.c:") != NULL;
		if (!shown)
			tp_sleep_ms(100);
	}
	cr_expect(shown, "%s%s", run.out, run.err);
	cr_expect_eq(access(path, F_OK), 0, "not in %s", path);
	tp_run_free(&run);
	tp_finish(&program);
	cr_expect_eq(program.status, 0, "%s", program.err);
	tp_run_free(&program);
	remove_tree(runtime);
	free(setting);
	free(runtime);
}

/*
 * Root's console, for a program of another user: the modules the user's file names are read
 * as that user, and a file only root may read is never opened (once named "function (file:line)"
 * from anything the user pointed at, /etc/shadow included).
 */
Test(harm, console_reads_another_users_modules_as_that_user)
{
	if (geteuid() != 0)
		tp_skip_unless_ci("a program of another user's needs root");
	struct tp_run sleeper, run;
	start_nobodys_sleeper(&sleeper);
	char *dir = new_dir(), *public, *root_only, *secret;
	cr_assert_eq(chmod(dir, 0755), 0);
	cr_assert(asprintf(&public, "%s/public.so", dir) > 0);
	cr_assert(asprintf(&root_only, "%s/root-only", dir) > 0);
	cr_assert(asprintf(&secret, "%s/secret", root_only) > 0);
	cr_assert_eq(mkdir(root_only, 0700), 0);
	struct forged f = forged_for(sleeper.pid);
	f.modules[0] = module_copy(tp_target("libearly_lib.so"), public, 0644, 0x7f0000000000u,
				   "early_lib_waits");
	f.modules[1] = module_copy(tp_target("mutex_waits"), secret, 0600, 0, "main");
	char *path = write_forged(dir, sleeper.pid, &f);
	cr_assert_eq(chown(path, NOBODY, NOBODY), 0, "%s", strerror(errno));
	int watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	cr_assert(watch >= 0 && inotify_add_watch(watch, secret, IN_OPEN | IN_ACCESS) >= 0);
	top_in("--once", dir, sleeper.pid, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	/* the user's module named as the user reads it; root's shown by address */
	cr_expect(strstr(run.out, "early_lib_waits (early_lib.c:") != NULL, "%s", run.out);
	char by_address[512];
	snprintf(by_address, sizeof by_address, "%#llx (secret)",
		 (unsigned long long)(f.modules[1].pc - f.modules[1].bias));
	cr_expect(strstr(run.out, by_address) != NULL, "no %s in:\n%s", by_address, run.out);
	cr_expect(strstr(run.out, "mutex_waits.c") == NULL, "%s", run.out);
	struct inotify_event event;
	cr_expect_eq(read(watch, &event, sizeof event), -1, "%s was opened", secret);
	close(watch);
	tp_run_free(&run);
	remove_tree(dir);
	free(path);
	free(secret);
	free(root_only);
	free(public);
	free(dir);
	stop_sleeper(&sleeper);
}

/*
 * A copy of mutex_waits at `dir`/`name` as f's module, its symbols at main, given a
 * .gnu_debuglink to `name`.debug beside it by `link_command` (a shell command run in `dir`).
 */
static void debug_linked_module(const char *dir, const char *name, const char *link_command,
				struct forged *f, char **module, char **debug)
{
	cr_assert(asprintf(module, "%s/%s", dir, name) > 0);
	cr_assert(asprintf(debug, "%s/%s.debug", dir, name) > 0);
	f->modules[0] = module_copy(tp_target("mutex_waits"), *module, 0700, 0, "main");
	char *command;
	cr_assert(asprintf(&command, "cd %s && %s", dir, link_command) > 0);
	cr_assert_eq(system(command), 0, "%s", command);
	free(command);
}

/*
 * A module without DWARF whose .gnu_debuglink names a fifo beside it: opening the fifo to read
 * it waited for a writer for ever. The console finishes (killed after 60 s: the failure).
 */
Test(harm, console_finishes_when_a_debug_link_names_a_fifo)
{
	tp_require_program("/usr/bin/objcopy", "binutils");
	struct tp_run sleeper, run;
	start_sleeper(&sleeper, NULL);
	char *dir = new_dir(), *module, *debug;
	struct forged f = forged_for(sleeper.pid);
	/* the link's file must exist for objcopy (its CRC): made, linked, replaced by a fifo */
	debug_linked_module(dir, "stripped",
			    "cp stripped stripped.debug && objcopy --strip-debug "
			    "--add-gnu-debuglink=stripped.debug stripped && rm stripped.debug",
			    &f, &module, &debug);
	cr_assert_eq(mkfifo(debug, 0600), 0);
	free(write_forged(dir, sleeper.pid, &f));
	char pid[16];
	snprintf(pid, sizeof pid, "%d", (int)sleeper.pid);
	tp_run(TP_PLAIN,
	       (const char *[]){"/usr/bin/timeout", "-s", "KILL", "60", TOP, "--once", "--dir", dir,
				pid, NULL},
	       NULL, &run);
	cr_expect_neq(run.status, 128 + SIGKILL, "hung, killed after 60 s: %s", run.out);
	cr_expect_eq(run.status, 0, "%s", run.err);
	/* named from its symbols, the debug file refused */
	cr_expect(strstr(run.out, "main+0") != NULL || strstr(run.out, "main (") != NULL, "%s",
		  run.out);
	tp_run_free(&run);
	remove_tree(dir);
	free(debug);
	free(module);
	free(dir);
	stop_sleeper(&sleeper);
}

/*
 * A module's debug file, beside it by its .gnu_debuglink, that another user owns: libdw maps it,
 * and that user could cut it short under root's console (SIGBUS). Read when root's, not when
 * nobody's: the module is named from its symbols then.
 */
Test(harm, console_reads_no_debug_file_another_user_can_change)
{
	tp_require_program("/usr/bin/objcopy", "binutils");
	struct tp_run sleeper, run;
	start_sleeper(&sleeper, NULL);
	char *dir = new_dir(), *module, *debug;
	struct forged f = forged_for(sleeper.pid);
	debug_linked_module(dir, "split",
			    "objcopy --only-keep-debug split split.debug && objcopy "
			    "--strip-debug --add-gnu-debuglink=split.debug split",
			    &f, &module, &debug);
	free(write_forged(dir, sleeper.pid, &f));
	top_in("--once", dir, sleeper.pid, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.out, "main (mutex_waits.c:") != NULL, "%s", run.out);
	tp_run_free(&run);
	cr_assert_eq(chown(debug, NOBODY, NOBODY), 0);
	top_in("--once", dir, sleeper.pid, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	/* from its symbols: the site, a return address one past main's entry, is main itself */
	cr_expect(strstr(run.out, "mutex_waits.c") == NULL &&
			  strstr(run.out, "main (split)") != NULL,
		  "%s", run.out);
	tp_run_free(&run);
	remove_tree(dir);
	free(debug);
	free(module);
	free(dir);
	stop_sleeper(&sleeper);
}

/* Whether `path` is mapped into process `pid`. */
static bool maps_file(pid_t pid, const char *path)
{
	char maps_path[64];
	snprintf(maps_path, sizeof maps_path, "/proc/%d/maps", (int)pid);
	char *maps = tp_read_file(maps_path, NULL);
	bool mapped = strstr(maps, path) != NULL;
	free(maps);
	return mapped;
}

/*
 * A module's file truncated while the console reads it mapped would kill it with SIGBUS: the
 * console reads modules' files (their symbols and DWARF) and never maps them.
 */
Test(harm, console_reads_module_files_without_mapping_them)
{
	struct tp_run sleeper, console;
	start_sleeper(&sleeper, NULL);
	char *dir = new_dir(), *module;
	cr_assert(asprintf(&module, "%s/module.so", dir) > 0);
	struct forged f = forged_for(sleeper.pid);
	f.modules[0] = module_copy(tp_target("libearly_lib.so"), module, 0600, 0x7f0000000000u,
				   "early_lib_waits");
	char *path = write_forged(dir, sleeper.pid, &f);
	char pid[16];
	snprintf(pid, sizeof pid, "%d", (int)sleeper.pid);
	tp_start(TP_PLAIN,
		 (const char *[]){TOP, "--batch", "--interval", "0.05", "--dir", dir, pid, NULL},
		 NULL, &console);
	wait_for_snapshot(&console);
	/* named by now (the snapshot's stack), the files still open */
	cr_expect_not(maps_file(console.pid, module), "%s is mapped", module);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	const uint32_t exited = 1;
	put(fd, &exited, sizeof exited, offsetof(struct tp_live_header, exited));
	cr_assert_eq(close(fd), 0);
	tp_finish(&console);
	cr_expect_eq(console.status, 0, "%s", console.err);
	cr_expect(strstr(console.out, "early_lib_waits (early_lib.c:") != NULL, "%s", console.out);
	tp_run_free(&console);
	remove_tree(dir);
	free(path);
	free(module);
	free(dir);
	stop_sleeper(&sleeper);
}

/* A module's file whose build id is not the one the program loaded: not named from it. */
Test(harm, console_names_from_a_module_file_only_of_its_build_id)
{
	struct tp_run sleeper, run;
	start_sleeper(&sleeper, NULL);
	char *dir = new_dir(), *module;
	cr_assert(asprintf(&module, "%s/module.so", dir) > 0);
	struct forged f = forged_for(sleeper.pid);
	f.modules[0] = module_copy(tp_target("libearly_lib.so"), module, 0600, 0x7f0000000000u,
				   "early_lib_waits");
	f.modules[0].build_id_size = 20;
	memset(f.modules[0].build_id, 0xab, 20);
	free(write_forged(dir, sleeper.pid, &f));
	top_in("--once", dir, sleeper.pid, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	char by_address[512];
	snprintf(by_address, sizeof by_address, "%#llx (module.so)",
		 (unsigned long long)(f.modules[0].pc - f.modules[0].bias));
	cr_expect(strstr(run.out, by_address) != NULL, "no %s in:\n%s", by_address, run.out);
	cr_expect(strstr(run.out, "early_lib_waits") == NULL, "%s", run.out);
	tp_run_free(&run);
	remove_tree(dir);
	free(module);
	free(dir);
	stop_sleeper(&sleeper);
}

/* The first child of process `pid`, or 0. */
static pid_t child_of(pid_t pid)
{
	char path[96];
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	char *children = tp_read_file(path, NULL);
	pid_t child = (pid_t)atoi(children);
	free(children);
	return child;
}

/* Waits (up to 60 s) for a console started with tp_start to print `text`. */
static void wait_for_output(const struct tp_run *console, const char *text)
{
	for (int waited = 0; waited < 60000; waited += 50) {
		char *out = tp_read_file(console->out_file, NULL);
		bool printed = strstr(out, text) != NULL;
		free(out);
		if (printed)
			return;
		tp_sleep_ms(50);
	}
	cr_assert_fail("no %s: %s", text, tp_read_file(console->out_file, NULL));
}

/*
 * Another user's process named by a child that became that user: one that hangs (stopped here:
 * a file that never answers) costs the console a bounded wait, then its names are addresses.
 */
Test(harm, console_names_by_address_when_the_users_namer_hangs, .timeout = 120)
{
	if (geteuid() != 0)
		tp_skip_unless_ci("a program of another user's needs root");
	struct tp_run sleeper, console;
	start_nobodys_sleeper(&sleeper);
	char *dir = new_dir(), *module;
	cr_assert_eq(chmod(dir, 0755), 0);
	cr_assert(asprintf(&module, "%s/public.so", dir) > 0);
	struct forged f = forged_for(sleeper.pid);
	f.modules[0] = module_copy(tp_target("libearly_lib.so"), module, 0644, 0x7f0000000000u,
				   "early_lib_waits");
	char *path = write_forged(dir, sleeper.pid, &f);
	cr_assert_eq(chown(path, NOBODY, NOBODY), 0, "%s", strerror(errno));
	char pid[16];
	snprintf(pid, sizeof pid, "%d", (int)sleeper.pid);
	tp_start(TP_PLAIN,
		 (const char *[]){TOP, "--batch", "--interval", "0.05", "--dir", dir, pid, NULL},
		 NULL, &console);
	wait_for_output(&console, "early_lib_waits (early_lib.c:");
	pid_t namer = child_of(console.pid);
	cr_assert_gt(namer, 0, "no namer");
	char status_path[64];
	snprintf(status_path, sizeof status_path, "/proc/%d/status", (int)namer);
	char *status = tp_read_file(status_path, NULL);
	cr_expect(strstr(status, "\nUid:\t65534\t65534\t65534\t65534\n") != NULL &&
			  strstr(status, "\nGid:\t65534\t65534\t65534\t65534\n") != NULL,
		  "%s", status);
	free(status);
	cr_expect_not(maps_file(namer, module), "%s is mapped by the namer", module);
	cr_assert_eq(kill(namer, SIGSTOP), 0);
	/* a new site: its name is asked of the stopped namer */
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	uint64_t pc = f.modules[0].pc + 4;
	struct tp_live_site site = {
		.state = TP_LIVE_ENTRY_READY, .site_id = 9, .module = 0, .address = pc};
	put(fd, &site, sizeof site, TP_LIVE_SITES_OFFSET + 9 * sizeof site);
	struct tp_live_site_stats figures = {.spawned = 1};
	put(fd, &figures, sizeof figures, TP_LIVE_ROWS_OFFSET + 9 * sizeof figures);
	char by_address[64];
	snprintf(by_address, sizeof by_address, "%#llx (public.so)",
		 (unsigned long long)(pc - f.modules[0].bias));
	wait_for_output(&console, by_address);
	const uint32_t exited = 1;
	put(fd, &exited, sizeof exited, offsetof(struct tp_live_header, exited));
	cr_assert_eq(close(fd), 0);
	tp_finish(&console);
	cr_expect_eq(console.status, 0, "%s", console.err);
	tp_run_free(&console);
	remove_tree(dir);
	free(path);
	free(module);
	free(dir);
	stop_sleeper(&sleeper);
}

#define TOP_MAN_PAGE TP_SCRIPTS_DIR "/../contrib/man/taskprobe-top.1"
#define COLUMNS_MAX  32

/*
 * The words of `text` (`len` bytes) as a list ("a b c"): lower case, "or" and commas left out,
 * one space between two.
 */
static void column_words(char *out, size_t size, const char *text, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < len;) {
		while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == ','))
			i++;
		size_t start = i;
		while (i < len && text[i] != ' ' && text[i] != '\n' && text[i] != ',')
			i++;
		if (i == start || (i - start == 2 && strncmp(text + start, "or", 2) == 0))
			continue;
		for (size_t k = start; k < i && used + 2 < size; k++)
			out[used++] = (char)tolower((unsigned char)text[k]);
		if (used + 1 < size)
			out[used++] = ' ';
		out[used] = '\0';
	}
	if (used > 0)
		out[used - 1] = '\0';
}

/* The text of `text` from after `start` (and the next `after`) up to `end`, as column_words. */
static void words_between(char *out, size_t size, const char *text, const char *start,
			  const char *after, const char *end, const char *whose)
{
	const char *from = strstr(text, start);
	cr_assert_not_null(from, "%s: no \"%s\" in:\n%s", whose, start, text);
	from = strstr(from, after);
	cr_assert_not_null(from, "%s: no \"%s\" after \"%s\"", whose, after, start);
	from += strlen(after);
	const char *to = strstr(from, end);
	cr_assert_not_null(to, "%s: no \"%s\" after \"%s\"", whose, end, start);
	column_words(out, size, from, (size_t)(to - from));
}

/*
 * The columns --sort takes are the sites table's (the one table of live_format.c): --help and
 * taskprobe-top(1) list every one of them, in the table's order, and no other.
 */
Test(harm, console_help_and_man_page_list_every_sort_column)
{
	struct tp_run sleeper, run;
	start_sleeper(&sleeper, NULL);
	char *dir = new_dir();
	const struct forged f = forged_for(sleeper.pid);
	free(write_forged(dir, sleeper.pid, &f));
	top_in("--once", dir, sleeper.pid, &run);
	cr_assert_eq(run.status, 0, "%s%s", run.out, run.err);
	char table[512], help[512], man[512];
	words_between(table, sizeof table, run.out, "\nSITE ", "SITE", "\n", "the sites table");
	tp_run_free(&run);
	remove_tree(dir);
	free(dir);
	stop_sleeper(&sleeper);

	top((const char *[]){"--help", NULL}, NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	words_between(help, sizeof help, run.out, "Columns", ":", ".", "--help");
	tp_run_free(&run);
	char *page = tp_read_file(TOP_MAN_PAGE, NULL);
	words_between(man, sizeof man, page, ".BI \\-\\-sort \" column\"\n", "\n", "(default",
		      "taskprobe-top(1)");
	free(page);
	char columns[sizeof table + 8];
	snprintf(columns, sizeof columns, "site %s", table);
	cr_expect_str_eq(help, columns, "--help's columns: %s\nthe table's: %s", help, columns);
	cr_expect_str_eq(man, columns, "taskprobe-top(1)'s columns: %s\nthe table's: %s", man,
			 columns);
	/* and --sort takes each */
	char *saveptr = NULL;
	for (char *c = strtok_r(columns, " ", &saveptr); c != NULL;
	     c = strtok_r(NULL, " ", &saveptr)) {
		top((const char *[]){"--check-options", "--sort", c, NULL}, NULL, &run);
		cr_expect_eq(run.status, 0, "--sort %s: %s", c, run.err);
		tp_run_free(&run);
	}
}
