// SPDX-License-Identifier: MIT
/*
 * Whether the calling thread runs inside a signal handler, for work at exit that allocates or
 * loads libraries: an exit() from a handler may have interrupted the program inside malloc,
 * whose lock it still holds (signal_context.c says how this is told without a handler of the
 * shim's).
 */
#pragma once

#include <stdbool.h>

/*
 * True when the calling thread is, or may be, inside a signal handler; false when it is not.
 * Slow (reads /proc/self/maps and the thread's stack): at exit only. Allocates nothing.
 */
bool tp_in_signal_handler(void);
