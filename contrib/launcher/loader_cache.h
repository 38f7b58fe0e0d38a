// SPDX-License-Identifier: MIT
/*
 * The dynamic loader's cache (/etc/ld.so.cache, which ldconfig writes and `ldconfig -p` prints):
 * where a library of a soname is, for this machine's kind of program, read from the file itself
 * (glibc's format "glibc-ld.so.cache1.1", alone or after the old "ld.so-1.7.0" part). Every count
 * and offset is checked against the file.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The cache's bytes, read whole: NULL (errno set) when the file cannot be read or is over 64 MiB;
 * its size in *size. free() it. */
unsigned char *loader_cache_read(const char *path, size_t *size);

/*
 * The path the cache `data` (`size` bytes) gives the library `soname` (as "libomp.so.5") of this
 * machine's kind (x86-64: the loader's own), into `path` (`path_size` bytes): an entry for every
 * processor first, else one for a kind of it (glibc-hwcaps). 1 when found; 0 when the cache has
 * none; -1 when the data is no cache this reader knows, or does not hold together, or the path
 * is too long for `path` (whoever asks then asks ldconfig).
 */
int loader_cache_find(const unsigned char *data, size_t size, const char *soname, char *path,
		      size_t path_size);
