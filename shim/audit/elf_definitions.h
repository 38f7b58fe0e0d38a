// SPDX-License-Identifier: MIT
/*
 * The audit module's reading of libomp's definitions and the bridge's (and a libgomp's
 * versions), from their files: every offset and size checked against the file.
 */
#pragma once

#include <link.h>
#include <stdbool.h>
#include <stddef.h>

#pragma GCC visibility push(hidden)

/* Version indexes up to this are kept by name (libomp 14 has 16). */
enum { MAX_VERSIONS = 64 };

struct definitions {
	const unsigned char *file;
	size_t size;
	const ElfW(Sym) * symbols;
	size_t symbol_count;
	const char *strings;
	size_t strings_size;
	const ElfW(Half) * versions; /* per symbol; NULL: unversioned */
	const char *version_names[MAX_VERSIONS];
	const char *soname; /* DT_SONAME, or NULL */
};

/* Maps the file (libomp, the bridge) and finds its dynamic symbols and versions; false if it is
 * not one of ours to load. */
bool read_definitions(struct definitions *d, const char *path);

/* Unmaps what read_definitions mapped. */
void drop_definitions(struct definitions *d);

/*
 * Whether libomp defines `name` for a reference of version `version` (NULL: unversioned, which
 * binds to the default version) as the dynamic linker would bind it.
 */
bool defines(const struct definitions *d, const char *name, const char *version);

/* Whether the file has the version definition `version`. */
bool has_version(const struct definitions *d, const char *version);

#pragma GCC visibility pop
