// SPDX-License-Identifier: MIT
/*
 * Text from the program or its files (thread names, symbol and file names, a process's comm) made
 * safe to print on a terminal: no byte of it can start an escape sequence, set a title, clear the
 * screen or reorder what follows. One escaping for everything taskprobe prints: the exit report
 * (shim), the console (contrib/top) and the converter's analysis (contrib/timeline).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum {
	TP_SHOWN_NEWLINES = 1, /* a newline kept as it is */
	TP_SHOWN_UTF8 = 2,     /* valid UTF-8 kept (the terminal's codeset is UTF-8) */
};

/*
 * `len` bytes of `in` (up to a NUL) into `out` (NUL-terminated, cut between characters when
 * `size` is short): printable ASCII as is, valid UTF-8 as is with TP_SHOWN_UTF8 (not the C1
 * controls, line separators and bidi controls), every other byte as \xNN. Returns the length.
 * At most four bytes out per byte in. Allocates nothing.
 */
size_t tp_shown_text(char *out, size_t size, const char *in, size_t len, unsigned flags);

/* `in` up to its NUL, shown, into `out`; returns `out`. */
const char *tp_shown(char *out, size_t size, const char *in, unsigned flags);
