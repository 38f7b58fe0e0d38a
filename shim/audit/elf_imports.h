// SPDX-License-Identifier: MIT
/*
 * The audit module's reading of a loaded object's imports, from memory (as mapped by the loader,
 * which reads the same tables to bind them), and whether libomp answers them all.
 */
#pragma once

#include <link.h>
#include <stdbool.h>
#include <stddef.h>

#include "elf_definitions.h"

#pragma GCC visibility push(hidden)

struct imports {
	const char *soname; /* DT_SONAME, or NULL */
	const ElfW(Sym) * symbols;
	size_t symbol_count;
	const char *strings;
	size_t strings_size;
	const ElfW(Half) * versions;
	const ElfW(Verneed) * needs;
	size_t need_count;
	/* where the loader searches for its dependencies: its DT_RUNPATH (or NULL), whether it
	 * has a DT_RPATH, and DF_1_NODEFLIB */
	const char *runpath;
	bool rpath, no_default_paths;
};

/* The imports of the loaded object `map`, from its dynamic section. */
void read_imports(const struct link_map *map, struct imports *o);

/* What libomp lacks of an object's imports (libomp_answers): a name, its version, or both (a
 * version libomp lacks, and the first name imported of it). NULL: not known. */
struct lack {
	const char *name;
	const char *version;
};

/*
 * Whether libomp answers every import of the object `map` that libgomp would: each version it
 * needs of `file` (libgomp's name), each symbol of such a version, and each unversioned OpenMP
 * name. And whether the bridge, under libgomp's name, has each such version. When not, `*lacking`
 * says the first it lacks.
 */
bool libomp_answers(const struct imports *imports, const char *file, const struct definitions *omp,
		    const struct definitions *bridge, struct lack *lacking);

#pragma GCC visibility pop
