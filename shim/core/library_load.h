// SPDX-License-Identifier: MIT
/*
 * Loading the shim's own helper libraries (libdw, libunwind, libstdc++) into the program without
 * losing the calling thread's thread-local storage of the libraries already loaded
 * (library_load.c says how glibc can lose it).
 */
#pragma once

#include <stddef.h>

/*
 * dlopen(name, flags), the calling thread's TLS of the libraries loaded before kept whole. When
 * it fails, dlerror's message goes to `why` (`why_size` bytes; none if NULL): read before libc's
 * TLS, which holds dlerror's state, may be put back as it was before the load.
 */
void *tp_library_load(const char *name, int flags, char *why, size_t why_size);
