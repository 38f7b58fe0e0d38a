/* Resolving the real functions behind the interposed ones. */
#define _GNU_SOURCE
#include "real_symbol.h"

#include "warn.h"

#include <dlfcn.h>
#include <stdbool.h>

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

	if (fn == NULL)
		tp_warn("cannot find the real %s; the call fails with ENOSYS", name);
	return fn;
}
