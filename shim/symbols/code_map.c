// SPDX-License-Identifier: MIT
/* Where code lies (code_map.h). */
#define _GNU_SOURCE
#include "code_map.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "maps.h"
#include "process.h"
#include "real_symbol.h"
#include "source_lines.h"

static struct tp_code_module modules[TP_CODE_MODULES_MAX];
static uint32_t n_modules; /* published with release: entries below it are whole */
static pthread_mutex_t adding = PTHREAD_MUTEX_INITIALIZER;
/* The modules' spans apart from the rest of their entries: a look-up reads only these. */
static struct {
	uintptr_t start, end;
} spans[TP_CODE_MODULES_MAX];
/* (a module's entry keeps where it lay after it was unloaded and its span emptied: the code it
 * held is named by it, tp_code_module_held) */
/* dlclose calls seen (tp_code_map_unloads), and how many of them the spans reflect. */
static uint32_t unloads, unloads_checked;
/* The module this thread found last (index + 1): a thread's waits come from few places. */
static __thread uint32_t last_found __attribute__((tls_model("initial-exec")));

/* Notes are 4-byte aligned on every ABI the shim runs on. */
#define NOTE_ALIGN(n) (((n) + 3u) & ~3u)

/* The build id in `info`'s loaded PT_NOTE segments, into `m`. */
static void read_build_id(const struct dl_phdr_info *info, struct tp_code_module *m)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof *note;
			const char *desc = name + NOTE_ALIGN(note->n_namesz);
			if (desc + note->n_descsz > end)
				break;
			if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && note->n_descsz <= TP_CODE_BUILD_ID_MAX) {
				memcpy(m->build_id, desc, note->n_descsz);
				m->build_id_size = note->n_descsz;
				return;
			}
			p = desc + NOTE_ALIGN(note->n_descsz);
		}
	}
}

/* What a search of the mappings for a module's file fills (path_line). */
struct path_search {
	uintptr_t address;
	char *path;
	size_t size;
	bool found;
};

/*
 * One line of /proc/self/maps (tp_maps_line_fn): if it maps the file that holds the address, its
 * path, absolute (the kernel's), and the search ends; never a line cut short, nor a file deleted
 * since, whose name the kernel marks.
 */
static bool path_line(const char *line, bool whole, void *context)
{
	struct path_search *search = context;
	uintptr_t low, high;
	const char *rest = tp_maps_range(line, &low, &high);
	if (rest == NULL || search->address < low || search->address >= high)
		return false;
	const char *file = strchr(rest, '/');
	size_t n = file != NULL ? strlen(file) : 0;
	static const char deleted[] = " (deleted)";
	search->found = whole && file != NULL && n < search->size &&
			!(n >= sizeof deleted - 1 &&
			  strcmp(file + n - (sizeof deleted - 1), deleted) == 0);
	if (search->found)
		memcpy(search->path, file, n + 1);
	return true;
}

/*
 * The absolute path of the file mapped at `address`, from /proc/self/maps, into `path` (`size`
 * bytes); false if none is found. The loader names a module by the path it found it by, relative
 * when the program or LD_LIBRARY_PATH gave one (dlopen("./plugin.so"), LD_LIBRARY_PATH=.): the
 * console and the converter, processes of their own with a directory of their own, would read no
 * file of that name, and name none of its code. Read once a module, when it is added; not under a
 * system call filter (the caller's).
 */
static bool mapped_file_path(uintptr_t address, char *path, size_t size)
{
	struct path_search search = {.address = address, .path = path, .size = size};
	return tp_maps_lines(path_line, &search) && search.found;
}

/* mapped_file_path, errno kept: the program's, whose call made the module known. */
static bool mapped_file_path_kept(uintptr_t address, char *path, size_t size)
{
	int saved_errno = errno;
	bool found = mapped_file_path(address, path, size);
	errno = saved_errno;
	return found;
}

/* Whether a module loaded at `bias`, spanning from `start`, has an entry (an unloaded one's none). */
static bool known(uintptr_t bias, uintptr_t start)
{
	for (uint32_t i = 0; i < n_modules; i++)
		if (modules[i].bias == bias && modules[i].start == start && spans[i].end != 0)
			return true;
	return false;
}

/* Where `info`'s loaded segments lie: [*start, *end), end 0 when it has none. */
static void module_span(const struct dl_phdr_info *info, uintptr_t *start, uintptr_t *end)
{
	*start = UINTPTR_MAX, *end = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t from = info->dlpi_addr + ph->p_vaddr;
		if (from < *start)
			*start = from;
		if (from + ph->p_memsz > *end)
			*end = from + ph->p_memsz;
	}
}

/* Adds each loaded module not known yet (under `adding`). */
static int add_module(struct dl_phdr_info *info, size_t size, void *unused)
{
	(void)size, (void)unused;
	uintptr_t start, end;
	module_span(info, &start, &end);
	if (end == 0 || known(info->dlpi_addr, start) || n_modules == TP_CODE_MODULES_MAX)
		return 0;
	struct tp_code_module *m = &modules[n_modules];
	memset(m, 0, sizeof *m);
	m->bias = info->dlpi_addr;
	m->start = spans[n_modules].start = start;
	m->end = spans[n_modules].end = end;
	read_build_id(info, m);
	const char *name = info->dlpi_name != NULL ? info->dlpi_name : "";
	/* the main program (the vDSO has a name); none read under a filter (code_map.h) */
	if (name[0] == '\0' && !tp_process_filtered()) {
		int saved_errno = errno;
		ssize_t n = readlink("/proc/self/exe", m->path, sizeof m->path - 1);
		m->path[n > 0 ? n : 0] = '\0';
		errno = saved_errno;
	} else if (name[0] == '/' || strchr(name, '/') == NULL || tp_process_filtered() ||
		   !mapped_file_path_kept(start, m->path, sizeof m->path)) {
		/* absolute, or a name with no path (the vDSO's) */
		size_t n = strnlen(name, sizeof m->path - 1);
		memcpy(m->path, name, n);
		m->path[n] = '\0';
	}
	__atomic_store_n(&n_modules, n_modules + 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * dl_iterate_phdr's callback: marks in `loaded` the entry of each module still loaded, the same
 * where it lay, of the same span and build (another loaded since where one lay is not it).
 */
static int mark_loaded(struct dl_phdr_info *info, size_t size, void *loaded)
{
	(void)size;
	uintptr_t start, end;
	module_span(info, &start, &end);
	struct tp_code_module build = {0};
	read_build_id(info, &build);
	for (uint32_t i = 0; i < n_modules; i++)
		if (modules[i].bias == info->dlpi_addr && modules[i].start == start &&
		    modules[i].end == end && modules[i].build_id_size == build.build_id_size &&
		    memcmp(modules[i].build_id, build.build_id, build.build_id_size) == 0)
			((bool *)loaded)[i] = true;
	return 0;
}

/*
 * After a dlclose (under `adding`): the entries of modules no longer loaded hold no address from
 * now on. A span's end is emptied first: a look-up reading it meanwhile matches nothing.
 */
static void retire_unloaded(void)
{
	uint32_t seen = __atomic_load_n(&unloads, __ATOMIC_ACQUIRE);
	if (seen == unloads_checked)
		return;
	bool loaded[TP_CODE_MODULES_MAX] = {false};
	dl_iterate_phdr(mark_loaded, loaded);
	for (uint32_t i = 0; i < n_modules; i++)
		if (!loaded[i] && spans[i].end != 0) {
			__atomic_store_n(&spans[i].end, 0, __ATOMIC_RELEASE);
			__atomic_store_n(&spans[i].start, 0, __ATOMIC_RELEASE);
		}
	__atomic_store_n(&unloads_checked, seen, __ATOMIC_RELEASE);
}

void tp_code_map_unloads(void)
{
	__atomic_add_fetch(&unloads, 1, __ATOMIC_RELEASE);
}

/* Whether module `i`'s span holds `address` (a span emptied by retire_unloaded holds none). */
static inline bool in_span(uint32_t i, uintptr_t address)
{
	return address >= __atomic_load_n(&spans[i].start, __ATOMIC_RELAXED) &&
	       address < __atomic_load_n(&spans[i].end, __ATOMIC_RELAXED);
}

static uint32_t lookup(uintptr_t address)
{
	uint32_t n = __atomic_load_n(&n_modules, __ATOMIC_ACQUIRE), last = last_found;
	if (last != 0 && last <= n && in_span(last - 1, address))
		return last;
	for (uint32_t i = 0; i < n; i++)
		if (in_span(i, address))
			return last_found = i + 1;
	return 0;
}

/* Whether a dlclose came since the spans were last checked (retire_unloaded). */
static bool unloads_unchecked(void)
{
	return __atomic_load_n(&unloads, __ATOMIC_ACQUIRE) !=
	       __atomic_load_n(&unloads_checked, __ATOMIC_ACQUIRE);
}

uint32_t tp_code_module_of(uintptr_t address)
{
	uint32_t found = __builtin_expect(unloads_unchecked(), 0) ? 0 : lookup(address);
	if (__builtin_expect(found != 0, 1) || address == 0)
		return found;
	tp_real_pthread_mutex_lock(&adding);
	retire_unloaded();
	found = lookup(address);
	if (found == 0) {
		dl_iterate_phdr(add_module, NULL);
		found = lookup(address);
	}
	pthread_mutex_unlock(&adding);
	return found;
}

void tp_code_map_before_seccomp(void)
{
	tp_real_pthread_mutex_lock(&adding);
	retire_unloaded();
	dl_iterate_phdr(add_module, NULL);
	pthread_mutex_unlock(&adding);
}

const struct tp_code_module *tp_code_module(uint32_t index)
{
	return index < __atomic_load_n(&n_modules, __ATOMIC_ACQUIRE) ? &modules[index] : NULL;
}

uint32_t tp_code_modules(void)
{
	return __atomic_load_n(&n_modules, __ATOMIC_ACQUIRE);
}

/* Module `index`'s file into *m, and where it lay into [*start, *end), from its first page. */
static void module_as_source(uint32_t index, struct tp_source_module *m, uintptr_t *start,
			     uintptr_t *end)
{
	const struct tp_code_module *held = &modules[index];
	*m = (struct tp_source_module){.path = held->path,
				       .bias = held->bias,
				       .build_id = held->build_id,
				       .build_id_size = held->build_id_size};
	*start = held->start & ~((uintptr_t)getpagesize() - 1);
	*end = held->end;
}

bool tp_code_module_held(uintptr_t address, struct tp_source_module *m, uintptr_t *start,
			 uintptr_t *end)
{
	uint32_t found = tp_code_module_of(address);
	/* else the one unloaded module that held it, if only one did */
	for (uint32_t i = 0, n = tp_code_modules(); found == 0 && i < n; i++)
		if (address >= modules[i].start && address < modules[i].end) {
			for (uint32_t k = i + 1; k < n; k++)
				if (address >= modules[k].start && address < modules[k].end)
					return false;
			found = i + 1;
		}
	if (found == 0)
		return false;
	module_as_source(found - 1, m, start, end);
	return true;
}

bool tp_code_module_unloaded(uint32_t index, struct tp_source_module *m, uintptr_t *start,
			     uintptr_t *end)
{
	if (index >= tp_code_modules())
		return false;
	if (unloads_unchecked()) {
		tp_real_pthread_mutex_lock(&adding);
		retire_unloaded();
		pthread_mutex_unlock(&adding);
	}
	bool gone = __atomic_load_n(&spans[index].end, __ATOMIC_ACQUIRE) == 0;
	if (!gone || modules[index].path[0] != '/')
		return false;
	module_as_source(index, m, start, end);
	return true;
}

/* The file name prefixes of the libraries tp_code_in_system_library means. */
static const char *const system_libraries[] = {
	"libc.so",
	"libpthread.so",
	"libstdc++.so",
	"libgcc_s.so",
	"ld-linux",
	"libomp.so",
	"libiomp5.so",
	"libgomp.so",
	"libm.so",
	/* MPI's Fortran bindings, through which a program's call reaches a PMPI_ entry point */
	"libmpi_mpifh",
	"libmpi_usempi",
	"libmpichfort.so",
	"libmpifort.so",
	/* sanitizers' runtimes, whose interceptors a program's calls go through */
	"libasan.so",
	"libtsan.so",
	"libubsan.so",
	"liblsan.so",
};

/* By module index: 1 a system library, 2 not, 0 not looked at yet. */
static uint8_t system_module[TP_CODE_MODULES_MAX];

bool tp_code_in_system_library(uintptr_t address)
{
	uint32_t module = tp_code_module_of(address);
	if (module == 0)
		return false;
	uint8_t known = __atomic_load_n(&system_module[module - 1], __ATOMIC_RELAXED);
	if (known != 0)
		return known == 1;
	const char *path = modules[module - 1].path;
	const char *name = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	bool system = false;
	for (size_t i = 0; i < sizeof system_libraries / sizeof system_libraries[0] && !system; i++)
		system = strncmp(name, system_libraries[i], strlen(system_libraries[i])) == 0;
	__atomic_store_n(&system_module[module - 1], system ? 1 : 2, __ATOMIC_RELAXED);
	return system;
}

/* A fork while another thread adds or retires modules: the child gets the lock free. */
void tp_code_map_prepare_fork(void)
{
	tp_real_pthread_mutex_lock(&adding);
}

void tp_code_map_after_fork(void)
{
	pthread_mutex_unlock(&adding);
}
