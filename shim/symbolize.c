/* Function names for addresses, read from the modules' ELF files (used by the exit report). */
#define _GNU_SOURCE
#include "symbolize.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A module's file, mapped once. */
struct elf_file {
	char path[512];
	const unsigned char *image;
	size_t size;
};

#define FILES_MAX 32
static struct elf_file files[FILES_MAX];
static unsigned n_files;

static const struct elf_file *open_elf(const char *path)
{
	for (unsigned i = 0; i < n_files; i++)
		if (strcmp(files[i].path, path) == 0)
			return files[i].image != NULL ? &files[i] : NULL;
	if (n_files == FILES_MAX)
		return NULL;
	struct elf_file *f = &files[n_files++];
	snprintf(f->path, sizeof f->path, "%s", path);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(ElfW(Ehdr))) {
		void *image = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (image != MAP_FAILED && memcmp(image, ELFMAG, SELFMAG) == 0) {
			f->image = image;
			f->size = (size_t)st.st_size;
		}
	}
	close(fd);
	return f->image != NULL ? f : NULL;
}

/* The function symbol of section type `type` (SHT_SYMTAB or SHT_DYNSYM) covering `addr`. */
static const char *lookup(const struct elf_file *f, unsigned type, uintptr_t addr, uintptr_t *start)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)f->image;
	if (eh->e_shoff == 0 || eh->e_shoff + (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) > f->size)
		return NULL;
	const ElfW(Shdr) *sections = (const ElfW(Shdr) *)(f->image + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const ElfW(Shdr) *sh = &sections[i];
		if (sh->sh_type != type || sh->sh_link >= eh->e_shnum ||
		    sh->sh_offset + sh->sh_size > f->size)
			continue;
		const ElfW(Shdr) *strings = &sections[sh->sh_link];
		if (strings->sh_offset + strings->sh_size > f->size)
			continue;
		const ElfW(Sym) *syms = (const ElfW(Sym) *)(f->image + sh->sh_offset);
		size_t n = sh->sh_size / sizeof(ElfW(Sym));
		for (size_t k = 0; k < n; k++) {
			const ElfW(Sym) *sym = &syms[k];
			if (ELF64_ST_TYPE(sym->st_info) /* the same for ELF32 */ != STT_FUNC || sym->st_value == 0 ||
			    addr < sym->st_value || addr >= sym->st_value + sym->st_size ||
			    sym->st_name >= strings->sh_size)
				continue;
			*start = sym->st_value;
			return (const char *)(f->image + strings->sh_offset + sym->st_name);
		}
	}
	return NULL;
}

void tp_symbolize(uintptr_t pc, char *out, size_t size)
{
	Dl_info info;
	if (dladdr((const void *)(pc - 1), &info) == 0 || info.dli_fname == NULL) {
		snprintf(out, size, "%#lx", (unsigned long)pc);
		return;
	}
	/* The executable's own name can read "": its file is /proc/self/exe. */
	const char *path = info.dli_fname[0] != '\0' ? info.dli_fname : "/proc/self/exe";
	const struct elf_file *f = open_elf(path);
	const char *name = NULL;
	uintptr_t start = 0;
	if (f != NULL) {
		bool relative = ((const ElfW(Ehdr) *)f->image)->e_type == ET_DYN;
		uintptr_t addr = pc - 1 - (relative ? (uintptr_t)info.dli_fbase : 0);
		name = lookup(f, SHT_SYMTAB, addr, &start);
		if (name == NULL)
			name = lookup(f, SHT_DYNSYM, addr, &start);
		if (name != NULL && relative)
			start += (uintptr_t)info.dli_fbase;
	}
	if (name != NULL)
		snprintf(out, size, "%s+%#lx (%s)", name, (unsigned long)(pc - start), path);
	else
		snprintf(out, size, "%#lx (%s)", (unsigned long)pc, path);
}
