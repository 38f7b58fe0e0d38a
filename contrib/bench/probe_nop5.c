// SPDX-License-Identifier: MIT
/* A bare USDT probe on a 5-byte nop, as the shim's probe sites are (see shim/events/probes.h). */
#include <sys/sdt.h>
#if defined(__x86_64__)
#undef _SDT_NOP
#define _SDT_NOP .nops 5
#endif

__attribute__((noinline)) void hit5(long i)
{
	STAP_PROBE1(bench, hit5, i);
}
