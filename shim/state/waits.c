// SPDX-License-Identifier: MIT
/* The wait and park events shared by all the interposed waits. */
#define _GNU_SOURCE
#include "events.h"
#include "waits.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include "code_map.h"
#include "executor.h"
#include "process.h"
#include "shim_work.h"
#include "spawn_site.h"
#include "spawn_stack.h"
#include "thread_state.h"

/*
 * A wait's call site: the interposed call's return address, or, when that lies in a system
 * library (the wait is pthread_join's, std::condition_variable's, OpenMP's own), the first frame
 * of the program's above it, found by unwinding (only while someone listens to waits); the
 * library's call when the program has no frame there (a runtime's own thread).
 */
/* Stack a naming needs (libdw walks DIEs recursively; more under a sanitizer), with room. */
#define NAMING_STACK_BYTES (512 * 1024)

/*
 * Whether the calling thread's stack has room for naming: a program's threads may have small
 * stacks (64 KiB), where the first wait at a site names it for a tracer. Its bounds are read
 * once per thread.
 */
static bool stack_room_for_naming(void)
{
	static __thread uintptr_t stack_low __attribute__((tls_model("initial-exec")));
	if (stack_low == 0) {
		pthread_attr_t attr;
		void *base;
		size_t size;
		stack_low = 1; /* unknown, once tried: no room */
		if (pthread_getattr_np(pthread_self(), &attr) == 0) {
			if (pthread_attr_getstack(&attr, &base, &size) == 0)
				stack_low = (uintptr_t)base;
			pthread_attr_destroy(&attr);
		}
	}
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	return stack_low > 1 && here > stack_low && here - stack_low > NAMING_STACK_BYTES;
}

/*
 * The keys of the program's own call sites this thread waited at last, by call address: a wait's
 * site is then one load and a compare (a thread waits at few places). A call from a system
 * library is found anew each time: its program frame depends on the path.
 */
#define SITES_CACHED 16
static __thread struct {
	uintptr_t caller;
	uint32_t key;
} sites_known[SITES_CACHED] __attribute__((tls_model("initial-exec")));

/* call_site_key's path when the call is not in the cache: found, and kept if the program's. */
__attribute__((noinline)) static uint32_t call_site_key_found(uintptr_t site, unsigned slot)
{
	int saved_errno = errno; /* unwinding and adding a site may set it */
	uint32_t key;
	if (tp_code_in_system_library(site)) {
		uintptr_t program = tp_spawn_stack_first_outside(tp_code_in_system_library);
		key = tp_spawn_site_key((const void *)(program != 0 ? program : site));
	} else {
		key = tp_spawn_site_key((const void *)site);
		sites_known[slot].key = key;
		sites_known[slot].caller = site;
	}
	errno = saved_errno;
	return key;
}

static inline uint32_t call_site_key(const void *caller)
{
	uintptr_t site = (uintptr_t)caller;
	unsigned slot = (unsigned)(site >> 4) % SITES_CACHED;
	if (__builtin_expect(sites_known[slot].caller == site && site != 0, 1))
		return sites_known[slot].key;
	return call_site_key_found(site, slot);
}

/*
 * Whether a tracer of wait-stack or the recorder (asked for stacks) wants every wait's stack.
 * The live statistics sample some (live.h), decided by their wait-start.
 */
static bool every_stack_wanted(void)
{
	return tp_tracers_wait_stack() != 0 || tp_consumers_want_every_wait_stack();
}

/*
 * The program's stack at the wait, unwound as a spawn's, its first frame the site's (the shim's
 * and the system libraries' frames on top left out), into `buffer`. Not cancellable: libunwind's
 * first load opens files (cancellation points), and a thread cancelled here, around its
 * wait-start and before the wait's cleanup handler, would never end its wait.
 */
static const uintptr_t *wait_stack(uintptr_t buffer[TP_SPAWN_STACK_BUFFER], uint32_t *depth,
				   uint32_t *id)
{
	int cancel_state;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	const uintptr_t *pcs = tp_spawn_stack_capture_outside(buffer, depth, id,
							      tp_code_in_system_library);
	pthread_setcancelstate(cancel_state, NULL);
	return pcs;
}

static inline __attribute__((always_inline)) void fire_wait_start(struct tp_wait *w,
								  int64_t timeout_ns, uint32_t site)
{
	w->since = tp_fire_wait_start(w->kind, w->object, timeout_ns, w->task, site,
				      site != 0 ? tp_spawn_site_text(site) : NULL, w->site_key,
				      &w->moment);
}

/*
 * Wait-start with the wait's stack: every wait's (every_stack_wanted), unwound before wait-start,
 * so that its unwinding (hundreds of ns) is no part of the wait's time, wait-stack fired right
 * after wait-start; or one the live statistics sampled at the wait-start, unwound after it (they
 * take the first kind too, if their wait-start sampled the wait). Out of line: the stack's
 * buffer is no part of the waits' path.
 */
__attribute__((noinline)) static void fire_wait_start_and_stack(struct tp_wait *w,
								int64_t timeout_ns, uint32_t site)
{
	int saved_errno = errno; /* unwinding may set it */
	uintptr_t buffer[TP_SPAWN_STACK_BUFFER];
	uint32_t depth = 0, id = 0;
	bool every = every_stack_wanted();
	const uintptr_t *pcs = every ? wait_stack(buffer, &depth, &id) : NULL;
	fire_wait_start(w, timeout_ns, site);
	bool sampled = tp_live() && tp_live_wants_wait_stack();
	if (!every && sampled)
		pcs = wait_stack(buffer, &depth, &id);
	if (pcs != NULL)
		tp_fire_wait_stack(w->kind, w->object, (uint64_t)id, pcs, depth, !every, &w->since);
	errno = saved_errno;
}

/*
 * The site of a wait that a tracer of wait-start listens to, named for its probe; its key in
 * `w`. Not cancellable: naming opens files (cancellation points), where a thread cancelled on
 * its way into the wait would leave the naming lock held. `nested`: inside the shim's own work.
 */
__attribute__((noinline)) static uint32_t named_site(struct tp_wait *w, const void *caller,
						     bool nested)
{
	int saved_errno = errno, cancel_state; /* naming may set it */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	w->site_key = !nested ? call_site_key(caller) : 0;
	/* under a system call filter, no stack bounds asked (pthread_getattr_np's
	 * sched_getaffinity: strict mode killed a thread at its first wait), no naming */
	uint32_t site = nested || tp_process_filtered() || !stack_room_for_naming()
				? tp_spawn_site_if_named(w->site_key)
				: tp_site_named_outside_poll(w->site_key);
	pthread_setcancelstate(cancel_state, NULL);
	errno = saved_errno;
	return site;
}

/* `moment`: tp_fire_wait_end's (0: now). */
static inline __attribute__((always_inline)) void fire_wait_end(const struct tp_wait *w,
								int64_t result, uint64_t moment)
{
	tp_fire_wait_end(w->kind, w->object, result, w->task, w->site_key, w->since, moment);
}

/*
 * A wait's way in: park (for an idle worker) and wait-start; with `at_once` (a constant) its
 * wait-end too, result 0, right after (tp_wait_at_once).
 */
static inline __attribute__((always_inline)) void wait_enter(struct tp_wait *w,
							     enum tp_wait_kind kind,
							     const void *object, int64_t timeout_ns,
							     const void *caller, bool at_once)
{
	struct tp_thread *self = tp_thread_self();
	w->silent = !tp_thread_live(self); /* no naming on a thread the exit stopped */
	if (w->silent)
		return;
	w->kind = kind;
	w->object = (uintptr_t)object;
	w->task = tp_thread_task(self);
	/*
	 * A wait inside a wait (a signal handler that waits) does not park twice. A thread is
	 * found to be a worker by its name here, at its waits, where it would park (so only while
	 * a wait or park probe is on: the untraced fast path checks no more). Its park, then its
	 * wait-start, each fired before the thread-stop of the process's exit or not at all (that
	 * thread-stop ends a park with no wait-start after it); the naming between them is no part
	 * of either's span.
	 */
	if (tp_listeners_workers() != 0 && w->task == 0 && !self->parked &&
	    tp_thread_recognize_worker(self) && tp_listeners_park() != 0) {
		if ((w->silent = !tp_thread_firing_begin(self)))
			return;
		tp_thread_park(self, w);
		tp_thread_firing_end(self);
	}
	/*
	 * errno: kept by the paths that unwind or name (call_site_key_found, named_site,
	 * fire_wait_start_and_stack), as by the consumers (the recorder's fast path touches none)
	 */
	bool nested = tp_shim_work_begin();
	uint32_t site = 0; /* the probe's: named only for a tracer */
	if (__builtin_expect(tp_tracers_wait_start() != 0, 0))
		site = named_site(w, caller, nested);
	else
		w->site_key = tp_listeners_wait_start() && !nested ? call_site_key(caller) : 0;
	tp_shim_work_end(nested);
	if ((w->silent = !tp_thread_firing_begin(self)))
		return;
	/* no stack of a wait inside the shim's own work: unwinding is not reentrant */
	if (__builtin_expect(!nested && (every_stack_wanted() || tp_live()), 0)) {
		/* its start alone, with its stack: its end at its start's moment */
		fire_wait_start_and_stack(w, timeout_ns, site);
		if (at_once)
			fire_wait_end(w, 0, w->moment);
	} else if (at_once) {
		tp_fire_wait_at_once(w->kind, w->object, timeout_ns, w->task, site,
				     site != 0 ? tp_spawn_site_text(site) : NULL, w->site_key);
	} else {
		fire_wait_start(w, timeout_ns, site);
	}
	tp_thread_firing_end(self);
}

void tp_wait_enter(struct tp_wait *w, enum tp_wait_kind kind, const void *object,
		   int64_t timeout_ns, const void *caller)
{
	wait_enter(w, kind, object, timeout_ns, caller, false);
}

void tp_wait_at_once(enum tp_wait_kind kind, const void *object, int64_t timeout_ns,
		     const void *caller)
{
	struct tp_wait w;
	wait_enter(&w, kind, object, timeout_ns, caller, true);
	if (w.silent)
		return;
	/* the unpark of the park it began with, if any (tp_wait_leave's) */
	struct tp_thread *self = tp_thread_self();
	if (__builtin_expect(self->parked && self->parked_by == &w, 0) &&
	    tp_thread_firing_begin(self)) {
		tp_thread_unpark(self);
		tp_thread_firing_end(self);
	}
}

/* The end of the wait that parked the thread: wait-end, then the unpark. */
__attribute__((noinline)) static void leave_parked(struct tp_thread *self, struct tp_wait *w,
						   int64_t result)
{
	fire_wait_end(w, result, 0);
	/* unless a jump out of a handler on top of the wait unparked it meanwhile */
	if (self->parked && self->parked_by == w)
		tp_thread_unpark(self);
}

/*
 * Wait-end, and the unpark of the wait that parked the thread; a wait that parked nothing ends
 * with wait-end. Not once the process's exit stopped the thread: its thread-stop closed the wait.
 */
void tp_wait_leave(struct tp_wait *w, int64_t result)
{
	struct tp_thread *self = tp_thread_self();
	if (w->silent || !tp_thread_firing_begin(self))
		return;
	/* if this wait parked the thread (and no jump out of a handler on top of it unparked it) */
	if (__builtin_expect(self->parked && self->parked_by == w, 0))
		leave_parked(self, w, result);
	else
		fire_wait_end(w, result, 0);
	tp_thread_firing_end(self);
}

void tp_wait_escaping(const void *frame)
{
	struct tp_thread *self = tp_thread_self();
	/* stacks grow down: a frame below the parking wait's runs on top of it, in a handler */
	if (self->parked && self->parked_by != NULL &&
	    (uintptr_t)frame < (uintptr_t)self->parked_by)
		tp_thread_unpark(self);
}

void tp_wait_cancelled(void *w)
{
	tp_wait_leave(w, -ECANCELED);
}

int64_t tp_timeout_from_ms(int ms)
{
	return ms < 0 ? -1 : (int64_t)ms * 1000000;
}

/* Nanoseconds, saturated: {LONG_MAX, 0} is a common way to say "forever". */
static int64_t timespec_ns(const struct timespec *ts)
{
	if (ts->tv_sec >= INT64_MAX / 1000000000 - 1)
		return INT64_MAX;
	if (ts->tv_sec <= INT64_MIN / 1000000000 + 1)
		return INT64_MIN;
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

int64_t tp_timeout_from_relative(const struct timespec *ts)
{
	return ts == NULL ? -1 : timespec_ns(ts);
}

int64_t tp_timeout_from_deadline(clockid_t clock, const struct timespec *deadline)
{
	struct timespec now;
	if (deadline == NULL)
		return -1;
	if (!tp_listeners_wait_start())
		return 0; /* nobody reads it */
	int saved_errno = errno;
	int failed = clock_gettime(clock, &now);
	errno = saved_errno;
	if (failed)
		return -1;
	int64_t end = timespec_ns(deadline);
	if (end == INT64_MAX)
		return INT64_MAX;
	int64_t left = end - timespec_ns(&now);
	return left < 0 ? 0 : left;
}
