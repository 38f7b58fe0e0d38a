// SPDX-License-Identifier: MIT
/* A compile unit's functions, listed once (unit_functions.h). */
#define _GNU_SOURCE
#include "unit_functions.h"

#include <dwarf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libdw_functions.h"
#include "source_lines.h"

/* Units kept: the exit report names a module's sites in a row, a unit's mostly together. */
#define UNITS_KEPT 4

struct kept {
	void *unit; /* the unit DIE's place in its .debug_info (Dwarf_Die.addr): which unit */
	struct tp_unit_functions list;
	struct tp_unit_function *functions;
	struct tp_unit_declared *declared;
	size_t functions_room, declared_room;
};

static struct kept kept[UNITS_KEPT];
static unsigned next_replaced;

const char *tp_die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	return tp_dw.attr_integrate(die, DW_AT_name, &attr) != NULL ? tp_dw.formstring(&attr)
								    : NULL;
}

bool tp_die_compiler_made(Dwarf_Die *die, const char *name)
{
	Dwarf_Attribute attr;
	bool artificial = false;
	if (tp_dw.attr_integrate(die, DW_AT_artificial, &attr) != NULL)
		(void)tp_dw.formflag(&attr, &artificial);
	return artificial || tp_compiler_made_name(name);
}

const char *tp_die_declared_in(Dwarf_Die *unit, Dwarf_Die *die)
{
	const char *file = tp_dw.decl_file(die);
	Dwarf_Attribute attr;
	Dwarf_Word index;
	if (file == NULL && tp_dw.attr_integrate(die, DW_AT_decl_file, &attr) != NULL &&
	    tp_dw.formudata(&attr, &index) == 0 && index == 0)
		file = tp_die_name(unit);
	return file;
}

/* Whether code can lie under a DIE of this tag: functions, blocks, and what holds functions. */
static bool may_hold_code(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		return true;
	default:
		return false;
	}
}

/* Grows `*items` (of `size` bytes each, `*room` of them) to hold `n` + 1; false if it cannot. */
static bool room_for_one_more(void **items, size_t *room, size_t n, size_t size)
{
	if (n < *room)
		return true;
	size_t more = *room > 0 ? 2 * *room : 256;
	void *grown = realloc(*items, more * size);
	if (grown == NULL)
		return false;
	*items = grown;
	*room = more;
	return true;
}

/* The bounds of `die`'s ranges in *low and *high; false when it has no code. */
static bool bounds(Dwarf_Die *die, Dwarf_Addr *low, Dwarf_Addr *high)
{
	Dwarf_Addr base, start, end;
	*low = UINT64_MAX;
	*high = 0;
	for (ptrdiff_t offset = 0; (offset = tp_dw.ranges(die, offset, &base, &start, &end)) > 0;) {
		*low = start < *low ? start : *low;
		*high = end > *high ? end : *high;
	}
	return *low < *high;
}

/*
 * Lists the functions under `parent`. Every DIE that may hold code is visited: GCC nests an
 * outlined OpenMP region ("main._omp_fn.0") inside its function's DIE but outside its ranges.
 * `around`: the nearest function around them that the compiler did not make. False when out of
 * memory.
 */
static bool list_functions(struct kept *k, Dwarf_Die *parent, int depth, const char *around)
{
	Dwarf_Die child;
	if (depth > TP_UNIT_WALK_DEPTH_MAX || tp_dw.child(parent, &child) != 0)
		return true;
	do {
		int tag = tp_dw.tag(&child);
		if (!may_hold_code(tag))
			continue;
		const char *inside = around;
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			const char *name = tp_die_name(&child);
			bool made = name == NULL || tp_die_compiler_made(&child, name);
			struct tp_unit_function f = {.die = child,
						     .name = name,
						     .around = around,
						     .depth = depth,
						     .made = made};
			if (name != NULL && bounds(&child, &f.low, &f.high)) {
				if (!room_for_one_more((void **)&k->functions, &k->functions_room,
						       k->list.n_functions, sizeof f))
					return false;
				k->functions[k->list.n_functions++] = f;
			}
			if (!made)
				inside = name;
		}
		if (!list_functions(k, &child, depth + 1, inside))
			return false;
	} while (tp_dw.siblingof(&child, &child) == 0);
	return true;
}

/* Lists the functions defined at the top of `parent`, or in its namespaces and classes (C has
 * no nested functions: what clang outlines stands alone there). False when out of memory. */
static bool list_declared(struct kept *k, Dwarf_Die *unit, Dwarf_Die *parent, int depth)
{
	Dwarf_Die child;
	if (depth > TP_UNIT_WALK_DEPTH_MAX || tp_dw.child(parent, &child) != 0)
		return true;
	do {
		int tag = tp_dw.tag(&child);
		if (tag == DW_TAG_subprogram && !tp_dw.hasattr(&child, DW_AT_declaration)) {
			const char *name = tp_die_name(&child);
			struct tp_unit_declared d = {.name = name};
			if (name != NULL && !tp_die_compiler_made(&child, name) &&
			    tp_dw.decl_line(&child, &d.line) == 0) {
				d.file = tp_die_declared_in(unit, &child);
				if (!room_for_one_more((void **)&k->declared, &k->declared_room,
						       k->list.n_declared, sizeof d))
					return false;
				k->declared[k->list.n_declared++] = d;
			}
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		     tag == DW_TAG_structure_type || tag == DW_TAG_module) &&
		    !list_declared(k, unit, &child, depth + 1))
			return false;
	} while (tp_dw.siblingof(&child, &child) == 0);
	return true;
}

static void forget(struct kept *k)
{
	free(k->functions);
	free(k->declared);
	*k = (struct kept){0};
}

/* The bytes of the lists kept together at most: a unit's list of a heavily inlined C++ unit is
 * tens of MiB, and a traced program's session lives as long as it does. */
#define KEPT_BYTES_MAX (64u << 20)

static size_t bytes_of(const struct kept *k)
{
	return k->functions_room * sizeof *k->functions + k->declared_room * sizeof *k->declared;
}

const struct tp_unit_functions *tp_unit_functions_of(Dwarf_Die *unit)
{
	for (unsigned i = 0; i < UNITS_KEPT; i++)
		if (kept[i].unit != NULL && kept[i].unit == unit->addr)
			return &kept[i].list;
	/* listed first, so that a list that cannot be made takes no kept one's place */
	struct kept fresh = {0};
	if (!list_functions(&fresh, unit, 0, NULL) || !list_declared(&fresh, unit, unit, 0)) {
		forget(&fresh);
		return NULL;
	}
	size_t bytes = bytes_of(&fresh);
	for (unsigned i = 0; i < UNITS_KEPT; i++)
		bytes += bytes_of(&kept[i]);
	if (bytes > KEPT_BYTES_MAX)
		tp_unit_functions_forget();
	struct kept *k = &kept[next_replaced];
	next_replaced = (next_replaced + 1) % UNITS_KEPT;
	forget(k);
	*k = fresh;
	k->unit = unit->addr;
	k->list.functions = k->functions;
	k->list.declared = k->declared;
	return &k->list;
}

void tp_unit_functions_forget(void)
{
	for (unsigned i = 0; i < UNITS_KEPT; i++)
		forget(&kept[i]);
	next_replaced = 0;
}
