// SPDX-License-Identifier: MIT
/*
 * Work and span online (work_span.h): the paths' arithmetic and what each task event does to a
 * task's and a thread's paths. Callers hold no lock of their own; a task's lock is taken here
 * where another thread may write the same paths (a child ending, a predecessor ending).
 */
#include "work_span.h"

#include <string.h>

#include "spin_lock.h"

void tp_span_path_extend(struct tp_live_path *p, uint32_t row, uint64_t ns)
{
	p->ns += ns;
	if (ns == 0)
		return;
	const uint64_t key = (uint64_t)row << TP_LIVE_PATH_ROW_SHIFT;
	unsigned free_at = TP_LIVE_PATH_SITES, smallest = TP_LIVE_PATH_SITES;
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++) {
		uint64_t v = p->sites[k];
		if (v == 0) {
			free_at = free_at < k ? free_at : k;
		} else if ((v & ~TP_LIVE_PATH_NS_MASK) == key) {
			p->sites[k] = key | ((v + ns) & TP_LIVE_PATH_NS_MASK);
			return;
		} else if (smallest == TP_LIVE_PATH_SITES ||
			   (v & TP_LIVE_PATH_NS_MASK) <
				   (p->sites[smallest] & TP_LIVE_PATH_NS_MASK)) {
			smallest = k;
		}
	}
	/* a site beyond the kept ones takes the place of the one with the least time, if it has
	 * more: what either had becomes the path's time in other sites */
	if (free_at < TP_LIVE_PATH_SITES)
		p->sites[free_at] = key | (ns & TP_LIVE_PATH_NS_MASK);
	else if (ns > (p->sites[smallest] & TP_LIVE_PATH_NS_MASK))
		p->sites[smallest] = key | (ns & TP_LIVE_PATH_NS_MASK);
}

void tp_span_spawned(struct tp_span_task *t, uint64_t parent, bool outside,
		     const struct tp_live_path *in)
{
	memset(t, 0, sizeof *t);
	t->in = *in;
	t->parent = parent;
	t->outside = outside;
}

void tp_span_so_far(const struct tp_span_thread *th, uint32_t row, uint64_t ns,
		    struct tp_live_path *out)
{
	*out = th->in;
	tp_span_path_extend(out, row, ns);
}

void tp_span_poll_start(struct tp_span_task *t, struct tp_span_thread *th, uint64_t task,
			uint64_t suspended_ns, const struct tp_live_path *frozen)
{
	th->in_graph = !t->outside;
	if (t->outside)
		return;
	if (!t->started) {
		/* its predecessors ended before the executor let it start: `in` is whole */
		th->in = t->in;
		t->started = true;
		return;
	}
	tp_spin_lock(&t->lock);
	struct tp_live_path in = t->in;
	switch (t->sync) {
	case TP_SYNC_TASKWAIT:
		tp_span_path_max(&in, &t->kids);
		memset(&t->kids, 0, sizeof t->kids);
		break;
	case TP_SYNC_TASKGROUP:
		tp_span_path_max(&in, &t->kids);
		tp_span_path_max(&in, &t->desc);
		memset(&t->kids, 0, sizeof t->kids);
		memset(&t->desc, 0, sizeof t->desc);
		break;
	case TP_SYNC_BARRIER:
		if (frozen != NULL)
			tp_span_path_max(&in, frozen);
		memset(&t->kids, 0, sizeof t->kids);
		memset(&t->desc, 0, sizeof t->desc);
		break;
	default:
		/* switched out: what its thread ran meanwhile came first (a tied task resumes only
		 * once it ended), unless that was a child run undeferred, nested in this task */
		if (!t->ran_undeferred && th->last_task != 0 && th->last_task != task &&
		    th->free_ns >= suspended_ns)
			tp_span_path_max(&in, &th->last);
		break;
	}
	tp_spin_unlock(&t->lock);
	t->ran_undeferred = false;
	th->in = in;
}

void tp_span_poll_end(struct tp_span_task *t, struct tp_span_thread *th, uint64_t task,
		      uint32_t row, uint64_t ns, uint64_t now, uint32_t sync,
		      struct tp_live_path *end)
{
	tp_span_so_far(th, row, ns, end);
	if (t != NULL) {
		t->in = *end;
		t->sync = (uint8_t)sync;
	}
	th->last = *end;
	th->last_task = task;
	th->free_ns = now;
}

void tp_span_child_ended(struct tp_span_task *parent, struct tp_span_task *t,
			 const struct tp_live_path *end)
{
	tp_spin_lock(&t->lock);
	struct tp_live_path desc = t->desc;
	tp_spin_unlock(&t->lock);
	tp_span_path_max(&desc, end);
	tp_spin_lock(&parent->lock);
	tp_span_path_max(&parent->kids, end);
	tp_span_path_max(&parent->desc, &desc);
	tp_spin_unlock(&parent->lock);
}

void tp_span_predecessor_ended(struct tp_span_task *succ, const struct tp_live_path *end)
{
	tp_spin_lock(&succ->lock);
	if (!succ->started)
		tp_span_path_max(&succ->in, end);
	tp_spin_unlock(&succ->lock);
}
