// SPDX-License-Identifier: MIT
/*
 * `taskprobe run -- PROGRAM [ARGS...]` in its common case, without the launcher's shell: a
 * dynamically linked 64-bit program, found and executable, not setuid or setgid, that needs no
 * GCC libgomp. Each process the shell starts costs some 6 ms on a virtual machine (bash's fork:
 * ldconfig, the loader's listing, the console that removes the live file at the end, twice), and
 * the shell itself a few more: about 50 ms of `taskprobe run`'s own time, against under 10 here
 * (the listing a posix_spawn, the loader's cache read from its file).
 *
 * It says nothing: whatever the launcher would say something about (a script, a static, setuid
 * or GCC OpenMP program, a program not found, a listing that fails, a cache it cannot read) is
 * handed back to the launcher's shell, which runs `run` itself (TASKPROBE_RUN_CHECKED, which
 * the shell unsets). What it does is the shell's cmd_run, prepare and exec_program: the same
 * program, arguments, LD_PRELOAD, audit module settings and live statistics setting, and the
 * same console started beside it, never as the program's child.
 *
 * Usage (the launcher's, before it reads the rest of itself):
 *   taskprobe-run BASH SCRIPT LIBTASKPROBE AUDIT BRIDGE TOP run [--] PROGRAM [ARGS...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader_cache.h"

extern char **environ;

/* The 64-bit x86 loader, which lists a program's libraries (the shell's LOADER64). */
static const char loader64[] = "/lib64/ld-linux-x86-64.so.2";
#define LISTING_MAX (1u << 20)

enum { BASH = 1, SCRIPT, LIBTASKPROBE, AUDIT, BRIDGE, TOP, COMMAND };

static char **given;
static int n_given;

/* The launcher's shell runs `run` itself, with the arguments as given. */
__attribute__((noreturn)) static void hand_back(void)
{
	char **argv = calloc((size_t)(n_given - COMMAND) + 3, sizeof *argv);
	if (argv != NULL && setenv("TASKPROBE_RUN_CHECKED", "1", 1) == 0) {
		argv[0] = given[BASH];
		argv[1] = given[SCRIPT];
		for (int i = COMMAND; i < n_given; i++)
			argv[2 + i - COMMAND] = given[i];
		execv(given[BASH], argv);
	}
	fprintf(stderr, "taskprobe: cannot run %s: %s\n", given[SCRIPT], strerror(errno));
	exit(2);
}

/* The file program `name` is, as the shell's find_program finds it (a name without a slash in
 * PATH); NULL when the shell is to say why there is none. */
static char *find_program(const char *name)
{
	if (strchr(name, '/') != NULL)
		return strdup(name);
	const char *path = getenv("PATH");
	if (path == NULL)
		return NULL;
	for (const char *dir = path;; dir++) {
		const char *end = strchrnul(dir, ':');
		char *candidate;
		struct stat st;
		/* an empty element is the working directory */
		if (asprintf(&candidate, "%.*s%s%s", (int)(end - dir), dir, end > dir ? "/" : "",
			     name) < 0)
			return NULL;
		if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode) &&
		    faccessat(AT_FDCWD, candidate, X_OK, AT_EACCESS) == 0)
			return candidate;
		free(candidate);
		if (*end == '\0')
			return NULL;
		dir = end;
	}
}

/* Whether `path` is what the fast way runs: a regular executable file, not setuid or setgid, a
 * 64-bit ELF file. */
static bool runnable_here(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & (S_ISUID | S_ISGID)) ||
	    faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) != 0)
		return false;
	unsigned char ident[5];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	bool elf64 = fd >= 0 && read(fd, ident, sizeof ident) == (ssize_t)sizeof ident &&
		     memcmp(ident, "\177ELF\002", sizeof ident) == 0;
	if (fd >= 0)
		close(fd);
	return elf64 && access(loader64, X_OK) == 0;
}

/* The environment with `name` set to `value` (replaced, or added); NULL when out of memory. */
static char **with_setting(char **env, const char *name, const char *value)
{
	size_t n = 0, len = strlen(name);
	while (env[n] != NULL)
		n++;
	char **out = calloc(n + 2, sizeof *out), *setting;
	if (out == NULL || asprintf(&setting, "%s=%s", name, value) < 0)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(env[i], name, len) != 0 || env[i][len] != '=')
			out[k++] = env[i];
	out[k++] = setting;
	return out;
}

/* The libraries the loader lists for `path` (its --list, LC_ALL=C, stdout and stderr), as the
 * shell's list_libraries; NULL when the listing fails. */
static char *listing(const char *path)
{
	char *shown = NULL, **env = with_setting(environ, "LC_ALL", "C");
	if (path[0] != '/' && asprintf(&shown, "./%s", path) < 0) /* never taken for an option */
		return NULL;
	int pipe_fds[2];
	if (env == NULL || pipe2(pipe_fds, O_CLOEXEC) != 0)
		return NULL;
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
	posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
	char *argv[] = {(char *)loader64, "--list", shown != NULL ? shown : (char *)path, NULL};
	pid_t pid;
	int failed = posix_spawn(&pid, loader64, &actions, NULL, argv, env);
	posix_spawn_file_actions_destroy(&actions);
	close(pipe_fds[1]);
	char *text = failed == 0 ? malloc(LISTING_MAX + 1) : NULL;
	size_t got = 0;
	for (ssize_t n = 1; text != NULL && n > 0 && got < LISTING_MAX; got += (size_t)n) {
		n = read(pipe_fds[0], text + got, LISTING_MAX - got);
		if (n < 0 && errno == EINTR)
			n = 0;
		else if (n < 0)
			break;
	}
	close(pipe_fds[0]);
	int status = 0;
	if (failed == 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	if (text == NULL || got >= LISTING_MAX || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return NULL;
	text[got] = '\0';
	return text;
}

/* This process's start time, /proc/self/stat's 22nd field (the shell's `fields[19]`). */
static bool start_time(char *out, size_t size)
{
	char stat[1024];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, stat, sizeof stat - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	stat[n] = '\0';
	char *at = strrchr(stat, ')');
	for (int field = 0; at != NULL && field < 20; field++)
		at = strchr(at + 1, ' ');
	if (at == NULL)
		return false;
	size_t len = strcspn(at + 1, " ");
	if (len == 0 || len >= size)
		return false;
	memcpy(out, at + 1, len);
	out[len] = '\0';
	return true;
}

/*
 * The console that removes the live file when the program ends (the shell's
 * remove_live_file_at_end): a grandchild, so that it is never the program's child (the program
 * may wait for all its own).
 */
static void remove_live_file_at_end(const char *top)
{
	const char *live = getenv("TASKPROBE_LIVE");
	char start[32], pid[32];
	if ((live != NULL && (strcmp(live, "0") == 0 || strcmp(live, "keep") == 0)) ||
	    access(top, X_OK) != 0 || !start_time(start, sizeof start))
		return;
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	pid_t child = fork();
	if (child == 0) {
		posix_spawn_file_actions_t actions;
		posix_spawn_file_actions_init(&actions);
		posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
		posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
		char *argv[] = {(char *)top, "--remove-at-end", start, pid, NULL};
		pid_t console;
		_exit(posix_spawn(&console, top, &actions, NULL, argv, environ) == 0 ? 0 : 1);
	}
	if (child > 0)
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
}

/* The program's environment: this one's with `name` set to `value`; hands back when out of
 * memory (this process's own is left as it was, for the shell). */
static char **program_env;

static void set(const char *name, const char *value)
{
	program_env = with_setting(program_env, name, value);
	if (program_env == NULL)
		hand_back();
}

int main(int argc, char **argv)
{
	given = argv;
	n_given = argc;
	if (argc <= COMMAND || strcmp(argv[COMMAND], "run") != 0) {
		fprintf(stderr,
			"taskprobe-run: the launcher's own helper (see taskprobe --help)\n");
		return 2;
	}
	int first = COMMAND + 1;
	if (first < argc && strcmp(argv[first], "--") == 0)
		first++;
	else if (first < argc && argv[first][0] == '-')
		hand_back(); /* an option: the shell's to take or refuse */
	if (first >= argc || argv[first][0] == '\0')
		hand_back();
	char *program = find_program(argv[first]);
	if (program == NULL || !runnable_here(program))
		hand_back();
	char *libs = listing(program);
	if (libs == NULL || strstr(libs, "not a dynamic executable") != NULL ||
	    strstr(libs, "statically linked") != NULL || strstr(libs, "libgomp.so") != NULL)
		hand_back();
	/* the loader's cache: libomp for the audit module (every process of the run that needs
	 * GCC's libgomp), and the libgomp whose versions the module checks */
	char libomp[4096] = "", libgomp[4096] = "";
	size_t cache_size = 0;
	unsigned char *cache = loader_cache_read("/etc/ld.so.cache", &cache_size);
	if (cache == NULL ||
	    loader_cache_find(cache, cache_size, "libomp.so.5", libomp, sizeof libomp) < 0 ||
	    loader_cache_find(cache, cache_size, "libgomp.so.1", libgomp, sizeof libgomp) < 0)
		hand_back();
	free(cache);
	remove_live_file_at_end(argv[TOP]);
	/* the shell's SETTINGS, then openmp_audit_settings, then LD_PRELOAD */
	/* each read before it is set: this process's own environment (never changed) says it */
	program_env = environ;
	const char *live = getenv("TASKPROBE_LIVE");
	set("TASKPROBE_LIVE", live != NULL && live[0] != '\0' ? live : "1");
	if (libomp[0] != '\0' && access(argv[AUDIT], R_OK) == 0 &&
	    access(argv[BRIDGE], R_OK) == 0) {
		const char *audit = getenv("LD_AUDIT");
		char *colons = NULL, *own = NULL, *joined = NULL;
		if (asprintf(&colons, ":%s:", audit != NULL ? audit : "") < 0 ||
		    asprintf(&own, ":%s:", argv[AUDIT]) < 0)
			hand_back();
		if (strstr(colons, own) == NULL &&
		    asprintf(&joined, "%s%s%s", argv[AUDIT], audit != NULL && audit[0] ? ":" : "",
			     audit != NULL ? audit : "") < 0)
			hand_back();
		set("LD_AUDIT", joined != NULL ? joined : audit);
		set("TASKPROBE_LIBOMP", libomp);
		set("TASKPROBE_LIBOMP_BRIDGE", argv[BRIDGE]);
		set("TASKPROBE_LIBGOMP", libgomp);
	}
	const char *preload = getenv("LD_PRELOAD");
	char *preloads;
	if (asprintf(&preloads, "%s%s%s", argv[LIBTASKPROBE],
		     preload != NULL && preload[0] ? " " : "", preload != NULL ? preload : "") < 0)
		hand_back();
	set("LD_PRELOAD", preloads);
	/* the program, named as the user named it */
	execve(program, &argv[first], program_env);
	hand_back(); /* the shell says why it cannot be run */
}
