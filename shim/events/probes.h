// SPDX-License-Identifier: MIT
/* The taskprobe provider as the shim fires it: the macros generated from dtrace/taskprobe.d. */
#pragma once

#include <stdint.h>

#include "taskprobe_contract.h" /* enum tp_wait_kind and the other numbers */

/*
 * Hidden semaphores are read PC-relative, one instruction, instead of through the GOT.
 *
 * Each probe fires from one site, its function tp_probe_NAME (made from the provider by
 * dtrace/probe_functions.py), which TP_PROBE_NAME(...) calls only while the probe's semaphore is
 * raised: a tracer loads a program for each site of a probe it attaches to (bpftrace about
 * 0.12 s each here: task-poll-end's ten sites, when its firing was inlined into each event that
 * fires it, took 1.4 s to attach, one 0.4 s), and each inlined copy of a probe was a site.
 */
#pragma GCC visibility push(hidden)
#include "taskprobe_provider.h"
#include "taskprobe_probe_functions.h"
#pragma GCC visibility pop

/*
 * sys/sdt.h puts each probe on a 1-byte nop. On x86-64 the kernel can only optimize a uprobe
 * into a call (instead of a trap) when it sits on a 5-byte nop, roughly halving the cost of
 * every hit, so the probe sites get `nopl 0x0(%rax,%rax,1)`. The notes are unchanged: readelf,
 * bpftrace and perf read them as usual. The nop is expanded where a probe is used, so redefining
 * it after the include is enough. Each site's address is also kept in the section
 * tp_probe_sites (TP_PROBE_SITE_KEPT, right after the probe: sys/sdt.h labels its site 990), for
 * probe_sites.c (a forked child must not jump through an optimized site). Nothing is emitted
 * outside a function: a top-level `.macro` was defined again in every unit that included this,
 * which a link-time optimized build (distributions' default flags) puts in one partition, and a
 * partition without it could not assemble its probes.
 */
#if defined(__x86_64__)
#undef _SDT_NOP
#define _SDT_NOP .nops 5
#define TP_PROBE_SITE_KEPT()                                                                       \
	__asm__ volatile(".pushsection tp_probe_sites, \"aw\"\n"                                   \
			 "	.balign 8\n"                                                            \
			 "	.quad 990b\n"                                                           \
			 "	.popsection\n")
#else
#define TP_PROBE_SITE_KEPT() ((void)0)
#endif

/*
 * A probe argument read from TLS would be described as `%fs:(%reg)`, and a constant as `$1`;
 * not every tracer parses these (perf 6.1 drops constant arguments, and then cannot define a
 * probe whose sites differ). This makes the compiler hand the value over in a register.
 */
#define TP_IN_REGISTER(x)                                                                          \
	({                                                                                         \
		__typeof__(x) v_ = (x);                                                            \
		__asm__("" : "+r"(v_));                                                            \
		v_;                                                                                \
	})

/* Symbols the shim interposes; everything else stays inside the library. */
#define TP_EXPORT __attribute__((visibility("default")))
