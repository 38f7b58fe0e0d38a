// SPDX-License-Identifier: MIT
/*
 * libdw (and the libelf it loads), loaded privately with dlopen when code is first named, so that
 * a program that never asks for names never maps it, and unloaded before the destructors
 * (tp_libdw_unload): its functions through one table, tp_dw.
 */
#pragma once

#include <elfutils/libdwfl.h>
#include <stdbool.h>

/* The libdw functions the shim uses, resolved from one table at load (tp_libdw_load). */
struct tp_libdw {
	Dwfl *(*begin)(const Dwfl_Callbacks *);
	void (*report_begin)(Dwfl *);
	void (*report_begin_add)(Dwfl *);
	int (*linux_proc_report)(Dwfl *, pid_t);
	void (*end)(Dwfl *);
	int (*report_end)(Dwfl *, int (*)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *),
			  void *);
	Dwfl_Module *(*addrmodule)(Dwfl *, Dwarf_Addr);
	Dwarf_Die *(*module_addrdie)(Dwfl_Module *, Dwarf_Addr, Dwarf_Addr *);
	Dwarf *(*module_getdwarf)(Dwfl_Module *, Dwarf_Addr *);
	int (*next_unit)(Dwarf *, Dwarf_Off, Dwarf_Off *, size_t *, Dwarf_Half *, Dwarf_Off *,
			 uint8_t *, uint8_t *, uint64_t *, Dwarf_Off *);
	Dwarf_Die *(*offdie)(Dwarf *, Dwarf_Off, Dwarf_Die *);
	int (*haspc)(Dwarf_Die *, Dwarf_Addr);
	ptrdiff_t (*ranges)(Dwarf_Die *, ptrdiff_t, Dwarf_Addr *, Dwarf_Addr *, Dwarf_Addr *);
	int (*entrypc)(Dwarf_Die *, Dwarf_Addr *);
	Dwarf_Line *(*getsrc_die)(Dwarf_Die *, Dwarf_Addr);
	int (*lineno)(Dwarf_Line *, int *);
	const char *(*linesrc)(Dwarf_Line *, Dwarf_Word *, Dwarf_Word *);
	int (*child)(Dwarf_Die *, Dwarf_Die *);
	int (*siblingof)(Dwarf_Die *, Dwarf_Die *);
	int (*tag)(Dwarf_Die *);
	int (*hasattr)(Dwarf_Die *, unsigned int);
	int (*formflag)(Dwarf_Attribute *, bool *);
	const char *(*decl_file)(Dwarf_Die *);
	int (*formudata)(Dwarf_Attribute *, Dwarf_Word *);
	int (*decl_line)(Dwarf_Die *, int *);
	int (*getsrclines)(Dwarf_Die *, Dwarf_Lines **, size_t *);
	Dwarf_Line *(*onesrcline)(Dwarf_Lines *, size_t);
	int (*lineaddr)(Dwarf_Line *, Dwarf_Addr *);
	int (*lineendsequence)(Dwarf_Line *, bool *);
	int (*linebeginstatement)(Dwarf_Line *, bool *);
	Dwarf_Attribute *(*attr_integrate)(Dwarf_Die *, unsigned int, Dwarf_Attribute *);
	const char *(*formstring)(Dwarf_Attribute *);
	int (*find_elf)(Dwfl_Module *, void **, const char *, Dwarf_Addr, char **, Elf **);
	int (*module_build_id)(Dwfl_Module *, const unsigned char **, GElf_Addr *);
	int (*module_report_build_id)(Dwfl_Module *, const unsigned char *, size_t, GElf_Addr);
	Dwfl_Module *(*report_module)(Dwfl *, const char *, Dwarf_Addr, Dwarf_Addr);
	const char *(*module_info)(Dwfl_Module *, void ***, Dwarf_Addr *, Dwarf_Addr *,
				   Dwarf_Addr *, Dwarf_Addr *, const char **, const char **);
	/* libelf's, which libdw loads */
	Elf *(*elf_begin)(int, Elf_Cmd, Elf *);
	int (*elf_end)(Elf *);
	int (*getphdrnum)(Elf *, size_t *);
	GElf_Phdr *(*getphdr)(Elf *, int, GElf_Phdr *);
	ssize_t (*elf_build_id)(Elf *, const void **);
};

extern struct tp_libdw tp_dw __attribute__((visibility("hidden")));

/* Loads libdw once, privately, and fills tp_dw; false if it cannot be, or after tp_libdw_unload. */
bool tp_libdw_load(void);
/* Whether tp_libdw_load loaded it (and tp_libdw_unload has not unloaded it). */
bool tp_libdw_loaded(void);
/* Unloads it, for good: tp_libdw_load says false from now on. */
void tp_libdw_unload(void);
