// SPDX-License-Identifier: MIT
/*
 * The preload test harness (harness.h): targets run plainly, preloaded, or under bpftrace, and
 * the runs compared. The modules it is made of are listed in harness_internal.h.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness_internal.h"

void tp_attach(pid_t target, struct tp_attached *tracer)
{
	tp_require_tracer();
	tracer->out = tp_make_temp("trace");
	tracer->err = tp_make_temp("trace-err");
	tracer->pid = tp_tracer_start(target, tracer->out, tracer->err);
}

void tp_detach(struct tp_attached *tracer, struct tp_run *run)
{
	tp_tracer_drain(tracer->out, tracer->err);
	int tracer_status = tp_tracer_stop(tracer->pid);
	char *text = tp_read_file(tracer->out, NULL);
	free(run->events);
	run->events = NULL;
	run->n_events = 0;
	tp_events_parse(text, run);
	if (tracer_status != 0)
		/* a note (criterion exits 1 on logged errors); missing events fail assertions */
		fprintf(stderr, "note: bpftrace exited with %d: %s\n", tracer_status,
			tp_read_file(tracer->err, NULL));
	free(run->trace);
	run->trace = text;
	unlink(tracer->out);
	unlink(tracer->err);
	free(tracer->out);
	free(tracer->err);
	memset(tracer, 0, sizeof *tracer);
}

void tp_start(enum tp_mode mode, const char *const argv[], const char *const env[],
	      struct tp_run *run)
{
	memset(run, 0, sizeof *run);
	run->out_file = tp_make_temp("out");
	run->err_file = tp_make_temp("err");
	char **envp = tp_target_environment(mode, env);
	run->pid = tp_spawn((char *const *)argv, envp, run->out_file, run->err_file, -1);
}

void tp_finish(struct tp_run *run)
{
	run->status = tp_reap(run->pid, 120000);
	run->out = tp_read_file(run->out_file, &run->out_len);
	run->err = tp_read_file(run->err_file, NULL);
	unlink(run->out_file);
	unlink(run->err_file);
	free(run->out_file);
	free(run->err_file);
	run->out_file = run->err_file = NULL;
}

void tp_run(enum tp_mode mode, const char *const argv[], const char *const env[],
	    struct tp_run *run)
{
	memset(run, 0, sizeof *run);
	if (mode == TP_TRACED)
		tp_require_tracer();
	run->out_file = tp_make_temp("out");
	run->err_file = tp_make_temp("err");
	char **envp = tp_target_environment(mode, env);
	/* started once the tracer is attached */
	int go[2];
	cr_assert(pipe2(go, O_CLOEXEC) == 0);
	run->pid = tp_spawn((char *const *)argv, envp, run->out_file, run->err_file, go[0]);
	close(go[0]);
	struct tp_attached tracer = {0};
	if (mode == TP_TRACED)
		tp_attach(run->pid, &tracer);
	cr_assert(write(go[1], "g", 1) == 1);
	close(go[1]);
	tp_finish(run);
	if (mode == TP_TRACED)
		tp_detach(&tracer, run);
}

void tp_run_free(struct tp_run *run)
{
	free(run->out);
	free(run->err);
	free(run->events);
	free(run->trace);
	free(run->trace_errors);
	memset(run, 0, sizeof *run);
}

void tp_expect_same_result(const char *program, const struct tp_run *a, const char *a_name,
			   const struct tp_run *b, const char *b_name)
{
	/* with what each wrote on stderr: a sanitizer's report, say */
	cr_expect_eq(b->status, a->status,
		     "%s: exit status %d %s, %d %s\n--- stderr %s\n%s\n--- stderr %s\n%s", program,
		     b->status, b_name, a->status, a_name, a_name, a->err, b_name, b->err);
	cr_expect(a->out_len == b->out_len && memcmp(a->out, b->out, a->out_len) == 0,
		  "%s: stdout differs:\n--- %s\n%s\n--- %s\n%s", program, a_name, a->out, b_name,
		  b->out);
}

void tp_run_both(const char *const argv[], const char *const env[], struct tp_run *traced)
{
	struct tp_run plain;
	tp_run(TP_PLAIN, argv, env, &plain);
	tp_run(TP_TRACED, argv, env, traced);
	tp_expect_same_result(argv[0], &plain, "without the shim", traced, "traced");
	tp_run_free(&plain);
}

void tp_run_preloaded_as_plain(const char *const argv[], const char *const env[],
			       struct tp_run *preloaded)
{
	struct tp_run plain;
	tp_run(TP_PLAIN, argv, env, &plain);
	tp_run(TP_PRELOADED, argv, env, preloaded);
	tp_expect_same_result(argv[0], &plain, "without the shim", preloaded, "preloaded");
	tp_run_free(&plain);
}

void tp_run_all_ways_saying(const char *const argv[], const char *const env[], const char *said,
			    struct tp_run *traced)
{
	struct tp_run plain, preloaded;
	tp_run(TP_PLAIN, argv, env, &plain);
	tp_run(TP_PRELOADED, argv, env, &preloaded);
	tp_run(TP_TRACED, argv, env, traced);
	tp_expect_same_result(argv[0], &plain, "without the shim", traced, "traced");
	tp_expect_same_result(argv[0], &preloaded, "preloaded with no tracer", traced, "traced");
	const struct tp_run *runs[] = {&plain, &preloaded, traced};
	const char *modes[] = {"plainly", "preloaded", "traced"};
	for (size_t r = 0; said != NULL && r < 3; r++)
		cr_expect(strstr(runs[r]->err, said) != NULL, "%s, %s, did not say \"%s\": %s",
			  argv[0], modes[r], said, runs[r]->err);
	tp_run_free(&plain);
	tp_run_free(&preloaded);
}

void tp_run_all_ways(const char *const argv[], const char *const env[], struct tp_run *traced)
{
	tp_run_all_ways_saying(argv, env, NULL, traced);
}

void tp_run_script(const char *script, const char *const script_args[], const char *const argv[],
		   const char *const env[], struct tp_run *run)
{
	memset(run, 0, sizeof *run);
	tp_require_tracer();
	char *out = tp_make_temp("out"), *err = tp_make_temp("err");
	char *trace_out = tp_make_temp("trace"), *trace_err = tp_make_temp("trace-err");
	int go[2];
	cr_assert(pipe2(go, O_CLOEXEC) == 0);
	run->pid = tp_spawn((char *const *)argv, tp_target_environment(TP_PRELOADED, env), out, err,
			    go[0]);
	close(go[0]);

	char path[4096];
	snprintf(path, sizeof path, "%s/%s", TP_BUILT_SCRIPTS_DIR, script);
	pid_t tracer = tp_tracer_start_script(path, script_args, run->pid, trace_out, trace_err);
	cr_assert(write(go[1], "g", 1) == 1);
	close(go[1]);
	run->status = tp_reap(run->pid, 120000);
	/* the script ends itself when the process has ended */
	int tracer_status = tp_reap(tracer, 30000);
	if (tracer_status != 0)
		fprintf(stderr, "note: %s ended with %d: %s\n", script, tracer_status,
			tp_read_file(trace_err, NULL));
	run->trace = tp_read_file(trace_out, NULL);
	run->trace_errors = tp_read_file(trace_err, NULL);
	run->out = tp_read_file(out, &run->out_len);
	run->err = tp_read_file(err, NULL);
	const char *files[] = {out, err, trace_out, trace_err};
	for (size_t i = 0; i < 4; i++)
		unlink(files[i]);
}

/*
 * The launcher preloading `shim`: the built one, or for another shim (tp_use_private_shim) a
 * private copy of it whose LIBTASKPROBE is that shim (made once a test).
 */
static const char *launcher_for(const char *shim)
{
	static const char built[] = TP_CONTRIB_DIR "/taskprobe";
	static char copy[64], copy_shim[4096];
	if (strcmp(shim, TP_SHIM_PATH) == 0)
		return built;
	if (strcmp(copy_shim, shim) == 0)
		return copy;
	char *text = tp_read_file(built, NULL);
	cr_assert_not_null(text);
	char *line = strstr(text, "\nLIBTASKPROBE='");
	cr_assert_not_null(line, "the launcher names its shim in LIBTASKPROBE");
	line++;
	char *end = strchr(line, '\n');
	cr_assert_not_null(end);
	if (copy[0] != '\0')
		unlink(copy); /* another shim's */
	FILE *f = fdopen(tp_make_temp_until_exit("launcher", copy, sizeof copy), "w");
	cr_assert_not_null(f);
	fprintf(f, "%.*sLIBTASKPROBE='%s'%s", (int)(line - text), text, shim, end);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(copy, 0700), 0);
	snprintf(copy_shim, sizeof copy_shim, "%s", shim);
	free(text);
	return copy;
}

void tp_launch(const char *const args[], const char *const env[], struct tp_run *run)
{
	enum { ARGS_MAX = 48 };
	const char *argv[ARGS_MAX] = {launcher_for(tp_shim())};
	size_t n = 1;
	while (args[n - 1] != NULL && n < ARGS_MAX - 1) {
		argv[n] = args[n - 1];
		n++;
	}
	cr_assert_null(args[n - 1], "more than %d arguments for the launcher", ARGS_MAX - 2);
	argv[n] = NULL;
	tp_run(TP_PLAIN, argv, env, run);
}

unsigned tp_fib_tasks(int n)
{
	return n < 2 ? 0 : 2 + tp_fib_tasks(n - 1) + tp_fib_tasks(n - 2);
}

/* Where omp_plugin_host's output `out` says plug-in `file` lay, or NULL. */
static void *plugin_place(const char *out, const char *file)
{
	char said[256];
	void *place = NULL;
	snprintf(said, sizeof said, "plug-in %s at ", file);
	const char *line = strstr(out, said);
	return line != NULL && sscanf(line + strlen(said), "%p", &place) == 1 ? place : NULL;
}

bool tp_plugins_in_one_place(const char *out, const char *first, const char *second)
{
	void *place = plugin_place(out, first);
	return place != NULL && place == plugin_place(out, second);
}
