// SPDX-License-Identifier: MIT
/*
 * Live statistics (live_private.h): the threads' slots in the file, taken at a thread's first
 * event, with its start and name, and their longest paths' publication; and the region of
 * interest, over every slot.
 */
#define _GNU_SOURCE
#include "live_private.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "live_file.h"
#include "spin_lock.h"
#include "process.h" /* tp_process_filtered */
#include "thread_identity.h"
#include "taskprobe_figures.h" /* a region of interest's graph at its start and stop; rank words */
#include "taskprobe_mpi_job.h" /* tp_live_mpi_time */
#include "work_span.h"         /* tp_roi_step */

/*
 * Gives [offset, offset + length) of the file space: its pages made present through the mapping
 * (a full tmpfs is an error here, never a SIGBUS later), or on a kernel before 5.14 with
 * fallocate on the file, if its path still names the file made at start. When the file system
 * is full, the pages made present before it was are given back (fallocate does so itself), so
 * that a smaller range, a thread's rows, may still get space.
 */
bool live_give_space(uint64_t offset, uint64_t length)
{
	if (in_memory)
		return true; /* private memory: its pages come as they are touched */
	if (tp_process_filtered())
		return false; /* the filter may not allow it: counted as without space */
	if (madvise(map + offset, length, MADV_POPULATE_WRITE) == 0)
		return true;
	if (errno != EINVAL) {
		madvise(map + offset, length, MADV_REMOVE);
		return false;
	}
	return tp_live_file_allocate(offset, length);
}

#if defined(__SANITIZE_THREAD__)
#define LONGEST_COPIED_BY_VALUE 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LONGEST_COPIED_BY_VALUE 1
#endif
#endif

/*
 * The slot's longest path becomes `end` (taskprobe_live.h: path_seq), from live.c at most poll
 * ends (every one that lengthens the path): what changed is copied whole, its lengths and its
 * sites with their fragments, inside the sequence that makes a reader read again what it saw
 * half copied. A thread sanitizer's build copies value by value, the atomic stores it sees
 * (barrier_join reads the slots in the process).
 */
void live_slot_longest_is(struct tp_live_thread *s, const struct tp_live_path *end)
{
	_Static_assert(offsetof(struct tp_live_path, burdened_ns) == sizeof(uint64_t) &&
			       offsetof(struct tp_live_path, fragments) ==
				       offsetof(struct tp_live_path, sites) + sizeof end->sites,
		       "the lengths copied, then the sites and their fragments, each in one piece");
	uint32_t seq = s->path_seq;
	__atomic_store_n(&s->path_seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
#ifndef LONGEST_COPIED_BY_VALUE
	__builtin_memcpy(&s->longest.ns, &end->ns, 2 * sizeof end->ns);
	__builtin_memcpy(s->longest.sites, end->sites, sizeof end->sites + sizeof end->fragments);
#else
	set64(&s->longest.ns, end->ns);
	set64(&s->longest.burdened_ns, end->burdened_ns);
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++) {
		set64(&s->longest.sites[k], end->sites[k]);
		__atomic_store_n(&s->longest.fragments[k], end->fragments[k], __ATOMIC_RELAXED);
	}
#endif
	__atomic_store_n(&s->path_seq, seq + 2, __ATOMIC_RELEASE);
}

enum take_result {
	TAKEN,    /* the slot is the calling thread's, its rows given space */
	NOT_FREE, /* the slot was not in the state looked for */
	NO_SPACE, /* the file could not get space for the slot's rows */
};

/* Slot `s`'s rows, given space if they have none; NULL when the file has no space for them. */
static struct tp_live_site_stats *slot_rows(struct tp_live_thread *s)
{
	uint64_t rows = header->rows_offset + (uint64_t)(s - slots) * header->rows_stride;
	if (!s->rows_ready) {
		if (!live_give_space(rows, header->rows_stride))
			return NULL;
		__atomic_store_n(&s->rows_ready, 1, __ATOMIC_RELEASE);
	}
	return (struct tp_live_site_stats *)(map + rows);
}

/*
 * When the calling thread started: its start seen, else the statistics' start for the main
 * thread (it began before them), else now.
 */
static uint64_t thread_started_ns(uint64_t now)
{
	if (local.started_ns != 0)
		return local.started_ns;
	return tp_thread_tid() == tp_process()->pid ? ns_at_start : now;
}

/*
 * Whether the calling thread took slot `i` (in state `from`); with `rows`, its rows have space
 * (a thread that only waits needs none: they are given when it first runs a task).
 */
static enum take_result take(unsigned i, uint32_t from, bool rows)
{
	struct tp_live_thread *s = &slots[i];
	if (__atomic_load_n(&s->in_use, __ATOMIC_RELAXED) != from ||
	    !__atomic_compare_exchange_n(&s->in_use, &from, TP_LIVE_SLOT_LIVE, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return NOT_FREE;
	struct tp_live_site_stats *r = rows || s->rows_ready ? slot_rows(s) : NULL;
	if (rows && r == NULL) {
		__atomic_store_n(&s->in_use, from, __ATOMIC_RELEASE);
		return NO_SPACE;
	}
	/* the thread's own figures start from zero; its rows' stay, summed into the sites' */
	uint64_t now = now_ns();
	set32(&s->generation, s->generation + 1);
	set32(&s->tid, (uint32_t)tp_thread_tid());
	tp_thread_read_name(s->name);
	set64(&s->start_routine, local.start_routine);
	set32(&s->start_module, local.start_routine != 0 ? local.start_module : TP_LIVE_NO_MODULE);
	set32(&s->worker, local.worker);
	set32(&s->wait_kind, 0);
	set64(&s->wait_task, 0);
	set32(&s->site, 0);
	set64(&s->busy_ns, 0);
	set64(&s->parked_ns, 0);
	set64(&s->polls, 0);
	set64(&s->taken_ns, now);
	set64(&s->state_since, now);
	set32(&s->state, local.worker_parked ? TP_LIVE_PARKED : TP_LIVE_RUNNING);
	set32(&s->longest_wait_kind, 0);
	set64(&s->waits, 0);
	for (unsigned k = 0; k < TP_LIVE_WAIT_KINDS; k++)
		set64(&s->waited_ns[k], 0);
	set64(&s->longest_wait_ns, 0);
	set64(&s->mpi_ns, 0);
	set64(&s->mpi_since_ns, 0);
	set64(&s->longest_wait_address, 0);
	set32(&s->longest_wait_module, TP_LIVE_NO_MODULE);
	set64(&s->started_ns, thread_started_ns(now));
	set64(&s->ended_ns, 0);
	set32(&s->fork_row, 0);
	local.slot = s;
	local.rows = r;
	local.poll_row = NO_ROW;
	/* an ended thread's tasks it suspended are not this one's */
	local.sync_waited = &sync_waited_stacks[s - slots];
	local.sync_waited->free_since = 0;
	local.sync_waited->count = 0;
	uint32_t bound = __atomic_load_n(&slots_bound, __ATOMIC_RELAXED);
	while (bound <= i && !__atomic_compare_exchange_n(&slots_bound, &bound, i + 1, true,
							  __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	return TAKEN;
}

/*
 * The calling thread takes a free slot, else an ended thread's (whose figures stay summed): for
 * a wait, one of the first TP_LIVE_WAITING_THREADS.
 */
static bool take_slot(enum slot_need need)
{
	static const uint32_t preferred[] = {TP_LIVE_SLOT_FREE, TP_LIVE_SLOT_ENDED};
	unsigned most = need == WAITING_SLOT ? TP_LIVE_WAITING_THREADS : TP_LIVE_THREADS;
	bool taken = false, no_space = false;
	for (unsigned k = 0; k < sizeof preferred / sizeof preferred[0] && !taken; k++)
		for (unsigned i = 0; i < most && !taken; i++) {
			enum take_result r = take(i, preferred[k], need == TAKES_SLOT);
			taken = r == TAKEN;
			/* no other free slot would get space either; an ended one has its own */
			if (r == NO_SPACE) {
				no_space = true;
				break;
			}
		}
	if (!taken && need == WAITING_SLOT) {
		/* a later task event may still find a slot among the others */
		count(&header->waiting_threads_unlisted);
	} else if (!taken) {
		local.no_slot = true;
		count(no_space ? &header->threads_without_space : &header->threads_uncounted);
	}
	return taken;
}

/*
 * Gives the calling thread what `need` wants: a slot, and for TAKES_SLOT its rows' space (a
 * thread whose slot a wait took has none yet). False when it cannot. Guarded: a signal handler's
 * event meanwhile (a wait in it) would take the thread a second slot.
 */
__attribute__((noinline)) bool live_slot_for(enum slot_need need)
{
	if (need == HAS_SLOT_ONLY || local.ended || local.no_slot ||
	    (need == TAKES_SLOT && local.no_rows) ||
	    (need == WAITING_SLOT && local.waited_unlisted))
		return false;
	tp_guard_enter(&local.busy);
	int saved_errno = errno, cancel_state;
	/* a cancellation inside (the fallback's open) would leave the slot taken */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	bool ready = local.slot != NULL || take_slot(need);
	if (!ready && need == WAITING_SLOT)
		local.waited_unlisted = true;
	if (ready && need == TAKES_SLOT && local.rows == NULL) {
		local.rows = slot_rows(local.slot);
		if (local.rows == NULL) {
			local.no_rows = true;
			count(&header->threads_without_space);
			ready = false;
		}
	}
	pthread_setcancelstate(cancel_state, NULL);
	errno = saved_errno;
	tp_guard_leave(&local.busy, false);
	return ready;
}

/* Kept until the thread takes a slot, with the module the console names it in. */
void tp_live_thread_start(uintptr_t start_routine)
{
	if (local.busy)
		return;
	tp_guard_enter(&local.busy);
	local.start_module = live_module_entry(start_routine);
	local.start_routine = start_routine;
	local.started_ns = now_ns();
	leave();
}

/* Its slot, if it has one, shows the name it gave itself (read when it took the slot). */
void tp_live_thread_renamed(void)
{
	struct tp_live_thread *s = enter(HAS_SLOT_ONLY);
	if (s == NULL)
		return;
	char name[sizeof s->name];
	tp_thread_read_name(name);
	for (size_t i = 0; i < sizeof name; i++)
		__atomic_store_n(&s->name[i], name[i], __ATOMIC_RELAXED);
	leave();
}

/* The MPI window counted so far is forgotten (tp_roi_step): no pair, nothing counted. */
static void forget_window(void)
{
	for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
		if (__atomic_load_n(&slots[i].in_use, __ATOMIC_ACQUIRE) == TP_LIVE_SLOT_FREE)
			continue;
		set64(&slots[i].roi_counted_ns, 0);
		set64(&slots[i].roi_at_start_ns, 0);
	}
	set64(&header->roi_placed_ns, 0);
	set64(&header->roi_run_ns, 0);
	__atomic_store_n(&header->roi_pairs, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&header->roi_on, 0u, __ATOMIC_RELEASE);
	__atomic_store_n(&header->roi_markers, 0u, __ATOMIC_RELEASE);
}

/*
 * The region of interest starts (`on`) or stops, by `marker` (enum tp_roi_marker; what it does:
 * tp_roi_step): each slot's computation, the placed length and the time at its start are kept,
 * and at its stop what the pair added (taskprobe_live.h). By the program's thread that marks
 * it, seldom: one at a time.
 */
static void region_of_interest(int on, uint32_t marker)
{
	static int lock;
	static struct tp_live_graph graph; /* a thread's computation each: too large a local */
	if (header == NULL || local.busy || marker >= 32)
		return;
	tp_spin_lock(&lock);
	tp_guard_enter(&local.busy);
	uint64_t now = now_ns();
	switch (tp_roi_step(__atomic_load_n(&header->roi_markers, __ATOMIC_RELAXED), on != 0,
			    marker)) {
	case TP_ROI_IGNORED:
		tp_guard_leave(&local.busy, false);
		tp_spin_unlock(&lock);
		return;
	case TP_ROI_FORGETS_WINDOW:
		forget_window();
		break;
	case TP_ROI_TAKEN:
		break;
	}
	if (on)
		__atomic_fetch_or(&header->roi_markers, 1u << marker, __ATOMIC_RELAXED);
	bool going = __atomic_load_n(&header->roi_on, __ATOMIC_RELAXED) != 0;
	if (on != going) {
		tp_live_graph_read(header, slots, now, &graph);
		for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
			struct tp_live_thread *t = &slots[i];
			if (__atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) == TP_LIVE_SLOT_FREE)
				continue;
			uint64_t computation = tp_live_computation(t, now);
			if (on)
				set64(&t->roi_at_start_ns, computation);
			else
				set64(&t->roi_counted_ns,
				      t->roi_counted_ns +
					      tp_live_since(computation, t->roi_at_start_ns));
		}
		if (on) {
			set64(&header->roi_placed_at_start_ns, graph.placed_ns);
			set64(&header->roi_start_ns, now);
		} else {
			set64(&header->roi_placed_ns,
			      header->roi_placed_ns +
				      tp_live_since(graph.placed_ns,
						    header->roi_placed_at_start_ns));
			set64(&header->roi_run_ns,
			      header->roi_run_ns + tp_live_since(now, header->roi_start_ns));
			__atomic_store_n(&header->roi_pairs, header->roi_pairs + 1,
					 __ATOMIC_RELEASE);
		}
		__atomic_store_n(&header->roi_on, on ? 1u : 0u, __ATOMIC_RELEASE);
	}
	tp_guard_leave(&local.busy, false);
	tp_spin_unlock(&lock);
}

void tp_live_region_of_interest(uint32_t on, uint32_t marker)
{
	region_of_interest(on != 0, marker);
}

const char *tp_live_process_words(char *buf, size_t size)
{
	uint32_t ranks = header != NULL ? __atomic_load_n(&header->mpi_size, __ATOMIC_ACQUIRE) : 0;
	char rank[48];
	snprintf(buf, size, "pid %d%s", (int)getpid(),
		 tp_live_mpi_rank_words(ranks != 0 ? header->mpi_rank : 0, ranks, rank,
					sizeof rank));
	return buf;
}

void tp_live_mpi_rank(uint32_t rank, uint32_t size, const char *job, const char *host)
{
	if (header == NULL)
		return;
	uint64_t hash = tp_live_mpi_hash(TP_LIVE_MPI_HASH_START, job);
	/* no identity told (MPICH's hydra tells none): the launch's process on this host, which
	 * its ranks here share (hydra_pmi_proxy), tells two jobs run at once apart */
	if (job[0] == '\0' && !tp_process_filtered())
		hash = (hash ^ (uint64_t)getppid()) * TP_LIVE_MPI_HASH_PRIME;
	__atomic_store_n(&header->mpi_job, hash, __ATOMIC_RELAXED);
	__atomic_store_n(&header->mpi_host, tp_live_mpi_hash(TP_LIVE_MPI_HASH_START, host),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&header->mpi_rank, rank, __ATOMIC_RELAXED);
	__atomic_store_n(&header->mpi_size, size, __ATOMIC_RELEASE);
}

/*
 * The MPI window starts (`on`: the first MPI_Init ended) or ends (MPI_Finalize started), inside
 * the call's wait, by the thread that calls it: the window's ends and that thread's time in MPI
 * at each, for the job's factors across ranks (taskprobe_mpi_job.h).
 */
void tp_live_mpi_window(uint32_t on)
{
	struct tp_live_thread *s = enter(HAS_SLOT_ONLY);
	if (s == NULL)
		return;
	uint64_t now = now_ns();
	uint32_t slot = __atomic_load_n(&header->mpi_slot, __ATOMIC_RELAXED);
	if (on && __atomic_load_n(&header->mpi_on_ns, __ATOMIC_RELAXED) == 0) {
		set32(&header->mpi_slot, (uint32_t)(s - slots) + 1);
		set64(&header->mpi_at_on_ns, tp_live_mpi_time(s, now));
		__atomic_store_n(&header->mpi_on_ns, now, __ATOMIC_RELEASE);
	} else if (!on && slot != 0 &&
		   __atomic_load_n(&header->mpi_off_ns, __ATOMIC_RELAXED) == 0) {
		set64(&header->mpi_at_off_ns, tp_live_mpi_time(&slots[slot - 1], now));
		__atomic_store_n(&header->mpi_off_ns, now, __ATOMIC_RELEASE);
	}
	leave();
}
