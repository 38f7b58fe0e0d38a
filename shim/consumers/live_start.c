// SPDX-License-Identifier: MIT
/*
 * Live statistics (live_private.h): their state, its start in the file (live_file.c) or in the
 * process's memory, the clock's rate, and the process's exit, exec and fork.
 */
#define _GNU_SOURCE
#include "live_private.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "in_process_consumers.h"
#include "listeners.h"
#include "live_file.h"
#include "openmp_runtimes.h"
#include "settings.h"
#include "thread_identity.h"

/* The state live_private.h describes. */
char *map;
struct tp_live_header *header;
struct tp_live_site *sites;
struct tp_live_stack *stacks;
struct tp_live_module *modules;
struct tp_live_wait_site *wait_sites;
struct tp_live_thread *slots;
uint32_t slots_bound;
struct task_entry *tasks;
struct tp_span_task *spans; /* the tasks' work and span states' pool (work_span.h) */
struct dependence *dependences;
struct tp_span_shared forks[TP_LIVE_SITES];
struct tp_sync_joins live_region_joins[TP_LIVE_SITES];
struct tp_live_thread *initial_slot;
struct tp_span_shared initial_path;
struct tp_span_mutex *mutexes;
struct tp_sync_waited *sync_waited_stacks;
struct tp_span_shared last_barrier;
bool dependences_seen;
uint64_t tsc_at_start, ns_at_start, ns_per_tsc_2_32;
uint64_t long_poll_ns;
int stacks_lock;
bool stacks_ready; /* the stacks' part of the file has space (at the first stack) */
bool in_memory;
__thread struct live_local local __attribute__((tls_model("initial-exec")));
uint64_t exit_began_ns, exit_rate;

/* `bytes` of private memory, reserved, given pages as they are touched; or at `at`, over it. */
static void *reserve(void *at, size_t bytes)
{
	void *m = mmap(at, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (at != NULL ? MAP_FIXED : 0),
		       -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

uint64_t tasks_populated[TASK_CHUNKS / 64];
static bool populate_refused; /* the kernel has no MADV_POPULATE_WRITE: pages as touched */

void live_populate_tasks(uint32_t chunk)
{
	int saved_errno = errno;
	if (!__atomic_load_n(&populate_refused, __ATOMIC_RELAXED) && !tp_process_filtered() &&
	    madvise((char *)tasks + ((size_t)chunk << TASK_CHUNK_LOG2),
		    (size_t)1 << TASK_CHUNK_LOG2, MADV_POPULATE_WRITE) != 0 &&
	    (errno == EINVAL || errno == ENOSYS))
		__atomic_store_n(&populate_refused, true, __ATOMIC_RELAXED);
	__atomic_fetch_or(&tasks_populated[chunk / 64], 1ull << (chunk % 64), __ATOMIC_RELAXED);
	errno = saved_errno;
}

/*
 * The time-stamp counter's rate is timed against CLOCK_MONOTONIC over the statistics' first
 * CALIBRATION_NS, by the events themselves: until then they read CLOCK_MONOTONIC (a pair, a
 * hundred ns), and the first one after it fixes the rate. Nothing waits at start. Where
 * CLOCK_MONOTONIC is the clock, the rate stays 0 and every moment comes here as it is.
 *
 * A moment `at` is the counter read before the pair (the event's way to here, tens of ns; a
 * wait's end given its start's moment, after its stack's unwinding: hundreds of us): it is taken
 * back from the pair at the rate timed so far, so that a moment said now and one said once the
 * rate is fixed keep their order (the pair's time said an event's end of a few tens of ns, the
 * next converted at the fixed rate, before its start).
 */
__attribute__((noinline)) uint64_t ns_while_timing_the_counter(uint64_t at)
{
	uint64_t exit_began = __atomic_load_n(&exit_began_ns, __ATOMIC_ACQUIRE);
	if (exit_began != 0)
		return exit_began;
	if (!tp_clock_is_tsc)
		return at;
	uint64_t tsc, ns;
	tp_clock_pair(&tsc, &ns);
	if (tsc <= tsc_at_start || ns <= ns_at_start)
		return ns;
	uint64_t rate = tp_live_tsc_rate(tsc_at_start, ns_at_start, tsc, ns);
	if (ns - ns_at_start >= CALIBRATION_NS) {
		__atomic_store_n(&header->ns_per_tsc_2_32, rate, __ATOMIC_RELAXED);
		__atomic_store_n(&ns_per_tsc_2_32, rate, __ATOMIC_RELEASE);
	}
	if (at > tsc || at < tsc_at_start) /* read on another core, or before the start */
		return ns;
	uint64_t back = (uint64_t)(((unsigned __int128)(tsc - at) * rate) >>
				   TP_LIVE_TSC_RATE_SHIFT);
	return back < ns - ns_at_start ? ns - back : ns_at_start;
}

/*
 * Whether libgomp's calls run on libomp here (tp_openmp_libgomp_on_libomp), asked once (-1: not
 * yet): a forked child's header takes its parent's answer, its modules being the parent's. Asked
 * again, it walks the loader's list (dl_iterate_phdr), whose lock glibc 2.36 leaves held in the
 * child when another of the parent's threads walked it at the fork: every child hung in its fork
 * handler (preload-tests/targets/fork_while_loader_walked.c).
 */
static int libgomp_on_libomp = -1;

/* The statistics' layout in `m`, the file's or memory's, TP_LIVE_FILE_SIZE bytes. */
static void fill_header(void *m)
{
	map = m;
	header = (struct tp_live_header *)map;
	sites = (struct tp_live_site *)(map + TP_LIVE_SITES_OFFSET);
	stacks = (struct tp_live_stack *)(map + TP_LIVE_STACKS_OFFSET);
	modules = (struct tp_live_module *)(map + TP_LIVE_MODULES_OFFSET);
	wait_sites = (struct tp_live_wait_site *)(map + TP_LIVE_WAITS_OFFSET);
	slots = (struct tp_live_thread *)(map + TP_LIVE_THREADS_OFFSET);
	header->version = TP_LIVE_VERSION;
	header->header_size = sizeof *header;
	header->file_size = TP_LIVE_FILE_SIZE;
	header->pid = (uint32_t)tp_process()->pid;
	header->start_ticks = tp_process()->start_ticks;
	header->kept = tp_settings()->live == TP_LIVE_KEEP;
	if (libgomp_on_libomp < 0)
		libgomp_on_libomp = tp_openmp_libgomp_on_libomp();
	if (libgomp_on_libomp)
		header->notes |= TP_LIVE_NOTE_LIBGOMP_ON_LIBOMP;
	header->clock = tp_clock_is_tsc ? TP_LIVE_CLOCK_TSC : TP_LIVE_CLOCK_MONOTONIC;
	header->tsc_at_start = tsc_at_start;
	header->ns_at_start = ns_at_start;
	header->ns_per_tsc_2_32 = ns_per_tsc_2_32;
	header->long_poll_ns = long_poll_ns;
	header->rows_offset = TP_LIVE_ROWS_OFFSET;
	header->rows_stride = TP_LIVE_ROWS_STRIDE;
	header->pid_namespace = tp_process()->pid_namespace;
	tp_thread_read_name(header->comm);
	memcpy(header->magic, TP_LIVE_MAGIC, sizeof header->magic);
}

/* Makes the file and maps it; false (said) when it cannot. */
static bool open_live(void)
{
	if (tp_live_file_make(fill_header) != NULL)
		return true;
	map = NULL;
	header = NULL;
	return false;
}

/*
 * The statistics in the process's memory alone, for the exit report's work and span
 * (TASKPROBE_REPORT without TASKPROBE_LIVE): no file, no reader.
 */
static bool open_in_memory(void)
{
	void *m = reserve(NULL, TP_LIVE_FILE_SIZE);
	if (m == NULL)
		return false;
	fill_header(m);
	return true;
}

/* Fresh tables of tasks alive, their work and span, and dependences. */
static bool map_tasks(void)
{
	tasks = reserve(NULL, TASKS_BYTES);
	spans = reserve(NULL, SPANS_BYTES);
	if (spans != NULL)
		tp_span_pool_start(spans, (uint64_t *)(spans + SPANS), SPANS);
	dependences = reserve(NULL, DEPENDENCES_BYTES);
	tp_span_forks_start(forks, TP_LIVE_SITES);
	tp_span_commits_start();
	mutexes = reserve(NULL, MUTEXES_BYTES);
	if (mutexes != NULL)
		tp_span_mutexes_start(mutexes);
	sync_waited_stacks = reserve(NULL, SYNC_WAITED_BYTES);
	return tasks != NULL && spans != NULL && dependences != NULL && mutexes != NULL &&
	       sync_waited_stacks != NULL;
}

const struct tp_live_header *tp_live_header(void)
{
	return header;
}

void tp_live_start(void)
{
	const struct tp_settings *s = tp_settings();
	if (s->live == TP_LIVE_OFF && s->report == NULL)
		return;
	int saved_errno = errno;
	long_poll_ns = (uint64_t)s->live_long_poll_us * 1000u;
	tp_clock_pair(&tsc_at_start, &ns_at_start);
	in_memory = s->live == TP_LIVE_OFF; /* the exit report's work and span only */
	if (in_memory) {
		if (map_tasks() && open_in_memory())
			tp_listeners_in_process_add(TP_IN_PROCESS_LIVE);
		errno = saved_errno;
		return;
	}
	if (!tp_live_file_directory()) {
		errno = saved_errno;
		return;
	}
	if (map_tasks() && open_live())
		tp_listeners_in_process_add(TP_IN_PROCESS_LIVE);
	errno = saved_errno;
}

void live_file_let_go(void)
{
	if (tp_settings()->live != TP_LIVE_KEEP && !in_memory && !tp_process_filtered())
		tp_live_file_remove();
}

/*
 * The file is removed now, not after the destructors, where a runtime torn down under its
 * running threads makes every microsecond count (exit_hook.h): an unlink takes tens of them. Its
 * figures are written until the end, for a reader that has it open.
 */
void tp_live_before_destructors(uint64_t clock_time)
{
	if (!in_files_process())
		return;
	__atomic_store_n(&exit_began_ns, ns_at(clock_time), __ATOMIC_RELEASE);
	exit_rate = __atomic_exchange_n(&ns_per_tsc_2_32, 0, __ATOMIC_ACQ_REL);
	live_file_let_go();
}

void tp_live_after_report(void)
{
	if (in_memory)
		tp_listeners_in_process_remove(TP_IN_PROCESS_LIVE);
}

void tp_live_at_exit(void)
{
	live_ended();
}

void tp_live_before_quick_exit(void)
{
	live_ended();
}

/* Before an exec: the file is marked ended, for a console that follows the pid's next one. */
void tp_live_before_exec(void)
{
	if (in_files_process()) {
		__atomic_store_n(&header->exited_ns, now_ns(), __ATOMIC_RELAXED);
		__atomic_store_n(&header->exited, 1, __ATOMIC_RELEASE);
	}
}

void tp_live_before_seccomp_strict(void)
{
	tp_live_before_exec();
	tp_listeners_in_process_remove(TP_IN_PROCESS_LIVE);
}

/* The exec failed: the process goes on. */
void tp_live_exec_failed(void)
{
	if (in_files_process())
		__atomic_store_n(&header->exited, 0, __ATOMIC_RELEASE);
}

/*
 * The child of fork: a file of its own, as a new process; the parent's is left alone. Under a
 * system call filter, which may refuse making one, the child keeps no statistics (it stops
 * counting into the parent's mapping, which stays mapped: unmapping is a call too).
 */
void tp_live_child_after_fork(void)
{
	if (header == NULL)
		return;
	/* a fork from a destructor: the child's exit is its own, at the rate timed before */
	if (exit_began_ns != 0) {
		exit_began_ns = 0;
		ns_per_tsc_2_32 = exit_rate;
	}
	if (tp_process_filtered()) {
		tp_listeners_in_process_remove(TP_IN_PROCESS_LIVE);
		header = NULL;
		return;
	}
	/*
	 * The parent's mappings are covered, not unmapped: a fork from a signal handler that
	 * interrupted an update returns to code that still writes through them.
	 */
	mmap(map, TP_LIVE_FILE_SIZE, PROT_READ | PROT_WRITE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	reserve(tasks, TASKS_BYTES);
	memset(tasks_populated, 0, sizeof tasks_populated);
	tasks_displaced = false;
	reserve(spans, SPANS_BYTES);
	tp_span_pool_start(spans, (uint64_t *)(spans + SPANS), SPANS);
	reserve(dependences, DEPENDENCES_BYTES);
	tp_span_forks_start(forks, TP_LIVE_SITES);
	tp_span_commits_start();
	memset(live_region_joins, 0, sizeof live_region_joins);
	initial_slot = NULL;
	memset(&initial_path, 0, sizeof initial_path);
	slots_bound = 0;
	reserve(mutexes, MUTEXES_BYTES);
	tp_span_mutexes_start(mutexes);
	reserve(sync_waited_stacks, SYNC_WAITED_BYTES);
	memset(&last_barrier, 0, sizeof last_barrier);
	dependences_seen = false;
	live_overflows_forget();
	header = NULL;
	memset(&local, 0, sizeof local);
	stacks_lock = 0;
	stacks_ready = false;
	/* the child's statistics begin now, at the rate timed at start */
	tp_clock_pair(&tsc_at_start, &ns_at_start);
	if (!(in_memory ? open_in_memory() : open_live()))
		tp_listeners_in_process_remove(TP_IN_PROCESS_LIVE);
}
