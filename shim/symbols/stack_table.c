// SPDX-License-Identifier: MIT
/*
 * The spawn-stack table: open addressing over a power-of-two array of slots, linear probing,
 * slots never freed. A slot is claimed by CAS on its key (the stack's hash), filled, then
 * published by its state; a thread that finds a slot with its hash still being filled waits for
 * it (a few dozen instructions), then compares frames, so a hash collision costs a probe, never
 * a wrong id. The id is the slot's index plus one.
 */
#define _GNU_SOURCE
#include "stack_table.h"

#include "hash.h"
#include "spin_lock.h"

#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

#define SLOTS (2 * TP_STACKS_MAX) /* at most half full: probes stay short */

enum { SLOT_FILLING = 0, SLOT_READY = 1, SLOT_UNUSABLE = 2 };

struct slot {
	uint64_t key;         /* 0: free; else the stack's hash (never 0) */
	uint32_t first_frame; /* index into the frame pool */
	uint16_t depth;
	uint16_t state;
};

struct table {
	struct slot slots[SLOTS];
	uintptr_t frames[TP_STACK_FRAMES_MAX];
	/* each stack's spawn site key (tp_stack_table_site_is): a page touched only where a
	 * sampled spawn says its site */
	uint32_t site_keys[SLOTS];
};

static struct table *table;
static uint32_t stacks_used, frames_used;
static uint64_t dropped;

/* The table, reserved (not touched) on first use; racing first users keep one. */
static struct table *get_table(void)
{
	struct table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	if (__builtin_expect(t != NULL, 1))
		return t;
	void *fresh = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (fresh == MAP_FAILED)
		return NULL;
	if (!__atomic_compare_exchange_n(&table, &t, fresh, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		munmap(fresh, sizeof *t);
		return t;
	}
	return fresh;
}

/* Two operations a frame, and a final mix so that the low bits (the slot) depend on all. */
static uint64_t hash_frames(const uintptr_t *pcs, uint32_t depth)
{
	uint64_t h = depth;
	for (uint32_t i = 0; i < depth; i++)
		h = tp_hash_mix(h, pcs[i]);
	return tp_hash_finish(h) | 1;
}

static uint32_t drop(void)
{
	__atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED);
	return 0;
}

/* Fills a slot this thread claimed; false when the frame pool is exhausted. */
static bool fill(struct table *t, struct slot *s, const uintptr_t *pcs, uint32_t depth)
{
	uint32_t first = __atomic_fetch_add(&frames_used, depth, __ATOMIC_RELAXED);
	if (first + depth > TP_STACK_FRAMES_MAX ||
	    __atomic_add_fetch(&stacks_used, 1, __ATOMIC_RELAXED) > TP_STACKS_MAX) {
		__atomic_store_n(&s->state, SLOT_UNUSABLE, __ATOMIC_RELEASE);
		return false;
	}
	memcpy(&t->frames[first], pcs, depth * sizeof *pcs);
	s->first_frame = first;
	s->depth = (uint16_t)depth;
	__atomic_store_n(&s->state, SLOT_READY, __ATOMIC_RELEASE);
	return true;
}

uint32_t tp_stack_table_intern(const uintptr_t *pcs, uint32_t depth)
{
	struct table *t = get_table();
	if (t == NULL || depth == 0)
		return drop();
	uint64_t h = hash_frames(pcs, depth);
	for (uint32_t probe = 0; probe < SLOTS; probe++) {
		uint32_t index = (uint32_t)(h + probe) & (SLOTS - 1);
		struct slot *s = &t->slots[index];
		uint64_t key = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
		if (key == 0) {
			/* full: drop now rather than claim slots that cannot be filled */
			if (__atomic_load_n(&stacks_used, __ATOMIC_RELAXED) >= TP_STACKS_MAX ||
			    __atomic_load_n(&frames_used, __ATOMIC_RELAXED) + depth >
				    TP_STACK_FRAMES_MAX)
				return drop();
			if (__atomic_compare_exchange_n(&s->key, &key, h, false, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE))
				return fill(t, s, pcs, depth) ? index + 1 : drop();
			/* lost the slot to another thread: `key` now holds its hash */
		}
		if (key != h)
			continue;
		/*
		 * The filling thread is a few instructions from done, unless it was in another
		 * thread at fork and this is the child: then the slot never fills, and is passed.
		 */
		uint16_t state;
		for (uint32_t spins = 0;
		     (state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE)) == SLOT_FILLING &&
		     spins < (1u << 20);
		     spins++)
			tp_cpu_relax();
		if (state == SLOT_READY && s->depth == depth &&
		    memcmp(&t->frames[s->first_frame], pcs, depth * sizeof *pcs) == 0)
			return index + 1;
	}
	return drop();
}

const uintptr_t *tp_stack_table_frames(uint32_t id, uint32_t *depth)
{
	struct table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	*depth = 0;
	if (t == NULL || id == 0 || id > SLOTS)
		return NULL;
	struct slot *s = &t->slots[id - 1];
	if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != SLOT_READY ||
	    __atomic_load_n(&s->key, __ATOMIC_RELAXED) == 0)
		return NULL;
	*depth = s->depth;
	return &t->frames[s->first_frame];
}

void tp_stack_table_site_is(uint32_t id, uint32_t site_key)
{
	struct table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	if (t != NULL && id != 0 && id <= SLOTS && site_key != 0 &&
	    __atomic_load_n(&t->site_keys[id - 1], __ATOMIC_RELAXED) != site_key)
		__atomic_store_n(&t->site_keys[id - 1], site_key, __ATOMIC_RELAXED);
}

uint32_t tp_spawn_stack_site_key(uint32_t stack)
{
	if (stack > TP_SPAWN_STACK_OF_EXECUTOR)
		return stack - TP_SPAWN_STACK_OF_EXECUTOR;
	struct table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	if (t == NULL || stack == 0 || stack > SLOTS)
		return 0;
	return __atomic_load_n(&t->site_keys[stack - 1], __ATOMIC_RELAXED);
}

uint64_t tp_stack_table_dropped(void)
{
	return __atomic_load_n(&dropped, __ATOMIC_RELAXED);
}
