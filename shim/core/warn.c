// SPDX-License-Identifier: MIT
/* One-line messages to stderr (warn.h). */
#define _GNU_SOURCE
#include "warn.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "text_out.h"

void tp_warn(const char *format, ...)
{
	/*
	 * A secure-execution process (setuid, setgid, file capabilities) reads no setting of the
	 * user's and says nothing on a stderr that user may have chosen.
	 */
	if (getauxval(AT_SECURE) != 0)
		return;
	int saved_errno = errno;
	char line[768] = "taskprobe: ";
	size_t prefix = 11;
	va_list ap;
	va_start(ap, format);
	int n = vsnprintf(line + prefix, sizeof line - prefix - 1, format, ap);
	va_end(ap);
	if (n >= 0) {
		size_t length = prefix + ((size_t)n < sizeof line - prefix - 1
						  ? (size_t)n
						  : sizeof line - prefix - 2);
		line[length] = '\n';
		int fd = tp_stderr_fd(); /* none once the program put a file of its own at 2 */
		if (fd >= 0)
			(void)tp_text_write(fd, line, length + 1);
	}
	errno = saved_errno;
}
