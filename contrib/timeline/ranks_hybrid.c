// SPDX-License-Identifier: MIT
/*
 * The hybrid efficiencies of an MPI + OpenMP job (POP's multiplicative model, as OTF-CPT prints
 * it): every thread of every rank, its useful time its task polls outside MPI calls, in its
 * rank's window (what ranks_pop_say found); each factor is MPI's times OpenMP's, OpenMP's the
 * hybrid one over MPI's. MPI's are the ranks': load balance the mean of each rank's busiest
 * thread's useful time, weighted by the rank's threads (OTF-CPT's), over the largest;
 * communication the largest time a rank did not lose to MPI (window_change) over the run time.
 * The busiest thread's useful time bounds each of its rank's threads', and the time not lost
 * bounds the busiest's, so no OpenMP factor exceeds 1. Counted on the MPI threads alone
 * (ranks_pop_say's line), a rank whose MPI thread waits in a receive while its other threads
 * compute read as idle, and OpenMP's factors above 1 (test_ranks_hybrid.c's overlapped shapes).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>

#include "ranks_pop.h"
#include "ranks_pop_private.h"
#include "taskprobe_contract.h"
#include "taskprobe_recording.h"

static uint64_t busy_key_hash(uint64_t key)
{
	return thread_key_hash((uint32_t)(key >> 32), (uint32_t)key);
}

uint64_t ranks_busy_hash(const void *context, const void *slot)
{
	(void)context;
	return busy_key_hash(((const struct busy *)slot)->key);
}

/* How much of [from, to] lies in [on, off]. */
static double overlap(double from, double to, double on, double off)
{
	from = from > on ? from : on;
	to = to < off ? to : off;
	return to > from ? to - from : 0;
}

/* Thread `tid` of rank `rank`, if kept. */
static struct busy *busy_found(struct ranks_pop *p, uint32_t rank, uint32_t tid)
{
	uint64_t key = (uint64_t)(rank + 1) << 32 | tid, hash = busy_key_hash(key);
	struct table *t = &p->busy;
	for (size_t i = t->size ? table_home(t, hash) : 0; t->size && table_used(t, i);
	     i = table_next(t, i)) {
		struct busy *b = table_slot(t, i);
		if (b->key == key)
			return b;
	}
	return NULL;
}

/* Thread `tid` of rank `rank`, made if new; NULL past MAX_THREADS or out of memory (*ok false). */
static struct busy *busy_of(struct ranks_pop *p, uint32_t rank, uint32_t tid, bool *ok)
{
	*ok = true;
	struct busy *found = busy_found(p, rank, tid);
	if (found != NULL)
		return found;
	uint64_t key = (uint64_t)(rank + 1) << 32 | tid, hash = busy_key_hash(key);
	struct table *t = &p->busy;
	if (t->used == MAX_THREADS) {
		p->busy_full = true;
		return NULL;
	}
	if (!table_room(t)) {
		*ok = false;
		return NULL;
	}
	struct busy *b = table_claim(t, hash);
	*b = (struct busy){.key = key, .rank = rank, .tid = tid};
	return b;
}

/* Whether `b` computes: polls a task outside MPI calls. */
static bool busy_computing(const struct busy *b)
{
	return b->polls > 0 && !b->in_mpi;
}

/* `b`'s useful time up to `ns`: computing, in its rank's window. */
static void busy_count(const struct ranks_pop *p, struct busy *b, double ns)
{
	const struct window *w = &p->windows[b->rank];
	if (busy_computing(b))
		b->useful += overlap((double)b->since, ns, w->on, w->off);
	b->since = ns > 0 ? (uint64_t)ns : 0;
}

/*
 * `w`'s rank's time lost to MPI counted up to `ns`, then a thread's change from being in MPI or
 * computing as `was_*` says to as `is_*` says. Lost while a thread is in MPI and none computes: a
 * thread waiting in a receive while another computes loses the rank nothing, nor does one idle
 * at an OpenMP barrier or in a wait of its own while none is in MPI; one idle at a barrier while
 * another is in MPI waits for MPI. Events come in the merge's order; one a little behind takes
 * no time back.
 */
static void window_change(struct window *w, uint64_t ns, bool was_in_mpi, bool is_in_mpi,
			  bool was_computing, bool is_computing)
{
	if (ns > w->since) {
		if (w->in_mpi > 0 && w->computing == 0)
			w->lost_to_mpi += overlap((double)w->since, (double)ns, w->on, w->off);
		w->since = ns;
	}
	w->in_mpi += (int32_t)is_in_mpi - (int32_t)was_in_mpi;
	w->computing += (int32_t)is_computing - (int32_t)was_computing;
}

/*
 * Whether a poll of `task` on `w`'s rank is its OpenMP initial task's first: OMPT tells that task
 * only when the runtime starts, and the serial code before, since the thread's last event (an MPI
 * call's or another wait's end, its window's start), is its computation, as the engine counts it
 * (tp_span_initial_start; a process's factors, XSBench's set-up).
 */
static bool initial_first_poll(struct window *w, uint64_t task)
{
	if (w->initial == 0 || task != w->initial || w->initial_polled)
		return false;
	w->initial_polled = true;
	return true;
}

bool ranks_pop_event(struct ranks_pop *p, size_t rank, uint32_t tid, uint64_t ns, unsigned type,
		     const int64_t arg[3])
{
	if (p->windows == NULL || rank >= p->n_windows)
		return true;
	struct window *w = &p->windows[rank];
	/* a task with neither parent nor site: OpenMP's initial task (the engine's rule) */
	if (type == TP_RECORD_TASK_SPAWN && arg[1] == 0 && arg[2] == 0 && w->initial == 0)
		w->initial = (uint64_t)arg[0];
	bool mpi = (type == TP_RECORD_WAIT_START || type == TP_RECORD_WAIT_END) &&
		   arg[0] == TP_WAIT_MPI;
	if (type == TP_RECORD_WAIT_END && !mpi) {
		/* another wait of a thread kept (an MPI thread), outside its polls: the serial
		 * code before the runtime starts is its computation from the wait's end on, as
		 * the engine counts it (tp_span_initial_start) */
		struct busy *b = busy_found(p, (uint32_t)rank, tid);
		if (b != NULL && b->polls == 0 && !b->in_mpi)
			b->since = ns;
		return true;
	}
	if (type != TP_RECORD_TASK_POLL_START && type != TP_RECORD_TASK_POLL_END && !mpi)
		return true;
	bool ok;
	struct busy *b = busy_of(p, (uint32_t)rank, tid, &ok);
	if (b == NULL)
		return ok;
	if (type == TP_RECORD_TASK_POLL_START && b->polls == 0 && !b->in_mpi &&
	    initial_first_poll(w, (uint64_t)arg[0]))
		b->useful += overlap((double)b->since, (double)ns, w->on, w->off);
	busy_count(p, b, (double)ns);
	bool was_in_mpi = b->in_mpi, was_computing = busy_computing(b);
	if (type == TP_RECORD_TASK_POLL_START) {
		b->polls++;
		b->polled = true;
	} else if (type == TP_RECORD_TASK_POLL_END) {
		b->polls -= b->polls > 0;
	} else {
		b->in_mpi = type == TP_RECORD_WAIT_START;
	}
	window_change(w, ns, was_in_mpi, b->in_mpi, was_computing, busy_computing(b));
	return true;
}

static double larger(double a, double b)
{
	return a > b ? a : b;
}

/*
 * The rank of window `w`'s time not lost to MPI, at least its busiest thread's useful time: the
 * serial code of a rank's thread before OpenMP's runtime starts is useful (initial_first_poll)
 * but told no poll, and so no computing in the window's count.
 */
static double not_lost(struct window *w)
{
	window_change(w, w->off > 0 ? (uint64_t)w->off : 0, false, false, false, false);
	return larger(w->off - w->on - w->lost_to_mpi, w->busiest);
}

void ranks_pop_say_hybrid(struct ranks_pop *p, FILE *errors, FILE *figures)
{
	const char *lead;
	FILE *out = ranks_pop_figures(errors, figures, &lead);
	if (p->busy_full) /* the threads not all counted: no basis of theirs either */
		p->basis.known = false;
	if (out == NULL || p->windows == NULL || p->busy_full)
		return;
	for (size_t r = 0; r < p->n_windows; r++) {
		p->windows[r].busiest = 0;
		p->windows[r].threads = 0;
	}
	double sum = 0, most = 0;
	size_t threads = 0;
	for (size_t i = 0; i < p->busy.size; i++) {
		struct busy *b = table_slot(&p->busy, i);
		if (!table_used(&p->busy, i) || !b->polled)
			continue;
		struct window *w = &p->windows[b->rank];
		busy_count(p, b, w->off); /* a poll open at the end */
		sum += b->useful;
		most = larger(most, b->useful);
		threads++;
		w->busiest = larger(w->busiest, b->useful);
		w->threads++;
	}
	if (threads == 0) /* no OpenMP: the ranks' line says it all */
		return;
	/* the ranks': one whose threads never polled (no OpenMP there) has its time outside MPI
	 * as its computation, on one thread; the ranks' balance weighs each by its threads */
	double weighted = 0, not_lost_most = 0;
	for (size_t r = 0; r < p->n_windows; r++) {
		struct window *w = &p->windows[r];
		if (w->threads == 0) {
			w->busiest = w->outside_mpi;
			w->threads = 1;
			sum += w->busiest;
			most = larger(most, w->busiest);
			threads++;
		}
		weighted += w->threads * w->busiest;
		not_lost_most = larger(not_lost_most, not_lost(w));
	}
	if (most <= 0 || p->runtime <= 0)
		return;
	double mean = sum / (double)threads, balance = mean / most,
	       communication = most / p->runtime, mpi_balance = weighted / (double)threads / most,
	       mpi_communication = not_lost_most / p->runtime,
	       mpi = mpi_balance * mpi_communication;
	p->basis = (struct scaling_basis){.known = true,
					  .units = (uint32_t)threads,
					  .ranks = (uint32_t)p->n_windows,
					  .useful_ns = sum,
					  .most_ns = most,
					  .run_ns = p->runtime,
					  .of_interest = p->window.regions,
					  .serialisation = -1,
					  .transfer = -1};
	if (p->n_windows < 2) /* one rank's: said by nobody (ranks_pop_say) */
		return;
	char more[160];
	fprintf(out,
		"%shybrid efficiency of ranks %" PRId32 " to %" PRId32
		" from %s%s (%zu threads; MPI's by rank: load balance of each rank's busiest "
		"thread, communication its time not lost to MPI; OpenMP's = hybrid / MPI): "
		"parallel efficiency %.3f = MPI %.3f x OpenMP %.3f; load balance %.3f = MPI %.3f x "
		"OpenMP %.3f; communication efficiency %.3f = MPI %.3f x OpenMP %.3f; useful time "
		"per thread %.3f s on average, %.3f s at most, of %.3f s\n",
		lead, p->first_number, p->last_number, ranks_window_words(&p->window),
		ranks_window_more_words(&p->window, more, sizeof more), threads,
		balance * communication, mpi, balance * communication / mpi, balance, mpi_balance,
		balance / mpi_balance, communication, mpi_communication,
		communication / mpi_communication, mean / 1e9, most / 1e9, p->runtime / 1e9);
}
