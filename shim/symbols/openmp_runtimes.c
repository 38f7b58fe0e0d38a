// SPDX-License-Identifier: MIT
/* Which OpenMP runtimes the process has loaded (openmp_runtimes.h). */
#define _GNU_SOURCE
#include "openmp_runtimes.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "module_dynamic.h"
#include "../audit/libomp_lacks.h"
#include "loaded_symbol.h"
#include "settings.h"
#include "shown_text.h"
#include "warn.h"

struct runtimes_seen {
	enum tp_openmp_runtime first;
	bool libgomp_after_libomp;
	bool libgomp_loaded, libgomp_needed;
};

static enum tp_openmp_runtime runtime_of(const char *path)
{
	const char *name = path != NULL ? path : "";
	if (strrchr(name, '/') != NULL)
		name = strrchr(name, '/') + 1;
	if (strncmp(name, "libgomp.", 8) == 0 || strncmp(name, "libgomp-", 8) == 0)
		return TP_OPENMP_LIBGOMP;
	if (strncmp(name, "libomp.", 7) == 0 || strncmp(name, "libomp-", 7) == 0 ||
	    strncmp(name, "libiomp5", 8) == 0)
		return TP_OPENMP_LIBOMP;
	return TP_OPENMP_NONE;
}

/*
 * Whether the object needs libgomp: a DT_NEEDED entry of its dynamic section names it. The
 * loader leaves the string table's address relocated, or not where the section is read-only.
 */
static bool needs_libgomp(const struct dl_phdr_info *info)
{
	const ElfW(Dyn) *dynamic = tp_module_dynamic(info);
	if (dynamic == NULL)
		return false;
	uintptr_t strings = 0;
	size_t strings_size = 0;
	for (const ElfW(Dyn) *d = dynamic; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_STRTAB)
			strings = d->d_un.d_ptr;
		else if (d->d_tag == DT_STRSZ)
			strings_size = d->d_un.d_val;
	if (strings == 0)
		return false;
	if (strings < info->dlpi_addr)
		strings += info->dlpi_addr;
	for (const ElfW(Dyn) *d = dynamic; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_NEEDED && d->d_un.d_val < strings_size &&
		    runtime_of((const char *)strings + d->d_un.d_val) == TP_OPENMP_LIBGOMP)
			return true;
	return false;
}

static int look(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct runtimes_seen *seen = data;
	enum tp_openmp_runtime runtime = runtime_of(info->dlpi_name);
	if (runtime == TP_OPENMP_NONE) {
		seen->libgomp_needed = seen->libgomp_needed || needs_libgomp(info);
		return 0;
	}
	if (runtime == TP_OPENMP_LIBGOMP)
		seen->libgomp_loaded = true;
	if (seen->first == TP_OPENMP_NONE)
		seen->first = runtime;
	else if (seen->first == TP_OPENMP_LIBOMP && runtime == TP_OPENMP_LIBGOMP)
		seen->libgomp_after_libomp = true;
	return 0;
}

static struct runtimes_seen runtimes(void)
{
	struct runtimes_seen seen = {TP_OPENMP_NONE, false, false, false};
	dl_iterate_phdr(look, &seen);
	return seen;
}

enum tp_openmp_runtime tp_openmp_code_of(const void *address)
{
	Dl_info info;
	return dladdr(address, &info) != 0 ? runtime_of(info.dli_fname) : TP_OPENMP_NONE;
}

enum tp_openmp_runtime tp_openmp_runtime_first(void)
{
	return runtimes().first;
}

bool tp_openmp_libgomp_on_libomp(void)
{
	struct runtimes_seen seen = runtimes();
	/* libomp preloaded before libgomp or loaded ahead of it (the launcher's audit module's
	 * bridge), or loaded in its place */
	return seen.libgomp_after_libomp ||
	       (seen.first == TP_OPENMP_LIBOMP && seen.libgomp_needed && !seen.libgomp_loaded);
}

/*
 * What the launcher's audit module (shim/meson.build's taskprobe-audit) said libomp lacks of what
 * this process needs, when it kept libgomp for it: a name, or "version V" of libgomp's; shown,
 * into `out`. False when it said nothing (not loaded, or it named nothing).
 */
static bool libomp_lacks(char *out, size_t size)
{
	/* a text not ended within the array is not read */
	const char *said = tp_audit_symbol("libtaskprobe-audit.so", TP_LIBOMP_LACKS_NAME);
	if (said == NULL || said[0] == '\0' || memchr(said, '\0', TP_LIBOMP_LACKS_SIZE) == NULL)
		return false;
	tp_shown(out, size, said, 0);
	return true;
}

/* The start of the line on a process that runs on libgomp: its pid and name, then why. */
#define ON_LIBGOMP                                                                                 \
	"pid %d (%.100s) runs on GCC's libgomp, which has no tool interface: its tasks are not "   \
	"seen (its threads and waits are). "

void tp_openmp_runtimes_start(void)
{
	if (tp_openmp_runtime_first() != TP_OPENMP_LIBGOMP)
		return;
	const char *libomp = tp_settings()->libomp;
	if (libomp == NULL) {
		tp_warn(ON_LIBGOMP
			"taskprobe runs the programs of its run built for libgomp on LLVM's "
			"libomp, when libomp is installed (libomp-dev) and has all they call",
			(int)getpid(), program_invocation_short_name);
		return;
	}
	char lacks[256];
	bool named = libomp_lacks(lacks, sizeof lacks);
	tp_warn(ON_LIBGOMP "LLVM's libomp (%.200s), which taskprobe gives the programs of its run "
			   "built for libgomp, lacks %s%s: it stays on libgomp",
		(int)getpid(), program_invocation_short_name, libomp,
		named ? lacks
		      : "some of what this one calls, or this one brings a libgomp of its own",
		named ? ", which this one needs" : "");
}
