// SPDX-License-Identifier: MIT
/* Names for code addresses: from DWARF line tables, else from the modules' ELF symbol tables. */
#define _GNU_SOURCE
#include "symbolize.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "library_load.h"
#include "real_symbol.h"
#include "source_lines.h"

/* The longest name of a function kept (a C++ one demangled can be long). */
#define TP_NAME_MAX 512

/*
 * A module's file, read once: an image of its size in which only what naming reads was read (its
 * ELF header, its section headers, its symbol and string tables, its notes), the rest zeros.
 * Read with pread into anonymous memory, never mapped from the file: a file cut short while it
 * is read (another user's module, for the console) gives a short read, never a SIGBUS.
 */
struct elf_file {
	char path[512];
	const unsigned char *image;
	size_t size;
	uint8_t build_id[32]; /* from its NT_GNU_BUILD_ID note (a longer one is not kept) */
	size_t build_id_size;
};

/* as many as a live statistics file lists (TP_LIVE_MODULES) */
#define FILES_MAX 128
static struct elf_file files[FILES_MAX];
static unsigned n_files;
/* The files read are shared: the exit report and spawn-site naming may run at once. */
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;

void tp_symbolize_forget_files(void)
{
	tp_real_pthread_mutex_lock(&files_lock);
	for (unsigned i = 0; i < n_files; i++)
		if (files[i].image != NULL)
			munmap((void *)files[i].image, files[i].size);
	memset(files, 0, sizeof files);
	n_files = 0;
	pthread_mutex_unlock(&files_lock);
}

/* Whether [offset, offset + length) lies in a file of `size` bytes, without overflow. */
static bool within(size_t offset, size_t length, size_t size)
{
	return offset <= size && length <= size - offset;
}

/* Reads [offset, offset + length) of `fd` into the same place of `image` (`size` bytes). */
static bool read_part(int fd, unsigned char *image, size_t size, size_t offset, size_t length)
{
	if (!within(offset, length, size))
		return false;
	while (length > 0) {
		ssize_t n = pread(fd, image + offset, length, (off_t)offset);
		if (n <= 0)
			return false; /* cut short: what was not read stays zeros */
		offset += (size_t)n;
		length -= (size_t)n;
	}
	return true;
}

/* Notes are 4-byte aligned in the files read here. */
#define NOTE_ALIGN(n) (((size_t)(n) + 3u) & ~(size_t)3u)

/* Keeps in `f` the build id of the notes at [offset, offset + length) of `image`, if any. */
static void find_build_id(struct elf_file *f, const unsigned char *image, size_t offset,
			  size_t length)
{
	const unsigned char *p = image + offset, *end = p + length;
	while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
		ElfW(Nhdr) note;
		memcpy(&note, p, sizeof note);
		size_t left = (size_t)(end - p) - sizeof note;
		if (note.n_namesz > left || NOTE_ALIGN(note.n_namesz) > left ||
		    note.n_descsz > left - NOTE_ALIGN(note.n_namesz))
			return;
		const unsigned char *desc = p + sizeof note + NOTE_ALIGN(note.n_namesz);
		if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
		    memcmp(p + sizeof note, "GNU", 4) == 0 && note.n_descsz <= sizeof f->build_id) {
			memcpy(f->build_id, desc, note.n_descsz);
			f->build_id_size = note.n_descsz;
			return;
		}
		size_t next = sizeof note + NOTE_ALIGN(note.n_namesz) + NOTE_ALIGN(note.n_descsz);
		if (next > (size_t)(end - p))
			return;
		p += next;
	}
}

/* Reads what naming needs of the ELF file `fd` (`size` bytes) into f's image. */
static bool read_elf(int fd, struct elf_file *f, unsigned char *image, size_t size)
{
	if (!read_part(fd, image, size, 0, sizeof(ElfW(Ehdr))) ||
	    memcmp(image, ELFMAG, SELFMAG) != 0)
		return false;
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)image;
	if (eh->e_shoff == 0 ||
	    !read_part(fd, image, size, eh->e_shoff, (size_t)eh->e_shnum * sizeof(ElfW(Shdr))))
		return true; /* no sections: no symbols */
	const ElfW(Shdr) *sections = (const ElfW(Shdr) *)(image + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const ElfW(Shdr) *sh = &sections[i];
		if (sh->sh_type == SHT_NOTE && f->build_id_size == 0 &&
		    read_part(fd, image, size, sh->sh_offset, sh->sh_size))
			find_build_id(f, image, sh->sh_offset, sh->sh_size);
		if ((sh->sh_type != SHT_SYMTAB && sh->sh_type != SHT_DYNSYM) ||
		    sh->sh_link >= eh->e_shnum)
			continue;
		const ElfW(Shdr) *strings = &sections[sh->sh_link];
		(void)read_part(fd, image, size, sh->sh_offset, sh->sh_size);
		(void)read_part(fd, image, size, strings->sh_offset, strings->sh_size);
	}
	return true;
}

/*
 * The file at `path`, read once (NULL if it is not an ELF file that can be read). Opened without
 * waiting (a fifo's open waits for a writer), and read only if it is a regular file.
 */
static const struct elf_file *open_elf(const char *path)
{
	for (unsigned i = 0; i < n_files; i++)
		if (strcmp(files[i].path, path) == 0)
			return files[i].image != NULL ? &files[i] : NULL;
	if (n_files == FILES_MAX)
		return NULL;
	struct elf_file *f = &files[n_files++];
	snprintf(f->path, sizeof f->path, "%s", path);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (size_t)st.st_size >= sizeof(ElfW(Ehdr))) {
		size_t size = (size_t)st.st_size;
		void *image = mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (image != MAP_FAILED && read_elf(fd, f, image, size) &&
		    mprotect(image, size, PROT_READ) == 0) {
			f->image = image;
			f->size = size;
		} else if (image != MAP_FAILED) {
			munmap(image, size);
			f->build_id_size = 0;
		}
	}
	tp_real_close(fd);
	return f->image != NULL ? f : NULL;
}

/* The function symbol of section type `type` (SHT_SYMTAB or SHT_DYNSYM) covering `addr`. */
static const char *lookup(const struct elf_file *f, unsigned type, uintptr_t addr, uintptr_t *start,
			  size_t *length)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)f->image;
	if (eh->e_shoff == 0 ||
	    !within(eh->e_shoff, (size_t)eh->e_shnum * sizeof(ElfW(Shdr)), f->size))
		return NULL;
	const ElfW(Shdr) *sections = (const ElfW(Shdr) *)(f->image + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const ElfW(Shdr) *sh = &sections[i];
		if (sh->sh_type != type || sh->sh_link >= eh->e_shnum ||
		    !within(sh->sh_offset, sh->sh_size, f->size))
			continue;
		const ElfW(Shdr) *strings = &sections[sh->sh_link];
		if (!within(strings->sh_offset, strings->sh_size, f->size))
			continue;
		const char *names = (const char *)(f->image + strings->sh_offset);
		const ElfW(Sym) *syms = (const ElfW(Sym) *)(f->image + sh->sh_offset);
		size_t n = sh->sh_size / sizeof(ElfW(Sym));
		for (size_t k = 0; k < n; k++) {
			const ElfW(Sym) *sym = &syms[k];
			if (ELF64_ST_TYPE(sym->st_info) /* the same for ELF32 */ != STT_FUNC ||
			    sym->st_value == 0 || addr < sym->st_value ||
			    addr - sym->st_value >= sym->st_size ||
			    sym->st_name >= strings->sh_size ||
			    memchr(names + sym->st_name, '\0', strings->sh_size - sym->st_name) ==
				    NULL)
				continue;
			*start = sym->st_value;
			*length = sym->st_size;
			return names + sym->st_name;
		}
	}
	return NULL;
}

/*
 * What module file `f`, loaded at `base`, adds to the addresses it numbers once loaded: `base` for
 * a shared object or a position-independent executable, 0 for an executable linked at fixed
 * addresses. A file that cannot be read (NULL) is taken for a shared object, as most modules are:
 * `base` may be another process's (the console names a program's addresses), so its header is not
 * read through it.
 */
static uintptr_t load_bias(const struct elf_file *f, uintptr_t base)
{
	return f != NULL && ((const ElfW(Ehdr) *)f->image)->e_type == ET_EXEC ? 0 : base;
}

/* The function symbol covering `address` in the module of `info`, .symtab first; its range. */
static const char *symbol_at(const struct elf_file *f, uintptr_t base, uintptr_t address,
			     uintptr_t *start, size_t *length)
{
	uintptr_t bias = load_bias(f, base);
	const char *name = lookup(f, SHT_SYMTAB, address - bias, start, length);
	if (name == NULL)
		name = lookup(f, SHT_DYNSYM, address - bias, start, length);
	if (name != NULL)
		*start += bias;
	return name;
}

/*
 * What an address to name is: the return address of a call (named by the call, at pc - 1: the
 * return address may be the next function's first byte), or a function's first instruction (a
 * thread's start routine).
 */
enum code_kind { RETURN_ADDRESS, FUNCTION_ENTRY };

/* The address whose code is named: a call's, or the entry itself. */
static uintptr_t named_code(uintptr_t pc, enum code_kind kind)
{
	return kind == RETURN_ADDRESS ? pc - 1 : pc;
}

/*
 * C++ names as people write them: "node::(anonymous namespace)::PlatformWorkerThread", not
 * "_ZN4node12_GLOBAL__N_1L20PlatformWorkerThreadEPv" (its parameters left out, as a C function
 * has none in its name), with libstdc++'s demangler: the process's own when it has one (nothing
 * is loaded into a program), else, for the console and the converter (`may_load`), loaded
 * privately once.
 */
typedef char *(*demangler_fn)(const char *mangled, char *out, size_t *length, int *status);

static demangler_fn demangler(bool may_load)
{
	static demangler_fn loaded;
	static bool tried;
	void *own = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (own != NULL)
		return (demangler_fn)own;
	if (may_load && !tried) {
		tried = true;
		void *lib = tp_library_load("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL, NULL, 0);
		if (lib != NULL)
			loaded = (demangler_fn)dlsym(lib, "__cxa_demangle");
	}
	return loaded;
}

/* `name` demangled into `buf` without its parameter list, if it is a C++ name; else `name`. */
static const char *readable_name(const char *name, bool may_load, char *buf, size_t size)
{
	demangler_fn demangle = strncmp(name, "_Z", 2) == 0 ? demangler(may_load) : NULL;
	int status = -1;
	char *plain = demangle != NULL ? demangle(name, NULL, NULL, &status) : NULL;
	if (plain == NULL || status != 0) {
		free(plain);
		return name;
	}
	/* the parameters: the balanced parentheses that end it ("f(int)", not "(anonymous ...)") */
	size_t len = strlen(plain);
	if (len > 0 && plain[len - 1] == ')') {
		int depth = 0;
		for (size_t i = len; i-- > 0;) {
			depth += plain[i] == ')' ? 1 : plain[i] == '(' ? -1 : 0;
			if (depth == 0) {
				if (i > 0)
					plain[i] = '\0';
				break;
			}
		}
	}
	snprintf(buf, size, "%s", plain);
	free(plain);
	return buf;
}

/* `path` by its file name alone when `basename_only`. */
static const char *module_shown(const char *path, bool basename_only)
{
	return basename_only && strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
}

/*
 * The function a person wrote that the compiler-made symbol `symbol` stands for, which a site
 * shows first ("main" for GCC's outlined "main._omp_fn.0" or "main._omp_cpyfn.1"); "outlined
 * code" for clang's ".omp_outlined..5" and its kin, whose names say none. NULL for a symbol the
 * compiler did not make.
 */
static const char *written_function(const char *symbol, char *buf, size_t size)
{
	size_t outlined_from = tp_gcc_outlined_from(symbol);
	if (outlined_from != 0) {
		snprintf(buf, size, "%.*s", (int)outlined_from, symbol);
		return buf;
	}
	return tp_compiler_made_name(symbol) ? "outlined code" : NULL;
}

/*
 * "function+0xoff (module)" for the address `pc` in the module of file `file` (read as `path`)
 * loaded at `base` ("function (module)" for a function's entry; "main [main._omp_fn.0+0xoff]
 * (module)" for a symbol the compiler made), or "0xaddress (module)" when no symbol covers it,
 * as the module's file numbers it (less its load_bias): what `addr2line -e module` reads, the
 * same in every run.
 */
static void name_by_symbol(const char *path, const char *file, uintptr_t base, uintptr_t pc,
			   enum code_kind kind, bool basename_only, bool may_load, char *out,
			   size_t size)
{
	const struct elf_file *f = open_elf(file);
	uintptr_t start = 0;
	size_t length = 0;
	const char *name = f != NULL ? symbol_at(f, base, named_code(pc, kind), &start, &length)
				     : NULL;
	char plain[TP_NAME_MAX];
	if (name != NULL)
		name = readable_name(name, may_load, plain, sizeof plain);
	path = module_shown(path, basename_only);
	char function[TP_NAME_MAX];
	const char *written = name != NULL ? written_function(name, function, sizeof function)
					   : NULL;
	/* a return address one past an entry (no call is one byte long): the function itself, as
	 * a GCC construct's site is its outlined function (ompt.c) */
	bool whole = name != NULL && pc == start + (kind == RETURN_ADDRESS);
	if (written != NULL && whole)
		snprintf(out, size, "%s [%s] (%s)", written, name, path);
	else if (written != NULL)
		snprintf(out, size, "%s [%s+%#lx] (%s)", written, name, (unsigned long)(pc - start),
			 path);
	else if (whole)
		snprintf(out, size, "%s (%s)", name, path);
	else if (name != NULL)
		snprintf(out, size, "%s+%#lx (%s)", name, (unsigned long)(pc - start), path);
	else if (kind == FUNCTION_ENTRY) /* a thread's routine in a stripped module: no address */
		snprintf(out, size, TP_THREAD_OF_MODULE, path);
	else
		snprintf(out, size, "%#lx (%s)", (unsigned long)(pc - load_bias(f, base)), path);
}

/* dl_iterate_phdr reports the main program first: the address it is mapped at. */
static int main_program(struct dl_phdr_info *info, size_t size, void *base)
{
	(void)size;
	uintptr_t lowest = UINTPTR_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD &&
		    info->dlpi_addr + info->dlpi_phdr[i].p_vaddr < lowest)
			lowest = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
	*(uintptr_t *)base = lowest & ~(uintptr_t)(getpagesize() - 1);
	return 1;
}

/* Whether dladdr's module is the main program, which it names by argv[0]. */
static bool is_main_program(const Dl_info *info)
{
	uintptr_t base = 0;
	dl_iterate_phdr(main_program, &base);
	return (uintptr_t)info->dli_fbase == base || info->dli_fname[0] == '\0';
}

/* Whether file `f` is of build id `id` (of `size` bytes; none given: any file is). */
static bool of_build_id(const struct elf_file *f, const uint8_t *id, size_t size)
{
	return f != NULL &&
	       (size == 0 || (f->build_id_size == size && memcmp(f->build_id, id, size) == 0));
}

/*
 * The name of the code at `pc` (of `kind`) in module `m`, which this process unloaded since
 * (dlclose) and which lay from `start`: by symbol, from its file, if that file is still of the
 * build that was loaded; else by its address in the module (a file rebuilt since holds other code
 * there: its symbols would name the wrong function).
 */
static void name_unloaded(const struct tp_source_module *m, uintptr_t start, uintptr_t pc,
			  enum code_kind kind, bool basename_only, char *out, size_t size)
{
	bool same = of_build_id(open_elf(m->path), m->build_id, m->build_id_size);
	/* `start`, its first page: dladdr's dli_fbase */
	name_by_symbol(m->path, same ? m->path : "", start, pc, kind, basename_only, false, out,
		       size);
}

/* name_unloaded's name of the code at `pc`, which dladdr no longer finds, in the module the code
 * map says held it (tp_source_module_unloaded); false when none is known there. */
static bool unloaded_named(uintptr_t pc, enum code_kind kind, bool basename_only, char *out,
			   size_t size)
{
	struct tp_source_module m;
	uintptr_t start, end;
	if (!tp_source_module_unloaded(named_code(pc, kind), &m, &start, &end))
		return false;
	name_unloaded(&m, start, pc, kind, basename_only, out, size);
	return true;
}

/* A system call filter was installed (tp_symbolize_before_seccomp): no file is read. */
static bool without_files;

void tp_symbolize_before_seccomp(void)
{
	__atomic_store_n(&without_files, true, __ATOMIC_RELAXED);
}

/*
 * symbolize's under a system call filter, which may kill the process for an open or a readlink:
 * no file read, the loader's exported symbols alone ("function+0xoff (module)"), else the
 * address in its module (a tracer of thread-start named a filtered program's new thread's
 * routine from the program's file, and the filter killed it).
 */
static void symbolize_without_files(uintptr_t pc, enum code_kind kind, bool basename_only,
				    char *out, size_t size)
{
	Dl_info info;
	if (dladdr((const void *)named_code(pc, kind), &info) == 0 || info.dli_fname == NULL) {
		if (kind == FUNCTION_ENTRY)
			out[0] = '\0';
		else
			snprintf(out, size, "%#lx", (unsigned long)pc);
		return;
	}
	const char *module = module_shown(info.dli_fname[0] != '\0' ? info.dli_fname : "program",
					  basename_only);
	char plain[TP_NAME_MAX];
	if (info.dli_sname != NULL)
		snprintf(out, size, "%s+%#lx (%s)",
			 readable_name(info.dli_sname, false, plain, sizeof plain),
			 (unsigned long)(pc - (uintptr_t)info.dli_saddr), module);
	else
		snprintf(out, size, "%#lx (%s)", (unsigned long)(pc - (uintptr_t)info.dli_fbase),
			 module);
}

/*
 * Writes the name of the code at `pc` (of `kind`): from DWARF when `lines` and the module has
 * line tables, else from its symbols (dladdr's, for a function it exports; else the file's
 * .symtab), with the module named by file name alone if `basename_only`.
 */
static void symbolize(uintptr_t pc, enum code_kind kind, bool lines, bool basename_only, char *out,
		      size_t size)
{
	if (__atomic_load_n(&without_files, __ATOMIC_RELAXED)) {
		symbolize_without_files(pc, kind, basename_only, out, size);
		return;
	}
	if (lines && tp_source_line(named_code(pc, kind), out, size))
		return;
	Dl_info info;
	if (dladdr((const void *)named_code(pc, kind), &info) == 0 || info.dli_fname == NULL) {
		if (unloaded_named(pc, kind, basename_only, out, size))
			return;
		/* a function outside every module (a JIT's) has no name */
		if (kind == FUNCTION_ENTRY)
			out[0] = '\0';
		else
			snprintf(out, size, "%#lx", (unsigned long)pc);
		return;
	}
	/* an exported function's entry: named from the loaded module, no file read */
	if (kind == FUNCTION_ENTRY && info.dli_sname != NULL && (uintptr_t)info.dli_saddr == pc &&
	    !is_main_program(&info)) {
		char plain[TP_NAME_MAX];
		snprintf(out, size, "%s (%s)",
			 readable_name(info.dli_sname, false, plain, sizeof plain),
			 module_shown(info.dli_fname, basename_only));
		return;
	}
	/* The executable's own file is /proc/self/exe, whatever argv[0] says. */
	bool main_program = is_main_program(&info);
	const char *path = info.dli_fname;
	char exe[512];
	if (main_program) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = '\0';
		path = n > 0 ? exe : "/proc/self/exe";
	}
	name_by_symbol(path, main_program ? "/proc/self/exe" : path, (uintptr_t)info.dli_fbase, pc,
		       kind, basename_only, false, out, size);
}

/* A fork while another thread names code: the child gets the lock free (lifecycle.c). */
void tp_symbolize_prepare_fork(void)
{
	tp_real_pthread_mutex_lock(&files_lock);
}

void tp_symbolize_after_fork(void)
{
	pthread_mutex_unlock(&files_lock);
}

void tp_symbolize_before_destructors(void)
{
	tp_real_pthread_mutex_lock(&files_lock);
	tp_source_lines_close();
	pthread_mutex_unlock(&files_lock);
}

/* The file of the module holding `address` (the executable's is /proc/self/exe), or NULL. */
static const struct elf_file *module_file(uintptr_t address, Dl_info *info)
{
	if (dladdr((const void *)address, info) == 0 || info->dli_fname == NULL)
		return NULL;
	return open_elf(is_main_program(info) ? "/proc/self/exe" : info->dli_fname);
}

bool tp_function_range(uintptr_t address, uintptr_t *start, uintptr_t *end)
{
	Dl_info info;
	size_t length = 0;
	tp_real_pthread_mutex_lock(&files_lock);
	const struct elf_file *f = module_file(address, &info);
	bool found = f != NULL &&
		     symbol_at(f, (uintptr_t)info.dli_fbase, address, start, &length) != NULL;
	pthread_mutex_unlock(&files_lock);
	*end = *start + length;
	return found && length > 0;
}

void tp_symbolize(uintptr_t pc, char *out, size_t size)
{
	tp_real_pthread_mutex_lock(&files_lock);
	symbolize(pc, RETURN_ADDRESS, true, false, out, size);
	pthread_mutex_unlock(&files_lock);
}

void tp_symbolize_call(uintptr_t return_address, char *out, size_t size)
{
	tp_real_pthread_mutex_lock(&files_lock);
	symbolize(return_address, RETURN_ADDRESS, true, true, out, size);
	pthread_mutex_unlock(&files_lock);
}

void tp_symbolize_function(uintptr_t entry, bool lines, char *out, size_t size)
{
	tp_real_pthread_mutex_lock(&files_lock);
	symbolize(entry, FUNCTION_ENTRY, lines, true, out, size);
	pthread_mutex_unlock(&files_lock);
}

void tp_symbolize_unloaded(const struct tp_source_module *m, uintptr_t start, uintptr_t pc,
			   bool function, char *out, size_t size)
{
	enum code_kind kind = function ? FUNCTION_ENTRY : RETURN_ADDRESS;
	tp_real_pthread_mutex_lock(&files_lock);
	if (!tp_source_line_unloaded(m, named_code(pc, kind), out, size))
		name_unloaded(m, start, pc, kind, true, out, size);
	pthread_mutex_unlock(&files_lock);
}

/*
 * Whether a path another process gave may be read: never the kernel's files under /proc and /sys,
 * which say they are regular files (/proc/PID/mem of a process of the reader's).
 */
static bool foreign_path_allowed(const char *path)
{
	return path[0] == '/' && strncmp(path, "/proc/", 6) != 0 && strncmp(path, "/sys/", 5) != 0;
}

bool tp_module_file_is(const char *path, const uint8_t *build_id, size_t build_id_size)
{
	if (!foreign_path_allowed(path))
		return false;
	tp_real_pthread_mutex_lock(&files_lock);
	bool same = of_build_id(open_elf(path), build_id, build_id_size);
	pthread_mutex_unlock(&files_lock);
	return same;
}

static void symbolize_in_module(const char *path, uintptr_t bias, uintptr_t pc, enum code_kind kind,
				bool basename_only, char *out, size_t size)
{
	tp_real_pthread_mutex_lock(&files_lock);
	if (!tp_source_line(named_code(pc, kind), out, size))
		name_by_symbol(path, foreign_path_allowed(path) ? path : "", bias, pc, kind,
			       basename_only, true, out, size);
	pthread_mutex_unlock(&files_lock);
}

void tp_symbolize_in_module(const char *path, uintptr_t bias, uintptr_t pc, bool basename_only,
			    char *out, size_t size)
{
	symbolize_in_module(path, bias, pc, RETURN_ADDRESS, basename_only, out, size);
}

void tp_symbolize_function_in_module(const char *path, uintptr_t bias, uintptr_t entry, char *out,
				     size_t size)
{
	symbolize_in_module(path, bias, entry, FUNCTION_ENTRY, true, out, size);
}
