// SPDX-License-Identifier: MIT
/* The scenes of the shim's harm tests (harm_scene.h). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harm_scene.h"

char *scratch_dir(void)
{
	char *path = tp_make_temp_dir("harm");
	chmod(path, 0755);
	return path;
}

void script(struct tp_run *run, const char *format, ...)
{
	char *body;
	va_list ap;
	va_start(ap, format);
	cr_assert_geq(vasprintf(&body, format, ap), 0);
	va_end(ap);
	char *text;
	cr_assert_geq(asprintf(&text, "export SHIM='%s' TP_TIMELINE='%s' TARGETS='%s'\n%s",
			       tp_shim(), TP_TIMELINE, TP_TARGETS_DIR, body),
		      0);
	tp_run(TP_PLAIN, (const char *[]){"/bin/bash", "-c", text, NULL}, NULL, run);
	free(text);
	free(body);
}

unsigned entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	cr_assert(d != NULL, "%s", dir);
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

long recorded_events(const char *recording, int *status)
{
	struct tp_run run;
	tp_run(TP_PLAIN,
	       (const char *[]){TP_TIMELINE, "--count", "-o", "/dev/null", recording, NULL}, NULL,
	       &run);
	long n = -1;
	for (const char *line = run.err; n < 0 && (line = strstr(line, "taskprobe-timeline: "));
	     line++)
		if (sscanf(line, "taskprobe-timeline: %ld event", &n) != 1)
			n = -1;
	*status = run.status;
	tp_run_free(&run);
	return n;
}

void expect_recorded_events(const char *dir, const char *name, long events)
{
	char recording[256];
	snprintf(recording, sizeof recording, "%s/%s", dir, name);
	int status;
	cr_expect_eq(recorded_events(recording, &status), events, "%s", name);
	cr_expect_eq(status, 0, "%s", name);
}
