// SPDX-License-Identifier: MIT
/*
 * The task graph's work, span and critical path, computed as the events come (analysis.h).
 *
 * Every fragment's longest path to its end is known when it ends: the longest path to its start
 * (the largest of its predecessors' ends, see analysis.h) plus its own time. Each fragment that
 * ends becomes a node that points back at the node of its longest predecessor; nodes are counted
 * references, held by the tasks, threads and accumulators that may still extend them, and freed
 * when nothing can: what is held is the longest paths to the ends of what has not ended, sharing
 * their prefixes, never the graph. The process's longest path so far is the span; walking its
 * nodes back gives the critical path's sites.
 *
 * OpenMP's initial task (the one task with neither parent nor site) is in the graph: its serial
 * code is work and lies on the span, and regions in a row compose in series (its fragment after a
 * region follows the region's implicit task, which joined everything at the region's barrier). A
 * worker's implicit task (OpenMP names no parent for it) starts after the fork: the initial task's
 * code up to it, and its region's last fork seen.
 *
 * Beside the span, every path has a placed length (POP's critical path's computation: see
 * analysis.h), and each thread its computation (its polls' time): the POP factors
 * (taskprobe_figures.h), per parallel region the load balance, per sync site the waits.
 */
#define _GNU_SOURCE
#include "analysis_private.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "taskprobe_contract.h"
#include "taskprobe_live.h" /* the burdened span's and the spawn cost's definitions */
#include "work_span.h"      /* the graph's rules */

/* ---- tasks and threads ---- */

struct task *task_find(struct analysis *a, const struct proc *p, uint64_t id)
{
	return (struct task *)map_find(&a->tasks, p->process, id);
}

static struct task *task_new(struct analysis *a, struct proc *p, uint64_t id)
{
	struct task *t = (struct task *)map_new(a, &a->tasks, p->process, id, sizeof *t);
	if (t == NULL)
		return NULL;
	t->proc = p;
	a->tasks_open++;
	a->peak_tasks = a->tasks_open > a->peak_tasks ? a->tasks_open : a->peak_tasks;
	return t;
}

/* Forgets an ended task once no child of it is left, and so on up. */
static void task_release(struct analysis *a, struct task *t)
{
	while (t != NULL && t->state == ENDED && t->live_children == 0) {
		struct task *parent = t->parent;
		acc_clear(a, &t->in);
		unref(a, t->last);
		acc_clear(a, &t->kids);
		acc_clear(a, &t->desc);
		for (struct edge *e = t->successors, *next; e != NULL; e = next) {
			next = e->next;
			give(a, e, sizeof *e);
		}
		map_remove(&a->tasks, &t->k);
		if (t->proc->initial == t)
			t->proc->initial = NULL;
		give(a, t, sizeof *t);
		a->tasks_open--;
		if (parent != NULL)
			parent->live_children--;
		t = parent;
	}
}

static struct thread *thread_of(struct analysis *a, const struct proc *p, uint32_t tid)
{
	return (struct thread *)map_find_or_new(a, &a->threads, p->process, tid,
						sizeof(struct thread));
}

/* ---- events ---- */

/* Whether `t` is an implicit task: its site is a parallel construct's, and it is not one run in
 * its encountering task's place (a construct whose region is elsewhere of several threads). */
static bool implicit(const struct analysis *a, const struct task *t)
{
	return t->site != 0 && !t->in_place && a->sites[t->site].parallel;
}

/*
 * The parallel region a fragment of `t` belongs to: the site of the innermost implicit task
 * above it, itself included (an explicit task's region is its parent's); 0 outside every region
 * (the initial task's serial code). Kept from its spawn: its parent's, or its parent's site if
 * that is a parallel construct's (from its primary's spawn since version 16; before, a nested
 * region's once its workers' implicit tasks came).
 */
static uint32_t region_of(const struct analysis *a, const struct task *t)
{
	return implicit(a, t) ? t->site : t->region;
}

/* Thread `th`'s entry of the computations `b` of a site (NULL when out of memory). */
static struct region_thread *region_thread_of(struct analysis *a, struct by_thread *b,
					      const struct thread *th)
{
	if (th->index >= b->n) {
		uint32_t n = 2 * th->index + 2;
		struct region_thread *r = take(a, n * sizeof *r);
		if (r == NULL)
			return NULL;
		if (b->n > 0)
			memcpy(r, b->of, b->n * sizeof *r);
		give(a, b->of, b->n * sizeof *r);
		b->of = r;
		b->n = n;
	}
	return &b->of[th->index];
}

/* Region `region`'s entry of thread `th` (NULL when out of memory). */
static struct region_thread *region_thread(struct analysis *a, uint32_t region,
					   const struct thread *th)
{
	return region_thread_of(a, &a->sites[region].by_thread, th);
}

/*
 * The polled fragment's time up to `ns` into the work, its region's computation, and its
 * thread's computation (the POP factors': only inside the region of interest, when there is
 * one; the regions' table is the whole run's, as the live statistics' is: docs/analysis.md). Called
 * before a path takes that time (a spawn's edge from the fragment up to the spawn, a release) as
 * well as at the poll's end. The live statistics count the same (live.c's count_work).
 */
void count_work(struct analysis *a, struct proc *p, struct thread *th, const struct task *t,
		uint64_t ns)
{
	uint64_t w = ns - th->counted;
	p->work += w;
	site_figures(a, p, t->site)->work += w;
	th->counted = ns;
	uint32_t region = region_of(a, t);
	struct region_thread *r = region != 0 ? region_thread(a, region, th) : NULL;
	if (r != NULL)
		r->ns += w;
	tp_phase_computes(&th->phase, region, w);
	if (!p->roi_seen || p->roi_on)
		th->computation += w;
}

/* The fragment `th` polls goes on up to `ns`, or stopped at its pause (on_wait_start). */
uint64_t polled_to(const struct thread *th, uint64_t ns)
{
	return th->paused_at != 0 && th->paused_at < ns ? th->paused_at : ns;
}

/*
 * The fragment `th` polls now, of task `t`, up to `ns`: its part going on (since its poll's start
 * or its last split) a node after the path to that part's start, its time counted in the work
 * (NULL: out of memory).
 */
struct node *part_so_far(struct analysis *a, struct proc *p, struct thread *th,
			 const struct task *t, uint64_t ns)
{
	ns = polled_to(th, ns);
	count_work(a, p, th, t, ns);
	return node_new(a, th->in, th->in_placed, t, th, p->pid, th->start, ns, th->latency);
}

/*
 * The fragment `th` polls now is split at the end of its part `n` (part_so_far's), ended `at` an
 * acquire or a release (tp_span_part_is_fragment): the part going on starts after it.
 */
void split_at(struct analysis *a, struct thread *th, struct node *n, enum tp_span_part_end at)
{
	n->part = !tp_span_part_is_fragment(at);
	hold(a, &th->in, n);
	th->in_placed = n->placed;
	tp_span_part_begins(&th->start, &th->could_ns, &th->latency, n->end);
}

/*
 * `t` starts after the initial task's code up to `ns`, while a thread polls it (its fragment up
 * to there, in the work there too): a worker's implicit task reported before its region's fork,
 * published at `fork_at` (0: none). Once the fork was published in that poll (its fragment up to
 * the primary's spawn), the rest of the poll is the runtime's after the fork, which no worker
 * waited for (tp_span_fork_waits_initial; the live statistics' rule: live_initial_so_far).
 */
static void initial_so_far(struct analysis *a, struct proc *p, struct task *t, uint64_t ns,
			   uint64_t fork_at)
{
	struct task *initial = p->initial;
	struct thread *th = p->initial_on;
	if (initial == NULL || th == NULL || th->task != initial ||
	    !tp_span_fork_waits_initial(fork_at, th->poll_start))
		return;
	/* held while folded: freed here if `t` does not keep it */
	struct node *part = ref(part_so_far(a, p, th, initial, ns));
	acc_fold_node(a, &t->in, part, ns);
	unref(a, part);
}

/* The longest placed path at `ns`: of the fragments ended, and of those polled now up to `ns`. */
uint64_t placed_at(const struct analysis *a, const struct proc *p, uint64_t ns)
{
	uint64_t placed = p->placed;
	for (size_t i = 0; i < a->threads.size; i++) {
		const struct key *k = map_at(&a->threads, i);
		if (k == NULL)
			continue;
		const struct thread *th = (const struct thread *)k;
		if (k->process == p->process && th->task != NULL && polled_to(th, ns) >= th->start)
			placed = max_u64(placed, th->in_placed + (polled_to(th, ns) - th->start));
	}
	return placed;
}

static void on_spawn(struct analysis *a, struct proc *p, struct thread *th,
		     const struct timeline_event *e)
{
	uint64_t id = (uint64_t)e->arg[0], parent_id = (uint64_t)e->arg[1];
	if (task_find(a, p, id) != NULL)
		return;
	struct task *t = task_new(a, p, id), *parent = task_find(a, p, parent_id);
	if (t == NULL)
		return;
	uint64_t scope = e->site_scope != 0 ? e->site_scope : e->pid;
	t->site = site_of(a, scope, (uint64_t)e->arg[2]);
	if (t->site != 0)
		a->sites[t->site].process = p->process;
	t->initial = parent_id == 0 && e->arg[2] == 0;
	t->in.ns = e->ns;
	t->state = NEW;
	t->by_program = e->by_program;
	if (parent != NULL && parent->state != ENDED) {
		t->parent = parent;
		parent->live_children++;
		t->region = region_of(a, parent);
	}
	struct site *s = site_figures(a, p, t->site);
	if (t->initial && p->initial == NULL)
		p->initial = t;
	/* a worker's implicit task (OpenMP names no parent for it): its region's site; a child
	 * with a site is one when the program did not spawn it (version 12 on), else when created
	 * deferred (no implicit task was undeferred before version 16; an explicit task's site is
	 * no region's, whose fork no worker joins); a team of one's in a region none */
	uint32_t around = parent != NULL ? region_of(a, parent) : 0;
	bool executors = t->site != 0 && (e->spawner_known ? !e->by_program : !e->undeferred),
	     implicit_task = parent != NULL
				     ? tp_span_region_task(executors, e->undeferred, around != 0)
				     : parent_id == 0 && t->site != 0 &&
					       e->arg[5] == TP_EXECUTOR_OPENMP;
	t->in_place = executors && parent != NULL && !implicit_task;
	/* the graph's rule: the live statistics' engine's (work_span.h) */
	enum tp_span_spawn_from from = tp_span_spawn_from(
		parent != NULL, parent != NULL && th->task == parent, implicit_task);
	switch (from) {
	case TP_SPAN_FROM_FORK:
		/* its thread may report it before the primary thread reports the region: after the
		 * initial task's code so far (an outermost region's encountering task), and the
		 * region's last fork seen */
		s->parallel = true;
		acc_join(a, &t->in, &s->fork);
		initial_so_far(a, p, t, e->ns, s->fork_at);
		break;
	case TP_SPAN_FROM_FRAGMENT: {
		/* the parent's fragment up to the spawn */
		struct node *part = part_so_far(a, p, th, parent, e->ns);
		hold(a, &t->in.n, part);
		t->in.placed = th->in_placed + (e->ns - th->start);
		/* not a gap that holds this spawn's stack's capture (a stack id: the recorder's
		 * or a tracer's), taskprobe's work, not the program's (taskprobe_figures.h) */
		if (parent->last_spawn_ns >= th->start && parent->last_spawn_ns > 0 &&
		    e->arg[4] == 0)
			hist_add(a, &s->spawn_gap, e->ns - parent->last_spawn_ns);
		parent->last_spawn_ns = e->ns;
		parent->ran_undeferred |= tp_span_spawn_nests(from, e->undeferred, !executors);
		/* the initial task's child for a region (an outermost one, of a team of one
		 * too); a nested region's by its workers' (or its primary's, below) */
		if (implicit_task && parent->initial)
			s->parallel = true;
		break;
	}
	case TP_SPAN_FROM_LAST:
		acc_fold_node(a, &t->in, parent->last, e->ns);
		break;
	case TP_SPAN_FROM_NOTHING:
		break;
	}
	if (tp_span_publishes_fork(implicit_task, parent != NULL)) {
		acc_clear(a, &s->fork);
		acc_join(a, &s->fork, &t->in);
		s->fork_at = e->ns;
		/* a region's site from its primary's spawn where the recording tells teams of one
		 * (version 16): the primary's time and a team of one it runs before its workers */
		s->parallel |= e->teams_known;
		/* the primary's implicit task: its end joins the instance, unless nested (where
		 * the recording does not say which tasks the program spawned, a deferred explicit
		 * task with a site is taken for an implicit one above) */
		if (!e->by_program && around != 0) {
			/* a parallel site's (by its workers, or its primary since version 16):
			 * nested, both (analysis_report.c); of none, a team of one before 16 */
			s->around = around;
			if (a->sites[around].inner == 0)
				a->sites[around].inner = t->site;
			t->joins_nested = e->teams_known;
		} else if (!e->by_program) {
			t->forked_ns = e->ns;
			t->forked_known = e->teams_known;
			tp_phase_forks(&th->phase);
		}
	}
}

/* A task woken by its parent while not polled yet: at its spawn, without dependences. */
static void on_wake(struct analysis *a, struct proc *p, const struct timeline_event *e)
{
	struct task *t = task_find(a, p, (uint64_t)e->arg[0]);
	if (t != NULL && t->state == NEW && t->parent != NULL &&
	    t->parent->k.id == (uint64_t)e->arg[1])
		t->nestable = t->by_program;
}

static void on_dependence(struct analysis *a, struct proc *p, const struct timeline_event *e)
{
	struct task *pred = task_find(a, p, (uint64_t)e->arg[0]),
		    *succ = task_find(a, p, (uint64_t)e->arg[1]);
	if (pred == NULL || succ == NULL || succ->state != NEW || pred == succ)
		return;
	if (pred->state == ENDED) {
		acc_fold_node(a, &succ->in, pred->last, pred->suspend_ns);
		return;
	}
	struct edge *edge = take(a, sizeof *edge);
	if (edge == NULL)
		return;
	edge->successor = succ->k.id;
	edge->next = pred->successors;
	pred->successors = edge;
}

/*
 * `t`, switched out inside a mutual exclusion's section, is polled again: its section goes on,
 * in its sync site, while it holds the object still (tp_span_resumes_section, the live
 * statistics' rule); else it let the object go before another's acquire, and holds none.
 */
static void holder_resumes(struct analysis *a, const struct proc *p, struct task *t)
{
	if (t->holds == 0 && t->section_site == 0)
		return;
	const struct mutex *m = NULL;
	if (t->holds != 0)
		m = (const struct mutex *)map_find(&a->mutexes, p->process, t->holds);
	if (!tp_span_resumes_section(m != NULL && m->held && m->holder_task == t->k.id)) {
		t->holds = 0;
		t->section_site = 0;
	}
}

/* Where task `t`'s wait is, as sync_waited.h keys it: its site and sync kind (0: no site). */
static uint32_t waited_where(const struct task *t)
{
	/* a wait at no site (none said, or the sites' table full) is in no row: the live
	 * statistics have no row for it either (live.c: sync_wait_begins) */
	if (t->sync == TP_SYNC_NONE || t->sync >= SYNC_KINDS || t->sync_site == 0)
		return 0;
	return t->sync_site * SYNC_KINDS + t->sync;
}

struct waited_context {
	struct analysis *a;
	const struct proc *p;
};

/* Whether task `id` (sync_waited.h's key) is suspended still, since `since` (its low bits),
 * and, at a barrier (`where`'s kind), whether its region joined since (tp_sync_wait_joined). */
static bool task_suspended(const void *context, uint64_t id, uint32_t since, uint32_t where,
			   uint64_t *until)
{
	const struct waited_context *c = context;
	const struct task *t = task_find(c->a, c->p, id);
	if (t == NULL || t->state != SUSPENDED || (uint32_t)t->suspend_ns != since)
		return false;
	uint32_t region = region_of(c->a, t);
	if (where % SYNC_KINDS == TP_SYNC_BARRIER && region != 0)
		*until = tp_sync_wait_joined(t->suspend_ns, &c->a->sites[region].joins);
	return true;
}

/*
 * Thread `th` starts polling `t` at `ns`: its time since its last poll's end was a wait at the
 * site of the innermost task it suspended that is suspended still (the live statistics' rule,
 * sync_waited.h). Before `t`'s state changes.
 */
static void sync_waited_time(struct analysis *a, const struct proc *p, struct thread *th,
			     const struct task *t, uint64_t ns)
{
	struct waited_context c = {a, p};
	uint32_t where;
	uint64_t waited = tp_sync_waited_poll_start(&th->sync_waited, t->k.id, ns, task_suspended,
						    &c, &where);
	if (where != 0)
		a->sites[where / SYNC_KINDS].waited[where % SYNC_KINDS] += waited;
}

/*
 * Thread `th` polls `t` again after its wait at its sync site (one with a row): one wait more
 * there, and a barrier's ends the thread's phase (sync_waited.h), which the thread passed.
 */
static void phase_ends(struct analysis *a, struct thread *th, const struct task *t)
{
	struct site *s = &a->sites[t->sync_site];
	s->waits[t->sync]++;
	uint64_t phase = tp_phase_ends(&th->phase, t->sync);
	struct region_thread *r = t->sync == TP_SYNC_BARRIER ? region_thread_of(a, &s->phases, th)
							     : NULL;
	if (r != NULL) {
		r->ns += phase;
		r->in = true;
	}
}

static void on_poll_start(struct analysis *a, struct proc *p, struct thread *th,
			  const struct timeline_event *e)
{
	uint64_t id = (uint64_t)e->arg[0];
	struct task *t = task_find(a, p, id);
	if (t == NULL) {
		a->unknown_polls++;
		t = task_new(a, p, id);
		if (t == NULL)
			return;
		t->state = NEW;
		t->in.ns = e->ns;
	}
	if (th->task != NULL || t->state == RUNNING || t->state == ENDED)
		return; /* not as the contract orders: left out */
	/* OpenMP's initial task, first polled: from the program's start (live.c's poll_started) */
	struct timeline_event from_start;
	if (t == p->initial && t->state == NEW && p->initial_on == NULL) {
		from_start = *e;
		from_start.ns = tp_span_initial_start(e->ns, p->image_ns, th->waited_to);
		e = &from_start;
	}
	sync_waited_time(a, p, th, t, e->ns);
	th->task = t;
	t->on = th;
	th->start = th->poll_start = th->counted = e->ns;
	if (t == p->initial)
		p->initial_on = th;
	th->latency = 0;
	struct acc in = {0};
	if (t->state == NEW) {
		in = t->in;
		t->in = (struct acc){0};
		struct task *parent = t->parent; /* the graph's rule: work_span.h's */
		if (parent != NULL && parent->state == SUSPENDED &&
		    tp_span_first_poll_nests(t->nestable,
					     th->last != NULL && th->last->task == parent->k.id,
					     parent->sync == TP_SYNC_NONE))
			parent->ran_undeferred = true;
	} else {
		in = (struct acc){ref(t->last), t->suspend_ns,
				  t->last != NULL ? t->last->placed : 0};
		uint32_t where = waited_where(t);
		if (where != 0)
			phase_ends(a, th, t);
		holder_resumes(a, p, t);
		/* the graph's rule: the live statistics' engine's (work_span.h) */
		unsigned steps = tp_span_start_steps(t->sync, t->ran_undeferred,
						     th->last != NULL && th->last->task != t->k.id,
						     th->free_ns >= t->suspend_ns);
		if (steps & TP_SPAN_JOINS_THREAD)
			acc_fold_node(a, &in, th->last, th->free_ns);
		if (steps & TP_SPAN_JOINS_KIDS)
			acc_join(a, &in, &t->kids);
		if (steps & TP_SPAN_JOINS_DESC)
			acc_join(a, &in, &t->desc);
		if (steps & TP_SPAN_JOINS_ENDED) {
			if (tp_span_barrier_freezes(p->freeze_ns, t->suspend_ns)) {
				hold(a, &p->frozen, p->span);
				p->frozen_ns = p->last_end_ns;
				p->frozen_placed = p->placed;
				p->freeze_ns = e->ns;
			}
			acc_fold(a, &in, p->frozen, p->frozen_ns, p->frozen_placed);
		}
		if (steps & TP_SPAN_FORGETS_KIDS)
			acc_clear(a, &t->kids);
		if (steps & TP_SPAN_FORGETS_DESC)
			acc_clear(a, &t->desc);
		t->ran_undeferred = false;
	}
	th->in_placed = in.placed;
	th->latency = tp_span_fragment_starts(
		&th->in_placed, th->last != NULL ? th->last->placed : 0, e->ns, in.ns, th->free_ns);
	th->could_ns = in.ns;
	if (t->state == NEW && t->site < a->n_sites)
		hist_add(a, &site_figures(a, p, t->site)->start_delay, th->latency);
	th->in = in.n; /* the reference in `in` moves to the thread */
	t->state = RUNNING;
	if (!th->polled) {
		th->polled = true;
		th->index = p->threads++;
	}
	struct region_thread *r = implicit(a, t) ? region_thread(a, t->site, th) : NULL;
	if (r != NULL)
		r->in = true;
	p->first_ns = e->ns < p->first_ns ? e->ns : p->first_ns;
}

/* `t` ended with fragment `n` at `ns`: its parent, ancestors and successors told. */
static void task_ended(struct analysis *a, struct proc *p, struct task *t, struct node *n,
		       uint64_t ns)
{
	t->state = ENDED;
	p->tasks++;
	struct site *s = site_figures(a, p, t->site);
	s->tasks++;
	hist_add(a, &s->task_time, t->poll_ns);
	if (t->forked_ns != 0 && ns > t->forked_ns) /* its region's instance joined */
		s->region_time += ns - t->forked_ns;
	if (t->forked_known || t->joins_nested) /* live.c's live_region_joined */
		tp_sync_joins_add(&s->joins, ns);
	/* the graph's rule: the live statistics' engine's (work_span.h) */
	struct task *up = t->parent;
	while (up != NULL && up->state == ENDED)
		up = up->parent;
	/* its descendants ended are joined whether it spawned or not (an empty join is none) */
	struct tp_span_end_steps steps = tp_span_end_steps(up != NULL && up == t->parent,
							   up != NULL, true);
	if (steps.kids)
		acc_fold_node(a, &t->parent->kids, n, ns);
	if (steps.desc)
		acc_fold_node(a, &up->desc, n, ns);
	if (steps.own_desc)
		acc_join(a, &up->desc, &t->desc);
	for (struct edge *e = t->successors, *next; e != NULL; e = next) {
		next = e->next;
		struct task *succ = task_find(a, p, e->successor);
		if (succ != NULL && succ->state == NEW)
			acc_fold_node(a, &succ->in, n, ns);
		give(a, e, sizeof *e);
	}
	t->successors = NULL;
}

/*
 * `t`, which holds a mutual exclusion object (its `holds`), ended with fragment `n` at `ns` (its
 * release lost): it let the object go there (tp_span_end_releases, the live statistics' rule).
 */
static void holder_ended(struct analysis *a, const struct proc *p, struct task *t, struct node *n,
			 uint64_t ns)
{
	struct mutex *m = (struct mutex *)map_find(&a->mutexes, p->process, t->holds);
	t->holds = 0;
	if (m == NULL || !m->held || m->holder_task != t->k.id)
		return;
	acc_clear(a, &m->released);
	acc_fold_node(a, &m->released, n, ns);
	m->held = false;
}

/*
 * A wait starts on `th`: its outermost one, an MPI call's inside a poll, pauses the fragment
 * (the graph's rule, tp_span_wait_pauses; the live statistics': live.c's
 * live_fragment_pauses): its time up to here counted, none after.
 */
static void on_wait_start(struct analysis *a, struct proc *p, struct thread *th,
			  const struct timeline_event *e)
{
	if (th->waits++ != 0 || th->task == NULL || !tp_span_wait_pauses((uint32_t)e->arg[0]) ||
	    e->ns < th->counted)
		return;
	count_work(a, p, th, th->task, e->ns);
	th->paused_at = e->ns;
}

/* The paused fragment goes on at `ns`: its poll and its part start later by the wait. */
static void fragment_resumes(struct thread *th, uint64_t ns)
{
	if (th->paused_at == 0)
		return;
	uint64_t wait = ns > th->paused_at ? ns - th->paused_at : 0;
	th->paused_at = 0;
	th->start += wait;
	th->poll_start += wait;
	th->counted = ns;
}

static void on_wait_end(struct thread *th, const struct timeline_event *e)
{
	if (th->waits > 0 && --th->waits == 0) {
		fragment_resumes(th, e->ns);
		th->waited_to = e->ns;
	}
}

static void on_poll_end(struct analysis *a, struct proc *p, struct thread *th,
			const struct timeline_event *e)
{
	struct task *t = th->task;
	if (t == NULL || t->k.id != (uint64_t)e->arg[0])
		return;
	fragment_resumes(th, e->ns); /* a poll that ends paused (its exit) ended at its pause */
	th->task = NULL;
	bool done = e->arg[1] != 0;
	t->suspend_ns = e->ns;
	t->sync = (uint8_t)e->arg[2];
	uint64_t scope = e->site_scope != 0 ? e->site_scope : e->pid;
	t->sync_site = t->sync != TP_SYNC_NONE ? site_of(a, scope, (uint64_t)e->arg[3]) : 0;
	if (t->sync_site != 0)
		a->sites[t->sync_site].process = p->process;
	t->state = done ? ENDED : SUSPENDED;
	tp_sync_waited_poll_end(&th->sync_waited, done ? 0 : t->k.id, waited_where(t), e->ns);
	t->poll_ns += e->ns - th->poll_start;
	struct node *n = part_so_far(a, p, th, t, e->ns);
	unref(a, th->in);
	th->in = NULL;
	if (n == NULL)
		return;
	/* the graph's rule: the live statistics' engine's (work_span.h) */
	n->part = !tp_span_part_is_fragment(TP_SPAN_PART_AT_POLL_END);
	hold(a, &t->last, n);
	hold(a, &th->last, n);
	th->free_ns = e->ns;
	if (p->span == NULL || n->path > p->span->path)
		hold(a, &p->span, n);
	p->placed = max_u64(p->placed, n->placed);
	p->last_end_ns = e->ns;
	if (t->holds != 0 && tp_span_end_releases(done))
		holder_ended(a, p, t, n, e->ns);
	if (done) {
		t->state = RUNNING; /* task_ended sets ENDED */
		task_ended(a, p, t, n, e->ns);
		task_release(a, t);
	}
}

void analysis_add(struct analysis *a, const struct timeline_event *e)
{
	if (a->stopped || a->finished)
		return;
	if (a->first_event_ns == 0 || e->ns < a->first_event_ns)
		a->first_event_ns = e->ns;
	struct proc *p = proc_of(a, e);
	struct thread *th = p != NULL ? thread_of(a, p, e->tid) : NULL;
	/* an event after the exit's start happens at it, as the live statistics count it (live.c:
	 * exit_began_ns): what a thread does while another exits is no task's time */
	struct timeline_event at_exit;
	if (p != NULL && p->exited && e->ns > p->end_ns) {
		at_exit = *e;
		at_exit.ns = p->end_ns;
		e = &at_exit;
	}
	if (th != NULL) {
		if (!p->exited)
			p->end_ns = max_u64(p->end_ns, e->ns);
		switch (e->type) {
		case TP_RECORD_TASK_SPAWN:
			on_spawn(a, p, th, e);
			break;
		case TP_RECORD_TASK_DEPENDENCE:
			on_dependence(a, p, e);
			break;
		case TP_RECORD_TASK_WAKE:
			on_wake(a, p, e);
			break;
		case TP_RECORD_TASK_POLL_START:
			on_poll_start(a, p, th, e);
			break;
		case TP_RECORD_TASK_POLL_END:
			on_poll_end(a, p, th, e);
			break;
		case TP_RECORD_TASK_ACQUIRE:
			analysis_on_acquire(a, p, th, e);
			break;
		case TP_RECORD_TASK_RELEASE:
			analysis_on_release(a, p, th, e);
			break;
		case TP_RECORD_REGION_OF_INTEREST:
			analysis_roi_marked(a, p, e->ns, e->arg[0] != 0, (uint64_t)e->arg[1]);
			break;
		case TP_RECORD_MPI_INIT: /* the MPI window (the live statistics': events.h) */
			analysis_roi_marked(a, p, e->ns, true, TP_ROI_BY_MPI_WINDOW);
			break;
		case TP_RECORD_WAIT_START:
			on_wait_start(a, p, th, e);
			if (e->arg[0] == TP_WAIT_MPI && e->arg[1] == TP_MPI_CALL_FINALIZE)
				analysis_roi_marked(a, p, e->ns, false, TP_ROI_BY_MPI_WINDOW);
			break;
		case TP_RECORD_WAIT_END:
			on_wait_end(th, e);
			break;
		case TP_RECORD_THREAD_STOP: /* it closes a wait left open (a signal handler's) */
			th->waits = 0;
			break;
		case TP_RECORD_PROCESS_EXIT:
			p->exited = true;
			break;
		case TIMELINE_IMAGE_START: /* an exec's image is the program, and names it */
			if (e->ns >= p->image_ns) {
				p->image_ns = e->ns;
				snprintf(p->comm, sizeof p->comm, "%s", e->comm);
			}
			break;
		default:
			break;
		}
	}
	if (a->bytes + 4096 > ANALYSIS_MAX_BYTES || a->over_resident || p == NULL || th == NULL) {
		a->stopped = true;
		a->stopped_ns = e->ns;
	}
}

/*
 * The polls still open at the end of the recording (the initial task's last, when the program
 * exits in it; a region's, when it exits inside one) end at their process's exit's start (or its
 * last event, when the recording has no exit): their time is work and on the paths. Once, before
 * the figures are read.
 */
void analysis_finish(struct analysis *a)
{
	if (a->finished)
		return;
	a->finished = true;
	/* an ended task may be released (the tasks' map changes), never a thread */
	for (size_t i = 0; i < a->threads.size; i++) {
		struct key *k = map_at(&a->threads, i);
		if (k == NULL)
			continue;
		struct thread *th = (struct thread *)k;
		struct proc *p = NULL;
		for (size_t j = 0; j < a->n_procs && p == NULL; j++)
			if (a->procs[j].process == k->process)
				p = &a->procs[j];
		if (th->task == NULL || p == NULL)
			continue;
		/* a poll begun in the destructors (after the exit's start) ends as it began */
		struct timeline_event e = {.pid = p->pid,
					   .tid = (uint32_t)k->id,
					   .ns = max_u64(p->end_ns, th->start),
					   .type = TP_RECORD_TASK_POLL_END,
					   .process = p->process};
		e.arg[0] = (int64_t)th->task->k.id;
		on_poll_end(a, p, th, &e);
	}
	/* a region of interest never stopped stops there too */
	for (size_t i = 0; i < a->n_procs; i++)
		analysis_roi_ends(a, &a->procs[i], a->procs[i].end_ns);
}
