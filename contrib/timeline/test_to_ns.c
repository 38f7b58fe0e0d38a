// SPDX-License-Identifier: MIT
/*
 * A recording's times in nanoseconds (recording_book.h's to_ns): its integer reckoning gives the
 * long double's nanosecond for every time, on clocks like a TSC's of 1 to 5 GHz and odd ones,
 * near whole nanoseconds and far from the clock pairs (meson test --suite unit).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdint.h>

#include "recording_book.h"

/* The converter's reckoning before the integer one: the reference. */
static uint64_t long_double_ns(const struct segment *s, uint64_t time)
{
	if (s->last_time <= s->first_time)
		return s->first_ns;
	long double slope = ((long double)s->last_ns - (long double)s->first_ns) /
			    ((long double)s->last_time - (long double)s->first_time);
	long double ns = (long double)s->first_ns +
			 ((long double)time - (long double)s->first_time) * slope;
	if (!(ns > 0))
		return 0;
	return ns >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)ns;
}

/* xorshift64*: the same numbers on every run */
static uint64_t next(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 2685821657736338717ull;
}

static void check_segment(uint64_t first_time, uint64_t first_ns, uint64_t ticks, uint64_t ns,
			  uint64_t *state)
{
	struct segment s = {.clock = TP_CLOCK_TSC,
			    .first_time = first_time,
			    .first_ns = first_ns,
			    .last_time = first_time + ticks,
			    .last_ns = first_ns + ns};
	segment_slope(&s);
	for (int i = 0; i < 20000; i++) {
		uint64_t r = next(state), time;
		switch (i % 4) {
		case 0: /* within the pairs */
			time = first_time + r % (ticks + 1);
			break;
		case 1: /* near the first pair, before it too */
			time = first_time + r % 4096 - 2048;
			break;
		case 2: /* far after the pairs */
			time = first_time + (r >> (r % 64));
			break;
		default: /* times whose exact value is nearly a whole nanosecond */
			time = first_time + (ticks / 1000) * (r % 2000);
		}
		cr_assert_eq(to_ns(&s, time), long_double_ns(&s, time),
			     "first_time %" PRIu64 " first_ns %" PRIu64 " ticks %" PRIu64
			     " ns %" PRIu64 " time %" PRIu64,
			     first_time, first_ns, ticks, ns, time);
	}
}

Test(to_ns, integer_reckoning_is_the_long_double_one)
{
	uint64_t state = 0x9e3779b97f4a7c15ull;
	for (int k = 0; k < 300; k++) {
		uint64_t first_time = next(&state) >> (k % 20),
			 first_ns = next(&state) >> (2 + k % 30);
		uint64_t seconds = 1 + next(&state) % 100;
		uint64_t hz = 1000000000ull + next(&state) % 4000000000ull; /* 1 to 5 GHz */
		check_segment(first_time, first_ns, seconds * hz, seconds * 1000000000ull, &state);
	}
	/* exact ratios (a 2 or 2.5 GHz clock), a slope just below 1, pairs far apart */
	check_segment(1000, 5000, 2000000000, 1000000000, &state);
	check_segment(123456789, 987654321, 5000000000ull, 2000000000, &state);
	check_segment(0, 0, 1000000001, 1000000000, &state);
	check_segment(1ull << 40, (1ull << 61) - 1, 1ull << 45, 1ull << 44, &state);
	check_segment(1ull << 62, 1ull << 61, 3ull << 40, 1ull << 40, &state);
}
