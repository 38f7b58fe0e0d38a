// SPDX-License-Identifier: MIT
/* The preload test harness (harness.h): targets run plainly, preloaded, or under bpftrace. */
#define _GNU_SOURCE
#include "harness.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "contract.h"

extern char **environ;

static const char *shim_override, *program_override;

const char *tp_shim(void)
{
	return shim_override != NULL ? shim_override : TP_SHIM_PATH;
}

void tp_use_shim(const char *shim)
{
	shim_override = shim;
}

void tp_use_tracer_program(const char *program)
{
	program_override = program;
}

static char shim_copy_path[64];

static void remove_shim_copy(void)
{
	unlink(shim_copy_path);
}

const char *tp_shim_copy(void)
{
	snprintf(shim_copy_path, sizeof shim_copy_path, "/tmp/taskprobe-test-shim-XXXXXX");
	int out = mkstemp(shim_copy_path), in = open(TP_SHIM_PATH, O_RDONLY);
	cr_assert(out >= 0 && in >= 0);
	char buf[65536];
	ssize_t n;
	while ((n = read(in, buf, sizeof buf)) > 0)
		cr_assert(write(out, buf, (size_t)n) == n);
	close(in);
	close(out);
	atexit(remove_shim_copy);
	return shim_copy_path;
}

const char *tp_target(const char *name)
{
	static __thread char path[4096];
	snprintf(path, sizeof path, "%s/%s", TP_TARGETS_DIR, name);
	return path;
}

static bool tracefs_mounted(void)
{
	return access("/sys/kernel/tracing/uprobe_events", F_OK) == 0 ||
	       access("/sys/kernel/debug/tracing/uprobe_events", F_OK) == 0;
}

/* Skips the test, or fails it under CI=true, where nothing may be skipped. */
static void skip_unless_ci(const char *why)
{
	const char *ci = getenv("CI");
	if (ci != NULL && strcmp(ci, "true") == 0)
		cr_assert_fail("%s (tests never skip under CI=true)", why);
	cr_skip_test("%s", why);
}

static const char *require(const char *path, int mode, const char *package)
{
	if (access(path, mode) != 0) {
		char why[4200];
		snprintf(why, sizeof why, "%s is missing (install %s)", path, package);
		skip_unless_ci(why);
	}
	return path;
}

const char *tp_require_program(const char *path, const char *package)
{
	return require(path, X_OK, package);
}

const char *tp_require_file(const char *path, const char *package)
{
	return require(path, R_OK, package);
}

void tp_require_tracer(void)
{
	const char *why = NULL;
	if (geteuid() != 0)
		why = "attaching bpftrace needs root";
	else if (system("command -v bpftrace >/dev/null 2>&1") != 0)
		why = "bpftrace is not installed";
	else if (!tracefs_mounted() &&
		 mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) != 0 &&
		 !tracefs_mounted())
		why = "tracefs is not mounted and cannot be";
	if (why != NULL)
		skip_unless_ci(why);
}

static void monotonic_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static char *make_temp(const char *what)
{
	char *path;
	cr_assert(asprintf(&path, "/tmp/taskprobe-test-%s-XXXXXX", what) > 0);
	int fd = mkstemp(path);
	cr_assert(fd >= 0, "mkstemp: %s", strerror(errno));
	close(fd);
	return path;
}

char *tp_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f != NULL, "open %s: %s", path, strerror(errno));
	char *buf = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&buf, &size);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		fwrite(chunk, 1, n, mem);
	fclose(f);
	fclose(mem);
	if (len != NULL)
		*len = size;
	return buf;
}

/* The target's environment: the harness's without shim settings, plus the mode's and `extra`. */
static char **target_environment(enum tp_mode mode, const char *const extra[])
{
	size_t n = 0, m = 0;
	while (environ[n] != NULL)
		n++;
	while (extra != NULL && extra[m] != NULL)
		m++;
	char **env = calloc(n + m + 2, sizeof *env);
	size_t k = 0;
	const char *before_shim = NULL, *after_shim = NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 &&
		    strncmp(environ[i], "TASKPROBE_", 10) != 0)
			env[k++] = environ[i];
	for (size_t i = 0; i < m; i++) {
		if (strncmp(extra[i], "LD_PRELOAD=", 11) == 0)
			before_shim = extra[i] + 11;
		else if (strncmp(extra[i], "TP_PRELOAD_AFTER_SHIM=", 22) == 0)
			after_shim = extra[i] + 22;
		else
			env[k++] = (char *)extra[i];
	}
	char *preload = NULL;
	if (mode == TP_PLAIN) {
		if (after_shim != NULL)
			cr_assert(asprintf(&preload, "LD_PRELOAD=%s", after_shim) > 0);
	} else {
		/*
		 * A sanitized shim needs its sanitizer's runtime loaded: ASan's before everything,
		 * TSan's after the shim, so that the shim's thread trampoline runs inside TSan's
		 * (preload-tests/run).
		 */
		const char *first = getenv("TP_PRELOAD_FIRST"), *last = getenv("TP_PRELOAD_LAST");
		const char *parts[] = {first, before_shim, tp_shim(), after_shim, last};
		FILE *f = open_memstream(&preload, &(size_t){0});
		fputs("LD_PRELOAD=", f);
		for (size_t i = 0, written = 0; i < sizeof parts / sizeof parts[0]; i++)
			if (parts[i] != NULL)
				fprintf(f, "%s%s", written++ ? " " : "", parts[i]);
		fclose(f);
	}
	if (preload != NULL)
		env[k++] = preload;
	return env;
}

/*
 * The bpftrace program: the test's, or one printing every taskprobe event of process $1 as one
 * line (with the first frames of each spawn stack); and always a MARK line for each getppid()
 * the harness makes (see drain_tracer).
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
	for (const struct tp_contract_probe *p = tp_contract_probes; p->name != NULL; p++) {
		/*
		 * %d would print 64-bit values truncated to int: ask for long long. A task-spawn's site
		 * text and a task-stack's first frames end the same line: a second printf could be
		 * separated from the first by another thread's event on the same CPU.
		 */
		bool spawn = strcmp(p->name, "task__spawn") == 0,
		     stack = strcmp(p->name, "task__stack") == 0;
		fprintf(f, "usdt:%s:taskprobe:%s /pid == $1/ {\n printf(\"E %s %%llu %%llu",
			tp_shim(), p->name, p->name);
		for (int i = 0; i < 6; i++)
			fprintf(f, " %%lld");
		for (int i = 0; stack && i < TP_FRAMES_READ; i++)
			fprintf(f, " %%llu");
		fprintf(f, spawn ? " %%s\\n\", tid, nsecs" : "\\n\", tid, nsecs");
		for (int i = 0; i < 6; i++)
			fprintf(f, i < p->nargs ? ", arg%d" : ", 0", i);
		for (int i = 0; stack && i < TP_FRAMES_READ; i++)
			fprintf(f, ", arg3 > %d ? *(uint64 *)(arg2 + %d) : 0", i, 8 * i);
		if (spawn)
			fprintf(f, ", str(arg3)"); /* the site's text, as the process resolved it */
		fprintf(f, ");\n}\n");
	}
	fclose(f);
	return text;
}

static pid_t spawn(char *const argv[], char *const envp[], const char *out, const char *err,
		   int go_fd)
{
	pid_t pid = fork();
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		/* A test that fails half-way must not leave a tracer attached or a target running. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* stdin /dev/null, stdout and stderr the files; no other descriptor is inherited */
		int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
		int o = open(out, O_WRONLY | O_TRUNC | O_CLOEXEC),
		    e = open(err, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		/* the test runner's own descriptors stay with it (but the go pipe, closed on exec) */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != go_fd)
				close(fd);
		char go;
		if (go_fd >= 0 && read(go_fd, &go, 1) != 1)
			_exit(125); /* the harness gave up before starting it */
		execve(argv[0], argv, envp);
		_exit(127);
	}
	return pid;
}

/* Waits for `pid` up to `ms`; kills it after. Returns the status as tp_run.status does. */
static int reap(pid_t pid, long ms)
{
	int status;
	for (long waited = 0;; waited += 10) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		cr_assert(r >= 0, "waitpid: %s", strerror(errno));
		if (r == pid)
			break;
		if (waited >= ms) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			cr_log_error("process %d did not end within %ld ms; killed", (int)pid, ms);
			break;
		}
		monotonic_sleep_ms(10);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int by_time(const void *a, const void *b)
{
	const struct tp_event *x = a, *y = b;
	return x->nsecs < y->nsecs ? -1 : x->nsecs > y->nsecs;
}

static void parse_events(const char *text, struct tp_run *run)
{
	size_t cap = 1024;
	run->events = calloc(cap, sizeof *run->events);
	run->n_events = 0;
	for (const char *line = text; line != NULL && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		struct tp_event e = {0};
		long long a[6];
		unsigned long long tid, ns;
		if (sscanf(line, "E %31s %llu %llu %lld %lld %lld %lld %lld %lld", e.probe, &tid,
			   &ns, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]) != 9)
			continue;
		e.tid = tid;
		e.nsecs = ns;
		for (int i = 0; i < 6; i++)
			e.arg[i] = a[i];
		if (run->n_events == cap)
			run->events = realloc(run->events, (cap *= 2) * sizeof *run->events);
		run->events[run->n_events++] = e;
		/* a task-spawn's site text and a task-stack's frames follow its arguments */
		struct tp_event *last = &run->events[run->n_events - 1];
		int rest = 0;
		unsigned long long fr[TP_FRAMES_READ];
		sscanf(line, "E %*s %*u %*u %*d %*d %*d %*d %*d %*d%n", &rest);
		const char *after = line + rest, *end = strchrnul(after, '\n');
		if (strcmp(e.probe, "task__spawn") == 0 && *after == ' ')
			snprintf(last->site, sizeof last->site, "%.*s", (int)(end - after - 1),
				 after + 1);
		if (strcmp(e.probe, "task__stack") == 0 &&
		    sscanf(after, "%llu %llu %llu %llu %llu %llu %llu %llu", &fr[0], &fr[1], &fr[2],
			   &fr[3], &fr[4], &fr[5], &fr[6], &fr[7]) == TP_FRAMES_READ)
			for (int i = 0; i < TP_FRAMES_READ; i++)
				last->frames[i] = fr[i];
	}
	/* bpftrace's per-CPU buffers interleave; nsecs orders them (stable for equal stamps). */
	qsort(run->events, run->n_events, sizeof *run->events, by_time);
	/* TP_TEST_DUMP=DIR keeps each traced run's events, to read when a test fails. */
	const char *dump = getenv("TP_TEST_DUMP");
	if (dump != NULL) {
		char path[4096];
		snprintf(path, sizeof path, "%s/events-%d.txt", dump, (int)getpid());
		FILE *f = fopen(path, "w");
		for (size_t i = 0; f != NULL && i < run->n_events; i++) {
			const struct tp_event *e = &run->events[i];
			fprintf(f, "%llu %llu %s %lld %lld %lld %lld %lld %lld\n",
				(unsigned long long)e->nsecs, (unsigned long long)e->tid, e->probe,
				(long long)e->arg[0], (long long)e->arg[1], (long long)e->arg[2],
				(long long)e->arg[3], (long long)e->arg[4], (long long)e->arg[5]);
		}
		if (f != NULL)
			fclose(f);
	}
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

/* Waits until the tracer `pid`, writing to `out`, prints a line starting with `prefix` (a
 * minute at most); fails the test, saying `what` and the tracer's stderr, if it ends first. */
static void await_tracer_line(pid_t pid, const char *out, const char *err, const char *prefix,
			      const char *what)
{
	for (long waited = 0; count_lines(out, prefix) == 0; waited += 20) {
		int status;
		if (waitpid(pid, &status, WNOHANG) == pid || waited > 60000) {
			kill(pid, SIGKILL);
			cr_assert_fail("%s: %s", what, tp_read_file(err, NULL));
		}
		monotonic_sleep_ms(20);
	}
}

static pid_t start_tracer(pid_t target, const char *out, const char *err)
{
	char *script = make_temp("script");
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
	pid_t pid = spawn(argv, environ, out, err, -1);
	await_tracer_line(pid, out, err, "READY", "bpftrace did not attach");
	unlink(script);
	free(script);
	return pid;
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
static void drain_tracer(const char *trace_out, const char *trace_err)
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
			monotonic_sleep_ms(20);
		}
	}
	char *text = tp_read_file(trace_out, NULL), *errors = tp_read_file(trace_err, NULL);
	cr_assert_fail(
		"bpftrace printed no marker within a minute; it printed:\n%s\nand on stderr:\n%s",
		text, errors);
}

void tp_run(enum tp_mode mode, const char *const argv[], const char *const env[],
	    struct tp_run *run)
{
	memset(run, 0, sizeof *run);
	if (mode == TP_TRACED)
		tp_require_tracer();
	char *out = make_temp("out"), *err = make_temp("err");
	char **envp = target_environment(mode, env);
	int go[2];
	cr_assert(pipe2(go, O_CLOEXEC) == 0);
	run->pid = spawn((char *const *)argv, envp, out, err, go[0]);
	close(go[0]);

	pid_t tracer = -1;
	char *trace_out = NULL, *trace_err = NULL;
	if (mode == TP_TRACED) {
		trace_out = make_temp("trace");
		trace_err = make_temp("trace-err");
		tracer = start_tracer(run->pid, trace_out, trace_err);
	}
	cr_assert(write(go[1], "g", 1) == 1);
	close(go[1]);
	run->status = reap(run->pid, 120000);

	if (tracer > 0) {
		drain_tracer(trace_out, trace_err);
		kill(tracer, SIGINT);
		int tracer_status = reap(tracer, 30000);
		char *text = tp_read_file(trace_out, NULL);
		parse_events(text, run);
		if (tracer_status != 0)
			/* a note (criterion exits 1 on logged errors); missing events fail assertions */
			fprintf(stderr, "note: bpftrace exited with %d: %s\n", tracer_status,
				tp_read_file(trace_err, NULL));
		run->trace = text;
		unlink(trace_out);
		unlink(trace_err);
	}
	run->out = tp_read_file(out, &run->out_len);
	run->err = tp_read_file(err, NULL);
	unlink(out);
	unlink(err);
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

/* Asserts that run `b` gave the exit status and stdout of run `a`. */
static void expect_same_result(const char *program, const struct tp_run *a, const char *a_name,
			       const struct tp_run *b, const char *b_name)
{
	cr_expect_eq(b->status, a->status, "%s: exit status %d %s, %d %s", program, b->status,
		     b_name, a->status, a_name);
	cr_expect(a->out_len == b->out_len && memcmp(a->out, b->out, a->out_len) == 0,
		  "%s: stdout differs:\n--- %s\n%s\n--- %s\n%s", program, a_name, a->out, b_name,
		  b->out);
}

void tp_run_both(const char *const argv[], const char *const env[], struct tp_run *traced)
{
	struct tp_run plain;
	tp_run(TP_PLAIN, argv, env, &plain);
	tp_run(TP_TRACED, argv, env, traced);
	expect_same_result(argv[0], &plain, "without the shim", traced, "traced");
	tp_run_free(&plain);
}

void tp_run_all_ways_saying(const char *const argv[], const char *const env[], const char *said,
			    struct tp_run *traced)
{
	struct tp_run plain, preloaded;
	tp_run(TP_PLAIN, argv, env, &plain);
	tp_run(TP_PRELOADED, argv, env, &preloaded);
	tp_run(TP_TRACED, argv, env, traced);
	expect_same_result(argv[0], &plain, "without the shim", traced, "traced");
	expect_same_result(argv[0], &preloaded, "preloaded with no tracer", traced, "traced");
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

uint64_t tp_symbol_address(const char *path, const char *symbol)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "nm -P '%s'", path) > 0);
	FILE *p = popen(cmd, "r");
	free(cmd);
	cr_assert(p != NULL);
	char name[512], type[8];
	unsigned long long addr = 0, found = 0;
	char line[1024];
	while (fgets(line, sizeof line, p) != NULL)
		if (sscanf(line, "%511s %7s %llx", name, type, &addr) == 3 &&
		    strcmp(name, symbol) == 0)
			found = addr;
	pclose(p);
	cr_assert(found != 0, "no symbol %s in %s", symbol, path);
	return found;
}

const char *tp_symbol_at(const char *path, uint64_t pc)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "nm -P -S --defined-only '%s'", path) > 0);
	FILE *p = popen(cmd, "r");
	free(cmd);
	cr_assert(p != NULL);
	static char found[512];
	snprintf(found, sizeof found, "?");
	char name[512], type[8], line[1024];
	unsigned long long addr, size;
	while (fgets(line, sizeof line, p) != NULL)
		if (sscanf(line, "%511s %7s %llx %llx", name, type, &addr, &size) == 4 &&
		    pc - 1 >= addr && pc - 1 < addr + size)
			snprintf(found, sizeof found, "%s", name);
	pclose(p);
	return found;
}

size_t tp_count(const struct tp_run *run, const char *probe, uint64_t tid)
{
	size_t n = 0;
	for (size_t i = 0; i < run->n_events; i++)
		if (strcmp(run->events[i].probe, probe) == 0 &&
		    (tid == 0 || run->events[i].tid == tid))
			n++;
	return n;
}

size_t tp_count_waits(const struct tp_run *run, int64_t kind)
{
	size_t n = 0;
	for (size_t i = 0; i < run->n_events; i++)
		n += strcmp(run->events[i].probe, "wait__start") == 0 &&
		     run->events[i].arg[0] == kind;
	return n;
}

const struct tp_event *tp_nth(const struct tp_run *run, const char *probe, uint64_t tid, size_t n)
{
	for (size_t i = 0; i < run->n_events; i++)
		if (strcmp(run->events[i].probe, probe) == 0 &&
		    (tid == 0 || run->events[i].tid == tid) && n-- == 0)
			return &run->events[i];
	cr_assert_fail("no event %s #%zu", probe, n);
	return NULL;
}

static bool is(const struct tp_event *e, const char *probe)
{
	return strcmp(e->probe, probe) == 0;
}

size_t tp_assert_threads_paired(const struct tp_run *run, long n)
{
	size_t starts = tp_count(run, "thread__start", 0);
	if (n >= 0)
		cr_expect_eq(starts, (size_t)n, "%zu thread-start, expected %ld", starts, n);
	cr_expect_eq(tp_count(run, "thread__stop", 0), starts,
		     "%zu thread-stop for %zu thread-start", tp_count(run, "thread__stop", 0),
		     starts);
	for (size_t i = 0; i < run->n_events; i++) {
		const struct tp_event *s = &run->events[i];
		if (!is(s, "thread__start"))
			continue;
		uint64_t tid = (uint64_t)s->arg[0];
		cr_expect_eq(tid, s->tid, "thread-start names tid %llu on thread %llu",
			     (unsigned long long)tid, (unsigned long long)s->tid);
		cr_expect_neq(s->arg[1], 0, "thread-start of %llu has no start routine",
			      (unsigned long long)tid);
		cr_expect_neq(s->arg[2], 0);
		for (size_t j = 0; j < i; j++)
			cr_expect_neq(run->events[j].tid, tid, "%s on thread %llu before its start",
				      run->events[j].probe, (unsigned long long)tid);
		size_t stops = 0;
		bool stopped_itself = false;
		for (size_t j = i + 1; j < run->n_events; j++) {
			const struct tp_event *e = &run->events[j];
			if (e->tid == tid && stopped_itself)
				cr_expect_fail("%s on thread %llu after its thread-stop", e->probe,
					       (unsigned long long)tid);
			if (is(e, "thread__stop") && (uint64_t)e->arg[0] == tid) {
				stops++;
				stopped_itself = e->tid == tid;
			}
		}
		cr_expect_eq(stops, 1, "%zu thread-stop for thread %llu", stops,
			     (unsigned long long)tid);
	}
	return starts;
}

size_t tp_assert_waits_paired(const struct tp_run *run)
{
	size_t waits = 0;
	for (size_t i = 0; i < run->n_events; i++) {
		const struct tp_event *s = &run->events[i];
		if (!is(s, "wait__start"))
			continue;
		waits++;
		/* its end: the wait-end on its thread that closes it, waits of signal handlers
		 * nesting in between */
		const struct tp_event *end = NULL;
		size_t depth = 1;
		for (size_t j = i + 1; j < run->n_events && end == NULL; j++) {
			const struct tp_event *e = &run->events[j];
			if (e->tid != s->tid)
				continue;
			if (is(e, "wait__start"))
				depth++;
			else if (is(e, "wait__end") && --depth == 0)
				end = e;
		}
		if (end == NULL) {
			/* Only a thread that the process's exit ended may leave its wait open. */
			bool ended_by_exit = false;
			for (size_t j = i + 1; j < run->n_events; j++)
				ended_by_exit |= is(&run->events[j], "thread__stop") &&
						 (uint64_t)run->events[j].arg[0] == s->tid &&
						 run->events[j].tid != s->tid;
			cr_expect(ended_by_exit,
				  "wait-start (kind %lld) on thread %llu never ended",
				  (long long)s->arg[0], (unsigned long long)s->tid);
			continue;
		}
		cr_expect(end->arg[0] == s->arg[0] && end->arg[1] == s->arg[1] &&
				  end->arg[3] == s->arg[3],
			  "wait-end (kind %lld, object %#llx, task %lld) does not match its start "
			  "(kind %lld, object %#llx, task %lld)",
			  (long long)end->arg[0], (unsigned long long)end->arg[1],
			  (long long)end->arg[3], (long long)s->arg[0],
			  (unsigned long long)s->arg[1], (long long)s->arg[3]);
	}
	/* park and unpark alternate per thread, starting with park, and end unparked. */
	for (size_t i = 0; i < run->n_events; i++) {
		uint64_t tid = run->events[i].tid;
		bool seen_before = false;
		for (size_t j = 0; j < i && !seen_before; j++)
			seen_before = run->events[j].tid == tid;
		if (seen_before)
			continue;
		bool parked = false;
		for (size_t j = i; j < run->n_events; j++) {
			const struct tp_event *e = &run->events[j];
			bool park = is(e, "worker__thread__park"),
			     unpark = is(e, "worker__thread__unpark");
			if (e->tid != tid || !(park || unpark))
				continue;
			cr_expect_neq(park, parked, "worker-thread-%s on thread %llu while %s",
				      park ? "park" : "unpark", (unsigned long long)tid,
				      parked ? "parked" : "not parked");
			parked = park;
		}
		cr_expect(!parked, "thread %llu never unparked", (unsigned long long)tid);
	}
	return waits;
}

size_t tp_assert_tasks_consistent(const struct tp_run *run, long workers)
{
	uint64_t max_id = 0;
	for (size_t i = 0; i < run->n_events; i++)
		if (strncmp(run->events[i].probe, "task__", 6) == 0 &&
		    (uint64_t)run->events[i].arg[0] > max_id)
			max_id = (uint64_t)run->events[i].arg[0];
	/* Per task: event index of spawn, terminate, final poll-end; counts. */
	struct task_seen {
		size_t spawn, terminate, final_end, wakes, terminates, polls;
		bool spawned;
	} *t = calloc(max_id + 1, sizeof *t);
	size_t spawned = 0;

	for (size_t i = 0; i < run->n_events; i++) {
		const struct tp_event *e = &run->events[i];
		if (strncmp(e->probe, "task__", 6) != 0)
			continue;
		uint64_t id = (uint64_t)e->arg[0];
		cr_assert_neq(id, 0, "%s of task 0", e->probe);
		struct task_seen *s = &t[id];
		if (is(e, "task__spawn")) {
			cr_expect(!s->spawned, "task %llu spawned twice", (unsigned long long)id);
			uint64_t parent = (uint64_t)e->arg[1];
			cr_expect(parent == 0 || (parent <= max_id && t[parent].spawned),
				  "task %llu has unknown parent %llu", (unsigned long long)id,
				  (unsigned long long)parent);
			cr_expect_eq(e->arg[5], 1, "executor %lld", (long long)e->arg[5]);
			s->spawned = true;
			s->spawn = i;
			spawned++;
			continue;
		}
		cr_expect(s->spawned, "%s of task %llu before its spawn", e->probe,
			  (unsigned long long)id);
		cr_expect_eq(s->terminates == 1 && s->final_end != 0, false,
			     "%s of task %llu after its final poll-end", e->probe,
			     (unsigned long long)id);
		if (is(e, "task__wake")) {
			s->wakes++;
		} else if (is(e, "task__poll__start")) {
			cr_expect_gt(s->wakes, 0, "task %llu polled before its wake",
				     (unsigned long long)id);
			s->polls++;
		} else if (is(e, "task__terminate")) {
			s->terminates++;
			s->terminate = i;
		} else if (is(e, "task__poll__end") && e->arg[1] == 1) {
			cr_expect_eq(s->terminates, 1,
				     "task %llu ended (done 1) without one terminate",
				     (unsigned long long)id);
			/* Terminate comes first, on this thread, with nothing of the thread between. */
			for (size_t j = s->terminate + 1; j < i; j++)
				cr_expect_neq(
					run->events[j].tid, e->tid,
					"%s between terminate and final poll-end of task %llu",
					run->events[j].probe, (unsigned long long)id);
			cr_expect_eq(run->events[s->terminate].tid, e->tid);
			s->final_end = i;
		}
	}
	for (uint64_t id = 1; id <= max_id; id++) {
		if (!t[id].spawned)
			continue;
		cr_expect_eq(t[id].wakes, 1, "task %llu woken %zu times", (unsigned long long)id,
			     t[id].wakes);
		cr_expect_eq(t[id].terminates, 1, "task %llu terminated %zu times",
			     (unsigned long long)id, t[id].terminates);
		cr_expect_neq(t[id].final_end, 0, "task %llu has no final poll-end (done 1)",
			      (unsigned long long)id);
	}
	free(t);

	/* Per thread: poll-start/poll-end alternate; worker start/stop once each. */
	size_t worker_threads = 0;
	for (size_t i = 0; i < run->n_events; i++) {
		uint64_t tid = run->events[i].tid;
		bool first = true;
		for (size_t j = 0; j < i && first; j++)
			first = run->events[j].tid != tid;
		if (!first)
			continue;
		int64_t polling = 0;
		size_t starts = 0, stops = 0;
		for (size_t j = i; j < run->n_events; j++) {
			const struct tp_event *e = &run->events[j];
			if (e->tid != tid)
				continue;
			if (is(e, "task__poll__start")) {
				cr_expect_eq(polling, 0,
					     "thread %llu starts polling %lld while polling %lld",
					     (unsigned long long)tid, (long long)e->arg[0],
					     (long long)polling);
				polling = e->arg[0];
			} else if (is(e, "task__poll__end")) {
				cr_expect_eq(polling, e->arg[0],
					     "thread %llu ends a poll of %lld while polling %lld",
					     (unsigned long long)tid, (long long)e->arg[0],
					     (long long)polling);
				polling = 0;
			} else if (is(e, "worker__thread__start")) {
				cr_expect_eq(starts + stops, 0,
					     "thread %llu: worker start after start/stop",
					     (unsigned long long)tid);
				starts++;
			} else if (is(e, "worker__thread__stop")) {
				stops++;
			}
		}
		cr_expect_eq(polling, 0, "thread %llu still polls task %lld at the end",
			     (unsigned long long)tid, (long long)polling);
		cr_expect_eq(starts, stops, "thread %llu: %zu worker starts, %zu stops",
			     (unsigned long long)tid, starts, stops);
		cr_expect_leq(starts, 1, "thread %llu started as a worker %zu times",
			      (unsigned long long)tid, starts);
		worker_threads += starts;
	}
	if (workers >= 0)
		cr_expect_eq(worker_threads, (size_t)workers, "%zu worker threads, expected %ld",
			     worker_threads, workers);
	return spawned;
}

void tp_run_script(const char *script, const char *const script_args[], const char *const argv[],
		   const char *const env[], struct tp_run *run)
{
	memset(run, 0, sizeof *run);
	tp_require_tracer();
	char *out = make_temp("out"), *err = make_temp("err");
	char *trace_out = make_temp("trace"), *trace_err = make_temp("trace-err");
	int go[2];
	cr_assert(pipe2(go, O_CLOEXEC) == 0);
	run->pid = spawn((char *const *)argv, target_environment(TP_PRELOADED, env), out, err,
			 go[0]);
	close(go[0]);

	/* bpftrace SCRIPT PID ARGS..., as the script's usage says */
	char path[4096], target_pid[16];
	snprintf(path, sizeof path, "%s/%s", TP_BUILT_SCRIPTS_DIR, script);
	snprintf(target_pid, sizeof target_pid, "%d", (int)run->pid);
	const char *tracer_argv[16] = {
		"/usr/bin/env", "BPFTRACE_CACHE_USER_SYMBOLS=1", "bpftrace", "-B", "line", path,
		target_pid};
	size_t n = 7;
	for (size_t i = 0; script_args != NULL && script_args[i] != NULL && n < 15; i++)
		tracer_argv[n++] = script_args[i];
	pid_t tracer = spawn((char *const *)tracer_argv, environ, trace_out, trace_err, -1);
	/* every script says "Tracing ..." from BEGIN, once its probes are attached */
	char what[256];
	snprintf(what, sizeof what, "%s did not start", script);
	await_tracer_line(tracer, trace_out, trace_err, "Tracing ", what);
	cr_assert(write(go[1], "g", 1) == 1);
	close(go[1]);
	run->status = reap(run->pid, 120000);
	/* the script ends itself when the process has ended */
	int tracer_status = reap(tracer, 30000);
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

void tp_launch(const char *const args[], const char *const env[], struct tp_run *run)
{
	enum { ARGS_MAX = 24 };
	const char *argv[ARGS_MAX] = {TP_CONTRIB_DIR "/taskprobe"};
	size_t n = 1;
	while (args[n - 1] != NULL && n < ARGS_MAX - 1) {
		argv[n] = args[n - 1];
		n++;
	}
	argv[n] = NULL;
	tp_run(TP_PLAIN, argv, env, run);
}
