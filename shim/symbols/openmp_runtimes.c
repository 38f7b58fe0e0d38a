// SPDX-License-Identifier: MIT
/* Which OpenMP runtimes the process has loaded (openmp_runtimes.h). */
#define _GNU_SOURCE
#include "openmp_runtimes.h"

#include <errno.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "warn.h"

struct runtimes_seen {
	enum tp_openmp_runtime first;
	bool libgomp_after_libomp;
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

static int look(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct runtimes_seen *seen = data;
	enum tp_openmp_runtime runtime = runtime_of(info->dlpi_name);
	if (runtime == TP_OPENMP_NONE)
		return 0;
	if (seen->first == TP_OPENMP_NONE)
		seen->first = runtime;
	else if (seen->first == TP_OPENMP_LIBOMP && runtime == TP_OPENMP_LIBGOMP)
		seen->libgomp_after_libomp = true;
	return 0;
}

static struct runtimes_seen runtimes(void)
{
	struct runtimes_seen seen = {TP_OPENMP_NONE, false};
	dl_iterate_phdr(look, &seen);
	return seen;
}

enum tp_openmp_runtime tp_openmp_runtime_first(void)
{
	return runtimes().first;
}

bool tp_openmp_libgomp_on_libomp(void)
{
	return runtimes().libgomp_after_libomp;
}

void tp_openmp_runtimes_start(void)
{
	if (tp_openmp_runtime_first() != TP_OPENMP_LIBGOMP)
		return;
	tp_warn("pid %d (%.100s) runs on GCC's libgomp, which has no tool interface: its tasks are "
		"not seen (its threads and waits are). taskprobe moves the program it starts onto "
		"LLVM's libomp, not the programs that one starts: run this one under taskprobe "
		"itself",
		(int)getpid(), program_invocation_short_name);
}
