// SPDX-License-Identifier: MIT
/* The shim's one-line messages to the program's stderr. */
#pragma once

/*
 * Writes "taskprobe: " and the formatted message as one line with a single write(2): no stdio
 * buffer or lock of the program's is used, and errno is kept. Long messages are cut. Written
 * only while descriptor 2 is still the program's stderr of the start, and never raising a
 * signal in the program (text_out.h).
 */
void tp_warn(const char *format, ...) __attribute__((format(printf, 1, 2)));
