// SPDX-License-Identifier: MIT
/* Naming code addresses from DWARF line tables with libdwfl, loaded privately (source_lines.h). */
#define _GNU_SOURCE
#include "source_lines.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <fcntl.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The libdw functions used, resolved from one table at load. */
static struct {
	Dwfl *(*begin)(const Dwfl_Callbacks *);
	void (*report_begin)(Dwfl *);
	int (*linux_proc_report)(Dwfl *, pid_t);
	int (*report_end)(Dwfl *, int (*)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *),
			  void *);
	Dwfl_Module *(*addrmodule)(Dwfl *, Dwarf_Addr);
	Dwarf_Die *(*module_addrdie)(Dwfl_Module *, Dwarf_Addr, Dwarf_Addr *);
	Dwarf *(*module_getdwarf)(Dwfl_Module *, Dwarf_Addr *);
	int (*next_unit)(Dwarf *, Dwarf_Off, Dwarf_Off *, size_t *, Dwarf_Half *, Dwarf_Off *,
			 uint8_t *, uint8_t *, uint64_t *, Dwarf_Off *);
	Dwarf_Die *(*offdie)(Dwarf *, Dwarf_Off, Dwarf_Die *);
	int (*haspc)(Dwarf_Die *, Dwarf_Addr);
	Dwarf_Line *(*getsrc_die)(Dwarf_Die *, Dwarf_Addr);
	int (*lineno)(Dwarf_Line *, int *);
	const char *(*linesrc)(Dwarf_Line *, Dwarf_Word *, Dwarf_Word *);
	int (*getscopes)(Dwarf_Die *, Dwarf_Addr, Dwarf_Die **);
	int (*tag)(Dwarf_Die *);
	Dwarf_Attribute *(*attr_integrate)(Dwarf_Die *, unsigned int, Dwarf_Attribute *);
	const char *(*formstring)(Dwarf_Attribute *);
	int (*find_elf)(Dwfl_Module *, void **, const char *, Dwarf_Addr, char **, Elf **);
	int (*module_build_id)(Dwfl_Module *, const unsigned char **, GElf_Addr *);
} dw;

static const struct {
	const char *name;
	size_t offset;
} dw_symbols[] = {
#define DW_SYMBOL(field, symbol)                                                                   \
	{                                                                                          \
#symbol, offsetof(__typeof__(dw), field)                                           \
	}
	DW_SYMBOL(begin, dwfl_begin),
	DW_SYMBOL(report_begin, dwfl_report_begin),
	DW_SYMBOL(linux_proc_report, dwfl_linux_proc_report),
	DW_SYMBOL(report_end, dwfl_report_end),
	DW_SYMBOL(addrmodule, dwfl_addrmodule),
	DW_SYMBOL(module_addrdie, dwfl_module_addrdie),
	DW_SYMBOL(module_getdwarf, dwfl_module_getdwarf),
	DW_SYMBOL(next_unit, dwarf_next_unit),
	DW_SYMBOL(offdie, dwarf_offdie),
	DW_SYMBOL(haspc, dwarf_haspc),
	DW_SYMBOL(getsrc_die, dwarf_getsrc_die),
	DW_SYMBOL(lineno, dwarf_lineno),
	DW_SYMBOL(linesrc, dwarf_linesrc),
	DW_SYMBOL(getscopes, dwarf_getscopes),
	DW_SYMBOL(tag, dwarf_tag),
	DW_SYMBOL(attr_integrate, dwarf_attr_integrate),
	DW_SYMBOL(formstring, dwarf_formstring),
	DW_SYMBOL(find_elf, dwfl_linux_proc_find_elf),
	DW_SYMBOL(module_build_id, dwfl_module_build_id),
#undef DW_SYMBOL
};

/* Where Debian (and most distributions) put separate debug files. */
#define DEBUG_DIR      "/usr/lib/debug"
#define DEBUG_PATH_MAX 4096

/* Opens `path` for libdwfl, which takes the descriptor and the name (malloc'ed). */
static int open_debug_file(const char *path, char **debuginfo_file_name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		*debuginfo_file_name = strdup(path);
	return fd;
}

/*
 * A module's separate debug file, looked up where it lies on this machine: by build id under
 * /usr/lib/debug/.build-id, else by its .gnu_debuglink name beside the module or under
 * /usr/lib/debug. Never libdw's standard lookup: that one may fetch files from the network
 * (debuginfod) from inside the traced program, and loads libdebuginfod with curl and dozens of
 * libraries whose destructors would run at the program's exit. Only asked when the module has
 * no DWARF of its own.
 */
static int find_local_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
				Dwarf_Addr base, const char *file, const char *debuglink,
				GElf_Word crc, char **debuginfo_file_name)
{
	(void)userdata, (void)modname, (void)base, (void)crc;
	char path[DEBUG_PATH_MAX];
	const unsigned char *id;
	GElf_Addr id_address;
	int id_length = dw.module_build_id(mod, &id, &id_address);
	if (id_length > 1) {
		int n = snprintf(path, sizeof path, DEBUG_DIR "/.build-id/%02x/", id[0]);
		for (int i = 1; i < id_length && n < (int)sizeof path - 3; i++)
			n += snprintf(path + n, sizeof path - (size_t)n, "%02x", id[i]);
		snprintf(path + n, sizeof path - (size_t)n, ".debug");
		int fd = open_debug_file(path, debuginfo_file_name);
		if (fd >= 0)
			return fd;
	}
	if (debuglink == NULL || file == NULL)
		return -1;
	const char *slash = strrchr(file, '/');
	int dir_length = slash != NULL ? (int)(slash - file) : 0;
	snprintf(path, sizeof path, "%.*s/%s", dir_length, file, debuglink);
	int fd = strcmp(path, file) != 0 ? open_debug_file(path, debuginfo_file_name) : -1;
	if (fd >= 0)
		return fd;
	snprintf(path, sizeof path, DEBUG_DIR "%.*s/%s", dir_length, file, debuglink);
	return open_debug_file(path, debuginfo_file_name);
}

/*
 * libdwfl opens a module's file (and keeps it open for the session) without O_CLOEXEC: the
 * descriptor is marked so at once, so that children the program execs do not inherit it.
 */
static int find_elf_closed_on_exec(Dwfl_Module *mod, void **userdata, const char *modname,
				   Dwarf_Addr base, char **file_name, Elf **elfp)
{
	int fd = dw.find_elf(mod, userdata, modname, base, file_name, elfp);
	if (fd >= 0)
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

static Dwfl_Callbacks callbacks = {.find_elf = find_elf_closed_on_exec,
				   .find_debuginfo = find_local_debuginfo};
static Dwfl *session;
static bool unavailable;

/* The session over this process's modules, started now if it is not yet; NULL if it cannot be. */
static Dwfl *get_session(void)
{
	if (session != NULL || unavailable)
		return session;
	unavailable = true;
	void *lib = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL)
		return NULL;
	for (size_t i = 0; i < sizeof dw_symbols / sizeof dw_symbols[0]; i++) {
		void *f = dlsym(lib, dw_symbols[i].name);
		if (f == NULL)
			return NULL;
		memcpy((char *)&dw + dw_symbols[i].offset, &f, sizeof f);
	}
	Dwfl *fresh = dw.begin(&callbacks);
	if (fresh == NULL)
		return NULL;
	if (dw.linux_proc_report(fresh, getpid()) != 0 || dw.report_end(fresh, NULL, NULL) != 0)
		return NULL;
	session = fresh;
	unavailable = false;
	return session;
}

/* The module of `address`; the process's modules are read again once if none has it (dlopen). */
static Dwfl_Module *module_of(Dwfl *dwfl, uintptr_t address)
{
	Dwfl_Module *mod = dw.addrmodule(dwfl, address);
	if (mod == NULL) {
		dw.report_begin(dwfl);
		dw.linux_proc_report(dwfl, getpid());
		dw.report_end(dwfl, NULL, NULL);
		mod = dw.addrmodule(dwfl, address);
	}
	return mod;
}

/*
 * The compile unit whose code holds `address`, and the module's bias in *bias. libdw finds it by
 * .debug_aranges, which clang does not emit by default; without them, the units are searched by
 * their ranges (once per new site, so the cost stays at naming).
 */
static Dwarf_Die *unit_of(Dwfl_Module *mod, uintptr_t address, Dwarf_Addr *bias, Dwarf_Die *unit)
{
	Dwarf_Die *found = dw.module_addrdie(mod, address, bias);
	if (found != NULL)
		return found;
	Dwarf *dwarf = dw.module_getdwarf(mod, bias);
	size_t header_size;
	for (Dwarf_Off offset = 0, next;
	     dwarf != NULL && dw.next_unit(dwarf, offset, &next, &header_size, NULL, NULL, NULL,
					   NULL, NULL, NULL) == 0;
	     offset = next)
		if (dw.offdie(dwarf, offset + header_size, unit) != NULL &&
		    dw.haspc(unit, address - *bias) > 0)
			return unit;
	return NULL;
}

/* The name of the innermost function, inlined or not, whose code holds `pc` in `unit`, or NULL. */
static const char *function_at(Dwarf_Die *unit, Dwarf_Addr pc)
{
	Dwarf_Die *scopes = NULL;
	const char *name = NULL;
	int n = dw.getscopes(unit, pc, &scopes);
	for (int i = 0; i < n && name == NULL; i++) {
		int tag = dw.tag(&scopes[i]);
		Dwarf_Attribute attr;
		if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) &&
		    dw.attr_integrate(&scopes[i], DW_AT_name, &attr) != NULL)
			name = dw.formstring(
				&attr); /* in the module's string table: outlives scopes */
	}
	free(scopes);
	return name;
}

bool tp_source_line(uintptr_t address, char *out, size_t size)
{
	Dwfl *dwfl = get_session();
	Dwfl_Module *mod = dwfl != NULL ? module_of(dwfl, address) : NULL;
	Dwarf_Addr bias = 0;
	Dwarf_Die storage, *unit = mod != NULL ? unit_of(mod, address, &bias, &storage) : NULL;
	Dwarf_Line *line = unit != NULL ? dw.getsrc_die(unit, address - bias) : NULL;
	int lineno = 0;
	const char *file = line != NULL && dw.lineno(line, &lineno) == 0
				   ? dw.linesrc(line, NULL, NULL)
				   : NULL;
	const char *function = file != NULL ? function_at(unit, address - bias) : NULL;
	if (file == NULL || function == NULL || lineno <= 0)
		return false;
	/*
	 * clang names the debug copy of an outlined OpenMP region ".omp_outlined._debug__.N"; the
	 * name the ELF symbols, perf and gdb show is ".omp_outlined..N".
	 */
	static const char debug_infix[] = "_debug__";
	const char *infix = strstr(function, debug_infix);
	int before = infix != NULL ? (int)(infix - function) : (int)strlen(function);
	const char *after = infix != NULL ? infix + sizeof debug_infix - 1 : "";
	const char *base = strrchr(file, '/');
	snprintf(out, size, "%.*s%s (%s:%d)", before, function, after,
		 base != NULL ? base + 1 : file, lineno);
	return true;
}
