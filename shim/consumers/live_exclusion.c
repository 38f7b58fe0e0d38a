// SPDX-License-Identifier: MIT
/*
 * Live statistics (live.h): mutual exclusion (issue 35), a critical or ordered section's or a
 * lock's edges for the work/span engine (work_span.h's tp_span_acquire and tp_span_release): a
 * polled task's acquire starts its fragment's part after the object's last release, and its
 * release passes its path on to the object's next acquirer.
 */
#define _GNU_SOURCE
#include "live_private.h"

/* The polled task's fragment goes on from `now` in a part of its own: the slot's open fragment
 * starts there for the readers. */
static void span_part_from(struct tp_live_thread *s, uint64_t now)
{
	local.span_from = now;
	set64(&s->open_start_ns, now);
	set64(&s->open_path_ns, local.span.in.ns);
	set64(&s->open_placed_ns, local.span.in.placed_ns);
}

/*
 * The polled task `task` acquires mutual exclusion `object` (of the contract's `kind`), at the
 * start of the poll its wait ended: the poll starts after the object's last release, and its
 * time on the path is the sync site's until the release.
 */
static void mutex_acquired(uint64_t task, uint32_t kind, uint64_t object, uint64_t at)
{
	struct tp_live_thread *s = enter(TAKES_SLOT);
	if (s == NULL)
		return;
	if (task == local.polled_task && local.span.in_graph) {
		uint64_t now = ns_at(at);
		uint32_t row = local.mutex_row;
		if (row != 0) {
			if (__atomic_load_n(&sites[row].mutex_kind, __ATOMIC_RELAXED) != kind)
				__atomic_store_n(&sites[row].mutex_kind, kind, __ATOMIC_RELAXED);
		}
		tp_span_acquire(&local.span, task, now, now - local.span_from, row, local.poll_row,
				object);
		span_part_from(s, now);
	}
	leave();
}

/* The polled task `task` releases `object`: the path to now is the object's next acquirer's. */
static void mutex_released(uint64_t task, uint64_t object, uint64_t at)
{
	struct tp_live_thread *s = enter(TAKES_SLOT);
	if (s == NULL)
		return;
	if (task == local.polled_task && local.span.in_graph) {
		uint64_t now = ns_at(at);
		if (tp_span_release(&local.span, task, now, now - local.span_from, local.poll_row,
				    object))
			span_part_from(s, now);
	}
	leave();
}

/* The contract's task-acquire and task-release. */
void tp_live_task_acquire(uint64_t task, uint32_t kind, uintptr_t object, uint64_t at)
{
	mutex_acquired(task, kind, object, at);
}

void tp_live_task_release(uint64_t task, uint32_t kind, uintptr_t object, uint64_t at)
{
	(void)kind;
	mutex_released(task, object, at);
}
