// SPDX-License-Identifier: MIT
/*
 * Spawn-stack capture plus dedup (the shim's tp_spawn_stack_capture, from a library built of the
 * shim's stack files) against bare unw_backtrace of the same depth, from the same frame, 40
 * frames down so that the depth limit binds.
 * Usage: stack_capture bare|capture COUNT   (one mode per run, for callgrind)
 *        stack_capture time COUNT           (both, timed, side by side)
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEPTH  32 /* TASKPROBE_STACK_DEPTH's default */
#define LEVELS 40

#define BUFFER (128 + 32) /* TP_SPAWN_STACK_BUFFER */
const uintptr_t *tp_bench_stack_capture(uintptr_t buffer[BUFFER], uint32_t *depth, uint32_t *id);

static uint64_t sink;

static void bare(long count)
{
	void *frames[DEPTH];
	for (long i = 0; i < count; i++)
		sink += (uint64_t)unw_backtrace(frames, DEPTH);
}

static void capture(long count)
{
	uintptr_t buffer[BUFFER];
	uint32_t depth, id;
	for (long i = 0; i < count; i++) {
		tp_bench_stack_capture(buffer, &depth, &id);
		sink += depth + id;
	}
}

static double ns_per_call(void (*fn)(long), long count)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	fn(count);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
	       (double)count;
}

__attribute__((noinline)) static void descend(int levels, const char *mode, long count)
{
	if (levels > 0) {
		descend(levels - 1, mode, count);
		__asm__ volatile("" ::: "memory"); /* a real frame per level */
		return;
	}
	if (strcmp(mode, "bare") == 0) {
		bare(count);
	} else if (strcmp(mode, "capture") == 0) {
		capture(count);
	} else {
		uintptr_t buffer[BUFFER];
		uint32_t depth, id;
		void *frames[DEPTH];
		tp_bench_stack_capture(buffer, &depth, &id);
		printf("frames: bare %d, captured %u\n", unw_backtrace(frames, DEPTH), depth);
		capture(1000); /* warm both */
		bare(1000);
		double b = 0, c = 0;
		for (int round = 0; round < 5; round++) { /* interleaved, side by side */
			b += ns_per_call(bare, count / 5);
			c += ns_per_call(capture, count / 5);
		}
		printf("bare unw_backtrace   %8.1f ns\ncapture + dedup      %8.1f ns\nratio        "
		       "        %8.2f\n",
		       b / 5, c / 5, c / b);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s bare|capture|time COUNT\n", argv[0]);
		return 2;
	}
	descend(LEVELS, argv[1], atol(argv[2]));
	return sink == 42; /* keep the results alive */
}
