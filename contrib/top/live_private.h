// SPDX-License-Identifier: MIT
/*
 * What the files of the live statistics' reader (live_view.h) share and its users do not: the
 * processes they look at (live_process.c) and the escaping of paths for their sentences
 * (live_text.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A path, escaped, for a sentence (the directory may come from the process's environment). */
#define SHOWN_PATH_SIZE 512
const char *shown_path(char out[SHOWN_PATH_SIZE], const char *path);

/* What the console knows of a process: whose it is, when it started, its shim's settings. */
struct process {
	bool known;             /* there, and its status read (else: gone, or hidden) */
	uid_t uid;              /* its effective uid; the caller's when not known */
	uint64_t start_ticks;   /* /proc/PID/stat's starttime, 0 unknown */
	uint64_t pid_namespace; /* the inode of /proc/PID/ns/pid, 0 unknown */
	char *environ;          /* its environment as it started (NUL-separated), or NULL */
	size_t environ_len;
};

/* What the console knows of process `pid` now (process_free frees it). */
void process_read(struct process *p, pid_t pid);
void process_free(struct process *p);
/*
 * A setting of the process's shim: from its environment, or the caller's when it cannot be read
 * (a gone process's kept file). NULL when unset or empty.
 */
const char *process_getenv(const struct process *p, const char *name);

struct live_snapshot;
/*
 * The task sites and the sync sites of `out` of one name made one (live_merge.c), each row merged
 * away kept in `kept_row` as the row it went into; and the wait sites of one text and kind.
 */
void live_merge_sites_of_one_name(struct live_snapshot *out, uint32_t *kept_row);
void live_merge_wait_sites_of_one_name(struct live_snapshot *out);
