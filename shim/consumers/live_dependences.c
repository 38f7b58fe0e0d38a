// SPDX-License-Identifier: MIT
/*
 * The live statistics' dependences between tasks (issue 35): an edge kept by its predecessor's
 * id until the predecessor ends, when its successors start after its path (live_private.h,
 * struct dependence).
 */
#include "live_private.h"

#include "hash.h"

#include <string.h>

/*
 * Predecessors whose edges found all their windows full (a task read by more than 256 tasks
 * while it runs: omp_shapes' gate, read by 300,000): their successors wait for their end in a
 * record of their own instead, each holding the record's index and generation; the
 * predecessor's end writes its path there once, each successor takes it at its first poll, and
 * the last one frees the record. A successor that waits on a second such predecessor, or finds
 * no record free, is left out as before (counted). Taken and given back under one lock: a path
 * only tasks of such a fan-out take, never a task's common one.
 */
#define OVERFLOWS 64

struct overflow {
	uint64_t predecessor; /* 0: free */
	uint32_t waiting;     /* successors holding it, not yet polled */
	uint16_t generation;
	bool ended;
	struct tp_live_path end;
};

static struct overflow overflows[OVERFLOWS];
static int overflows_lock;

/* Successor `succ` waits for `predecessor` (state `pred`) in its record; false when it cannot. */
static bool overflow_attach(uint64_t predecessor, struct tp_span_task *pred,
			    struct tp_span_task *succ)
{
	if (__atomic_load_n(&succ->overflow_record, __ATOMIC_RELAXED) != 0)
		return false;
	tp_spin_lock(&overflows_lock);
	struct overflow *o = NULL, *free_one = NULL;
	for (unsigned i = 0; i < OVERFLOWS && o == NULL; i++) {
		if (overflows[i].predecessor == predecessor)
			o = &overflows[i];
		else if (overflows[i].predecessor == 0 && free_one == NULL)
			free_one = &overflows[i];
	}
	if (o == NULL && free_one != NULL) {
		o = free_one;
		*o = (struct overflow){.predecessor = predecessor,
				       .generation = (uint16_t)(o->generation + 1)};
	}
	if (o != NULL) {
		o->waiting++;
		__atomic_store_n(&succ->overflow_generation, o->generation, __ATOMIC_RELAXED);
		__atomic_store_n(&succ->overflow_record, (uint8_t)(o - overflows + 1),
				 __ATOMIC_RELAXED);
	}
	tp_spin_unlock(&overflows_lock);
	if (o != NULL && !__atomic_load_n(&pred->overflowed, __ATOMIC_RELAXED))
		__atomic_store_n(&pred->overflowed, true, __ATOMIC_SEQ_CST);
	return o != NULL;
}

void live_overflow_ended(uint64_t predecessor, const struct tp_live_path *end)
{
	tp_spin_lock(&overflows_lock);
	for (unsigned i = 0; i < OVERFLOWS; i++)
		if (overflows[i].predecessor == predecessor && !overflows[i].ended) {
			overflows[i].end = *end;
			overflows[i].ended = true;
			break;
		}
	tp_spin_unlock(&overflows_lock);
}

void live_overflow_join(struct tp_span_task *t, const uint64_t *task_id, uint64_t task)
{
	unsigned record = __atomic_load_n(&t->overflow_record, __ATOMIC_RELAXED);
	struct tp_live_path end;
	bool ended = false;
	tp_spin_lock(&overflows_lock);
	struct overflow *o = &overflows[record - 1];
	if (o->predecessor != 0 && o->generation == t->overflow_generation) {
		if ((ended = o->ended))
			end = o->end;
		if (--o->waiting == 0)
			o->predecessor = 0;
	}
	tp_spin_unlock(&overflows_lock);
	__atomic_store_n(&t->overflow_record, 0, __ATOMIC_RELAXED);
	if (ended)
		tp_span_predecessor_ended(t, task_id, task, &end);
	else /* its predecessor ended before it saw the record: the path to its start, as before */
		count(&header->dependences_dropped);
}

void live_overflows_forget(void)
{
	memset(overflows, 0, sizeof overflows);
	overflows_lock = 0;
}

/* The first entry of window `k` (< DEPENDENCE_HOMES) of a predecessor's edges: the first,
 * consecutive ids DEPENDENCE_STRIDE entries apart; the others, its id hashed. */
static uint32_t dependence_home(uint64_t predecessor, unsigned k)
{
	if (k == 0)
		return (uint32_t)(predecessor * DEPENDENCE_STRIDE) & (DEPENDENCE_SLOTS - 1);
	return (uint32_t)tp_hash_pair(predecessor, k) & (DEPENDENCE_SLOTS - 1);
}

/* The entry `i` of a predecessor's windows, the first's first entry its 0. */
static struct dependence *dependence_at(uint64_t predecessor, unsigned i)
{
	uint32_t home = dependence_home(predecessor, i / DEPENDENCE_WINDOW);
	return &dependences[(home + i % DEPENDENCE_WINDOW) & (DEPENDENCE_SLOTS - 1)];
}

/*
 * `successor` starts only after `predecessor` ends: an edge kept until then, by the
 * predecessor's id (DEPENDENCE_WINDOW). A predecessor that ended meanwhile (its end came before
 * the executor let go of it) gives the path to its last suspension, all that is left of it.
 */
void tp_live_task_dependence(uint64_t predecessor, uint64_t successor)
{
	if (enter(TAKES_SLOT) == NULL)
		return;
	if (!__atomic_load_n(&dependences_seen, __ATOMIC_RELAXED))
		__atomic_store_n(&dependences_seen, true, __ATOMIC_SEQ_CST);
	struct task_entry *p = task_find(predecessor), *s = task_find(successor);
	if (p != NULL && s != NULL && p != s) {
		struct tp_span_task *pred = span_of(p), *succ = span_of(s);
		struct tp_live_path known = pred->in;
		struct dependence *d = NULL;
		for (unsigned k = 0; k < DEPENDENCE_HOMES * DEPENDENCE_WINDOW && d == NULL; k++) {
			struct dependence *at = dependence_at(predecessor, k);
			uint64_t empty = 0;
			if (__atomic_load_n(&at->predecessor, __ATOMIC_RELAXED) == 0 &&
			    __atomic_compare_exchange_n(&at->predecessor, &empty, ENTRY_FILLING,
							false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				d = at;
		}
		if (d == NULL) {
			/* its path so far, all the successor gets should the record not be had */
			if (!overflow_attach(predecessor, pred, succ))
				count(&header->dependences_dropped);
			tp_span_predecessor_ended(succ, &s->task, successor, &known);
		} else {
			__atomic_store_n(&d->successor, successor, __ATOMIC_RELAXED);
			__atomic_store_n(&d->predecessor, predecessor, __ATOMIC_RELEASE);
			/* the predecessor's end frees its entry, then counts its edges: one of
			 * the two sees the other (task_terminate) */
			if (__atomic_load_n(&pred->successors, __ATOMIC_RELAXED) < UINT8_MAX)
				__atomic_add_fetch(&pred->successors, 1, __ATOMIC_SEQ_CST);
			else
				__atomic_thread_fence(__ATOMIC_SEQ_CST);
			/* ended meanwhile, before it saw the edge: taken back if still there */
			uint64_t mine = predecessor;
			if (__atomic_load_n(&p->task, __ATOMIC_ACQUIRE) != predecessor &&
			    __atomic_compare_exchange_n(&d->predecessor, &mine, 0, false,
							__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
				tp_span_predecessor_ended(succ, &s->task, successor, &known);
		}
	}
	leave();
}

/*
 * A predecessor with `edges` successors ended with `end` (UINT8_MAX: that many or more): they
 * start after it, and their edges go.
 */
void live_successors_follow(uint64_t predecessor, unsigned edges, const struct tp_live_path *end)
{
	for (unsigned k = 0, found = 0;
	     k < DEPENDENCE_HOMES * DEPENDENCE_WINDOW && (found < edges || edges == UINT8_MAX);
	     k++) {
		struct dependence *at = dependence_at(predecessor, k);
		if (__atomic_load_n(&at->predecessor, __ATOMIC_ACQUIRE) != predecessor)
			continue;
		uint64_t successor = __atomic_load_n(&at->successor, __ATOMIC_RELAXED);
		uint64_t mine = predecessor;
		found++;
		if (!__atomic_compare_exchange_n(&at->predecessor, &mine, 0, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		struct task_entry *s = task_find(successor);
		if (s != NULL)
			tp_span_predecessor_ended(span_of(s), &s->task, successor, end);
	}
}
