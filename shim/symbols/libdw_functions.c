// SPDX-License-Identifier: MIT
/* libdw's functions, loaded privately (libdw_functions.h). */
#define _GNU_SOURCE
#include "libdw_functions.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include "library_load.h"
#include "real_symbol.h"

struct tp_libdw tp_dw;

static const struct {
	const char *name;
	size_t offset;
} dw_symbols[] = {
#define DW_SYMBOL(field, symbol)                                                                   \
	{                                                                                          \
#symbol, offsetof(struct tp_libdw, field)                                          \
	}
	DW_SYMBOL(begin, dwfl_begin),
	DW_SYMBOL(report_begin, dwfl_report_begin),
	DW_SYMBOL(report_begin_add, dwfl_report_begin_add),
	DW_SYMBOL(linux_proc_report, dwfl_linux_proc_report),
	DW_SYMBOL(end, dwfl_end),
	DW_SYMBOL(report_end, dwfl_report_end),
	DW_SYMBOL(addrmodule, dwfl_addrmodule),
	DW_SYMBOL(module_addrdie, dwfl_module_addrdie),
	DW_SYMBOL(module_getdwarf, dwfl_module_getdwarf),
	DW_SYMBOL(next_unit, dwarf_next_unit),
	DW_SYMBOL(offdie, dwarf_offdie),
	DW_SYMBOL(haspc, dwarf_haspc),
	DW_SYMBOL(ranges, dwarf_ranges),
	DW_SYMBOL(entrypc, dwarf_entrypc),
	DW_SYMBOL(getsrc_die, dwarf_getsrc_die),
	DW_SYMBOL(lineno, dwarf_lineno),
	DW_SYMBOL(linesrc, dwarf_linesrc),
	DW_SYMBOL(child, dwarf_child),
	DW_SYMBOL(siblingof, dwarf_siblingof),
	DW_SYMBOL(tag, dwarf_tag),
	DW_SYMBOL(hasattr, dwarf_hasattr),
	DW_SYMBOL(formflag, dwarf_formflag),
	DW_SYMBOL(decl_file, dwarf_decl_file),
	DW_SYMBOL(formudata, dwarf_formudata),
	DW_SYMBOL(decl_line, dwarf_decl_line),
	DW_SYMBOL(getsrclines, dwarf_getsrclines),
	DW_SYMBOL(onesrcline, dwarf_onesrcline),
	DW_SYMBOL(lineaddr, dwarf_lineaddr),
	DW_SYMBOL(lineendsequence, dwarf_lineendsequence),
	DW_SYMBOL(linebeginstatement, dwarf_linebeginstatement),
	DW_SYMBOL(attr_integrate, dwarf_attr_integrate),
	DW_SYMBOL(formstring, dwarf_formstring),
	DW_SYMBOL(find_elf, dwfl_linux_proc_find_elf),
	DW_SYMBOL(module_build_id, dwfl_module_build_id),
	DW_SYMBOL(module_report_build_id, dwfl_module_report_build_id),
	DW_SYMBOL(report_module, dwfl_report_module),
	DW_SYMBOL(module_info, dwfl_module_info),
	DW_SYMBOL(elf_begin, elf_begin),
	DW_SYMBOL(elf_end, elf_end),
	DW_SYMBOL(getphdrnum, elf_getphdrnum),
	DW_SYMBOL(getphdr, gelf_getphdr),
	DW_SYMBOL(elf_build_id, dwelf_elf_gnu_build_id),
#undef DW_SYMBOL
};

/* libdw as tp_libdw_load loaded it: 1 loaded (handle), -1 cannot be (or unloaded), 0 not yet. */
static int loaded;
static void *handle;

bool tp_libdw_load(void)
{
	if (loaded != 0)
		return loaded > 0;
	loaded = -1;
	void *lib = tp_library_load("libdw.so.1", RTLD_NOW | RTLD_LOCAL, NULL, 0);
	if (lib == NULL)
		return false;
	handle = lib;
	for (size_t i = 0; i < sizeof dw_symbols / sizeof dw_symbols[0]; i++) {
		void *f = dlsym(lib, dw_symbols[i].name);
		if (f == NULL)
			return false;
		memcpy((char *)&tp_dw + dw_symbols[i].offset, &f, sizeof f);
	}
	loaded = 1;
	return true;
}

bool tp_libdw_loaded(void)
{
	return loaded > 0;
}

void tp_libdw_unload(void)
{
	loaded = -1; /* for good */
	if (handle != NULL)
		tp_real_dlclose(handle);
	handle = NULL;
}
