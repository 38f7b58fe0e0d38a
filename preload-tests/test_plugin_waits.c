// SPDX-License-Identifier: MIT
/*
 * Waits in plug-ins the program unloads (dlclose) before its exit, another loaded where each lay:
 * the exit report names each wait by the module that made it (test_names.c's plug-in tests name
 * task sites so).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

/*
 * A wait in a plug-in unloaded before the exit, another module loaded where it lay since (as the
 * report's own libdw may be), run `mode` (TP_TRACED: a tracer of wait-start names each site at
 * its first wait, in the process): the report names each wait by the plug-in that made it, never
 * by the code lying at its address at the exit (the second plug-in's "other_waiting
 * (wait_plugin.c:38)" before), nor the second's by the first's (the process's list of modules,
 * read at the first name, was not read again after the unload: "other_waiting+0x5f
 * (libwait_plugin_other.so)").
 */
static void expect_plugin_waits(enum tp_mode mode)
{
	const char *plugin = tp_require_file(tp_target("libwait_plugin.so"), "clang");
	char dir[4096];
	snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(plugin, '/') - plugin), plugin);
	const char *argv[] = {tp_target("omp_plugin_host"), dir, "libwait_plugin.so", "unload",
			      "+libwait_plugin_other.so",   NULL};
	struct tp_run run;
	tp_run(mode, argv, (const char *[]){"TASKPROBE_REPORT=stderr", NULL}, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(tp_plugins_in_one_place(run.out, "libwait_plugin.so", "libwait_plugin_other.so"),
		  "the second plug-in was not loaded where the first lay:\n%s", run.out);
	/* as without the shim: each plug-in's wait timed out (where each lay differs from run to
	 * run) */
	const char *timed_out = strstr(run.out, ": 1\n");
	cr_expect(timed_out != NULL && strstr(timed_out + 1, ": 1\n") != NULL, "%s", run.out);
	int waiting = tp_source_line("wait_plugin.c", "static long WAITING(void)",
				     "pthread_cond_timedwait");
	char first_wait[128], second_wait[128];
	snprintf(first_wait, sizeof first_wait,
		 "1 condvar wait at waiting (wait_plugin.c:%d): ", waiting);
	snprintf(second_wait, sizeof second_wait,
		 "1 condvar wait at other_waiting (wait_plugin.c:%d): ", waiting);
	cr_expect(strstr(run.err, first_wait) != NULL && strstr(run.err, second_wait) != NULL,
		  "expected \"%s\" and \"%s\":\n%s", first_wait, second_wait, run.err);
	tp_run_free(&run);
}

Test(sites, a_wait_in_a_plugin_unloaded_is_named_by_it_not_by_what_lies_there_at_exit,
     .timeout = 120)
{
	expect_plugin_waits(TP_PRELOADED);
}

Test(sites, a_wait_in_a_plugin_unloaded_is_named_by_it_while_a_tracer_names_sites_too,
     .timeout = 120)
{
	tp_require_tracer();
	expect_plugin_waits(TP_TRACED);
}
