// SPDX-License-Identifier: MIT
/*
 * Do no harm (console): see test_harm.c. `taskprobe top PID`, run by root or by anyone, trusts
 * a live statistics file only as far as it checked it: a file of the process's owner whose
 * header names the process; every size and offset checked once and never read again; every
 * text read within its field and escaped in every mode; a file that shrinks under it said, not
 * a SIGBUS; a pid parsed strictly; its help and man page list every column. The files here are
 * forged by the test, for a real process (sleep), in a directory given with --dir.
 * test_harm_console_names.c holds where the console finds the file and how it names sites.
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
#include "console_scene.h"
#include "forged_live.h"
#include "harness_internal.h"
#include "taskprobe_live.h"

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
	char *dir = tp_make_temp_dir("console");
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
	tp_remove_temp_dir(dir);
	free(path);
	stop_sleeper(&sleeper);
}

Test(harm, console_refuses_a_file_whose_header_names_another_process)
{
	struct tp_run sleeper, run;
	start_sleeper(&sleeper, NULL);
	char *dir = tp_make_temp_dir("console");
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
	tp_remove_temp_dir(dir);
	stop_sleeper(&sleeper);
}

/* Text with every kind of terminal control: OSC 52 (a clipboard write), a title, clear, CSI. */
#define OSC52 "\033]52;c;cHduZWQ=\007"

Test(harm, console_prints_no_escape_sequence_of_the_file_in_any_mode)
{
	struct tp_run sleeper, run;
	start_sleeper(&sleeper, NULL);
	char *dir = tp_make_temp_dir("console");
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
	tp_remove_temp_dir(dir);
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
	char *dir = tp_make_temp_dir("console");
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
	tp_remove_temp_dir(dir);
	stop_sleeper(&sleeper);
}

Test(harm, console_says_a_file_that_shrinks_under_it_and_is_not_killed)
{
	struct tp_run sleeper, console;
	start_sleeper(&sleeper, NULL);
	char *dir = tp_make_temp_dir("console");
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
	tp_remove_temp_dir(dir);
	free(path);
	stop_sleeper(&sleeper);
}

Test(harm, console_refuses_sizes_and_offsets_past_the_file)
{
	struct tp_run sleeper, run;
	start_sleeper(&sleeper, NULL);
	char *dir = tp_make_temp_dir("console");
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
	tp_remove_temp_dir(dir);
	stop_sleeper(&sleeper);
}

Test(harm, console_never_reads_an_offset_again_after_checking_it)
{
	struct tp_run sleeper, console;
	start_sleeper(&sleeper, NULL);
	char *dir = tp_make_temp_dir("console");
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
	tp_remove_temp_dir(dir);
	free(path);
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
	char *dir = tp_make_temp_dir("console");
	const struct forged f = forged_for(sleeper.pid);
	free(write_forged(dir, sleeper.pid, &f));
	top_in("--once", dir, sleeper.pid, &run);
	cr_assert_eq(run.status, 0, "%s%s", run.out, run.err);
	char table[512], help[512], man[512];
	words_between(table, sizeof table, run.out, "\nSITE ", "SITE", "\n", "the sites table");
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
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

/*
 * The launcher of `taskprobe top -- PROGRAM` sent HUP or TERM alone while the screen is drawn (a
 * supervisor's `kill PID`, a hangup that reaches the session's leader only): the program gets it,
 * the console ends, and the terminal is given back (its normal screen, where the command was
 * typed), the launcher ending as the program did, with no word of a console failure. HUP left
 * the console's screen on the terminal in raw mode (ncurses dies of it); TERM, which ncurses ends
 * with status 1, was said as "the console failed".
 */
Test(harm, a_signal_to_the_consoles_launcher_ends_the_program_and_gives_back_the_terminal,
     .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *signals[][2] = {{"HUP", "[exit 129]"}, {"TERM", "[exit 143]"}};
	for (size_t i = 0; i < 2; i++) {
		char *dir = tp_make_temp_dir("harm-console-signal"), *command, *pid_file;
		cr_assert(asprintf(&pid_file, "%s/pid", dir) > 0);
		cr_assert(asprintf(&command,
				   "cd /tmp && sh -c 'echo $$ > %s; exec %s/taskprobe top -- sleep "
				   "60'",
				   pid_file, TP_CONTRIB_DIR) > 0);
		struct tp_terminal t;
		tp_terminal_start(&t, command, 120, 30, false);
		free(tp_terminal_wait_for(&t, "q quit", 20000));
		FILE *f = fopen(pid_file, "r");
		int pid = 0;
		cr_assert(f != NULL && fscanf(f, "%d", &pid) == 1 && pid > 0);
		fclose(f);
		cr_assert_eq(kill(pid, signals[i][0][0] == 'H' ? SIGHUP : SIGTERM), 0);
		char *screen = tp_terminal_wait_for(&t, signals[i][1], 20000);
		cr_expect(strstr(screen, "q quit") == NULL && strstr(screen, "SITE") == NULL,
			  "%s: the console's screen left: %s", signals[i][0], screen);
		cr_expect(strstr(screen, "console failed") == NULL, "%s: %s", signals[i][0],
			  screen);
		free(screen);
		tp_terminal_stop(&t);
		free(command);
		free(pid_file);
		tp_remove_temp_dir(dir);
	}
}
