// SPDX-License-Identifier: MIT
/* The in-process consumers' clock (clock.h). */
#define _GNU_SOURCE
#include "clock.h"

#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "process.h"

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
 * Whether the kernel says the time-stamp counter is reliable (the first CPU's flags in
 * /proc/cpuinfo hold "tsc_reliable": the same on every CPU, so the kernel neither checks it
 * against another clock nor their synchronization). A virtual machine's kernel keeps time by its
 * hypervisor's clock (kvm-clock) whose reads cost twice a counter's (26 ns against 11 on the CI's
 * machine, at every event), though it is the counter scaled.
 */
static bool tsc_reliable(void)
{
	char text[4096];
	if (tp_process_read_start("/proc/cpuinfo", text, sizeof text) == 0)
		return false;
	const char *flags = strstr(text, "\nflags\t");
	if (flags == NULL)
		return false;
	size_t line = strcspn(flags + 1, "\n");
	const char *found = memmem(flags, line + 1, " tsc_reliable", 13);
	return found != NULL && (found[13] == ' ' || found[13] == '\n');
}

/*
 * The time-stamp counter is the clock when it is invariant (same rate in every CPU state) and
 * the kernel's own clock source, or one the kernel says is reliable: then CLOCK_MONOTONIC is a
 * linear function of it (the statistics time its rate: live_start.c).
 */
static bool tsc_usable(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000007u, &a, &b, &c, &d) || !(d & (1u << 8)))
		return false;
	char source[32];
	if (tp_process_read_start(
		    "/sys/devices/system/clocksource/clocksource0/current_clocksource", source,
		    sizeof source) == 0)
		return false;
	return strcmp(source, "tsc\n") == 0 || tsc_reliable();
#else
	return false;
#endif
}

void tp_clock_start(bool consumers)
{
	/* no consumer in the process, no clock read: no file read either (every process's
	 * start, a build's many compilers) */
	tp_clock_is_tsc = consumers && tsc_usable();
}
