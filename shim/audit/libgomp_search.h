// SPDX-License-Identifier: MIT
/*
 * Where the audit module's answer finds libgomp: whether the bridge, answered for libgomp.so.1,
 * finds the libgomp the object that needed it would have (DT_RUNPATH, DT_RPATH, DF_1_NODEFLIB,
 * LD_LIBRARY_PATH), and defines every version of that libgomp.
 */
#pragma once

#include <link.h>
#include <stdbool.h>

#include "elf_definitions.h"
#include "elf_imports.h"
#include "run_settings.h"

#pragma GCC visibility push(hidden)

/* The name GCC-built programs need: libgomp's soname. */
extern const char libgomp_soname[];

/*
 * Whether the bridge's search for libgomp (it needs libgomp.so.1, the bridge's loader being the
 * object `map` that needed libgomp, `o` its dynamic section) finds what the object's own search
 * would. Both walk the DT_RPATHs of the object and of those that loaded it, LD_LIBRARY_PATH, the
 * cache and the default directories; but the object's DT_RUNPATH is its own, and disables those
 * RPATHs for its search, and so is its DF_1_NODEFLIB. So, with a RUNPATH: none of its
 * directories holds a libgomp, and no object loaded has an RPATH.
 */
bool bridge_searches_alike(const struct link_map *map, const struct imports *o);

/*
 * Whether the bridge, answering for libgomp, has every version the libgomp its search loads
 * defines: an object loaded later (dlopen) is checked against the bridge's versions, so a libgomp
 * newer than the one the bridge was built beside (a version node added by an upgrade) must keep
 * libgomp, or such an object would fail to load. The libgomp is the one the loader's cache names
 * (TASKPROBE_LIBGOMP, the launcher's); one that LD_LIBRARY_PATH may name instead (a directory of
 * it holding a libgomp.so.1, or a path too long to read) keeps libgomp too.
 */
bool bridge_has_libgomps_versions(const struct settings *settings,
				  const struct definitions *bridge);

#pragma GCC visibility pop
