// SPDX-License-Identifier: MIT
/*
 * Names for the code a recording keeps as addresses (taskprobe_recording.h, version 5): its
 * sites, named here, by the converter, with the shim's own naming code (the console's), from
 * the modules' files and debug information; the recorded program never named them. A module's
 * file is used only when it is the file the program ran (its build id matches the recorded
 * one); else the file of that build id under /usr/lib/debug/.build-id (the module itself, as
 * Fedora links it, or its debug file); else the address is named by its module alone, never by
 * what another file says.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "taskprobe_recording.h"

/* A module of a recorded process image, as its TP_RECORD_MODULE record says. */
struct recorded_module {
	uint32_t number; /* in its segment, 1 up */
	uint64_t bias, start, end;
	uint32_t build_id_bytes;
	uint8_t build_id[TP_RECORD_MODULE_BUILD_ID_MAX];
	const char *path; /* at most TP_RECORD_MODULE_PATH_MAX bytes, NUL-terminated */
};

/*
 * Writes the name of `address`, code of module `m` (NULL: none known), a `kind` site (a call's
 * return address, or a function's first instruction), into `out`: as the console names code,
 * "function (file:line)" (the function the person wrote, "~" before a guessed line); without
 * line information "function+0xoff (module)"; "0xOFF (module)", OFF the address in the module's
 * file, when no file of the module's build id is at hand; "0xADDRESS" without a module.
 * `modules` are all of the image's (the DWARF session spans them). Names are kept by file,
 * address in it and kind: an image's or another's same site is named once.
 */
void code_name(const struct recorded_module *modules, size_t n_modules,
	       const struct recorded_module *m, uint64_t address, enum tp_site_code_kind kind,
	       char *out, size_t size);

/*
 * Whether code_name reads the modules' files (by default): without, every address is named by
 * its module alone (the fuzz target: an input's paths are never opened).
 */
void code_names_read_files(bool read);

/* The modules arrays given to code_name so far are freed: the next one given is taken anew
 * (code_name takes an image's modules, by their address, as those it named last). */
void code_names_images_freed(void);

/* Forgets every name and file (the memory given back). */
void code_names_free(void);
