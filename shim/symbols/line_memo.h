// SPDX-License-Identifier: MIT
/*
 * The names tp_source_line has given for this process's code, remembered: the exit report is
 * formatted at the start of exit and may be formatted again after the destructors, and by then
 * libdw has been unloaded (tp_source_lines_unload), so that its destructors and its dependencies'
 * do not run after every other library's, where an executor torn down under its running threads
 * makes every microsecond count (exit_hook.h). Callers serialize, as tp_source_line's do.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Whether `address` was named before: then *named says whether it had a name, and the name is
 * written to `out` (cut to `size`).
 */
bool tp_line_memo_find(uintptr_t address, bool *named, char *out, size_t size);

/* Remembers the answer for `address`: its name, or NULL for none. Past its room, forgets it. */
void tp_line_memo_keep(uintptr_t address, const char *name);

/* Forgets every answer: the addresses are another process's from now on. */
void tp_line_memo_forget(void);
