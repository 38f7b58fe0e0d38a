// SPDX-License-Identifier: MIT
/*
 * Code addresses named from DWARF: "function (file:line)", with elfutils' libdwfl. libdw is
 * loaded privately (dlopen, RTLD_LOCAL) at the first name asked for, never linked: a program
 * with its own copy of elfutils keeps it, and a program whose sites are never named never loads
 * it. Not for hot paths: the first name in a module reads that module's line tables.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Writes "function (file:line)" for the code at `address` (the call itself: a return address
 * minus one), the function being the innermost one there, inlined or not, unless the compiler
 * made it (an outlined OpenMP region): then the function it was made from, the one the person
 * wrote. The file is its base name; a line the compiler left out (0) is the nearest one in the
 * function, written "~N". false, with nothing written, when the address has no line information
 * (no -g, or libdw is missing). Callers serialize: libdwfl's session is not thread-safe.
 */
bool tp_source_line(uintptr_t address, char *out, size_t size);

/* A module of another process: its file, and where it was loaded (its dlpi_addr). */
struct tp_source_module {
	const char *path;
	uintptr_t bias;
};

/*
 * From now on tp_source_line names addresses of `modules` (another process's, as its live
 * statistics or its recording keep them: the console, the converter), not of this process; a
 * session over them replaces the one before. false when none can be made (no libdw, no module).
 */
bool tp_source_lines_use_modules(const struct tp_source_module *modules, size_t n);
