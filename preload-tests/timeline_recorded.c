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

void speedscope_rows_of(const char *const jsons[], char *rows[])
{
	tp_require_program("/usr/bin/chromium", "chromium");
	const char *node = tp_require_program("/usr/bin/node", "nodejs");
	tp_require_file(SPEEDSCOPE_DIR "/index.html",
			"speedscope (npm install -g speedscope playwright-core)");
	tp_require_file("/usr/lib/node_modules/playwright-core/package.json",
			"playwright-core (npm install -g speedscope playwright-core)");
	const char *argv[8] = {node, SANDWICH_ROWS, SPEEDSCOPE_DIR};
	size_t n = 0;
	while (jsons[n] != NULL) {
		cr_assert_lt(n + 4, sizeof argv / sizeof argv[0], "too many timelines at once");
		argv[n + 3] = jsons[n];
		n++;
	}
	argv[n + 3] = NULL;
	struct tp_run run;
	tp_run(TP_PLAIN, argv, NULL, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	/* each timeline's rows: from its "timeline\tPATH" line to the next one's */
	const char *at = run.out;
	for (size_t k = 0; k < n; k++) {
		const char *start = strstr(at, "timeline\t"), *end;
		cr_assert_not_null(start, "timeline %zu of %zu not shown:\n%s", k + 1, n, run.out);
		const char *line_end = strchr(start, '\n');
		start = line_end != NULL ? line_end + 1 : start + strlen(start);
		end = strstr(start, "timeline\t");
		end = end != NULL ? end : start + strlen(start);
		rows[k] = strndup(start, (size_t)(end - start));
		at = end;
	}
	tp_run_free(&run);
}

char *speedscope_rows(const char *json)
{
	char *rows;
	speedscope_rows_of((const char *[]){json, NULL}, &rows);
	return rows;
}
