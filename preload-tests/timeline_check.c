// SPDX-License-Identifier: MIT
/* What a timeline (Trace Event Format) holds, for the tests of its makers (harness.h). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

char *tp_timeline_summary(const char *path)
{
	char *cmd;
	cr_assert(
		asprintf(
			&cmd,
			"python3 -c 'import json,sys,collections,re\n"
			"d = json.load(open(sys.argv[1]))[\"traceEvents\"]\n"
			"c = collections.Counter(e[\"ph\"] for e in d)\n"
			"print(\" \".join(\"%%s=%%d\" %% (k, c[k]) for k in \"MBEbesfi\"))\n"
			"open_slices, unbalanced = collections.defaultdict(list), 0\n"
			"names, instants = collections.defaultdict(set), collections.Counter()\n"
			"threads = collections.Counter(e[\"args\"][\"name\"].rstrip(\"0123456789\")"
			".rstrip() for e in d if e[\"ph\"] == \"M\" and e[\"name\"] == "
			"\"thread_name\")\n"
			"def poll(name, args):\n"
			"    if \"task\" in args and \"object\" not in args:\n"
			"        names[(\"poll\", name)].add(args[\"task\"])\n"
			"for e in d:\n"
			"    k = (e[\"pid\"], e[\"tid\"])\n"
			"    if e[\"ph\"] == \"B\":\n"
			"        open_slices[k].append(e)\n"
			"    elif e[\"ph\"] == \"E\":\n"
			"        b = open_slices[k].pop() if open_slices[k] else None\n"
			"        if b is None or b[\"name\"] != e[\"name\"]:\n"
			"            unbalanced += 1\n"
			"        else:\n"
			"            poll(b[\"name\"], e.get(\"args\") or b.get(\"args\", {}))\n"
			"    elif e[\"ph\"] == \"i\" and \"args\" in e:\n"
			"        poll(e[\"name\"], e[\"args\"])\n"
			"    elif e[\"ph\"] == \"b\":\n"
			"        names[(\"track\", e[\"name\"])].add(e[\"id\"])\n"
			"    elif e[\"ph\"] == \"i\":\n"
			"        instants[e[\"name\"].rstrip(\"0123456789\")] += 1\n"
			"unbalanced += sum(len(v) for v in open_slices.values())\n"
			"print(\"sited tasks=%%d\" %% sum(len(v) for (kind, name), v in "
			"names.items() if "
			"kind == \"poll\" and re.fullmatch(\"site [0-9]+\", name)))\n"
			"print(\"unbalanced slices=%%d\" %% unbalanced)\n"
			"for (kind, name), tasks in sorted(names.items()):\n"
			"    print(\"%%s\\t%%s\\t%%d\" %% (kind, name, len(tasks)))\n"
			"for name, count in sorted(instants.items()):\n"
			"    print(\"instant\\t%%s\\t%%d\" %% (name, count))\n"
			"for name, count in sorted(threads.items()):\n"
			"    print(\"thread\\t%%s\\t%%d\" %% (name, count))' '%s'",
			path) > 0);
	FILE *p = popen(cmd, "r");
	free(cmd);
	cr_assert_not_null(p);
	/* all of it read: python would fail on a closed pipe */
	static char *summary;
	free(summary);
	size_t size = 0;
	FILE *text = open_memstream(&summary, &size);
	char chunk[4096];
	for (size_t n; (n = fread(chunk, 1, sizeof chunk, p)) > 0;)
		fwrite(chunk, 1, n, text);
	fclose(text);
	cr_expect_eq(pclose(p), 0, "not JSON: %s", path);
	return summary;
}

bool tp_timeline_named_tasks(const char *summary, const char *name, unsigned tasks)
{
	char poll[512], track[512];
	snprintf(poll, sizeof poll, "\npoll\t%s\t%u\n", name, tasks);
	snprintf(track, sizeof track, "\ntrack\t%s\t%u\n", name, tasks);
	return strstr(summary, poll) != NULL && strstr(summary, track) != NULL;
}

unsigned tp_timeline_count(const char *summary, const char *key)
{
	const char *at = strstr(summary, key);
	return at != NULL ? (unsigned)strtoul(at + strlen(key), NULL, 10) : 0;
}

int tp_source_line(const char *target_source, const char *function, const char *pragma)
{
	char *path;
	cr_assert(asprintf(&path, "%s/../preload-tests/targets/%s", TP_SCRIPTS_DIR, target_source) >
		  0);
	char *file = tp_read_file(path, NULL);
	free(path);
	cr_assert_not_null(file);
	const char *f = strstr(file, function), *at = f != NULL ? strstr(f, pragma) : NULL;
	int line = 0;
	if (at != NULL) {
		line = 1;
		for (const char *c = file; c < at; c++)
			line += *c == '\n';
	}
	free(file);
	return line;
}

const char *tp_source_place(const char *target_source, const char *after, const char *marker)
{
	static char places[8][128];
	static unsigned next;
	char *place = places[next++ % 8];
	int line = tp_source_line(target_source, after, marker);
	cr_assert_gt(line, 0, "no %s after %s in %s", marker, after, target_source);
	snprintf(place, sizeof places[0], "(%s:%d)", target_source, line);
	return place;
}

const char *tp_source_site(const char *target_source, const char *function, const char *marker)
{
	static char sites[8][160];
	static unsigned next;
	char *site = sites[next++ % 8];
	const char *place = tp_source_place(target_source, function, marker);
	/* the name in "static void *queue_pop(": between the last space (and pointer stars) and
	 * the parenthesis */
	const char *paren = strchr(function, '('), *name = function;
	cr_assert_not_null(paren, "%s: no parenthesis", function);
	for (const char *c = function; c < paren; c++)
		if (*c == ' ' || *c == '*')
			name = c + 1;
	snprintf(site, sizeof sites[0], "%.*s %s", (int)(paren - name), name, place);
	return site;
}
