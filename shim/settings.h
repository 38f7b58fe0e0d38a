// SPDX-License-Identifier: MIT
/* The TASKPROBE_* environment settings, parsed once. */
#pragma once

#include <stdbool.h>

struct tp_settings {
	bool stacks;          /* TASKPROBE_STACKS: capture spawn stacks */
	unsigned stack_depth; /* TASKPROBE_STACK_DEPTH: frames kept, 1 to 128 */
	const char *workers;  /* TASKPROBE_WORKERS: glob of worker thread names, or NULL */
	const char *report;   /* TASKPROBE_REPORT: "stderr", a path, or NULL */
	const char *record;   /* TASKPROBE_RECORD: a path (%p: the pid), or NULL */
	bool record_stacks;   /* TASKPROBE_RECORD_STACKS: the recorder captures spawn stacks */
};

/*
 * The settings. The first call parses the environment; a bad value prints one `taskprobe:` line
 * and the default is used. A call that comes while another thread (or a signal handler on this
 * one) is still parsing gets the defaults rather than waiting.
 */
const struct tp_settings *tp_settings(void);
