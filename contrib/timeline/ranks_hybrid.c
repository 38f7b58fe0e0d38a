// SPDX-License-Identifier: MIT
/*
 * The hybrid efficiencies of an MPI + OpenMP job (POP's multiplicative model, as OTF-CPT prints
 * it): every thread of every rank, its useful time its task polls outside MPI calls, in its
 * rank's window (what ranks_pop_say found); each factor is MPI's times OpenMP's, OpenMP's the
 * hybrid one over MPI's. MPI's are the ranks': a rank's balance is its busiest thread's useful
 * time (OTF-CPT's), its communication its time not lost in MPI (window_change). Each is at least
 * what it splits, so no OpenMP factor exceeds 1: counted on the MPI threads alone (ranks_pop_say's
 * line), a rank whose MPI thread waits in a receive while its other threads compute read as
 * idle, and OpenMP's load balance as 1.39 (a rank's thread for communication beside computing
 * ones: its communication 10).
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

/* `b`'s useful time up to `ns`: polling and outside MPI calls, in its rank's window. */
static void busy_count(const struct ranks_pop *p, struct busy *b, double ns)
{
	const struct window *w = &p->windows[b->rank];
	if (b->polls > 0 && !b->in_mpi)
		b->useful += overlap((double)b->since, ns, w->on, w->off);
	b->since = ns > 0 ? (uint64_t)ns : 0;
}

/* Whether `b` computes: polls a task outside MPI calls. */
static bool busy_computing(const struct busy *b)
{
	return b->polls > 0 && !b->in_mpi;
}

/*
 * `w`'s rank's time lost to MPI counted up to `ns`, then `in_mpi` and `computing` threads more
 * (or fewer) from there. Lost while a thread is in MPI and none computes: a thread waiting in a
 * receive while another computes loses the rank nothing, nor does one idle at an OpenMP barrier
 * or in a wait of its own while none is in MPI; one idle at a barrier while another is in MPI
 * waits for MPI.
 */
static void window_change(struct window *w, uint64_t ns, int in_mpi, int computing)
{
	if (w->in_mpi > 0 && w->computing == 0)
		w->lost_to_mpi += overlap((double)w->since, (double)ns, w->on, w->off);
	w->since = ns;
	w->in_mpi = (uint32_t)((int)w->in_mpi + in_mpi);
	w->computing = (uint32_t)((int)w->computing + computing);
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
	if (b->in_mpi != was_in_mpi || busy_computing(b) != was_computing)
		window_change(w, ns, (int)b->in_mpi - (int)was_in_mpi,
			      (int)busy_computing(b) - (int)was_computing);
	return true;
}

/* Each rank's busiest thread's useful time (`busiest`) and its time not lost in MPI (`not_in_mpi`)
 * at the end of its window; false if it has no thread that polled (no OpenMP there). */
static bool rank_figures(struct ranks_pop *p, size_t rank, double *busiest, double *not_in_mpi)
{
	struct window *w = &p->windows[rank];
	*busiest = 0;
	bool polled = false;
	for (size_t i = 0; i < p->busy.size; i++) {
		const struct busy *b = table_slot(&p->busy, i);
		if (table_used(&p->busy, i) && b->polled && b->rank == rank) {
			polled = true;
			*busiest = b->useful > *busiest ? b->useful : *busiest;
		}
	}
	window_change(w, w->off > 0 ? (uint64_t)w->off : 0, 0, 0); /* up to the window's end */
	*not_in_mpi = w->off - w->on - w->lost_to_mpi;
	*not_in_mpi = *not_in_mpi > *busiest ? *not_in_mpi : *busiest;
	return polled;
}

void ranks_pop_say_hybrid(struct ranks_pop *p, FILE *errors, FILE *figures)
{
	const char *lead;
	FILE *out = ranks_pop_figures(errors, figures, &lead);
	if (p->busy_full) /* the threads not all counted: no basis of theirs either */
		p->basis.known = false;
	if (out == NULL || p->windows == NULL || p->busy_full)
		return;
	double sum = 0, most = 0;
	size_t threads = 0;
	bool openmp = false;
	for (size_t i = 0; i < p->busy.size; i++) {
		struct busy *b = table_slot(&p->busy, i);
		if (!table_used(&p->busy, i) || !b->polled)
			continue;
		busy_count(p, b, p->windows[b->rank].off); /* a poll open at the end */
		sum += b->useful;
		most = b->useful > most ? b->useful : most;
		threads++;
		openmp = true;
	}
	/* the ranks': a rank whose MPI thread never polled (no OpenMP there) has its time outside
	 * MPI as its computation, on one thread */
	double ranks_sum = 0, ranks_most = 0, not_in_mpi_most = 0;
	for (size_t r = 0; openmp && r < p->n_windows; r++) {
		double busiest, not_in_mpi;
		if (!rank_figures(p, r, &busiest, &not_in_mpi)) {
			busiest = not_in_mpi = p->windows[r].outside_mpi;
			sum += busiest;
			most = busiest > most ? busiest : most;
			threads++;
		}
		ranks_sum += busiest;
		ranks_most = busiest > ranks_most ? busiest : ranks_most;
		not_in_mpi_most = not_in_mpi > not_in_mpi_most ? not_in_mpi : not_in_mpi_most;
	}
	if (!openmp || most <= 0 || p->runtime <= 0)
		return;
	double mean = sum / (double)threads, balance = mean / most,
	       communication = most / p->runtime,
	       mpi_balance = ranks_sum / (double)p->n_windows / ranks_most,
	       mpi_communication = not_in_mpi_most / p->runtime,
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
		" from %s%s (%zu threads; MPI's of the ranks: a rank's balance its busiest "
		"thread's, its communication its time not lost in MPI; OpenMP's = hybrid / MPI): "
		"parallel efficiency %.3f = MPI %.3f x OpenMP %.3f; load balance %.3f = MPI %.3f x "
		"OpenMP %.3f; communication efficiency %.3f = MPI %.3f x OpenMP %.3f; useful time "
		"per thread %.3f s on average, %.3f s at most, of %.3f s\n",
		lead, p->first_number, p->last_number, ranks_window_words(&p->window),
		ranks_window_more_words(&p->window, more, sizeof more), threads,
		balance * communication, mpi, balance * communication / mpi, balance, mpi_balance,
		balance / mpi_balance, communication, mpi_communication,
		communication / mpi_communication, mean / 1e9, most / 1e9, p->runtime / 1e9);
}
