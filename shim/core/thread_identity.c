// SPDX-License-Identifier: MIT
/* The calling thread's identity (thread_identity.h). */
#define _GNU_SOURCE
#include "thread_identity.h"

#include <sys/prctl.h>
#include <unistd.h>

#include "process.h"
#include "real_symbol.h"

/* 0 until first asked (and after fork) */
static __thread pid_t tid __attribute__((tls_model("initial-exec")));

/* Under a system call filter, the id the C library keeps: gettid may be refused. */
pid_t tp_thread_tid(void)
{
	if (__builtin_expect(tid == 0, 0))
		tid = tp_process_filtered() ? tp_process_libc_tid() : gettid();
	return tid;
}

/* libc's prctl, not the shim's (thread_name.c), which would count a rename. */
static int (*libc_prctl)(int, ...);
TP_RESOLVED_AT_LOAD(libc_prctl, "prctl", NULL);

/* Under a system call filter, none: the filter may refuse prctl. */
void tp_thread_read_name(char name[16])
{
	__typeof__(libc_prctl) fn = TP_REAL(libc_prctl, "prctl", NULL);
	name[0] = '\0';
	if (fn == NULL || tp_process_filtered() ||
	    fn(PR_GET_NAME, (unsigned long)name, 0, 0, 0) != 0)
		name[0] = '\0';
	name[15] = '\0';
}

void tp_thread_identity_child_after_fork(void)
{
	tid = 0;
}
