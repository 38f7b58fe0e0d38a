// SPDX-License-Identifier: MIT
/*
 * This process's mappings, line by line from /proc/self/maps, read into a fixed buffer: no
 * allocation, so that it serves at exit and in a signal handler's time as well (signal_context.c)
 * as where a module is first seen (code_map.c).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * A line of /proc/self/maps, NUL-terminated without its newline; `whole` false for a line longer
 * than the reader's buffer (a path of thousands of bytes), handed once, cut short. Returns true
 * to stop the reading.
 */
typedef bool tp_maps_line_fn(const char *line, bool whole, void *context);

/*
 * /proc/thread-self/`name` opened O_RDONLY, or /proc/self/`name` where there is none (before
 * Linux 3.17): -1 if neither opens. /proc/self's is the thread group leader's, which has no
 * mappings once it exited (main's pthread_exit): read there, the last thread's exit found no
 * stack, and the exit report took it for an exit in a signal handler.
 */
int tp_proc_self_open(const char *name);

/* Each line handed to `each` in the file's order until it says stop; false if unreadable. */
bool tp_maps_lines(tp_maps_line_fn *each, void *context);

/*
 * A line's range ("start-end perms ..."): its bounds into *start and *end, and the text after
 * them (from the permissions); NULL when the line has none.
 */
const char *tp_maps_range(const char *line, uintptr_t *start, uintptr_t *end);
