// SPDX-License-Identifier: MIT
/* Names for a recording's code addresses (code_names.h). */
#define _GNU_SOURCE
#include "code_names.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "table.h"
#include "source_lines.h"
#include "symbolize.h"

/* Where Debian (and most distributions) put separate debug files, by build id. */
#define BUILD_ID_DIR "/usr/lib/debug/.build-id"

static bool read_files = true;

void code_names_read_files(bool read)
{
	read_files = read;
}

/*
 * A module's file as found here: the file to read for it (its own, or its debug file), or none.
 * One per recorded (path, build id), whichever images had it.
 */
struct module_file {
	char *path; /* as recorded */
	uint8_t build_id[TP_RECORD_MODULE_BUILD_ID_MAX];
	uint32_t build_id_bytes;
	char *file; /* what is read to name its code; NULL: nothing here is that module */
};

static struct module_file *files;
static size_t n_files, cap_files;
/* files by (path, build id): 1 + the index (uint32_t) */
static struct table file_table;

/* Notes are 4-byte aligned on every ABI recorded. */
#define NOTE_ALIGN(n) (((size_t)(n) + 3u) & ~(size_t)3u)

/* The build id in the notes at [offset, offset + size) of the `length` bytes at `image`. */
static bool build_id_in_notes(const unsigned char *image, size_t length, uint64_t offset,
			      uint64_t size, const uint8_t **id, uint32_t *id_bytes)
{
	if (offset > length || size > length - offset)
		return false;
	const unsigned char *p = image + offset, *end = p + size;
	while ((size_t)(end - p) >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr note;
		memcpy(&note, p, sizeof note);
		size_t name_at = sizeof note, desc_at;
		if (note.n_namesz > (size_t)(end - p) - name_at)
			return false;
		desc_at = name_at + NOTE_ALIGN(note.n_namesz);
		if (desc_at > (size_t)(end - p) || note.n_descsz > (size_t)(end - p) - desc_at)
			return false;
		if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
		    memcmp(p + name_at, "GNU", 4) == 0 &&
		    note.n_descsz <= TP_RECORD_MODULE_BUILD_ID_MAX) {
			*id = p + desc_at;
			*id_bytes = note.n_descsz;
			return true;
		}
		size_t next = desc_at + NOTE_ALIGN(note.n_descsz);
		if (next > (size_t)(end - p))
			return false;
		p += next;
	}
	return false;
}

/* An ELF file's table of section or program headers, as its header says. */
struct header_table {
	uint64_t offset;
	unsigned entry_size, entries;
	bool sections; /* else program headers */
};

/* The build id in the notes of the table's note sections or segments. */
static bool build_id_in_table(const unsigned char *image, size_t length, struct header_table t,
			      const uint8_t **id, uint32_t *id_bytes)
{
	size_t entry_size = t.sections ? sizeof(Elf64_Shdr) : sizeof(Elf64_Phdr);
	if (t.offset == 0 || t.entry_size != entry_size || t.offset > length ||
	    (uint64_t)t.entries * entry_size > length - t.offset)
		return false;
	for (unsigned i = 0; i < t.entries; i++) {
		const unsigned char *at = image + t.offset + (size_t)i * entry_size;
		uint64_t offset, size;
		bool notes;
		if (t.sections) {
			Elf64_Shdr sh;
			memcpy(&sh, at, sizeof sh);
			notes = sh.sh_type == SHT_NOTE, offset = sh.sh_offset, size = sh.sh_size;
		} else {
			Elf64_Phdr ph;
			memcpy(&ph, at, sizeof ph);
			notes = ph.p_type == PT_NOTE, offset = ph.p_offset, size = ph.p_filesz;
		}
		if (notes && build_id_in_notes(image, length, offset, size, id, id_bytes))
			return true;
	}
	return false;
}

/*
 * Whether the ELF file `image` (of `length` bytes) has the build id `want` (every offset and
 * size it gives checked against the file): its note sections, else its note segments.
 */
static bool has_build_id(const unsigned char *image, size_t length, const uint8_t *want,
			 uint32_t want_bytes)
{
	Elf64_Ehdr eh;
	if (length < sizeof eh)
		return false;
	memcpy(&eh, image, sizeof eh);
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64)
		return false;
	const uint8_t *id = NULL;
	uint32_t id_bytes = 0;
	bool found = build_id_in_table(
			     image, length,
			     (struct header_table){eh.e_shoff, eh.e_shentsize, eh.e_shnum, true},
			     &id, &id_bytes) ||
		     build_id_in_table(
			     image, length,
			     (struct header_table){eh.e_phoff, eh.e_phentsize, eh.e_phnum, false},
			     &id, &id_bytes);
	return found && id_bytes == want_bytes && memcmp(id, want, want_bytes) == 0;
}

/*
 * Whether `path` is a regular file that can be read (never a fifo, a device, or the kernel's
 * files that say they are regular, /proc's and /sys's: the path comes from the recording) and,
 * when `want_bytes`, is the build id `want`'s.
 */
static bool is_the_file(const char *path, const uint8_t *want, uint32_t want_bytes)
{
	struct stat st;
	if (path[0] != '/' || strncmp(path, "/proc/", 6) == 0 || strncmp(path, "/sys/", 5) == 0 ||
	    stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
	    access(path, R_OK) != 0)
		return false;
	if (want_bytes == 0)
		return true; /* a module built without a build id: its path is all there is */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	bool same = false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *image = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (image != MAP_FAILED) {
			same = has_build_id(image, (size_t)st.st_size, want, want_bytes);
			munmap(image, (size_t)st.st_size);
		}
	}
	close(fd);
	return same;
}

/* The file to read for module `m`: its own if it is the one recorded, else one of its build id. */
static char *file_of(const struct recorded_module *m)
{
	if (!read_files)
		return NULL;
	if (is_the_file(m->path, m->build_id, m->build_id_bytes))
		return strdup(m->path);
	if (m->build_id_bytes < 2)
		return NULL;
	/* the module's own file linked by its build id (Fedora's), else its debug file (Debian's) */
	char by_id[sizeof BUILD_ID_DIR + 2 * TP_RECORD_MODULE_BUILD_ID_MAX + 16];
	int n = snprintf(by_id, sizeof by_id, BUILD_ID_DIR "/%02x/", m->build_id[0]);
	for (uint32_t i = 1; i < m->build_id_bytes; i++)
		n += snprintf(by_id + n, sizeof by_id - (size_t)n, "%02x", m->build_id[i]);
	if (is_the_file(by_id, m->build_id, m->build_id_bytes))
		return strdup(by_id);
	snprintf(by_id + n, sizeof by_id - (size_t)n, ".debug");
	return is_the_file(by_id, m->build_id, m->build_id_bytes) ? strdup(by_id) : NULL;
}

static uint64_t file_hash(const char *path, const uint8_t *build_id, uint32_t build_id_bytes)
{
	uint64_t h = tp_hash_text(path);
	for (uint32_t i = 0; i < build_id_bytes; i++)
		h = tp_hash_mix(h, build_id[i]);
	return tp_hash_finish(h);
}

static uint64_t file_slot_hash(const void *context, const void *slot)
{
	(void)context;
	const struct module_file *f = &files[*(const uint32_t *)slot - 1];
	return file_hash(f->path, f->build_id, f->build_id_bytes);
}

/* Where m's module file is in file_table, or the free slot it would take. */
static size_t file_slot(const struct recorded_module *m)
{
	size_t i = table_home(&file_table, file_hash(m->path, m->build_id, m->build_id_bytes));
	for (; table_used(&file_table, i); i = table_next(&file_table, i)) {
		const struct module_file *f =
			&files[*(const uint32_t *)table_slot(&file_table, i) - 1];
		if (f->build_id_bytes == m->build_id_bytes &&
		    memcmp(f->build_id, m->build_id, m->build_id_bytes) == 0 &&
		    strcmp(f->path, m->path) == 0)
			break;
	}
	return i;
}

/* The index of m's module_file in `files`, found now if new; SIZE_MAX when out of memory. */
static size_t module_file_of(const struct recorded_module *m)
{
	if (file_table.slot_size == 0)
		table_init(&file_table, sizeof(uint32_t), sizeof(uint32_t), 64, file_slot_hash,
			   NULL);
	if (file_table.size > 0 && table_used(&file_table, file_slot(m)))
		return *(const uint32_t *)table_slot(&file_table, file_slot(m)) - 1;
	if (!table_room(&file_table))
		return SIZE_MAX;
	if (n_files == cap_files) {
		size_t cap = cap_files ? 2 * cap_files : 16;
		struct module_file *grown = realloc(files, cap * sizeof *files);
		if (grown == NULL)
			return SIZE_MAX;
		files = grown;
		cap_files = cap;
	}
	struct module_file *f = &files[n_files];
	*f = (struct module_file){.path = strdup(m->path), .build_id_bytes = m->build_id_bytes};
	if (f->path == NULL)
		return SIZE_MAX;
	memcpy(f->build_id, m->build_id, m->build_id_bytes);
	f->file = file_of(m);
	*(uint32_t *)table_fill(&file_table, file_slot(m)) = (uint32_t)n_files + 1;
	return n_files++;
}

/* Names given, by (module file, address in the file, kind): open addressing, grown at half. */
struct name {
	size_t file; /* module_file index + 1; 0: a free slot */
	uint64_t offset;
	unsigned kind;
	char *text;
};

static struct table name_table;

static uint64_t name_hash(size_t file, uint64_t offset, unsigned kind)
{
	return tp_hash_finish(offset ^ (uint64_t)file << 48 ^ (uint64_t)kind << 62);
}

static uint64_t name_slot_hash(const void *context, const void *slot)
{
	(void)context;
	const struct name *e = slot;
	return name_hash(e->file, e->offset, e->kind);
}

static struct name *name_find(size_t file, uint64_t offset, unsigned kind)
{
	if (name_table.size == 0)
		return NULL;
	for (size_t i = table_home(&name_table, name_hash(file, offset, kind));
	     table_used(&name_table, i); i = table_next(&name_table, i)) {
		struct name *e = table_slot(&name_table, i);
		if (e->file == file && e->offset == offset && e->kind == kind)
			return e;
	}
	return NULL;
}

/* Keeps `text` as the name of (file, offset, kind); nothing when out of memory. */
static void name_keep(size_t file, uint64_t offset, unsigned kind, const char *text)
{
	if (name_table.slot_size == 0)
		table_init(&name_table, sizeof(struct name), sizeof(size_t), 1024, name_slot_hash,
			   NULL);
	if (!table_room(&name_table))
		return;
	char *copy = strdup(text);
	if (copy == NULL)
		return;
	struct name *e = table_claim(&name_table, name_hash(file, offset, kind));
	*e = (struct name){file, offset, kind, copy};
}

/* The DWARF session's modules: (module_file index, bias) of the image named last. */
struct session_module {
	size_t file;
	uint64_t bias;
};
static struct session_module *session;
static size_t n_session;
/* the image whose modules the session was made of last */
static const struct recorded_module *session_image;
static size_t n_session_image;

/* Whether modules `a` and `b` lay over one another (one unloaded, the other loaded there since). */
static bool overlap(const struct recorded_module *a, const struct recorded_module *b)
{
	return a != b && a->start < b->end && b->start < a->end;
}

/*
 * Makes the session span the image's modules that have a file, unless it does already: all of
 * them but those that lay over `m` (a program that loads its plug-ins in turn where the last one
 * lay), whose addresses would be taken for m's.
 */
static void use_modules(const struct recorded_module *modules, size_t n,
			const struct recorded_module *m)
{
	bool overlaps = false;
	for (size_t i = 0; i < n && !overlaps; i++)
		overlaps = overlap(&modules[i], m);
	/* the image named last: its sites come together (recording.c), each naming it again; one
	 * with modules over m's, a session of its own for m's addresses */
	if (!overlaps && modules == session_image && n == n_session_image && session != NULL)
		return;
	session_image = overlaps ? NULL : modules;
	n_session_image = n;
	struct session_module *wanted = calloc(n + 1, sizeof *wanted);
	struct tp_source_module *given = calloc(n + 1, sizeof *given);
	size_t k = 0;
	for (size_t i = 0; wanted != NULL && given != NULL && i < n; i++) {
		if (overlaps && overlap(&modules[i], m))
			continue;
		size_t f = module_file_of(&modules[i]);
		if (f == SIZE_MAX || files[f].file == NULL)
			continue;
		wanted[k] = (struct session_module){f, modules[i].bias};
		given[k++] = (struct tp_source_module){.path = files[f].file,
						       .bias = (uintptr_t)modules[i].bias};
	}
	if (wanted != NULL && given != NULL &&
	    (k != n_session || memcmp(wanted, session, k * sizeof *wanted) != 0)) {
		tp_source_lines_use_modules(given, k);
		free(session);
		session = wanted;
		n_session = k;
		wanted = NULL;
	}
	free(wanted);
	free(given);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash != NULL ? slash + 1 : path;
}

/*
 * Names `address` with module file `f` (read from f->file), loaded at `bias`: as the console
 * does. A module read from its debug file is shown by its own name.
 */
static void name_from_file(const struct module_file *f, uint64_t bias, uint64_t address,
			   enum tp_site_code_kind kind, char *out, size_t size)
{
	if (kind == TP_SITE_CODE_FUNCTION)
		tp_symbolize_function_in_module(f->file, (uintptr_t)bias, (uintptr_t)address, out,
						size);
	else
		tp_symbolize_in_module(f->file, (uintptr_t)bias, (uintptr_t)address, true, out,
				       size);
	if (strcmp(f->file, f->path) == 0)
		return;
	/* "... (abcd.debug)": the module by its name */
	char shown[TP_RECORD_MODULE_PATH_MAX + 8];
	snprintf(shown, sizeof shown, " (%s)", base_name(f->file));
	size_t len = strlen(out), tail = strlen(shown);
	if (len >= tail && strcmp(out + len - tail, shown) == 0)
		snprintf(out + len - tail, size - (len - tail), " (%s)", base_name(f->path));
}

void code_name(const struct recorded_module *modules, size_t n_modules,
	       const struct recorded_module *m, uint64_t address, enum tp_site_code_kind kind,
	       char *out, size_t size)
{
	size_t f = m != NULL ? module_file_of(m) : SIZE_MAX;
	if (f == SIZE_MAX || address < m->bias) {
		/* a function outside every module has no name (symbolize.h) */
		if (kind == TP_SITE_CODE_FUNCTION && m == NULL)
			out[0] = '\0';
		else
			snprintf(out, size, "%#llx", (unsigned long long)address);
		return;
	}
	uint64_t offset = address - m->bias;
	const struct name *known = name_find(f + 1, offset, kind);
	if (known != NULL) {
		snprintf(out, size, "%s", known->text);
		return;
	}
	if (files[f].file != NULL) {
		use_modules(modules, n_modules, m);
		name_from_file(&files[f], m->bias, address, kind, out, size);
	} else if (kind == TP_SITE_CODE_FUNCTION) {
		/* no file of that build id here: a thread's routine by its module alone */
		snprintf(out, size, TP_THREAD_OF_MODULE, base_name(m->path));
	} else {
		/* no file of that build id here: the address in the module's file, and its name */
		snprintf(out, size, "%#llx (%s)", (unsigned long long)offset, base_name(m->path));
	}
	name_keep(f + 1, offset, kind, out);
}

void code_names_images_freed(void)
{
	session_image = NULL;
	n_session_image = 0;
}

void code_names_free(void)
{
	for (size_t i = 0; i < name_table.size; i++)
		free(((struct name *)table_slot(&name_table, i))->text);
	table_free(&name_table);
	for (size_t i = 0; i < n_files; i++) {
		free(files[i].path);
		free(files[i].file);
	}
	free(files);
	files = NULL;
	n_files = cap_files = 0;
	table_free(&file_table);
	free(session);
	session = NULL;
	n_session = 0;
	code_names_images_freed();
	tp_source_lines_use_modules(NULL, 0);
}
