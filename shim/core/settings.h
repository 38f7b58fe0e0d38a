// SPDX-License-Identifier: MIT
/* The TASKPROBE_* environment settings, parsed once. */
#pragma once

#include <stdbool.h>

/* TASKPROBE_LIVE: whether live statistics are kept, and whether their file outlives the process. */
enum tp_live_setting {
	TP_LIVE_OFF,  /* 0 */
	TP_LIVE_ON,   /* 1: the file is removed as the process ends */
	TP_LIVE_KEEP, /* keep: the file stays for a reader that comes later (taskprobe top --) */
};

/* TASKPROBE_STACK_DEPTH: the most frames a spawn stack keeps, and how many unless set. */
#define TP_STACK_DEPTH_MAX     128
#define TP_STACK_DEPTH_DEFAULT 32
#define TP_STRING_OF(literal)  #literal
#define TP_STRING(macro)       TP_STRING_OF(macro)

struct tp_settings {
	bool stacks;               /* TASKPROBE_STACKS: capture spawn stacks */
	unsigned stack_depth;      /* TASKPROBE_STACK_DEPTH: frames kept */
	const char *workers;       /* TASKPROBE_WORKERS: glob of worker thread names, or NULL */
	const char *report;        /* TASKPROBE_REPORT: "stderr", a path, or NULL */
	const char *record;        /* TASKPROBE_RECORD: a path (%p: the pid), or NULL */
	bool record_stacks;        /* TASKPROBE_RECORD_STACKS: the recorder captures spawn stacks */
	enum tp_live_setting live; /* TASKPROBE_LIVE */
	const char *live_dir;      /* TASKPROBE_LIVE_DIR: where the file is, or NULL (default) */
	unsigned live_long_poll_us; /* TASKPROBE_LIVE_LONG_POLL_US: a long poll, 1 us to 1 h */
	/* TASKPROBE_LIBOMP: the LLVM libomp the launcher's audit module gives the run's programs
	 * built for GCC's libgomp (its setting; the shim names it), or NULL */
	const char *libomp;
	bool text_utf8; /* the locale (LC_ALL, LC_CTYPE, LANG) is UTF-8: names keep theirs */
};

/*
 * The settings. The first call parses the environment; a bad value prints one `taskprobe:` line
 * and the default is used. A call that comes while another thread (or a signal handler on this
 * one) is still parsing gets the defaults rather than waiting.
 */
const struct tp_settings *tp_settings(void);

/* Whether the environment was parsed: tp_settings gives its values now, never the defaults. */
bool tp_settings_ready(void);
