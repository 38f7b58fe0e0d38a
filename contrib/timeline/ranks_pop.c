// SPDX-License-Identifier: MIT
/*
 * The POP efficiencies across MPI ranks: see ranks_pop.h.
 *
 * Each rank's MPI thread is a sequence of operations between its MPI_Init and its MPI_Finalize:
 * bursts of computation (the time between MPI calls), sends, receives and collectives. The
 * ideal network's run replays them: a rank's clock advances by its bursts; a receive waits for
 * its send (the n-th send from a to b with a tag is the n-th such receive), a collective for
 * what it needs (the k-th collective of each rank is one: a job whose ranks made different
 * numbers of collectives, on communicators of their own, gets no ideal run): every rank waits for
 * every other, but in a rooted one whose root the adapter told (OTF-CPT's model) a broadcast's
 * or scatter's ranks wait for the root alone, a reduction's or gather's root for the others and
 * the others for nobody; messages and collectives cost nothing.
 */
#define _GNU_SOURCE
#include "ranks_pop.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "taskprobe_contract.h"

/* What is kept, at most (under the converter's bound, with its others): operations 40 bytes
 * each, and about as much again while they are replayed; threads whose mpi-init was seen. */
#define MAX_OPS     (1u << 19)
#define MAX_THREADS (1u << 16)

enum op_type { OP_BURST, OP_SEND, OP_RECV, OP_COLLECTIVE, OP_END };

/* An operation of a thread: a burst from `start` to `end` (its clock's), or a message or a
 * collective at `start` (a collective's peer: its root, -1 when none is told; its tag: its
 * call). */
struct op {
	uint64_t start, end;
	uint32_t thread; /* its thread's index */
	int32_t peer, tag;
	uint8_t type;
};

/* A thread whose mpi-init was seen: its operations are those after it. */
struct thread {
	uint32_t segment, tid;
	uint64_t last_end; /* the end of its last MPI call (its clock) */
	/* its region of interest (MPI_Pcontrol): its first start, its last stop (0: none) */
	uint64_t region_on, region_off;
	int32_t root; /* of the call it is in (its wait-start's timeout argument) */
	bool in_call, ended;
};

/* A rank's window in the merged clock, and its MPI thread's time outside MPI calls in it. */
struct window {
	double on, off, outside_mpi;
};

/* A thread of a rank, for the hybrid efficiencies: its useful time so far (polling, outside
 * MPI calls), counted up to `since` (the merged clock's). */
struct busy {
	uint32_t rank, tid;
	uint32_t polls; /* open */
	bool used, in_mpi, polled;
	uint64_t since;
	double useful;
};

struct ranks_pop {
	struct op *ops;
	size_t n_ops, cap_ops;
	struct thread *threads;
	size_t n_threads;
	uint32_t *slots; /* the threads by (segment, tid): 1 + an index, 0 free */
	size_t n_slots;  /* a power of two, twice MAX_THREADS */
	bool full;
	/* what ranks_pop_say found, for the hybrid efficiencies (windows NULL: nothing) */
	struct window *windows;
	size_t n_windows;
	int32_t first_number, last_number;
	bool regions;
	double runtime, mpi_balance, mpi_communication;
	/* the ranks' threads by (rank, tid): open-addressed, grown at half, a power of two */
	struct busy *busy;
	size_t n_busy, cap_busy;
	bool busy_full;
};

struct ranks_pop *ranks_pop_new(void)
{
	return calloc(1, sizeof(struct ranks_pop));
}

void ranks_pop_free(struct ranks_pop *p)
{
	if (p == NULL)
		return;
	free(p->ops);
	free(p->threads);
	free(p->slots);
	free(p->windows);
	free(p->busy);
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

/* The collectives among the MPI calls: every rank of the communicator takes part. */
static bool collective(uint64_t call)
{
	return call >= TP_MPI_CALL_BARRIER && call <= TP_MPI_CALL_EXSCAN;
}

/* What a collective waits for: every rank for every other, the others for its root (one to
 * all), or its root for the others (all to one). */
enum flow { ALL_TO_ALL, ONE_TO_ALL, ALL_TO_ONE };

static enum flow flow_of(int32_t call)
{
	switch (call) {
	case TP_MPI_CALL_BCAST:
	case TP_MPI_CALL_SCATTER:
	case TP_MPI_CALL_SCATTERV:
		return ONE_TO_ALL;
	case TP_MPI_CALL_REDUCE:
	case TP_MPI_CALL_GATHER:
	case TP_MPI_CALL_GATHERV:
		return ALL_TO_ONE;
	default:
		return ALL_TO_ALL;
	}
}

bool ranks_pop_note(struct ranks_pop *p, uint32_t segment, uint32_t tid, uint64_t time,
		    const struct tp_record *rec)
{
	unsigned type = tp_record_type(rec->word);
	if (p->slots == NULL) {
		p->n_slots = 2 * MAX_THREADS;
		if ((p->slots = calloc(p->n_slots, sizeof *p->slots)) == NULL)
			return false;
	}
	size_t h = ((size_t)segment * 2654435761u ^ tid * 40503u) & (p->n_slots - 1);
	while (p->slots[h] != 0 && (p->threads[p->slots[h] - 1].segment != segment ||
				    p->threads[p->slots[h] - 1].tid != tid))
		h = (h + 1) & (p->n_slots - 1);
	size_t t = p->slots[h] != 0 ? p->slots[h] - 1 : p->n_threads;
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
		p->slots[h] = (uint32_t)p->n_threads;
		return true;
	}
	if (t == p->n_threads || p->threads[t].ended)
		return true;
	struct thread *th = &p->threads[t];
	struct op op = {.start = time, .end = time, .thread = (uint32_t)t};
	if (type == TP_RECORD_REGION_OF_INTEREST) {
		if (tp_record_small(rec->word) != 0 && th->region_on == 0)
			th->region_on = time;
		else if (tp_record_small(rec->word) == 0 && th->region_on != 0)
			th->region_off = time;
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
		th->root = (int64_t)rec->arg[1] >= 0 && rec->arg[1] <= INT32_MAX
				   ? (int32_t)rec->arg[1]
				   : -1;
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
		if (!collective(rec->arg[0]))
			return true;
		op.type = OP_COLLECTIVE;
		op.peer = th->root;
		op.tag = (int32_t)rec->arg[0];
		return push(p, op);
	}
	if (type == TP_RECORD_MPI_SEND || type == TP_RECORD_MPI_RECV) {
		/* a nonblocking send outside every call: a burst ends there too */
		if (!th->in_call) {
			if (!push(p, (struct op){.type = OP_BURST,
						 .start = th->last_end,
						 .end = time,
						 .thread = (uint32_t)t}))
				return false;
			th->last_end = time;
		}
		op.type = type == TP_RECORD_MPI_SEND ? OP_SEND : OP_RECV;
		op.peer = (int32_t)rec->arg[0];
		op.tag = (int32_t)rec->arg[1];
		return push(p, op);
	}
	return true;
}

/* The order of two ends' keys (from, to, tag). */
static int by_key(const struct ranks_message_end *x, const struct ranks_message_end *y)
{
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return (x->tag > y->tag) - (x->tag < y->tag);
}

static int by_key_then_order(const void *a, const void *b)
{
	const struct ranks_message_end *x = a, *y = b;
	int c = by_key(x, y);
	return c != 0 ? c : (x->order > y->order) - (x->order < y->order);
}

void ranks_message_ends_sort(struct ranks_message_end *ends, size_t n)
{
	qsort(ends, n, sizeof *ends, by_key_then_order);
}

void ranks_messages_pair(const struct ranks_message_end *sends, size_t n_sends,
			 const struct ranks_message_end *receives, size_t n_receives,
			 void (*pair)(void *context, const struct ranks_message_end *send,
				      const struct ranks_message_end *receive),
			 void *context)
{
	for (size_t i = 0, j = 0; i < n_sends && j < n_receives;) {
		int c = by_key(&sends[i], &receives[j]);
		if (c == 0)
			pair(context, &sends[i++], &receives[j++]);
		else if (c < 0)
			i++;
		else
			j++;
	}
}

/* A receive's op gets its send's (as `order`, each end's place among the ops). */
static void op_sent_by(void *sender, const struct ranks_message_end *send,
		       const struct ranks_message_end *receive)
{
	((size_t *)sender)[receive->order] = send->order;
}

/* The index of rank `number` among the `n` ranks (sorted by number), or SIZE_MAX. */
static size_t root_index(const struct ranks_pop_rank *ranks, size_t n, int32_t number)
{
	size_t low = 0, high = n;
	while (number >= 0 && low < high) {
		size_t mid = low + (high - low) / 2;
		if (ranks[mid].number == number)
			return mid;
		if (ranks[mid].number < number)
			low = mid + 1;
		else
			high = mid;
	}
	return SIZE_MAX;
}

/* A rank's place in the ideal run: where it is, its clock, and what it waits for. */
struct runner {
	size_t at, end;
	double clock;
	bool waiting; /* in the current collective */
	bool queued;
};

/*
 * The ideal network's run time (ns), or -1 when the replay cannot finish (a receive whose send
 * never comes, collectives that do not pair up). A worklist of the ranks that can go on: a rank
 * blocked on a receive goes on when its send is replayed, every rank in a collective when the
 * last reaches it. Each operation is replayed once, each collective releases every rank once.
 */
static double ideal_run(const struct ranks_pop *p, const struct ranks_pop_rank *ranks, size_t n,
			const size_t *first, const size_t *end, const double *burst,
			const size_t *sender)
{
	struct runner *run = calloc(n, sizeof *run);
	double *sent = calloc(p->n_ops + 1, sizeof *sent), result = -1, latest = 0;
	bool *replayed = calloc(p->n_ops + 1, sizeof *replayed);
	size_t *blocked_by = calloc(p->n_ops + 1, sizeof *blocked_by); /* send -> 1 + its rank */
	size_t *work = calloc(n + 1, sizeof *work), n_work = 0, arrived = 0;
	if (run == NULL || sent == NULL || replayed == NULL || blocked_by == NULL || work == NULL)
		goto out;
	for (size_t r = 0; r < n; r++) {
		run[r] = (struct runner){.at = first[r], .end = end[r], .queued = true};
		work[n_work++] = r;
	}
	while (n_work > 0) {
		size_t r = work[--n_work];
		struct runner *me = &run[r];
		me->queued = false;
		for (; me->at < me->end; me->at++) {
			const struct op *op = &p->ops[me->at];
			if (op->type == OP_BURST) {
				me->clock += burst[me->at];
			} else if (op->type == OP_SEND) {
				sent[me->at] = me->clock;
				replayed[me->at] = true;
				size_t waiter = blocked_by[me->at];
				if (waiter != 0 && !run[waiter - 1].queued) {
					run[waiter - 1].queued = true;
					work[n_work++] = waiter - 1;
				}
			} else if (op->type == OP_RECV && sender[me->at] != SIZE_MAX) {
				size_t s = sender[me->at];
				if (!replayed[s]) {
					blocked_by[s] = r + 1;
					break;
				}
				me->clock = sent[s] > me->clock ? sent[s] : me->clock;
			} else if (op->type == OP_COLLECTIVE) {
				/* ranks pass collectives in step: this is every rank's current one */
				if (!me->waiting) {
					me->waiting = true;
					latest = me->clock > latest ? me->clock : latest;
					arrived++;
				}
				if (arrived < n)
					break;
				/* the last to come releases them: a rooted one's ranks when what
				 * they wait for came (each rank's clock is its arrival's now) */
				size_t root = root_index(ranks, n, op->peer);
				enum flow flow = root == SIZE_MAX ? ALL_TO_ALL : flow_of(op->tag);
				double from_root = root != SIZE_MAX ? run[root].clock : 0;
				for (size_t q = 0; q < n; q++) {
					if (flow == ALL_TO_ALL || (flow == ALL_TO_ONE && q == root))
						run[q].clock = latest;
					else if (flow == ONE_TO_ALL && from_root > run[q].clock)
						run[q].clock = from_root;
					run[q].waiting = false;
					if (q != r) {
						run[q].at++;
						if (!run[q].queued) {
							run[q].queued = true;
							work[n_work++] = q;
						}
					}
				}
				arrived = 0;
				latest = 0;
			}
		}
	}
	result = 0;
	for (size_t r = 0; r < n; r++) {
		if (run[r].at < run[r].end) { /* blocked for good: the pairing failed */
			result = -1;
			break;
		}
		result = run[r].clock > result ? run[r].clock : result;
	}
out:
	free(run);
	free(sent);
	free(replayed);
	free(blocked_by);
	free(work);
	return result;
}

/* The index of `rank`'s thread (its mpi-init made it), or SIZE_MAX past MAX_THREADS. */
static size_t thread_of_rank(const struct ranks_pop *p, const struct ranks_pop_rank *rank)
{
	if (p->slots == NULL)
		return SIZE_MAX;
	size_t h = ((size_t)rank->segment * 2654435761u ^ rank->tid * 40503u) & (p->n_slots - 1);
	while (p->slots[h] != 0 && (p->threads[p->slots[h] - 1].segment != rank->segment ||
				    p->threads[p->slots[h] - 1].tid != rank->tid))
		h = (h + 1) & (p->n_slots - 1);
	return p->slots[h] != 0 ? p->slots[h] - 1 : SIZE_MAX;
}

/* Ranks by their thread (segment, tid), for finding a thread's rank. */
static int by_thread(const void *a, const void *b)
{
	const struct ranks_pop_rank *x = a, *y = b;
	if (x->segment != y->segment)
		return x->segment < y->segment ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

void ranks_pop_say(struct ranks_pop *p, const struct ranks_pop_rank *ranks, size_t n,
		   uint64_t (*to_ns)(const void *context, uint32_t segment, uint64_t time),
		   const void *context, FILE *errors)
{
	if (errors == NULL || n < 2)
		return;
	if (p->full) {
		fprintf(errors,
			"taskprobe-timeline: more than %u MPI calls and messages: the ranks' "
			"efficiencies are not told\n",
			MAX_OPS);
		return;
	}
	size_t *first = calloc(n + 1, sizeof *first), *end = calloc(n + 1, sizeof *end);
	size_t *sender = calloc(p->n_ops + 1, sizeof *sender);
	double *burst = calloc(p->n_ops + 1, sizeof *burst), *useful = calloc(n, sizeof *useful);
	struct ranks_message_end *sends = calloc(p->n_ops + 1, sizeof *sends),
				 *receives = calloc(p->n_ops + 1, sizeof *receives);
	uint32_t *rank_of_thread = calloc(p->n_threads + 1, sizeof *rank_of_thread);
	struct ranks_pop_rank *by_threads = calloc(n, sizeof *by_threads);
	struct op *sorted = calloc(p->n_ops + 1, sizeof *sorted);
	bool *ended = calloc(n, sizeof *ended);
	uint64_t *window_on = calloc(n, sizeof *window_on),
		 *window_off = calloc(n, sizeof *window_off);
	if (first == NULL || end == NULL || sender == NULL || burst == NULL || useful == NULL ||
	    sends == NULL || receives == NULL || rank_of_thread == NULL || by_threads == NULL ||
	    sorted == NULL || ended == NULL || window_on == NULL || window_off == NULL)
		goto out;
	/* each thread's rank (its index in `ranks`), or none */
	for (size_t r = 0; r < n; r++) {
		by_threads[r] = ranks[r];
		by_threads[r].number = (int32_t)r; /* the index, kept through the sort */
	}
	qsort(by_threads, n, sizeof *by_threads, by_thread);
	for (size_t t = 0; t < p->n_threads; t++) {
		struct ranks_pop_rank key = {.segment = p->threads[t].segment,
					     .tid = p->threads[t].tid};
		const struct ranks_pop_rank *found = bsearch(&key, by_threads, n,
							     sizeof *by_threads, by_thread);
		rank_of_thread[t] = found != NULL ? (uint32_t)found->number : UINT32_MAX;
	}
	/* the ops by rank, each thread's in its order (chunks of threads interleave): counted,
	 * then placed */
	for (size_t i = 0; i < p->n_ops; i++) {
		uint32_t r = rank_of_thread[p->ops[i].thread];
		if (r != UINT32_MAX)
			end[r]++;
	}
	for (size_t r = 0, k = 0; r < n; r++) {
		first[r] = k;
		k += end[r];
		end[r] = first[r];
	}
	for (size_t i = 0; i < p->n_ops; i++) {
		uint32_t r = rank_of_thread[p->ops[i].thread];
		if (r != UINT32_MAX) {
			ended[r] |= p->ops[i].type == OP_END;
			sorted[end[r]++] = p->ops[i];
		}
	}
	/* each rank's window: its region of interest when every rank marked one, else from
	 * MPI_Init's end to MPI_Finalize's start */
	bool regions = true;
	for (size_t r = 0; r < n; r++) {
		if (thread_of_rank(p, &ranks[r]) == SIZE_MAX)
			goto out;
		const struct thread *th = &p->threads[thread_of_rank(p, &ranks[r])];
		regions &= th->region_on != 0 && th->region_off > th->region_on;
	}
	double start = 1e300, finish = 0;
	for (size_t r = 0; r < n; r++) {
		if (!ended[r] || end[r] == first[r]) /* a rank that never reached MPI_Finalize */
			goto out;
		const struct thread *th = &p->threads[thread_of_rank(p, &ranks[r])];
		window_on[r] = regions ? th->region_on : sorted[first[r]].start;
		window_off[r] = regions ? th->region_off : sorted[end[r] - 1].start;
		double from = (double)to_ns(context, ranks[r].segment, window_on[r]) +
			      (double)ranks[r].offset,
		       to = (double)to_ns(context, ranks[r].segment, window_off[r]) +
			    (double)ranks[r].offset;
		start = from < start ? from : start;
		finish = to > finish ? to : finish;
	}
	free(p->ops);
	p->ops = sorted;
	sorted = NULL;
	p->n_ops = end[n - 1];
	size_t n_sends = 0, n_receives = 0;
	for (size_t r = 0; r < n; r++)
		for (size_t i = first[r]; i < end[r]; i++) {
			const struct op *op = &p->ops[i];
			sender[i] = SIZE_MAX;
			if (op->type == OP_BURST) {
				/* within the rank's window only */
				uint64_t from = op->start > window_on[r] ? op->start : window_on[r],
					 to = op->end < window_off[r] ? op->end : window_off[r];
				burst[i] = to <= from
						   ? 0
						   : (double)to_ns(context, ranks[r].segment, to) -
							     (double)to_ns(context,
									   ranks[r].segment, from);
				if (burst[i] < 0)
					burst[i] = 0;
				useful[r] += burst[i];
			} else if (op->type == OP_SEND) {
				sends[n_sends++] = (struct ranks_message_end){ranks[r].number,
									      op->peer, op->tag, i};
			} else if (op->type == OP_RECV) {
				receives[n_receives++] = (struct ranks_message_end){
					op->peer, ranks[r].number, op->tag, i};
			}
		}
	ranks_message_ends_sort(sends, n_sends);
	ranks_message_ends_sort(receives, n_receives);
	ranks_messages_pair(sends, n_sends, receives, n_receives, op_sent_by, sender);
	double runtime = finish - start, most = 0, least = 1e300, sum = 0;
	for (size_t r = 0; r < n; r++) {
		most = useful[r] > most ? useful[r] : most;
		least = useful[r] < least ? useful[r] : least;
		sum += useful[r];
	}
	if (runtime <= 0 || most <= 0)
		goto out;
	double balance = sum / (double)n / most, communication = most / runtime;
	free(p->windows);
	if ((p->windows = calloc(n, sizeof *p->windows)) != NULL) {
		p->n_windows = n;
		for (size_t r = 0; r < n; r++)
			p->windows[r] = (struct window){
				(double)to_ns(context, ranks[r].segment, window_on[r]) +
					(double)ranks[r].offset,
				(double)to_ns(context, ranks[r].segment, window_off[r]) +
					(double)ranks[r].offset,
				useful[r]};
		p->first_number = ranks[0].number;
		p->last_number = ranks[n - 1].number;
		p->regions = regions;
		p->runtime = runtime;
		p->mpi_balance = balance;
		p->mpi_communication = communication;
	}
	fprintf(errors,
		"taskprobe-timeline: MPI efficiency of ranks %" PRId32 " to %" PRId32
		" from %s (their MPI threads): parallel %.0f%% = load balance %.0f%% x "
		"communication %.0f%%",
		ranks[0].number, ranks[n - 1].number,
		regions ? "MPI_Pcontrol(1) to MPI_Pcontrol(0)" : "MPI_Init to MPI_Finalize",
		100 * balance * communication, 100 * balance, 100 * communication);
	double ideal = ideal_run(p, ranks, n, first, end, burst, sender);
	if (ideal > 0 && ideal <= runtime * 1.000001)
		fprintf(errors, " (serialisation %.0f%% x transfer %.0f%%)",
			100 * (most / ideal > 1 ? 1 : most / ideal), 100 * ideal / runtime);
	else
		fputs(" (its serialisation and transfer not told: the ranks' messages or "
		      "collectives do not pair up)",
		      errors);
	fprintf(errors, "; useful time per rank %.3f to %.3f s of %.3f s\n", least / 1e9,
		most / 1e9, runtime / 1e9);
out:
	free(first);
	free(end);
	free(sender);
	free(burst);
	free(useful);
	free(sends);
	free(receives);
	free(rank_of_thread);
	free(by_threads);
	free(sorted);
	free(ended);
	free(window_on);
	free(window_off);
}

/* How much of [from, to] lies in [on, off]. */
static double overlap(double from, double to, double on, double off)
{
	from = from > on ? from : on;
	to = to < off ? to : off;
	return to > from ? to - from : 0;
}

/* Thread `tid` of rank `rank`, made if new; NULL past MAX_THREADS or out of memory (*ok false). */
static struct busy *busy_of(struct ranks_pop *p, uint32_t rank, uint32_t tid, bool *ok)
{
	*ok = true;
	if (2 * (p->n_busy + 1) > p->cap_busy) {
		if (p->n_busy == MAX_THREADS) {
			p->busy_full = true;
			return NULL;
		}
		size_t cap = p->cap_busy ? 2 * p->cap_busy : 64;
		struct busy *grown = calloc(cap, sizeof *grown);
		if (grown == NULL) {
			*ok = false;
			return NULL;
		}
		for (size_t i = 0; i < p->cap_busy; i++) {
			if (!p->busy[i].used)
				continue;
			size_t h = (p->busy[i].rank * 2654435761u ^ p->busy[i].tid * 40503u) &
				   (cap - 1);
			while (grown[h].used)
				h = (h + 1) & (cap - 1);
			grown[h] = p->busy[i];
		}
		free(p->busy);
		p->busy = grown;
		p->cap_busy = cap;
	}
	size_t h = (rank * 2654435761u ^ tid * 40503u) & (p->cap_busy - 1);
	while (p->busy[h].used && (p->busy[h].rank != rank || p->busy[h].tid != tid))
		h = (h + 1) & (p->cap_busy - 1);
	if (!p->busy[h].used) {
		p->busy[h] = (struct busy){.rank = rank, .tid = tid, .used = true};
		p->n_busy++;
	}
	return &p->busy[h];
}

/* `b`'s useful time up to `ns`: polling and outside MPI calls, in its rank's window. */
static void busy_count(const struct ranks_pop *p, struct busy *b, double ns)
{
	const struct window *w = &p->windows[b->rank];
	if (b->polls > 0 && !b->in_mpi)
		b->useful += overlap((double)b->since, ns, w->on, w->off);
	b->since = ns > 0 ? (uint64_t)ns : 0;
}

bool ranks_pop_event(struct ranks_pop *p, size_t rank, uint32_t tid, uint64_t ns, unsigned type,
		     unsigned small)
{
	bool mpi = (type == TP_RECORD_WAIT_START || type == TP_RECORD_WAIT_END) &&
		   small == TP_WAIT_MPI;
	if (p->windows == NULL || rank >= p->n_windows ||
	    (type != TP_RECORD_TASK_POLL_START && type != TP_RECORD_TASK_POLL_END && !mpi))
		return true;
	bool ok;
	struct busy *b = busy_of(p, (uint32_t)rank, tid, &ok);
	if (b == NULL)
		return ok;
	busy_count(p, b, (double)ns);
	if (type == TP_RECORD_TASK_POLL_START) {
		b->polls++;
		b->polled = true;
	} else if (type == TP_RECORD_TASK_POLL_END) {
		b->polls -= b->polls > 0;
	} else {
		b->in_mpi = type == TP_RECORD_WAIT_START;
	}
	return true;
}

void ranks_pop_say_hybrid(struct ranks_pop *p, FILE *errors)
{
	if (errors == NULL || p->windows == NULL || p->busy_full)
		return;
	double sum = 0, most = 0;
	size_t threads = 0;
	bool openmp = false;
	for (size_t i = 0; i < p->cap_busy; i++) {
		struct busy *b = &p->busy[i];
		if (!b->used || !b->polled)
			continue;
		busy_count(p, b, p->windows[b->rank].off); /* a poll open at the end */
		sum += b->useful;
		most = b->useful > most ? b->useful : most;
		threads++;
		openmp = true;
	}
	/* a rank whose MPI thread never polled (no OpenMP there): its time outside MPI is its
	 * computation, on one thread */
	for (size_t r = 0; openmp && r < p->n_windows; r++) {
		bool polled = false;
		for (size_t i = 0; i < p->cap_busy && !polled; i++)
			polled = p->busy[i].used && p->busy[i].polled && p->busy[i].rank == r;
		if (!polled) {
			sum += p->windows[r].outside_mpi;
			most = p->windows[r].outside_mpi > most ? p->windows[r].outside_mpi : most;
			threads++;
		}
	}
	if (!openmp || most <= 0 || p->runtime <= 0 || p->mpi_balance <= 0 ||
	    p->mpi_communication <= 0)
		return;
	double mean = sum / (double)threads, balance = mean / most,
	       communication = most / p->runtime, mpi = p->mpi_balance * p->mpi_communication;
	fprintf(errors,
		"taskprobe-timeline: hybrid efficiency of ranks %" PRId32 " to %" PRId32
		" from %s (%zu threads; OpenMP's = hybrid / MPI): parallel %.0f%% = MPI %.0f%% x "
		"OpenMP %.0f%%; load balance %.0f%% = MPI %.0f%% x OpenMP %.0f%%; "
		"communication %.0f%% = MPI %.0f%% x OpenMP %.0f%%; useful time per thread "
		"%.3f s on average, %.3f s at most, of %.3f s\n",
		p->first_number, p->last_number,
		p->regions ? "MPI_Pcontrol(1) to MPI_Pcontrol(0)" : "MPI_Init to MPI_Finalize",
		threads, 100 * balance * communication, 100 * mpi,
		100 * balance * communication / mpi, 100 * balance, 100 * p->mpi_balance,
		100 * balance / p->mpi_balance, 100 * communication, 100 * p->mpi_communication,
		100 * communication / p->mpi_communication, mean / 1e9, most / 1e9,
		p->runtime / 1e9);
}
