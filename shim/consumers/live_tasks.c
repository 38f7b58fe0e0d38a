// SPDX-License-Identifier: MIT
/*
 * The table of tasks alive's rare ways (live_private.h): a task whose first window is full, taken
 * and found in its other homes' windows (a run of tasks still alive when ids come round); and a
 * task's wake on its own (one at a poll's start is folded into it: tp_live_task_switch_woken).
 */
#include "live_private.h"

bool tasks_displaced;

/* The other homes' claims, out of line: a run of tasks alive from the table's last round. */
struct task_entry *task_claim_displaced(uint64_t task)
{
	struct task_entry *e = NULL;
	for (unsigned which = 1; which < TASK_HOMES && e == NULL; which++)
		e = task_claim(task_displaced_home(task, which));
	/* before the entry is published (its id's release store): a look-up of it reads this */
	if (e != NULL && !__atomic_load_n(&tasks_displaced, __ATOMIC_RELAXED))
		__atomic_store_n(&tasks_displaced, true, __ATOMIC_RELEASE);
	return e;
}

struct task_entry *task_find_displaced(uint64_t task)
{
	struct task_entry *e = NULL;
	for (unsigned which = 1; which < TASK_HOMES && e == NULL; which++)
		e = task_in_window(task, task_displaced_home(task, which));
	return e;
}

void tp_live_task_wake(uint64_t task, uint64_t at)
{
	if (enter(TAKES_SLOT) == NULL)
		return;
	struct task_entry *e = task_find(task);
	if (e != NULL)
		set64(&span_of(e)->ready_ns, ns_at(at));
	leave();
}
