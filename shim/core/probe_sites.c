// SPDX-License-Identifier: MIT
/*
 * The shim's probe sites in a forked child. A kernel that optimizes uprobes on 5-byte nops
 * (Linux 6.18 here) replaces an attached site with a call into a "[uprobes-trampoline]" page of
 * the process; fork() copies the patched code but not that page, so the child's first probe
 * hit jumps to nothing and dies (SIGSEGV). In the child each such site is put back in the
 * kernel's unoptimized form, a breakpoint followed by the rest of the original nop: the child's
 * hits then trap as uprobes do, are traced under its own pid, and the kernel can restore the
 * nop (it writes back the first byte) when the tracer leaves.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "probe_sites.h"

#include "real_symbol.h"

#if defined(__x86_64__)
extern const uintptr_t __start_tp_probe_sites[] __attribute__((visibility("hidden")));
extern const uintptr_t __stop_tp_probe_sites[] __attribute__((visibility("hidden")));

void tp_probe_sites_child_after_fork(void)
{
	static const unsigned char breakpoint_on_nop5[5] = {0xcc, 0x1f, 0x44, 0x00, 0x00};
	int saved = errno, mem = -1;
	for (const uintptr_t *site = __start_tp_probe_sites; site < __stop_tp_probe_sites; site++) {
		if (*(const volatile unsigned char *)*site != 0xe8) /* call rel32: optimized */
			continue;
		/* code pages are read-only: /proc/self/mem writes them as a debugger would */
		if (mem < 0 && (mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC)) < 0)
			break;
		(void)!pwrite(mem, breakpoint_on_nop5, sizeof breakpoint_on_nop5, (off_t)*site);
	}
	if (mem >= 0)
		tp_real_close(mem);
	errno = saved;
}
#else
void tp_probe_sites_child_after_fork(void)
{
}
#endif
