// SPDX-License-Identifier: MIT
/*
 * Names for the code addresses a process's live statistics keep (its spawn sites, its sampled
 * spawn stacks, its threads' start routines): the shim keeps addresses and the modules they lie in,
 * and the console names them, with the shim's own naming code (shim/symbols/source_lines.c and
 * shim/symbols/symbolize.c: "function (file:line)", else "function+0xoff (module)"), so that no
 * debug information is ever read in the program's threads. The modules' paths are the file owner's
 * to choose: their files are read as that user, in the console's process when it is the console's
 * user, else in a child that became the user; unnamed, an address is "0xOFF (module)".
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "live_view.h"

/*
 * Reads the module table of `f` (again: the process loads libraries as it runs) and makes the
 * naming session over its modules; a file of another process than the last one starts afresh.
 */
void live_names_modules(const struct live_file *f);

/*
 * The name of return address `pc` in module `module` (TP_LIVE_NO_MODULE: whichever module of the
 * table holds it): a spawn site's (`site`: its module by file name alone) or a stack frame's.
 * Not escaped. Cached.
 */
void live_name(uint64_t pc, uint32_t module, bool site, char *out, size_t size);

/*
 * The name of the function entered at `entry` in module `module` (a thread's start routine):
 * "function (file:line)", else "function (module file name)". Not escaped. Cached.
 */
void live_name_function(uint64_t entry, uint32_t module, char *out, size_t size);
