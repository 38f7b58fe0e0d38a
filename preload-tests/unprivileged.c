// SPDX-License-Identifier: MIT
/*
 * Running the launcher as a user without root (harness.h): the build tree may sit where such a
 * user cannot read (a CI clone under /root), so what the run needs is copied to a directory of
 * its own, as an installation would put it.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define RUNUSER "/usr/sbin/runuser"

static char install[64];
static char out[96];

static void remove_install(void)
{
	char *cmd;
	if (asprintf(&cmd, "rm -rf '%s'", install) > 0 && system(cmd) != 0)
		fprintf(stderr, "note: %s was not removed\n", install);
}

static const char *install_dir(void)
{
	if (install[0] != '\0')
		return install;
	snprintf(install, sizeof install, "/tmp/taskprobe-unprivileged-XXXXXX");
	cr_assert_not_null(mkdtemp(install));
	cr_assert_eq(chmod(install, 0755), 0);
	snprintf(out, sizeof out, "%s/out", install);
	cr_assert_eq(mkdir(out, 0755), 0);
	cr_assert_eq(chmod(out, 01777), 0);
	atexit(remove_install);
	return install;
}

/* Writes `text` (`len` bytes) to a new file `name` in the directory, executable by all. */
static const char *put(const char *name, const char *text, size_t len)
{
	char *path;
	cr_assert(asprintf(&path, "%s/%s", install_dir(), name) > 0);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(path, 0755), 0);
	return path;
}

const char *tp_unprivileged_copy(const char *program)
{
	if (geteuid() != 0)
		return program;
	size_t len;
	char *text = tp_read_file(program, &len);
	char *name = strdup(program);
	const char *copy = put(basename(name), text, len);
	free(name);
	free(text);
	return copy;
}

const char *tp_unprivileged_out(void)
{
	return geteuid() != 0 ? "/tmp" : (install_dir(), out);
}

/* The launcher as installed for nobody: its copy, naming the copies of the shim and converter. */
const char *tp_unprivileged_launcher(void)
{
	static const char *copy;
	if (geteuid() != 0)
		return TP_CONTRIB_DIR "/taskprobe";
	if (copy != NULL)
		return copy;
	const char *shim = tp_unprivileged_copy(tp_shim());
	const char *timeline = tp_unprivileged_copy(TP_CONTRIB_DIR "/taskprobe-timeline");
	const char *top = tp_unprivileged_copy(TP_CONTRIB_DIR "/taskprobe-top");
	char *text = tp_read_file(TP_CONTRIB_DIR "/taskprobe", NULL);
	char *fixed = NULL;
	size_t fixed_len = 0;
	FILE *f = open_memstream(&fixed, &fixed_len);
	for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		if (strncmp(line, "LIBTASKPROBE=", 13) == 0)
			fprintf(f, "LIBTASKPROBE='%s'\n", shim);
		else if (strncmp(line, "TIMELINE=", 9) == 0)
			fprintf(f, "TIMELINE='%s'\n", timeline);
		else if (strncmp(line, "TOP=", 4) == 0)
			fprintf(f, "TOP='%s'\n", top);
		else
			fprintf(f, "%s\n", line);
	}
	fclose(f);
	copy = put("taskprobe", fixed, fixed_len);
	free(fixed);
	free(text);
	return copy;
}

void tp_launch_unprivileged(const char *const args[], const char *const env[], struct tp_run *run)
{
	enum { ARGS_MAX = 32 };
	const char *argv[ARGS_MAX];
	size_t n = 0;
	if (geteuid() == 0) {
		tp_require_program(RUNUSER, "util-linux");
		argv[n++] = RUNUSER;
		argv[n++] = "-u";
		argv[n++] = "nobody";
		argv[n++] = "--";
	}
	argv[n++] = tp_unprivileged_launcher();
	for (size_t i = 0; args[i] != NULL && n < ARGS_MAX - 1; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	tp_run(TP_PLAIN, argv, env, run);
}
