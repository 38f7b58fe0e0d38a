// SPDX-License-Identifier: MIT
/*
 * The converter's one hash table (table.h), against a plain array of what it should hold: keys
 * that collide (a hash of a few bits), removals in the middle of runs, rebuilds that keep some,
 * growth (meson test --suite unit).
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "table.h"

#define KEYS 4096u

struct entry {
	uint64_t key; /* 0: a free slot */
	uint64_t value;
};

/* A poor hash on purpose: runs of colliding keys, so that removals move entries back. */
static uint64_t poor_hash(uint64_t key)
{
	return key % 61;
}

static uint64_t entry_hash(const void *context, const void *slot)
{
	(void)context;
	return poor_hash(((const struct entry *)slot)->key);
}

static struct entry *find(const struct table *t, uint64_t key)
{
	if (t->size == 0)
		return NULL;
	for (size_t i = table_home(t, poor_hash(key)); table_used(t, i); i = table_next(t, i)) {
		struct entry *e = table_slot(t, i);
		if (e->key == key)
			return e;
	}
	return NULL;
}

static void add(struct table *t, uint64_t key, uint64_t value)
{
	cr_assert(table_room(t));
	struct entry *e = table_claim(t, poor_hash(key));
	e->key = key;
	e->value = value;
}

/* Every key of `present` (of `n`) found with its value, and no other. */
static void check(const struct table *t, const bool *present, size_t n)
{
	size_t count = 0;
	for (uint64_t key = 1; key <= n; key++) {
		const struct entry *e = find(t, key);
		if (present[key - 1]) {
			cr_assert_not_null(e, "key %llu lost", (unsigned long long)key);
			cr_assert_eq(e->value, key * 7);
			count++;
		} else {
			cr_assert_null(e, "key %llu still there", (unsigned long long)key);
		}
	}
	cr_assert_eq(t->used, count);
	cr_assert(t->used * 2 <= t->size, "%zu of %zu slots used", t->used, t->size);
}

static bool keep_odd(void *context, void *slot)
{
	(*(size_t *)context)++;
	return ((struct entry *)slot)->key % 2 == 1;
}

Test(table, holds_what_was_added_less_what_was_removed)
{
	struct table t;
	table_init(&t, sizeof(struct entry), sizeof(uint64_t), 8, entry_hash, NULL);
	bool present[KEYS] = {false};
	for (uint64_t key = 1; key <= KEYS; key++) {
		add(&t, key, key * 7);
		present[key - 1] = true;
	}
	check(&t, present, KEYS);
	/* every third key removed, in an order unlike the insertions' */
	for (uint64_t k = 0; k < KEYS; k++) {
		uint64_t key = 1 + (k * 2654435761u) % KEYS;
		if (key % 3 == 0 && present[key - 1]) {
			struct entry *e = find(&t, key);
			cr_assert_not_null(e, "key %llu lost before its removal",
					   (unsigned long long)key);
			table_remove(&t, e);
			present[key - 1] = false;
		}
	}
	check(&t, present, KEYS);
	/* the even keys left out, each entry seen once */
	size_t seen = 0, before = t.used;
	cr_assert(table_rebuild(&t, t.size, keep_odd, &seen));
	cr_assert_eq(seen, before);
	for (uint64_t key = 2; key <= KEYS; key += 2)
		present[key - 1] = false;
	check(&t, present, KEYS);
	table_free(&t);
	cr_assert_eq(t.size, 0);
	cr_assert_null(find(&t, 1));
}

static uint64_t number_hash(const void *context, const void *slot)
{
	(void)context;
	return poor_hash(*(const uint32_t *)slot);
}

Test(table, a_table_of_numbers_is_free_at_zero)
{
	/* 4-byte slots (1 + an index, as the converter's frames and paths) */
	static const uint32_t values[] = {3, 1, 4, 159, 26, 5};
	struct table t;
	table_init(&t, sizeof(uint32_t), sizeof(uint32_t), 4, number_hash, NULL);
	for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
		cr_assert(table_room(&t));
		*(uint32_t *)table_claim(&t, values[i]) = values[i];
	}
	cr_assert_eq(t.used, 6);
	cr_assert_eq(t.size, 16, "grown at half full: %zu", t.size);
	size_t used = 0;
	for (size_t i = 0; i < t.size; i++)
		used += table_used(&t, i);
	cr_assert_eq(used, 6);
	table_free(&t);
}

/* What a counting allocator (the analysis's) has out. */
struct budget {
	size_t bytes, peak;
};

static void *budget_take(void *context, size_t bytes)
{
	struct budget *b = context;
	b->bytes += bytes;
	b->peak = b->bytes > b->peak ? b->bytes : b->peak;
	return calloc(1, bytes);
}

static void budget_give(void *context, void *slots, size_t bytes)
{
	((struct budget *)context)->bytes -= bytes;
	free(slots);
}

Test(table, its_slots_come_from_the_allocator_given)
{
	struct budget budget = {0};
	struct table t;
	table_init(&t, sizeof(struct entry), sizeof(uint64_t), 8, entry_hash, NULL);
	table_use_allocator(&t, budget_take, budget_give, &budget);
	bool present[100] = {false};
	for (uint64_t key = 1; key <= 100; key++) {
		add(&t, key, key * 7);
		present[key - 1] = true;
	}
	check(&t, present, 100);
	cr_assert_eq(budget.bytes, t.size * sizeof(struct entry));
	cr_assert_eq(budget.peak, budget.bytes + budget.bytes / 2, "the old slots given back");
	table_free(&t);
	cr_assert_eq(budget.bytes, 0);
}
