// SPDX-License-Identifier: MIT
/* Programs recorded and converted, and speedscope's view (timeline_recorded.h). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_recorded.h"

#define SANDWICH_ROWS  TP_SCRIPTS_DIR "/../preload-tests/speedscope/sandwich_rows.mjs"
#define SPEEDSCOPE_DIR "/usr/lib/node_modules/speedscope/dist/release"

char *only_file(const char *dir, const char *prefix)
{
	char *cmd, *found = NULL;
	cr_assert(asprintf(&cmd, "ls '%s' | grep '^%s'", dir, prefix) > 0);
	FILE *p = popen(cmd, "r");
	free(cmd);
	char line[4096];
	unsigned n = 0;
	while (fgets(line, sizeof line, p) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (n++ == 0)
			found = tp_path_in(dir, line);
	}
	pclose(p);
	cr_assert_eq(n, 1, "%u files %s* in %s", n, prefix, dir);
	return found;
}

void record_into(const char *dir, const char *prefix, const char *target, const char *arg,
		 struct tp_run *run, bool start_only)
{
	char setting[4300];
	snprintf(setting, sizeof setting, "TASKPROBE_RECORD=%s/%s.%%p", dir, prefix);
	const char *argv[] = {target, arg, NULL};
	const char *env[] = {setting, "OMP_NUM_THREADS=2", NULL};
	if (start_only)
		tp_start(TP_PRELOADED, argv, env, run);
	else
		tp_run(TP_PRELOADED, argv, env, run);
}

char *record_and_convert(const char *dir, const char *target, const char *arg, const char *json)
{
	struct tp_run run;
	record_into(dir, "rec", target, arg, &run, false);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	char *rec = only_file(dir, "rec.");
	tp_convert((const char *[]){"-o", json, rec, NULL}, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	return rec;
}

char *speedscope_rows(const char *json)
{
	tp_require_program("/usr/bin/chromium", "chromium");
	const char *node = tp_require_program("/usr/bin/node", "nodejs");
	tp_require_file(SPEEDSCOPE_DIR "/index.html",
			"speedscope (npm install -g speedscope playwright-core)");
	tp_require_file("/usr/lib/node_modules/playwright-core/package.json",
			"playwright-core (npm install -g speedscope playwright-core)");
	struct tp_run run;
	tp_run(TP_PLAIN, (const char *[]){node, SANDWICH_ROWS, SPEEDSCOPE_DIR, json, NULL}, NULL,
	       &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	char *rows = strdup(run.out);
	tp_run_free(&run);
	return rows;
}
