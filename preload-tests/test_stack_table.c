// SPDX-License-Identifier: MIT
/*
 * The stack table on its own (not preloaded): one id per distinct stack (linked into the
 * test), the same id from many threads at once (stack_table_threads.c), and bounded memory
 * under a million distinct stacks.
 */
#include <criterion/criterion.h>
#include <sys/resource.h>

#include "../shim/symbols/stack_table.h"
#include "harness.h"

/* A stack of `depth` frames that differs for every `seed`. */
static void make_stack(uintptr_t *pcs, uint32_t depth, uint64_t seed)
{
	for (uint32_t i = 0; i < depth; i++)
		pcs[i] = 0x400000 + seed * 131 + i * 7;
}

Test(stack_table, equal_stacks_share_an_id_and_different_ones_do_not)
{
	uintptr_t a[8], b[8];
	make_stack(a, 8, 1);
	make_stack(b, 8, 2);
	uint32_t ia = tp_stack_table_intern(a, 8), ib = tp_stack_table_intern(b, 8);
	cr_expect_neq(ia, 0);
	cr_expect_neq(ib, 0);
	cr_expect_neq(ia, ib);
	cr_expect_eq(tp_stack_table_intern(a, 8), ia);
	cr_expect_neq(tp_stack_table_intern(a, 7), ia, "a prefix is another stack");
	uint32_t depth;
	const uintptr_t *frames = tp_stack_table_frames(ia, &depth);
	cr_assert_eq(depth, 8);
	cr_expect_arr_eq(frames, a, sizeof a);
}

Test(stack_table, threads_interning_the_same_stacks_at_once_get_the_same_ids, .timeout = 60)
{
	/* a program of its own, built with the shim's sanitizer: under TSan, a race fails it */
	const char *argv[] = {tp_target("stack_table_threads"), NULL};
	struct tp_run run;
	tp_run(TP_PLAIN, argv, NULL, &run);
	cr_expect_eq(run.status, 0, "%s%s", run.out, run.err);
	cr_expect_str_eq(run.out, "2000 stacks, the same ids on 4 threads, frames intact\n");
	tp_run_free(&run);
}

static long max_rss_kib(void)
{
	struct rusage usage;
	getrusage(RUSAGE_SELF, &usage);
	return usage.ru_maxrss;
}

Test(stack_table, a_million_distinct_stacks_stay_within_the_cap, .timeout = 120)
{
	long before = max_rss_kib();
	uintptr_t pcs[32];
	size_t with_id = 0;
	for (uint64_t s = 0; s < 1000000; s++) {
		make_stack(pcs, 32, 5000000 + s);
		uint32_t id = tp_stack_table_intern(pcs, 32);
		cr_assert_leq(id, 2 * TP_STACKS_MAX);
		with_id += id != 0;
	}
	/* the frame pool (2^19 frames) holds 16384 stacks of 32 frames: the stack cap binds */
	cr_expect_eq(with_id, TP_STACKS_MAX, "%zu stacks got ids", with_id);
	cr_expect_eq(tp_stack_table_dropped(), 1000000 - TP_STACKS_MAX);
	/*
	 * The process grows by the table's cap and a little else (the test's own pages); without
	 * the cap a million 32-frame stacks would take 256 MiB.
	 */
	long grown = max_rss_kib() - before;
	long cap_kib = (2 * TP_STACKS_MAX * 16 + TP_STACK_FRAMES_MAX * 8) / 1024;
	cr_expect_leq(grown, cap_kib + 1024,
		      "the process grew by %ld KiB, the table's cap is %ld KiB", grown, cap_kib);
}
