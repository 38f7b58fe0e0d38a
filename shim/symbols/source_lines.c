// SPDX-License-Identifier: MIT
/* Naming code addresses from DWARF line tables with libdwfl, loaded privately (source_lines.h). */
#define _GNU_SOURCE
#include "source_lines.h"

#include <dwarf.h>
#include <fcntl.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libdw_functions.h"
#include "real_symbol.h"
#include "unit_functions.h"

/* Where Debian (and most distributions) put separate debug files. */
#define DEBUG_DIR      "/usr/lib/debug"
#define DEBUG_PATH_MAX 4096

/*
 * Opens `path`, a file to read ELF from: never a path under /proc or /sys (the kernel's files say
 * they are regular), opened without waiting (a fifo's open waits for a writer for ever), and
 * only if it is a regular file. The paths come from files (a module's .gnu_debuglink, another
 * process's table of modules). -1 if it is not one to read.
 */
static int open_elf_file(const char *path)
{
	if (path[0] != '/' || strncmp(path, "/proc/", 6) == 0 || strncmp(path, "/sys/", 5) == 0)
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		tp_real_close(fd);
		return -1;
	}
	return fd;
}

/*
 * Whether the file open at `fd` is one no other user can change: this process's user's or root's,
 * that neither its group nor others can write. libdwfl maps a debug file: one another user cut
 * short under it would kill this process (SIGBUS).
 */
static bool no_other_user_writes(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && (st.st_uid == geteuid() || st.st_uid == 0) &&
	       (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* Opens `path` for libdwfl, which takes the descriptor and the name (malloc'ed). */
static int open_debug_file(const char *path, char **debuginfo_file_name)
{
	int fd = open_elf_file(path);
	if (fd >= 0 && !no_other_user_writes(fd)) {
		tp_real_close(fd);
		return -1;
	}
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
	int id_length = tp_dw.module_build_id(mod, &id, &id_address);
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
	int fd = tp_dw.find_elf(mod, userdata, modname, base, file_name, elfp);
	if (fd >= 0)
		(void)tp_real_fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/*
 * A module of another process, opened and read by tp_source_lines_use_modules: libdwfl takes the
 * file and its ELF (read with pread, never mapped: a file cut short meanwhile is not a SIGBUS)
 * when it first reads the module.
 */
struct offline_module {
	int fd;
	Elf *elf;
	char *path;
};
static struct offline_module *offline_modules;
static size_t n_offline_modules;

/* Gives libdwfl a module's file as tp_source_lines_use_modules opened it. */
static int find_offline_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			    char **file_name, Elf **elfp)
{
	(void)mod, (void)modname, (void)base;
	struct offline_module *m = *userdata;
	if (m == NULL || m->elf == NULL)
		return -1;
	*file_name = m->path;
	*elfp = m->elf;
	int fd = m->fd;
	m->path = NULL, m->elf = NULL, m->fd = -1; /* libdwfl's now */
	return fd;
}

static Dwfl_Callbacks callbacks = {.find_elf = find_elf_closed_on_exec,
				   .find_debuginfo = find_local_debuginfo};
/* For modules of another process: their files as tp_source_lines_use_modules opened them. */
static const Dwfl_Callbacks offline_callbacks = {.find_elf = find_offline_elf,
						 .find_debuginfo = find_local_debuginfo};
static Dwfl *session;
static bool unavailable;
/* The session is over modules given by tp_source_lines_use_modules, not this process's own. */
static bool offline;

/* Modules this process unloaded (tp_source_lines_unloaded's count), and how many the session's
 * list of them has seen. */
static uint32_t unloads, unloads_listed;

void tp_source_lines_unloaded(void)
{
	__atomic_add_fetch(&unloads, 1, __ATOMIC_RELEASE);
}

/*
 * The session over this process's modules, started now if it is not yet; NULL if it cannot be.
 * Its list of modules is read again after a module was unloaded: a module loaded where it lay
 * since would be named by its DWARF (a tracer of task-spawn names sites at their spawns: a
 * plug-in loaded where another lay had its sites named by the other's lines).
 */
static Dwfl *get_session(void)
{
	uint32_t seen = __atomic_load_n(&unloads, __ATOMIC_ACQUIRE);
	if (session != NULL && !offline && seen != unloads_listed) {
		/* the list ended whatever the read gave (tried again at the next name if it failed) */
		tp_unit_functions_forget(); /* their DIEs are the session's */
		tp_dw.report_begin(session);
		bool read = tp_dw.linux_proc_report(session, getpid()) == 0;
		if (tp_dw.report_end(session, NULL, NULL) == 0 && read)
			unloads_listed = seen;
	}
	if (session != NULL || unavailable || offline)
		return session;
	unavailable = true;
	if (!tp_libdw_load())
		return NULL;
	Dwfl *fresh = tp_dw.begin(&callbacks);
	if (fresh == NULL)
		return NULL;
	if (tp_dw.linux_proc_report(fresh, getpid()) != 0 ||
	    tp_dw.report_end(fresh, NULL, NULL) != 0)
		return NULL;
	session = fresh;
	unloads_listed = seen;
	unavailable = false;
	return session;
}

/* Closes what open_offline_module opened of module `m`. */
static void close_offline_module(struct offline_module *m)
{
	if (m->elf != NULL)
		tp_dw.elf_end(m->elf);
	if (m->fd >= 0)
		tp_real_close(m->fd);
	free(m->path);
}

/* The files of the modules libdwfl did not take (never read), closed. */
static void close_offline_modules(void)
{
	for (size_t i = 0; i < n_offline_modules; i++)
		close_offline_module(&offline_modules[i]);
	free(offline_modules);
	offline_modules = NULL;
	n_offline_modules = 0;
}

/*
 * Opens module `given`'s file and reads its ELF into `m`: false when it is not a file to read
 * (open_elf_file), not ELF, or not of the build id given.
 */
static bool open_offline_module(const struct tp_source_module *given, struct offline_module *m)
{
	*m = (struct offline_module){.fd = open_elf_file(given->path)};
	if (m->fd < 0)
		return false;
	m->elf = tp_dw.elf_begin(m->fd, ELF_C_READ, NULL);
	const void *id = NULL;
	ssize_t id_size = m->elf != NULL ? tp_dw.elf_build_id(m->elf, &id) : -1;
	bool same = given->build_id_size == 0 ||
		    (id_size == (ssize_t)given->build_id_size &&
		     memcmp(id, given->build_id, given->build_id_size) == 0);
	m->path = same && m->elf != NULL ? strdup(given->path) : NULL;
	return m->path != NULL;
}

/*
 * Where module `m`, loaded at `bias`, lies: from its first loadable segment's page (which libdwfl
 * takes for the bias's origin) to its last segment's end; false when it has none.
 */
static bool loaded_range(Elf *elf, uintptr_t bias, Dwarf_Addr *low, Dwarf_Addr *high)
{
	size_t n;
	bool first = true;
	if (tp_dw.getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (tp_dw.getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD)
			continue;
		if (first)
			*low = bias + (ph.p_vaddr & -(ph.p_align != 0 ? ph.p_align : 1));
		if (first || bias + ph.p_vaddr + ph.p_memsz > *high)
			*high = bias + ph.p_vaddr + ph.p_memsz;
		first = false;
	}
	return !first && *high > *low;
}

bool tp_source_lines_use_modules(const struct tp_source_module *modules, size_t n)
{
	tp_unit_functions_forget(); /* their DIEs are the session's */
	if (session != NULL)
		tp_dw.end(session);
	session = NULL;
	offline = true;
	close_offline_modules();
	if (n == 0 || !tp_libdw_load())
		return false;
	offline_modules = calloc(n, sizeof *offline_modules);
	Dwfl *fresh = offline_modules != NULL ? tp_dw.begin(&offline_callbacks) : NULL;
	if (fresh == NULL)
		return false;
	tp_dw.report_begin(fresh);
	for (size_t i = 0; i < n; i++) {
		struct offline_module *m = &offline_modules[n_offline_modules++];
		Dwarf_Addr low = 0, high = 0;
		if (!open_offline_module(&modules[i], m))
			continue; /* its file, if open, closed with the others' */
		Dwfl_Module *mod = loaded_range(m->elf, modules[i].bias, &low, &high)
					   ? tp_dw.report_module(fresh, modules[i].path, low, high)
					   : NULL;
		void **userdata;
		if (mod != NULL &&
		    tp_dw.module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL) != NULL)
			*userdata = m;
	}
	if (tp_dw.report_end(fresh, NULL, NULL) != 0) {
		tp_dw.end(fresh);
		close_offline_modules();
		return false;
	}
	session = fresh;
	return true;
}

static tp_unloaded_module_finder *unloaded_finder;

void tp_source_lines_find_unloaded(tp_unloaded_module_finder *find)
{
	unloaded_finder = find;
}

bool tp_source_module_unloaded(uintptr_t address, struct tp_source_module *m, uintptr_t *start,
			       uintptr_t *end)
{
	return unloaded_finder != NULL && unloaded_finder(address, m, start, end) &&
	       m->path[0] == '/';
}

/*
 * The module of `address` when this process unloaded it (dlclose) before its code was named (the
 * exit report's sites in a plug-in): gone from /proc/self/maps, it is reported as the finder
 * given says it lay (the shim's code map), its build id with it, until the session's next
 * refresh. NULL if the finder knows no module there, or if its file is now of another build.
 */
static Dwfl_Module *unloaded_module_of(Dwfl *dwfl, uintptr_t address)
{
	struct tp_source_module m;
	struct offline_module file;
	uintptr_t start, end;
	if (!tp_source_module_unloaded(address, &m, &start, &end))
		return NULL;
	/* libdwfl, given the build id, still reads whatever file lies at the path now (a new build
	 * installed there since: its lines would name other code) */
	bool same = open_offline_module(&m, &file);
	close_offline_module(&file);
	if (!same)
		return NULL;
	tp_dw.report_begin_add(dwfl);
	Dwfl_Module *mod = tp_dw.report_module(dwfl, m.path, start, end);
	if (mod != NULL && m.build_id_size > 0)
		tp_dw.module_report_build_id(mod, m.build_id, m.build_id_size, 0);
	tp_dw.report_end(dwfl, NULL, NULL);
	return tp_dw.addrmodule(dwfl, address);
}

/*
 * The module of `address`; this process's modules are read again once if none has it (dlopen),
 * and one it unloaded since is taken from the code map.
 */
static Dwfl_Module *module_of(Dwfl *dwfl, uintptr_t address)
{
	Dwfl_Module *mod = tp_dw.addrmodule(dwfl, address);
	if (mod == NULL && !offline) {
		tp_unit_functions_forget(); /* their DIEs are the session's */
		tp_dw.report_begin(dwfl);
		tp_dw.linux_proc_report(dwfl, getpid());
		tp_dw.report_end(dwfl, NULL, NULL);
		mod = tp_dw.addrmodule(dwfl, address);
		if (mod == NULL)
			mod = unloaded_module_of(dwfl, address);
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
	Dwarf_Die *found = tp_dw.module_addrdie(mod, address, bias);
	if (found != NULL)
		return found;
	Dwarf *dwarf = tp_dw.module_getdwarf(mod, bias);
	size_t header_size;
	for (Dwarf_Off offset = 0, next;
	     dwarf != NULL && tp_dw.next_unit(dwarf, offset, &next, &header_size, NULL, NULL, NULL,
					      NULL, NULL, NULL) == 0;
	     offset = next)
		if (tp_dw.offdie(dwarf, offset + header_size, unit) != NULL &&
		    tp_dw.haspc(unit, address - *bias) > 0)
			return unit;
	return NULL;
}

size_t tp_gcc_outlined_from(const char *name)
{
	static const char *const suffixes[] = {"._omp_fn.", "._omp_cpyfn."};
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		const char *suffix = strstr(name, suffixes[i]);
		if (suffix != NULL && suffix > name)
			return (size_t)(suffix - name);
	}
	return 0;
}

bool tp_compiler_made_name(const char *name)
{
	return name[0] == '.' || tp_gcc_outlined_from(name) != 0;
}

/*
 * The function at a code address: of the unit's functions (unit_functions.h: every DIE that may
 * hold code, GCC's outlined regions nested in their function's DIE outside its ranges too), the
 * deepest holding the address wins.
 */
#define HOLDING_MAX (TP_UNIT_WALK_DEPTH_MAX + 2) /* a function at each depth, and room */
struct function_search {
	Dwarf_Addr pc;
	int depth;           /* of the innermost function found; -1: none yet */
	Dwarf_Die innermost; /* the innermost function holding pc, inlined or not */
	const char *name;    /* its name */
	bool made;           /* whether the compiler made it */
	const char *around;  /* the nearest function around it that the compiler did not make */
	/* the functions holding pc, outermost first: a function and what is inlined in it */
	Dwarf_Die holding[HOLDING_MAX];
	int n_holding;
};

static void find_function(const struct tp_unit_functions *u, struct function_search *s)
{
	for (size_t i = 0; u != NULL && i < u->n_functions; i++) {
		const struct tp_unit_function *f = &u->functions[i];
		Dwarf_Die die = f->die;
		if (f->depth <= s->depth || s->pc < f->low || s->pc >= f->high ||
		    tp_dw.haspc(&die, s->pc) <= 0)
			continue;
		s->depth = f->depth;
		s->innermost = die;
		s->name = f->name;
		s->made = f->made;
		s->around = f->around;
		if (s->n_holding < HOLDING_MAX)
			s->holding[s->n_holding++] = die;
	}
}

/* Whether two file names from one unit's tables name the same file (else: the same base name). */
static bool same_file(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return false;
	if (strcmp(a, b) == 0)
		return true;
	const char *base_a = strrchr(a, '/'), *base_b = strrchr(b, '/');
	return strcmp(base_a != NULL ? base_a + 1 : a, base_b != NULL ? base_b + 1 : b) == 0;
}

/*
 * The function a construct at `file`:`line` is written in, when the code there is a function the
 * compiler made with no function of the program's around it in DWARF: clang's outlined regions
 * (".omp_outlined..N") are top-level DIEs, artificial, with no link to the function they came
 * from. The rule: of the unit's functions the compiler did not make, declared (defined or
 * inlined) in the same file, the one whose declaration line is the greatest at or before `line`
 * (C has no nested functions: the construct lies in the last function that starts before it).
 */
static const char *function_before(const struct tp_unit_functions *u, const char *file, int line)
{
	const char *best = NULL;
	int best_line = 0;
	for (size_t i = 0; u != NULL && i < u->n_declared; i++) {
		const struct tp_unit_declared *d = &u->declared[i];
		if (d->line <= line && d->line > best_line && same_file(d->file, file)) {
			best = d->name;
			best_line = d->line;
		}
	}
	return best;
}

/*
 * The line of `line` (at `pc`) when the compiler gave the code there none (line 0: code merged
 * from several lines, such as one call for two branches' task constructs): the closest preceding
 * row with a line within `function`'s ranges, else the closest following one; NULL if none.
 */
static Dwarf_Line *nearest_line(Dwarf_Die *unit, Dwarf_Die *function, Dwarf_Line *line)
{
	Dwarf_Lines *lines;
	size_t n, at = 0;
	if (tp_dw.getsrclines(unit, &lines, &n) != 0)
		return NULL;
	while (at < n && tp_dw.onesrcline(lines, at) != line)
		at++;
	if (at == n)
		return NULL;
	for (int step = -1; step <= 1; step += 2)
		for (size_t i = at + (size_t)step; i < n; i += (size_t)step) {
			Dwarf_Line *row = tp_dw.onesrcline(lines, i);
			Dwarf_Addr address;
			bool end = false;
			int number = 0;
			if (row == NULL || tp_dw.lineaddr(row, &address) != 0 ||
			    tp_dw.haspc(function, address) <= 0)
				break;
			if (tp_dw.lineendsequence(row, &end) == 0 && end)
				break;
			if (tp_dw.lineno(row, &number) == 0 && number > 0)
				return row;
		}
	return NULL;
}

/*
 * The first row at `line`'s address. GCC gives the first instruction of a construct's outlined
 * function two rows: the construct's line, then its body's first statement's (a task's); libdw
 * finds the last. Only statement rows count: the function before may end with a row at the same
 * address that is not one (BOTS sort's outlined tasks, one after another: the first task's
 * construct read as the line of the one before).
 */
static Dwarf_Line *first_row_at(Dwarf_Die *unit, Dwarf_Line *line)
{
	Dwarf_Lines *lines;
	size_t n, at = 0;
	Dwarf_Addr address, before;
	if (tp_dw.getsrclines(unit, &lines, &n) != 0 || tp_dw.lineaddr(line, &address) != 0)
		return line;
	while (at < n && tp_dw.onesrcline(lines, at) != line)
		at++;
	for (; at > 0 && at < n; at--) {
		Dwarf_Line *row = tp_dw.onesrcline(lines, at - 1);
		bool end = false, statement = false;
		if (row == NULL || tp_dw.lineaddr(row, &before) != 0 || before != address ||
		    (tp_dw.lineendsequence(row, &end) == 0 && end) ||
		    tp_dw.linebeginstatement(row, &statement) != 0 || !statement)
			break;
		line = row;
	}
	return line;
}

/* Whether `file` is a header of the system's or the compiler's (the C++ library's templates). */
static bool system_header(const char *file)
{
	return file != NULL &&
	       (strncmp(file, "/usr/include/", 13) == 0 ||
		strncmp(file, "/usr/lib/gcc/", 13) == 0 ||
		strncmp(file, "/usr/lib/llvm", 13) == 0 || strstr(file, "/include/c++/") != NULL);
}

/*
 * Code a system header inlined into the program (std::condition_variable::wait's template): the
 * program's function it was inlined into, and the line of that function's call, in *function
 * and *line; false when the innermost function is not such code.
 */
static bool inlined_from_system_header(Dwarf_Die *unit, struct function_search *s,
				       const char **function, int *line)
{
	int i = s->n_holding - 1;
	while (i > 0 && tp_dw.tag(&s->holding[i]) == DW_TAG_inlined_subroutine &&
	       system_header(tp_die_declared_in(unit, &s->holding[i])))
		i--;
	if (i == s->n_holding - 1)
		return false;
	Dwarf_Attribute attr;
	Dwarf_Word call_line = 0;
	const char *name = tp_die_name(&s->holding[i]);
	if (name == NULL || tp_die_compiler_made(&s->holding[i], name) ||
	    tp_dw.attr_integrate(&s->holding[i + 1], DW_AT_call_line, &attr) == NULL ||
	    tp_dw.formudata(&attr, &call_line) != 0 || call_line == 0)
		return false;
	*function = name;
	*line = (int)call_line;
	return true;
}

/* The name of the code at `address` in module `mod` (NULL: none), as tp_source_line says it. */
static bool line_in(Dwfl_Module *mod, uintptr_t address, char *out, size_t size)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die storage, *unit = mod != NULL ? unit_of(mod, address, &bias, &storage) : NULL;
	Dwarf_Line *line = unit != NULL ? tp_dw.getsrc_die(unit, address - bias) : NULL;
	if (line == NULL)
		return false;
	const struct tp_unit_functions *functions = tp_unit_functions_of(unit);
	struct function_search s = {.pc = address - bias, .depth = -1};
	find_function(functions, &s);
	/* no function's DIE holds it, yet a line does: a thunk GCC made of an outlined region whose
	 * code is another's (identical code folded: "main._omp_fn.1: jmp main._omp_fn.0"), named by
	 * its line and the function written before it (function_before, below) */
	bool thunk = s.depth < 0;
	/* a compiler-made function named at its entry: the construct it was made for (GCC's) */
	Dwarf_Addr entry;
	if (s.made && tp_dw.entrypc(&s.innermost, &entry) == 0 && entry == address - bias)
		line = first_row_at(unit, line);
	int lineno = 0;
	bool guessed = false;
	if (tp_dw.lineno(line, &lineno) == 0 && lineno == 0) {
		if (thunk)
			return false;
		line = nearest_line(unit, &s.innermost, line);
		guessed = true;
		if (line == NULL || tp_dw.lineno(line, &lineno) != 0)
			return false;
	}
	const char *file = tp_dw.linesrc(line, NULL, NULL);
	if (file == NULL || lineno <= 0)
		return false;
	const char *caller = NULL;
	if (!thunk && system_header(file) &&
	    inlined_from_system_header(unit, &s, &caller, &lineno)) {
		/* the program's line that called into the header, in its function's file */
		const char *declared = tp_die_declared_in(unit, &s.holding[0]);
		file = declared != NULL ? declared : file;
		const char *caller_file = strrchr(file, '/');
		snprintf(out, size, "%s (%s:%s%d)", caller,
			 caller_file != NULL ? caller_file + 1 : file, guessed ? "~" : "", lineno);
		return true;
	}
	/*
	 * The function the person wrote, never one the compiler made: GCC nests its outlined
	 * regions in their function's DIE; clang's stand alone (function_before).
	 */
	const char *function = s.made ? s.around : s.name;
	if (function == NULL)
		function = function_before(functions, file, lineno);
	size_t outlined_from = s.made ? tp_gcc_outlined_from(s.name) : 0;
	int length = function != NULL ? (int)strlen(function) : 0;
	if (function == NULL && outlined_from != 0) {
		function = s.name;
		length = (int)outlined_from;
	}
	if (function == NULL && thunk)
		return false;
	if (function == NULL) /* no function of the program's found: the compiler's name it is */
		function = s.name, length = (int)strlen(s.name);
	const char *base = strrchr(file, '/');
	snprintf(out, size, "%.*s (%s:%s%d)", length, function, base != NULL ? base + 1 : file,
		 guessed ? "~" : "", lineno);
	return true;
}

bool tp_source_line(uintptr_t address, char *out, size_t size)
{
	Dwfl *dwfl = get_session();
	return line_in(dwfl != NULL ? module_of(dwfl, address) : NULL, address, out, size);
}

/*
 * A session over one module this process unloaded, alone (another may lie where it lay now: the
 * process's session would name its code), kept for the next name in it: the exit report names
 * the sites of one module in a row. Its bias, path and build id say which module (a plug-in
 * installed anew, loaded where it lay and unloaded again, is another).
 */
static Dwfl *unloaded_session;
static struct offline_module unloaded_file = {.fd = -1};
static uintptr_t unloaded_bias;
static char *unloaded_path;
static uint8_t unloaded_id[64];
static size_t unloaded_id_size;

static void close_unloaded_session(void)
{
	tp_unit_functions_forget(); /* their DIEs are the session's */
	if (unloaded_session != NULL)
		tp_dw.end(unloaded_session);
	unloaded_session = NULL;
	close_offline_module(&unloaded_file); /* what libdwfl did not take */
	unloaded_file = (struct offline_module){.fd = -1};
	free(unloaded_path);
	unloaded_path = NULL;
}

/* The session over module `given` alone, started now if the last was another's; NULL if none. */
static Dwfl *unloaded_session_of(const struct tp_source_module *given)
{
	if (unloaded_session != NULL && unloaded_bias == given->bias &&
	    strcmp(unloaded_path, given->path) == 0 && unloaded_id_size == given->build_id_size &&
	    memcmp(unloaded_id, given->build_id, given->build_id_size) == 0)
		return unloaded_session;
	close_unloaded_session();
	Dwarf_Addr low = 0, high = 0;
	/* the session first: its start sets libelf's version up, which reading a file needs */
	if (!tp_libdw_load() || (unloaded_session = tp_dw.begin(&offline_callbacks)) == NULL ||
	    !open_offline_module(given, &unloaded_file) ||
	    !loaded_range(unloaded_file.elf, given->bias, &low, &high) ||
	    (unloaded_path = strdup(given->path)) == NULL) {
		close_unloaded_session();
		return NULL;
	}
	unloaded_bias = given->bias;
	unloaded_id_size = given->build_id_size <= sizeof unloaded_id ? given->build_id_size : 0;
	memcpy(unloaded_id, given->build_id, unloaded_id_size);
	tp_dw.report_begin(unloaded_session);
	Dwfl_Module *mod = tp_dw.report_module(unloaded_session, given->path, low, high);
	void **userdata;
	if (mod != NULL &&
	    tp_dw.module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL) != NULL)
		*userdata = &unloaded_file;
	if (mod == NULL || tp_dw.report_end(unloaded_session, NULL, NULL) != 0)
		close_unloaded_session();
	return unloaded_session;
}

bool tp_source_line_unloaded(const struct tp_source_module *m, uintptr_t address, char *out,
			     size_t size)
{
	Dwfl *dwfl = unloaded_session_of(m);
	return line_in(dwfl != NULL ? tp_dw.addrmodule(dwfl, address) : NULL, address, out, size);
}

void tp_source_lines_close(void)
{
	if (!tp_libdw_loaded()) {
		tp_libdw_unload();
		return;
	}
	tp_unit_functions_forget(); /* their DIEs are the session's */
	if (session != NULL)
		tp_dw.end(session);
	session = NULL;
	close_unloaded_session();
	unavailable = true; /* as tp_libdw_load will say */
	close_offline_modules();
	offline = false;
	tp_libdw_unload();
}
