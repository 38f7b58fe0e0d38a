// SPDX-License-Identifier: MIT
/* The audit module's settings: the run's, from the environment the process started with. */
#pragma once

#pragma GCC visibility push(hidden)

struct settings {
	char libomp[4096];       /* TASKPROBE_LIBOMP, "" if unset or too long */
	char bridge[4096];       /* TASKPROBE_LIBOMP_BRIDGE, likewise */
	char notes[4096];        /* TASKPROBE_LIBOMP_NOTES, likewise */
	char libgomp[4096];      /* TASKPROBE_LIBGOMP: the libgomp the loader's cache names */
	char library_path[4096]; /* LD_LIBRARY_PATH ("" also when too long: libgomp_search.c) */
	/* LD_TRACE_LOADED_OBJECTS (ldd's listing: the module answers only the launcher's own,
	 * TASKPROBE_LIBOMP_LISTED, so that a program's ldd lists what it always did) */
	char listing[8], listed[8];
};

/*
 * Reads /proc/self/environ (NAME=VALUE entries, each ended by a NUL) as it comes, a block at a
 * time: an entry may span blocks. A value that does not fit is taken as unset.
 */
void read_settings(struct settings *s);

#pragma GCC visibility pop
