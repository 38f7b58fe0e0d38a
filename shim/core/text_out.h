// SPDX-License-Identifier: MIT
/*
 * Writing the shim's text (its warnings, the exit report) into descriptors the program owns the
 * signals and limits of: into stderr only while descriptor 2 is the file it was when the shim
 * started, and never raising SIGPIPE or SIGXFSZ in the program (text_out.c says how).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Remembers the file descriptor 2 is now, as the program's stderr (from the constructor). */
void tp_stderr_start(void);

/*
 * STDERR_FILENO while descriptor 2 is still the file it was at start; -1 once the program has
 * closed it or put a file of its own there (its data files after closefrom(0), say).
 */
int tp_stderr_fd(void);

enum tp_text_written {
	TP_TEXT_WRITTEN,
	TP_TEXT_NO_ROOM, /* nothing written: past the file size limit (ulimit -f) */
	TP_TEXT_FAILED,  /* not all of it written: errno says why (EPIPE: nobody reads) */
};

/*
 * Writes all of `text` to `fd`, as few write(2)s as the kernel takes, with neither SIGPIPE nor
 * SIGXFSZ reaching the program, and nothing written when the file size limit leaves no room for
 * all of it. Allocates nothing: it may run where the program was inside malloc.
 */
enum tp_text_written tp_text_write(int fd, const char *text, size_t length);
