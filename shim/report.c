// SPDX-License-Identifier: MIT
/* The exit report of tasks never terminated (README.md, "Spawn stacks"). */
#define _GNU_SOURCE
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exit_hook.h"
#include "settings.h"
#include "stack_table.h"
#include "symbolize.h"
#include "warn.h"

uint16_t tp_report_on;

/* Tasks alive per spawn stack id; [0] counts tasks with no spawn stack. */
static int64_t alive[2 * TP_STACKS_MAX + 1];
static const char *report_path; /* NULL: stderr */

void tp_report_task_spawned(uint32_t stack_id)
{
	__atomic_add_fetch(&alive[stack_id], 1, __ATOMIC_RELAXED);
}

void tp_report_task_terminated(uint32_t stack_id)
{
	__atomic_sub_fetch(&alive[stack_id], 1, __ATOMIC_RELAXED);
}

/*
 * The counts the report is written from: threads still running at exit (an executor's workers)
 * may go on spawning and terminating, so the report reads each count once and is consistent
 * with itself.
 */
static int64_t alive_at_exit[2 * TP_STACKS_MAX + 1];

static int by_count(const void *a, const void *b)
{
	int64_t x = alive_at_exit[*(const uint32_t *)a], y = alive_at_exit[*(const uint32_t *)b];
	return x > y ? -1 : x < y;
}

static void write_report(FILE *out)
{
	static uint32_t order[2 * TP_STACKS_MAX + 1];
	size_t groups = 0;
	int64_t total = 0;
	for (uint32_t id = 0; id <= 2 * TP_STACKS_MAX; id++) {
		alive_at_exit[id] = __atomic_load_n(&alive[id], __ATOMIC_RELAXED);
		if (alive_at_exit[id] > 0) {
			order[groups++] = id;
			total += alive_at_exit[id];
		}
	}
	qsort(order, groups, sizeof *order, by_count);
	fprintf(out, "taskprobe: %lld task%s spawned but never terminated (pid %d)\n",
		(long long)total, total == 1 ? "" : "s", (int)getpid());
	for (size_t g = 0; g < groups; g++) {
		uint32_t id = order[g], depth;
		const uintptr_t *pcs = tp_stack_table_frames(id, &depth);
		if (pcs == NULL) {
			fprintf(out, "  %lld with no spawn stack (capture off, failed or dropped, or a task "
				     "the executor starts itself)\n", (long long)alive_at_exit[id]);
			continue;
		}
		fprintf(out, "  %lld spawned at stack %u:\n", (long long)alive_at_exit[id], id);
		for (uint32_t i = 0; i < depth; i++) {
			char frame[1024];
			tp_symbolize(pcs[i], frame, sizeof frame);
			fprintf(out, "    #%-2u %s\n", i, frame);
		}
	}
	if (tp_stack_table_dropped() > 0)
		fprintf(out, "  (%llu spawns found the stack table full: their stacks have no id)\n",
			(unsigned long long)tp_stack_table_dropped());
}

/* Runs at exit, after all destructors, so that executors have ended what they end. */
static void report_at_exit(void *unused)
{
	(void)unused;
	int saved_errno = errno;
	FILE *out = report_path != NULL ? fopen(report_path, "we") : NULL;
	write_report(out != NULL ? out : stderr);
	if (out != NULL)
		fclose(out);
	else
		fflush(stderr);
	errno = saved_errno;
}

/* A report file that cannot be written is said at start, and the report goes to stderr. */
__attribute__((constructor)) static void start_report(void)
{
	const char *setting = tp_settings()->report;
	if (setting == NULL)
		return;
	if (strcmp(setting, "stderr") != 0) {
		int fd = open(setting, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			close(fd);
			report_path = setting;
		} else {
			tp_warn("TASKPROBE_REPORT=\"%.400s\" cannot be written (%s); using stderr",
				setting, strerror(errno));
		}
	}
	__atomic_store_n(&tp_report_on, 1, __ATOMIC_RELEASE);
	tp_at_exit_after_destructors(report_at_exit);
}
