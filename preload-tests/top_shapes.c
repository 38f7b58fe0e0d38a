// SPDX-License-Identifier: MIT
/* omp_top_shapes as the console's tests see it (top_shapes.h). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "top_shapes.h"

double ms_of(const char *text)
{
	char *unit;
	double v = strtod(text, &unit);
	if (strcmp(unit, "ns") == 0)
		return v / 1e6;
	if (strcmp(unit, "us") == 0)
		return v / 1e3;
	if (strcmp(unit, "s") == 0)
		return v * 1e3;
	return v;
}

struct site_row site_row(const char *screen, const char *place)
{
	struct site_row r = {0};
	const char *at = strstr(screen, place);
	if (at == NULL)
		return r;
	const char *line_end = strchr(at, '\n');
	size_t len = line_end != NULL ? (size_t)(line_end - at) : strlen(at);
	char *line = strndup(at + strlen(place), len - strlen(place));
	char busy[16], d50[16], d99[16], idle[16], longest[16], span[16], on_path[16], spawn[16];
	int used = 0;
	if (sscanf(line, "%lu %lu %lu %lu %15s %15s %15s %15s %15s %15s %15s %15s %n", &r.spawned,
		   &r.alive, &r.done, &r.polls, busy, d50, d99, idle, longest, span, on_path, spawn,
		   &used) >= 12) {
		r.found = true;
		r.busy_ms = ms_of(busy);
		r.delay50_ms = ms_of(d50);
		r.delay99_ms = ms_of(d99);
		r.longest_ms = ms_of(longest);
		snprintf(r.warnings, sizeof r.warnings, "%s", line + used);
	}
	free(line);
	return r;
}

const char *place_of(const char *before)
{
	return tp_source_place("omp_top_shapes.c", before, "#pragma omp task");
}

const char *wait_place(void)
{
	return tp_source_place("omp_top_shapes.c", "static void blocker(", "sem_wait(gate)");
}

const char *top_shapes_target(void)
{
	return tp_unprivileged_copy(tp_target("omp_top_shapes"));
}

char *plain_output(unsigned rounds)
{
	char arg[16];
	snprintf(arg, sizeof arg, "%u", rounds);
	struct tp_run plain;
	tp_run(TP_PLAIN, (const char *[]){tp_target("omp_top_shapes"), arg, NULL}, NULL, &plain);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	char *out = strdup(plain.out);
	tp_run_free(&plain);
	out[strcspn(out, "\n")] = '\0';
	return out;
}
