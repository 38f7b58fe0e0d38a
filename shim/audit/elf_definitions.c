// SPDX-License-Identifier: MIT
/* The definitions of an ELF file, read from it (elf_definitions.h). */
#define _GNU_SOURCE
#include <elf.h>
#include <sys/mman.h>

#include "elf_definitions.h"
#include "no_libc.h"

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

bool read_definitions(struct definitions *d, const char *path)
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

void drop_definitions(struct definitions *d)
{
	if (d->file != NULL)
		raw_syscall(SYS_munmap, (long)d->file, (long)d->size, 0, 0, 0, 0);
}

bool defines(const struct definitions *d, const char *name, const char *version)
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

bool has_version(const struct definitions *d, const char *version)
{
	for (size_t i = 0; i < MAX_VERSIONS; i++)
		if (d->version_names[i] != NULL && same_text(d->version_names[i], version))
			return true;
	return false;
}
