// SPDX-License-Identifier: MIT
/*
 * The in-process consumers' clock (the recorder's times, the live statistics' durations): the
 * CPU's time-stamp counter where the kernel keeps time by it, read in a few nanoseconds with no
 * call; else CLOCK_MONOTONIC in nanoseconds. Which one is decided once, at start.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* Whether tp_clock_now reads the time-stamp counter (else CLOCK_MONOTONIC nanoseconds). */
extern bool tp_clock_is_tsc __attribute__((visibility("hidden")));

/*
 * Decides the clock: called once by the constructor, before anything reads it; `consumers`:
 * an in-process consumer (recorder, live statistics, report) may read it.
 */
void tp_clock_start(bool consumers);

static inline uint64_t tp_clock_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* tp_clock_monotonic_ns out of line: tp_clock_now's rare path (clock.c). */
__attribute__((cold)) uint64_t tp_clock_monotonic_ns_call(void);

/*
 * At every event (events.h reads it once for all the consumers): the counter in line, and the
 * rare CLOCK_MONOTONIC a call, which costs the events' paths no stack frame.
 */
static inline __attribute__((always_inline)) uint64_t tp_clock_now(void)
{
#if defined(__x86_64__)
	if (__builtin_expect(tp_clock_is_tsc, 1))
		return __rdtsc();
#endif
	return tp_clock_monotonic_ns_call();
}

/* A moment in tp_clock_now's units and in CLOCK_MONOTONIC nanoseconds, read as one. */
void tp_clock_pair(uint64_t *clock_time, uint64_t *ns);
