// SPDX-License-Identifier: MIT
/* What the audit module would take from the C library, the part the compiler calls (no_libc.h). */
#define _GNU_SOURCE
#include <stddef.h>

#include "raw_syscalls.h"

#ifdef TP_AUDIT_WITHOUT_LIBC
/* The compiler's own calls (a structure's initialization), answered here (-fno-builtin and
 * -fno-tree-loop-distribute-patterns keep these loops loops). */
__attribute__((visibility("hidden"))) void *memset(void *to, int c, size_t n)
{
	unsigned char *p = to;
	while (n-- > 0)
		*p++ = (unsigned char)c;
	return to;
}
__attribute__((visibility("hidden"))) void *memcpy(void *to, const void *from, size_t n)
{
	unsigned char *p = to;
	const unsigned char *q = from;
	while (n-- > 0)
		*p++ = *q++;
	return to;
}
#endif
