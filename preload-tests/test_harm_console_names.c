// SPDX-License-Identifier: MIT
/*
 * Do no harm (console, the suite `harm`: see test_harm_console.c): where `taskprobe top PID` finds
 * a process's statistics (where its own environment put them, not the console's), and how it
 * names sites from the process's modules: another user's modules read as that user, debug files
 * and links no other user can change or turn into a hang, module files read without mapping
 * them, named only of their build id, and a namer that hangs left for addresses.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "console_scene.h"
#include "forged_live.h"
#include "harness.h"
#include "harness_internal.h"
#include "taskprobe_live.h"

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
	char *dir = tp_make_temp_dir("console"), *setting;
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
	tp_remove_temp_dir(dir);
	free(setting);

	/* $XDG_RUNTIME_DIR/taskprobe */
	char *runtime = tp_make_temp_dir("console"), *own;
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
	tp_remove_temp_dir(runtime);
	free(setting);
	free(own);

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
	tp_remove_temp_dir(beside);
}

Test(harm, console_finds_a_programs_statistics_where_its_shim_put_them)
{
	TP_NOT_UNDER(TP_TSAN, TP_OPENMP_UNDER_TSAN);
	/* the program's runtime directory; the console's environment says another */
	char *runtime = tp_make_temp_dir("console"), *setting;
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
	tp_remove_temp_dir(runtime);
	free(setting);
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
	char *dir = tp_make_temp_dir("console"), *public, *root_only, *secret;
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
	tp_remove_temp_dir(dir);
	free(path);
	free(secret);
	free(root_only);
	free(public);
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
	char *dir = tp_make_temp_dir("console"), *module, *debug;
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
	tp_remove_temp_dir(dir);
	free(debug);
	free(module);
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
	char *dir = tp_make_temp_dir("console"), *module, *debug;
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
	tp_remove_temp_dir(dir);
	free(debug);
	free(module);
	stop_sleeper(&sleeper);
}

/*
 * A module's file truncated while the console reads it mapped would kill it with SIGBUS: the
 * console reads modules' files (their symbols and DWARF) and never maps them.
 */
Test(harm, console_reads_module_files_without_mapping_them)
{
	struct tp_run sleeper, console;
	start_sleeper(&sleeper, NULL);
	char *dir = tp_make_temp_dir("console"), *module;
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
	cr_expect_not(tp_maps(console.pid, module), "%s is mapped", module);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	const uint32_t exited = 1;
	put(fd, &exited, sizeof exited, offsetof(struct tp_live_header, exited));
	cr_assert_eq(close(fd), 0);
	tp_finish(&console);
	cr_expect_eq(console.status, 0, "%s", console.err);
	cr_expect(strstr(console.out, "early_lib_waits (early_lib.c:") != NULL, "%s", console.out);
	tp_run_free(&console);
	tp_remove_temp_dir(dir);
	free(path);
	free(module);
	stop_sleeper(&sleeper);
}

/* A module's file whose build id is not the one the program loaded: not named from it. */
Test(harm, console_names_from_a_module_file_only_of_its_build_id)
{
	struct tp_run sleeper, run;
	start_sleeper(&sleeper, NULL);
	char *dir = tp_make_temp_dir("console"), *module;
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
	tp_remove_temp_dir(dir);
	free(module);
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
	char *dir = tp_make_temp_dir("console"), *module;
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
	cr_expect_not(tp_maps(namer, module), "%s is mapped by the namer", module);
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
	tp_remove_temp_dir(dir);
	free(path);
	free(module);
	stop_sleeper(&sleeper);
}
