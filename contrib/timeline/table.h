// SPDX-License-Identifier: MIT
/*
 * The converter's one hash table (taskprobe-timeline; its analysis and the recordings' reader
 * too): open addressing with linear probing over a power-of-two number of fixed-size slots, held
 * at most half full. What a slot holds is the caller's: an entry (a task, a thread, a site), or
 * a number naming one kept elsewhere (1 + an index, an offset in a pool). A slot is free when its
 * first `key_size` bytes (4 or 8: the entry's key, the number) are zero, so no key is 0.
 *
 * A lookup is the caller's loop, which compares keys as it likes (no call per slot):
 *
 *	for (size_t i = table_home(t, hash); table_used(t, i); i = table_next(t, i))
 *		if (the entry at table_slot(t, i) is the one)
 *			return it;
 *	(not there: i is the free slot it would take, before any growth)
 *
 * What needs every slot's hash (growing, rebuilding, removing) calls the table's `hash` with its
 * `context`; it must give the hash the caller's lookups start from. The slots' order follows the
 * hashes and the order of the insertions and removals only, so two runs on one input iterate
 * alike (the converter's output depends on it).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct table {
	char *slots;
	size_t size, used; /* size: a power of two; 0 before the first growth */
	size_t slot_size, key_size;
	size_t first_size; /* the size at the first growth */
	uint64_t (*hash)(const void *context, const void *slot);
	const void *context;
	/* where the slots come from (table_use_allocator); NULL: calloc and free */
	void *(*take)(void *context, size_t bytes);
	void (*give)(void *context, void *slots, size_t bytes);
	void *allocator;
};

/* An empty table (nothing allocated yet) of slots of `slot_size` bytes, whose first `key_size`
 * bytes (4 or 8) are nonzero in use; `first_size` slots at its first growth (a power of two). */
void table_init(struct table *t, size_t slot_size, size_t key_size, size_t first_size,
		uint64_t (*hash)(const void *context, const void *slot), const void *context);

/*
 * The table's slots taken with `take` (zeroed, `bytes` of them; NULL when refused) and given
 * back with `give`, both passed `context`: for a user that counts its memory against a bound
 * (the analysis). Before the first growth.
 */
void table_use_allocator(struct table *t, void *(*take)(void *context, size_t bytes),
			 void (*give)(void *context, void *slots, size_t bytes), void *context);

/* Frees the slots (the table is empty again, as table_init left it). */
void table_free(struct table *t);

static inline void *table_slot(const struct table *t, size_t i)
{
	return t->slots + i * t->slot_size;
}

/* Whether slot `i` is in use. */
static inline bool table_used(const struct table *t, size_t i)
{
	const char *slot = t->slots + i * t->slot_size;
	if (t->key_size == 8) {
		uint64_t key;
		memcpy(&key, slot, sizeof key);
		return key != 0;
	}
	uint32_t key;
	memcpy(&key, slot, sizeof key);
	return key != 0;
}

/* Where the probe for `hash` starts (the table has slots), and the slot after `i`. */
static inline size_t table_home(const struct table *t, uint64_t hash)
{
	return (size_t)hash & (t->size - 1);
}

static inline size_t table_next(const struct table *t, size_t i)
{
	return (i + 1) & (t->size - 1);
}

/* Whether one more entry keeps the table at most half full (false with no slots yet). */
static inline bool table_has_room(const struct table *t)
{
	return (t->used + 1) * 2 <= t->size;
}

/* The table at twice its size (first_size at first); false when out of memory (unchanged). */
bool table_grow(struct table *t);

/* Room for one more entry, grown if need be; false when out of memory. */
bool table_room(struct table *t);

/*
 * The table again at `size` slots (a power of two) with the entries `keep` keeps (all when
 * NULL; it may change what it keeps, and sees each once, in slot order); false when out of
 * memory (the table unchanged, `keep` not called).
 */
bool table_rebuild(struct table *t, size_t size, bool (*keep)(void *context, void *slot),
		   void *context);

/* Counts free slot `i` in use and gives it, zeroed: the caller writes its key. */
static inline void *table_fill(struct table *t, size_t i)
{
	t->used++;
	return table_slot(t, i);
}

/* The free slot where an entry of `hash` goes (table_room first), counted in use, zeroed. */
void *table_claim(struct table *t, uint64_t hash);

/* Frees slot `slot` (in use): the entries after it in its run move back into the hole, so a
 * lookup never stops early. */
void table_remove(struct table *t, void *slot);
