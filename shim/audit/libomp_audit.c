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
 *
 * By job: this file, the decision and the audit interface; run_settings.c, the settings;
 * elf_imports.c, the loaded objects' imports; elf_definitions.c, libomp's and the bridge's
 * definitions; libgomp_search.c, where the bridge's search finds libgomp; no_libc.h and .c, what
 * the C library would give.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf_definitions.h"
#include "elf_imports.h"
#include "libgomp_search.h"
#include "libomp_lacks.h"
#include "no_libc.h"
#include "run_settings.h"

#define EXPORTED __attribute__((visibility("default")))

/* The names the bridge needs libomp and libgomp by (meson gives them to gomp-bridge.sh too). */
#ifndef TP_BRIDGE_LIBOMP
#error "TP_BRIDGE_LIBOMP and TP_BRIDGE_LIBGOMP come from shim/meson.build"
#endif
static const char bridge_libomp[] = TP_BRIDGE_LIBOMP;
static const char bridge_libgomp[] = TP_BRIDGE_LIBGOMP;

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

/*
 * What libomp lacks of the process's imports when the module kept libgomp for it ("" when it did
 * not, or named nothing): an OpenMP name, or "version V" of libgomp's names. The shim reads it in
 * the module's namespace (loaded_symbol.h's tp_audit_symbol), for its line on such a process.
 */
EXPORTED char TP_LIBOMP_LACKS_SYMBOL[TP_LIBOMP_LACKS_SIZE];

/* Appends `text` to taskprobe_libomp_lacks at `*n`; false when it does not fit. */
static bool lack_said(size_t *n, const char *text)
{
	for (size_t i = 0; text[i] != '\0'; i++) {
		if (*n + 1 >= sizeof TP_LIBOMP_LACKS_SYMBOL)
			return false;
		TP_LIBOMP_LACKS_SYMBOL[(*n)++] = text[i];
	}
	return true;
}

/* Keeps `lacking` in taskprobe_libomp_lacks ("NAME", "NAME@VERSION" or "version VERSION"), whole
 * or not at all: no OpenMP name is too long. */
static void keep_lack(struct lack lacking)
{
	size_t n = 0;
	bool whole = lacking.name != NULL
			     ? lack_said(&n, lacking.name) &&
				       (lacking.version == NULL ||
					(lack_said(&n, "@") && lack_said(&n, lacking.version)))
			     : lacking.version != NULL && lack_said(&n, "version ") &&
				       lack_said(&n, lacking.version);
	TP_LIBOMP_LACKS_SYMBOL[whole ? n : 0] = '\0';
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
	if (!bridge_has_libgomps_versions(&settings, &bridge)) {
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
	struct lack lacking = {NULL, NULL};
	for (; map != NULL && answered; map = map->l_next) {
		struct imports o;
		read_imports(map, &o);
		answered = !(o.soname != NULL && same_text(o.soname, omp.soname)) &&
			   libomp_answers(&o, name, &omp, &bridge, &lacking);
	}
	if (!answered)
		keep_lack(lacking);
	drop_definitions(&bridge);
	drop_definitions(&omp);
	if (!answered)
		return (char *)name;
	if (settings.notes[0] != '\0')
		leave_note(settings.notes);
	bridge_answered = true;
	return settings.bridge;
}
