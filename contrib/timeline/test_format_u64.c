// SPDX-License-Identifier: MIT
/*
 * The converter's numbers (timeline_private.h's format_u64, every number of the JSON and of
 * speedscope's events): printf's digits for every value, written two at a time, nothing written
 * past them (meson test --suite unit).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "timeline_private.h"

/* format_u64's digits of `v` against printf's, and nothing written after them. */
static void check(uint64_t v)
{
	char got[32], want[32];
	memset(got, 'x', sizeof got);
	size_t n = format_u64(got, v);
	snprintf(want, sizeof want, "%" PRIu64, v);
	cr_assert_eq(n, strlen(want), "%s: %zu digits", want, n);
	cr_assert(memcmp(got, want, n) == 0, "%s: %.*s", want, (int)n, got);
	cr_assert_eq(got[n], 'x', "%s: a byte written after the digits", want);
}

Test(format_u64, every_value_has_printfs_digits)
{
	for (uint64_t v = 0; v < 1000000; v++)
		check(v);
	/* each power of ten, around it: the digits' count changes there */
	uint64_t power = 1;
	for (int i = 0; i < 20; i++) {
		check(power - 1);
		check(power);
		check(power + 1);
		if (i < 19)
			power *= 10;
	}
	check(UINT64_MAX);
	check(UINT64_MAX - 1);
	/* xorshift64*: the same spread of 64-bit values on every run */
	uint64_t state = 88172645463325252ull;
	for (int i = 0; i < 1000000; i++) {
		state ^= state >> 12;
		state ^= state << 25;
		state ^= state >> 27;
		check(state * 2685821657736338717ull);
	}
}
