// SPDX-License-Identifier: MIT
/* The asymmetric fence (fence.h). */
#define _GNU_SOURCE
#include "fence.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "process.h"
#include "real_symbol.h"

int tp_fence_state;

static long membarrier(int command)
{
	return tp_real_syscall3(SYS_membarrier, command, 0, 0);
}

/*
 * Whether /proc/self/status's "Seccomp:" line says a filter (or strict mode) is in place, or
 * the file cannot tell (unreadable, no such line).
 */
static bool started_filtered(void)
{
	static const char key[] = "\nSeccomp:";
	char text[4096];
	size_t length = tp_process_read_start("/proc/self/status", text, sizeof text);
	const char *line = length > 0 ? strstr(text, key) : NULL;
	if (line == NULL)
		return true;
	const char *mode = line + sizeof key - 1;
	mode += strspn(mode, " \t");
	return *mode != '0';
}

void tp_fence_start(bool wanted)
{
	if (!wanted || tp_process_filtered())
		return;
	int saved_errno = errno;
	if (!started_filtered() && membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
		__atomic_store_n(&tp_fence_state, TP_FENCE_LIGHT, __ATOMIC_RELEASE);
	errno = saved_errno;
}

void tp_fence_heavy(void)
{
	int was = __atomic_exchange_n(&tp_fence_state, TP_FENCE_FULL, __ATOMIC_SEQ_CST);
	/* under a filter no light side is left (tp_fence_before_seccomp) */
	if (was != TP_FENCE_LIGHT || tp_process_filtered())
		return;
	int saved_errno = errno;
	/* registered by this process, but not by a child of a kernel that does not keep it across
	 * fork: the global kind, milliseconds */
	if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0)
		(void)membarrier(MEMBARRIER_CMD_GLOBAL);
	errno = saved_errno;
}

/*
 * Full fences from now on, published by a membarrier while the shim may still ask the kernel: a
 * thread between its reading of the state and its store (a few instructions) when the filter
 * comes has that store seen by the exit's load, much later, once its store buffer drained (any
 * interrupt or switch drains it) rather than by the exit's own membarrier.
 */
void tp_fence_before_seccomp(void)
{
	int was = __atomic_exchange_n(&tp_fence_state, TP_FENCE_FULL, __ATOMIC_SEQ_CST);
	if (was != TP_FENCE_LIGHT)
		return;
	int saved_errno = errno;
	(void)membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
	errno = saved_errno;
}
