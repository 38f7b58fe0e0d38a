// SPDX-License-Identifier: MIT
/*
 * The POP efficiencies across MPI ranks: see ranks_pop.h.
 *
 * Each rank's MPI thread is a sequence of operations between its MPI_Init and its MPI_Finalize:
 * bursts of computation (the time between MPI calls), sends, receives and collectives. The
 * ideal network's run replays them: a rank's clock advances by its bursts; a receive waits for
 * its send (the n-th send from a to b with a tag is the n-th such receive), a collective for
 * what it needs (the k-th collective of each rank on a communicator is one, ranks_collectives.c,
 * its ranks told apart by the communicator's identity and size, mpi-collective's; without them,
 * in a recording before version 13, every collective is MPI_COMM_WORLD's; a job whose
 * collectives do not pair up so gets no ideal run): ranks_replay.c.
 */
#define _GNU_SOURCE
#include "ranks_pop.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ranks_pop_private.h"
#include "table.h"
#include "taskprobe_contract.h"
#include "taskprobe_live.h" /* enum tp_roi_marker */

/* What is kept, at most (under the converter's bound, with its others): operations 48 bytes
 * each, and about as much again while they are replayed; threads whose mpi-init was seen. */
#define MAX_OPS (1u << 19)

/* A thread whose mpi-init was seen: its operations are those after it. */
struct thread {
	uint32_t segment, tid;
	uint64_t last_end; /* the end of its last MPI call (its clock) */
	/* its region of interest (MPI_Pcontrol, omp_control_tool): its first start, its last stop
	 * (0: none), the calls that marked it (bit 1 << enum tp_roi_marker of each), its starts,
	 * and whether it is open (its last mark a start: it ends at MPI_Finalize's, tp_roi_step) */
	uint64_t region_on, region_off;
	unsigned region_markers;
	uint32_t region_starts;
	bool region_open;
	int32_t root; /* of the call it is in (its wait-start's timeout argument) */
	/* the communicator of the collective it is in (its mpi-collective's), 0 not told; the
	 * blocking collective told right before its wait (call 0: none) */
	uint64_t communicator, told_communicator;
	uint32_t members, told_members, told_call;
	bool in_call, ended;
};

static uint64_t thread_hash(const void *context, const void *slot)
{
	const struct thread *th =
		&((const struct ranks_pop *)context)->threads[*(const uint32_t *)slot - 1];
	return thread_key_hash(th->segment, th->tid);
}

/* The slot of thread (segment, tid), or the free one where it would go. */
static size_t thread_slot(const struct ranks_pop *p, uint32_t segment, uint32_t tid)
{
	const struct table *x = &p->slots;
	size_t i = table_home(x, thread_key_hash(segment, tid));
	for (; table_used(x, i); i = table_next(x, i)) {
		const struct thread *th = &p->threads[*(const uint32_t *)table_slot(x, i) - 1];
		if (th->segment == segment && th->tid == tid)
			break;
	}
	return i;
}

/* The index of thread (segment, tid), or SIZE_MAX when it is not known. */
static size_t thread_index(const struct ranks_pop *p, uint32_t segment, uint32_t tid)
{
	if (p->slots.size == 0)
		return SIZE_MAX;
	size_t i = thread_slot(p, segment, tid);
	return table_used(&p->slots, i) ? *(const uint32_t *)table_slot(&p->slots, i) - 1
					: SIZE_MAX;
}

struct ranks_pop *ranks_pop_new(void)
{
	struct ranks_pop *p = calloc(1, sizeof(struct ranks_pop));
	if (p != NULL)
		table_init(&p->slots, sizeof(uint32_t), sizeof(uint32_t), 2 * MAX_THREADS,
			   thread_hash, p);
	if (p != NULL)
		table_init(&p->busy, sizeof(struct busy), sizeof(uint64_t), 64, ranks_busy_hash,
			   NULL);
	return p;
}

void ranks_pop_free(struct ranks_pop *p)
{
	if (p == NULL)
		return;
	free(p->ops);
	free(p->threads);
	table_free(&p->slots);
	free(p->windows);
	table_free(&p->busy);
	free(p);
}

static bool push(struct ranks_pop *p, struct op op)
{
	if (p->n_ops == MAX_OPS) {
		p->full = true;
		return true;
	}
	if (p->n_ops == p->cap_ops) {
		size_t cap = p->cap_ops ? 2 * p->cap_ops : 1024;
		struct op *ops = realloc(p->ops, cap * sizeof *ops);
		if (ops == NULL)
			return false;
		p->ops = ops;
		p->cap_ops = cap;
	}
	p->ops[p->n_ops++] = op;
	return true;
}

/* Thread `th` (of index t) does something at `time` outside every MPI call: its burst ends there
 * (nothing inside a call). False when out of memory. */
static bool burst_ends(struct ranks_pop *p, struct thread *th, size_t t, uint64_t time)
{
	if (th->in_call)
		return true;
	if (!push(p, (struct op){.type = OP_BURST,
				 .start = th->last_end,
				 .end = time,
				 .thread = (uint32_t)t}))
		return false;
	th->last_end = time;
	return true;
}

/* A root as the records carry it (an MPI_COMM_WORLD rank, or -1). */
static int32_t root_of(uint64_t arg)
{
	return (int64_t)arg >= 0 && arg <= INT32_MAX ? (int32_t)arg : -1;
}

bool ranks_pop_note(struct ranks_pop *p, uint32_t segment, uint32_t tid, uint64_t time,
		    const struct tp_record *rec)
{
	unsigned type = tp_record_type(rec->word);
	/* its slots at once: MAX_THREADS threads keep it half full */
	if (p->slots.size == 0 && !table_grow(&p->slots))
		return false;
	size_t t = thread_index(p, segment, tid);
	t = t != SIZE_MAX ? t : p->n_threads;
	if (type == TP_RECORD_MPI_INIT) {
		if (t < p->n_threads || p->n_threads == MAX_THREADS)
			return true;
		if ((p->n_threads & (p->n_threads - 1)) == 0) { /* grown at 0 and powers of two */
			struct thread *grown = realloc(
				p->threads, (p->n_threads ? 2 * p->n_threads : 1) * sizeof *grown);
			if (grown == NULL)
				return false;
			p->threads = grown;
		}
		p->threads[p->n_threads++] = (struct thread){
			.segment = segment, .tid = tid, .last_end = time};
		*(uint32_t *)table_fill(&p->slots,
					thread_slot(p, segment, tid)) = (uint32_t)p->n_threads;
		return true;
	}
	if (t == p->n_threads || p->threads[t].ended)
		return true;
	struct thread *th = &p->threads[t];
	struct op op = {.start = time, .end = time, .thread = (uint32_t)t};
	if (type == TP_RECORD_REGION_OF_INTEREST) {
		if (tp_record_small(rec->word) != 0 && tp_record_small(rec->word) >> 1 < 32)
			th->region_markers |= 1u << (tp_record_small(rec->word) >> 1);
		if (tp_record_small(rec->word) != 0) {
			th->region_on = th->region_on == 0 ? time : th->region_on;
			th->region_starts += !th->region_open;
			th->region_open = true;
		} else if (th->region_on != 0) {
			th->region_off = time;
			th->region_open = false;
		}
		return true;
	}
	if (type == TP_RECORD_WAIT_START && tp_record_small(rec->word) == TP_WAIT_MPI) {
		/* the burst before the call; MPI_Finalize's start ends the thread's operations */
		if (!push(p, (struct op){.type = OP_BURST,
					 .start = th->last_end,
					 .end = time,
					 .thread = (uint32_t)t}))
			return false;
		th->in_call = true;
		th->root = root_of(rec->arg[1]);
		bool told = th->told_call != 0 && th->told_call == rec->arg[0];
		th->communicator = told ? th->told_communicator : 0;
		th->members = told ? th->told_members : 0;
		th->told_call = 0;
		if (rec->arg[0] == TP_MPI_CALL_FINALIZE) {
			th->ended = true;
			op.type = OP_END;
			return push(p, op);
		}
		return true;
	}
	if (type == TP_RECORD_WAIT_END && tp_record_small(rec->word) == TP_WAIT_MPI) {
		th->in_call = false;
		th->last_end = time;
		if (!tp_mpi_call_collective(rec->arg[0]))
			return true;
		op.type = OP_COLLECTIVE;
		op.peer = th->root;
		op.tag = (int32_t)rec->arg[0];
		op.communicator = th->communicator;
		op.members = th->members;
		return push(p, op);
	}
	if (type == TP_RECORD_MPI_COLLECTIVE && tp_mpi_call_nonblocking_collective(rec->arg[0])) {
		/* a nonblocking one's start, outside every call (a burst ends there), or its
		 * completion, in the wait or test that completed it */
		if (!burst_ends(p, th, t, time))
			return false;
		op.type = th->in_call ? OP_COLLECTIVE_DONE : OP_COLLECTIVE_START;
		op.tag = (int32_t)rec->arg[0];
		op.peer = root_of(rec->arg[1]);
		op.communicator = rec->arg[2];
		op.members = rec->arg[3] <= INT32_MAX ? (uint32_t)rec->arg[3] : 0;
		return push(p, op);
	}
	if (type == TP_RECORD_MPI_COLLECTIVE) {
		/* a blocking collective's communicator, right before its wait */
		if (!th->in_call && rec->arg[3] > 0 && rec->arg[3] <= INT32_MAX &&
		    tp_mpi_call_collective(rec->arg[0])) {
			th->told_call = (uint32_t)rec->arg[0];
			th->told_communicator = rec->arg[2];
			th->told_members = (uint32_t)rec->arg[3];
		}
		return true;
	}
	if (type == TP_RECORD_MPI_SEND || type == TP_RECORD_MPI_RECV) {
		/* a nonblocking send outside every call: a burst ends there too */
		if (!burst_ends(p, th, t, time))
			return false;
		op.type = type == TP_RECORD_MPI_SEND ? OP_SEND : OP_RECV;
		op.peer = (int32_t)rec->arg[0];
		op.tag = (int32_t)rec->arg[1];
		op.communicator = tp_record_mpi_communicator(tp_record_small(rec->word), rec->arg);
		return push(p, op);
	}
	return true;
}

/* A receive's op gets its send's (as `order`, each end's place among the ops). */
static void op_sent_by(void *sender, const struct ranks_message_end *send,
		       const struct ranks_message_end *receive)
{
	((size_t *)sender)[receive->order] = send->order;
}

/* The index of `rank`'s thread (its mpi-init made it), or SIZE_MAX past MAX_THREADS. */
static size_t thread_of_rank(const struct ranks_pop *p, const struct ranks_pop_rank *rank)
{
	return thread_index(p, rank->segment, rank->tid);
}

/* Ranks by their thread (segment, tid), for finding a thread's rank. */
static int by_thread(const void *a, const void *b)
{
	const struct ranks_pop_rank *x = a, *y = b;
	if (x->segment != y->segment)
		return x->segment < y->segment ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* ranks_pop_say's work: the operations by rank, each rank's window, useful time and messages. */
struct say {
	size_t *first, *end;    /* rank r's operations: [first[r], end[r]) */
	size_t *sender;         /* a receive's send (op_sent_by), or SIZE_MAX */
	double *burst, *useful; /* an operation's burst in the window; a rank's bursts */
	struct ranks_message_end *sends, *receives;
	uint32_t *rank_of_thread;
	struct ranks_pop_rank *by_threads;
	struct op *sorted;
	bool *ended;                      /* the rank reached MPI_Finalize */
	uint64_t *window_on, *window_off; /* its window (its clock's) */
	struct ranks_window window;
	double start, finish; /* the windows, together (ns) */
};

const char *ranks_window_words(const struct ranks_window *w)
{
	if (!w->regions)
		return "MPI_Init to MPI_Finalize";
	if (w->markers == 1u << TP_ROI_BY_OMP_CONTROL_TOOL)
		return "omp_control_tool's start to its stop";
	if (w->markers == (1u << TP_ROI_BY_OMP_CONTROL_TOOL | 1u << TP_ROI_BY_MPI_PCONTROL))
		return "the regions of interest (MPI_Pcontrol and omp_control_tool)";
	return "MPI_Pcontrol(1) to MPI_Pcontrol(0)";
}

const char *ranks_window_more_words(const struct ranks_window *w, char *buf, size_t size)
{
	if (!w->regions && w->unmarked == 1)
		snprintf(buf, size, " (not the regions of interest: rank %" PRId32 " marked none)",
			 w->first_unmarked);
	else if (!w->regions && w->unmarked > 1)
		snprintf(buf, size,
			 " (not the regions of interest: ranks %" PRId32 " and %" PRIu32
			 " more marked none)",
			 w->first_unmarked, w->unmarked - 1);
	else if (w->regions && w->pairs_apart && w->left_open)
		snprintf(buf, size, "%s",
			 ", each rank's from its first start to its last stop (MPI_Finalize for a "
			 "region left open), the time between its regions included");
	else if (w->regions && w->pairs_apart)
		snprintf(
			buf, size, "%s",
			", each rank's from its first start to its last stop, the time between its "
			"regions included");
	else
		snprintf(buf, size, "%s",
			 w->regions && w->left_open ? " (MPI_Finalize for a region left open)"
						    : "");
	return buf;
}

static void say_free(struct say *w)
{
	free(w->first);
	free(w->end);
	free(w->sender);
	free(w->burst);
	free(w->useful);
	free(w->sends);
	free(w->receives);
	free(w->rank_of_thread);
	free(w->by_threads);
	free(w->sorted);
	free(w->ended);
	free(w->window_on);
	free(w->window_off);
}

/* ranks_pop_say's work for `n` ranks; false when out of memory. */
static bool say_new(struct say *w, const struct ranks_pop *p, size_t n)
{
	*w = (struct say){.first = calloc(n + 1, sizeof *w->first),
			  .end = calloc(n + 1, sizeof *w->end),
			  .sender = calloc(p->n_ops + 1, sizeof *w->sender),
			  .burst = calloc(p->n_ops + 1, sizeof *w->burst),
			  .useful = calloc(n, sizeof *w->useful),
			  .sends = calloc(p->n_ops + 1, sizeof *w->sends),
			  .receives = calloc(p->n_ops + 1, sizeof *w->receives),
			  .rank_of_thread = calloc(p->n_threads + 1, sizeof *w->rank_of_thread),
			  .by_threads = calloc(n, sizeof *w->by_threads),
			  .sorted = calloc(p->n_ops + 1, sizeof *w->sorted),
			  .ended = calloc(n, sizeof *w->ended),
			  .window_on = calloc(n, sizeof *w->window_on),
			  .window_off = calloc(n, sizeof *w->window_off)};
	return w->first != NULL && w->end != NULL && w->sender != NULL && w->burst != NULL &&
	       w->useful != NULL && w->sends != NULL && w->receives != NULL &&
	       w->rank_of_thread != NULL && w->by_threads != NULL && w->sorted != NULL &&
	       w->ended != NULL && w->window_on != NULL && w->window_off != NULL;
}

/* The operations by rank (w->sorted), each thread's in its order (chunks of threads
 * interleave): counted, then placed. */
static void say_ops_by_rank(struct say *w, const struct ranks_pop *p,
			    const struct ranks_pop_rank *ranks, size_t n)
{
	/* each thread's rank (its index in `ranks`), or none */
	for (size_t r = 0; r < n; r++) {
		w->by_threads[r] = ranks[r];
		w->by_threads[r].number = (int32_t)r; /* the index, kept through the sort */
	}
	qsort(w->by_threads, n, sizeof *w->by_threads, by_thread);
	for (size_t t = 0; t < p->n_threads; t++) {
		struct ranks_pop_rank key = {.segment = p->threads[t].segment,
					     .tid = p->threads[t].tid};
		const struct ranks_pop_rank *found = bsearch(&key, w->by_threads, n,
							     sizeof *w->by_threads, by_thread);
		w->rank_of_thread[t] = found != NULL ? (uint32_t)found->number : UINT32_MAX;
	}
	for (size_t i = 0; i < p->n_ops; i++) {
		uint32_t r = w->rank_of_thread[p->ops[i].thread];
		if (r != UINT32_MAX)
			w->end[r]++;
	}
	for (size_t r = 0, k = 0; r < n; r++) {
		w->first[r] = k;
		k += w->end[r];
		w->end[r] = w->first[r];
	}
	for (size_t i = 0; i < p->n_ops; i++) {
		uint32_t r = w->rank_of_thread[p->ops[i].thread];
		if (r != UINT32_MAX) {
			w->ended[r] |= p->ops[i].type == OP_END;
			w->sorted[w->end[r]++] = p->ops[i];
		}
	}
}

/* Each rank's window: its region of interest when every rank marked one (from its first start
 * to its last stop, or MPI_Finalize's start for one left open), else from MPI_Init's end to
 * MPI_Finalize's start. False when a rank has none (it never reached MPI_Finalize). */
static bool say_windows(struct say *w, const struct ranks_pop *p,
			const struct ranks_pop_rank *ranks, size_t n,
			uint64_t (*to_ns)(const void *context, uint32_t segment, uint64_t time),
			const void *context)
{
	struct ranks_window *win = &w->window;
	win->regions = true;
	uint32_t marked = 0;
	for (size_t r = 0; r < n; r++) {
		if (thread_of_rank(p, &ranks[r]) == SIZE_MAX)
			return false;
		const struct thread *th = &p->threads[thread_of_rank(p, &ranks[r])];
		win->regions &= th->region_on != 0 &&
				(th->region_open || th->region_off > th->region_on);
		win->markers |= th->region_markers;
		win->pairs_apart |= th->region_starts > 1;
		win->left_open |= th->region_open;
		marked += th->region_on != 0;
		if (th->region_on == 0 && win->unmarked++ == 0)
			win->first_unmarked = ranks[r].number;
	}
	if (marked == 0)
		win->unmarked = 0;
	w->start = 1e300;
	w->finish = 0;
	for (size_t r = 0; r < n; r++) {
		if (!w->ended[r] || w->end[r] == w->first[r])
			return false;
		const struct thread *th = &p->threads[thread_of_rank(p, &ranks[r])];
		uint64_t finalize = w->sorted[w->end[r] - 1].start;
		w->window_on[r] = win->regions ? th->region_on : w->sorted[w->first[r]].start;
		w->window_off[r] = win->regions && !th->region_open ? th->region_off : finalize;
		double from = (double)to_ns(context, ranks[r].segment, w->window_on[r]) +
			      (double)ranks[r].offset,
		       to = (double)to_ns(context, ranks[r].segment, w->window_off[r]) +
			    (double)ranks[r].offset;
		w->start = from < w->start ? from : w->start;
		w->finish = to > w->finish ? to : w->finish;
	}
	return true;
}

/* Each rank's bursts within its window (w->burst, w->useful), and its messages paired. */
static void say_bursts_and_messages(struct say *w, const struct ranks_pop *p,
				    const struct ranks_pop_rank *ranks, size_t n,
				    uint64_t (*to_ns)(const void *context, uint32_t segment,
						      uint64_t time),
				    const void *context)
{
	size_t n_sends = 0, n_receives = 0;
	for (size_t r = 0; r < n; r++)
		for (size_t i = w->first[r]; i < w->end[r]; i++) {
			const struct op *op = &p->ops[i];
			w->sender[i] = SIZE_MAX;
			if (op->type == OP_BURST) {
				/* within the rank's window only */
				uint64_t from = op->start > w->window_on[r] ? op->start
									    : w->window_on[r],
					 to = op->end < w->window_off[r] ? op->end
									 : w->window_off[r];
				w->burst[i] = to <= from ? 0
							 : (double)to_ns(context, ranks[r].segment,
									 to) -
								   (double)to_ns(context,
										 ranks[r].segment,
										 from);
				if (w->burst[i] < 0)
					w->burst[i] = 0;
				w->useful[r] += w->burst[i];
			} else if (op->type == OP_SEND) {
				w->sends[n_sends++] = (struct ranks_message_end){
					ranks[r].number, op->peer, op->tag, op->communicator, i};
			} else if (op->type == OP_RECV) {
				w->receives[n_receives++] = (struct ranks_message_end){
					op->peer, ranks[r].number, op->tag, op->communicator, i};
			}
		}
	ranks_message_ends_sort(w->sends, n_sends);
	ranks_message_ends_sort(w->receives, n_receives);
	ranks_messages_pair(w->sends, n_sends, w->receives, n_receives, op_sent_by, w->sender);
}

size_t ranks_pop_causality(struct ranks_pop *p, struct ranks_pop_rank *ranks, size_t n,
			   uint64_t (*to_ns)(const void *context, uint32_t segment, uint64_t time),
			   const void *context)
{
	if (p->full || n < 2)
		return 0;
	struct say w;
	size_t moved = 0;
	if (say_new(&w, p, n)) {
		say_ops_by_rank(&w, p, ranks, n);
		moved = ranks_causality(w.sorted, w.end[n - 1], ranks, n, w.first, w.end, to_ns,
					context);
	}
	say_free(&w);
	return moved;
}

void ranks_pop_say(struct ranks_pop *p, const struct ranks_pop_rank *ranks, size_t n,
		   uint64_t (*to_ns)(const void *context, uint32_t segment, uint64_t time),
		   const void *context, FILE *errors, FILE *figures)
{
	const char *lead;
	FILE *out = ranks_pop_figures(errors, figures, &lead);
	/* one rank's efficiencies are said by nobody, and kept for a comparison of runs */
	if (out == NULL || n < 1)
		return;
	if (p->full) {
		if (n < 2)
			return;
		fprintf(out,
			"%smore than %u MPI calls and messages: the ranks' efficiencies are not "
			"told\n",
			lead, MAX_OPS);
		return;
	}
	struct say w;
	if (!say_new(&w, p, n))
		goto out;
	say_ops_by_rank(&w, p, ranks, n);
	if (!say_windows(&w, p, ranks, n, to_ns, context))
		goto out;
	free(p->ops);
	p->ops = w.sorted;
	w.sorted = NULL;
	p->n_ops = w.end[n - 1];
	say_bursts_and_messages(&w, p, ranks, n, to_ns, context);
	double runtime = w.finish - w.start, most = 0, least = 1e300, sum = 0;
	for (size_t r = 0; r < n; r++) {
		most = w.useful[r] > most ? w.useful[r] : most;
		least = w.useful[r] < least ? w.useful[r] : least;
		sum += w.useful[r];
	}
	if (runtime <= 0 || most <= 0)
		goto out;
	double balance = sum / (double)n / most, communication = most / runtime;
	free(p->windows);
	if ((p->windows = calloc(n, sizeof *p->windows)) != NULL) {
		p->n_windows = n;
		for (size_t r = 0; r < n; r++)
			p->windows[r] = (struct window){
				.on = (double)to_ns(context, ranks[r].segment, w.window_on[r]) +
				      (double)ranks[r].offset,
				.off = (double)to_ns(context, ranks[r].segment, w.window_off[r]) +
				       (double)ranks[r].offset,
				.outside_mpi = w.useful[r]};
		p->first_number = ranks[0].number;
		p->last_number = ranks[n - 1].number;
		p->window = w.window;
		p->runtime = runtime;
	}
	double ideal = ranks_ideal_run(p, ranks, n, w.first, w.end, w.burst, w.sender);
	bool paired = ideal > 0 && ideal <= runtime * 1.000001;
	p->basis = (struct scaling_basis){
		.known = true,
		.units = (uint32_t)n,
		.ranks = (uint32_t)n,
		.useful_ns = sum,
		.most_ns = most,
		.run_ns = runtime,
		.of_interest = w.window.regions,
		.serialisation = paired ? (most / ideal > 1 ? 1 : most / ideal) : -1,
		.transfer = paired ? ideal / runtime : -1};
	if (n < 2)
		goto out;
	char more[160];
	fprintf(out,
		"%sMPI efficiency of ranks %" PRId32 " to %" PRId32
		" from %s%s (their MPI threads): parallel efficiency %.3f = load balance %.3f x "
		"communication efficiency %.3f",
		lead, ranks[0].number, ranks[n - 1].number, ranks_window_words(&w.window),
		ranks_window_more_words(&w.window, more, sizeof more), balance * communication,
		balance, communication);
	if (paired)
		fprintf(out, " (serialisation efficiency %.3f x transfer efficiency %.3f)",
			p->basis.serialisation, p->basis.transfer);
	else if (ideal > 0)
		fputs(" (its serialisation and transfer not told: the ranks' calls replayed on an "
		      "ideal network took longer than the run did)",
		      out);
	else
		fputs(" (its serialisation and transfer not told: the ranks' messages or "
		      "collectives do not pair up)",
		      out);
	fprintf(out, "; useful time per rank %.3f to %.3f s of %.3f s\n", least / 1e9, most / 1e9,
		runtime / 1e9);
out:
	say_free(&w);
}

void ranks_pop_basis(const struct ranks_pop *p, struct scaling_basis *basis)
{
	*basis = p->basis;
}
