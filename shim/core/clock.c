// SPDX-License-Identifier: MIT
/* The in-process consumers' clock (clock.h). */
#define _GNU_SOURCE
#include "clock.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "real_symbol.h"

bool tp_clock_is_tsc;

uint64_t tp_clock_monotonic_ns_call(void)
{
	return tp_clock_monotonic_ns();
}

/* Readings taken for a pair of times, the tightest kept (one may be cut by preemption). */
#define CLOCK_PAIR_TRIES 3

void tp_clock_pair(uint64_t *clock_time, uint64_t *ns)
{
	uint64_t tightest = UINT64_MAX;
	for (int i = 0; i < CLOCK_PAIR_TRIES; i++) {
		uint64_t before = tp_clock_now();
		uint64_t monotonic = tp_clock_monotonic_ns();
		uint64_t after = tp_clock_now();
		if (after - before < tightest) {
			tightest = after - before;
			*clock_time = before + (after - before) / 2;
			*ns = monotonic;
		}
	}
}

/*
 * The time-stamp counter is the clock when it is invariant (same rate in every CPU state) and
 * the kernel's own clock source: then CLOCK_MONOTONIC is a linear function of it.
 */
static bool tsc_usable(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000007u, &a, &b, &c, &d) || !(d & (1u << 8)))
		return false;
	char source[32] = "";
	int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		      O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, source, sizeof source - 1);
	tp_real_close(fd);
	return n >= 3 && strncmp(source, "tsc\n", 4) == 0;
#else
	return false;
#endif
}

void tp_clock_start(void)
{
	tp_clock_is_tsc = tsc_usable();
}
