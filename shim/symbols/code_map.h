// SPDX-License-Identifier: MIT
/*
 * Where code lies: the process's modules (the program, its libraries) as the dynamic loader
 * reports them, so that a code address can be kept as (module, address) and named later, by a
 * process of its own that reads the module's file and debug information (the console, the
 * converter): naming never runs in the program's threads. Nothing here reads a file or DWARF;
 * a new module is looked for (dl_iterate_phdr) only when an address falls in none known.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define TP_CODE_MODULES_MAX  256
#define TP_CODE_PATH_MAX     1024
#define TP_CODE_BUILD_ID_MAX 32

struct tp_code_module {
	uintptr_t bias;       /* the loader's dlpi_addr: file addresses + bias = addresses here */
	uintptr_t start, end; /* its loaded segments span [start, end) */
	uint32_t build_id_size;
	uint8_t build_id[TP_CODE_BUILD_ID_MAX]; /* NT_GNU_BUILD_ID, as loaded */
	/* the file, the main program's from /proc/self/exe (empty if first seen under a filter) */
	char path[TP_CODE_PATH_MAX];
};

/*
 * The module holding code address `address`: its index + 1 (tp_code_module(index)), or 0 when
 * none does (JIT code, the vDSO without a file) or the table is full. Lock-free for a known
 * module.
 */
uint32_t tp_code_module_of(uintptr_t address);

/*
 * A system call filter comes (the lifecycle says so): the modules loaded so far are added now,
 * the main program's path read while nothing refuses it (process.h: no call after the filter).
 */
void tp_code_map_before_seccomp(void);

/* Module `index` (0-based, below tp_code_modules()), which stays as it is once published. */
const struct tp_code_module *tp_code_module(uint32_t index);
uint32_t tp_code_modules(void);

/*
 * A module may have been unloaded (dlclose's interposer): the next look-up checks which are still
 * loaded. One that is not keeps its entry (tp_code_module), but no longer holds any address for
 * tp_code_module_of: another module loaded where it lay is added as new.
 */
void tp_code_map_unloads(void);

/*
 * The lifecycle's fork handlers (lifecycle.c): the modules' lock held across a fork, taken after
 * every other lock of the shim's (a thread that holds it takes no other but the loader's).
 */
void tp_code_map_prepare_fork(void);
void tp_code_map_after_fork(void);

/*
 * The module that holds `address`, or held it before it was unloaded, for naming the code of one
 * unloaded since (source_lines.h's tp_unloaded_module_finder, given at start). False when none
 * did, or when more than one unloaded since did (a program that loads its plug-ins in turn where
 * the last one lay): which one ran that code is not known here.
 */
struct tp_source_module;
bool tp_code_module_held(uintptr_t address, struct tp_source_module *m, uintptr_t *start,
			 uintptr_t *end);

/*
 * Whether module `index` (tp_code_module's) has been unloaded since it was seen: then its file
 * (an absolute path) into *m and where it lay into [*start, *end), as tp_code_module_held gives
 * them. For naming code kept with its module (spawn_site.h's keys): a module loaded where it lay
 * since holds other code.
 */
bool tp_code_module_unloaded(uint32_t index, struct tp_source_module *m, uintptr_t *start,
			     uintptr_t *end);

/*
 * Whether `address` lies in a library programs call through rather than write: the C and C++
 * standard libraries, the dynamic loader, libgcc, OpenMP's runtimes, the sanitizers'. A wait such a
 * library makes (pthread_join, std::condition_variable::wait) is named by the program's call into
 * it.
 */
bool tp_code_in_system_library(uintptr_t address);
