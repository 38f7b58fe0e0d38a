// SPDX-License-Identifier: MIT
/*
 * System calls without the C library, for the audit module (libomp_audit.c): linked to no
 * library, it costs a process start no second libc of its own (the dynamic linker gives each
 * audit module a namespace, and a libc there doubles a trivial process's start-up time's
 * share of the loader). Where the architecture's calling sequence is not written here, the C
 * library's syscall() does it (meson links the module to libc there).
 */
#pragma once

#include <stdbool.h>
#include <sys/syscall.h>

#if defined(__x86_64__) || defined(__aarch64__)
#define TP_AUDIT_WITHOUT_LIBC 1

static inline long raw_syscall(long number, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long result;
	__asm__ volatile("syscall"
			 : "=a"(result)
			 : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return result;
#else
	register long x8 __asm__("x8") = number;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
#endif
}
/* The kernel's result: -errno on failure, as -4095..-1. */
static inline bool raw_failed(long result)
{
	return (unsigned long)result > -4096ul;
}
#else
#include <unistd.h>

static inline long raw_syscall(long number, long a, long b, long c, long d, long e, long f)
{
	return syscall(number, a, b, c, d, e, f);
}
static inline bool raw_failed(long result)
{
	return result == -1;
}
#endif
