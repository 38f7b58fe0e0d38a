// SPDX-License-Identifier: MIT
/*
 * The POP efficiencies across MPI ranks: see ranks_pop.h.
 *
 * Each rank's MPI thread is a sequence of operations between its MPI_Init and its MPI_Finalize:
 * bursts of computation (the time between MPI calls), sends, receives and collectives. The
 * ideal network's run replays them: a rank's clock advances by its bursts; a receive waits for
 * its send (the n-th send from a to b with a tag is the n-th such receive), a collective for
 * every rank to reach it (the k-th collective of each rank is one: a job whose ranks made
 * different numbers of collectives, on communicators of their own, gets no ideal run); messages
 * and collectives cost nothing.
 */
#define _GNU_SOURCE
#include "ranks_pop.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "taskprobe_contract.h"

#define MAX_OPS (1u << 22) /* 40 bytes each */

enum op_type { OP_BURST, OP_SEND, OP_RECV, OP_COLLECTIVE, OP_END };

/* An operation of a thread: a burst from `start` to `end` (its clock's), or a message or a
 * collective at `start`. */
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
	bool in_call, ended;
};

struct ranks_pop {
	struct op *ops;
	size_t n_ops, cap_ops;
	struct thread *threads;
	size_t n_threads;
	bool full;
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

bool ranks_pop_note(struct ranks_pop *p, uint32_t segment, uint32_t tid, uint64_t time,
		    const struct tp_record *rec)
{
	unsigned type = tp_record_type(rec->word);
	size_t t = 0;
	while (t < p->n_threads && (p->threads[t].segment != segment || p->threads[t].tid != tid))
		t++;
	if (type == TP_RECORD_MPI_INIT) {
		if (t < p->n_threads)
			return true;
		struct thread *grown = realloc(p->threads, (p->n_threads + 1) * sizeof *grown);
		if (grown == NULL)
			return false;
		p->threads = grown;
		p->threads[p->n_threads++] = (struct thread){
			.segment = segment, .tid = tid, .last_end = time};
		return true;
	}
	if (t == p->n_threads || p->threads[t].ended)
		return true;
	struct thread *th = &p->threads[t];
	struct op op = {.start = time, .end = time, .thread = (uint32_t)t};
	if (type == TP_RECORD_WAIT_START && tp_record_small(rec->word) == TP_WAIT_MPI) {
		/* the burst before the call; MPI_Finalize's start ends the thread's operations */
		if (!push(p, (struct op){.type = OP_BURST,
					 .start = th->last_end,
					 .end = time,
					 .thread = (uint32_t)t}))
			return false;
		th->in_call = true;
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

/* A message end for matching: (from, to, tag) and its place among the ops. */
struct end {
	int32_t from, to, tag;
	size_t op;
};

static int by_key_then_op(const void *a, const void *b)
{
	const struct end *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

static bool same_key(const struct end *x, const struct end *y)
{
	return x->from == y->from && x->to == y->to && x->tag == y->tag;
}

/* The ideal network's run time (ns), or -1 when the replay cannot finish. */
static double ideal_run(const struct ranks_pop *p, size_t n, const size_t *first, const size_t *end,
			const double *burst, const size_t *sender)
{
	double *clock = calloc(n, sizeof *clock), *sent = calloc(p->n_ops + 1, sizeof *sent),
	       *arrival = calloc(n, sizeof *arrival);
	size_t *at = calloc(n, sizeof *at), *passed = calloc(n, sizeof *passed);
	bool *simulated = calloc(p->n_ops + 1, sizeof *simulated),
	     *waiting = calloc(n, sizeof *waiting);
	double result = -1;
	if (clock == NULL || sent == NULL || arrival == NULL || at == NULL || passed == NULL ||
	    simulated == NULL || waiting == NULL)
		goto out;
	for (size_t r = 0; r < n; r++)
		at[r] = first[r];
	for (bool progress = true; progress;) {
		progress = false;
		for (size_t r = 0; r < n; r++) {
			for (; at[r] < end[r]; at[r]++, progress = true) {
				const struct op *op = &p->ops[at[r]];
				if (op->type == OP_BURST) {
					clock[r] += burst[at[r]];
				} else if (op->type == OP_SEND) {
					sent[at[r]] = clock[r];
					simulated[at[r]] = true;
				} else if (op->type == OP_RECV && sender[at[r]] != SIZE_MAX) {
					if (!simulated[sender[at[r]]])
						break;
					if (sent[sender[at[r]]] > clock[r])
						clock[r] = sent[sender[at[r]]];
				} else if (op->type == OP_COLLECTIVE) {
					/* its k-th collective: released once every rank waits in it */
					if (!waiting[r]) {
						waiting[r] = true;
						arrival[r] = clock[r];
					}
					bool all = true;
					double latest = 0;
					for (size_t q = 0; q < n; q++) {
						all &= waiting[q] && passed[q] == passed[r];
						latest = arrival[q] > latest ? arrival[q] : latest;
					}
					if (!all)
						break;
					for (size_t q = 0; q < n; q++) {
						clock[q] = latest;
						waiting[q] = false;
						passed[q]++;
						if (q != r)
							at[q]++; /* past it: the loop moves r on */
					}
				}
			}
		}
	}
	result = 0;
	for (size_t r = 0; r < n; r++) {
		if (at[r] < end[r]) { /* blocked for good: the pairing failed */
			result = -1;
			break;
		}
		result = clock[r] > result ? clock[r] : result;
	}
out:
	free(clock);
	free(sent);
	free(arrival);
	free(at);
	free(passed);
	free(simulated);
	free(waiting);
	return result;
}

void ranks_pop_say(struct ranks_pop *p, const struct ranks_pop_rank *ranks, size_t n,
		   uint64_t (*to_ns)(const void *context, uint32_t segment, uint64_t time),
		   const void *context, FILE *errors)
{
	if (errors == NULL || n < 2 || p->full)
		return;
	/* each rank's thread, its ops [first, end) (a thread's ops are in its file's order) */
	size_t *first = calloc(n, sizeof *first), *end = calloc(n, sizeof *end);
	size_t *sender = calloc(p->n_ops + 1, sizeof *sender);
	double *burst = calloc(p->n_ops + 1, sizeof *burst), *useful = calloc(n, sizeof *useful);
	struct end *sends = calloc(p->n_ops + 1, sizeof *sends),
		   *receives = calloc(p->n_ops + 1, sizeof *receives);
	uint32_t *rank_of_thread = calloc(p->n_threads + 1, sizeof *rank_of_thread);
	if (first == NULL || end == NULL || sender == NULL || burst == NULL || useful == NULL ||
	    sends == NULL || receives == NULL || rank_of_thread == NULL)
		goto out;
	for (size_t t = 0; t < p->n_threads; t++) {
		rank_of_thread[t] = UINT32_MAX;
		for (size_t r = 0; r < n; r++)
			if (ranks[r].segment == p->threads[t].segment &&
			    ranks[r].tid == p->threads[t].tid)
				rank_of_thread[t] = (uint32_t)r;
	}
	/* the ops of one thread are not contiguous (chunks of threads interleave): reorder them by
	 * rank, keeping each thread's order */
	struct op *sorted = calloc(p->n_ops + 1, sizeof *sorted);
	if (sorted == NULL)
		goto out;
	size_t k = 0;
	double start = 1e300, finish = 0;
	for (size_t r = 0; r < n; r++) {
		first[r] = k;
		bool ended = false;
		for (size_t i = 0; i < p->n_ops; i++)
			if (rank_of_thread[p->ops[i].thread] == r) {
				sorted[k++] = p->ops[i];
				ended |= p->ops[i].type == OP_END;
			}
		end[r] = k;
		if (!ended || end[r] == first[r]) { /* a rank that never reached MPI_Finalize */
			free(sorted);
			goto out;
		}
		/* its run: from its first burst's start to MPI_Finalize's, aligned */
		const struct op *a = &sorted[first[r]], *z = &sorted[end[r] - 1];
		double from = (double)to_ns(context, ranks[r].segment, a->start) +
			      (double)ranks[r].offset,
		       to = (double)to_ns(context, ranks[r].segment, z->start) +
			    (double)ranks[r].offset;
		start = from < start ? from : start;
		finish = to > finish ? to : finish;
	}
	memcpy(p->ops, sorted, k * sizeof *sorted);
	free(sorted);
	p->n_ops = k;
	size_t n_sends = 0, n_receives = 0;
	for (size_t r = 0; r < n; r++)
		for (size_t i = first[r]; i < end[r]; i++) {
			const struct op *op = &p->ops[i];
			sender[i] = SIZE_MAX;
			if (op->type == OP_BURST) {
				burst[i] = (double)to_ns(context, ranks[r].segment, op->end) -
					   (double)to_ns(context, ranks[r].segment, op->start);
				if (burst[i] < 0)
					burst[i] = 0;
				useful[r] += burst[i];
			} else if (op->type == OP_SEND) {
				sends[n_sends++] = (struct end){ranks[r].number, op->peer, op->tag,
								i};
			} else if (op->type == OP_RECV) {
				receives[n_receives++] = (struct end){op->peer, ranks[r].number,
								      op->tag, i};
			}
		}
	qsort(sends, n_sends, sizeof *sends, by_key_then_op);
	qsort(receives, n_receives, sizeof *receives, by_key_then_op);
	for (size_t i = 0, j = 0; i < n_sends && j < n_receives;) {
		int c = by_key_then_op(
			&(struct end){sends[i].from, sends[i].to, sends[i].tag, 0},
			&(struct end){receives[j].from, receives[j].to, receives[j].tag, 0});
		if (c == 0 && same_key(&sends[i], &receives[j]))
			sender[receives[j++].op] = sends[i++].op;
		else if (c < 0)
			i++;
		else
			j++;
	}
	double runtime = finish - start, most = 0, least = 1e300, sum = 0;
	for (size_t r = 0; r < n; r++) {
		most = useful[r] > most ? useful[r] : most;
		least = useful[r] < least ? useful[r] : least;
		sum += useful[r];
	}
	if (runtime <= 0 || most <= 0)
		goto out;
	double balance = sum / (double)n / most, communication = most / runtime;
	fprintf(errors,
		"taskprobe-timeline: MPI efficiency of ranks %" PRId32 " to %" PRId32
		" from MPI_Init to MPI_Finalize (their MPI threads): parallel %.0f%% = load "
		"balance %.0f%% x communication %.0f%%",
		ranks[0].number, ranks[n - 1].number, 100 * balance * communication, 100 * balance,
		100 * communication);
	double ideal = ideal_run(p, n, first, end, burst, sender);
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
}
