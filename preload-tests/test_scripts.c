/*
 * The shipped D scripts against the provider file: DTrace is not run here, so every probe a D
 * script names must exist in dtrace/taskprobe.d and every argN it reads must be an argument
 * of each probe of its clause.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Blanks out C comments, so that probe names and argN in them are not read as code. */
static void strip_comments(char *text)
{
	for (char *p = text; (p = strstr(p, "/*")) != NULL;) {
		char *end = strstr(p + 2, "*/");
		char *stop = end != NULL ? end + 2 : p + strlen(p);
		memset(p, ' ', (size_t)(stop - p));
		p = stop;
	}
}

struct provider_probe {
	char name[48]; /* as D writes it: task-spawn */
	int nargs;
};

/* The probes of dtrace/taskprobe.d with their argument counts. */
static size_t read_provider(struct provider_probe *probes, size_t max)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/taskprobe.d", TP_SCRIPTS_DIR);
	char *text = tp_read_file(path, NULL);
	strip_comments(text);
	size_t n = 0;
	for (char *p = text; (p = strstr(p, "probe ")) != NULL && n < max; p += 6) {
		char name[48];
		if (sscanf(p, "probe %47[a-z_]", name) != 1)
			continue;
		char *open = strchr(p, '('), *close = open != NULL ? strchr(open, ')') : NULL;
		cr_assert(close != NULL, "probe %s has no argument list", name);
		int nargs = 0;
		for (char *c = open + 1; c < close; c++)
			if (!isspace((unsigned char)*c)) {
				nargs = 1;
				break;
			}
		for (char *c = open; c < close; c++)
			nargs += *c == ',';
		/* task__spawn in the provider file reads task-spawn in D */
		struct provider_probe *pp = &probes[n++];
		size_t k = 0;
		for (const char *s = name; *s && k < sizeof pp->name - 1; s++) {
			if (s[0] == '_' && s[1] == '_') {
				pp->name[k++] = '-';
				s++;
			} else {
				pp->name[k++] = *s;
			}
		}
		pp->name[k] = '\0';
		pp->nargs = nargs;
	}
	free(text);
	return n;
}

Test(scripts, every_d_script_names_provider_probes_and_their_arguments_only)
{
	struct provider_probe probes[32];
	size_t n_probes = read_provider(probes, 32);
	cr_assert_eq(n_probes, 13, "the provider has %zu probes", n_probes);

	DIR *dir = opendir(TP_SCRIPTS_DIR);
	cr_assert_not_null(dir);
	size_t scripts = 0;
	struct dirent *entry;
	while ((entry = readdir(dir)) != NULL) {
		size_t len = strlen(entry->d_name);
		if (len < 3 || strcmp(entry->d_name + len - 2, ".d") != 0 ||
		    strcmp(entry->d_name, "taskprobe.d") == 0)
			continue;
		scripts++;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", TP_SCRIPTS_DIR, entry->d_name);
		char *text = tp_read_file(path, NULL);
		strip_comments(text);
		size_t clauses = 0;
		/* a clause: one or more "taskprobe<pid>:::name" specs, a predicate, a { body } */
		for (char *p = text; (p = strstr(p, "taskprobe")) != NULL;) {
			int max_args = 64;
			char *q = p;
			while (strncmp(q, "taskprobe", 9) == 0) {
				char *colons = strstr(q, ":::");
				cr_assert_not_null(colons, "%s: a taskprobe probe without :::", entry->d_name);
				char name[48] = "";
				sscanf(colons + 3, "%47[a-z-]", name);
				const struct provider_probe *found = NULL;
				for (size_t i = 0; i < n_probes; i++)
					if (strcmp(probes[i].name, name) == 0)
						found = &probes[i];
				cr_expect_not_null(found, "%s: probe %s is not in the provider", entry->d_name,
						   name);
				if (found != NULL && found->nargs < max_args)
					max_args = found->nargs;
				q = colons + 3 + strlen(name);
				q += strspn(q, " \t\n,");
			}
			char *open = strchr(q, '{');
			cr_assert_not_null(open, "%s: a clause without a body", entry->d_name);
			int depth = 0;
			char *c = open;
			do {
				depth += (*c == '{') - (*c == '}');
				c++;
			} while (depth > 0 && *c);
			for (char *a = p; a < c; a++) {
				int index;
				if (strncmp(a, "arg", 3) == 0 && (a == p || !isalnum((unsigned char)a[-1])) &&
				    sscanf(a + 3, "%d", &index) == 1)
					cr_expect_lt(index, max_args, "%s: arg%d read by a clause whose probes have %d",
						     entry->d_name, index, max_args);
			}
			clauses++;
			p = c;
		}
		cr_expect_gt(clauses, 0, "%s names no taskprobe probe", entry->d_name);
		free(text);
	}
	closedir(dir);
	cr_expect_gt(scripts, 0, "no D scripts in %s", TP_SCRIPTS_DIR);
}
