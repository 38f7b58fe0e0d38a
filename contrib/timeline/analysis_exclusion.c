// SPDX-License-Identifier: MIT
/*
 * The recording's analysis (analysis.h): mutual exclusion (issue 35), a critical or ordered
 * section's or a lock's edges, by the graph's rules (work_span.h's tp_span_acquire_joins and
 * the rest; the live statistics' live_exclusion.c): a polled task's acquire starts its
 * fragment's part after the object's last release, and its release passes its path on to the
 * object's next acquirer.
 */
#define _GNU_SOURCE
#include "analysis_private.h"

#include "taskprobe_contract.h"
#include "work_span.h" /* the graph's rules */

/* Mutual exclusion `object` of `p`, made if new (NULL: out of memory). */
static struct mutex *mutex_of(struct analysis *a, const struct proc *p, uint64_t object)
{
	return (struct mutex *)map_find_or_new(a, &a->mutexes, p->process, object,
					       sizeof(struct mutex));
}

/* The fragment `th` polls now starts after `released` (a release's path). */
static void mutex_join(struct analysis *a, const struct acc *released, struct thread *th)
{
	if (released->n != NULL && released->n->path > path_of(th->in))
		hold(a, &th->in, released->n);
	th->in_placed = max_u64(th->in_placed, released->placed);
	th->latency = tp_span_start_rejoined(&th->could_ns, th->start, th->free_ns, released->ns);
}

/*
 * The fragment `th` polls now, of task `t`, starts after the path to mutual exclusion `m`'s last
 * release, acquired at `ns`. Acquires come in the order the runtime granted them (each is said
 * while its task holds the object), releases not always: a holder's thread may read its clock
 * for its release after the next holder's acquire (preempted between the two, on a loaded
 * machine: for as long as the next holder's section lasts). A holder whose release has not come
 * let the object go before this acquire all the same: the path to its release is the holder's up
 * to now.
 */
static void release_joined(struct analysis *a, struct proc *p, struct thread *th,
			   const struct task *t, const struct mutex *m, uint64_t ns)
{
	struct task *held = m->held ? task_find(a, p, m->holder_task) : NULL;
	/* the thread that polls the holder now, whichever it is (NULL: switched out) */
	struct thread *h = held != NULL && held->state == RUNNING ? held->on : NULL;
	switch (tp_span_acquire_joins(held != NULL, held == t, h != NULL)) {
	case TP_SPAN_ACQUIRES_RELEASE:
		mutex_join(a, &m->released, th);
		break;
	case TP_SPAN_ACQUIRES_HOLDER_NOW: {
		/* its fragment up to now (in the work up to here too) */
		struct node *part = ref(part_so_far(a, p, h, held, ns));
		struct acc released = {part, ns, part != NULL ? part->placed : 0};
		mutex_join(a, &released, th);
		unref(a, part);
		break;
	}
	case TP_SPAN_ACQUIRES_HOLDER_LAST: {
		struct acc released = {held->last, held->suspend_ns,
				       held->last != NULL ? held->last->placed : 0};
		mutex_join(a, &released, th);
		break;
	}
	}
}

/*
 * A task acquires mutual exclusion `object`: its fragment (begun by the poll that ended its wait)
 * is split there, its part up to the acquire in the site it ran in, and its section, in the site
 * of the wait that entered it, starts after the longer of that part and the object's last
 * release (tp_span_acquire_splits, release_joined; the live statistics' tp_span_acquire).
 */
void analysis_on_acquire(struct analysis *a, struct proc *p, struct thread *th,
			 const struct timeline_event *e)
{
	struct task *t = th->task;
	if (t == NULL || t->k.id != (uint64_t)e->arg[0])
		return;
	uint32_t section = tp_span_section_site(t->sync, t->sync_site);
	if (section != 0 && e->arg[1] > 0 && e->arg[1] <= TP_EXCLUSION_KINDS)
		a->sites[section].mutex_kind = (uint8_t)e->arg[1];
	/* the part before the acquire, in the site it ran in (none: of no time) */
	if (tp_span_acquire_splits(e->ns > th->start ? e->ns - th->start : 0)) {
		struct node *n = part_so_far(a, p, th, t, e->ns);
		if (n != NULL)
			split_at(a, th, n, TP_SPAN_PART_AT_ACQUIRE);
	}
	t->section_site = section;
	struct mutex *m = mutex_of(a, p, (uint64_t)e->arg[2]);
	if (m != NULL) {
		t->holds = (uint64_t)e->arg[2];
		release_joined(a, p, th, t, m, e->ns);
		m->held = true;
		m->holder_task = t->k.id;
	}
}

/*
 * A task releases mutual exclusion `object`: at the end of a section in its sync site's row its
 * fragment is split there (tp_span_release_splits), else it goes on whole and the path to the
 * release is its part up to it (as a spawn's). The object remembers that path, unless another
 * task acquired it since (this release came late: that acquire took the path up to it).
 */
void analysis_on_release(struct analysis *a, struct proc *p, struct thread *th,
			 const struct timeline_event *e)
{
	struct task *t = th->task;
	if (t == NULL || t->k.id != (uint64_t)e->arg[0])
		return;
	if (t->holds == (uint64_t)e->arg[2])
		t->holds = 0;
	struct mutex *m = mutex_of(a, p, (uint64_t)e->arg[2]);
	if (m == NULL)
		return;
	bool splits = tp_span_release_splits(t->section_site != 0);
	/* held while it is used: freed here if nothing keeps it */
	struct node *n = ref(part_so_far(a, p, th, t, e->ns));
	t->section_site = 0;
	if (n == NULL)
		return;
	if (splits)
		split_at(a, th, n, TP_SPAN_PART_AT_RELEASE);
	if (tp_span_release_kept(m->held && m->holder_task == t->k.id)) {
		acc_clear(a, &m->released);
		acc_fold_node(a, &m->released, n, e->ns);
		m->held = false;
	}
	unref(a, n);
}
