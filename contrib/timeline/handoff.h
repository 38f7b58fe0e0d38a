// SPDX-License-Identifier: MIT
/*
 * A ring of batches handed from one thread to another (the converter's on two cores: the
 * merge's events to the timeline, recording.c; speedscope's events to their writer,
 * write_speedscope.c): batches filled and emptied, counted from 0, each side writing its own
 * count and reading the other's. A side that must wait says so and sleeps; the other wakes it
 * (under the lock) only then: no lock and no futex call a batch (they cost more than the work a
 * thread of its own saves). The filling side, when it must wait, waits until half the ring is
 * empty; the emptying side until `ahead` batches more than the one it waits for are filled (or
 * the filling side has ended): an emptying side off the critical path (speedscope's writer,
 * faster than the thread filling its batches) then sleeps, and is woken, once every `ahead`
 * batches, not once a batch (fib's recording converted to speedscope: the converter's voluntary
 * context switches 3500 where they were 5200).
 */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct handoff {
	uint64_t batches; /* the ring's */
	uint64_t ahead;   /* batches filled beyond the one the emptying side waits for: less than
			   * half the ring */
	_Atomic uint64_t filled, emptied;
	/* the batch the emptying side waits for, while it waits */
	_Atomic uint64_t wanted;
	/* `stop`: the emptying side stopped, fill no more; `ended`: the filling side filled its
	 * last batch */
	_Atomic bool stop, ended;
	_Atomic bool filler_waits, emptier_waits;
	pthread_mutex_t lock;
	pthread_cond_t changed;
};

#define HANDOFF_INIT(n, a)                                                                         \
	{                                                                                          \
		.batches = (n), .ahead = (a), .lock = PTHREAD_MUTEX_INITIALIZER,                   \
		.changed = PTHREAD_COND_INITIALIZER                                                \
	}

/* Sleeps until `ready` (of `h`, for batch `i`) holds, having said so in *waits. */
static inline void handoff_wait(struct handoff *h, _Atomic bool *waits,
				bool (*ready)(struct handoff *, uint64_t), uint64_t i)
{
	if (ready(h, i))
		return;
	pthread_mutex_lock(&h->lock);
	atomic_store(waits, true);
	while (!ready(h, i))
		pthread_cond_wait(&h->changed, &h->lock);
	atomic_store(waits, false);
	pthread_mutex_unlock(&h->lock);
}

/* Wakes the other side if it sleeps (handoff_wait), after what it waits for was stored. */
static inline void handoff_wake(struct handoff *h, _Atomic bool *waits)
{
	if (!atomic_load(waits))
		return;
	pthread_mutex_lock(&h->lock);
	pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->lock);
}

/* Whether batch `i` may be filled: the ring is half empty, or the emptying side stopped (a full
 * ring waits until half of it is emptied). */
static inline bool handoff_fillable(struct handoff *h, uint64_t i)
{
	return i - atomic_load(&h->emptied) <= h->batches / 2 || atomic_load(&h->stop);
}

/* Batch `i` is to be filled: waits while the ring is full. False when the emptying side
 * stopped. */
static inline bool handoff_to_fill(struct handoff *h, uint64_t i)
{
	if (i - atomic_load(&h->emptied) >= h->batches)
		handoff_wait(h, &h->filler_waits, handoff_fillable, i);
	return !atomic_load(&h->stop);
}

/* Whether the emptying side, waiting for batch `i`, goes on: `ahead` batches more are filled,
 * or the filling side has ended after it. */
static inline bool handoff_filled_ahead(struct handoff *h, uint64_t i)
{
	uint64_t filled = atomic_load(&h->filled);
	return filled > i + h->ahead || (filled > i && atomic_load(&h->ended));
}

/* Batch `i` is filled (the last when `last`): the emptying side told when what it waits for is
 * there. */
static inline void handoff_fill_done(struct handoff *h, uint64_t i, bool last)
{
	if (last)
		atomic_store(&h->ended, true);
	atomic_store(&h->filled, i + 1);
	if (atomic_load(&h->emptier_waits) && handoff_filled_ahead(h, atomic_load(&h->wanted)))
		handoff_wake(h, &h->emptier_waits);
}

/* Batch `i` is emptied: the filling side told (it waits at batch `filled`: a stale count wakes
 * it sooner, never later). */
static inline void handoff_empty_done(struct handoff *h, uint64_t i)
{
	atomic_store(&h->emptied, i + 1);
	if (handoff_fillable(h, atomic_load(&h->filled)))
		handoff_wake(h, &h->filler_waits);
}

/* The emptying side stops: the filling side fills no more. */
static inline void handoff_stop(struct handoff *h)
{
	atomic_store(&h->stop, true);
	handoff_wake(h, &h->filler_waits);
}

/* Whether batch `i` has been filled (what the emptying side waits for). */
static inline bool handoff_filled(struct handoff *h, uint64_t i)
{
	return atomic_load(&h->filled) > i;
}

/* Waits until batch `i` is filled: if it is not, until `ahead` more are (handoff_filled_ahead). */
static inline void handoff_to_empty(struct handoff *h, uint64_t i)
{
	if (handoff_filled(h, i))
		return;
	atomic_store(&h->wanted, i);
	handoff_wait(h, &h->emptier_waits, handoff_filled_ahead, i);
}
