// SPDX-License-Identifier: MIT
/*
 * The loader cache's reader (loader_cache.h, meson test --suite unit): forged caches of glibc's
 * format, whole and broken, and this machine's own cache against what `ldconfig -p` prints.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader_cache.h"

/* This machine's kind of library, as an entry's flags say it (libc6 and, on x86-64, x86-64). */
#if defined(__x86_64__)
#define THIS_KIND 0x0303
#elif defined(__aarch64__)
#define THIS_KIND 0x0a03
#else
#define THIS_KIND 0x0003
#endif
#define OTHER_KIND 0x0003 /* a 32-bit x86 library's (or another's, on other machines) */

struct forged_entry {
	int32_t flags;
	const char *key, *value;
	uint64_t hwcap;
};

/* A cache of `n` entries (with an old part of `old_entries` entries before it when not 0) into
 * `out` (4096 bytes); its size. */
static size_t forge(unsigned char *out, const struct forged_entry *e, unsigned n,
		    unsigned old_entries)
{
	memset(out, 0, 4096);
	size_t at = 0;
	if (old_entries > 0) {
		memcpy(out, "ld.so-1.7.0", 11);
		uint32_t libs = old_entries;
		memcpy(out + 12, &libs, 4);
		at = (16 + old_entries * 12 + 7) & ~(size_t)7;
	}
	unsigned char *base = out + at;
	memcpy(base, "glibc-ld.so.cache1.1", 20);
	uint32_t libs = n;
	memcpy(base + 20, &libs, 4);
	size_t strings = 48 + 24 * (size_t)n;
	for (unsigned i = 0; i < n; i++) {
		unsigned char *entry = base + 48 + 24 * i;
		uint32_t key = (uint32_t)strings;
		strcpy((char *)base + strings, e[i].key);
		strings += strlen(e[i].key) + 1;
		uint32_t value = (uint32_t)strings;
		strcpy((char *)base + strings, e[i].value);
		strings += strlen(e[i].value) + 1;
		memcpy(entry, &e[i].flags, 4);
		memcpy(entry + 4, &key, 4);
		memcpy(entry + 8, &value, 4);
		memcpy(entry + 16, &e[i].hwcap, 8);
	}
	return at + strings;
}

static const struct forged_entry entries[] = {
	{THIS_KIND, "libomp.so.5", "/usr/lib/glibc-hwcaps/x86-64-v3/libomp.so.5", 1ull << 62},
	{OTHER_KIND, "libomp.so.5", "/usr/lib/i386-linux-gnu/libomp.so.5", 0},
	{THIS_KIND, "libomp.so.5", "/usr/lib/x86_64-linux-gnu/libomp.so.5", 0},
	{THIS_KIND, "libm.so.6", "/usr/lib/glibc-hwcaps/x86-64-v2/libm.so.6", 1ull << 62},
	{OTHER_KIND, "libgomp.so.1", "/usr/lib/i386-linux-gnu/libgomp.so.1", 0},
};

Test(loader_cache, the_entry_for_every_processor_of_this_kind_is_found)
{
	unsigned char cache[4096];
	char path[256];
	for (unsigned old = 0; old <= 3; old += 3) { /* the new format alone, and after the old */
		size_t size = forge(cache, entries, 5, old);
		cr_expect_eq(loader_cache_find(cache, size, "libomp.so.5", path, sizeof path), 1);
		cr_expect_str_eq(path, "/usr/lib/x86_64-linux-gnu/libomp.so.5");
		/* only a kind of processor's: that one */
		cr_expect_eq(loader_cache_find(cache, size, "libm.so.6", path, sizeof path), 1);
		cr_expect_str_eq(path, "/usr/lib/glibc-hwcaps/x86-64-v2/libm.so.6");
		/* only another kind of machine's, or none at all */
		cr_expect_eq(loader_cache_find(cache, size, "libgomp.so.1", path, sizeof path), 0);
		cr_expect_eq(loader_cache_find(cache, size, "libnone.so.1", path, sizeof path), 0);
	}
}

Test(loader_cache, what_does_not_hold_together_is_no_answer)
{
	unsigned char cache[4096];
	char path[256];
	size_t size = forge(cache, entries, 5, 0);
	/* cut anywhere (the header, the entries, a string without its end): no answer, or the
	 * right one when what it rests on is whole */
	for (size_t cut = 0; cut < size; cut++) {
		path[0] = '\0';
		int found = loader_cache_find(cache, cut, "libomp.so.5", path, sizeof path);
		cr_expect(found != 1 || strcmp(path, "/usr/lib/x86_64-linux-gnu/libomp.so.5") == 0,
			  "cut at %zu: %d %s", cut, found, path);
		cr_expect(found == 1 || found == -1, "cut at %zu: %d", cut, found);
	}
	/* more entries than the file holds */
	uint32_t libs = 1000000;
	memcpy(cache + 20, &libs, 4);
	cr_expect_eq(loader_cache_find(cache, size, "libomp.so.5", path, sizeof path), -1);
	/* a string's offset past the file */
	size = forge(cache, entries, 5, 0);
	uint32_t past = (uint32_t)size + 100;
	memcpy(cache + 48 + 4, &past, 4);
	cr_expect_eq(loader_cache_find(cache, size, "libomp.so.5", path, sizeof path), -1);
	/* an old part whose count is past the file */
	size = forge(cache, entries, 5, 3);
	libs = UINT32_MAX;
	memcpy(cache + 12, &libs, 4);
	cr_expect_eq(loader_cache_find(cache, size, "libomp.so.5", path, sizeof path), -1);
	/* another format */
	size = forge(cache, entries, 5, 0);
	cache[19] = '2';
	cr_expect_eq(loader_cache_find(cache, size, "libomp.so.5", path, sizeof path), -1);
	/* a path longer than the room for it */
	size = forge(cache, entries, 5, 0);
	cr_expect_eq(loader_cache_find(cache, size, "libomp.so.5", path, 10), -1);
}

/* This machine's cache: libc's path is the one `ldconfig -p` prints for this kind. */
Test(loader_cache, this_machines_cache_gives_libc_as_ldconfig_does)
{
	size_t size;
	unsigned char *cache = loader_cache_read("/etc/ld.so.cache", &size);
	if (cache == NULL)
		cr_skip_test("no /etc/ld.so.cache here");
	char path[4096];
	cr_assert_eq(loader_cache_find(cache, size, "libc.so.6", path, sizeof path), 1);
	FILE *p = popen("ldconfig -p", "r");
	cr_assert_not_null(p);
	char line[8192];
	bool listed = false;
	while (fgets(line, sizeof line, p) != NULL) {
		char *arrow = strstr(line, " => ");
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "\tlibc.so.6 (", 12) == 0 && arrow != NULL &&
		    strcmp(arrow + 4, path) == 0)
			listed = true;
	}
	pclose(p);
	cr_expect(listed, "%s is not ldconfig's libc.so.6", path);
	free(cache);
}
