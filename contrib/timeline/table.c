// SPDX-License-Identifier: MIT
/* The converter's one hash table: see table.h. */
#include "table.h"

#include <stdlib.h>

void table_init(struct table *t, size_t slot_size, size_t key_size, size_t first_size,
		uint64_t (*hash)(const void *context, const void *slot), const void *context)
{
	*t = (struct table){.slot_size = slot_size,
			    .key_size = key_size,
			    .first_size = first_size,
			    .hash = hash,
			    .context = context};
}

void table_use_allocator(struct table *t, void *(*take)(void *context, size_t bytes),
			 void (*give)(void *context, void *slots, size_t bytes), void *context)
{
	t->take = take;
	t->give = give;
	t->allocator = context;
}

static void *slots_take(const struct table *t, size_t size)
{
	return t->take != NULL ? t->take(t->allocator, size * t->slot_size)
			       : calloc(size, t->slot_size);
}

static void slots_give(const struct table *t)
{
	if (t->give != NULL && t->slots != NULL)
		t->give(t->allocator, t->slots, t->size * t->slot_size);
	else if (t->give == NULL)
		free(t->slots);
}

void table_free(struct table *t)
{
	slots_give(t);
	t->slots = NULL;
	t->size = t->used = 0;
}

bool table_rebuild(struct table *t, size_t size, bool (*keep)(void *context, void *slot),
		   void *context)
{
	struct table fresh = *t;
	fresh.slots = slots_take(t, size);
	if (fresh.slots == NULL)
		return false;
	fresh.size = size;
	fresh.used = 0;
	for (size_t i = 0; i < t->size; i++) {
		void *slot = table_slot(t, i);
		if (!table_used(t, i) || (keep != NULL && !keep(context, slot)))
			continue;
		size_t j = table_home(&fresh, t->hash(t->context, slot));
		while (table_used(&fresh, j))
			j = table_next(&fresh, j);
		memcpy(table_fill(&fresh, j), slot, t->slot_size);
	}
	slots_give(t);
	*t = fresh;
	return true;
}

bool table_grow(struct table *t)
{
	return table_rebuild(t, t->size ? 2 * t->size : t->first_size, NULL, NULL);
}

bool table_room(struct table *t)
{
	return table_has_room(t) || table_grow(t);
}

void *table_claim(struct table *t, uint64_t hash)
{
	size_t i = table_home(t, hash);
	while (table_used(t, i))
		i = table_next(t, i);
	return memset(table_fill(t, i), 0, t->slot_size);
}

void table_remove(struct table *t, void *slot)
{
	size_t hole = (size_t)((char *)slot - t->slots) / t->slot_size;
	memset(slot, 0, t->key_size);
	t->used--;
	for (size_t i = table_next(t, hole); table_used(t, i); i = table_next(t, i)) {
		size_t home = table_home(t, t->hash(t->context, table_slot(t, i)));
		/* the entry may fill the hole if its home is not within (hole, i] */
		bool stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
		if (!stays) {
			memcpy(table_slot(t, hole), table_slot(t, i), t->slot_size);
			memset(table_slot(t, i), 0, t->key_size);
			hole = i;
		}
	}
}
