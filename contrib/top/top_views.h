// SPDX-License-Identifier: MIT
/*
 * The console's two ways to show a process's statistics: plain-text snapshots (top_plain.c) and
 * the full-screen view (top_screen.c). Each returns the console's exit status.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "live_view.h"
#include "top_options.h"

/* Plain-text snapshots: one (--once), or one an interval until the program ends. */
int run_plain(struct live_file *f, const struct options *o);

/*
 * Whether the full-screen view can be: keys to read (standard input a terminal), a terminal to
 * draw on with cursor addressing at least; else why not, in `why`.
 */
bool terminal_usable(char *why, size_t size);
/* The full-screen view, until a key quits it or the program and its run end. */
int run_screen(struct live_file *f, const struct options *o);
