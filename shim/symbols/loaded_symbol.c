// SPDX-License-Identifier: MIT
/*
 * Loaded objects' own dynamic symbols (loaded_symbol.h), looked up as the dynamic linker does in
 * one object: its GNU hash table's bucket, then the chain of symbols with that hash. An object
 * without a GNU hash table (linked before 2006, or with --hash-style=sysv) is not read.
 */
#define _GNU_SOURCE
#include "loaded_symbol.h"

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "module_dynamic.h"

/* An object's dynamic symbols, strings and GNU hash table, in memory. */
struct dynamic_symbols {
	const ElfW(Sym) * symbols;
	const char *strings;
	size_t strings_size;
	const uint32_t *hash;
};

/* The loader leaves a dynamic entry's address relocated, or not where the section is read-only
 * (openmp_runtimes.c's needs_libgomp reads it so too). `base`: the object's load address. */
static uintptr_t in_memory(uintptr_t address, uintptr_t base)
{
	return address != 0 && address < base ? address + base : address;
}

/* The dynamic symbols of the object loaded at `base` whose dynamic section is `dynamic`. */
static bool dynamic_symbols_of(uintptr_t base, const ElfW(Dyn) * dynamic,
			       struct dynamic_symbols *out)
{
	if (dynamic == NULL)
		return false;
	uintptr_t symbols = 0, strings = 0, hash = 0;
	out->strings_size = 0;
	for (const ElfW(Dyn) *d = dynamic; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_SYMTAB)
			symbols = d->d_un.d_ptr;
		else if (d->d_tag == DT_STRTAB)
			strings = d->d_un.d_ptr;
		else if (d->d_tag == DT_STRSZ)
			out->strings_size = d->d_un.d_val;
		else if (d->d_tag == DT_GNU_HASH)
			hash = d->d_un.d_ptr;
	out->symbols = (const ElfW(Sym) *)in_memory(symbols, base);
	out->strings = (const char *)in_memory(strings, base);
	out->hash = (const uint32_t *)in_memory(hash, base);
	return symbols != 0 && strings != 0 && hash != 0;
}

static uint32_t gnu_hash(const char *name)
{
	uint32_t h = 5381;
	for (const unsigned char *c = (const unsigned char *)name; *c != '\0'; c++)
		h = h * 33 + *c;
	return h;
}

/* Whether the string at `text` (at most `room` bytes) is `name`. No libc: a resolver may call. */
static bool named(const char *text, size_t room, const char *name)
{
	size_t i = 0;
	for (; i < room && name[i] != '\0'; i++)
		if (text[i] != name[i])
			return false;
	return i < room && text[i] == '\0';
}

/* The address of `name`'s definition (a function or an object) in the object loaded at `base`
 * whose dynamic section is `dynamic`. */
static void *defined_at(uintptr_t base, const ElfW(Dyn) * dynamic, const char *name)
{
	struct dynamic_symbols t;
	if (!dynamic_symbols_of(base, dynamic, &t))
		return NULL;
	uint32_t buckets_n = t.hash[0], first = t.hash[1], bloom_words = t.hash[2];
	if (buckets_n == 0)
		return NULL;
	const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(t.hash + 4) +
						     bloom_words);
	const uint32_t *chain = buckets + buckets_n;
	uint32_t hash = gnu_hash(name);
	for (uint32_t i = buckets[hash % buckets_n]; i != 0 && i >= first; i++) {
		uint32_t other = chain[i - first];
		const ElfW(Sym) *s = &t.symbols[i];
		unsigned type = s->st_info & 0xf; /* ELF32_ST_TYPE and ELF64_ST_TYPE alike */
		if ((other | 1) == (hash | 1) && s->st_shndx != SHN_UNDEF &&
		    (type == STT_FUNC || type == STT_OBJECT) && s->st_name < t.strings_size &&
		    named(t.strings + s->st_name, t.strings_size - s->st_name, name))
			return (void *)(base + s->st_value);
		if (other & 1)
			break;
	}
	return NULL;
}

static void *defined_in(const struct dl_phdr_info *info, const char *name)
{
	return defined_at(info->dlpi_addr, tp_module_dynamic(info), name);
}

/* Whether `address` lies in a loaded segment of the object of `info`. */
static bool holds(const struct dl_phdr_info *info, uintptr_t address)
{
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + p->p_vaddr;
		if (p->p_type == PT_LOAD && address >= start && address - start < p->p_memsz)
			return true;
	}
	return false;
}

struct search {
	const char *name;
	uintptr_t skip;   /* an address in an object passed over */
	uintptr_t object; /* the object searched alone (look_in), else where it was found */
	unsigned seen;    /* objects listed so far: the first is the program */
	void *found;
};

static int look(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct search *s = data;
	if (s->seen++ == 0 || holds(info, s->skip))
		return 0;
	s->found = defined_in(info, s->name);
	s->object = info->dlpi_addr;
	return s->found != NULL;
}

static int look_in(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct search *s = data;
	if (info->dlpi_addr != s->object)
		return 0;
	s->found = defined_in(info, s->name);
	return 1;
}

void *tp_loaded_symbol(const char *name, const void *skip, uintptr_t *object)
{
	struct search s = {.name = name, .skip = (uintptr_t)skip};
	dl_iterate_phdr(look, &s);
	if (object != NULL)
		*object = s.found != NULL ? s.object : 0;
	return s.found;
}

void *tp_loaded_symbol_in(uintptr_t object, const char *name)
{
	struct search s = {.name = name, .object = object};
	if (object != 0)
		dl_iterate_phdr(look_in, &s);
	return s.found;
}

void *tp_audit_symbol(const char *file, const char *name)
{
	/* the default namespace's rendezvous: version 2 links the others' (glibc 2.35 and later),
	 * in the larger struct r_debug_extended that _r_debug is the start of */
	if (__atomic_load_n(&_r_debug.r_version, __ATOMIC_ACQUIRE) < 2)
		return NULL;
	const void *rendezvous = &_r_debug;
	__asm__("" : "+r"(rendezvous)); /* not the declared struct r_debug's bounds */
	const struct r_debug_extended *ns = rendezvous;
	size_t length = strlen(file);
	for (ns = ns->r_next; ns != NULL; ns = ns->r_next)
		for (const struct link_map *m = ns->base.r_map; m != NULL; m = m->l_next) {
			size_t n = m->l_name != NULL ? strlen(m->l_name) : 0;
			if (n >= length && strcmp(m->l_name + n - length, file) == 0 &&
			    (n == length || m->l_name[n - length - 1] == '/'))
				return defined_at(m->l_addr, m->l_ld, name);
		}
	return NULL;
}
