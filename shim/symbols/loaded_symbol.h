// SPDX-License-Identifier: MIT
/*
 * A symbol's definition among the loaded objects' own dynamic symbols, whichever scope each was
 * loaded in: dlsym sees the global scope (and an object's own, through a handle the program
 * holds), not a library another one opened with dlopen(RTLD_LOCAL), as Python opens its
 * extension modules with their dependencies (an MPI library under mpi4py).
 */
#pragma once

#include <stdint.h>

/*
 * The definition of function or object `name` in the first loaded object that has one, but the
 * program (its scope is the global one) and the object at `skip` (an address in it: the shim,
 * whose own symbols are not what is looked for); NULL when none has. `*object` (unless NULL): the
 * object's load address, for tp_loaded_symbol_in. Read from each object's GNU hash table, as
 * dl_iterate_phdr lists them: callable from an indirect function's resolver once the shim is
 * relocated, and while another thread loads or unloads an object.
 */
void *tp_loaded_symbol(const char *name, const void *skip, uintptr_t *object);

/* The definition of `name` in the object loaded at `object` (tp_loaded_symbol's), or NULL. */
void *tp_loaded_symbol_in(uintptr_t object, const char *name);

/*
 * The definition of `name` in the object whose file is named `file` (its last part) in another
 * namespace than the program's: an LD_AUDIT module's (the launcher's), which dl_iterate_phdr
 * does not list. NULL when no such object has one, or the loader links no other namespace.
 */
void *tp_audit_symbol(const char *file, const char *name);
