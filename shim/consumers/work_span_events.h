// SPDX-License-Identifier: MIT
/*
 * What the task events do to the work and span engine's paths (work_span.h) and the tasks'
 * states' pool, inlined into the live statistics' events (live.c), which call them at every
 * spawn, poll and end: as calls, their arguments and the registers they save were a tenth of the
 * live statistics' own cost a task. What only the rare cases need (a fork's join, a mutual
 * exclusion's holder switched out and polled again, the pool's batches) stays in work_span.c.
 */
#pragma once

#include <string.h>

#include "spin_lock.h"
#include "work_span.h"

/* A task state's lock taken while another thread holds it (work_span.c: tp_spin_lock's wait). */
void tp_span_lock_waits(int *lock);

/*
 * A task state's lock (tp_spin_lock): taken at once but for a child or a predecessor ending on
 * another thread at the same time; the wait out of line, so that the registers of the event it is
 * inlined into stay as they are.
 */
static inline __attribute__((always_inline)) void tp_span_lock(int *lock)
{
	if (__builtin_expect(!tp_spin_try_lock(lock), 0))
		tp_span_lock_waits(lock);
}

/*
 * The pool's slow paths (work_span.c): a cache with no free entry takes a batch or a chunk (its
 * entry, or NULL when the pool is spent); one that holds twice a batch gives the older half back.
 */
struct tp_span_task *tp_span_alloc_refill(struct tp_span_cache *c);
void tp_span_free_batch(struct tp_span_cache *c);

/* An entry for a new task, or NULL when the pool is spent (entries of tasks alive, in caches). */
static inline __attribute__((always_inline)) struct tp_span_task *
tp_span_alloc(struct tp_span_cache *c)
{
	struct tp_span_task *t = c->free;
	if (__builtin_expect(t == NULL, 0))
		return tp_span_alloc_refill(c);
	c->free = (struct tp_span_task *)(uintptr_t)t->parent;
	c->count = c->count > 0 ? c->count - 1 : 0;
	return t;
}

/* Entry `t` is free again (its task ended), into the calling thread's cache. */
static inline __attribute__((always_inline)) void tp_span_free(struct tp_span_cache *c,
							       struct tp_span_task *t)
{
	t->parent = (uintptr_t)c->free;
	c->free = t;
	if (__builtin_expect(++c->count >= 2 * TP_SPAN_BATCH, 0))
		tp_span_free_batch(c);
}

/*
 * A place's bits above its time (its tag: its row plus one, 0 unused): its highest byte, compared
 * where it lies (a byte compared in memory is one instruction, the word shifted three).
 */
_Static_assert(TP_LIVE_PATH_NS_BITS == 56 && TP_LIVE_SITES <= 255,
	       "a place's tag, its row plus one, is its highest byte");
static inline __attribute__((always_inline)) uint8_t tp_span_place_tag(const uint64_t *place)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return ((const uint8_t *)place)[sizeof *place - 1];
#else
	return (uint8_t)(*place >> TP_LIVE_PATH_NS_BITS);
#endif
}

/* The bits above its time of site row `row`'s place: its row plus one (never 0: in use). */
static inline __attribute__((always_inline)) uint8_t tp_span_place_tag_of(uint32_t row)
{
	return (uint8_t)(row + 1);
}

/*
 * The place of site row `row` among `p`'s sites, a free one taken if it has none (its time all
 * of it: a path gives a place up only when none is free). On a full path, none yet:
 * TP_SPAN_PLACE_NEW + row, which the extensions of the path by the site's fragments read
 * (tp_span_path_extend_new): the site takes the place of the one with the least time once one
 * of them has more, else its time is the path's in sites not kept.
 */
static inline __attribute__((always_inline)) unsigned tp_span_path_site(struct tp_live_path *p,
									uint32_t row)
{
	const uint8_t tag = tp_span_place_tag_of(row);
	/* every poll asks: the site is found, or a free place taken, in a few unrolled steps. A
	 * site has one place on a path, sought from the last: places are taken in the order the
	 * path's tasks ran, and a poll's site is most often among the latest (the task's own,
	 * polled again; its parent's) */
#pragma GCC unroll 4
	for (unsigned k = TP_LIVE_PATH_SITES; k-- > 0;)
		if (tp_span_place_tag(&p->sites[k]) == tag)
			return k;
	unsigned at = 0;
#pragma GCC unroll 4
	for (; at < TP_LIVE_PATH_SITES; at++)
		if (p->sites[at] == 0)
			break;
	if (at == TP_LIVE_PATH_SITES)
		return TP_SPAN_PLACE_NEW + row;
	p->sites[at] = (uint64_t)tag << TP_LIVE_PATH_NS_BITS;
	p->fragments[at] = 0;
	return at;
}

/* `in` joins the last fork of site row `row` (tp_span_fork). */
void tp_span_fork_joined(struct tp_live_path *in, uint32_t row);

/*
 * A task spawned at `ns_now`, by task `parent` whose entry in the table of tasks alive is
 * `parent_at` (plus 1; 0: none): its start is `ns` into the fragment `th` polls now (th: the
 * thread polls the parent), else `in` (the parent's last fragment's end, when another thread
 * spawns it; NULL: none). `fork_row`: an implicit task without a parent (a worker's in a
 * parallel region of that site row; 0: none), whose start also joins its region's last fork
 * (TP_SPAN_FROM_FORK). `nestable`: the program spawned it without dependences
 * (tp_span_first_poll_nests).
 */
static inline __attribute__((always_inline)) void
tp_span_spawned(struct tp_span_task *t, uint64_t parent, uint32_t parent_at, uint32_t fork_row,
		const struct tp_span_thread *th, uint64_t ns, uint64_t ns_now,
		const struct tp_live_path *in, bool nestable)
{
	/* under its lock: a late fold into the task that had the entry before waits, and then
	 * finds that task gone */
	tp_span_lock(&t->lock);
	if (th != NULL) {
		t->in = th->in;
		tp_span_path_add(&t->in, th->site_at, ns);
	} else if (in != NULL) {
		t->in = *in;
	} else {
		memset(&t->in, 0, sizeof t->in);
	}
	t->in.ended_ns = ns_now;
	if (fork_row != 0)
		tp_span_fork_joined(&t->in, fork_row);
	/* none of its children ended: the entry's last task's placed length must not stay */
	tp_span_path_forget(&t->kids);
	t->desc_is_kids = true;
	t->parent = parent;
	t->parent_at = parent_at;
	t->started = false;
	t->ran_undeferred = false;
	t->nestable = nestable;
	t->successors = 0;
	t->overflowed = false;
	t->overflow_record = 0;
	t->joins = false;
	t->spawner = false;
	t->sync = TP_SYNC_NONE;
	t->holding = false;
	tp_spin_unlock(&t->lock);
}

/*
 * `last` becomes tp_span_path_max(`in`, `last`) as a copy of `in` would: `in`'s sites unless
 * `last` is longer (a tie keeps `in`'s), the later end and the larger placed length.
 */
static inline __attribute__((always_inline)) void tp_span_path_after(struct tp_live_path *last,
								     const struct tp_live_path *in)
{
	if (last->ns > in->ns) {
		if (in->ended_ns > last->ended_ns)
			last->ended_ns = in->ended_ns;
		if (in->placed_ns > last->placed_ns)
			last->placed_ns = in->placed_ns;
		return;
	}
	uint64_t ended = last->ended_ns > in->ended_ns ? last->ended_ns : in->ended_ns;
	uint64_t placed = last->placed_ns > in->placed_ns ? last->placed_ns : in->placed_ns;
	*last = *in;
	last->ended_ns = ended;
	last->placed_ns = placed;
}

/*
 * The thread's fragment starts at `now` after the start path now in th->in (its placed length
 * at least `placed_before`, the thread's previous fragment's end): burdened by its delay, which
 * it returns, and in site row `row`.
 */
static inline __attribute__((always_inline)) uint64_t
tp_span_thread_fragment_starts(struct tp_span_thread *th, uint32_t row, uint64_t now,
			       uint64_t placed_before)
{
	uint64_t delay = tp_span_fragment_starts(&th->in.placed_ns, placed_before, now,
						 th->in.ended_ns, th->free_ns);
	th->start_ns = now;
	th->could_ns = th->in.ended_ns;
	th->delay_ns = delay;
	th->in.burdened_ns += delay;
	th->site_at = tp_span_path_site(&th->in, row);
	return delay;
}

/*
 * `into` becomes the longest of the `n` paths `p` as tp_span_path_max from a copy of the first
 * would make it (the first of the longest, the last end, the largest placed length), in one copy
 * of a path, not one a join.
 */
static inline __attribute__((always_inline)) void
tp_span_path_max_of(struct tp_live_path *into, const struct tp_live_path *const *p, unsigned n)
{
	const struct tp_live_path *longest = p[0];
	uint64_t ended = p[0]->ended_ns, placed = p[0]->placed_ns;
	for (unsigned k = 1; k < n; k++) {
		if (p[k]->ns > longest->ns)
			longest = p[k];
		if (p[k]->ended_ns > ended)
			ended = p[k]->ended_ns;
		if (p[k]->placed_ns > placed)
			placed = p[k]->placed_ns;
	}
	*into = *longest;
	into->ended_ns = ended;
	into->placed_ns = placed;
}

/*
 * The start path in th->in is `t`'s own joined with what a sync's end joins (tp_span_join_steps'
 * `steps`), and `t` forgets what it says: apart from the polls after a switch out, the most
 * frequent. Under t's lock (its children's ends come into kids and desc on any thread).
 */
static inline __attribute__((always_inline)) void
tp_span_sync_joined(struct tp_span_task *t, struct tp_span_thread *th, unsigned steps,
		    const struct tp_live_path *frozen)
{
	const struct tp_live_path *joined[4] = {&t->in};
	unsigned n = 1;
	if (steps & TP_SPAN_JOINS_KIDS)
		joined[n++] = &t->kids;
	if (steps & TP_SPAN_JOINS_DESC)
		joined[n++] = tp_span_desc(t);
	if ((steps & TP_SPAN_JOINS_ENDED) && frozen != NULL)
		joined[n++] = frozen;
	tp_span_path_max_of(&th->in, joined, n);
	bool forgets_kids = steps & TP_SPAN_FORGETS_KIDS,
	     forgets_desc = steps & TP_SPAN_FORGETS_DESC;
	if (forgets_kids && forgets_desc) {
		tp_span_path_forget(&t->kids); /* both none: the same */
		t->desc_is_kids = true;
	} else if (forgets_kids || forgets_desc) {
		if (t->desc_is_kids && forgets_kids)
			t->desc = t->kids;
		t->desc_is_kids = false;
		tp_span_path_forget(forgets_kids ? &t->kids : &t->desc);
	}
}

/*
 * A task switched out holding a mutual exclusion object: its thread's path, ended at `now`, goes
 * to the object's entry (`t` NULL: it ended, and let the object go there); polled again, its
 * section goes on while it holds the object still (work_span.c).
 */
void tp_span_holder_switched_out(struct tp_span_task *t, struct tp_span_thread *th, uint64_t task,
				 uint64_t now);
void tp_span_holder_polled_again(struct tp_span_task *t, struct tp_span_thread *th, uint64_t task,
				 uint64_t now);

/*
 * Task `t`'s first poll by `th`, before tp_span_poll_start: its parent's state `parent` (NULL:
 * gone) ran it as nested work if tp_span_first_poll_nests says so (`th` polled the parent last).
 */
static inline __attribute__((always_inline)) void
tp_span_first_poll_of(const struct tp_span_task *t, const struct tp_span_thread *th,
		      struct tp_span_task *parent)
{
	if (parent != NULL && tp_span_first_poll_nests(t->nestable, th->last_task == t->parent,
						       parent->sync == TP_SYNC_NONE))
		parent->ran_undeferred = true;
}

/*
 * Task `task` (state `t`) polled by `th` at `now`: the fragment's start is the largest of what
 * joins it (its sync's), burdened by its delay (tp_live_start_delay), which it returns; its
 * placed length also joins the thread's previous fragment's end. `suspended_ns`: when its last
 * poll ended. `frozen`: for a barrier's end, the
 * longest path ended before the barrier completed (tp_span_barrier_needs says whether it is
 * needed; NULL otherwise).
 */
static inline __attribute__((always_inline)) uint64_t
tp_span_poll_start(struct tp_span_task *t, struct tp_span_thread *th, uint64_t task, uint32_t row,
		   uint64_t now, uint64_t suspended_ns, const struct tp_live_path *frozen)
{
	th->in_graph = true;
	th->section_row =
		0; /* a task switched out inside one takes it again (tp_span_holder_polled_again) */
	/* between polls, the thread's `in` is its last fragment's end */
	uint64_t placed_before = th->in.placed_ns;
	if (!t->started) {
		/* its predecessors ended before the executor let it start: `in` is whole */
		th->in = t->in;
		t->started = true;
		return tp_span_thread_fragment_starts(th, row, now, placed_before);
	}
	/* the start path is built in th->in itself (one copy per poll: a path is large); the
	 * thread's previous fragment's end is kept aside only when it joins. tp_span_start_steps'
	 * rule, each join's steps a constant (their tests folded away) */
	switch (tp_span_join_of(t->sync)) {
	case TP_SPAN_JOIN_THREAD:
		/* no lock: of a task polled before, the other threads write kids and desc only */
		if (tp_span_follows_thread(t->ran_undeferred,
					   th->last_task != 0 && th->last_task != task,
					   th->free_ns >= suspended_ns))
			tp_span_path_after(&th->in,
					   &t->in); /* TP_SPAN_JOINS_THREAD, its only step */
		else
			th->in = t->in;
		break;
	case TP_SPAN_JOIN_CHILDREN:
		tp_span_lock(&t->lock);
		tp_span_sync_joined(t, th, tp_span_join_steps(TP_SPAN_JOIN_CHILDREN), frozen);
		tp_spin_unlock(&t->lock);
		break;
	case TP_SPAN_JOIN_DESCENDANTS:
		tp_span_lock(&t->lock);
		tp_span_sync_joined(t, th, tp_span_join_steps(TP_SPAN_JOIN_DESCENDANTS), frozen);
		tp_spin_unlock(&t->lock);
		break;
	case TP_SPAN_JOIN_ENDED:
		tp_span_lock(&t->lock);
		tp_span_sync_joined(t, th, tp_span_join_steps(TP_SPAN_JOIN_ENDED), frozen);
		tp_spin_unlock(&t->lock);
		break;
	}
	t->ran_undeferred = false;
	uint64_t delay = tp_span_thread_fragment_starts(th, row, now, placed_before);
	if (t->holding)
		tp_span_holder_polled_again(t, th, task, now);
	return delay;
}

/*
 * The thread's fragment of task `task`, `ns` long, ended at `now`: `t`'s poll ended unfinished
 * waiting in `sync` (t not NULL), or the task ended (t NULL). The thread's `in` becomes the path
 * to the fragment's end; a task switched out holding a mutual exclusion object leaves that path
 * in the object's entry (tp_span_mutex), until its next poll (tp_span_poll_start).
 */
static inline __attribute__((always_inline)) void tp_span_poll_end(struct tp_span_task *t,
								   struct tp_span_thread *th,
								   uint64_t task, uint64_t ns,
								   uint64_t now, uint32_t sync)
{
	const bool fragment = tp_span_part_is_fragment(TP_SPAN_PART_AT_POLL_END);
	/* a suspended task's path copied before the thread's is extended, then extended the same:
	 * the copy read right after the extension's stores waited for them (a store forwarded to
	 * a wider load stalls): a fifth of tp_live_task_switch's samples under perf on BOTS uts */
	if (t != NULL) {
		t->in = th->in;
		tp_span_path_extend(&t->in, th->site_at, ns, fragment);
		t->in.ended_ns = now;
		t->sync = (uint8_t)sync;
	}
	tp_span_path_extend(&th->in, th->site_at, ns, fragment);
	th->in.ended_ns = now;
	if (th->holds != 0)
		tp_span_holder_switched_out(t, th, task, now);
	th->last_task = task;
	th->free_ns = now;
}

/*
 * Task `t`, ended with the path `end`, folded into its parent's state `parent`, while
 * `*parent_id` (its entry's task id) is still `id`: a parent that ended meanwhile gave its state
 * to another task.
 */
static inline __attribute__((always_inline)) void
tp_span_child_ended(struct tp_span_task *parent, const uint64_t *parent_id, uint64_t id,
		    struct tp_span_task *t, const struct tp_live_path *end)
{
	/* the parent is the nearest ancestor alive while its entry is its own (checked under its
	 * lock below) */
	struct tp_span_end_steps steps = tp_span_end_steps(true, true, t->spawner);
	/* a task that spawned nothing has no descendants' ends: no lock, no copy */
	struct tp_live_path desc;
	const struct tp_live_path *longest = end;
	if (steps.own_desc) {
		tp_span_lock(&t->lock);
		desc = *tp_span_desc(t);
		tp_spin_unlock(&t->lock);
		tp_span_path_max(&desc, end);
		longest = &desc;
	}
	tp_span_lock(&parent->lock);
	if (__atomic_load_n(parent_id, __ATOMIC_ACQUIRE) == id) {
		/* the same fold into both while `desc` is `kids`: once */
		if (parent->desc_is_kids && (!steps.kids || !steps.desc || longest != end)) {
			parent->desc = parent->kids;
			parent->desc_is_kids = false;
		}
		if (steps.kids)
			tp_span_path_max(&parent->kids, end);
		if (steps.desc && !parent->desc_is_kids)
			tp_span_path_max(&parent->desc, longest);
	}
	tp_spin_unlock(&parent->lock);
}
