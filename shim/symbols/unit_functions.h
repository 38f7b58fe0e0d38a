// SPDX-License-Identifier: MIT
/*
 * A compile unit's functions, listed by one walk of its DIEs and kept for the next names in it:
 * naming each site by a walk of its whole unit cost the unit's size for every site (a unit of
 * 60,000 functions with 300 task sites took 9.6 s at exit, and the console 35 s a snapshot).
 * Not for hot paths: the shim names code at exit, or where a tracer asked for names.
 */
#pragma once

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>

/* How deep the walk goes below a unit: a function's depth is at most this. */
#define TP_UNIT_WALK_DEPTH_MAX 64

/* A function or inlined call with code, as the walk met it (outer ones before those inside). */
struct tp_unit_function {
	Dwarf_Die die;
	Dwarf_Addr low, high; /* the bounds of its ranges, [low, high): haspc tells within them */
	const char *name;
	/* the nearest function around it (in DWARF) that the compiler did not make, or NULL */
	const char *around;
	int depth;
	bool made; /* the compiler made it (tp_die_compiler_made) */
};

/* A function the compiler did not make, defined at a unit's top or in a namespace or class. */
struct tp_unit_declared {
	const char *name;
	const char *file; /* declared in (tp_die_declared_in) */
	int line;
};

struct tp_unit_functions {
	const struct tp_unit_function *functions;
	size_t n_functions;
	const struct tp_unit_declared *declared;
	size_t n_declared;
};

/* The functions of `unit`, listed now if they are not kept; NULL when out of memory. */
const struct tp_unit_functions *tp_unit_functions_of(Dwarf_Die *unit);

/* Forgets every unit's list: called before the session whose DIEs they hold changes or ends. */
void tp_unit_functions_forget(void);

/* A DIE's name (its abstract origin's for an inlined call), or NULL. */
const char *tp_die_name(Dwarf_Die *die);

/*
 * Whether a function is one the compiler made, whose name means nothing to the person who wrote
 * the construct: marked artificial (GCC's "main._omp_fn.0", clang's ".omp_task_entry."), or named
 * so (tp_compiler_made_name: clang's ".omp_outlined._debug__.N", which it does not mark).
 */
bool tp_die_compiler_made(Dwarf_Die *die, const char *name);

/*
 * The file a function is declared in. DWARF 5 numbers the unit's primary file 0, which libdw
 * 0.188's dwarf_decl_file takes for no file: that one is the unit's own name.
 */
const char *tp_die_declared_in(Dwarf_Die *unit, Dwarf_Die *die);
