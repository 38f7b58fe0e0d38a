// SPDX-License-Identifier: MIT
/*
 * bpftrace for the harness (harness_internal.h): the program printing every taskprobe event of
 * the target, bpftrace started on it and awaited, drained of its per-CPU buffers once the target
 * has ended, and stopped.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contract.h"
#include "harness_internal.h"

extern char **environ;

static const char *program_override;

void tp_use_tracer_program(const char *program)
{
	program_override = program;
}

/*
 * The bpftrace program: the test's, or one printing every taskprobe event of process $1 as one
 * line (with the first frames of each spawn stack); and always a MARK line for each getppid()
 * the harness makes (see tp_tracer_drain).
 */
static char *tracer_program(void)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	fprintf(f, "BEGIN { printf(\"READY\\n\"); }\n");
	/*
	 * Two marker probes: bpftrace 0.17's symbolizer (usym) now and then closes a descriptor
	 * that is not its own, which can be one probe's; it is never both.
	 */
	fprintf(f,
		"tracepoint:syscalls:sys_enter_getppid, tracepoint:syscalls:sys_exit_getppid "
		"/pid == %d/ { printf(\"MARK %%d\\n\", cpu); }\n",
		(int)getpid());
	if (program_override != NULL) {
		fputs(program_override, f);
		fclose(f);
		return text;
	}
	/* wait-stack unwinds at every wait: not under TSan (TP_WAIT_STACKS_UNDER_TSAN) */
	const char *pass = getenv("TP_SANITIZER");
	bool tsan = pass != NULL && strcmp(pass, "tsan") == 0;
	for (const struct tp_contract_probe *p = tp_contract_probes; p->name != NULL; p++) {
		if (tsan && strcmp(p->name, "wait__stack") == 0)
			continue;
		/*
		 * %d would print 64-bit values truncated to int: ask for long long. A task-spawn's or
		 * wait-start's site text, a thread-start's start routine's name and a task-stack's or
		 * wait-stack's first frames end the same line: a second
		 * printf could be separated from the first by another thread's event on the same CPU.
		 */
		int pcs_arg = strcmp(p->name, "task__stack") == 0   ? 2
			      : strcmp(p->name, "wait__stack") == 0 ? 3
								    : -1;
		bool stack = pcs_arg >= 0; /* its depth is the argument after its pcs */
		int text_arg = strcmp(p->name, "task__spawn") == 0     ? 3
			       : strcmp(p->name, "thread__start") == 0 ? 3
			       : strcmp(p->name, "wait__start") == 0   ? 5
								       : -1;
		fprintf(f, "usdt:%s:taskprobe:%s /pid == $1/ {\n printf(\"E %s %%llu %%llu",
			tp_shim(), p->name, p->name);
		for (int i = 0; i < 6; i++)
			fprintf(f, " %%lld");
		for (int i = 0; stack && i < TP_FRAMES_READ; i++)
			fprintf(f, " %%llu");
		fprintf(f, text_arg >= 0 ? " %%s\\n\", tid, nsecs" : "\\n\", tid, nsecs");
		for (int i = 0; i < 6; i++)
			fprintf(f, i < p->nargs ? ", arg%d" : ", 0", i);
		for (int i = 0; stack && i < TP_FRAMES_READ; i++)
			fprintf(f, ", arg%d > %d ? *(uint64 *)(arg%d + %d) : 0", pcs_arg + 1, i,
				pcs_arg, 8 * i);
		if (text_arg >= 0) /* the site's text, as the process resolved it */
			fprintf(f, ", str(arg%d)", text_arg);
		fprintf(f, ");\n}\n");
	}
	fclose(f);
	return text;
}

static size_t count_lines(const char *path, const char *prefix)
{
	char *text = tp_read_file(path, NULL);
	size_t n = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += strncmp(l, prefix, strlen(prefix)) == 0;
	free(text);
	return n;
}

/*
 * The tracer-ready protocol, defined in contrib/tracer-ready.sh (meson gives its constants as
 * TP_TRACER_*): the tracer is ready at the first whole line of its output that does not start
 * with TP_TRACER_NOT_READY_PREFIX (bpftrace's "Attaching N probes..."); its BEGIN prints it.
 */
static bool ready_line_printed(const char *out)
{
	char *text = tp_read_file(out, NULL);
	bool ready = false;
	for (const char *l = text, *end; !ready && (end = strchr(l, '\n')) != NULL; l = end + 1)
		ready = strncmp(l, TP_TRACER_NOT_READY_PREFIX,
				strlen(TP_TRACER_NOT_READY_PREFIX)) != 0;
	free(text);
	return ready;
}

/*
 * Waits as the protocol says for the tracer `pid`, writing to `out` and `err`: every
 * TP_TRACER_READY_CHECK_MS, up to TP_TRACER_READY_TIMEOUT_S. Fails the test, saying `what` and the
 * tracer's stderr, when the tracer ends first or the time is up.
 */
static void await_ready(pid_t pid, const char *out, const char *err, const char *what)
{
	for (long waited = 0; !ready_line_printed(out); waited += TP_TRACER_READY_CHECK_MS) {
		int status;
		bool ended = waitpid(pid, &status, WNOHANG) == pid;
		if (ended || waited >= TP_TRACER_READY_TIMEOUT_S * 1000L) {
			if (!ended) {
				kill(pid, SIGKILL);
				waitpid(pid, &status, 0);
			}
			cr_assert_fail("%s: %s", what, tp_read_file(err, NULL));
		}
		tp_sleep_ms(TP_TRACER_READY_CHECK_MS);
	}
}

pid_t tp_tracer_start(pid_t target, const char *out, const char *err)
{
	char *script = tp_make_temp("script");
	char *program = tracer_program();
	FILE *f = fopen(script, "w");
	cr_assert(f != NULL);
	fputs(program, f);
	fclose(f);
	free(program);

	char target_pid[16];
	snprintf(target_pid, sizeof target_pid, "%d", (int)target);
	/*
	 * 4 MiB of event buffer per CPU (bpftrace's default is 256 KiB): a busy target on a loaded
	 * machine (the sanitized passes, two tests at once) can fill the default before bpftrace
	 * reads it, and the harness fails a run that lost events.
	 */
	char *argv[] = {"/usr/bin/env", "BPFTRACE_PERF_RB_PAGES=1024",
			"bpftrace",     "-B",
			"line",         script,
			target_pid,     NULL};
	pid_t pid = tp_spawn(argv, environ, out, err, -1);
	/* its BEGIN prints READY */
	await_ready(pid, out, err, "bpftrace did not attach");
	unlink(script);
	free(script);
	return pid;
}

pid_t tp_tracer_start_script(const char *script_path, const char *const script_args[], pid_t target,
			     const char *out, const char *err)
{
	/* bpftrace SCRIPT PID ARGS..., as the script's usage says */
	char target_pid[16];
	snprintf(target_pid, sizeof target_pid, "%d", (int)target);
	const char *tracer_argv[16] = {"/usr/bin/env", "BPFTRACE_CACHE_USER_SYMBOLS=1",
				       "bpftrace",     "-B",
				       "line",         script_path,
				       target_pid};
	size_t n = 7;
	for (size_t i = 0; script_args != NULL && script_args[i] != NULL && n < 15; i++)
		tracer_argv[n++] = script_args[i];
	pid_t tracer = tp_spawn((char *const *)tracer_argv, environ, out, err, -1);
	/* every shipped script's BEGIN prints "Tracing ..." */
	char what[4200];
	snprintf(what, sizeof what, "%s did not start", strrchr(script_path, '/') + 1);
	await_ready(tracer, out, err, what);
	return tracer;
}

/* Whether the tracer printed a marker from each CPU in `cpus`. */
static bool marked(const char *trace_out, const cpu_set_t *cpus)
{
	char *text = tp_read_file(trace_out, NULL);
	bool all = true;
	for (int c = 0; c < CPU_SETSIZE && all; c++) {
		char line[32];
		snprintf(line, sizeof line, "\nMARK %d\n", c);
		all = !CPU_ISSET(c, cpus) || strstr(text, line) != NULL;
	}
	free(text);
	return all;
}

/*
 * bpftrace drops what is still in its per-CPU buffers when it is stopped. Each buffer is
 * first-in first-out, so once a marker made on every CPU after the target ended is printed, so
 * is every event of the target. A buffer's wakeup can be missed when few events are in flight,
 * so the markers are made again until all are seen.
 */
void tp_tracer_drain(const char *trace_out, const char *trace_err)
{
	cpu_set_t mine, one;
	cr_assert(sched_getaffinity(0, sizeof mine, &mine) == 0);
	for (long waited = 0; waited <= 60000; waited += 200) {
		for (int c = 0; c < CPU_SETSIZE; c++) {
			if (!CPU_ISSET(c, &mine))
				continue;
			CPU_ZERO(&one);
			CPU_SET(c, &one);
			if (sched_setaffinity(0, sizeof one, &one) == 0)
				syscall(SYS_getppid);
		}
		sched_setaffinity(0, sizeof mine, &mine);
		for (int i = 0; i < 10; i++) {
			if (marked(trace_out, &mine)) {
				cr_expect_eq(count_lines(trace_out, "Lost "), 0,
					     "bpftrace lost events");
				return;
			}
			tp_sleep_ms(20);
		}
	}
	char *text = tp_read_file(trace_out, NULL), *errors = tp_read_file(trace_err, NULL);
	cr_assert_fail(
		"bpftrace printed no marker within a minute; it printed:\n%s\nand on stderr:\n%s",
		text, errors);
}

int tp_tracer_stop(pid_t tracer)
{
	kill(tracer, SIGINT);
	return tp_reap_or_note(tracer, 60000);
}

void tp_run_traced_by(const char *shim, const char *program, const char *const argv[],
		      const char *const env[], struct tp_run *run)
{
	tp_use_shim(shim);
	tp_use_tracer_program(program);
	tp_run(TP_TRACED, argv, env, run);
	tp_use_tracer_program(NULL);
	tp_use_shim(NULL);
}

const char *tp_libunwind_path(void)
{
	static char path[PATH_MAX];
	if (path[0] == '\0') {
		void *libunwind = dlopen("libunwind.so.8", RTLD_LAZY);
		cr_assert_not_null(libunwind, "libunwind.so.8: %s", dlerror());
		Dl_info info;
		cr_assert(dladdr(dlsym(libunwind, "unw_backtrace"), &info) != 0);
		snprintf(path, sizeof path, "%s", info.dli_fname);
	}
	return path;
}

size_t tp_count_unwinds(const char *shim, const char *also, const char *const argv[],
			const char *const env[], const char *out)
{
	char *program;
	cr_assert(asprintf(&program,
			   "uprobe:%s:unw_backtrace /pid == $1/ { printf(\"UNWIND\\n\"); }\n%s",
			   tp_libunwind_path(), also) > 0);
	struct tp_run run;
	tp_run_traced_by(shim, program, argv, env, &run);
	cr_expect_str_eq(run.out, out);
	size_t n = 0;
	for (const char *l = run.trace; (l = strstr(l, "UNWIND\n")) != NULL; l++)
		n++;
	tp_run_free(&run);
	free(program);
	return n;
}

long long tp_map_value(const char *trace, const char *key)
{
	size_t len = strlen(key);
	for (const char *l = trace; l != NULL; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, key, len) == 0 && strncmp(l + len, ": ", 2) == 0)
			return strtoll(l + len + 2, NULL, 10);
	return -1;
}

/* A line of a trace: its time (its first column; 0: none, a line of bpftrace's own), where. */
struct trace_line {
	unsigned long long time;
	size_t at, len, order;
};

static int by_time_then_order(const void *a, const void *b)
{
	const struct trace_line *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

char *tp_trace_in_time_order(const char *trace)
{
	size_t n = 0, len = strlen(trace);
	for (const char *c = trace; *c != '\0'; c++)
		n += *c == '\n';
	struct trace_line *lines = calloc(n + 1, sizeof *lines);
	char *out = malloc(len + 2);
	cr_assert(lines != NULL && out != NULL);
	size_t k = 0;
	for (size_t at = 0; at < len && k <= n;) {
		const char *end = strchr(trace + at, '\n');
		size_t line_len = end != NULL ? (size_t)(end - (trace + at)) + 1 : len - at;
		unsigned long long time = 0;
		if (sscanf(trace + at, " %llu", &time) != 1)
			time = 0;
		lines[k] = (struct trace_line){time, at, line_len, k};
		k++;
		at += line_len;
	}
	qsort(lines, k, sizeof *lines, by_time_then_order);
	size_t w = 0;
	for (size_t i = 0; i < k; i++) {
		memcpy(out + w, trace + lines[i].at, lines[i].len);
		w += lines[i].len;
	}
	out[w] = '\0';
	free(lines);
	return out;
}
