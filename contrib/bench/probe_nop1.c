// SPDX-License-Identifier: MIT
/* A bare USDT probe on sys/sdt.h's usual 1-byte nop. */
#include <sys/sdt.h>

__attribute__((noinline)) void hit1(long i)
{
	STAP_PROBE1(bench, hit1, i);
}
