// SPDX-License-Identifier: MIT
/* Where the program's OpenMP constructs are, as the adapter's callbacks ask it (ompt_constructs.h). */
#include "ompt_constructs.h"

#include "executor.h"
#include "gomp.h"
#include "hash.h"
#include "ompt_task_word.h"
#include "spawn_stack.h"
#include "spin_lock.h"

__thread const void *tp_ompt_program_calls[TP_SITE_KEYS_KNOWN];

/*
 * A new call found to be the program's takes its set's first slot, the one there moving on; but
 * a call of a function of the program's, which tail-called its construct, is never kept: its
 * construct's site is another address (tp_ompt_construct_site_found finds it each time).
 */
bool tp_ompt_in_executor(const void *codeptr)
{
	if (tp_ompt_known_program_call(codeptr))
		return false;
	if (tp_spawn_stack_in_executor((uintptr_t)codeptr))
		return true;
	if (tp_ompt_calls_program_function(codeptr))
		return false;
	const void **set = &tp_ompt_program_calls[tp_site_key_slot((uintptr_t)codeptr)];
	set[1] = set[0];
	set[0] = codeptr;
	return false;
}

/*
 * Taskloops being run, by encountering task: the taskloop construct's call in the program, found
 * when its work begins. libomp reports a taskloop's tasks (and the work) at a call address inside
 * itself, and makes the tasks of a large taskloop from tasks of its own (splitting the range) on
 * any thread, but always with the construct's encountering task as their parent: its data names
 * the construct. An entry stays until that task runs another taskloop or the slot is reused (a
 * nogroup taskloop's tasks may be made after its work ended).
 */
#define TASKLOOPS_SLOT_BITS 6
#define TASKLOOPS_MAX       (1 << TASKLOOPS_SLOT_BITS)
static struct {
	const ompt_data_t *encountering;
	const void *codeptr, *site;
} taskloops[TASKLOOPS_MAX];
static int taskloops_lock;

static unsigned taskloop_slot(const ompt_data_t *encountering)
{
	return tp_hash_slot((uintptr_t)encountering, TASKLOOPS_SLOT_BITS);
}

/*
 * The site of a GCC construct whose body GCC outlined into `outlined`: named by that function's
 * first instruction, where GCC's line table has the construct's line (a return address just past
 * it, as the sites' naming reads the call before a return address).
 */
static const void *outlined_site(const void *outlined)
{
	return (const char *)outlined + 1;
}

/* A taskloop construct begins: its site is found now, once for all its tasks. */
void tp_ompt_on_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
		     ompt_data_t *task, uint64_t count, const void *codeptr)
{
	(void)parallel;
	(void)count;
	if (kind != ompt_work_taskloop || endpoint != ompt_scope_begin ||
	    !tp_listeners_task_spawn() || task == NULL || codeptr == NULL)
		return;
	const void *site = codeptr, *outlined = tp_gomp_taskloop_begins(task);
	if (outlined != NULL)
		site = outlined_site(outlined);
	else if (tp_ompt_in_executor(codeptr))
		site = tp_ompt_program_site(codeptr, TP_OMPT_TASKLOOP);
	unsigned slot = taskloop_slot(task);
	tp_spin_lock(&taskloops_lock);
	taskloops[slot].encountering = task;
	taskloops[slot].codeptr = codeptr;
	taskloops[slot].site = site;
	tp_spin_unlock(&taskloops_lock);
}

/* tp_ompt_construct_site's path for a construct of GCC's, or a call not known to be the
 * program's. */
const void *tp_ompt_construct_site_found(const ompt_data_t *encountering, const void *codeptr,
					 enum tp_ompt_construct construct)
{
	const void *outlined = tp_gomp_outlined_take(construct, encountering);
	if (outlined != NULL)
		return outlined_site(outlined);
	/* asked before tp_ompt_in_executor, which reads a tail-called call again each time */
	const void *tail_called = tp_ompt_tail_call_known(codeptr, construct);
	if (tail_called != NULL)
		return tail_called;
	if (!tp_ompt_in_executor(codeptr))
		return tp_ompt_tail_called_site(codeptr, construct);
	if (construct == TP_OMPT_TASK && encountering != NULL) {
		const void *site = NULL;
		unsigned slot = taskloop_slot(encountering);
		tp_spin_lock(&taskloops_lock);
		if (taskloops[slot].encountering == encountering &&
		    taskloops[slot].codeptr == codeptr)
			site = taskloops[slot].site;
		tp_spin_unlock(&taskloops_lock);
		if (site != NULL)
			return site;
	}
	return tp_ompt_program_site(codeptr, construct);
}

const void *tp_ompt_sync_tail_called_site(ompt_sync_region_t kind, const void *codeptr)
{
	enum tp_ompt_construct construct = kind == ompt_sync_region_taskwait    ? TP_OMPT_TASKWAIT
					   : kind == ompt_sync_region_taskgroup ? TP_OMPT_TASKGROUP
										: TP_OMPT_BARRIER;
	return tp_ompt_tail_called_site(codeptr, construct);
}

const void *tp_ompt_lock_site(const void *codeptr)
{
	if (tp_ompt_known_program_call(codeptr))
		return codeptr;
	if (tp_ompt_in_executor(codeptr))
		return NULL;
	return tp_ompt_tail_called_site(codeptr, TP_OMPT_LOCK);
}

const void *tp_ompt_spawn_site_of(const ompt_data_t *task)
{
	uint32_t key = tp_spawn_stack_site_key(stack_of(task));
	return key != 0 ? (const void *)tp_spawn_site_key_address(key) : NULL;
}

void tp_ompt_constructs_start(void)
{
	/* a fork while another thread registers or reads a taskloop: the child gets it free */
	tp_executor_lock_across_fork(&taskloops_lock);
}

__thread struct tp_ompt_forks tp_ompt_forks __attribute__((tls_model("initial-exec")));
