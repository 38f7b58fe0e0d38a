// SPDX-License-Identifier: MIT
/*
 * Loading the shim's own helper libraries (libdw, libunwind, libstdc++) into the program without
 * losing the calling thread's thread-local storage of the libraries already loaded
 * (library_load.c says how glibc can lose it).
 */
#pragma once

/* dlopen(name, flags), the calling thread's TLS of the libraries loaded before kept whole. */
void *tp_library_load(const char *name, int flags);
