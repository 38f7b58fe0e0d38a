// SPDX-License-Identifier: MIT
/*
 * Do no harm (launcher): see test_harm.c. A GCC OpenMP program moved onto libomp (the bridge) is
 * told, and runs as it does on libgomp, or stays on libgomp where libomp cannot run it.
 * test_harm_launcher_output.c holds the launcher's outputs, test_harm_launcher_program.c the
 * program run as it is.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "harness_internal.h"
#include "taskprobe_live.h"

Test(harm, a_gcc_openmp_program_moved_onto_libomp_is_told_once)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *fib = tp_require_program(tp_target("omp_fib_gcc"), "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	struct tp_run run, plain;
	tp_run(TP_PLAIN, (const char *[]){fib, NULL}, (const char *[]){"OMP_NUM_THREADS=2", NULL},
	       &plain);
	tp_launch((const char *[]){"run", "--", fib, NULL},
		  (const char *[]){"OMP_NUM_THREADS=2", NULL}, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out);
	cr_expect_eq(tp_occurrences(run.err, "is built for GCC's libgomp: running it on LLVM's "
					     "libomp ("),
		     1, "%s", run.err);
	cr_expect(strstr(run.err, "libomp.so.5), whose tool interface shows its tasks\n") != NULL,
		  "%s", run.err);
	tp_run_free(&run);
	tp_run_free(&plain);
}

/*
 * A GCC-built program that calls what libomp lacks (omp_target_alloc) is not moved onto libomp,
 * where it would end in a symbol lookup error: it runs as it does plainly, on libgomp, and says
 * its tasks are not seen and why (the shim's line), not that it runs on libomp.
 */
Test(harm, a_gcc_openmp_program_libomp_cannot_run_stays_on_libgomp)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *lacking = tp_require_program(tp_target("omp_host_device_memory_gcc"),
						 "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run, plain;
	tp_run(TP_PLAIN, (const char *[]){lacking, NULL}, env, &plain);
	tp_launch((const char *[]){"run", "--", lacking, NULL}, env, &run);
	cr_expect_eq(run.status, plain.status, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out);
	cr_expect_eq(tp_occurrences(run.err, "taskprobe: "), 1, "%s", run.err);
	cr_expect(tp_says_libomp_lacks_device_memory(run.err), "%s", run.err);
	tp_run_free(&run);
	tp_run_free(&plain);
}

/*
 * A GCC-built program the audit module moves onto libomp (all it calls, libomp has) that loads,
 * after its tasks, a GCC-built library calling what libomp lacks (omp_target_alloc), then looks
 * that name up in dlopen("libgomp.so.1"): under the launcher its output and status are the plain
 * run's (the call and the lookup find libgomp's, loaded behind libomp), not a symbol lookup error,
 * and its tasks are seen.
 */
Test(harm, a_library_loaded_later_finds_what_libomp_lacks, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	/* tp_target's text is static */
	char *program = strdup(
		tp_require_program(tp_target("omp_late_library_gcc"), "gcc and libomp-dev"));
	const char *library = tp_require_file(tp_target("libomp_host_copy_gcc.so"),
					      "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	const char *script = "\"$0\" \"$1\"; echo \"exit $?\"";
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run plain, run;
	tp_run(TP_PLAIN, (const char *[]){"/bin/sh", "-c", script, program, library, NULL}, env,
	       &plain);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	cr_assert(strstr(plain.out, "exit 0\n") != NULL, "%s%s", plain.out, plain.err);
	char *json = tp_make_temp("harm-late-library");
	tp_launch((const char *[]){"record", "-o", json, "--", "/bin/sh", "-c", script, program,
				   library, NULL},
		  env, &run);
	cr_expect_eq(run.status, plain.status, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out, "%s", run.err);
	cr_expect(strstr(run.err, "symbol lookup error") == NULL, "%s", run.err);
	/* the moved program's line and the timeline's, nothing else */
	cr_expect_eq(tp_occurrences(run.err, "taskprobe: "), 2, "%s", run.err);
	cr_expect(strstr(run.err, "taskprobe: 1 process of the run built for GCC's libgomp ran on "
				  "LLVM's libomp (") != NULL,
		  "%s", run.err);
	/* its 8 tasks, seen */
	char *summary = tp_timeline_summary(json);
	char track[96];
	snprintf(track, sizeof track, "\ntrack\tsum_in_tasks (omp_late_library.c:%d)\t",
		 tp_source_line("omp_late_library.c", "static long sum_in_tasks(",
				"#pragma omp task shared(sum)"));
	cr_expect_eq(tp_timeline_count(summary, track), 8, "%s: %s", track + 1, summary);
	free(summary);
	unlink(json);
	free(json);
	tp_run_free(&run);
	tp_run_free(&plain);
	free(program);
}

/*
 * A program without OpenMP of its own that loads a GCC-built plug-in, unloads it, then loads
 * another (omp_plugin_host): under the launcher the second's single construct runs once, on
 * libomp (the plug-in's tasks' sum is 10), as in the plain run. Unloaded with the first, the
 * libgomp bridge left libgomp itself to be found by its name: the second plug-in's
 * GOMP_single_start bound there, every thread of libomp's team ran the single, and the sum was 20.
 */
Test(harm, a_gcc_plugin_loaded_after_another_was_unloaded_runs_on_libomp_alone, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *light = tp_require_file(tp_target("libomp_plugin_light_gcc.so"),
					    "gcc and libomp-dev");
	tp_require_file(tp_target("libomp_plugin_gcc.so"), "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	char dir[4096];
	snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(light, '/') - light), light);
	const char *argv[] = {tp_target("omp_plugin_host"), dir,
			      "libomp_plugin_light_gcc.so", "unload",
			      "libomp_plugin_gcc.so",       NULL};
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run run;
	for (int round = 0; round < 3; round++) {
		tp_launch((const char *[]){"run", "--", argv[0], argv[1], argv[2], argv[3], argv[4],
					   NULL},
			  env, &run);
		cr_expect_eq(run.status, 0, "%s", run.err);
		cr_expect(strstr(run.out, "libomp_plugin_light_gcc.so at ") != NULL &&
				  strstr(run.out, ": 1\n") != NULL,
			  "%s", run.out);
		cr_expect(strstr(run.out, "libomp_plugin_gcc.so at ") != NULL &&
				  strstr(run.out, ": 10\n") != NULL,
			  "the second plug-in's single ran more than once:\n%s%s", run.out,
			  run.err);
		tp_run_free(&run);
	}
}

/*
 * A GCC-built program that finds its own libgomp.so.1 beside itself (RUNPATH $ORIGIN, as in a
 * conda or spack tree) keeps it under the launcher: its output is the plain run's (its libgomp's
 * answer), not libomp's, and it says it stays on libgomp.
 */
Test(harm, a_gcc_openmp_program_with_a_libgomp_of_its_own_keeps_it)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	/* tp_target's text is static */
	char *program = strdup(
		tp_require_program(tp_target("omp_own_runtime_gcc"), "gcc and libomp-dev"));
	const char *own_gomp = tp_require_file(tp_target("libown_gomp.so"), "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	char *dir = tp_make_temp_dir("harm-own-gomp");
	char copy[4200], libgomp[4200];
	snprintf(copy, sizeof copy, "%s/omp_own_runtime_gcc", dir);
	snprintf(libgomp, sizeof libgomp, "%s/libgomp.so.1", dir);
	struct tp_run plain, run;
	tp_run(TP_PLAIN, (const char *[]){"/bin/cp", program, copy, NULL}, NULL, &plain);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	tp_run_free(&plain);
	tp_run(TP_PLAIN, (const char *[]){"/bin/cp", own_gomp, libgomp, NULL}, NULL, &plain);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	tp_run_free(&plain);

	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	tp_run(TP_PLAIN, (const char *[]){"/bin/sh", "-c", "\"$0\"", copy, NULL}, env, &plain);
	cr_assert_str_eq(plain.out, "max threads: 42\n", "%s", plain.err);
	char *json = tp_make_temp("harm-own-gomp-json");
	tp_launch(
		(const char *[]){"record", "-o", json, "--", "/bin/sh", "-c", "\"$0\"", copy, NULL},
		env, &run);
	cr_expect_eq(run.status, plain.status, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out, "%s", run.err);
	cr_expect_eq(tp_occurrences(run.err, "ran on LLVM's libomp"), 0, "%s", run.err);
	cr_expect(strstr(run.err, "(omp_own_runtime_gcc) runs on GCC's libgomp") != NULL, "%s",
		  run.err);
	cr_expect(strstr(run.err,
			 "or this one brings a libgomp of its own: it stays on libgomp\n") != NULL,
		  "%s", run.err);
	unlink(json);
	free(json);
	tp_run_free(&run);
	tp_run_free(&plain);
	tp_remove_temp_dir(dir);
	free(program);
}

/*
 * libomp preloaded by hand (as docs/openmp.md says to, without the launcher), then under the
 * launcher: a GCC-built program a script starts runs as it does plainly so (libomp answers it,
 * libgomp behind), not ended by the dynamic linker (libomp loaded twice, the second time unknown
 * as libgomp, fails ld.so's version check).
 */
Test(harm, a_gcc_openmp_program_with_libomp_preloaded_by_hand_runs_as_plainly)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *fib = tp_require_program(tp_target("omp_fib_gcc"), "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	char preload[4200];
	snprintf(preload, sizeof preload, "TP_PRELOAD_AFTER_SHIM=%s", TP_LIBOMP_PATH);
	const char *env[] = {"OMP_NUM_THREADS=2", preload, NULL};
	struct tp_run run, plain;
	tp_run(TP_PLAIN, (const char *[]){"/bin/sh", "-c", "\"$0\" 10", fib, NULL}, env, &plain);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	tp_launch((const char *[]){"run", "--", "/bin/sh", "-c", "\"$0\" 10", fib, NULL}, env,
		  &run);
	cr_expect_eq(run.status, plain.status, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out);
	cr_expect_eq(tp_occurrences(run.err, "taskprobe: "), 0, "%s", run.err);
	tp_run_free(&run);
	tp_run_free(&plain);
}

/*
 * A GCC-built program bound to places (OMP_PLACES, OMP_PROC_BIND) runs on libomp bound as on
 * libgomp: each thread on its own place, not every thread on the first (libgomp's constructor
 * binds the initial thread before libomp starts, and libomp took that one CPU for all it may use:
 * the program ran twice as long), and libomp says nothing of invalid CPUs. The places are the
 * test's first two CPUs; with one, both threads share it alike.
 */
Test(harm, a_gcc_openmp_program_bound_to_places_keeps_them_on_libomp)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	const char *places = tp_require_program(tp_target("omp_places_gcc"), "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	cpu_set_t mine;
	cr_assert_eq(sched_getaffinity(0, sizeof mine, &mine), 0);
	int first[2] = {-1, -1}, found = 0;
	for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
		if (CPU_ISSET(c, &mine))
			first[found++] = c;
	char setting[64];
	if (found == 2)
		snprintf(setting, sizeof setting, "OMP_PLACES={%d},{%d}", first[0], first[1]);
	else
		snprintf(setting, sizeof setting, "OMP_PLACES={%d}", first[0]);
	const char *env[] = {"OMP_NUM_THREADS=2", "OMP_PROC_BIND=close", setting, NULL};
	struct tp_run run, plain;
	tp_run(TP_PLAIN, (const char *[]){places, NULL}, env, &plain);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	if (found == 2) {
		char expected[64];
		snprintf(expected, sizeof expected, "thread 0: %d\nthread 1: %d\n", first[0],
			 first[1]);
		cr_assert_str_eq(plain.out, expected, "libgomp did not bind as %s", setting);
	}
	tp_launch((const char *[]){"run", "--", places, NULL}, env, &run);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out, "%s", run.err);
	cr_expect(strstr(run.err, "OMP: Warning") == NULL, "%s", run.err);
	cr_expect(strstr(run.err, "running it on LLVM's libomp") != NULL, "%s", run.err);
	tp_run_free(&run);
	tp_run_free(&plain);
}

/*
 * A script's GCC-built OpenMP programs run on libomp too, their tasks seen, and the launcher says
 * so once, at the end, for both; one that calls what libomp lacks (omp_target_alloc) stays on
 * libgomp and runs as it does plainly; ldd lists what it does plainly. The script's output and
 * status are the plain run's.
 */
Test(harm, a_scripts_gcc_openmp_programs_run_on_libomp_told_once, .timeout = 180)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	/* tp_target's text is static */
	char *fib = strdup(tp_require_program(tp_target("omp_fib_gcc"), "gcc and libomp-dev"));
	const char *lacking = tp_require_program(tp_target("omp_host_device_memory_gcc"),
						 "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	const char *script =
		"\"$0\" 10 && \"$0\" 9 && \"$1\"; ldd \"$0\" | grep -o 'lib[g]*omp[^ ]*'; "
		"exit 3";
	const char *env[] = {"OMP_NUM_THREADS=2", NULL};
	struct tp_run plain, run;
	tp_run(TP_PLAIN, (const char *[]){"/bin/sh", "-c", script, fib, lacking, NULL}, env,
	       &plain);
	cr_assert_eq(plain.status, 3, "%s", plain.err);
	char json[128];
	snprintf(json, sizeof json, "/tmp/harm-gcc-script-%d.json", (int)getpid());
	tp_launch((const char *[]){"record", "-o", json, "--", "/bin/sh", "-c", script, fib,
				   lacking, NULL},
		  env, &run);
	cr_expect_eq(run.status, plain.status, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out);
	/* the moved programs' line, the one left on libgomp's (the shim's), the timeline's */
	cr_expect_eq(tp_occurrences(run.err, "taskprobe: "), 3, "%s", run.err);
	cr_expect_eq(tp_occurrences(run.err, "ran on LLVM's libomp"), 1, "%s", run.err);
	cr_expect(strstr(run.err,
			 "taskprobe: 2 processes of the run built for GCC's libgomp ran on "
			 "LLVM's libomp (") != NULL,
		  "%s", run.err);
	cr_expect(strstr(run.err, "whose tool interface shows their tasks: omp_fib_gcc\n") != NULL,
		  "%s", run.err);
	/* fib(10)'s tasks and fib(9)'s, half at each of its two task constructs (task tracks: the
	 * two processes' task ids are alike, so their polls are not told apart by id) */
	char *summary = tp_timeline_summary(json);
	const char *pragmas[] = {"#pragma omp task shared(a)", "#pragma omp task shared(b)"};
	for (size_t k = 0; k < 2; k++) {
		char track[64];
		snprintf(track, sizeof track, "\ntrack\tfib (omp_fib.c:%d)\t",
			 tp_source_line("omp_fib.c", "static long fib(", pragmas[k]));
		unsigned tasks = (tp_fib_tasks(10) + tp_fib_tasks(9)) / 2;
		cr_expect_eq(tp_timeline_count(summary, track), tasks, "%s%u: %s", track + 1, tasks,
			     summary);
	}
	/* the program libomp cannot run stays on libgomp, and says its tasks are not seen */
	cr_expect_eq(tp_occurrences(run.err, "runs on GCC's libgomp"), 1, "%s", run.err);
	cr_expect(strstr(run.err,
			 "(omp_host_device_memory_gcc) runs on GCC's libgomp, which has no "
			 "tool interface: its tasks are not seen (its threads and waits "
			 "are). LLVM's libomp (") != NULL,
		  "%s", run.err);
	cr_expect(tp_says_libomp_lacks_device_memory(run.err), "%s", run.err);
	free(summary);
	unlink(json);
	tp_run_free(&run);
	tp_run_free(&plain);

	/* the console on such a script: the program's tasks (fib(10)'s, the initial one and the
	 * two implicit ones of its team), it marked as on libomp, said once */
	const char *once = "\"$0\" 10";
	tp_run(TP_PLAIN, (const char *[]){"/bin/sh", "-c", once, fib, NULL}, env, &plain);
	tp_launch((const char *[]){"top", "--once", "--", "/bin/sh", "-c", once, fib, NULL}, env,
		  &run);
	cr_expect_eq(run.status, plain.status, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out);
	cr_expect_eq(tp_occurrences(run.err, "ran on LLVM's libomp"), 1, "%s", run.err);
	cr_expect(strstr(run.err, "taskprobe: 1 process of the run built for GCC's libgomp ran on "
				  "LLVM's libomp (") != NULL,
		  "%s", run.err);
	cr_expect(strstr(run.err, "(libgomp program on libomp) exited after ") != NULL, "%s",
		  run.err);
	char title[128];
	snprintf(title, sizeof title, "| tasks %u spawned, 0 alive, %u done |",
		 tp_fib_tasks(10) + 3, tp_fib_tasks(10) + 3);
	cr_expect(strstr(run.err, title) != NULL, "%s: %s", title, run.err);
	tp_run_free(&run);
	tp_run_free(&plain);
	free(fib);
}

/*
 * The audit module moves a process onto libomp only when its bridge (answering for libgomp) has
 * every version the libgomp to be loaded defines: a libgomp updated since the bridge was built,
 * with a version node of its own that a library loaded later could need, keeps its processes on
 * it (said by the shim), where the installed one moves them.
 */
Test(harm, a_libgomp_newer_than_the_bridge_keeps_its_processes_on_it, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, TP_LAUNCHER_UNDER_SANITIZERS);
	char *program = strdup(tp_require_program(tp_target("omp_fib_gcc"), "gcc and libomp-dev"));
	const char *newer = tp_require_file(tp_target("libnewer_gomp.so"), "gcc and libomp-dev");
	if (TP_LIBOMP_PATH[0] == '\0')
		tp_skip_unless_ci("no libomp.so.5: install libomp-dev");
	char dir[4096], audit[4200], bridge[4200], setting[3][4300];
	snprintf(dir, sizeof dir, "%s", TP_SHIM_PATH);
	*strrchr(dir, '/') = '\0';
	snprintf(audit, sizeof audit, "LD_AUDIT=%s/libtaskprobe-audit.so", dir);
	snprintf(bridge, sizeof bridge, "TASKPROBE_LIBOMP_BRIDGE=%s/libtaskprobe-gomp-bridge.so",
		 dir);
	snprintf(setting[0], sizeof setting[0], "TASKPROBE_LIBOMP=%s", TP_LIBOMP_PATH);
	struct tp_run cache, plain, run;
	tp_run(TP_PLAIN,
	       (const char *[]){"/bin/sh", "-c",
				"ldconfig -p | awk '/libgomp\\.so\\.1 /{printf \"%s\", $NF; exit}'",
				NULL},
	       NULL, &cache);
	cr_assert_neq(cache.out[0], '\0', "no libgomp.so.1 in the loader's cache");
	const char *argv[] = {program, "10", NULL};
	tp_run(TP_PLAIN, argv, (const char *[]){"OMP_NUM_THREADS=2", NULL}, &plain);
	const char *stays = "it stays on libgomp";
	for (int newer_one = 0; newer_one <= 1; newer_one++) {
		snprintf(setting[1], sizeof setting[1], "TASKPROBE_LIBGOMP=%s",
			 newer_one ? newer : cache.out);
		const char *env[] = {"OMP_NUM_THREADS=2", audit,      bridge,
				     setting[0],          setting[1], NULL};
		tp_run(TP_PRELOADED, argv, env, &run);
		cr_expect_eq(run.status, plain.status, "%s", run.err);
		cr_expect_str_eq(run.out, plain.out, "%s", run.err);
		if (newer_one)
			cr_expect(strstr(run.err, stays) != NULL, "a newer libgomp: %s", run.err);
		else
			cr_expect(strstr(run.err, stays) == NULL, "the cache's libgomp: %s",
				  run.err);
		tp_run_free(&run);
	}
	tp_run_free(&plain);
	tp_run_free(&cache);
	free(program);
}
