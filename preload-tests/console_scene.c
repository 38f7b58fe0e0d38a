// SPDX-License-Identifier: MIT
/* The scene of the console's harm tests (console_scene.h). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "console_scene.h"
#include "harness_internal.h"

/* A process to attach to: `argv` (which becomes `sleep 60`), with `env` (or NULL). */
static void start_sleeping(const char *const argv[], const char *const env[],
			   struct tp_run *sleeper)
{
	tp_start(TP_PLAIN, argv, env, sleeper);
	/* its /proc entry is the sleep's once it has executed: its executable, then its arguments
	 * and environment (the console reads TASKPROBE_LIVE_DIR there), which the kernel places
	 * after it names the executable (read in between, they are empty) */
	char path[64], args[64], exe[256];
	snprintf(path, sizeof path, "/proc/%d/exe", (int)sleeper->pid);
	snprintf(args, sizeof args, "/proc/%d/cmdline", (int)sleeper->pid);
	for (int waited = 0; waited < 5000; waited += 10) {
		ssize_t n = readlink(path, exe, sizeof exe - 1);
		if (n > 0 && (exe[n] = '\0', strstr(exe, "sleep") != NULL)) {
			FILE *f = fopen(args, "r");
			n = f != NULL ? (ssize_t)fread(exe, 1, sizeof exe - 1, f) : 0;
			if (f != NULL)
				fclose(f);
			/* its first argument, /bin/sleep (setpriv's names it later) */
			if (n > 0 && (exe[n] = '\0', strstr(exe, "sleep") != NULL))
				return;
		}
		tp_sleep_ms(10);
	}
	cr_assert_fail("%d did not become sleep", (int)sleeper->pid);
}

void start_sleeper(struct tp_run *sleeper, const char *const env[])
{
	start_sleeping((const char *[]){"/bin/sleep", "60", NULL}, env, sleeper);
}

void start_nobodys_sleeper(struct tp_run *sleeper)
{
	start_sleeping((const char *[]){"/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
					"--clear-groups", "/bin/sleep", "60", NULL},
		       NULL, sleeper);
}

void stop_sleeper(struct tp_run *sleeper)
{
	kill(sleeper->pid, SIGKILL);
	tp_finish(sleeper);
	tp_run_free(sleeper);
}

void top(const char *const args[], const char *const env[], struct tp_run *run)
{
	const char *argv[16] = {TOP};
	for (size_t i = 0; args[i] != NULL; i++) {
		cr_assert_lt(i + 2, sizeof argv / sizeof argv[0]);
		argv[i + 1] = args[i];
	}
	tp_run(TP_PLAIN, argv, env, run);
}

void top_in(const char *mode, const char *dir, pid_t pid, struct tp_run *run)
{
	char pid_text[16];
	snprintf(pid_text, sizeof pid_text, "%d", (int)pid);
	top((const char *[]){mode, "--interval", "0.05", "--dir", dir, pid_text, NULL}, NULL, run);
}

void wait_for_snapshot(const struct tp_run *console)
{
	for (int waited = 0; waited < 20000; waited += 20) {
		char *out = tp_read_file(console->out_file, NULL);
		/* the sites' table, in every snapshot (the threads' is not, when none was seen) */
		bool printed = strstr(out, "\nSITE ") != NULL;
		free(out);
		if (printed)
			return;
		tp_sleep_ms(20);
	}
	cr_assert_fail("no snapshot: %s", tp_read_file(console->err_file, NULL));
}
