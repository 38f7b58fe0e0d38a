// SPDX-License-Identifier: MIT
/*
 * Processes (harness_internal.h): which shim a target gets and what is preloaded with it, a
 * program started held and reaped with a time limit, temporary files and reading them back.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness_internal.h"

extern char **environ;

static const char *shim_override;

const char *tp_shim(void)
{
	return shim_override != NULL ? shim_override : TP_SHIM_PATH;
}

void tp_use_shim(const char *shim)
{
	shim_override = shim;
}

/* Every temporary file's and directory's name, WHAT and a unique ending in it. */
#define TEMP_PATTERN "/tmp/taskprobe-test-%s-XXXXXX"

/* A new empty file named after `what` (TEMP_PATTERN) in `path`, an array of `size` bytes; its
 * descriptor. */
static int temp_file_in(const char *what, char *path, size_t size)
{
	cr_assert((size_t)snprintf(path, size, TEMP_PATTERN, what) < size);
	int fd = mkstemp(path);
	cr_assert(fd >= 0, "mkstemp: %s", strerror(errno));
	return fd;
}

/* The paths of tp_make_temp_until_exit's callers, whose files the exit removes. */
#define TEMPS_UNTIL_EXIT_MAX 8
static char *temps_until_exit[TEMPS_UNTIL_EXIT_MAX];

static void remove_temps_until_exit(void)
{
	for (size_t i = 0; i < TEMPS_UNTIL_EXIT_MAX && temps_until_exit[i] != NULL; i++)
		unlink(temps_until_exit[i]);
}

int tp_make_temp_until_exit(const char *what, char *path, size_t size)
{
	int fd = temp_file_in(what, path, size);
	size_t i = 0;
	while (i < TEMPS_UNTIL_EXIT_MAX && temps_until_exit[i] != NULL &&
	       temps_until_exit[i] != path)
		i++;
	cr_assert_lt(i, TEMPS_UNTIL_EXIT_MAX, "more than %d callers", TEMPS_UNTIL_EXIT_MAX);
	if (temps_until_exit[i] == NULL) {
		if (i == 0)
			atexit(remove_temps_until_exit);
		temps_until_exit[i] = path;
	}
	return fd;
}

const char *tp_shim_copy(void)
{
	static char copy[64];
	int out = tp_make_temp_until_exit("shim", copy, sizeof copy),
	    in = open(TP_SHIM_PATH, O_RDONLY);
	cr_assert(in >= 0);
	char buf[65536];
	ssize_t n;
	while ((n = read(in, buf, sizeof buf)) > 0)
		cr_assert(write(out, buf, (size_t)n) == n);
	close(in);
	close(out);
	return copy;
}

void tp_use_private_shim(void)
{
	static const char *copy;
	if (copy == NULL)
		copy = tp_shim_copy();
	tp_use_shim(copy);
}

const char *tp_target(const char *name)
{
	static __thread char path[4096];
	snprintf(path, sizeof path, "%s/%s", TP_TARGETS_DIR, name);
	return path;
}

void tp_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

char *tp_make_temp(const char *what)
{
	size_t size = sizeof TEMP_PATTERN + strlen(what);
	char *path = malloc(size);
	cr_assert_not_null(path);
	close(temp_file_in(what, path, size));
	return path;
}

char *tp_make_temp_dir(const char *what)
{
	char *path;
	cr_assert(asprintf(&path, TEMP_PATTERN, what) > 0);
	cr_assert(mkdtemp(path) != NULL, "mkdtemp: %s", strerror(errno));
	return path;
}

void tp_remove_temp_dir(char *path)
{
	char *command;
	cr_assert(asprintf(&command, "rm -rf -- '%s'", path) > 0);
	cr_expect_eq(system(command), 0, "%s", command);
	free(command);
	free(path);
}

char *tp_read_stream(FILE *f, size_t *len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&buf, &size);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		fwrite(chunk, 1, n, mem);
	fclose(mem);
	if (len != NULL)
		*len = size;
	return buf;
}

char *tp_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f != NULL, "open %s: %s", path, strerror(errno));
	char *buf = tp_read_stream(f, len);
	fclose(f);
	return buf;
}

bool tp_maps(pid_t pid, const char *text)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	char *maps = tp_read_file(path, NULL);
	bool found = strstr(maps, text) != NULL;
	free(maps);
	return found;
}

char **tp_target_environment(enum tp_mode mode, const char *const extra[])
{
	size_t n = 0, m = 0;
	while (environ[n] != NULL)
		n++;
	while (extra != NULL && extra[m] != NULL)
		m++;
	char **env = calloc(n + m + 2, sizeof *env);
	size_t k = 0;
	const char *before_shim = NULL, *after_shim = NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 &&
		    strncmp(environ[i], "TASKPROBE_", 10) != 0)
			env[k++] = environ[i];
	for (size_t i = 0; i < m; i++) {
		if (strncmp(extra[i], "LD_PRELOAD=", 11) == 0)
			before_shim = extra[i] + 11;
		else if (strncmp(extra[i], "TP_PRELOAD_AFTER_SHIM=", 22) == 0)
			after_shim = extra[i] + 22;
		else
			env[k++] = (char *)extra[i];
	}
	char *preload = NULL;
	if (mode == TP_PLAIN) {
		if (after_shim != NULL)
			cr_assert(asprintf(&preload, "LD_PRELOAD=%s", after_shim) > 0);
	} else {
		/*
		 * A sanitized shim needs its sanitizer's runtime loaded: ASan's before everything,
		 * TSan's after the shim, so that the shim's thread trampoline runs inside TSan's
		 * (the test setups of preload-tests/meson.build set these).
		 */
		const char *first = getenv("TP_PRELOAD_FIRST"), *last = getenv("TP_PRELOAD_LAST");
		const char *parts[] = {first, before_shim, tp_shim(), after_shim, last};
		FILE *f = open_memstream(&preload, &(size_t){0});
		fputs("LD_PRELOAD=", f);
		for (size_t i = 0, written = 0; i < sizeof parts / sizeof parts[0]; i++)
			if (parts[i] != NULL)
				fprintf(f, "%s%s", written++ ? " " : "", parts[i]);
		fclose(f);
	}
	if (preload != NULL)
		env[k++] = preload;
	return env;
}

pid_t tp_spawn(char *const argv[], char *const envp[], const char *out, const char *err, int go_fd)
{
	pid_t pid = fork();
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		/* A test that fails half-way must not leave a tracer attached or a target running. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/*
		 * Every signal's default action, none blocked, whatever the suite was started
		 * from: a non-interactive shell's `&` ignores SIGINT and SIGQUIT, which exec keeps,
		 * and a target that ignores a test's Ctrl-C runs on until the test times out.
		 */
		for (int sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				signal(sig, SIG_DFL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* stdin /dev/null, stdout and stderr the files; no other descriptor is inherited */
		int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
		int o = open(out, O_WRONLY | O_TRUNC | O_CLOEXEC),
		    e = open(err, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		/* the test runner's own descriptors stay with it (but the go pipe, closed on exec) */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != go_fd)
				close(fd);
		char go;
		if (go_fd >= 0 && read(go_fd, &go, 1) != 1)
			_exit(125); /* the harness gave up before starting it */
		execve(argv[0], argv, envp);
		_exit(127);
	}
	return pid;
}

/* tp_reap's, saying a kill as a logged error (criterion then exits 1) or as a note. */
static int reap(pid_t pid, long ms, bool kill_is_error)
{
	int status;
	for (long waited = 0;; waited += 10) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		cr_assert(r >= 0, "waitpid: %s", strerror(errno));
		if (r == pid)
			break;
		if (waited >= ms) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			if (kill_is_error)
				cr_log_error("process %d did not end within %ld ms; killed",
					     (int)pid, ms);
			else
				fprintf(stderr,
					"note: process %d did not end within %ld ms; killed\n",
					(int)pid, ms);
			break;
		}
		tp_sleep_ms(10);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int tp_reap(pid_t pid, long ms)
{
	return reap(pid, ms, true);
}

int tp_reap_or_note(pid_t pid, long ms)
{
	return reap(pid, ms, false);
}
