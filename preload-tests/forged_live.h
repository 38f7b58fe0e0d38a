// SPDX-License-Identifier: MIT
/*
 * Live statistics files (dtrace/taskprobe_live.h) forged by the tests, for a real process, as
 * the shim writes them: the console's harm tests (test_harm_console.c) run taskprobe-top on
 * them, its unit test (contrib/top/test_live_read.c) reads them in-process. Failures are the
 * test's (criterion's asserts).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "taskprobe_live.h"

/*
 * A module of the forged stack, a file the test made (module_copy), and its frame's address,
 * also a site's (shown named in every mode).
 */
struct forged_module {
	const char *path;
	uint64_t bias, start, end, pc;
	uint32_t build_id_size; /* of build_id, given as the file's */
	uint8_t build_id[TP_LIVE_BUILD_ID];
};

#define FORGED_MODULES 2

/* What a forged file holds: one site with figures, one thread; texts as given. */
struct forged {
	struct tp_live_header header;
	const char *site_text;
	const char *thread_name; /* up to 16 bytes, NUL or not */
	size_t thread_name_len;
	const char *stack_module; /* a file name in the file's directory */
	/* else a stack of a frame in each of these (a path, or NULL) */
	struct forged_module modules[FORGED_MODULES];
};

#define FORGED_SPAWNED 5
#define FORGED_DONE    3
#define FORGED_TID     424242
/* where the forged stack's module lies in the forged process */
#define FORGED_MODULE_START 0x400000u

/* /proc/PID/stat's starttime (field 22), and the inode of /proc/PID/ns/pid. */
uint64_t start_ticks_of(pid_t pid);
uint64_t pid_namespace_of(pid_t pid);

/* The header's flaws a reader must refuse: sizes and offsets that do not fit the file, another
 * layout, another process's. */
enum forged_flaw {
	FORGED_SOUND, /* none */
	FORGED_ROWS_PAST_END,
	FORGED_STRIDE_PAST_END,
	FORGED_SIZE_PAST_LAYOUT,
	FORGED_HEADER_SHORT,
	FORGED_SIZE_UNDER_LAYOUT,
	FORGED_OTHER_VERSION,
	FORGED_OTHER_MAGIC,
	FORGED_PID_1,           /* names pid 1 */
	FORGED_EARLIER_PROCESS, /* the pid's, started at another time */
	FORGED_OTHER_PID_NAMESPACE,
};

/* Puts `flaw` in f's header. */
void forged_flaw(struct forged *f, enum forged_flaw flaw);

/* A header naming `pid` as the shim writes it (a file of the layout, not ended). */
struct forged forged_for(pid_t pid);

/* Writes `len` bytes of `data` at `offset` of the file open as `fd`, whole. */
void put(int fd, const void *data, size_t len, uint64_t offset);

/* Writes `f` as the statistics of its header's pid, named for `pid`, in `dir`; its path. */
char *write_forged(const char *dir, pid_t pid, const struct forged *f);
