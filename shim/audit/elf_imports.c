// SPDX-License-Identifier: MIT
/* A loaded object's imports, and whether libomp answers them (elf_imports.h). */
#define _GNU_SOURCE
#include <elf.h>
#include <stdint.h>

#include "elf_imports.h"
#include "no_libc.h"

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

void read_imports(const struct link_map *map, struct imports *o)
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

bool libomp_answers(const struct imports *imports, const char *file, const struct definitions *omp,
		    const struct definitions *bridge, struct lack *lacking)
{
	const struct imports o = *imports;
	*lacking = (struct lack){NULL, NULL};
	/* a version libomp lacks (its index): the first name of it is said (at worst the version
	 * alone), and libomp answers not */
	bool version_lacked = false;
	unsigned lacked_index = 0;
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
			if (!(aux->vna_flags & VER_FLG_WEAK) && !version_lacked &&
			    (!has_version(omp, version) || !has_version(bridge, version))) {
				*lacking = (struct lack){NULL, version};
				version_lacked = true;
				lacked_index = aux->vna_other & 0x7fff;
			}
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
		if (version_lacked) {
			if (index == lacked_index) {
				lacking->name = name;
				return false;
			}
			continue;
		}
		const char *version = NULL;
		for (size_t v = 0; v < n_needed && version == NULL; v++)
			if (needed[v].index == index)
				version = needed[v].name;
		if (version != NULL ? !defines(omp, name, version)
				    : index <= VER_NDX_GLOBAL && openmp_name(name) &&
					      !defines(omp, name, NULL)) {
			*lacking = (struct lack){name, version};
			return false;
		}
	}
	return !version_lacked;
}
