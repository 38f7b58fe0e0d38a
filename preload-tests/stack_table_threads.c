// SPDX-License-Identifier: MIT
/*
 * The stack table under threads, as a program of its own so that it is built with the shim's
 * sanitizer (preload-tests/meson.build): ThreadSanitizer then checks the table's lock-free
 * inserts and lookups. Four threads intern the same stacks at once, each in its own order, and
 * read each stack's frames back. Prints one line; exit status 1 on any mismatch.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../shim/symbols/stack_table.h"

#define THREADS       4
#define SHARED_STACKS 2000
#define DEPTH         16

static uint32_t ids[THREADS][SHARED_STACKS];
static int frames_wrong[THREADS];

/* A stack of DEPTH frames that differs for every `seed`. */
static void make_stack(uintptr_t *pcs, uint64_t seed)
{
	for (uint32_t i = 0; i < DEPTH; i++)
		pcs[i] = 0x400000 + seed * 131 + i * 7;
}

static void *intern_all(void *arg)
{
	long t = (long)arg;
	uintptr_t pcs[DEPTH];
	for (int k = 0; k < SHARED_STACKS; k++) {
		int s = (k * 7 + (int)t * 499) % SHARED_STACKS;
		make_stack(pcs, 1000000 + (uint64_t)s);
		ids[t][s] = tp_stack_table_intern(pcs, DEPTH);
		uint32_t depth;
		const uintptr_t *frames = tp_stack_table_frames(ids[t][s], &depth);
		frames_wrong[t] += frames == NULL || depth != DEPTH ||
				   memcmp(frames, pcs, sizeof pcs) != 0;
	}
	return NULL;
}

int main(void)
{
	pthread_t threads[THREADS];
	for (long t = 0; t < THREADS; t++)
		pthread_create(&threads[t], NULL, intern_all, (void *)t);
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	for (int t = 0; t < THREADS; t++)
		if (frames_wrong[t] != 0) {
			printf("thread %d read %d stacks' frames wrong\n", t, frames_wrong[t]);
			return 1;
		}
	for (int s = 0; s < SHARED_STACKS; s++)
		for (int t = 0; t < THREADS; t++)
			if (ids[t][s] == 0 || ids[t][s] != ids[0][s]) {
				printf("stack %d: id %u on thread 0, %u on thread %d\n", s,
				       ids[0][s], ids[t][s], t);
				return 1;
			}
	printf("%d stacks, the same ids on %d threads, frames intact\n", SHARED_STACKS, THREADS);
	return 0;
}
