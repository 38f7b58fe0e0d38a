// SPDX-License-Identifier: MIT
/*
 * What carries the project on, checked with the suite: a LICENSE, an SPDX line on every C and D
 * file, every C file as clang-format makes it (.clang-format), every shell script clean under
 * shellcheck, a README that stays a front door and documents whose links lead somewhere.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The README is a front door: what taskprobe is, the quick start, what people do, links. */
#define README_MAX_LINES 400

Test(hygiene, the_readme_is_a_front_door_of_at_most_400_lines)
{
	char *readme = tp_read_file(SOURCE_ROOT "/README.md", NULL);
	size_t lines = 0;
	for (const char *c = readme; *c != '\0'; c++)
		lines += *c == '\n';
	cr_expect_leq(lines, README_MAX_LINES,
		      "README.md has %zu lines: what is not the front door goes to docs/", lines);
	free(readme);
}

/*
 * GitHub's anchor of heading `text` (`len` bytes) into `out`: lower case, spaces as hyphens,
 * every other character but letters, digits, '-' and '_' left out (bytes of UTF-8 kept).
 */
static void heading_anchor(char *out, size_t size, const char *text, size_t len)
{
	size_t used = 0;
	for (size_t i = 0; i < len && used + 1 < size; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == ' ')
			out[used++] = '-';
		else if (isalnum(c) || c == '-' || c == '_' || c >= 0x80)
			out[used++] = (char)tolower(c);
	}
	out[used] = '\0';
}

/* Whether the Markdown `text` has a heading whose anchor is `anchor`. */
static bool has_heading_anchor(const char *text, const char *anchor)
{
	bool fenced = false;
	for (const char *line = text; *line != '\0';) {
		const char *end = strchrnul(line, '\n');
		if (strncmp(line, "```", 3) == 0)
			fenced = !fenced;
		else if (!fenced && *line == '#') {
			const char *h = line;
			while (*h == '#')
				h++;
			while (*h == ' ')
				h++;
			char made[256];
			heading_anchor(made, sizeof made, h, (size_t)(end - h));
			if (strcmp(made, anchor) == 0)
				return true;
		}
		line = *end == '\0' ? end : end + 1;
	}
	return false;
}

/*
 * Each relative link of Markdown file `name` (its `text`) whose target is missing, or names a
 * heading its file does not have, said on `out`; how many links were checked.
 */
static size_t check_links(const char *name, const char *text, FILE *out)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/%s", SOURCE_ROOT, name);
	*strrchr(dir, '/') = '\0';
	size_t checked = 0;
	bool fenced = false;
	for (const char *line = text; *line != '\0';) {
		const char *end = strchrnul(line, '\n');
		if (strncmp(line, "```", 3) == 0)
			fenced = !fenced;
		for (const char *l = line; !fenced && (l = strstr(l, "](")) != NULL && l < end;) {
			l += 2;
			size_t len = strcspn(l, ")\n");
			char target[1024];
			snprintf(target, sizeof target, "%.*s", (int)len, l);
			l += len;
			if (strstr(target, "://") != NULL || strncmp(target, "mailto:", 7) == 0)
				continue;
			checked++;
			char *hash = strchr(target, '#');
			if (hash != NULL)
				*hash++ = '\0';
			char path[8192];
			snprintf(path, sizeof path, "%s/%s", dir, target);
			if (target[0] != '\0' && access(path, F_OK) != 0) {
				fprintf(out, "%s: (%s): no such file\n", name, target);
				continue;
			}
			if (hash == NULL || *hash == '\0')
				continue;
			char *linked = target[0] == '\0' ? strdup(text) : tp_read_file(path, NULL);
			if (!has_heading_anchor(linked, hash))
				fprintf(out, "%s: (%s#%s): no such heading\n", name, target, hash);
			free(linked);
		}
		line = *end == '\0' ? end : end + 1;
	}
	return checked;
}

/* Every relative link of the README and the documents leads to a file, and to a heading of it. */
Test(hygiene, every_relative_link_of_the_documents_leads_somewhere)
{
	char *files = tracked_files("'*.md'");
	char *broken = NULL;
	size_t size = 0, checked = 0;
	FILE *out = open_memstream(&broken, &size);
	char *saveptr = NULL;
	for (char *f = strtok_r(files, "\n", &saveptr); f != NULL;
	     f = strtok_r(NULL, "\n", &saveptr)) {
		char path[4200];
		snprintf(path, sizeof path, "%s/%s", SOURCE_ROOT, f);
		char *text = tp_read_file(path, NULL);
		checked += check_links(f, text, out);
		free(text);
	}
	fclose(out);
	cr_expect_str_empty(broken, "links that lead nowhere:\n%s", broken);
	cr_expect_gt(checked, 20, "%zu links checked: the documents' links were not found",
		     checked);
	free(broken);
	free(files);
}

/*
 * The options `text` names (`-o`, `--max-size`: a word of lower-case letters, digits and hyphens
 * after one or two hyphens, at a word's start), once each, sorted, space-separated.
 */
static void option_words(char *out, size_t size, const char *text)
{
	char found[64][40];
	size_t n = 0;
	for (const char *c = text; *c != '\0'; c++) {
		if (*c != '-' || (c > text && c[-1] != ' ' && c[-1] != '[' && c[-1] != '\n'))
			continue;
		const char *start = c;
		c += c[1] == '-' ? 2 : 1;
		if (!islower((unsigned char)*c))
			continue;
		while (islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '-')
			c++;
		char word[40];
		snprintf(word, sizeof word, "%.*s", (int)(c - start), start);
		size_t i = 0;
		while (i < n && strcmp(found[i], word) != 0)
			i++;
		if (i == n && n < sizeof found / sizeof found[0])
			strcpy(found[n++], word);
		c--;
	}
	qsort(found, n, sizeof found[0], (int (*)(const void *, const void *))strcmp);
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%s", i ? " " : "", found[i]);
}

/*
 * Section `name` of the man page `page` (from its .SH line to the next), roff's \- read as - and
 * its font changes (\fB, \fR, ...) left out; NULL when the page has none.
 */
static char *man_section(const char *page, const char *name)
{
	char heading[64];
	snprintf(heading, sizeof heading, ".SH %s\n", name);
	const char *at = strstr(page, heading);
	if (at == NULL)
		return NULL;
	const char *next = strstr(at + 1, "\n.SH ");
	size_t len = next != NULL ? (size_t)(next - at) : strlen(at);
	char *text = malloc(len + 1), *w = text;
	cr_assert_not_null(text);
	for (const char *r = at; r < at + len; r++)
		if (r[0] == '\\' && r[1] == '-')
			continue; /* the '-' comes next */
		else if (r[0] == '\\' && r[1] == 'f' && r + 2 < at + len)
			r += 2;
		else
			*w++ = *r;
	*w = '\0';
	return text;
}

/*
 * The options of `tool`'s --help usage (its lines from "usage:" on, while they are indented):
 * those of its man page's SYNOPSIS, so that neither names an option the other leaves out, and
 * each an item of its OPTIONS (the tag of a .TP), which says what it does. (OPTIONS may have
 * more: taskprobe-top(1)'s are `taskprobe top`'s too.)
 */
static void expect_usage_options_in_the_man_page(const char *tool)
{
	char *command, *path;
	int status;
	cr_assert(asprintf(&command, "'%s/%s' --help", TP_CONTRIB_DIR, tool) > 0);
	char *help = run_in_tree(command, &status);
	cr_assert_eq(status, 0, "%s: %s", command, help);
	char *usage = strstr(help, "usage:");
	cr_assert_not_null(usage, "%s: no usage: %s", command, help);
	char *end = usage;
	while ((end = strchr(end, '\n')) != NULL && end[1] == ' ')
		end++;
	if (end != NULL)
		*end = '\0';

	cr_assert(asprintf(&path, "%s/contrib/man/%s.1", SOURCE_ROOT, tool) > 0);
	char *page = tp_read_file(path, NULL);
	char *synopsis = man_section(page, "SYNOPSIS"), *options = man_section(page, "OPTIONS");
	cr_assert_not_null(synopsis, "%s: no SYNOPSIS", path);
	cr_assert_not_null(options, "%s: no OPTIONS", path);
	char in_usage[1024], in_page[1024], items[1024];
	option_words(in_usage, sizeof in_usage, usage);
	option_words(in_page, sizeof in_page, synopsis);
	cr_expect_str_eq(in_usage, in_page, "%s --help's usage: %s\n%s(1)'s SYNOPSIS: %s", tool,
			 in_usage, tool, in_page);
	cr_expect_gt(strlen(in_usage), 20, "%s: %s", tool, in_usage);

	/* the tags: the line after each .TP */
	char *tags = calloc(1, strlen(options) + 1);
	cr_assert_not_null(tags);
	for (const char *item = options; (item = strstr(item, "\n.TP\n")) != NULL;) {
		item += strlen("\n.TP\n");
		strncat(tags, item, strcspn(item, "\n") + 1);
	}
	option_words(items, sizeof items, tags);
	char words[1024], listed[1100];
	snprintf(words, sizeof words, "%s", in_usage);
	snprintf(listed, sizeof listed, " %s ", items); /* each word between spaces */
	for (char *word = strtok(words, " "); word != NULL; word = strtok(NULL, " ")) {
		char padded[64];
		snprintf(padded, sizeof padded, " %s ", word);
		cr_expect_not_null(strstr(listed, padded),
				   "%s(1)'s OPTIONS have no item for %s (their items: %s)", tool,
				   word, items);
	}
	free(tags);
	free(options);
	free(synopsis);
	free(page);
	free(path);
	free(help);
	free(command);
}

/* The man pages are the command-line reference: their SYNOPSIS has every option of the usage,
 * and their OPTIONS say what each does. */
Test(hygiene, each_tools_usage_and_man_page_name_the_same_options)
{
	expect_usage_options_in_the_man_page("taskprobe-top");
	expect_usage_options_in_the_man_page("taskprobe-timeline");
}

/* ---- files with one job, functions one can read ---- */

#define MAX_FILE_LINES     800
#define MAX_FUNCTION_LINES 120

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

/* Every C file: the shim, the tools, the tests and their targets, and dtrace/'s shared headers. */
Test(hygiene, no_c_file_over_800_lines_and_no_function_over_120)
{
	char *files = tracked_files(
		"'shim/*.c' 'shim/*.h' 'contrib/*.c' 'contrib/*.h' "
		"'preload-tests/*.c' 'preload-tests/*.h' 'dtrace/*.c' 'dtrace/*.h'");
	char *said = NULL;
	size_t said_size = 0, n = 0;
	FILE *out = open_memstream(&said, &said_size);
	for (char *f = strtok(files, "\n"); f != NULL; f = strtok(NULL, "\n"), n++) {
		char path[4200];
		snprintf(path, sizeof path, "%s/%s", SOURCE_ROOT, f);
		char *text = tp_read_file(path, NULL);
		size_t lines = 0;
		for (const char *c = text; *c != '\0'; c++)
			lines += *c == '\n';
		long_functions(f, text, out);
		if (lines > MAX_FILE_LINES)
			fprintf(out, "%s: %zu lines\n", f, lines);
		free(text);
	}
	fclose(out);
	cr_expect_gt(n, 50, "%zu files", n);
	cr_expect(said_size == 0,
		  "files over %d lines or with functions over %d (split them by job):\n%.4000s",
		  MAX_FILE_LINES, MAX_FUNCTION_LINES, said);
	free(said);
	free(files);
}
