/* Resolving the real functions behind the interposed ones. */
#define _GNU_SOURCE
#include "real_symbol.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Set while this thread is inside dlsym: a call back into the shim must not resolve again. */
static __thread bool resolving __attribute__((tls_model("initial-exec")));

void *tp_real_symbol(const char *name, const char *version)
{
	if (resolving)
		return NULL;
	resolving = true;
	void *fn = version ? dlvsym(RTLD_NEXT, name, version) : NULL;
	if (fn == NULL)
		fn = dlsym(RTLD_NEXT, name);
	resolving = false;

	if (fn == NULL) {
		char line[160];
		int n = snprintf(line, sizeof line,
				 "taskprobe: cannot find the real %s; the call fails with ENOSYS\n", name);
		if (n > 0)
			(void)!write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
	}
	return fn;
}
