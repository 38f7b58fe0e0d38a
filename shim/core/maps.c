// SPDX-License-Identifier: MIT
/* This process's mappings, line by line (maps.h). */
#define _GNU_SOURCE
#include "maps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "real_symbol.h"

int tp_proc_self_open(const char *name)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/thread-self/%s", name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		snprintf(path, sizeof path, "/proc/self/%s", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	return fd;
}

bool tp_maps_lines(tp_maps_line_fn *each, void *context)
{
	int fd = tp_proc_self_open("maps");
	if (fd < 0)
		return false;
	char buffer[4096];
	size_t held = 0;
	bool in_long_line = false; /* past the start of a line longer than the buffer */
	bool stop = false;
	while (!stop) {
		ssize_t n = read(fd, buffer + held, sizeof buffer - 1 - held);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		held += (size_t)n;
		buffer[held] = '\0';
		char *line = buffer, *newline;
		while (!stop && (newline = strchr(line, '\n')) != NULL) {
			*newline = '\0';
			if (!in_long_line)
				stop = each(line, true, context);
			in_long_line = false;
			line = newline + 1;
		}
		held = (size_t)(buffer + held - line);
		memmove(buffer, line, held);
		if (!stop && held == sizeof buffer - 1) { /* its start is all that is handed */
			if (!in_long_line)
				stop = each(buffer, false, context);
			in_long_line = true;
			held = 0;
		}
	}
	tp_real_close(fd);
	return true;
}

/* A hexadecimal number at *p, ended by `end`: *p moved past `end`; false if `end` is not there. */
static bool hex_until(const char **p, char end, uintptr_t *value)
{
	*value = 0;
	for (; **p != end && **p != '\0'; (*p)++)
		*value = *value << 4 |
			 (uintptr_t)(**p <= '9' ? **p - '0' : (**p | 0x20) - 'a' + 10);
	if (**p != end)
		return false;
	(*p)++;
	return true;
}

const char *tp_maps_range(const char *line, uintptr_t *start, uintptr_t *end)
{
	const char *p = line;
	return hex_until(&p, '-', start) && hex_until(&p, ' ', end) ? p : NULL;
}
