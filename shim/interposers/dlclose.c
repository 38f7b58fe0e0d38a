// SPDX-License-Identifier: MIT
/*
 * Module unloading: dlclose is interposed only to tell the code map (code_map.h) and the naming of
 * source lines (source_lines.h) that a module may be gone, so that a module loaded later where it
 * lay (a program that loads its plug-ins in turn: the same free range is reused) is not taken for
 * it. Nothing else changes: the real dlclose's answer and dlerror's are the program's (the real
 * function resolved at load, by the core: no dlsym here to reset dlerror).
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "code_map.h"
#include "probes.h"
#include "real_symbol.h"
#include "source_lines.h"

TP_EXPORT int dlclose(void *handle)
{
	int ret = tp_real_dlclose(handle);
	tp_code_map_unloads();
	tp_source_lines_unloaded();
	return ret;
}
