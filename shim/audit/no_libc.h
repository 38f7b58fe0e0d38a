// SPDX-License-Identifier: MIT
/*
 * What the audit module would take from the C library, written here: it is linked to no library
 * (raw_syscalls.h). Small string work, and files read by system calls.
 */
#pragma once

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>

#include "raw_syscalls.h"

static inline size_t text_length(const char *s)
{
	size_t n = 0;
	while (s[n] != '\0')
		n++;
	return n;
}

static inline bool same_text(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b)
		a++, b++;
	return *a == *b;
}

/* Whether `s` begins with `prefix`. */
static inline bool starts_with(const char *s, const char *prefix)
{
	while (*prefix != '\0' && *s == *prefix)
		s++, prefix++;
	return *prefix == '\0';
}

/* The string at `offset` of a string table of `size` bytes, if it ends inside it; else NULL. */
static inline const char *string_at(const char *table, size_t size, size_t offset)
{
	if (table == NULL || offset >= size)
		return NULL;
	for (size_t i = offset; i < size; i++)
		if (table[i] == '\0')
			return table + offset;
	return NULL;
}

/* ---- files, by system calls ---- */

static inline int open_read(const char *path)
{
	long fd = raw_syscall(SYS_openat, AT_FDCWD, (long)path,
			      O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0, 0, 0);
	return raw_failed(fd) ? -1 : (int)fd;
}

static inline void close_file(int fd)
{
	raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
}

/* Reads up to `size` bytes; returns how many (0 on failure or at the end). */
static inline size_t read_some(int fd, char *buffer, size_t size)
{
	for (;;) {
		long n = raw_syscall(SYS_read, fd, (long)buffer, (long)size, 0, 0, 0);
		if (n == -4 /* EINTR */)
			continue;
		return raw_failed(n) ? 0 : (size_t)n;
	}
}
