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

/* The entry points a construct calls. */
enum tp_ompt_construct {
	TP_OMPT_TASK,     /* __kmpc_omp_task*, GOMP_task */
	TP_OMPT_PARALLEL, /* __kmpc_fork_call, __kmpc_fork_teams, GOMP_parallel* */
	TP_OMPT_TASKLOOP, /* __kmpc_taskloop*, GOMP_taskloop* */
};

/*
 * A return address in the program that stands for the construct `codeptr` (inside libomp) was
 * reported for, called from the callback reporting it: the program's call into libomp found by
 * unwinding, or when the construct was a tail call, the address just past that jump in the
 * outlined function libomp had called (else that function's start, + 1). `codeptr` itself when
 * none is found.
 */
const void *tp_ompt_program_site(const void *codeptr, enum tp_ompt_construct construct);
