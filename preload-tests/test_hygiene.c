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
