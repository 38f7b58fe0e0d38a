// SPDX-License-Identifier: MIT
/* Where libgomp is found, for the audit module's answer (libgomp_search.h). */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>

#include "libgomp_search.h"
#include "no_libc.h"

const char libgomp_soname[] = "libgomp.so.1";

/* Whether the directory `dir` (`length` bytes) holds a file libgomp.so.1 (or cannot be told). */
static bool holds_libgomp(const char *dir, size_t length)
{
	char path[4096];
	if (length + 1 + sizeof libgomp_soname > sizeof path)
		return true;
	for (size_t i = 0; i < length; i++)
		path[i] = dir[i];
	path[length] = '/';
	for (size_t i = 0; i < sizeof libgomp_soname; i++)
		path[length + 1 + i] = libgomp_soname[i];
	long found = raw_syscall(SYS_faccessat, AT_FDCWD, (long)path, F_OK, 0, 0, 0);
	return found != -2 /* ENOENT */ && found != -20 /* ENOTDIR */;
}

/*
 * Whether the kernel started the dynamic linker as the program (`ld.so PROGRAM`, as ldd does):
 * /proc/self/exe is then ld.so, not the program. The kernel gives the dynamic linker's address
 * (AT_BASE) only to a program that names it as its interpreter. Unreadable: taken as so.
 */
static bool loader_run_as_program(void)
{
	int fd = open_read("/proc/self/auxv");
	if (fd < 0)
		return true;
	ElfW(auxv_t) entry;
	bool base = false;
	while (read_some(fd, (char *)&entry, sizeof entry) == sizeof entry &&
	       entry.a_type != AT_NULL)
		if (entry.a_type == AT_BASE)
			base = entry.a_un.a_val != 0;
	close_file(fd);
	return !base;
}

/*
 * The directory of the object `map` ($ORIGIN, as the loader expands it: the program's from
 * /proc/self/exe) into `dir`; its length, or 0 when there is none to tell (a relative name; the
 * program when ld.so was run as a command, whose name the loader keeps to itself).
 */
static size_t origin_of(const struct link_map *map, char *dir, size_t size)
{
	size_t length = 0;
	if (map->l_name != NULL && map->l_name[0] == '/') {
		length = text_length(map->l_name);
		if (length >= size)
			return 0;
		for (size_t i = 0; i < length; i++)
			dir[i] = map->l_name[i];
	} else if (map->l_name != NULL && map->l_name[0] == '\0' && map->l_prev == NULL &&
		   !loader_run_as_program()) {
		long n = raw_syscall(SYS_readlinkat, AT_FDCWD, (long)"/proc/self/exe", (long)dir,
				     (long)size, 0, 0);
		if (raw_failed(n) || (size_t)n >= size || n == 0 || dir[0] != '/')
			return 0;
		length = (size_t)n;
	}
	while (length > 0 && dir[length - 1] != '/')
		length--;
	return length > 1 ? length - 1 : length; /* "/" stays */
}

/*
 * Whether no directory of the DT_RUNPATH `runpath` of the object `map` holds a libgomp.so.1:
 * each an absolute path, or one below $ORIGIN ("${ORIGIN}"); any other ($LIB, $PLATFORM, a
 * relative one) is taken as one that does.
 */
static bool runpath_lacks_libgomp(const struct link_map *map, const char *runpath)
{
	char dir[4096];
	for (const char *at = runpath;; at++) {
		const char *end = at;
		while (*end != '\0' && *end != ':')
			end++;
		size_t length = 0, rest = 0;
		const char *tail = at;
		if (starts_with(at, "$ORIGIN") || starts_with(at, "${ORIGIN}")) {
			tail = at + (at[1] == '{' ? 9 : 7);
			length = origin_of(map, dir, sizeof dir);
			if (length == 0 || (tail != end && *tail != '/'))
				return false;
		} else if (*at != '/') {
			return false;
		}
		rest = (size_t)(end - tail);
		if (length + rest >= sizeof dir)
			return false;
		for (size_t i = 0; i < rest; i++) {
			if (tail[i] == '$')
				return false;
			dir[length + i] = tail[i];
		}
		if (holds_libgomp(dir, length + rest))
			return false;
		if (*end == '\0')
			return true;
		at = end;
	}
}

bool bridge_searches_alike(const struct link_map *map, const struct imports *o)
{
	if (o->no_default_paths)
		return false;
	if (o->runpath == NULL)
		return true;
	if (!runpath_lacks_libgomp(map, o->runpath))
		return false;
	const struct link_map *each = map;
	while (each->l_prev != NULL)
		each = each->l_prev;
	for (; each != NULL; each = each->l_next) {
		struct imports other;
		read_imports(each, &other);
		if (other.rpath)
			return false;
	}
	return true;
}

bool bridge_has_libgomps_versions(const struct settings *settings, const struct definitions *bridge)
{
	if (settings->libgomp[0] == '\0')
		return false;
	const char *path = settings->library_path;
	if (*path != '\0') {
		for (const char *at = path;; at++) {
			const char *end = at;
			while (*end != '\0' && *end != ':')
				end++;
			if (end > at && holds_libgomp(at, (size_t)(end - at)))
				return false;
			if (*end == '\0')
				break;
			at = end;
		}
	}
	struct definitions gomp;
	if (!read_definitions(&gomp, settings->libgomp))
		return false;
	bool all = true;
	/* (the file's own base definition, its soname, is no version an object needs) */
	for (size_t i = 0; i < MAX_VERSIONS && all; i++)
		all = gomp.version_names[i] == NULL ||
		      same_text(gomp.version_names[i], libgomp_soname) ||
		      has_version(bridge, gomp.version_names[i]);
	drop_definitions(&gomp);
	return all;
}
