// SPDX-License-Identifier: MIT
/* The dynamic loader's cache, read (loader_cache.h). */
#define _GNU_SOURCE
#include "loader_cache.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAX (64u << 20)

/* The formats' fixed parts, as glibc writes them (elf/cache.c, sysdeps/generic/dl-cache.h). */
static const char old_magic[] = "ld.so-1.7.0"; /* 11 bytes, then the entry count */
#define OLD_HEADER 16u                         /* magic, then uint32 nlibs (aligned to 4) */
#define OLD_ENTRY  12u                         /* int32 flags, uint32 key, uint32 value */
static const char new_magic[] = "glibc-ld.so.cache1.1"; /* 20 bytes */
#define NEW_HEADER 48u /* magic and version, nlibs, len_strings, flags, ..., extension offset */
#define NEW_ENTRY  24u /* int32 flags, uint32 key, uint32 value, uint32 osversion, uint64 hwcap */

/* An entry's flags: ELF for glibc, of this machine's kind (the loader's own). */
#define FLAG_TYPE_MASK     0x00ffu
#define FLAG_ELF_LIBC6     0x0003u
#define FLAG_REQUIRED_MASK 0xff00u
#if defined(__x86_64__) && !defined(__ILP32__)
#define FLAG_THIS_KIND 0x0300u
#elif defined(__aarch64__)
#define FLAG_THIS_KIND 0x0a00u
#elif defined(__i386__)
#define FLAG_THIS_KIND 0x0000u
#else
#define FLAG_THIS_KIND UINT32_MAX /* unknown here: the cache is not read (ldconfig is asked) */
#endif

unsigned char *loader_cache_read(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	unsigned char *data = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= CACHE_MAX)
		data = malloc((size_t)st.st_size);
	size_t got = 0;
	while (data != NULL && got < (size_t)st.st_size) {
		ssize_t n = read(fd, data + got, (size_t)st.st_size - got);
		if (n <= 0) { /* shorter than it was: not the whole cache */
			free(data);
			data = NULL;
		} else {
			got += (size_t)n;
		}
	}
	close(fd);
	*size = got;
	return data;
}

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static uint64_t u64_at(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* The string at `offset` of `base` (`size` bytes from there): NULL when it does not end there. */
static const char *string_at(const unsigned char *base, size_t size, uint32_t offset)
{
	if (offset >= size || memchr(base + offset, '\0', size - offset) == NULL)
		return NULL;
	return (const char *)base + offset;
}

int loader_cache_find(const unsigned char *data, size_t size, const char *soname, char *path,
		      size_t path_size)
{
	if (FLAG_THIS_KIND == UINT32_MAX)
		return -1;
	/* the new format, alone or after the old one's entries (8-byte aligned) */
	size_t at = 0;
	if (size >= OLD_HEADER && memcmp(data, old_magic, sizeof old_magic - 1) == 0) {
		uint64_t old_libs = u32_at(data + 12);
		at = (size_t)((OLD_HEADER + old_libs * OLD_ENTRY + 7) & ~(uint64_t)7);
		if (old_libs > size / OLD_ENTRY || at > size)
			return -1;
	}
	if (size - at < NEW_HEADER || memcmp(data + at, new_magic, sizeof new_magic - 1) != 0)
		return -1;
	const unsigned char *base = data +
				    at; /* the new part: its strings' offsets are from here */
	size_t base_size = size - at;
	uint64_t libs = u32_at(base + 20);
	if (libs > (base_size - NEW_HEADER) / NEW_ENTRY)
		return -1;
	const char *found = NULL;
	for (uint64_t i = 0; i < libs; i++) {
		const unsigned char *e = base + NEW_HEADER + i * NEW_ENTRY;
		uint32_t flags = u32_at(e);
		if ((flags & FLAG_TYPE_MASK) != FLAG_ELF_LIBC6 ||
		    (flags & FLAG_REQUIRED_MASK) != FLAG_THIS_KIND)
			continue;
		const char *key = string_at(base, base_size, u32_at(e + 4));
		const char *value = string_at(base, base_size, u32_at(e + 8));
		if (key == NULL || value == NULL)
			return -1;
		if (strcmp(key, soname) != 0)
			continue;
		bool every_processor = u64_at(e + 16) == 0;
		if (found == NULL || every_processor)
			found = value;
		if (every_processor)
			break;
	}
	if (found == NULL)
		return 0;
	size_t len = strlen(found);
	if (found[0] != '/' || len >= path_size)
		return -1;
	memcpy(path, found, len + 1);
	return 1;
}
