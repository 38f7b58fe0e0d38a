// SPDX-License-Identifier: MIT
/*
 * Where the program's OpenMP constructs are, for the OMPT adapter (ompt.c): whether a call
 * address OMPT reports is libomp's rather than the program's (each thread keeps the program's
 * calls it found), the taskloops being run (libomp reports their tasks at its own address), and
 * a construct's site, asked at every traced task's creation: in line when, as most often, the call
 * is one the thread found to be the program's before.
 */
#pragma once

#include <omp-tools.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "gomp.h"
#include "ompt_sites.h"
#include "spawn_site.h"

/*
 * The calls a thread found to be the program's last, a set of two slots each by address
 * (tp_site_key_slot, as the site keys): a thread spawns and waits at few constructs.
 */
extern __thread const void *tp_ompt_program_calls[TP_SITE_KEYS_KNOWN]
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Whether `codeptr` is a call the calling thread found to be the program's (tp_ompt_in_executor). */
static inline bool tp_ompt_known_program_call(const void *codeptr)
{
	const void **set = &tp_ompt_program_calls[tp_site_key_slot((uintptr_t)codeptr)];
	return set[0] == codeptr || set[1] == codeptr;
}

/*
 * Whether a construct's call address (OMPT's codeptr_ra) lies in libomp or the shim
 * (tp_spawn_stack_in_executor), not in the program: a call found to be the program's is kept in
 * tp_ompt_program_calls (the modules skipped are set at start, before any task).
 */
bool tp_ompt_in_executor(const void *codeptr);

/* The OMPT work callback: a taskloop construct begins, and its site is found, once for its tasks. */
void tp_ompt_on_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
		     ompt_data_t *task, uint64_t count, const void *codeptr);

/*
 * The calls that forked the regions the calling thread encountered and is in (innermost last,
 * TP_OMPT_FORKS_KEPT kept, `depth` counted on): libomp 14 reports a region's end on its primary
 * thread as an implicit barrier at that call, of the same kind as a worksharing construct's end,
 * which it reports at the construct's own call (tp_ompt_sync_site).
 */
#define TP_OMPT_FORKS_KEPT 4
struct tp_ompt_forks {
	const void *calls[TP_OMPT_FORKS_KEPT];
	unsigned depth;
};
extern __thread struct tp_ompt_forks tp_ompt_forks
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/* A parallel region's fork at call `codeptr` by the calling thread (OMPT's parallel-begin): in
 * line, as every region's. */
static inline void tp_ompt_region_forked(const void *codeptr)
{
	if (tp_ompt_forks.depth < TP_OMPT_FORKS_KEPT)
		tp_ompt_forks.calls[tp_ompt_forks.depth] = codeptr;
	tp_ompt_forks.depth++;
}

/* Its end (parallel-end). */
static inline void tp_ompt_region_joined(void)
{
	if (tp_ompt_forks.depth > 0)
		tp_ompt_forks.depth--;
}

/* tp_ompt_construct_site's path for a construct of GCC's, or a call not known to be the
 * program's. */
const void *tp_ompt_construct_site_found(const ompt_data_t *encountering, const void *codeptr,
					 enum tp_ompt_construct construct);

/*
 * The site of a construct: a GCC construct's outlined function (gomp.h), even where libomp reports
 * no call address (libomp 14's GOMP_parallel_reductions); else its call address `codeptr` if it
 * is the program's; else (libomp reports one of its own) the program's call found for it: a
 * taskloop's, or by tp_ompt_program_site. Only when task-spawn (which names sites) is listened
 * to. In line, for every task: most often no GCC construct is pending, and the call is one the
 * thread found to be the program's before (a null one too: the threads' sets start so).
 */
static inline const void *tp_ompt_construct_site(const ompt_data_t *encountering,
						 const void *codeptr,
						 enum tp_ompt_construct construct)
{
	if (!tp_listeners_task_spawn())
		return codeptr;
	if (__builtin_expect(tp_gomp_none_pending() && tp_ompt_known_program_call(codeptr), 1))
		return codeptr;
	return tp_ompt_construct_site_found(encountering, codeptr, construct);
}

/* Before the executor's first task (the tool's initialize): the taskloops' lock held across forks. */
void tp_ompt_constructs_start(void);

/* Whether `codeptr` is the call that forked the innermost region the calling thread is in. */
static inline bool tp_ompt_forked_at(const void *codeptr)
{
	unsigned depth = tp_ompt_forks.depth;
	return depth > 0 && depth <= TP_OMPT_FORKS_KEPT &&
	       tp_ompt_forks.calls[depth - 1] == codeptr;
}

/*
 * The site of task `task`'s spawn (its word's spawn stack: tp_spawn_stack_site_key), NULL for
 * an implicit task or one whose site is not known.
 */
const void *tp_ompt_spawn_site_of(const ompt_data_t *task);

/*
 * The site of a wait reported at `codeptr`, a call in the program not kept as the thread's
 * (tp_ompt_in_executor): a barrier, taskwait or taskgroup's end that ends its function, a jump
 * into libomp, is named by that jump (tp_ompt_tail_called_site), else `codeptr`.
 */
const void *tp_ompt_sync_tail_called_site(ompt_sync_region_t kind, const void *codeptr);

/*
 * The site of a mutual exclusion's acquire reported at `codeptr`: the program's call, or the jump
 * a function that ends by taking a lock makes into libomp (a wrapper of omp_set_lock: its line,
 * as any other function's call of it), or NULL for a call of libomp's own.
 */
const void *tp_ompt_lock_site(const void *codeptr);

/*
 * The site of a sync region `task` waits in: the construct's call in the program, a worksharing
 * construct's implicit barrier's too (each loop's or single's end its own site: which loop's
 * threads waited, not only which region's); for the barrier that ends a parallel region (libomp
 * 14 reports it as implicit, at the fork's call on the primary thread, at none on the others:
 * tp_ompt_forked_at), the parallel region's, as its implicit tasks' spawn site is. One libomp
 * reports at a call of its own (a GCC build's tail call of GOMP_taskwait, from a task that
 * tail-calls its function: its frame is gone): a taskwait's or a taskgroup's end, the spawn site
 * of the task that waits, in whose function it is (an implicit task's: the region's); a barrier,
 * the region's. In line: the quick way of a wait's begin (ompt.c) saves no register.
 */
static inline const void *tp_ompt_sync_site(ompt_sync_region_t kind, const ompt_data_t *parallel,
					    const ompt_data_t *task, const void *codeptr)
{
	bool region_end = kind == ompt_sync_region_barrier_implicit_parallel ||
			  kind == ompt_sync_region_barrier_teams || codeptr == NULL ||
			  (kind == ompt_sync_region_barrier_implicit && tp_ompt_forked_at(codeptr));
	if (!region_end) {
		if (tp_ompt_known_program_call(codeptr))
			return codeptr;
		if (!tp_ompt_in_executor(codeptr))
			return tp_ompt_sync_tail_called_site(kind, codeptr);
		bool waits_for_tasks = kind == ompt_sync_region_taskwait ||
				       kind == ompt_sync_region_taskgroup;
		const void *own = waits_for_tasks ? tp_ompt_spawn_site_of(task) : NULL;
		if (own != NULL)
			return own;
	}
	return parallel != NULL ? parallel->ptr : NULL;
}
