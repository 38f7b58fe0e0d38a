// SPDX-License-Identifier: MIT
/*
 * A ring of batches handed from one thread to another (the converter's on two cores: the
 * merge's events to the timeline, recording.c; speedscope's events to their writer,
 * write_speedscope.c): batches filled and emptied, counted from 0, each side writing its own
 * count and reading the other's. A side that must wait says so and sleeps; the other wakes it
 * (under the lock) only then: no lock and no futex call a batch (they cost more than the work a
 * thread of its own saves).
 */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct handoff {
	uint64_t batches; /* the ring's */
	_Atomic uint64_t filled, emptied;
	/* `stop`: the emptying side stopped, fill no more */
	_Atomic bool stop;
	_Atomic bool filler_waits, emptier_waits;
	pthread_mutex_t lock;
	pthread_cond_t changed;
};

#define HANDOFF_INIT(n)                                                                            \
	{                                                                                          \
		.batches = (n), .lock = PTHREAD_MUTEX_INITIALIZER,                                 \
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

/* Batch `i` is filled: the emptying side told. */
static inline void handoff_fill_done(struct handoff *h, uint64_t i)
{
	atomic_store(&h->filled, i + 1);
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

/* Waits until batch `i` is filled. */
static inline void handoff_to_empty(struct handoff *h, uint64_t i)
{
	handoff_wait(h, &h->emptier_waits, handoff_filled, i);
}
