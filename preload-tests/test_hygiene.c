// SPDX-License-Identifier: MIT
/*
 * What carries the project on, checked with the suite: a LICENSE, an SPDX line on every C and D
 * file, every C file as clang-format makes it (.clang-format), every shell script clean under
 * shellcheck.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define SOURCE_ROOT TP_SCRIPTS_DIR "/.."

/* Runs `command` in the source tree; its output (the caller frees) and exit status. */
static char *run_in_tree(const char *command, int *status)
{
	char *cmd, *text = NULL;
	size_t size = 0;
	cr_assert(asprintf(&cmd, "cd '%s' && %s 2>&1", SOURCE_ROOT, command) > 0);
	FILE *p = popen(cmd, "r");
	free(cmd);
	cr_assert_not_null(p);
	FILE *out = open_memstream(&text, &size);
	char line[4096];
	while (fgets(line, sizeof line, p) != NULL)
		fputs(line, out);
	fclose(out);
	*status = pclose(p);
	return text;
}

/* The files `git ls-files PATTERNS` lists in the source tree, one per line (the caller frees). */
static char *tracked_files(const char *patterns)
{
	char *cmd;
	int status;
	cr_assert(asprintf(&cmd, "git ls-files %s", patterns) > 0);
	char *list = run_in_tree(cmd, &status);
	free(cmd);
	cr_assert_eq(status, 0, "git ls-files failed (the suite reads the source tree's files): %s",
		     list);
	return list;
}

TP_SUITE_NOT_UNDER(hygiene, TP_ASAN | TP_TSAN, "source checks: nothing in them runs the shim");

Test(hygiene, a_license_and_an_spdx_line_on_every_c_and_d_file)
{
	char *license = tp_read_file(SOURCE_ROOT "/LICENSE", NULL);
	cr_expect(strstr(license, "MIT License") != NULL, "LICENSE is not the MIT license");
	free(license);
	char *files = tracked_files("'*.c' '*.h' '*.d' '*.d.in'");
	size_t n = 0;
	for (char *f = strtok(files, "\n"); f != NULL; f = strtok(NULL, "\n"), n++) {
		char path[4200];
		snprintf(path, sizeof path, "%s/%s", SOURCE_ROOT, f);
		char *text = tp_read_file(path, NULL);
		char *first_lines = strndup(text, 200);
		cr_expect(strstr(first_lines, "SPDX-License-Identifier: MIT") != NULL,
			  "%s has no SPDX line at its top", f);
		free(first_lines);
		free(text);
	}
	cr_expect_gt(n, 50, "%zu files", n);
	free(files);
}

Test(hygiene, every_c_file_is_as_clang_format_makes_it, .timeout = 120)
{
	tp_require_program("/usr/bin/clang-format", "clang-format");
	int status;
	char *out = run_in_tree("git ls-files '*.c' '*.h' | xargs clang-format --dry-run --Werror",
				&status);
	cr_expect_eq(status, 0, "clang-format would change (run clang-format -i on them):\n%.4000s",
		     out);
	free(out);
}

Test(hygiene, every_shell_script_is_clean_under_shellcheck, .timeout = 120)
{
	tp_require_program("/usr/bin/shellcheck", "shellcheck");
	int status;
	/* the scripts: tracked files whose first line runs bash */
	char *out = run_in_tree("git ls-files | while read -r f; do head -n 1 \"$f\" | grep -q "
				"'^#!.*bash' && echo \"$f\"; done | "
				"xargs shellcheck -s bash",
				&status);
	cr_expect_eq(status, 0, "shellcheck:\n%.4000s", out);
	free(out);
}

/*
 * The quick start and a user without root build only what a user runs, with the packages of
 * contrib/install-deps's build profile: every file that build takes from the system (headers,
 * libraries, programs) must be in a package the profile brings (preload-tests/user-build-packages
 * asks dpkg and apt-cache, on this build's dependency log), and the README must name the same
 * packages.
 */
Test(hygiene, the_build_profile_brings_every_package_the_user_build_uses, .timeout = 120)
{
	tp_require_program("/usr/bin/apt-cache", "apt (Debian)");
	tp_require_program("/usr/bin/dpkg-query", "dpkg (Debian)");
	int status;
	char *out = run_in_tree("bash preload-tests/user-build-packages '" TP_CONTRIB_DIR "/..'",
				&status);
	cr_expect_eq(status, 0,
		     "files the user's build uses whose packages contrib/install-deps build does "
		     "not install:\n%.4000s",
		     out);
	free(out);
}

Test(hygiene, the_readme_names_the_packages_of_the_build_profile)
{
	int status;
	char *list = run_in_tree("bash contrib/install-deps --list build | paste -s -d ' '",
				 &status);
	cr_assert_eq(status, 0, "contrib/install-deps --list build: %s", list);
	list[strcspn(list, "\n")] = '\0';
	char *readme = tp_read_file(SOURCE_ROOT "/README.md", NULL);
	char *line;
	cr_assert(asprintf(&line, "apt-get install %s\n", list) > 0);
	cr_expect(strstr(readme, line) != NULL,
		  "README.md's plain build does not say \"%s\" (contrib/install-deps build's "
		  "packages)",
		  line);
	free(line);
	free(readme);
	free(list);
}

/* ---- files with one job, functions one can read ---- */

#define MAX_FILE_LINES     800
#define MAX_FUNCTION_LINES 120

/*
 * The C files of shim/ and contrib/ still over a limit, each with why: this list only shrinks
 * (an exemption no longer needed fails the test too, so that it is taken out).
 */
static const char *const still_exempt[] = {
	/* being rewritten, with shim/consumers' statistics, into one analysis engine */
	"contrib/timeline/analysis.c",
	/* its four hash tables are to move out beside its per-event statistics */
	"shim/consumers/live.c",
	/* its speed comes first (issue 39); split after */
	"shim/consumers/recorder.c",
	/* one interposer per libomp entry point, written out one by one */
	"shim/audit/libomp_audit.c",
};

static bool exempt(const char *path)
{
	for (size_t i = 0; i < sizeof still_exempt / sizeof *still_exempt; i++)
		if (strcmp(still_exempt[i], path) == 0)
			return true;
	return false;
}

/* Past a comment, string or character literal, or preprocessor line that starts at `p`
 * (counting its newlines in *line); `p` itself when none starts there. */
static const char *skip_non_code(const char *p, bool line_start, unsigned *line)
{
	const char *end = p;
	if (p[0] == '/' && p[1] == '*') {
		end = strstr(p + 2, "*/");
		end = end != NULL ? end + 2 : p + strlen(p);
	} else if (p[0] == '/' && p[1] == '/') {
		end = p + strcspn(p, "\n");
	} else if (*p == '"' || *p == '\'') {
		for (end = p + 1; *end != '\0' && *end != *p; end++)
			if (*end == '\\' && end[1] != '\0')
				end++;
		end += *end != '\0';
	} else if (*p == '#' && line_start) {
		/* a directive, with its continued lines */
		for (end = p; *(end += strcspn(end, "\n")) != '\0' && end[-1] == '\\'; end++)
			;
	}
	for (const char *c = p; c < end; c++)
		*line += *c == '\n';
	return end;
}

/*
 * Says in `out` each function of the C text `source` (of file `path`) longer than
 * MAX_FUNCTION_LINES, from its opening brace to its closing one; returns how many. A function is
 * a block at file level whose head (the text since the last declaration or block) holds a
 * parenthesis and no '=' (an initializer's braces are not a body).
 */
static size_t long_functions(const char *path, const char *source, FILE *out)
{
	unsigned line = 1, depth = 0, opened = 0;
	bool head_has_call = false, head_has_equals = false, function = false;
	size_t found = 0;
	for (const char *p = source; *p != '\0';) {
		const char *next = skip_non_code(p, p == source || p[-1] == '\n', &line);
		if (next != p) {
			p = next;
			continue;
		}
		if (*p == '{' && depth++ == 0) {
			function = head_has_call && !head_has_equals;
			opened = line;
		} else if (*p == '}' && depth > 0 && --depth == 0) {
			if (function && line - opened + 1 > MAX_FUNCTION_LINES && ++found)
				fprintf(out, "%s:%u: a function of %u lines\n", path, opened,
					line - opened + 1);
			head_has_call = head_has_equals = false;
		} else if (depth == 0) {
			if (*p == ';')
				head_has_call = head_has_equals = false;
			head_has_call |= *p == '(';
			head_has_equals |= *p == '=';
		}
		line += *p++ == '\n';
	}
	return found;
}

Test(hygiene, no_file_over_800_lines_and_no_function_over_120_in_shim_and_contrib)
{
	char *files = tracked_files("'shim/*.c' 'shim/*.h' 'contrib/*.c' 'contrib/*.h'");
	char *said = NULL;
	size_t said_size = 0, n = 0;
	FILE *out = open_memstream(&said, &said_size);
	bool over[sizeof still_exempt / sizeof *still_exempt] = {false};
	for (char *f = strtok(files, "\n"); f != NULL; f = strtok(NULL, "\n"), n++) {
		char path[4200];
		snprintf(path, sizeof path, "%s/%s", SOURCE_ROOT, f);
		char *text = tp_read_file(path, NULL);
		size_t lines = 0;
		for (const char *c = text; *c != '\0'; c++)
			lines += *c == '\n';
		FILE *mine = exempt(f) ? fopen("/dev/null", "w") : out;
		size_t flaws = long_functions(f, text, mine);
		if (lines > MAX_FILE_LINES)
			fprintf(mine, "%s: %zu lines\n", f, lines);
		flaws += lines > MAX_FILE_LINES;
		for (size_t i = 0; i < sizeof still_exempt / sizeof *still_exempt; i++)
			over[i] |= flaws > 0 && strcmp(still_exempt[i], f) == 0;
		if (mine != out)
			fclose(mine);
		free(text);
	}
	for (size_t i = 0; i < sizeof still_exempt / sizeof *still_exempt; i++)
		if (!over[i])
			fprintf(out,
				"%s: within the limits now (or gone): take it out of "
				"still_exempt\n",
				still_exempt[i]);
	fclose(out);
	cr_expect_gt(n, 50, "%zu files", n);
	cr_expect(said_size == 0,
		  "files over %d lines or with functions over %d (split them by job):\n%.4000s",
		  MAX_FILE_LINES, MAX_FUNCTION_LINES, said);
	free(said);
	free(files);
}
