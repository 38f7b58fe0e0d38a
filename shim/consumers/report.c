// SPDX-License-Identifier: MIT
/*
 * The exit report of tasks never terminated (docs/sites-and-stacks.md), then the
 * task graph's figures (report_work_span.c) and where threads waited (report_waits.c).
 *
 * When it is written. A library's destructor may tear its runtime down while other threads still
 * run in it: libomp does, when exit() comes from a thread it does not know during a parallel
 * region. Those threads then run on freed state until exit ends the process, and whether the
 * program ends cleanly, crashes or fails an assertion depends on how long exit takes after that
 * destructor. So the report does nothing that takes time after the destructors unless the
 * executors have ended every thread they started:
 *   - at the start of exit, before the destructors, while every library is in place: if a task
 *     the program spawned is still alive, its executor is still at work and nothing will end
 *     the task in order: the report is written now. Otherwise it is prepared (counted,
 *     symbolized and formatted) in memory;
 *   - after the destructors: if every executor thread has ended, the executors shut down in
 *     order, ending what they end at shutdown (such as OpenMP's initial and implicit tasks): the
 *     report is written from the counts now. If not, the prepared report is written as it is,
 *     with one write(2).
 */
#define _GNU_SOURCE
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "in_process_consumers.h"
#include "listeners.h"
#include "lifecycle_moments.h"
#include "live.h"
#include "openmp_runtimes.h"
#include "own_files.h"
#include "process.h"
#include "real_symbol.h"
#include "report_waits.h"
#include "report_work_span.h"
#include "settings.h"
#include "shown_text.h"
#include "signal_context.h"
#include "spawn_site.h"
#include "stack_table.h"
#include "symbolize.h"
#include "text_out.h"
#include "warn.h"

/* Spawn stacks (stack_table.h): stack ids (0: a program's task with neither stack nor site),
 * then the executors' own. */
#define IDS (TP_SPAWN_STACK_OF_EXECUTOR + 1)

/* Tasks alive per spawn stack. */
static int64_t alive[IDS];
/*
 * A program's tasks whose stack was not sampled (past the executors' spawn stack), alive by
 * their site's key: most tasks. Each thread counts in one of SHARDS copies, its own while
 * threads are few: with one count, two threads' spawns and ends took its cache line from each
 * other at every task (BOTS uts, two threads: 2.0 s under the report against 1.55 without it).
 * The copies are read up to the largest key counted.
 */
#define SHARDS 8
/* each copy its own cache lines (a key's count a line apart between copies), and the largest key
 * on a line of its own: read at every event, it shared one with a copy's counts */
#define KEY_COUNTS ((TP_SITE_ADDRESSES_MAX + 1 + 7) / 8 * 8)
static int64_t alive_at_key[SHARDS][KEY_COUNTS] __attribute__((aligned(64)));
static uint32_t keys_counted __attribute__((aligned(64)));
static unsigned shards_taken;
static __thread uint8_t shard_plus_1 __attribute__((tls_model("initial-exec")));
/*
 * The report's file (TASKPROBE_REPORT, %p the pid, a relative path the start's working
 * directory's), appended to; "": stderr. Opened at exit only, so that it takes none of the
 * program's descriptors while it runs.
 */
static char report_path[PATH_MAX];
/*
 * The file this process made at start for its report alone (a path with %p: no other process
 * writes it), to be removed while it is still empty when the process has nothing to say at exit
 * (a command of a reported script), execs or ends by _exit (tp_report_unwritten): a loop of a
 * thousand commands leaves no thousand empty files.
 */
static struct {
	bool made;
	dev_t dev;
	ino_t ino;
} report_file;

/*
 * Set by the first task or executor thread any executor reports, which also registers the
 * handler for the start of exit. Still 0 at exit: no executor was seen (report_no_executor).
 */
static uint8_t executor_seen;
/* Executor threads started and not ended yet. */
static int64_t executor_threads;
/* The report was written at the start of exit: the handler after the destructors does nothing. */
static uint8_t written;
/* The report as at the start of exit, when it was not written then. */
static char *prepared;
static size_t prepared_length;

__attribute__((noinline, cold)) static void first_executor_event(void)
{
	/* Executors start once main runs: the handler runs at exit before the destructors. */
	if (__atomic_exchange_n(&executor_seen, 1, __ATOMIC_ACQ_REL) == 0)
		tp_lifecycle_program_running();
}

static inline void executor_event(void)
{
	if (__builtin_expect(__atomic_load_n(&executor_seen, __ATOMIC_RELAXED) == 0, 0))
		first_executor_event();
}

/* The count of key `key` (1 to TP_SITE_ADDRESSES_MAX) in the calling thread's copy. */
__attribute__((noinline)) static int64_t *key_count_taken(uint32_t key)
{
	if (shard_plus_1 == 0) {
		unsigned taken = __atomic_fetch_add(&shards_taken, 1, __ATOMIC_RELAXED);
		shard_plus_1 = (uint8_t)(taken % SHARDS + 1);
	}
	for (uint32_t seen = __atomic_load_n(&keys_counted, __ATOMIC_RELAXED); key > seen;)
		if (__atomic_compare_exchange_n(&keys_counted, &seen, key, true, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			break;
	return &alive_at_key[shard_plus_1 - 1][key];
}

/* The count task spawn stack `stack_id` is counted in; NULL for none. */
static inline int64_t *count_of(uint32_t stack_id)
{
	if (stack_id < IDS)
		return &alive[stack_id];
	uint32_t key = stack_id - TP_SPAWN_STACK_OF_EXECUTOR;
	if (key > TP_SITE_ADDRESSES_MAX)
		return NULL;
	if (__builtin_expect(
		    shard_plus_1 == 0 || key > __atomic_load_n(&keys_counted, __ATOMIC_RELAXED), 0))
		return key_count_taken(key);
	return &alive_at_key[shard_plus_1 - 1][key];
}

/* Tasks alive of key `key` (past the executors' spawn stack), every copy's count added. */
static int64_t key_alive(uint32_t key)
{
	int64_t sum = 0;
	for (unsigned s = 0; s < SHARDS; s++)
		sum += __atomic_load_n(&alive_at_key[s][key], __ATOMIC_RELAXED);
	return sum;
}

void tp_report_task_spawned(uint32_t stack_id)
{
	executor_event();
	int64_t *count = count_of(stack_id);
	if (count != NULL)
		__atomic_add_fetch(count, 1, __ATOMIC_RELAXED);
}

void tp_report_task_terminated(uint32_t stack_id)
{
	int64_t *count = count_of(stack_id);
	if (count != NULL)
		__atomic_sub_fetch(count, 1, __ATOMIC_RELAXED);
}

void tp_report_executor_thread_started(void)
{
	executor_event();
	__atomic_add_fetch(&executor_threads, 1, __ATOMIC_RELAXED);
}

void tp_report_executor_thread_stopped(void)
{
	__atomic_sub_fetch(&executor_threads, 1, __ATOMIC_RELEASE);
}

/*
 * The counts the report is written from, the stacks that have tasks alive: threads still running
 * at exit (an executor's workers) may go on spawning and terminating, so the report reads each
 * count once and is consistent with itself. Only the entries in use are touched. Stacks are
 * grouped under their site: the site of a stack is the call in its first frame; a site's tasks
 * whose stack was not sampled are a group of their own (`stack` their spawn stack, past the
 * executors').
 */
struct group {
	uint32_t site, stack;
	int64_t alive, site_alive;
};
static struct group groups[IDS + TP_SITE_ADDRESSES_MAX];
static int64_t alive_by_site[TP_SITES_MAX + 1];

/* Sites with the most tasks first, then their stacks with the most tasks first. */
static int by_count(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->site_alive != y->site_alive)
		return x->site_alive > y->site_alive ? -1 : 1;
	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	if (x->alive != y->alive)
		return x->alive > y->alive ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static void write_report(FILE *out)
{
	/* names from the program's files, escaped for the terminal the report may reach */
	unsigned shown = tp_settings()->text_utf8 ? TP_SHOWN_UTF8 : 0;
	char text_shown[1024];
	size_t n = 0;
	int64_t without_stack = __atomic_load_n(&alive[0], __ATOMIC_RELAXED);
	int64_t executors_own = __atomic_load_n(&alive[TP_SPAWN_STACK_OF_EXECUTOR],
						__ATOMIC_RELAXED);
	int64_t total = (without_stack > 0 ? without_stack : 0) +
			(executors_own > 0 ? executors_own : 0);
	uint32_t keys = __atomic_load_n(&keys_counted, __ATOMIC_RELAXED);
	for (uint32_t id = 1; id <= TP_SPAWN_STACK_OF_EXECUTOR + keys; id++) {
		int64_t count = id < TP_SPAWN_STACK_OF_EXECUTOR
					? __atomic_load_n(&alive[id], __ATOMIC_RELAXED)
				: id > TP_SPAWN_STACK_OF_EXECUTOR
					? key_alive(id - TP_SPAWN_STACK_OF_EXECUTOR)
					: 0;
		uint32_t depth, site;
		if (count <= 0)
			continue;
		if (id > TP_SPAWN_STACK_OF_EXECUTOR) {
			site = tp_spawn_site_of_key(id - TP_SPAWN_STACK_OF_EXECUTOR);
		} else {
			const uintptr_t *pcs = tp_stack_table_frames(id, &depth);
			if (pcs == NULL)
				continue;
			site = tp_spawn_site((const void *)pcs[0]);
		}
		groups[n++] = (struct group){.site = site, .stack = id, .alive = count};
		alive_by_site[site] += count;
		total += count;
	}
	for (size_t g = 0; g < n; g++)
		groups[g].site_alive = alive_by_site[groups[g].site];
	qsort(groups, n, sizeof *groups, by_count);
	/* every task terminated: nothing to say of them (the task graph follows) */
	char whose[64];
	if (total > 0)
		fprintf(out, "taskprobe: %lld task%s spawned but never terminated (%s)\n",
			(long long)total, total == 1 ? "" : "s",
			tp_live_process_words(whose, sizeof whose));
	for (size_t g = 0; g < n; g++) {
		const struct group *group = &groups[g];
		if (g == 0 || group->site != groups[g - 1].site) {
			const char *text = tp_spawn_site_text(group->site);
			fprintf(out, "  %lld spawned at %s\n", (long long)group->site_alive,
				text != NULL ? tp_shown(text_shown, sizeof text_shown, text, shown)
					     : "(a site past the site table's end)");
		}
		if (group->stack > TP_SPAWN_STACK_OF_EXECUTOR && !tp_settings()->stacks) {
			fprintf(out, "    %lld with no stack (TASKPROBE_STACKS=0)\n",
				(long long)group->alive);
			continue;
		}
		if (group->stack > TP_SPAWN_STACK_OF_EXECUTOR) {
			fprintf(out,
				"    %lld with no stack sampled (a thread's first %u spawns at a "
				"site have theirs, then one in %u)\n",
				(long long)group->alive, TP_LIVE_STACK_SAMPLE_FIRST,
				TP_LIVE_STACK_SAMPLE_EVERY);
			continue;
		}
		uint32_t depth;
		const uintptr_t *pcs = tp_stack_table_frames(group->stack, &depth);
		fprintf(out, "    %lld by stack %u:\n", (long long)group->alive, group->stack);
		for (uint32_t i = 0; i < depth; i++) {
			char frame[1024];
			tp_symbolize(pcs[i], frame, sizeof frame);
			fprintf(out, "      #%-2u %s\n", i,
				tp_shown(text_shown, sizeof text_shown, frame, shown));
		}
	}
	if (without_stack > 0)
		fprintf(out,
			"  %lld spawned at no known site with no spawn stack (the site table or "
			"the stack table full)\n",
			(long long)without_stack);
	if (executors_own > 0)
		fprintf(out,
			"  %lld started by the executor itself (OpenMP's initial and implicit "
			"tasks)\n",
			(long long)executors_own);
	if (total > 0 && tp_stack_table_dropped() > 0)
		fprintf(out,
			"  (%llu spawns found the stack table full: their stacks have no id)\n",
			(unsigned long long)tp_stack_table_dropped());
	/* the report may be written twice (prepared, then final): each counts afresh */
	for (size_t g = 0; g < n; g++)
		alive_by_site[groups[g].site] = 0;
	tp_report_work_span(out);
	tp_report_waits(out);
}

/*
 * No executor ever reported a task: say so rather than "0 tasks", and why when the program's
 * OpenMP runtime is libgomp, which has no tool interface. A process with nothing at all to
 * report (no executor, no wait) says nothing when its parent reports too (started with the
 * setting), so that a build's or a script's many commands add nothing: the run's first process
 * says for all, in one line.
 */
static void report_no_executor(FILE *out)
{
	bool libgomp = tp_openmp_runtime_first() == TP_OPENMP_LIBGOMP;
	bool waits = tp_report_waits_any();
	char whose[64];
	tp_live_process_words(whose, sizeof whose);
	if (!libgomp && !waits) {
		if (!tp_process_parent_started_with("TASKPROBE_REPORT"))
			fprintf(out,
				"taskprobe: no task executor was seen (%s): no tasks "
				"to report, and no thread waited in an interposed wait "
				"(joins, sleeps, select and read are not waits here)\n",
				whose);
		return;
	}
	fprintf(out, "taskprobe: no task executor was seen (%s): no tasks to report%s\n", whose,
		libgomp ? ". An OpenMP program on GCC's libgomp has no tool interface: run "
			  "it on LLVM's libomp (taskprobe does, when libomp has all it calls)"
			: "");
	if (waits)
		tp_report_waits(out);
}

/* The report, formatted in memory (NULL if that failed). */
static char *format_report(size_t *length)
{
	char *text = NULL;
	FILE *memory = open_memstream(&text, length);
	if (memory == NULL)
		return NULL;
	write_report(memory);
	if (fclose(memory) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * Appends `text` to the report's file with one write(2), so that the reports of several
 * processes given one file (a script's, a forked child's) each stay whole; or to stderr while it
 * is the program's stderr of the start. Opening the file at exit allocates nothing (open, fstat).
 */
static void write_text(const char *text, size_t length)
{
	const char *to = "stderr";
	int fd = -1;
	if (report_path[0] != '\0') {
		bool made;
		const char *why = NULL;
		fd = tp_output_open(report_path, O_WRONLY | O_APPEND, true, &made, &why);
		if (fd >= 0)
			to = report_path;
		else
			tp_warn("TASKPROBE_REPORT: %.300s cannot be written at exit: %s; "
				"using stderr",
				report_path, why);
	}
	int out = fd >= 0 ? fd : tp_stderr_fd();
	if (out >= 0 && tp_text_write(out, text, length) == TP_TEXT_NO_ROOM)
		tp_warn("no report written to %.300s: the file size limit (ulimit -f) "
			"leaves no room for it",
			to);
	if (fd >= 0)
		tp_real_close(fd);
}

/*
 * Whether this exit skips the report: exit() from a signal handler may have interrupted the
 * program inside malloc, holding its lock, and the report allocates (open_memstream, qsort) and
 * names sites and stacks (libdw, loaded with dlopen, which allocates): it would wait on that
 * lock for good. The shim cannot know what a handler interrupted, so any exit from one skips it,
 * said in one line where the report would have gone (nothing allocated: write_text). Decided
 * once, at exit's first step here.
 */
static bool skipped_in_signal_handler(void)
{
	static int in_handler = -1;
	if (in_handler < 0) {
		in_handler = tp_in_signal_handler();
		/* said where the report would have gone: its file's line is not the program's
		 * stderr's (the report's file left empty, a line on the program's stderr) */
		char line[300];
		int n = in_handler ? snprintf(line, sizeof line,
					      "taskprobe: no report (pid %d): exit() was called in "
					      "a signal handler, where the program may have been "
					      "inside malloc and making the report could hang it\n",
					      (int)getpid())
				   : 0;
		if (n > 0 && (size_t)n < sizeof line)
			write_text(line, (size_t)n);
	}
	return in_handler;
}

/* The report's file, if this process made it for itself and it is still the empty file made. */
static void remove_unused_file(void)
{
	struct stat st;
	if (report_path[0] != '\0' && report_file.made && lstat(report_path, &st) == 0 &&
	    S_ISREG(st.st_mode) && st.st_size == 0 && st.st_dev == report_file.dev &&
	    st.st_ino == report_file.ino)
		unlink(report_path);
}

/* Writes the report (or, with no executor seen, says why there is none) to its file or stderr. */
static void write_out(void (*report)(FILE *))
{
	size_t length = 0;
	char *text = NULL;
	FILE *memory = open_memstream(&text, &length);
	if (memory == NULL)
		return;
	report(memory);
	if (fclose(memory) == 0 && length > 0)
		write_text(text, length);
	else
		remove_unused_file(); /* nothing to say: no file touched but its own, removed */
	free(text);
}

/* At the start of exit, before the libraries' destructors (see the top of this file). */
void tp_report_before_destructors(void)
{
	if (!tp_reporting() || skipped_in_signal_handler())
		return;
	int saved_errno = errno;
	tp_report_waits_name_sites(); /* while every library is in place */
	bool program_tasks_alive = false;
	for (uint32_t id = 0; id < TP_SPAWN_STACK_OF_EXECUTOR && !program_tasks_alive; id++)
		program_tasks_alive = __atomic_load_n(&alive[id], __ATOMIC_RELAXED) > 0;
	uint32_t keys = __atomic_load_n(&keys_counted, __ATOMIC_RELAXED);
	for (uint32_t key = 1; key <= keys && !program_tasks_alive; key++)
		program_tasks_alive = key_alive(key) > 0;
	if (program_tasks_alive) {
		write_out(write_report);
		__atomic_store_n(&written, 1, __ATOMIC_RELEASE);
		/*
		 * Statistics kept for the report alone are read for good: exit's events after the
		 * destructors (other threads' thread-stops) then cost an exiting program nothing
		 * there, where runtimes torn down under running threads make every microsecond count
		 * (exit_hook.h). A report written at exit reads what the destructors end too.
		 */
		tp_live_after_report();
		/* and the report's own counts: nothing after the destructors is for it now */
		tp_listeners_in_process_remove(TP_IN_PROCESS_REPORT);
	} else {
		prepared = format_report(&prepared_length);
	}
	errno = saved_errno;
}

/* At exit after every destructor (see the top of this file). */
void tp_report_at_exit(void)
{
	if (!tp_reporting() || __atomic_load_n(&written, __ATOMIC_ACQUIRE) ||
	    skipped_in_signal_handler())
		return;
	int saved_errno = errno;
	if (!__atomic_load_n(&executor_seen, __ATOMIC_ACQUIRE)) {
		write_out(report_no_executor);
	} else if (__atomic_load_n(&executor_threads, __ATOMIC_ACQUIRE) <= 0 || prepared == NULL) {
		write_out(write_report);
	} else {
		/* Executor threads may still run on a runtime torn down under them: no more work. */
		write_text(prepared, prepared_length);
	}
	errno = saved_errno;
}

/*
 * A system call filter comes, which may kill the process for the report's calls at exit (naming
 * sites and stacks opens the program's files, formatting allocates): no report is written, said
 * now while nothing refuses the line (its file is opened at exit only: none is left open).
 */
void tp_report_before_seccomp(void)
{
	if (!tp_reporting())
		return;
	int saved_errno = errno;
	tp_warn("TASKPROBE_REPORT: the program installs a system call filter (seccomp): no report "
		"at exit, so that no call of taskprobe's can be refused");
	tp_listeners_in_process_remove(TP_IN_PROCESS_REPORT);
	tp_live_after_report();
	errno = saved_errno;
}

/*
 * Makes or checks the report's file for this process (appended to, never truncated:
 * own_files.h), then closes it: it is opened again at exit. One that cannot be written is said,
 * and the report goes to stderr.
 */
static void check_report_file(const char *setting)
{
	const char *why = "the path is too long";
	char expanded[PATH_MAX];
	int fd = -1;
	bool made = false;
	report_path[0] = '\0';
	if (tp_output_path(setting, expanded, sizeof expanded)) {
		/* absolute: the program may change its working directory before it exits */
		size_t at = 0;
		if (expanded[0] != '/' && getcwd(report_path, sizeof report_path) != NULL) {
			at = strlen(report_path);
			report_path[at++] = '/';
		}
		if (at + strlen(expanded) < sizeof report_path) {
			memcpy(report_path + at, expanded, strlen(expanded) + 1);
			fd = tp_output_open(report_path, O_WRONLY | O_APPEND, true, &made, &why);
		}
	}
	if (fd >= 0) {
		struct stat st;
		report_file.made = made && strstr(setting, "%p") != NULL && fstat(fd, &st) == 0;
		if (report_file.made) {
			report_file.dev = st.st_dev;
			report_file.ino = st.st_ino;
		}
		tp_real_close(fd);
		return;
	}
	report_file.made = false;
	report_path[0] = '\0';
	tp_warn("TASKPROBE_REPORT=\"%.400s\" cannot be written: %s; using stderr", setting, why);
}

void tp_report_start(void)
{
	const char *setting = tp_settings()->report;
	if (setting == NULL)
		return;
	if (strcmp(setting, "stderr") != 0)
		check_report_file(setting);
	tp_report_waits_start();
	tp_listeners_in_process_add(TP_IN_PROCESS_REPORT);
}

/*
 * An exec or _exit: this image writes no report. Its own report file, still empty, is removed
 * (the next image of the process makes its own at its start); never a vfork child's, whose
 * memory, and file, are its parent's.
 */
void tp_report_unwritten(void)
{
	if (tp_settings()->report == NULL || tp_process_filtered() || !tp_process_is_current())
		return;
	int saved_errno = errno;
	remove_unused_file();
	errno = saved_errno;
}

/* A forked child reports into a file of its own when the path has %p, else after its parent's. */
void tp_report_child_after_fork(void)
{
	const char *setting = tp_settings()->report;
	tp_report_waits_child_after_fork();
	/* the child's tasks and executor threads are its own: its parent's alive at the fork are
	 * not (its one thread's are told again: lifecycle.c); counted, a child's report said its
	 * parent's workers' tasks never ended, and waited for those threads' ends to be written */
	memset(alive, 0, sizeof alive);
	for (unsigned s = 0; s < SHARDS; s++)
		memset(alive_at_key[s], 0, (keys_counted + 1) * sizeof alive_at_key[s][0]);
	executor_threads = 0;
	/* none after a filter: the report is off (tp_report_before_seccomp), and a file made
	 * now is a call the filter may refuse */
	if (setting == NULL || strstr(setting, "%p") == NULL || report_path[0] == '\0' ||
	    !tp_reporting() || tp_process_filtered())
		return;
	int saved_errno = errno;
	check_report_file(setting);
	errno = saved_errno;
}
