// SPDX-License-Identifier: MIT
/*
 * The program's construct for a call address that libomp reports inside itself. OMPT's
 * codeptr_ra is the return address of the program's call into libomp, except where libomp takes
 * it one call too deep (a taskloop's: __kmpc_taskloop) or where there is no such call left: an
 * outlined region whose last act is the construct tail-calls libomp, so the return address is
 * libomp's own call of the outlined code (__kmp_invoke_microtask, GOMP_parallel). Not for hot
 * paths: the stack is unwound, and an outlined function's code read once.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The entry points a construct calls. */
enum tp_ompt_construct {
	TP_OMPT_TASK,      /* __kmpc_omp_task*, GOMP_task */
	TP_OMPT_PARALLEL,  /* __kmpc_fork_call, __kmpc_fork_teams, GOMP_parallel* */
	TP_OMPT_TASKLOOP,  /* __kmpc_taskloop*, GOMP_taskloop* */
	TP_OMPT_BARRIER,   /* __kmpc_barrier, GOMP_barrier* (a function's last, tail-called) */
	TP_OMPT_TASKWAIT,  /* __kmpc_omp_taskwait*, GOMP_taskwait* (the same) */
	TP_OMPT_TASKGROUP, /* __kmpc_end_taskgroup, GOMP_taskgroup_end (the same) */
	TP_OMPT_LOCK,      /* omp_set_lock, omp_set_nest_lock, omp_test_* (the same) */
};

/*
 * A return address in the program that stands for the construct `codeptr` (inside libomp) was
 * reported for, called from the callback reporting it: the program's call into libomp found by
 * unwinding, or when the construct was a tail call, the address just past that jump in the
 * outlined function libomp had called (else that function's start, + 1). `codeptr` itself when
 * none is found.
 */
const void *tp_ompt_program_site(const void *codeptr, enum tp_ompt_construct construct);

/*
 * Whether `codeptr`, a call address in the program, returns from a direct call of a function of
 * the program's (not a PLT stub into libomp): that function then made its construct by a tail
 * call, its last act (clang -O2, a function that ends in a parallel region over globals), and
 * left no frame. Reads the call's five bytes; not for hot paths.
 */
bool tp_ompt_calls_program_function(const void *codeptr);

/*
 * The site for a construct reported at `codeptr`, a call address in the program: the address just
 * past the one tail call into libomp's `construct` entry in the function the call before `codeptr`
 * called (tp_ompt_calls_program_function), so that the construct is named by its own line in its
 * own function; `codeptr` itself when there is no such function or not exactly one such call.
 * The function's code is read once (the cache tail calls from outlined functions share), and
 * the site found last on the thread is asked first (tp_ompt_tail_call_known).
 */
const void *tp_ompt_tail_called_site(const void *codeptr, enum tp_ompt_construct construct);

/*
 * The tail-called construct the calling thread found last (tp_ompt_tail_called_site): a function
 * that spawns a task as its last act spawns every one of them there, and each would otherwise
 * read the function's call and the shared cache again (some 240 instructions a task).
 */
struct tp_ompt_tail_call {
	const void *codeptr, *site;
	enum tp_ompt_construct construct;
};
extern __thread struct tp_ompt_tail_call tp_ompt_tail_call_last
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/* The site tp_ompt_tail_called_site found last on this thread for `codeptr`, else NULL. */
static inline const void *tp_ompt_tail_call_known(const void *codeptr,
						  enum tp_ompt_construct construct)
{
	const struct tp_ompt_tail_call *last = &tp_ompt_tail_call_last;
	return last->codeptr == codeptr && last->construct == construct ? last->site : NULL;
}
