// SPDX-License-Identifier: MIT
/*
 * Work and span online (work_span.h): what the task events do to the paths that is no task's
 * every event's (those are inlined, work_span_events.h): the tasks' states' pool's batches, the
 * forks, mutual exclusion's edges, a predecessor's end. Callers hold no lock of their own; a
 * task's lock is taken here where another thread may write the same paths (a child ending, a
 * predecessor ending).
 */
#include "work_span_events.h"

#include <string.h>

#include "spin_lock.h"

struct tp_span_task *tp_span_pool;
static uint64_t *pool_holds; /* tp_span_pool_start's holds */
static uint32_t capacity;
static uint32_t pool_used; /* entries handed out to caches in chunks, never used before */
/*
 * Batches given back: a stack of lists of free entries, each linked through `parent` (addresses,
 * as the caches' lists), the next batch's first id in its first entry's `kids.ns`. The head is
 * the first batch's id in its low 32 bits and a count of pops in its high ones, so that a pop
 * never takes a batch that was popped and pushed back meanwhile (ABA).
 */
static uint64_t batches;

__attribute__((noinline, cold)) void tp_span_lock_waits(int *lock)
{
	tp_spin_lock(lock);
}

void tp_span_pool_start(struct tp_span_task *entries, uint64_t *holds, uint32_t n)
{
	tp_span_pool = entries;
	pool_holds = holds;
	capacity = n;
	__atomic_store_n(&pool_used, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&batches, 0, __ATOMIC_RELAXED);
}

/* Pushes the list of `first` (linked through `parent`, ended by NULL) as one batch. */
static void push_batch(struct tp_span_task *first)
{
	uint32_t id = (uint32_t)(first - tp_span_pool) + 1;
	uint64_t head = __atomic_load_n(&batches, __ATOMIC_RELAXED);
	do
		first->kids.ns = (uint32_t)head;
	while (!__atomic_compare_exchange_n(&batches, &head, (head & ~0xffffffffull) | id, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* Pops a batch into the cache's free list; false when there is none. */
static bool pop_batch(struct tp_span_cache *c)
{
	uint64_t head = __atomic_load_n(&batches, __ATOMIC_ACQUIRE), next;
	do {
		if ((uint32_t)head == 0)
			return false;
		next = ((head >> 32) + 1) << 32 |
		       (uint32_t)__atomic_load_n(&tp_span_at((uint32_t)head)->kids.ns,
						 __ATOMIC_RELAXED);
	} while (!__atomic_compare_exchange_n(&batches, &head, next, true, __ATOMIC_ACQUIRE,
					      __ATOMIC_ACQUIRE));
	c->free = tp_span_at((uint32_t)head);
	c->count = TP_SPAN_BATCH; /* about: a thread's last batch may be shorter */
	return true;
}

struct tp_span_task *tp_span_alloc_refill(struct tp_span_cache *c)
{
	if (c->free == NULL && !pop_batch(c) && c->bump == c->bump_end) {
		uint32_t at = __atomic_fetch_add(&pool_used, TP_SPAN_CHUNK, __ATOMIC_RELAXED);
		if (at >= capacity)
			return NULL;
		c->bump = at + 1;
		c->bump_end = (at + TP_SPAN_CHUNK < capacity ? at + TP_SPAN_CHUNK : capacity) + 1;
	}
	if (c->free == NULL)
		return tp_span_at(c->bump++);
	return tp_span_alloc(c);
}

void tp_span_free_batch(struct tp_span_cache *c)
{
	/* more than it needs: the older half goes back */
	struct tp_span_task *last = c->free;
	for (unsigned k = 1; k < TP_SPAN_BATCH; k++)
		last = (struct tp_span_task *)(uintptr_t)last->parent;
	struct tp_span_task *batch = (struct tp_span_task *)(uintptr_t)last->parent;
	last->parent = 0;
	c->count = TP_SPAN_BATCH;
	push_batch(batch);
}

void tp_span_cache_flush(struct tp_span_cache *c)
{
	if (c->free != NULL)
		push_batch(c->free);
	*c = (struct tp_span_cache){0};
}

void tp_span_shared_write(struct tp_span_shared *s, const struct tp_live_path *p, uint64_t at_ns)
{
	struct tp_live_path *f = &s->path;
	__atomic_store_n(&s->seq, s->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&f->ns, p->ns, __ATOMIC_RELAXED);
	__atomic_store_n(&f->burdened_ns, p->burdened_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&f->ended_ns, p->ended_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&f->placed_ns, p->placed_ns, __ATOMIC_RELAXED);
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++) {
		__atomic_store_n(&f->sites[k], p->sites[k], __ATOMIC_RELAXED);
		__atomic_store_n(&f->fragments[k], p->fragments[k], __ATOMIC_RELAXED);
	}
	__atomic_store_n(&s->at_ns, at_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, s->seq + 1, __ATOMIC_RELEASE);
}

/*
 * A writer holds the sequence odd for a few stores (preempted, longer): the reader waits it out,
 * yielding now and then, but never for ever: a writer that never finishes (a thread cancelled
 * asynchronously, or stopped in a signal handler that waits for this one) leaves a figure torn,
 * never the program stopped.
 */
#define SHARED_READ_TURNS (32 * TP_SPINS_BEFORE_YIELD)
uint64_t tp_span_shared_read(const struct tp_span_shared *s, struct tp_live_path *out)
{
	for (unsigned spins = 0;; tp_spin_turn(&spins)) {
		uint32_t before = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		bool last = spins >= SHARED_READ_TURNS;
		if (before % 2 != 0 && !last)
			continue;
		uint64_t at = __atomic_load_n(&s->at_ns, __ATOMIC_RELAXED);
		tp_live_path_load(&s->path, out);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) == before || last)
			return at;
	}
}

static struct tp_span_shared *forks;
static uint32_t fork_rows;

void tp_span_forks_start(struct tp_span_shared *f, uint32_t rows)
{
	forks = f;
	fork_rows = rows;
	memset(f, 0, rows * sizeof *f);
}

void tp_span_fork(uint32_t row, const struct tp_live_path *p)
{
	if (row >= fork_rows)
		return;
	struct tp_span_shared *f = &forks[row];
	tp_spin_lock(&f->lock);
	tp_span_shared_write(f, p, p->ended_ns);
	tp_spin_unlock(&f->lock);
}

uint64_t tp_span_fork_at(uint32_t row)
{
	return row < fork_rows ? __atomic_load_n(&forks[row].at_ns, __ATOMIC_RELAXED) : 0;
}

void tp_span_fork_joined(struct tp_live_path *in, uint32_t row)
{
	if (row >= fork_rows)
		return;
	struct tp_live_path fork;
	tp_span_shared_read(&forks[row], &fork);
	tp_span_path_max(in, &fork);
}

static struct tp_span_mutex *mutexes;

void tp_span_mutexes_start(struct tp_span_mutex *m)
{
	mutexes = m;
}

static struct tp_span_mutex *mutex_of(uint64_t object)
{
	return &mutexes[(object * 0x9e3779b97f4a7c15ull) >> 54]; /* 10 bits: TP_SPAN_MUTEXES */
}
_Static_assert(TP_SPAN_MUTEXES == 1 << 10, "mutex_of hashes to 10 bits");

/*
 * Task `task`, which holds th->holds, its thread's path now its last fragment's end (at `now`),
 * is switched out (`t`: its state) or ended (t NULL): while it is not polled it does no work, and
 * an acquire of the object joins that path as it is (TP_SPAN_ACQUIRES_HOLDER_LAST). The object
 * goes with the task, for its next poll (tp_span_holder_polled_again); a task that ended holding
 * it let it go there (tp_span_end_releases).
 */
__attribute__((noinline, cold)) void tp_span_holder_switched_out(struct tp_span_task *t,
								 struct tp_span_thread *th,
								 uint64_t task, uint64_t now)
{
	uint64_t object = th->holds;
	th->holds = 0;
	if (mutexes == NULL)
		return;
	struct tp_span_mutex *m = mutex_of(object);
	tp_spin_lock(&m->lock);
	/* not its holder (its release lost, or another object's holder has the entry): nothing
	 * to carry */
	if (m->object == object && m->holder == task) {
		if (tp_span_end_releases(t == NULL)) {
			m->released = th->in;
			m->released.ended_ns = now;
			m->holder = 0;
		} else {
			m->held = th->in;
			m->held.ended_ns = now;
			m->held_section = th->section_row;
			m->holder_polled = false;
			t->holding = true;
			pool_holds[t - tp_span_pool] = object;
		}
	}
	tp_spin_unlock(&m->lock);
}

/*
 * Task `task` (state `t`), switched out holding an object (its `holding`), is polled again by
 * `th` from `now`: while it holds it still (tp_span_resumes_section), its path to the object's
 * release goes on from its fragment's start path, and its section goes on, in its sync site's
 * row until its release (--analyze's section_site).
 */
__attribute__((noinline, cold)) void tp_span_holder_polled_again(struct tp_span_task *t,
								 struct tp_span_thread *th,
								 uint64_t task, uint64_t now)
{
	uint64_t object = pool_holds[t - tp_span_pool];
	t->holding = false;
	struct tp_span_mutex *m = mutex_of(object);
	tp_spin_lock(&m->lock);
	if (tp_span_resumes_section(m->object == object && m->holder == task)) {
		th->holds = object;
		th->section_row = m->held_section;
		if (th->section_row != 0)
			th->site_at = tp_span_path_site(&th->in, th->section_row);
		m->held = th->in;
		m->held_at = th->site_at;
		m->held_from = now;
		m->holder_polled = true;
	}
	tp_spin_unlock(&m->lock);
}

__attribute__((noinline, cold)) void tp_span_path_extend_new(struct tp_live_path *p, uint32_t row,
							     uint64_t ns, bool fragment)
{
	/* a place taken since (this path extended by the fragment before), or a free one (a path
	 * that took the place of the one the fragment started on: it gave none up) */
	unsigned at = tp_span_path_site(p, row);
	if (at < TP_SPAN_PLACE_NEW) {
		tp_span_path_extend(p, at, ns, fragment);
		return;
	}
	/* the least of the sites kept: never the committed place (tp_span_commit), which is
	 * every site's before the last commit */
	unsigned least = TP_LIVE_PATH_SITES;
	uint64_t kept = 0;
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++) {
		uint64_t time = p->sites[k] & TP_LIVE_PATH_NS_MASK;
		kept += time;
		if (!TP_LIVE_PATH_COMMITTED_PLACE(p->sites[k]) &&
		    (least == TP_LIVE_PATH_SITES ||
		     time < (p->sites[least] & TP_LIVE_PATH_NS_MASK)))
			least = k;
	}
	if (ns <= (p->sites[least] & TP_LIVE_PATH_NS_MASK)) {
		tp_span_path_lengthen(p, ns);
		return;
	}
	/* the site may have been on the path before, given up: its time a lower bound */
	p->sites[least] = (uint64_t)tp_span_place_tag_of(row) << TP_LIVE_PATH_NS_BITS;
	p->fragments[least] = kept < p->ns ? TP_LIVE_PATH_SINCE_LOSS : 0;
	tp_span_path_extend(p, least, ns, fragment);
}

void tp_span_split(struct tp_span_thread *th, uint64_t ns, uint64_t now, bool fragment)
{
	tp_span_path_extend(&th->in, th->site_at, ns, fragment);
	tp_span_part_begins(&th->start_ns, &th->could_ns, &th->delay_ns, now);
}

void tp_span_released(const struct tp_span_thread *th, uint64_t task, uint64_t ns, uint64_t now,
		      bool split, uint64_t object)
{
	if (mutexes == NULL)
		return;
	struct tp_span_mutex *m = mutex_of(object);
	tp_spin_lock(&m->lock);
	/* a late release (another task acquired it since) or one of an object whose entry
	 * another object's holder took: not the object's last */
	if (m->object == object && tp_span_release_kept(m->holder == task)) {
		m->released = th->in;
		tp_span_path_extend(&m->released, th->site_at, ns,
				    tp_span_release_part_is_fragment(split));
		m->released.ended_ns = now;
		m->holder = 0;
	}
	tp_spin_unlock(&m->lock);
}

void tp_span_acquired(struct tp_span_thread *th, uint64_t task, uint64_t now, uint64_t object)
{
	if (mutexes == NULL)
		return;
	struct tp_span_mutex *m = mutex_of(object);
	struct tp_live_path released;
	tp_spin_lock(&m->lock);
	bool found = m->object == object;
	if (found) {
		switch (tp_span_acquire_joins(m->holder != 0, m->holder == task,
					      m->holder_polled)) {
		case TP_SPAN_ACQUIRES_RELEASE:
			released = m->released;
			break;
		case TP_SPAN_ACQUIRES_HOLDER_NOW:
			/* its release is late (or lost): its section so far */
			released = m->held;
			tp_span_path_extend(&released, m->held_at,
					    now > m->held_from ? now - m->held_from : 0,
					    tp_span_release_part_is_fragment(false));
			released.ended_ns = now;
			break;
		case TP_SPAN_ACQUIRES_HOLDER_LAST:
			released = m->held; /* tp_span_holder_switched_out's */
			break;
		}
	}
	tp_spin_unlock(&m->lock);
	if (!found || released.ns == 0)
		return;
	uint32_t row = th->site_at >= TP_SPAN_PLACE_NEW
			       ? th->site_at - TP_SPAN_PLACE_NEW
			       : TP_LIVE_PATH_ROW_OF(th->in.sites[th->site_at]);
	uint64_t ns = th->in.ns;
	uint64_t delay = tp_span_start_rejoined(&th->could_ns, th->start_ns, th->free_ns,
						released.ended_ns);
	th->in.burdened_ns -= th->delay_ns;
	tp_span_path_max(&th->in, &released);
	th->in.burdened_ns += delay;
	th->delay_ns = delay;
	/* the released path took the place of `in`: the fragment's site a place in it again */
	if (th->in.ns != ns)
		th->site_at = tp_span_path_site(&th->in, row);
}

void tp_span_holds(const struct tp_span_thread *th, uint64_t task, uint64_t now, uint64_t object)
{
	if (mutexes == NULL)
		return;
	struct tp_span_mutex *m = mutex_of(object);
	tp_spin_lock(&m->lock);
	/* an entry another object's holder has stays its own (this object's edges lost) */
	if (m->object != object && m->holder != 0) {
		tp_spin_unlock(&m->lock);
		return;
	}
	if (m->object != object)
		memset(&m->released, 0, sizeof m->released);
	m->object = object;
	m->holder = task;
	m->held = th->in;
	m->held_at = th->site_at;
	m->held_from = now;
	m->holder_polled = true;
	tp_spin_unlock(&m->lock);
}

void tp_span_acquire(struct tp_span_thread *th, uint64_t task, uint64_t now, uint64_t ns,
		     uint32_t section_row, uint32_t row, uint64_t object)
{
	if (tp_span_acquire_splits(ns))
		tp_span_split(th, ns, now, tp_span_part_is_fragment(TP_SPAN_PART_AT_ACQUIRE));
	tp_span_acquired(th, task, now, object);
	th->section_row = section_row;
	th->site_at = tp_span_path_site(&th->in, tp_span_part_site(section_row, row));
	tp_span_holds(th, task, now, object);
	th->holds = object;
}

bool tp_span_release(struct tp_span_thread *th, uint64_t task, uint64_t now, uint64_t ns,
		     uint32_t row, uint64_t object)
{
	bool split = tp_span_release_splits(th->section_row != 0);
	th->section_row = 0;
	if (split) {
		tp_span_split(th, ns, now, tp_span_part_is_fragment(TP_SPAN_PART_AT_RELEASE));
		th->site_at = tp_span_path_site(&th->in, row);
		ns = 0;
	}
	tp_span_released(th, task, ns, now, split, object);
	if (th->holds == object)
		th->holds = 0;
	return split;
}

void tp_span_predecessor_ended(struct tp_span_task *succ, const uint64_t *succ_id, uint64_t id,
			       const struct tp_live_path *end)
{
	tp_spin_lock(&succ->lock);
	if (!succ->started && __atomic_load_n(succ_id, __ATOMIC_ACQUIRE) == id)
		tp_span_path_max(&succ->in, end);
	tp_spin_unlock(&succ->lock);
}

/* Commits are made one at a time (a commit reads the snapshot it builds on). */
static int commit_lock;
/*
 * The thread whose initial task commits: the first to, until the main thread does, which then
 * keeps it. A program's other threads that run parallel regions of their own (roots) commit none:
 * their commits between its own pushed its base out of the snapshots kept, and it never committed
 * again (two roots read worse than without commits); their paths keep four places, as before.
 */
static const struct tp_span_thread *committer;

void tp_span_commits_start(void)
{
	__atomic_store_n(&commit_lock, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&committer, NULL, __ATOMIC_RELAXED);
}

bool tp_span_commit(struct tp_live_commits *c, struct tp_live_path *p)
{
	/* the path's committed place (its base), and its other places' time */
	const struct tp_live_commit *base = NULL;
	uint64_t base_ns = 0, kept = 0;
	unsigned sites = 0;
	tp_spin_lock(&commit_lock);
	uint32_t count = __atomic_load_n(&c->count, __ATOMIC_RELAXED);
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++) {
		uint64_t time = p->sites[k] & TP_LIVE_PATH_NS_MASK;
		if (!TP_LIVE_PATH_COMMITTED_PLACE(p->sites[k])) {
			kept += time;
			sites += p->sites[k] != 0;
			continue;
		}
		/* a base the new snapshot would overwrite, or none kept: no commit */
		if (tp_live_commits_back(count, p->fragments[k] & TP_LIVE_PATH_LABEL_MASK) >=
		    TP_LIVE_COMMITS - 1) {
			tp_spin_unlock(&commit_lock);
			return false;
		}
		base = &c->snapshots[(p->fragments[k] & TP_LIVE_PATH_LABEL_MASK) % TP_LIVE_COMMITS];
		base_ns = time;
	}
	/* (a path of no time keeps no committed place: its value would be a free place's) */
	bool fresh = sites > 0 && p->ns > 0 && p->ns >= kept + base_ns;
	if (!fresh) {
		tp_spin_unlock(&commit_lock);
		return base != NULL && sites == 0; /* committed already */
	}
	/* count 0 is none: past 2^32 commits the labels go on from a multiple of the snapshots */
	uint32_t label = count + 1 != 0 ? count + 1 : TP_LIVE_COMMITS;
	struct tp_live_commit *to = &c->snapshots[label % TP_LIVE_COMMITS];
	__atomic_store_n(&c->seq, c->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	/* past `rows` every snapshot is 0: never written */
	uint32_t rows = __atomic_load_n(&c->rows, __ATOMIC_RELAXED);
	for (uint32_t row = 0; row < rows; row++) {
		__atomic_store_n(&to->ns[row], base != NULL ? base->ns[row] : 0, __ATOMIC_RELAXED);
		__atomic_store_n(&to->fragments[row], base != NULL ? base->fragments[row] : 0,
				 __ATOMIC_RELAXED);
	}
	__atomic_store_n(&to->other_ns,
			 (base != NULL ? base->other_ns : 0) + (p->ns - kept - base_ns),
			 __ATOMIC_RELAXED);
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++) {
		if (p->sites[k] == 0 || TP_LIVE_PATH_COMMITTED_PLACE(p->sites[k]))
			continue;
		uint32_t row = TP_LIVE_PATH_ROW_OF(p->sites[k]) % TP_LIVE_SITES;
		uint32_t had = to->fragments[row], add = p->fragments[k];
		uint32_t fragments = (((had & TP_LIVE_PATH_FRAGMENTS_MASK) +
				       (add & TP_LIVE_PATH_FRAGMENTS_MASK)) &
				      TP_LIVE_PATH_FRAGMENTS_MASK) |
				     ((had | add) & TP_LIVE_PATH_SINCE_LOSS);
		__atomic_store_n(&to->ns[row], to->ns[row] + (p->sites[k] & TP_LIVE_PATH_NS_MASK),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&to->fragments[row], fragments, __ATOMIC_RELAXED);
		if (row >= rows)
			rows = row + 1;
	}
	__atomic_store_n(&c->rows, rows, __ATOMIC_RELAXED);
	__atomic_store_n(&c->count, label, __ATOMIC_RELAXED);
	__atomic_store_n(&c->seq, c->seq + 1, __ATOMIC_RELEASE);
	tp_spin_unlock(&commit_lock);
	memset(p->sites, 0, sizeof p->sites);
	memset(p->fragments, 0, sizeof p->fragments);
	p->sites[0] = p->ns & TP_LIVE_PATH_NS_MASK;
	p->fragments[0] = label & TP_LIVE_PATH_LABEL_MASK;
	return true;
}

void tp_span_thread_commits(struct tp_span_thread *th, struct tp_live_commits *c, uint32_t row,
			    bool main_thread)
{
	unsigned used = 0;
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++)
		used += th->in.sites[k] != 0;
	if (used + TP_SPAN_COMMIT_FREE <= TP_LIVE_PATH_SITES)
		return;
	const struct tp_span_thread *none = NULL;
	if (main_thread)
		__atomic_store_n(&committer, th, __ATOMIC_RELAXED);
	else if (__atomic_load_n(&committer, __ATOMIC_RELAXED) != th &&
		 !__atomic_compare_exchange_n(&committer, &none, th, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED))
		return;
	/* the fragment's part going on is a section's when its task resumed one
	 * (tp_span_holder_polled_again) */
	if (tp_span_commit(c, &th->in))
		th->site_at = tp_span_path_site(&th->in, tp_span_part_site(th->section_row, row));
}
