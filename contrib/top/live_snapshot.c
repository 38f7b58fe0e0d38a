// SPDX-License-Identifier: MIT
/*
 * Reading a live statistics file into snapshots (live_view.h): its map read guarded, every value
 * copied once, then named, sites of one name merged, figures derived.
 */
#define _GNU_SOURCE
#include "live_names.h"
#include "live_private.h"
#include "live_view.h"

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "taskprobe_contract.h"
#include "taskprobe_mpi_job.h"

/* --- reading the map --- */

/*
 * A file that shrinks under the console (another process's doing: the program never shrinks
 * it) makes a read of its map raise SIGBUS. Its size is looked at before each read, and a read
 * is guarded: a SIGBUS inside it ends the read, which fails; one elsewhere is as without a
 * handler.
 */
static sigjmp_buf bus_jump;
static volatile sig_atomic_t bus_guarded;

static void on_sigbus(int signal_number)
{
	if (bus_guarded) {
		bus_guarded = 0;
		siglongjmp(bus_jump, 1);
	}
	signal(signal_number, SIG_DFL); /* the fault happens again, unhandled */
}

/* Runs `read` (reading f's map) guarded; false when the file is shorter or a SIGBUS came. */
static bool guarded_read(const struct live_file *f, void (*read)(void *), void *arg, char *why,
			 size_t why_size)
{
	static bool installed;
	char shown[SHOWN_PATH_SIZE];
	struct stat st;
	if (fstat(f->fd, &st) != 0 || (uint64_t)st.st_size < f->size) {
		snprintf(
			why, why_size,
			"%s shrank to %llu bytes (from %llu): damaged, not by the program: stopped",
			shown_path(shown, f->path), (unsigned long long)st.st_size,
			(unsigned long long)f->size);
		return false;
	}
	if (!installed) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_sigbus;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, NULL);
		installed = true;
	}
	if (sigsetjmp(bus_jump, 1) != 0) {
		snprintf(why, why_size,
			 "%s shrank while it was read (SIGBUS): damaged, not by the program: "
			 "stopped",
			 shown_path(shown, f->path));
		return false;
	}
	bus_guarded = 1;
	read(arg);
	bus_guarded = 0;
	return true;
}

/* Slot `i`'s rows, or NULL before they have space (the offsets: the header checked at open). */
static const struct tp_live_site_stats *slot_rows(const struct live_file *f, unsigned i)
{
	const struct tp_live_thread *slots = (const void *)(f->map + TP_LIVE_THREADS_OFFSET);
	if (!__atomic_load_n(&slots[i].rows_ready, __ATOMIC_ACQUIRE))
		return NULL;
	return (const void *)(f->map + f->header.rows_offset + (uint64_t)i * f->header.rows_stride);
}

struct spawned_read {
	const struct live_file *f;
	uint64_t spawned;
};

static void read_spawned(void *arg)
{
	struct spawned_read *r = arg;
	for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
		const struct tp_live_site_stats *rows = slot_rows(r->f, i);
		for (uint32_t row = 0; rows != NULL && row < TP_LIVE_SITES; row++)
			r->spawned += __atomic_load_n(&rows[row].spawned, __ATOMIC_RELAXED);
	}
}

uint64_t live_spawned(const struct live_file *f)
{
	struct spawned_read r = {f, 0};
	char why[1024];
	return guarded_read(f, read_spawned, &r, why, sizeof why) ? r.spawned : 0;
}

struct rank_read {
	const struct live_file *f;
	uint32_t rank, size;
};

static void read_rank(void *arg)
{
	struct rank_read *r = arg;
	const struct tp_live_header *h = (const struct tp_live_header *)r->f->map;
	r->size = __atomic_load_n(&h->mpi_size, __ATOMIC_ACQUIRE); /* stored last */
	r->rank = __atomic_load_n(&h->mpi_rank, __ATOMIC_RELAXED);
}

bool live_mpi_rank(const struct live_file *f, uint32_t *rank)
{
	struct rank_read r = {f, 0, 0};
	char why[1024];
	if (!guarded_read(f, read_rank, &r, why, sizeof why) || r.size == 0)
		return false;
	*rank = r.rank;
	return true;
}

static uint64_t load64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static uint32_t load32(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Now in the process's clock (taskprobe_live.h); `rate` its ns_per_tsc_2_32 now. */
static uint64_t process_now(const struct tp_live_header *h, uint64_t rate)
{
#if defined(__x86_64__)
	/* the counter's rate, once the process has timed it (until then its times are CLOCK_MONOTONIC) */
	if (h->clock == TP_LIVE_CLOCK_TSC && rate != 0)
		return tp_live_tsc_ns(__rdtsc(), h->tsc_at_start, h->ns_at_start, rate);
#else
	(void)h;
	(void)rate;
#endif
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The process's time now, in its clock (its exit time once it exited). */
static uint64_t live_now(const struct live_file *f)
{
	const struct tp_live_header *h = (const struct tp_live_header *)f->map;
	if (__atomic_load_n(&h->exited, __ATOMIC_ACQUIRE) != 0)
		return load64(&h->exited_ns);
	return process_now(&f->header, load64(&h->ns_per_tsc_2_32));
}

struct job_rank_read {
	const struct live_file *f;
	struct tp_live_mpi_rank *rank;
	uint64_t job, host;
	bool is;
};

static void read_job_rank(void *arg)
{
	struct job_rank_read *r = arg;
	const struct tp_live_header *h = (const struct tp_live_header *)r->f->map;
	const struct tp_live_thread *slots =
		(const struct tp_live_thread *)(r->f->map + TP_LIVE_THREADS_OFFSET);
	r->is = tp_live_mpi_rank_read(h, slots, live_now(r->f), r->rank);
	r->job = __atomic_load_n(&h->mpi_job, __ATOMIC_RELAXED);
	r->host = __atomic_load_n(&h->mpi_host, __ATOMIC_RELAXED);
}

bool live_mpi_job_rank(const struct live_file *f, struct tp_live_mpi_rank *rank, uint64_t *job,
		       uint64_t *host)
{
	struct job_rank_read r = {f, rank, 0, 0, false};
	char why[1024];
	if (!guarded_read(f, read_job_rank, &r, why, sizeof why) || !r.is)
		return false;
	*job = r.job;
	*host = r.host;
	return true;
}

static void add_row(struct site_view *v, const struct tp_live_site_stats *r)
{
	v->spawned += load64(&r->spawned);
	v->done += load64(&r->done);
	v->busy_ns += load64(&r->busy_ns);
	v->idle_ns += load64(&r->idle_ns);
	v->delay_ns += load64(&r->delay_ns);
	uint64_t longest = load64(&r->longest_poll_ns);
	if (longest > v->longest_poll_ns)
		v->longest_poll_ns = longest;
	v->long_polls += load64(&r->long_polls);
	v->blocking_waits += load64(&r->blocking_waits);
	v->blocking_ns += load64(&r->blocking_ns);
	v->sync_waited_ns += load64(&r->sync_waited_ns);
	v->sync_waits += load64(&r->sync_waits);
	uint64_t first = load64(&r->first_spawn_ns);
	if (first != 0 && (v->first_spawn_ns == 0 || first < v->first_spawn_ns))
		v->first_spawn_ns = first;
	/* a poll, a delay: one count in its histogram (no count of its own: version 11) */
	for (unsigned b = 0; b < TP_LIVE_BUCKETS; b++) {
		uint64_t polls = load64(&r->poll_histogram[b]),
			 delays = load64(&r->delay_histogram[b]);
		v->poll_histogram[b] += polls;
		v->delay_histogram[b] += delays;
		v->polls += polls;
		v->delays += delays;
	}
	tp_live_costs_add(&v->costs, r);
}

static const struct thread_view *previous_thread(const struct live_snapshot *previous,
						 uint32_t slot, uint32_t generation)
{
	if (previous == NULL)
		return NULL;
	for (unsigned i = 0; i < previous->n_threads; i++)
		if (previous->threads[i].slot == slot &&
		    previous->threads[i].generation == generation)
			return &previous->threads[i];
	return NULL;
}

static double share(uint64_t part, uint64_t whole)
{
	double s = whole > 0 ? (double)part / (double)whole : 0;
	return s < 0 ? 0 : s > 1 ? 1 : s;
}

struct snapshot_read {
	const struct live_file *f;
	const struct live_snapshot *previous;
	struct live_snapshot *out;
	struct site_view *by_row[TP_LIVE_SITES];
};

/*
 * A text field of the map (`size` bytes), copied once, read up to its NUL or its end, escaped.
 * The copy is the one read: the field may change meanwhile.
 */
static void copy_text(char *out, size_t out_size, const char *field, size_t size,
		      bool keep_newlines)
{
	char raw[TP_LIVE_SITE_TEXT];
	if (size > sizeof raw)
		size = sizeof raw;
	memcpy(raw, field, size);
	live_escape(out, out_size, raw, size, keep_newlines);
}

/*
 * The task graph's figures, over every slot ever taken (a slot's outlive its threads), read as
 * the exit report reads them (tp_live_graph_read), and each parallel region's.
 */
static void read_graph(struct snapshot_read *r, const struct tp_live_thread *slots)
{
	struct live_snapshot *out = r->out;
	static struct tp_live_graph g; /* a thread's computation each: too large a local */
	tp_live_graph_read((const struct tp_live_header *)r->f->map, slots, out->now_ns, &g);
	out->work_ns = g.work_ns;
	out->graph_threads = g.threads;
	out->graph_first_ns = g.first_ns;
	out->graph_last_ns = g.last_ns;
	out->longest = g.longest;
	out->span_ns = g.span_ns;
	out->factors = tp_live_graph_factors(&g);
	out->roi_pairs = g.roi_pairs;
	out->roi_markers = g.roi_markers;
	for (uint32_t row = 1; row < TP_LIVE_SITES; row++)
		if (r->by_row[row] != NULL && r->by_row[row]->by_executor)
			r->by_row[row]->region = tp_live_region_read(
				slots, r->f->map, r->f->header.rows_offset,
				r->f->header.rows_stride, &row, 1, out->now_ns);
	/* a poll going on is the span's end (one long region, say; a region's implicit task in a
	 * time-step loop): its time so far is the path's in its site, and the path to its start
	 * the sites its thread published with it */
	const struct tp_live_path *path = &out->longest;
	uint64_t open_kept = 0;
	out->path_ns = out->longest.ns;
	if (g.open_ran_ns != 0) {
		struct site_view *site = r->by_row[g.open_row % TP_LIVE_SITES];
		out->path_ns = g.span_ns;
		if (site != NULL) {
			site->path_ns += g.open_ran_ns;
			site->path_fragments++;
			open_kept = g.open_ran_ns;
		}
		path = &g.open_from;
	}
	/* the path's time by site (its places and its commit's): never more than the path,
	 * whatever a torn read gave */
	static struct tp_live_path_sites read; /* a row each: too large a local */
	tp_live_path_sites_read(&((const struct tp_live_header *)r->f->map)->commits, path, &read);
	uint64_t other = read.other_ns;
	for (unsigned i = 0; i < read.n; i++) {
		const struct tp_live_path_site *s = &read.sites[i];
		struct site_view *site = r->by_row[s->row];
		if (site == NULL) {
			other += s->ns;
			continue;
		}
		site->path_ns += s->ns;
		site->path_fragments += s->fragments;
		site->path_at_least |= s->at_least;
	}
	/* the span past `path`: the fragment going on, in its site's if that has a line */
	out->path_other_ns = other + tp_live_since(out->path_ns, path->ns + open_kept);
}

/*
 * A thread's waits (thread_view's), its wait going on now (wait_kind, wait_for_ns: read
 * already) added, and its running time to `now_ns` or its end.
 */
static void read_thread_waits(struct thread_view *w, const struct tp_live_thread *t,
			      uint64_t now_ns)
{
	w->waits = load64(&t->waits);
	w->waited_total_ns = 0;
	for (unsigned k = 0; k < TP_LIVE_WAIT_KINDS; k++) {
		w->waited_ns[k] = load64(&t->waited_ns[k]);
		if (k == w->wait_kind)
			w->waited_ns[k] += w->wait_for_ns;
		w->waited_total_ns += w->waited_ns[k];
	}
	w->longest_wait_ns = load64(&t->longest_wait_ns);
	w->longest_wait_kind = load32(&t->longest_wait_kind);
	w->longest_wait_address = load64(&t->longest_wait_address);
	w->longest_wait_module = load32(&t->longest_wait_module);
	if (w->wait_kind != 0 && w->wait_for_ns > w->longest_wait_ns) {
		w->longest_wait_ns = w->wait_for_ns;
		w->longest_wait_kind = w->wait_kind;
		w->longest_wait_address = w->wait_address;
		w->longest_wait_module = w->wait_module;
	}
	uint64_t started = load64(&t->started_ns), ended = load64(&t->ended_ns);
	uint64_t end = w->ended && ended != 0 ? ended : now_ns;
	uint64_t alive = end > started ? end - started : 0;
	w->running_ns = alive > w->waited_total_ns ? alive - w->waited_total_ns : 0;
}

/* The header's figures the process changes as it runs (the rest as checked at open), and now. */
static void read_header(struct snapshot_read *r)
{
	const struct live_file *f = r->f;
	struct live_snapshot *out = r->out;
	const struct tp_live_header *h = (const struct tp_live_header *)f->map;
	out->header = f->header;
	bool exited = __atomic_load_n(&h->exited, __ATOMIC_ACQUIRE) != 0;
	out->header.exited = exited;
	out->header.exited_ns = load64(&h->exited_ns);
	out->header.ns_per_tsc_2_32 = load64(&h->ns_per_tsc_2_32);
	out->header.threads_uncounted = load64(&h->threads_uncounted);
	out->header.tasks_untracked = load64(&h->tasks_untracked);
	out->header.dependences_dropped = load64(&h->dependences_dropped);
	out->header.events_dropped = load64(&h->events_dropped);
	out->header.stacks_dropped = load64(&h->stacks_dropped);
	out->header.threads_without_space = load64(&h->threads_without_space);
	out->header.waiting_threads_unlisted = load64(&h->waiting_threads_unlisted);
	out->header.notes = load32(&h->notes);
	/* an MPI rank's, once its MPI_Init ended (the size stored last) */
	out->header.mpi_size = __atomic_load_n(&h->mpi_size, __ATOMIC_ACQUIRE);
	out->header.mpi_rank = load32(&h->mpi_rank);
	live_escape(out->comm, sizeof out->comm, f->header.comm, sizeof f->header.comm, false);
	out->mpi_job[0] = '\0';
	out->now_ns = exited ? out->header.exited_ns
			     : process_now(&out->header, out->header.ns_per_tsc_2_32);
	out->elapsed_ns = out->now_ns > out->header.ns_at_start
				  ? out->now_ns - out->header.ns_at_start
				  : 0;
}

/* The sites: rows summed over every slot that has them. */
static void read_sites(struct snapshot_read *r)
{
	const struct live_file *f = r->f;
	struct live_snapshot *out = r->out;
	const struct tp_live_site *sites = (const void *)(f->map + TP_LIVE_SITES_OFFSET);
	for (uint32_t row = 0; row < TP_LIVE_SITES; row++) {
		if (__atomic_load_n(&sites[row].state, __ATOMIC_ACQUIRE) != TP_LIVE_ENTRY_READY)
			continue;
		/* a sync construct's site is no task site: a table of its own */
		uint32_t sync_kind = load32(&sites[row].sync_kind);
		struct site_view *v = sync_kind != 0 ? &out->syncs[out->n_syncs++]
						     : &out->sites[out->n_sites++];
		v->sync_kind = sync_kind;
		v->mutex_kind = load32(&sites[row].mutex_kind);
		v->row = row;
		v->site_id = load32(&sites[row].site_id);
		v->by_executor = load32(&sites[row].by_executor) != 0;
		v->address = load64(&sites[row].address);
		v->module = load32(&sites[row].module);
		copy_text(v->text, sizeof v->text, sites[row].text, sizeof sites[row].text, false);
		r->by_row[row] = v;
	}
	for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
		const struct tp_live_site_stats *rows = slot_rows(f, i);
		for (uint32_t row = 0; rows != NULL && row < TP_LIVE_SITES; row++)
			if (r->by_row[row] != NULL)
				add_row(r->by_row[row], &rows[row]);
	}
}

/*
 * The spawn stacks, of sites there are: read, not through the map, whose pages of them have no
 * space until a first stack is sampled (a read of the map would give them some, from the
 * program's file system, or a SIGBUS where it is full).
 */
static void read_stacks(struct snapshot_read *r)
{
	const struct live_file *f = r->f;
	struct live_snapshot *out = r->out;
	static struct tp_live_stack stacks[TP_LIVE_STACKS];
	ssize_t got = pread(f->fd, stacks, sizeof stacks, (off_t)TP_LIVE_STACKS_OFFSET);
	size_t whole = got > 0 ? (size_t)got / sizeof stacks[0] : 0;
	for (unsigned i = 0; i < whole; i++) {
		uint32_t site = stacks[i].site, wait_entry = site & ~TP_LIVE_STACK_OF_WAIT_SITE;
		bool of_wait = (site & TP_LIVE_STACK_OF_WAIT_SITE) != 0;
		if (stacks[i].state != TP_LIVE_ENTRY_READY ||
		    (of_wait ? wait_entry >= TP_LIVE_WAIT_SITES : site >= TP_LIVE_SITES))
			continue; /* beyond the sites: never from the shim, a damaged file */
		struct stack_view *k = &out->stacks[out->n_stacks++];
		k->row = stacks[i].site;
		k->samples = stacks[i].samples;
		k->depth = stacks[i].depth < TP_LIVE_STACK_FRAMES ? stacks[i].depth
								  : TP_LIVE_STACK_FRAMES;
		memcpy(k->pcs, stacks[i].pcs, k->depth * sizeof k->pcs[0]);
	}
}

/* The waits' call sites: read, not through the map (their figures are atomics anyway). */
static void read_wait_sites(struct snapshot_read *r)
{
	const struct live_file *f = r->f;
	struct live_snapshot *out = r->out;
	static struct tp_live_wait_site wait_sites[TP_LIVE_WAIT_SITES];
	ssize_t got = pread(f->fd, wait_sites, sizeof wait_sites, (off_t)TP_LIVE_WAITS_OFFSET);
	size_t whole = got > 0 ? (size_t)got / sizeof wait_sites[0] : 0;
	for (unsigned i = 0; i < whole; i++) {
		/* a site with waits going on and none ended yet is one too (a thread blocked there
		 * from its first wait, to the program's end: xz's idle workers) */
		if (wait_sites[i].state != TP_LIVE_ENTRY_READY ||
		    (wait_sites[i].waits == 0 && wait_sites[i].waiting == 0))
			continue;
		struct wait_view *w = &out->waits[out->n_waits++];
		w->entry = TP_LIVE_STACK_OF_WAIT_SITE | i;
		w->address = wait_sites[i].address;
		w->module = wait_sites[i].module;
		w->kind = wait_sites[i].kind;
		w->waits = wait_sites[i].waits + wait_sites[i].waiting;
		w->total_ns = wait_sites[i].total_ns;
		w->longest_ns = wait_sites[i].longest_ns;
		w->waiting = wait_sites[i].waiting;
		w->thread_bits = wait_sites[i].threads;
		w->threads = (unsigned)__builtin_popcountll(w->thread_bits);
	}
}

/*
 * Thread `w`'s wait going on now (at the exit, once the program exited) is its site's too: its
 * time so far in the site's total and longest, as in the thread's own figures (the site's count
 * has it already: its waits going on).
 */
static void wait_goes_on(struct live_snapshot *out, const struct thread_view *w)
{
	for (unsigned i = 0; i < out->n_waits; i++) {
		struct wait_view *v = &out->waits[i];
		if (v->address != w->wait_address || v->module != w->wait_module ||
		    v->kind != w->wait_kind)
			continue;
		v->total_ns += w->wait_for_ns;
		if (w->wait_for_ns > v->longest_ns)
			v->longest_ns = w->wait_for_ns;
		v->thread_bits |= 1ull << (w->tid % 64);
		v->threads = (unsigned)__builtin_popcountll(v->thread_bits);
		return;
	}
}

/*
 * The thread of slot `i` (`t`, in use as `use` says); its shares over `since_previous` when the
 * previous snapshot has it.
 */
static void read_thread(struct snapshot_read *r, unsigned i, const struct tp_live_thread *t,
			uint32_t use, uint64_t since_previous)
{
	const struct live_file *f = r->f;
	struct live_snapshot *out = r->out;
	const struct live_snapshot *previous = r->previous;
	struct thread_view *w = &out->threads[out->n_threads++];
	w->slot = i;
	w->ended = use == TP_LIVE_SLOT_ENDED;
	w->generation = load32(&t->generation);
	w->tid = load32(&t->tid);
	uint32_t worker = load32(&t->worker);
	w->worker = worker == TP_LIVE_WORKER;
	w->was_worker = worker == TP_LIVE_WORKER || worker == TP_LIVE_WORKER_ENDED;
	char raw_name[sizeof t->name];
	memcpy(raw_name, t->name, sizeof raw_name);
	copy_text(w->name, sizeof w->name, raw_name, sizeof raw_name, false);
	/* the process's own name: a thread that set none (named by its start routine) */
	w->unnamed = strncmp(raw_name, f->header.comm, sizeof raw_name) == 0;
	w->start_routine = load64(&t->start_routine);
	w->start_module = load32(&t->start_module);
	w->state = load32(&t->state);
	uint32_t site = load32(&t->site);
	/* never beyond the table from the shim: a damaged file */
	w->site = site < TP_LIVE_SITES ? site : TP_LIVE_OVERFLOW;
	uint64_t since = load64(&t->state_since);
	w->state_for_ns = out->now_ns > since ? out->now_ns - since : 0;
	w->wait_kind = load32(&t->wait_kind);
	uint64_t wait_since = load64(&t->wait_since);
	w->wait_for_ns = w->wait_kind != 0 && out->now_ns > wait_since ? out->now_ns - wait_since
								       : 0;
	w->wait_task = load64(&t->wait_task);
	w->wait_address = w->wait_kind != 0 ? load64(&t->wait_address) : 0;
	w->wait_module = load32(&t->wait_module);
	w->polls = load64(&t->polls);
	read_thread_waits(w, t, out->now_ns);
	if (w->wait_kind != 0)
		wait_goes_on(out, w);
	w->busy_ns = load64(&t->busy_ns) + (w->state == TP_LIVE_POLLING ? w->state_for_ns : 0);
	w->parked_ns = load64(&t->parked_ns) + (w->state == TP_LIVE_PARKED ? w->state_for_ns : 0);
	/* over the last interval, or since the thread took its slot */
	const struct thread_view *before = previous_thread(previous, i, w->generation);
	uint64_t taken = load64(&t->taken_ns);
	uint64_t interval = before != NULL        ? since_previous
			    : out->now_ns > taken ? out->now_ns - taken
						  : 0;
	/* a state read while it changed can make a figure step back: no share then */
	uint64_t busy = before == NULL                 ? w->busy_ns
			: w->busy_ns > before->busy_ns ? w->busy_ns - before->busy_ns
						       : 0;
	uint64_t parked = before == NULL                     ? w->parked_ns
			  : w->parked_ns > before->parked_ns ? w->parked_ns - before->parked_ns
							     : 0;
	w->busy_share = share(busy, interval);
	w->parked_share = share(parked, interval);
	/* what is neither busy nor blocked: spinning, looking for work, the runtime's */
	w->spinning_share = w->was_worker ? 1 - w->busy_share - w->parked_share : 0;
	if (w->spinning_share < 0)
		w->spinning_share = 0;
	struct site_view *v = r->by_row[w->site];
	if (w->state == TP_LIVE_POLLING && v != NULL) {
		v->polling_now++;
		if (w->state_for_ns > v->longest_now_ns)
			v->longest_now_ns = w->state_for_ns;
	}
}

/* The threads: every slot in use; after the exit, the ended ones too. */
static void read_threads(struct snapshot_read *r, const struct tp_live_thread *slots)
{
	struct live_snapshot *out = r->out;
	bool exited = out->header.exited;
	const struct live_snapshot *previous = r->previous;
	uint64_t since_previous = previous != NULL && out->now_ns > previous->now_ns
					  ? out->now_ns - previous->now_ns
					  : out->elapsed_ns;
	for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
		const struct tp_live_thread *t = &slots[i];
		uint32_t use = __atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE);
		if (use != TP_LIVE_SLOT_LIVE && !(use == TP_LIVE_SLOT_ENDED && exited))
			continue;
		read_thread(r, i, t, use, since_previous);
	}
}

/* The snapshot's reading of the map (guarded_read): every value copied once, then used. */
static void read_snapshot(void *arg)
{
	struct snapshot_read *r = arg;
	const struct tp_live_thread *slots = (const void *)(r->f->map + TP_LIVE_THREADS_OFFSET);
	read_header(r);
	read_sites(r);
	read_stacks(r);
	read_wait_sites(r);
	read_graph(r, slots);
	read_threads(r, slots);
}

/* Sync sites by the time tasks waited there, most first. */
static int by_time_synced(const void *a, const void *b)
{
	const struct site_view *x = a, *y = b;
	return x->sync_waited_ns > y->sync_waited_ns ? -1 : x->sync_waited_ns < y->sync_waited_ns;
}

/*
 * The snapshot's sites and stacks named (the shim keeps them as addresses: live_names.h), out of
 * the guarded read: naming reads the modules' files, never the map.
 */
static void name_addresses(const struct live_file *f, struct live_snapshot *out)
{
	live_names_modules(f);
	char name[TP_LIVE_SITE_TEXT];
	for (unsigned i = 0; i < out->n_sites + out->n_syncs; i++) {
		struct site_view *v = i < out->n_sites ? &out->sites[i]
						       : &out->syncs[i - out->n_sites];
		if (v->address == 0 || v->text[0] != '\0')
			continue;
		live_name(v->address, v->module, true, name, sizeof name);
		live_escape(v->text, sizeof v->text, name, strlen(name), false);
	}
	for (unsigned i = 0; i < out->n_waits; i++) {
		struct wait_view *w = &out->waits[i];
		if (w->address == 0) {
			snprintf(w->text, sizeof w->text, "(sites beyond the first %d)",
				 TP_LIVE_WAIT_SITES - 1);
			continue;
		}
		live_name(w->address, w->module, true, name, sizeof name);
		live_escape(w->text, sizeof w->text, name, strlen(name), false);
	}
	for (unsigned i = 0; i < out->n_threads; i++) {
		struct thread_view *w = &out->threads[i];
		if (!w->unnamed || w->start_routine == 0)
			continue;
		live_name_function(w->start_routine, w->start_module, name, sizeof name);
		if (name[0] != '\0') /* else the routine has no name: the process's stays */
			live_escape(w->name, sizeof w->name, name, strlen(name), false);
	}
	for (unsigned i = 0; i < out->n_threads; i++) {
		struct thread_view *w = &out->threads[i];
		if (w->wait_address != 0) {
			live_name(w->wait_address, w->wait_module, true, name, sizeof name);
			live_escape(w->wait_site, sizeof w->wait_site, name, strlen(name), false);
		}
		if (w->longest_wait_address != 0) {
			live_name(w->longest_wait_address, w->longest_wait_module, true, name,
				  sizeof name);
			live_escape(w->longest_wait_site, sizeof w->longest_wait_site, name,
				    strlen(name), false);
		}
	}
	for (unsigned i = 0; i < out->n_stacks; i++) {
		struct stack_view *k = &out->stacks[i];
		char frames[LIVE_STACK_TEXT_SHOWN];
		size_t used = 0;
		frames[0] = '\0';
		for (uint32_t d = 0; d < k->depth && used + 1 < sizeof frames; d++) {
			live_name(k->pcs[d], TP_LIVE_NO_MODULE, false, name, sizeof name);
			int n = snprintf(frames + used, sizeof frames - used, "%s%s",
					 d > 0 ? "\n" : "", name);
			if (n < 0 || (size_t)n >= sizeof frames - used)
				break;
			used += (size_t)n;
		}
		live_escape(k->text, sizeof k->text, frames, used, true);
	}
}

/* The wait sites by total time waited, most first. */
static int by_time_waited(const void *a, const void *b)
{
	const struct wait_view *x = a, *y = b;
	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

/* A snapshot whose sites of one name were merged, `kept_row` saying where each row went. */
struct merged_regions {
	const struct live_file *f;
	struct live_snapshot *out;
	const uint32_t *kept_row;
};

/*
 * The parallel regions of several rows (an unrolled loop's copies of one construct: one name)
 * read again over all of them (guarded_read): each thread's computation summed over its rows,
 * as the exit report and --analyze count a region's, never a copy's balance; and each barrier's
 * phases so, over its rows.
 */
static void read_merged_balances(void *arg)
{
	const struct merged_regions *m = arg;
	const struct tp_live_thread *slots = (const void *)(m->f->map + TP_LIVE_THREADS_OFFSET);
	static uint32_t rows[TP_LIVE_SITES];
	for (unsigned i = 0; i < m->out->n_sites; i++) {
		struct site_view *v = &m->out->sites[i];
		unsigned n = 0;
		for (uint32_t row = 0; v->by_executor && row < TP_LIVE_SITES; row++)
			if (m->kept_row[row] == v->row)
				rows[n++] = row;
		if (n > 1)
			v->region = tp_live_region_read(slots, m->f->map, m->f->header.rows_offset,
							m->f->header.rows_stride, rows, n,
							m->out->now_ns);
	}
	if (m->out->header.syncs_unlisted != 0)
		m->out->syncs_unlisted = tp_live_syncs_unlisted_read(
			slots, m->f->map, m->f->header.rows_offset, m->f->header.rows_stride);
	for (unsigned i = 0; i < m->out->n_syncs; i++) {
		struct site_view *v = &m->out->syncs[i];
		unsigned n = 0;
		for (uint32_t row = 0; v->sync_kind == TP_SYNC_BARRIER && row < TP_LIVE_SITES;
		     row++)
			if (m->kept_row[row] == v->row)
				rows[n++] = row;
		if (n > 0)
			v->phases = tp_live_phase_read(slots, m->f->map, m->f->header.rows_offset,
						       m->f->header.rows_stride, rows, n);
	}
}

bool live_snapshot(const struct live_file *f, const struct live_snapshot *previous,
		   struct live_snapshot *out, char *why, size_t why_size)
{
	memset(out, 0, sizeof *out);
	struct snapshot_read r = {.f = f, .previous = previous, .out = out};
	if (!guarded_read(f, read_snapshot, &r, why, why_size))
		return false;
	const struct tp_live_header *h = &out->header;
	name_addresses(f, out);
	static uint32_t kept_row[TP_LIVE_SITES];
	live_merge_sites_of_one_name(out, kept_row);
	struct merged_regions m = {f, out, kept_row};
	if (!guarded_read(f, read_merged_balances, &m, why, why_size))
		return false;
	live_merge_wait_sites_of_one_name(out);
	/* a sync site is published when a wait in it begins: one whose waits have not ended is no
	 * line yet (the exit report and --analyze list the same) */
	unsigned kept = 0;
	for (unsigned i = 0; i < out->n_syncs; i++)
		if (out->syncs[i].sync_waits > 0)
			out->syncs[kept++] = out->syncs[i];
	out->n_syncs = kept;
	qsort(out->waits, out->n_waits, sizeof out->waits[0], by_time_waited);
	qsort(out->syncs, out->n_syncs, sizeof out->syncs[0], by_time_synced);

	for (unsigned i = 0; i < out->n_sites; i++) {
		struct site_view *v = &out->sites[i];
		v->alive = v->spawned > v->done ? v->spawned - v->done : 0;
		out->alive += v->alive;
		out->spawned += v->spawned;
		out->done += v->done;
		/* read as the exit report reads them (tp_live_quantile) */
		v->delay_p50_ns = tp_live_quantile(v->delay_histogram, 0.50, 0, NULL, NULL);
		v->delay_p99_ns = tp_live_quantile(v->delay_histogram, 0.99, 0, NULL, NULL);
		v->poll_p50_ns = tp_live_quantile(v->poll_histogram, 0.50, v->longest_poll_ns, NULL,
						  NULL);
		v->poll_p99_ns = tp_live_quantile(v->poll_histogram, 0.99, v->longest_poll_ns, NULL,
						  NULL);
		struct tp_live_granularity g = tp_live_granularity_of(&v->costs, v->done,
								      v->by_executor);
		v->spawn_p50_ns = g.spawn_ns;
		v->start_p50_ns = g.start_ns;
		v->task_p50_ns = g.task_ns;
		if (v->long_polls > 0)
			v->warnings |= WARN_LONG_POLLS;
		if (v->blocking_waits > 0)
			v->warnings |= WARN_BLOCKS;
		if (!v->by_executor && v->done == 0 && v->alive > 0 && v->first_spawn_ns != 0 &&
		    out->now_ns > v->first_spawn_ns + LIVE_NONE_ENDED_NS)
			v->warnings |= WARN_NONE_ENDED;
		if (v->longest_now_ns >= h->long_poll_ns)
			v->warnings |= WARN_LONG_POLL_NOW;
		/* the verdict --analyze and the exit report give, on the median task's time (its
		 * polls added up: a task that waits for its children runs in several) */
		if (g.too_small)
			v->warnings |= WARN_TOO_SMALL;
	}
	return true;
}

const struct site_view *live_site(const struct live_snapshot *s, uint32_t row)
{
	for (unsigned i = 0; i < s->n_sites; i++)
		if (s->sites[i].row == row)
			return &s->sites[i];
	return NULL;
}
