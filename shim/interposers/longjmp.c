// SPDX-License-Identifier: MIT
/*
 * longjmp and its relatives: a signal handler may jump out of an interposed wait that parked
 * its worker thread (sem_wait is async-signal-safe, so this is allowed). The wait then never
 * returns to fire its unpark; the jump does it (see tp_wait_escaping). The real functions are
 * resolved at load (lifecycle.c): a handler must not be the first to call dlsym.
 */
#define _GNU_SOURCE
/* each function is defined here by its own name: with _FORTIFY_SOURCE (distributions' default
 * flags) <setjmp.h> declares longjmp, _longjmp and siglongjmp as __longjmp_chk, which would be
 * defined four times */
#undef _FORTIFY_SOURCE
#include <setjmp.h>
#include <stdlib.h>

#include "events.h"
#include "real_symbol.h"
#include "waits.h"

static void (*real_longjmp)(struct __jmp_buf_tag *, int);
static void (*real__longjmp)(struct __jmp_buf_tag *, int);
static void (*real_siglongjmp)(struct __jmp_buf_tag *, int);
static void (*real___longjmp_chk)(struct __jmp_buf_tag *, int);

/* Defines NAME(env, val): the unpark check, then the real NAME, which does not return. */
#define TP_INTERPOSE_JUMP(name)                                                                    \
	TP_EXPORT __attribute__((noreturn)) void name(struct __jmp_buf_tag env[1], int val)        \
	{                                                                                          \
		void (*real)(struct __jmp_buf_tag *, int) = TP_REAL(real_##name, #name, NULL);     \
		if (tp_listeners_worker_unpark())                                                  \
			tp_wait_escaping(__builtin_frame_address(0));                              \
		if (real == NULL)                                                                  \
			abort(); /* no libc longjmp: nothing sane is left to do */                 \
		real(env, val);                                                                    \
		__builtin_unreachable();                                                           \
	}

TP_INTERPOSE_JUMP(longjmp)
TP_INTERPOSE_JUMP(_longjmp)
TP_INTERPOSE_JUMP(siglongjmp)
TP_INTERPOSE_JUMP(__longjmp_chk)

TP_RESOLVED_AT_LOAD(real_longjmp, "longjmp", NULL);
TP_RESOLVED_AT_LOAD(real__longjmp, "_longjmp", NULL);
TP_RESOLVED_AT_LOAD(real_siglongjmp, "siglongjmp", NULL);
TP_RESOLVED_AT_LOAD(real___longjmp_chk, "__longjmp_chk", NULL);
