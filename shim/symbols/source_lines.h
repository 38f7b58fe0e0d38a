// SPDX-License-Identifier: MIT
/*
 * Code addresses named from DWARF: "function (file:line)", with elfutils' libdwfl. libdw is
 * loaded privately (dlopen, RTLD_LOCAL) at the first name asked for, never linked: a program
 * with its own copy of elfutils keeps it, and a program whose sites are never named never loads
 * it. Not for hot paths: the first name in a module reads that module's line tables. A module
 * without DWARF is named from its debug file, by build id under /usr/lib/debug, else by its
 * .gnu_debuglink beside it or there: only a regular file (opened without waiting: a fifo's open
 * waits for a writer) that no other user than this process's and root can write (libdw maps it:
 * one cut short under it would be a SIGBUS).
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

/*
 * Ends the session and unloads libdw if tp_source_line loaded it (dlclose: its destructors, and
 * its dependencies' that nothing else holds, run now), for good: tp_source_line says false from
 * now on. Never loaded again: after the libraries' destructors (exit's last steps) a dlopen
 * starts libc and the loader over again, under the exit's own stdio. Callers serialize it with
 * tp_source_line.
 */
void tp_source_lines_close(void);

/*
 * The length of the name of the function a person wrote that GCC's OpenMP outlining made the
 * symbol `name` from: 4 for "main._omp_fn.0" or "main._omp_cpyfn.1"; 0 for any other name.
 */
size_t tp_gcc_outlined_from(const char *name);

/*
 * Whether the symbol `name` is one a compiler made, which means nothing to the person who wrote
 * the construct: GCC's outlined regions (tp_gcc_outlined_from), and any name starting with a dot
 * (clang's ".omp_outlined..5", ".omp_task_entry."), which no C or C++ function has.
 */
bool tp_compiler_made_name(const char *name);

/*
 * A module of another process: its file, and where it was loaded (its dlpi_addr); its build id
 * when known (build_id_size 0: not), which its file must have to be read.
 */
struct tp_source_module {
	const char *path;
	uintptr_t bias;
	const uint8_t *build_id;
	size_t build_id_size;
};

/*
 * From now on tp_source_line names addresses of `modules` (another process's, as its live
 * statistics or its recording keep them: the console, the converter), not of this process; a
 * session over them replaces the one before. false when none can be made (no libdw, no module).
 * A module's file is read only if it is a regular file (not under /proc or /sys) of its build id,
 * with pread (never mapped: a file cut short meanwhile is not a SIGBUS). Its debug file is as
 * this process's own modules' (tp_source_line): found by build id or .gnu_debuglink.
 */
bool tp_source_lines_use_modules(const struct tp_source_module *modules, size_t n);

/*
 * Where a module this process has unloaded (dlclose) lay: its file (path, bias, build id; the
 * strings stay valid) into *m and the addresses it spanned into [*start, *end), from the first
 * page; false if it knows none holding `address`. Asked only for an address no module loaded now
 * holds: the shim gives its code map's (code_map.h), which keeps every module it saw; the console
 * and the converter give none.
 */
typedef bool tp_unloaded_module_finder(uintptr_t address, struct tp_source_module *m,
				       uintptr_t *start, uintptr_t *end);
void tp_source_lines_find_unloaded(tp_unloaded_module_finder *find);
/* The finder's answer, for a module whose path is absolute; false without a finder. */
bool tp_source_module_unloaded(uintptr_t address, struct tp_source_module *m, uintptr_t *start,
			       uintptr_t *end);

/* A module of this process may have been unloaded (dlclose's interposer): the session's list of
 * this process's modules is read again before its next name. */
void tp_source_lines_unloaded(void);

/*
 * tp_source_line's name of `address` in module `m`, one this process unloaded (dlclose), read
 * from its file alone (of its build id): another module may lie where it lay now, whose code the
 * process's own modules would name instead (an MPI library's plug-in unloaded at MPI_Finalize,
 * then libdw loaded there for the exit report's names). false when none is found.
 */
bool tp_source_line_unloaded(const struct tp_source_module *m, uintptr_t address, char *out,
			     size_t size);
