// SPDX-License-Identifier: MIT
/* Live statistics (live_private.h): the waits, and a worker's start and park. */
#define _GNU_SOURCE
#include "live_private.h"

#include "hash.h"
#include "spawn_site.h"
#include "taskprobe_recording.h" /* TP_MPI_POLL_GAP_NS */
#include "thread_identity.h"

/*
 * Whether `e` is filled in: a site another thread claimed gets its address and module just
 * after its key, and is read only once it says it is ready.
 */
static bool site_ready(const struct tp_live_wait_site *e)
{
	return e != NULL && __atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == TP_LIVE_ENTRY_READY;
}

int tp_live_wants_wait_stack(void)
{
	/*
	 * The outermost wait's site, set by its wait-start (none for the overflow's); none when
	 * kept for the exit report alone (in_memory): nobody reads stacks then.
	 */
	const struct tp_live_wait_site *e = local.wait_site;
	if (in_memory || !site_ready(e) || e->address == 0 || local.busy || local.waits != 1)
		return 0;
	uint8_t *mine = &local.waits_at[e - wait_sites];
	bool first = *mine < TP_LIVE_STACK_SAMPLE_FIRST;
	*mine += first;
	local.sample_wait_stack = first || __atomic_load_n(&e->waits, __ATOMIC_RELAXED) %
							   TP_LIVE_STACK_SAMPLE_EVERY ==
						   0;
	return local.sample_wait_stack;
}

/*
 * The outermost wait, whose stack this thread unwound and kept after its start (sampled at its
 * start: tp_live_wants_wait_stack), is timed from now: the unwinding (hundreds of us cold, ms at
 * a module's first) is the shim's, not the wait's; it made a site of waits of a few us say 10 ms
 * at the longest. Its start's moment stays the event's (the slot's, the recording's: one moment
 * for both), and a wait taken at once still ends at its start (tp_live_wait_end).
 */
static void wait_timed_from_now(void)
{
	if (local.waits != 1)
		return;
	uint64_t now = now_ns();
	if (now > local.wait_since)
		local.wait_since = now;
}

void tp_live_wait_stack(uint64_t stack_id, const uintptr_t *pcs, uint32_t depth)
{
	/* only the waits it sampled, as for spawns */
	if (stack_id == 0 || local.busy || !local.sample_wait_stack || local.wait_site == NULL)
		return;
	local.sample_wait_stack = false;
	uint32_t entry = (uint32_t)(local.wait_site - wait_sites);
	live_keep_stack(TP_LIVE_STACK_OF_WAIT_SITE | entry, stack_id, pcs, depth, true);
	wait_timed_from_now();
}

void tp_live_worker(int started)
{
	local.worker = started != 0;
	struct tp_live_thread *s = enter(TAKES_SLOT);
	if (s == NULL)
		return;
	set32(&s->worker, started != 0 ? TP_LIVE_WORKER : TP_LIVE_WORKER_ENDED);
	leave();
}

/*
 * A worker's park (an executor's barrier, taskwait or taskgroup; a named worker's wait) takes
 * the thread a slot; its time is not counted as parked: an executor spins and runs other tasks
 * in its waits (libomp does, for its block time). Parked is what the waits below count.
 */
void tp_live_park(int parked)
{
	local.worker_parked = parked != 0;
	if (enter(TAKES_SLOT) != NULL)
		leave();
}

/*
 * The entry of wait call site `key` (kind `kind` if it is new): found from a hash of the key,
 * claimed by setting its key; the last entry when the table has no room (its figures count every
 * site without one). NULL for key 0.
 */
static struct tp_live_wait_site *wait_site(uint32_t key, uint32_t kind)
{
	if (key == 0)
		return NULL;
	const uint32_t slots = TP_LIVE_WAIT_SITES - 1; /* the last is the overflow's */
	for (uint32_t n = 0, i = tp_hash_slot(key, 32) % slots; n < slots;
	     n++, i = (i + 1) % slots) {
		struct tp_live_wait_site *e = &wait_sites[i];
		uint32_t seen = __atomic_load_n(&e->site_key, __ATOMIC_ACQUIRE);
		if (seen == key)
			return e;
		if (seen != 0 || !__atomic_compare_exchange_n(&e->site_key, &seen, key, false,
							      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			if (seen == key) /* another thread claimed it for this key meanwhile */
				return e;
			continue;
		}
		uintptr_t address = tp_spawn_site_key_address(key);
		e->kind = kind;
		e->address = address;
		e->module = live_module_entry(address);
		__atomic_store_n(&e->state, TP_LIVE_ENTRY_READY, __ATOMIC_RELEASE);
		return e;
	}
	struct tp_live_wait_site *overflow = &wait_sites[slots];
	if (__atomic_load_n(&overflow->state, __ATOMIC_ACQUIRE) != TP_LIVE_ENTRY_READY) {
		overflow->module = TP_LIVE_NO_MODULE;
		__atomic_store_n(&overflow->state, TP_LIVE_ENTRY_READY, __ATOMIC_RELEASE);
	}
	return overflow;
}

/*
 * Whether an MPI poll starting at `at` (the clock's units) goes on the wait of the same call's
 * poll that ended at `end_at`: within TP_MPI_POLL_GAP_NS of it in the clock's units, as the
 * recorder compares its records' times (the time-stamp counter's ticks where it is the clock), so
 * that both engines join the same polls.
 */
static inline bool poll_goes_on(uint64_t at, uint64_t end_at)
{
	return at >= end_at && at - end_at <= TP_MPI_POLL_GAP_NS;
}

/*
 * Where a wait that pauses the polled fragment (tp_span_wait_pauses) pauses it: at `now`, or at
 * the end of the same MPI poll call's last poll by the same task when it starts within
 * TP_MPI_POLL_GAP_NS of it (poll_goes_on), the fragment unchanged since (an MPI_Test loop: its
 * time between the calls is the wait's, as the recorder records one wait of them).
 */
static uint64_t pause_from(uintptr_t object, uint64_t task, uint64_t now, uint64_t at)
{
	if (object != 0 && object == local.mpi_poll_call && task == local.mpi_poll_task &&
	    local.span_from == local.mpi_poll_from && poll_goes_on(at, local.mpi_poll_end_at))
		return local.mpi_poll_end;
	return now;
}

/* Slot `s`'s time in MPI changes (mpi_seq odd), then has changed (even): tp_live_mpi_time. */
static void mpi_time_changes(struct tp_live_thread *s)
{
	__atomic_store_n(&s->mpi_seq, s->mpi_seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void mpi_time_changed(struct tp_live_thread *s)
{
	__atomic_store_n(&s->mpi_seq, s->mpi_seq + 1, __ATOMIC_RELEASE);
}

/*
 * When an MPI call starting at `now` (`at` in the clock's units) began to count as the thread's
 * time in MPI: at the end of the same poll call's last poll by the same task when it starts
 * within TP_MPI_POLL_GAP_NS of it (poll_goes_on: an MPI_Test loop, one wait, as the recorder
 * makes it, its gaps MPI's time), else `now`.
 */
static uint64_t mpi_since(uintptr_t object, uint64_t task, uint64_t now, uint64_t at)
{
	if (object != 0 && object == local.mpi_test_call && task == local.mpi_test_task &&
	    poll_goes_on(at, local.mpi_test_end_at))
		return local.mpi_test_end;
	return now;
}

/*
 * Every thread's waits count at their call sites (wait_site), whether the thread has a slot or
 * not. A thread takes a slot (without rows) at its first wait, among the
 * TP_LIVE_WAITING_THREADS a thread that only waits may take, so that a program without tasks
 * has its threads listed with their waits. For a thread with a slot, its time parked is its
 * time blocked in the kernel: inside an interposed wait while it polls no task (a wait inside a
 * poll is the task's, and blocks the worker: busy). An MPI call's wait inside a poll pauses the
 * polled fragment until its end (tp_span_wait_pauses: no computation, not on the path).
 */
void tp_live_wait_start(uint32_t kind, uintptr_t object, uint64_t task, uint32_t site, uint64_t at)
{
	if (local.busy)
		return; /* a signal handler's wait inside an update: not counted */
	uint64_t now = ns_at(at);
	bool outermost = local.waits++ == 0;
	if (outermost) {
		local.wait_since = now;
		local.wait_at = at;
		local.wait_kind = kind;
		local.wait_object = object;
		local.wait_site = wait_site(site, kind);
		if (local.wait_site != NULL)
			__atomic_add_fetch(&local.wait_site->waiting, 1, __ATOMIC_RELAXED);
	}
	struct tp_live_thread *s = enter(WAITING_SLOT);
	if (s == NULL)
		return;
	set64(&s->wait_since, now);
	set64(&s->wait_task, task);
	if (site_ready(local.wait_site)) {
		set64(&s->wait_address, local.wait_site->address);
		set32(&s->wait_module, local.wait_site->module);
	} else {
		set64(&s->wait_address, 0);
	}
	set32(&s->wait_kind, kind);
	if (task != 0 && task == local.polled_task && local.poll_row != NO_ROW)
		add(&local.rows[local.poll_row].blocking_waits, 1);
	local.parked = outermost ? local.polled_task == 0 : local.parked;
	if (outermost && local.parked) {
		set64(&s->state_since, now);
		set32(&s->state, TP_LIVE_PARKED);
	}
	if (outermost && !local.parked && tp_span_wait_pauses(kind))
		live_fragment_pauses(s, pause_from(object, task, now, at));
	if (outermost && kind == TP_WAIT_MPI) {
		mpi_time_changes(s);
		set64(&s->mpi_since_ns, mpi_since(object, task, now, at));
		mpi_time_changed(s);
	}
	if (outermost)
		local.mpi_poll_call = local.mpi_test_call = 0;
	leave();
}

/* Adds a wait of `ns` nanoseconds, by thread `tid`, to `e`'s figures. */
static void wait_site_add(struct tp_live_wait_site *e, uint64_t ns, uint32_t tid)
{
	__atomic_add_fetch(&e->waits, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&e->total_ns, ns, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&e->waiting, 1, __ATOMIC_RELAXED);
	__atomic_fetch_or(&e->threads, 1ull << (tid % 64), __ATOMIC_RELAXED);
	uint64_t longest = __atomic_load_n(&e->longest_ns, __ATOMIC_RELAXED);
	while (ns > longest && !__atomic_compare_exchange_n(&e->longest_ns, &longest, ns, true,
							    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/*
 * An ended outermost wait of `ns` at `site` (NULL: none) in the thread's slot `s`. A reader may
 * see the longest wait's time and its site a wait apart.
 */
static void thread_waited(struct tp_live_thread *s, uint64_t ns,
			  const struct tp_live_wait_site *site)
{
	add(&s->waits, 1);
	add(&s->waited_ns[local.wait_kind % TP_LIVE_WAIT_KINDS], ns);
	if (ns <= s->longest_wait_ns)
		return;
	set64(&s->longest_wait_ns, ns);
	set32(&s->longest_wait_kind, local.wait_kind);
	bool ready = site_ready(site);
	set64(&s->longest_wait_address, ready ? site->address : 0);
	set32(&s->longest_wait_module, ready ? site->module : TP_LIVE_NO_MODULE);
}

/* The time from `since` to `now`, none if `now` is before it (tp_live_wait_end). */
static inline uint64_t wait_time(uint64_t now, uint64_t since)
{
	return now > since ? now - since : 0;
}

/*
 * A wait taken at once whose start came alone (its stack sampled: semaphore.c, waits.c) ends at
 * its start's moment: it ends at its start's nanoseconds, not at that moment converted again.
 * While the counter's rate is timed a conversion reads the clock, and the first after the rate
 * is known converts the moment itself: the same moment, converted before and after the stack's
 * unwinding, ended a microsecond before it began (CPython's first lock waits: a wait of 2^64 ns
 * in top). The other times are kept from stepping back the same way (wait_time).
 */
void tp_live_wait_end(uint64_t task, uint64_t at)
{
	if (local.busy || local.waits == 0)
		return;
	bool outermost = --local.waits == 0;
	uint64_t now = outermost && at == local.wait_at ? local.wait_since : ns_at(at);
	const struct tp_live_wait_site *site = local.wait_site;
	uint64_t waited = wait_time(now, local.wait_since);
	if (outermost && site != NULL) {
		wait_site_add(local.wait_site, waited, (uint32_t)tp_thread_tid());
		local.wait_site = NULL;
	}
	if (outermost)
		local.waited_to = now;
	struct tp_live_thread *s = enter(HAS_SLOT_ONLY);
	if (s == NULL)
		return;
	if (outermost)
		thread_waited(s, waited, site);
	if (outermost && local.wait_kind == TP_WAIT_MPI && s->mpi_since_ns != 0) {
		mpi_time_changes(s);
		add(&s->mpi_ns, wait_time(now, s->mpi_since_ns));
		set64(&s->mpi_since_ns, 0);
		mpi_time_changed(s);
		if (tp_mpi_call_polls(local.wait_object)) {
			local.mpi_test_call = local.wait_object;
			local.mpi_test_task = task;
			local.mpi_test_end = now;
			local.mpi_test_end_at = at;
		}
	}
	if (task != 0 && task == local.polled_task && local.poll_row != NO_ROW)
		add(&local.rows[local.poll_row].blocking_ns, wait_time(now, s->wait_since));
	set32(&s->wait_kind, 0);
	set64(&s->wait_task, 0);
	if (outermost && local.parked && s->state == TP_LIVE_PARKED) {
		add(&s->parked_ns, wait_time(now, s->state_since));
		set64(&s->state_since, now);
		set32(&s->state, TP_LIVE_RUNNING);
	}
	if (outermost && local.paused_at != 0) {
		live_fragment_resumes(s, now);
		/* an MPI poll: the next poll of its call may go on its wait (pause_from) */
		if (local.wait_kind == TP_WAIT_MPI && tp_mpi_call_polls(local.wait_object)) {
			local.mpi_poll_call = local.wait_object;
			local.mpi_poll_task = task;
			local.mpi_poll_end = now;
			local.mpi_poll_end_at = at;
			local.mpi_poll_from = local.span_from;
		}
	}
	leave();
}
