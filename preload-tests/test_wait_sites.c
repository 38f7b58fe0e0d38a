// SPDX-License-Identifier: MIT
/*
 * Where threads block, by call site: wait_sites (a producer blocked on a full queue, a consumer
 * waiting for items, 100 each, and 5 polls of the main thread) and wait_sites_cxx (a wait inside
 * the C++ standard library) seen by the console without root, by a tracer, by waits.bt and in a
 * recording's timeline: the sites are the program's own lines.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "harness_internal.h"

#define ROUNDS "100"
#define POLLS  5

/*
 * "function (SOURCE:L)" for the line holding `marker` after `function` ("int main(") in the
 * target's source.
 */
static const char *site_of(const char *source, const char *function, const char *marker)
{
	static char sites[8][128];
	static unsigned next;
	char *site = sites[next++ % 8];
	int line = tp_source_line(source, function, marker);
	cr_assert_gt(line, 0, "no %s after %s in %s", marker, function, source);
	/* the name in "static void queue_pop(": between the last space and the parenthesis */
	const char *paren = strchr(function, '(');
	const char *name = function;
	for (const char *c = function; c < paren; c++)
		if (*c == ' ')
			name = c + 1;
	snprintf(site, sizeof sites[0], "%.*s (%s:%d)", (int)(paren - name), name, source, line);
	return site;
}

#define CONSUMER_SITE site_of("wait_sites.c", "queue_pop(", "sem_wait(&items)")
#define PRODUCER_SITE site_of("wait_sites.c", "queue_push(", "sem_wait(&free_slots)")
#define POLL_SITE     site_of("wait_sites.c", "int main(", "poll(&fd, 1, 1)")

/* The WAITS column of the console's row of `site` with `kind`, or -1 when there is none. */
static long waits_row(const char *screen, const char *site, const char *kind)
{
	for (const char *l = strstr(screen, "WAITS BY CALL SITE"); l != NULL;
	     l = strchr(l + 1, '\n')) {
		const char *row = l + 1;
		if (strncmp(row, site, strlen(site)) != 0)
			continue;
		char seen_kind[16];
		long waits;
		if (sscanf(row + strlen(site), " %15s %ld", seen_kind, &waits) == 2 &&
		    strcmp(seen_kind, kind) == 0)
			return waits;
	}
	return -1;
}

Test(waits, the_console_shows_a_program_without_tasks_its_waits_by_call_site_without_root)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	struct tp_run run;
	tp_launch_unprivileged((const char *[]){"top", "--once", "--",
						tp_unprivileged_copy(tp_target("wait_sites")),
						ROUNDS, NULL},
			       NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "consumed 100\n");
	cr_expect(strstr(run.err, "(no task spawned: the program's waits follow, by call site)") !=
			  NULL,
		  "%s", run.err);
	cr_expect_eq(waits_row(run.err, CONSUMER_SITE, "semaphore"), 100, "%s", run.err);
	cr_expect_eq(waits_row(run.err, PRODUCER_SITE, "semaphore"), 100, "%s", run.err);
	cr_expect_eq(waits_row(run.err, POLL_SITE, "poll"), POLLS, "%s", run.err);
	tp_run_free(&run);
}

Test(waits, a_wait_inside_the_cxx_library_is_named_by_the_programs_call)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *program = tp_require_program(tp_target("wait_sites_cxx"), "g++");
	struct tp_run run;
	tp_launch((const char *[]){"top", "--once", "--", program, "20", NULL}, NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "rounds 20\n");
	/* the worker's waits at its line in await_go, the main thread's at its own: never a
	 * template of the library's (condition_variable:102) */
	const char *worker = site_of("wait_sites_cxx.cc", "void await_go(", "said.wait(");
	const char *main_thread = site_of("wait_sites_cxx.cc", "int main(", "said.wait(");
	cr_expect_gt(waits_row(run.err, worker, "condvar"), 0, "%s", run.err);
	cr_expect_gt(waits_row(run.err, main_thread, "condvar"), 0, "%s", run.err);
	cr_expect(strstr(run.err, "condition_variable:") == NULL, "%s", run.err);
	tp_run_free(&run);
}

Test(waits, wait_start_names_its_call_site_for_a_tracer, .timeout = 120)
{
	tp_require_tracer();
	struct tp_run run;
	tp_run_both((const char *[]){tp_target("wait_sites"), ROUNDS, NULL}, NULL, &run);
	size_t consumer = 0, producer = 0, polls = 0;
	for (size_t i = 0; i < tp_count(&run, "wait__start", 0); i++) {
		const struct tp_event *e = tp_nth(&run, "wait__start", 0, i);
		consumer += strcmp(e->site, CONSUMER_SITE) == 0 && e->arg[0] == 3;
		producer += strcmp(e->site, PRODUCER_SITE) == 0 && e->arg[0] == 3;
		polls += strcmp(e->site, POLL_SITE) == 0 && e->arg[0] == 5;
		cr_expect_gt(e->arg[4], 0, "a wait without a site id: %s", e->site);
	}
	cr_expect_eq(consumer, 100);
	cr_expect_eq(producer, 100);
	cr_expect_eq(polls, POLLS);
	tp_assert_waits_paired(&run);
	tp_run_free(&run);
}

Test(waits, waits_bt_sums_the_time_waited_at_each_call_site, .timeout = 120)
{
	struct tp_run run;
	tp_run_script("waits.bt", NULL, (const char *[]){tp_target("wait_sites"), ROUNDS, NULL},
		      NULL, &run);
	cr_expect_eq(run.status, 0);
	char key[256];
	snprintf(key, sizeof key, "@waits_by_site[%s, semaphore]: 100\n", CONSUMER_SITE);
	cr_expect(strstr(run.trace, key) != NULL, "%s", run.trace);
	snprintf(key, sizeof key, "@waits_by_site[%s, semaphore]: 100\n", PRODUCER_SITE);
	cr_expect(strstr(run.trace, key) != NULL, "%s", run.trace);
	snprintf(key, sizeof key, "@waits_by_site[%s, poll]: %d\n", POLL_SITE, POLLS);
	cr_expect(strstr(run.trace, key) != NULL, "%s", run.trace);
	snprintf(key, sizeof key, "@waited_ms_by_site[%s, poll]: ", POLL_SITE);
	const char *poll_ms = strstr(run.trace, key);
	cr_expect(poll_ms != NULL && atol(poll_ms + strlen(key)) >= POLLS, "%s", run.trace);
	tp_run_free(&run);
}

Test(waits, a_recordings_wait_slices_are_named_by_their_call_site)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *json;
	cr_assert_geq(asprintf(&json, "%s/waits.json", tp_unprivileged_out()), 0);
	struct tp_run run;
	tp_launch_unprivileged((const char *[]){"record", "-o", json, "--",
						tp_unprivileged_copy(tp_target("wait_sites")),
						ROUNDS, NULL},
			       NULL, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	tp_run_free(&run);
	char *text = tp_read_file(json, NULL);
	const char *const sites[] = {CONSUMER_SITE, PRODUCER_SITE, POLL_SITE};
	const char *const kinds[] = {"semaphore", "semaphore", "poll"};
	const unsigned waits[] = {100, 100, POLLS};
	for (int k = 0; k < 3; k++) {
		/* each wait a slice, its begin named "KIND at SITE" */
		char name[256];
		snprintf(name, sizeof name, "\"name\":\"%s at %s\"}", kinds[k], sites[k]);
		unsigned begins = 0;
		for (const char *at = text; (at = strstr(at, "{\"ph\":\"B\"")) != NULL; at++) {
			const char *end = strchrnul(at, '}');
			const char *named = strstr(at, "\"name\":\"");
			begins += named != NULL && named < end &&
				  strncmp(named, name, strlen(name)) == 0 &&
				  named + strlen(name) == end + 1;
		}
		cr_expect_eq(begins, waits[k], "%s at %s", kinds[k], sites[k]);
	}
	free(text);
	unlink(json);
	free(json);
}
