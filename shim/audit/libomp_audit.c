// SPDX-License-Identifier: MIT
/*
 * The launcher's LD_AUDIT module: a process of the run that needs GCC's libgomp (a GCC-built
 * OpenMP program, whoever starts it) gets LLVM's libomp ahead of it, whose tool interface shows
 * its tasks (libomp implements libgomp's entry points). Only when libomp defines every OpenMP
 * name (and version) the objects loaded so far import: libomp 14 lacks 51 of libgomp's GOMP_ and
 * omp_ names (GOMP_teams4, GOMP_scope_start, omp_target_alloc, the offloading and Fortran entry
 * points) and its OpenACC ones. Else the process keeps libgomp alone (its tasks unseen, as the
 * shim says). Processes that need no libgomp are untouched.
 *
 * The search for libgomp.so.1 is answered with the bridge (gomp-bridge.sh), which defines nothing
 * and needs libomp, then libgomp, by names of its own that the module answers: libomp's file, and
 * libgomp.so.1 searched for as the object that needed it would have. So libomp comes before
 * libgomp in the lookup order, and a name libomp lacks that an object loaded later calls (a
 * module dlopen'ed later, or dlsym on dlopen("libgomp.so.1"), which is the bridge) binds to
 * libgomp's instead of failing. The bridge's own need cannot be libgomp.so.1: the loader knows
 * the bridge by that name once it is the answer, and would take it for its own dependency. Known
 * by that name, it is what the loader checks the versions of libgomp an object needs against: it
 * defines those of the libgomp it was built with, and the objects checked must need no other.
 *
 * TASKPROBE_LIBOMP names libomp's file (the launcher finds it), TASKPROBE_LIBOMP_BRIDGE the
 * bridge's (installed beside the module); TASKPROBE_LIBOMP_NOTES, if set,
 * a directory of the launcher's run where each process moved adds its name to the file
 * libomp.PID, so that the launcher says once, at the end, which programs ran on libomp. ldd's
 * listing (LD_TRACE_LOADED_OBJECTS) is left as it is, but for the launcher's own
 * (TASKPROBE_LIBOMP_LISTED), which asks what its program gets. All are read from
 * /proc/self/environ: the module is linked to no library (raw_syscalls.h), and the variables are
 * the run's, set before the process started.
 *
 * It runs inside the dynamic linker's search for libgomp.so.1, under the loader's lock: it reads
 * the loaded objects' dynamic symbols from memory (as mapped by the loader, which reads the same
 * tables to bind them) and libomp's and the bridge's from their files, every offset and size
 * checked against them; anything unexpected keeps libgomp. Objects loaded after the answer that
 * need libgomp too get the bridge under its name without the module being asked
 * (docs/openmp.md). The dynamic linker ignores LD_AUDIT in secure-execution (setuid) processes.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include "raw_syscalls.h"

#define EXPORTED __attribute__((visibility("default")))

/* The name GCC-built programs need: libgomp's soname. */
static const char libgomp_soname[] = "libgomp.so.1";

/* The names the bridge needs libomp and libgomp by (meson gives them to gomp-bridge.sh too). */
#ifndef TP_BRIDGE_LIBOMP
#error "TP_BRIDGE_LIBOMP and TP_BRIDGE_LIBGOMP come from shim/meson.build"
#endif
static const char bridge_libomp[] = TP_BRIDGE_LIBOMP;
static const char bridge_libgomp[] = TP_BRIDGE_LIBGOMP;

/* ---- small string work (no C library) ---- */

#ifdef TP_AUDIT_WITHOUT_LIBC
/* The compiler's own calls (a structure's initialization), answered here (-fno-builtin and
 * -fno-tree-loop-distribute-patterns keep these loops loops). */
__attribute__((visibility("hidden"))) void *memset(void *to, int c, size_t n)
{
	unsigned char *p = to;
	while (n-- > 0)
		*p++ = (unsigned char)c;
	return to;
}
__attribute__((visibility("hidden"))) void *memcpy(void *to, const void *from, size_t n)
{
	unsigned char *p = to;
	const unsigned char *q = from;
	while (n-- > 0)
		*p++ = *q++;
	return to;
}
#endif

static size_t text_length(const char *s)
{
	size_t n = 0;
	while (s[n] != '\0')
		n++;
	return n;
}

static bool same_text(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b)
		a++, b++;
	return *a == *b;
}

/* Whether `s` begins with `prefix`. */
static bool starts_with(const char *s, const char *prefix)
{
	while (*prefix != '\0' && *s == *prefix)
		s++, prefix++;
	return *prefix == '\0';
}

/* The string at `offset` of a string table of `size` bytes, if it ends inside it; else NULL. */
static const char *string_at(const char *table, size_t size, size_t offset)
{
	if (table == NULL || offset >= size)
		return NULL;
	for (size_t i = offset; i < size; i++)
		if (table[i] == '\0')
			return table + offset;
	return NULL;
}

/* ---- files, by system calls ---- */

static int open_read(const char *path)
{
	long fd = raw_syscall(SYS_openat, AT_FDCWD, (long)path,
			      O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0, 0, 0);
	return raw_failed(fd) ? -1 : (int)fd;
}

static void close_file(int fd)
{
	raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
}

/* Reads up to `size` bytes; returns how many (0 on failure or at the end). */
static size_t read_some(int fd, char *buffer, size_t size)
{
	for (;;) {
		long n = raw_syscall(SYS_read, fd, (long)buffer, (long)size, 0, 0, 0);
		if (n == -4 /* EINTR */)
			continue;
		return raw_failed(n) ? 0 : (size_t)n;
	}
}

/* ---- the run's settings, from the environment the process started with ---- */

struct settings {
	char libomp[4096];       /* TASKPROBE_LIBOMP, "" if unset or too long */
	char bridge[4096];       /* TASKPROBE_LIBOMP_BRIDGE, likewise */
	char notes[4096];        /* TASKPROBE_LIBOMP_NOTES, likewise */
	char libgomp[4096];      /* TASKPROBE_LIBGOMP: the libgomp the loader's cache names */
	char library_path[4096]; /* LD_LIBRARY_PATH ("" also when too long: see below) */
	/* LD_TRACE_LOADED_OBJECTS (ldd's listing: the module answers only the launcher's own,
	 * TASKPROBE_LIBOMP_LISTED, so that a program's ldd lists what it always did) */
	char listing[8], listed[8];
};

/*
 * Reads /proc/self/environ (NAME=VALUE entries, each ended by a NUL) as it comes, a block at a
 * time: an entry may span blocks. A value that does not fit is taken as unset.
 */
static void read_settings(struct settings *s)
{
	enum { N = 7 };
	static const char *const names[N] = {
		"TASKPROBE_LIBOMP=",        "TASKPROBE_LIBOMP_BRIDGE=", "TASKPROBE_LIBOMP_NOTES=",
		"LD_TRACE_LOADED_OBJECTS=", "TASKPROBE_LIBOMP_LISTED=", "TASKPROBE_LIBGOMP=",
		"LD_LIBRARY_PATH="};
	char *values[N] = {s->libomp, s->bridge,  s->notes,       s->listing,
			   s->listed, s->libgomp, s->library_path};
	const size_t sizes[N] = {sizeof s->libomp,      sizeof s->bridge, sizeof s->notes,
				 sizeof s->listing,     sizeof s->listed, sizeof s->libgomp,
				 sizeof s->library_path};
	for (int k = 0; k < N; k++)
		values[k][0] = '\0';
	int fd = open_read("/proc/self/environ");
	if (fd < 0)
		return;
	/* in the entry: how far each name still matches (SIZE_MAX: no longer), and which value
	 * is being copied, and how much of it (past its size: too long) */
	size_t matched[N] = {0}, copied = 0;
	int copying = -1;
	char block[1024];
	size_t n;
	while ((n = read_some(fd, block, sizeof block)) > 0) {
		for (size_t i = 0; i < n; i++) {
			char c = block[i];
			if (copying >= 0) {
				size_t size = sizes[copying];
				if (copied < size)
					values[copying][copied] = c;
				copied++;
				if (c != '\0' && copied < size)
					continue;
				if (c != '\0' || copied > size)
					values[copying][0] = '\0'; /* too long: unset */
				if (c != '\0')
					continue;
				copying = -1;
				for (int k = 0; k < N; k++)
					matched[k] = 0;
				continue;
			}
			for (int k = 0; k < N; k++) {
				if (c == '\0') {
					matched[k] = 0;
				} else if (matched[k] != SIZE_MAX && names[k][matched[k]] == c) {
					if (names[k][++matched[k]] == '\0')
						copying = k;
				} else {
					matched[k] = SIZE_MAX;
				}
			}
			if (copying >= 0) {
				copied = 0;
				for (int k = 0; k < N; k++)
					matched[k] = SIZE_MAX;
			}
		}
	}
	close_file(fd);
	if (copying >= 0)
		values[copying][0] = '\0'; /* cut short */
}

/* ---- libomp's definitions and the bridge's, from their files ---- */

/* Version indexes up to this are kept by name (libomp 14 has 16). */
enum { MAX_VERSIONS = 64 };

struct definitions {
	const unsigned char *file;
	size_t size;
	const ElfW(Sym) * symbols;
	size_t symbol_count;
	const char *strings;
	size_t strings_size;
	const ElfW(Half) * versions; /* per symbol; NULL: unversioned */
	const char *version_names[MAX_VERSIONS];
	const char *soname; /* DT_SONAME, or NULL */
};

/* The section header `index` of a checked ELF file, or NULL. */
static const ElfW(Shdr) * section(const struct definitions *d, size_t index)
{
	const ElfW(Ehdr) *elf = (const ElfW(Ehdr) *)d->file;
	if (index >= elf->e_shnum)
		return NULL;
	return (const ElfW(Shdr) *)(d->file + elf->e_shoff) + index;
}

/* Whether the section's contents lie inside the file. */
static bool inside(const struct definitions *d, const ElfW(Shdr) * s)
{
	return s->sh_offset <= d->size && s->sh_size <= d->size - s->sh_offset;
}

/* The version names of libomp's version definitions, by index. */
static void read_version_names(struct definitions *d, const ElfW(Shdr) * verdef)
{
	size_t at = verdef->sh_offset, end = verdef->sh_offset + verdef->sh_size;
	for (size_t k = 0; k < verdef->sh_info && k < 1024; k++) {
		if (at > end || end - at < sizeof(ElfW(Verdef)) || at % 4 != 0)
			return;
		const ElfW(Verdef) *v = (const ElfW(Verdef) *)(d->file + at);
		size_t aux = at + v->vd_aux;
		if (v->vd_aux < sizeof(ElfW(Verdef)) || aux > end ||
		    end - aux < sizeof(ElfW(Verdaux)) || aux % 4 != 0)
			return;
		const ElfW(Verdaux) *name = (const ElfW(Verdaux) *)(d->file + aux);
		if (v->vd_ndx < MAX_VERSIONS)
			d->version_names[v->vd_ndx] = string_at(d->strings, d->strings_size,
								name->vda_name);
		if (v->vd_next == 0)
			return;
		at += v->vd_next;
	}
}

/* Maps the file (libomp, the bridge) and finds its dynamic symbols and versions; false if it is
 * not one of ours to load. */
static bool read_definitions(struct definitions *d, const char *path)
{
	*d = (struct definitions){0};
	int fd = open_read(path);
	if (fd < 0)
		return false;
	long size = raw_syscall(SYS_lseek, fd, 0, 2 /* SEEK_END */, 0, 0, 0);
	if (raw_failed(size) || (size_t)size < sizeof(ElfW(Ehdr))) {
		close_file(fd);
		return false;
	}
	long map = raw_syscall(SYS_mmap, 0, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close_file(fd);
	if (raw_failed(map))
		return false;
	d->file = (const unsigned char *)map;
	d->size = (size_t)size;
	const ElfW(Ehdr) *elf = (const ElfW(Ehdr) *)d->file;
	bool ours = elf->e_ident[EI_MAG0] == ELFMAG0 && elf->e_ident[EI_MAG1] == ELFMAG1 &&
		    elf->e_ident[EI_MAG2] == ELFMAG2 && elf->e_ident[EI_MAG3] == ELFMAG3 &&
		    elf->e_ident[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) &&
		    elf->e_type == ET_DYN && elf->e_shentsize == sizeof(ElfW(Shdr)) &&
		    elf->e_shoff <= d->size && elf->e_shoff % sizeof(ElfW(Addr)) == 0 &&
		    elf->e_shnum <= (d->size - elf->e_shoff) / sizeof(ElfW(Shdr));
#if defined(__x86_64__)
	ours = ours && elf->e_machine == EM_X86_64;
#elif defined(__aarch64__)
	ours = ours && elf->e_machine == EM_AARCH64;
#endif
	const ElfW(Shdr) *dynsym = NULL, *versym = NULL, *verdef = NULL, *dynamic = NULL;
	for (size_t i = 0; ours && i < elf->e_shnum; i++) {
		const ElfW(Shdr) *s = section(d, i);
		if (s->sh_type == SHT_DYNSYM)
			dynsym = s;
		else if (s->sh_type == SHT_DYNAMIC)
			dynamic = s;
		else if (s->sh_type == SHT_GNU_versym)
			versym = s;
		else if (s->sh_type == SHT_GNU_verdef)
			verdef = s;
	}
	const ElfW(Shdr) *strings = dynsym != NULL ? section(d, dynsym->sh_link) : NULL;
	if (!ours || strings == NULL || !inside(d, dynsym) || !inside(d, strings) ||
	    dynsym->sh_entsize != sizeof(ElfW(Sym)) ||
	    dynsym->sh_offset % sizeof(ElfW(Addr)) != 0) {
		raw_syscall(SYS_munmap, map, size, 0, 0, 0, 0);
		*d = (struct definitions){0};
		return false;
	}
	d->symbols = (const ElfW(Sym) *)(d->file + dynsym->sh_offset);
	d->symbol_count = dynsym->sh_size / sizeof(ElfW(Sym));
	d->strings = (const char *)d->file + strings->sh_offset;
	d->strings_size = strings->sh_size;
	if (versym != NULL && inside(d, versym) && versym->sh_offset % 2 == 0 &&
	    versym->sh_size / sizeof(ElfW(Half)) == d->symbol_count) {
		d->versions = (const ElfW(Half) *)(d->file + versym->sh_offset);
		if (verdef != NULL && inside(d, verdef))
			read_version_names(d, verdef);
	}
	if (dynamic != NULL && inside(d, dynamic) && dynamic->sh_link == dynsym->sh_link &&
	    dynamic->sh_entsize == sizeof(ElfW(Dyn)) &&
	    dynamic->sh_offset % sizeof(ElfW(Addr)) == 0) {
		const ElfW(Dyn) *entry = (const ElfW(Dyn) *)(d->file + dynamic->sh_offset);
		for (size_t i = 0; i < dynamic->sh_size / sizeof(ElfW(Dyn)); i++) {
			if (entry[i].d_tag == DT_NULL)
				break;
			if (entry[i].d_tag == DT_SONAME)
				d->soname = string_at(d->strings, d->strings_size,
						      entry[i].d_un.d_val);
		}
	}
	return true;
}

static void drop_definitions(struct definitions *d)
{
	if (d->file != NULL)
		raw_syscall(SYS_munmap, (long)d->file, (long)d->size, 0, 0, 0, 0);
}

/*
 * Whether libomp defines `name` for a reference of version `version` (NULL: unversioned, which
 * binds to the default version) as the dynamic linker would bind it.
 */
static bool defines(const struct definitions *d, const char *name, const char *version)
{
	for (size_t i = 1; i < d->symbol_count; i++) {
		const ElfW(Sym) *s = &d->symbols[i];
		unsigned bind = ELF64_ST_BIND(s->st_info);
		if (s->st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK))
			continue;
		const char *its = string_at(d->strings, d->strings_size, s->st_name);
		if (its == NULL || !same_text(its, name))
			continue;
		if (d->versions == NULL)
			return version == NULL;
		unsigned index = d->versions[i] & 0x7fff;
		if (version == NULL) {
			if (!(d->versions[i] & 0x8000))
				return true;
		} else if (index < MAX_VERSIONS && d->version_names[index] != NULL &&
			   same_text(d->version_names[index], version)) {
			return true;
		}
	}
	return false;
}

/* Whether the file has the version definition `version`. */
static bool has_version(const struct definitions *d, const char *version)
{
	for (size_t i = 0; i < MAX_VERSIONS; i++)
		if (d->version_names[i] != NULL && same_text(d->version_names[i], version))
			return true;
	return false;
}

/* ---- a loaded object's imports, from memory ---- */

struct imports {
	const char *soname; /* DT_SONAME, or NULL */
	const ElfW(Sym) * symbols;
	size_t symbol_count;
	const char *strings;
	size_t strings_size;
	const ElfW(Half) * versions;
	const ElfW(Verneed) * needs;
	size_t need_count;
	/* where the loader searches for its dependencies: its DT_RUNPATH (or NULL), whether it
	 * has a DT_RPATH, and DF_1_NODEFLIB */
	const char *runpath;
	bool rpath, no_default_paths;
};

/* An address of the dynamic section: relocated by the loader, or not (a read-only one). */
static uintptr_t dynamic_address(const struct link_map *map, ElfW(Addr) value)
{
	return value < map->l_addr ? map->l_addr + value : value;
}

/* How many dynamic symbols a GNU hash table covers: up to the end of its longest chain. */
static size_t gnu_hash_symbol_count(const uint32_t *table)
{
	uint32_t buckets = table[0], first = table[1], bloom_words = table[2];
	const uint32_t *bucket = table + 4 + bloom_words * (sizeof(ElfW(Addr)) / 4);
	const uint32_t *chain = bucket + buckets;
	uint32_t last = 0;
	for (uint32_t b = 0; b < buckets; b++)
		if (bucket[b] > last)
			last = bucket[b];
	if (last < first)
		return first;
	while (!(chain[last - first] & 1))
		last++;
	return (size_t)last + 1;
}

static void read_imports(const struct link_map *map, struct imports *o)
{
	*o = (struct imports){0};
	const uint32_t *hash = NULL, *gnu_hash = NULL;
	size_t soname = SIZE_MAX, runpath = SIZE_MAX;
	for (const ElfW(Dyn) *d = map->l_ld; d != NULL && d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB:
			o->symbols = (const ElfW(Sym) *)dynamic_address(map, d->d_un.d_ptr);
			break;
		case DT_STRTAB:
			o->strings = (const char *)dynamic_address(map, d->d_un.d_ptr);
			break;
		case DT_STRSZ:
			o->strings_size = d->d_un.d_val;
			break;
		case DT_SONAME:
			soname = d->d_un.d_val;
			break;
		case DT_VERSYM:
			o->versions = (const ElfW(Half) *)dynamic_address(map, d->d_un.d_ptr);
			break;
		case DT_VERNEED:
			o->needs = (const ElfW(Verneed) *)dynamic_address(map, d->d_un.d_ptr);
			break;
		case DT_VERNEEDNUM:
			o->need_count = d->d_un.d_val;
			break;
		case DT_HASH:
			hash = (const uint32_t *)dynamic_address(map, d->d_un.d_ptr);
			break;
		case DT_GNU_HASH:
			gnu_hash = (const uint32_t *)dynamic_address(map, d->d_un.d_ptr);
			break;
		case DT_RUNPATH:
			runpath = d->d_un.d_val;
			break;
		case DT_RPATH:
			o->rpath = true;
			break;
		case DT_FLAGS_1:
			o->no_default_paths = (d->d_un.d_val & DF_1_NODEFLIB) != 0;
			break;
		}
	}
	if (o->symbols == NULL || o->strings == NULL)
		o->symbol_count = 0;
	else if (hash != NULL)
		o->symbol_count = hash[1];
	else if (gnu_hash != NULL)
		o->symbol_count = gnu_hash_symbol_count(gnu_hash);
	if (o->needs == NULL)
		o->need_count = 0;
	if (soname != SIZE_MAX)
		o->soname = string_at(o->strings, o->strings_size, soname);
	if (runpath != SIZE_MAX) {
		o->runpath = string_at(o->strings, o->strings_size, runpath);
		if (o->runpath == NULL)
			o->no_default_paths = true; /* unreadable: taken as a search unlike any */
	}
}

/* The OpenMP runtime's names (GCC's OpenACC too): an unversioned import of one is libgomp's. */
static bool openmp_name(const char *name)
{
	return starts_with(name, "GOMP_") || starts_with(name, "GOACC_") ||
	       starts_with(name, "omp_") || starts_with(name, "acc_");
}

/* Versions an object needs of libgomp, by index: up to this many are kept. */
enum { MAX_NEEDED_VERSIONS = 64 };

/*
 * Whether libomp answers every import of the object `map` that libgomp would: each version it
 * needs of `file` (libgomp's name), each symbol of such a version, and each unversioned OpenMP
 * name. And whether the bridge, under libgomp's name, has each such version.
 */
static bool libomp_answers(const struct imports *imports, const char *file,
			   const struct definitions *omp, const struct definitions *bridge)
{
	const struct imports o = *imports;
	struct {
		unsigned index;
		const char *name;
	} needed[MAX_NEEDED_VERSIONS];
	size_t n_needed = 0;
	const ElfW(Verneed) *need = o.needs;
	for (size_t k = 0; k < o.need_count && need != NULL; k++) {
		const char *its_file = string_at(o.strings, o.strings_size, need->vn_file);
		if (its_file == NULL)
			return false;
		const ElfW(Vernaux) *aux = (const ElfW(Vernaux) *)((const char *)need +
								   need->vn_aux);
		for (size_t a = 0; same_text(its_file, file) && a < need->vn_cnt; a++) {
			const char *version = string_at(o.strings, o.strings_size, aux->vna_name);
			if (version == NULL || n_needed == MAX_NEEDED_VERSIONS)
				return false;
			if (!(aux->vna_flags & VER_FLG_WEAK) &&
			    (!has_version(omp, version) || !has_version(bridge, version)))
				return false;
			needed[n_needed].index = aux->vna_other & 0x7fff;
			needed[n_needed++].name = version;
			aux = (const ElfW(Vernaux) *)((const char *)aux + aux->vna_next);
		}
		need = need->vn_next != 0
			       ? (const ElfW(Verneed) *)((const char *)need + need->vn_next)
			       : NULL;
	}
	for (size_t i = 1; i < o.symbol_count; i++) {
		const ElfW(Sym) *s = &o.symbols[i];
		unsigned bind = ELF64_ST_BIND(s->st_info);
		if (s->st_shndx != SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK) ||
		    s->st_name == 0)
			continue;
		const char *name = string_at(o.strings, o.strings_size, s->st_name);
		if (name == NULL)
			return false;
		unsigned index = o.versions != NULL ? o.versions[i] & 0x7fff : VER_NDX_GLOBAL;
		const char *version = NULL;
		for (size_t v = 0; v < n_needed && version == NULL; v++)
			if (needed[v].index == index)
				version = needed[v].name;
		if (version != NULL ? !defines(omp, name, version)
				    : index <= VER_NDX_GLOBAL && openmp_name(name) &&
					      !defines(omp, name, NULL))
			return false;
	}
	return true;
}

/* ---- the note for the launcher ---- */

/* Appends the process's name (its comm) to NOTES/libomp.PID, made 0600, never through a link. */
static void leave_note(const char *notes)
{
	char path[4096 + 32], digits[24];
	size_t length = text_length(notes), n = 0;
	long pid = raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
	if (length == 0 || length + 32 > sizeof path || pid <= 0)
		return;
	for (size_t i = 0; i < length; i++)
		path[i] = notes[i];
	const char file[] = "/libomp.";
	for (size_t i = 0; file[i] != '\0'; i++)
		path[length++] = file[i];
	do
		digits[n++] = (char)('0' + pid % 10);
	while ((pid /= 10) > 0);
	while (n > 0)
		path[length++] = digits[--n];
	path[length] = '\0';

	char name[32];
	size_t name_length = 0;
	int comm = open_read("/proc/self/comm");
	if (comm >= 0) {
		name_length = read_some(comm, name, sizeof name - 1);
		close_file(comm);
	}
	while (name_length > 0 && name[name_length - 1] == '\n')
		name_length--;
	if (name_length == 0)
		return;
	name[name_length++] = '\n';
	long fd = raw_syscall(SYS_openat, AT_FDCWD, (long)path,
			      O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
				      O_NONBLOCK,
			      0600, 0, 0);
	if (raw_failed(fd))
		return;
	raw_syscall(SYS_write, fd, (long)name, (long)name_length, 0, 0, 0);
	close_file((int)fd);
}

/* ---- the audit interface ---- */

EXPORTED unsigned int la_version(unsigned int version)
{
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

/* The run's settings, read when the loader looks for libgomp.so.1 (the loader copies the paths
 * answered). */
static struct settings settings;

/* Whether the bridge was answered: its needs are answered only then. */
static bool bridge_answered;

/* ---- where libgomp is found ---- */

/* Whether the directory `dir` (`length` bytes) holds a file libgomp.so.1 (or cannot be told). */
static bool holds_libgomp(const char *dir, size_t length)
{
	char path[4096];
	if (length + 1 + sizeof libgomp_soname > sizeof path)
		return true;
	for (size_t i = 0; i < length; i++)
		path[i] = dir[i];
	path[length] = '/';
	for (size_t i = 0; i < sizeof libgomp_soname; i++)
		path[length + 1 + i] = libgomp_soname[i];
	long found = raw_syscall(SYS_faccessat, AT_FDCWD, (long)path, F_OK, 0, 0, 0);
	return found != -2 /* ENOENT */ && found != -20 /* ENOTDIR */;
}

/*
 * Whether the kernel started the dynamic linker as the program (`ld.so PROGRAM`, as ldd does):
 * /proc/self/exe is then ld.so, not the program. The kernel gives the dynamic linker's address
 * (AT_BASE) only to a program that names it as its interpreter. Unreadable: taken as so.
 */
static bool loader_run_as_program(void)
{
	int fd = open_read("/proc/self/auxv");
	if (fd < 0)
		return true;
	ElfW(auxv_t) entry;
	bool base = false;
	while (read_some(fd, (char *)&entry, sizeof entry) == sizeof entry &&
	       entry.a_type != AT_NULL)
		if (entry.a_type == AT_BASE)
			base = entry.a_un.a_val != 0;
	close_file(fd);
	return !base;
}

/*
 * The directory of the object `map` ($ORIGIN, as the loader expands it: the program's from
 * /proc/self/exe) into `dir`; its length, or 0 when there is none to tell (a relative name; the
 * program when ld.so was run as a command, whose name the loader keeps to itself).
 */
static size_t origin_of(const struct link_map *map, char *dir, size_t size)
{
	size_t length = 0;
	if (map->l_name != NULL && map->l_name[0] == '/') {
		length = text_length(map->l_name);
		if (length >= size)
			return 0;
		for (size_t i = 0; i < length; i++)
			dir[i] = map->l_name[i];
	} else if (map->l_name != NULL && map->l_name[0] == '\0' && map->l_prev == NULL &&
		   !loader_run_as_program()) {
		long n = raw_syscall(SYS_readlinkat, AT_FDCWD, (long)"/proc/self/exe", (long)dir,
				     (long)size, 0, 0);
		if (raw_failed(n) || (size_t)n >= size || n == 0 || dir[0] != '/')
			return 0;
		length = (size_t)n;
	}
	while (length > 0 && dir[length - 1] != '/')
		length--;
	return length > 1 ? length - 1 : length; /* "/" stays */
}

/*
 * Whether no directory of the DT_RUNPATH `runpath` of the object `map` holds a libgomp.so.1:
 * each an absolute path, or one below $ORIGIN ("${ORIGIN}"); any other ($LIB, $PLATFORM, a
 * relative one) is taken as one that does.
 */
static bool runpath_lacks_libgomp(const struct link_map *map, const char *runpath)
{
	char dir[4096];
	for (const char *at = runpath;; at++) {
		const char *end = at;
		while (*end != '\0' && *end != ':')
			end++;
		size_t length = 0, rest = 0;
		const char *tail = at;
		if (starts_with(at, "$ORIGIN") || starts_with(at, "${ORIGIN}")) {
			tail = at + (at[1] == '{' ? 9 : 7);
			length = origin_of(map, dir, sizeof dir);
			if (length == 0 || (tail != end && *tail != '/'))
				return false;
		} else if (*at != '/') {
			return false;
		}
		rest = (size_t)(end - tail);
		if (length + rest >= sizeof dir)
			return false;
		for (size_t i = 0; i < rest; i++) {
			if (tail[i] == '$')
				return false;
			dir[length + i] = tail[i];
		}
		if (holds_libgomp(dir, length + rest))
			return false;
		if (*end == '\0')
			return true;
		at = end;
	}
}

/*
 * Whether the bridge's search for libgomp (it needs libgomp.so.1, the bridge's loader being the
 * object `map` that needed libgomp, `o` its dynamic section) finds what the object's own search
 * would. Both walk the DT_RPATHs of the object and of those that loaded it, LD_LIBRARY_PATH, the
 * cache and the default directories; but the object's DT_RUNPATH is its own, and disables those
 * RPATHs for its search, and so is its DF_1_NODEFLIB. So, with a RUNPATH: none of its
 * directories holds a libgomp, and no object loaded has an RPATH.
 */
static bool bridge_searches_alike(const struct link_map *map, const struct imports *o)
{
	if (o->no_default_paths)
		return false;
	if (o->runpath == NULL)
		return true;
	if (!runpath_lacks_libgomp(map, o->runpath))
		return false;
	const struct link_map *each = map;
	while (each->l_prev != NULL)
		each = each->l_prev;
	for (; each != NULL; each = each->l_next) {
		struct imports other;
		read_imports(each, &other);
		if (other.rpath)
			return false;
	}
	return true;
}

/*
 * Whether the bridge, answering for libgomp, has every version the libgomp its search loads
 * defines: an object loaded later (dlopen) is checked against the bridge's versions, so a libgomp
 * newer than the one the bridge was built beside (a version node added by an upgrade) must keep
 * libgomp, or such an object would fail to load. The libgomp is the one the loader's cache names
 * (TASKPROBE_LIBGOMP, the launcher's); one that LD_LIBRARY_PATH may name instead (a directory of
 * it holding a libgomp.so.1, or a path too long to read) keeps libgomp too.
 */
static bool bridge_has_libgomps_versions(const struct definitions *bridge)
{
	if (settings.libgomp[0] == '\0')
		return false;
	const char *path = settings.library_path;
	if (*path != '\0') {
		for (const char *at = path;; at++) {
			const char *end = at;
			while (*end != '\0' && *end != ':')
				end++;
			if (end > at && holds_libgomp(at, (size_t)(end - at)))
				return false;
			if (*end == '\0')
				break;
			at = end;
		}
	}
	struct definitions gomp;
	if (!read_definitions(&gomp, settings.libgomp))
		return false;
	bool all = true;
	/* (the file's own base definition, its soname, is no version an object needs) */
	for (size_t i = 0; i < MAX_VERSIONS && all; i++)
		all = gomp.version_names[i] == NULL ||
		      same_text(gomp.version_names[i], libgomp_soname) ||
		      has_version(bridge, gomp.version_names[i]);
	drop_definitions(&gomp);
	return all;
}

EXPORTED char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
	if (flag != LA_SER_ORIG || name == NULL)
		return (char *)name;
	/* the bridge's needs: the libomp checked, and libgomp searched for by its name */
	if (bridge_answered && same_text(name, bridge_libomp))
		return settings.libomp;
	if (bridge_answered && same_text(name, bridge_libgomp))
		return (char *)libgomp_soname;
	if (!same_text(name, libgomp_soname) || cookie == NULL || *cookie == 0)
		return (char *)name;
	read_settings(&settings);
	if (settings.libomp[0] == '\0' || settings.bridge[0] == '\0' ||
	    (settings.listing[0] != '\0' && settings.listed[0] == '\0'))
		return (char *)name;
	const struct link_map *map = (const struct link_map *)*cookie;
	struct imports needing;
	read_imports(map, &needing);
	if (!bridge_searches_alike(map, &needing))
		return (char *)name;
	struct definitions omp, bridge;
	if (!read_definitions(&omp, settings.libomp))
		return (char *)name;
	if (!read_definitions(&bridge, settings.bridge)) {
		drop_definitions(&omp);
		return (char *)name;
	}
	if (!bridge_has_libgomps_versions(&bridge)) {
		drop_definitions(&bridge);
		drop_definitions(&omp);
		return (char *)name;
	}
	/*
	 * The object that needs libgomp, and every one loaded so far: libomp must answer all. And
	 * libomp must not be loaded already (preloaded, or a clang-built library's): libgomp then
	 * loads behind it as it would plainly, and the program's calls reach libomp all the same.
	 */
	while (map->l_prev != NULL)
		map = map->l_prev;
	bool answered = omp.soname != NULL;
	for (; map != NULL && answered; map = map->l_next) {
		struct imports o;
		read_imports(map, &o);
		answered = !(o.soname != NULL && same_text(o.soname, omp.soname)) &&
			   libomp_answers(&o, name, &omp, &bridge);
	}
	drop_definitions(&bridge);
	drop_definitions(&omp);
	if (!answered)
		return (char *)name;
	if (settings.notes[0] != '\0')
		leave_note(settings.notes);
	bridge_answered = true;
	return settings.bridge;
}
