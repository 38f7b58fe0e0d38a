// SPDX-License-Identifier: MIT
/*
 * The ranks of an MPI job in one timeline: see ranks.h.
 *
 * Alignment. Ranks leave MPI_Init together (it ends with the job's synchronisation) and leave
 * MPI_Finalize together (likewise, less closely): a rank's offset to the first rank is the mean
 * of the differences of those two ends, each weighed by how closely one host's ranks end it
 * (align_by_hosts), and half their disagreement is its uncertainty (a rank with no
 * MPI_Finalize, killed or torn, is aligned by MPI_Init alone). Then messages: the n-th send from
 * rank a to rank b with tag t is the n-th receive at b from a with tag t (MPI's order); a
 * receive that would end before its send started moves its rank later, as little as that needs,
 * until no message goes back in time (at most one pass per rank: the moves only grow, and the
 * true offsets satisfy every message). Then blocking collectives alike: no rank leaves one
 * before what it waits for arrived (ranks_causality.c), the messages again after each move.
 */
#define _GNU_SOURCE
#include "ranks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ranks_pop.h"
#include "ranks_private.h"
#include "taskprobe_contract.h"

/* What is kept, at most (with the converter's other bounds, under its 256 MiB on any input;
 * every pass over them is n log n): notes 32 bytes each, flow keys 20, ranks 288. */
#define MAX_NOTES     (1u << 19)
#define MAX_FLOW_KEYS (1u << 18)
#define MAX_RANKS     (1u << 16)
/* The ranks missing, or ending early, named one by one: beyond, counted. */
#define GAPS_SAID 16

enum note_type { NOTE_SEND, NOTE_RECV };
enum { HAS_INIT = 1, HAS_FINALIZE = 2 };

/* A message's end, of a segment, at a time of its clock. */
struct note {
	uint64_t time, ns;
	uint64_t communicator; /* its identity, 0: not told */
	uint32_t segment;
	int32_t peer, tag;
	uint8_t type;
};

/* Messages counted between a pair of ranks with a tag on a communicator: the n-th send is the
 * n-th receive. */
struct flow_key {
	uint64_t communicator;
	int32_t from, to, tag;
	uint32_t sends, receives;
	bool used;
};

struct ranks {
	struct note *notes;
	size_t n_notes, cap_notes;
	struct rank *ranks;
	size_t n_ranks, cap_ranks;
	/* by segment: its process, pid; by process: its rank's index + 1 (0: none) */
	uint64_t *segment_process;
	uint32_t *segment_pid;
	int64_t *segment_offset;
	size_t n_segments;
	uint32_t *process_rank;
	size_t n_processes;
	/* by segment: whether it holds an mpi-init (HAS_INIT) and an MPI_Finalize's end
	 * (HAS_FINALIZE, at finalize_time: its last) */
	unsigned char *has_init;
	size_t cap_has_init;
	uint64_t *finalize_time;
	size_t cap_finalize_time;
	size_t n_hosts;
	struct flow_key *keys;
	size_t n_keys, cap_keys; /* cap_keys: a power of two */
	bool notes_full, keys_full;
	struct ranks_pop *pop; /* the efficiencies across ranks */
};

struct ranks *ranks_new(void)
{
	struct ranks *r = calloc(1, sizeof(struct ranks));
	if (r != NULL && (r->pop = ranks_pop_new()) == NULL) {
		free(r);
		return NULL;
	}
	return r;
}

void ranks_free(struct ranks *r)
{
	if (r == NULL)
		return;
	free(r->notes);
	free(r->ranks);
	free(r->segment_process);
	free(r->segment_pid);
	free(r->segment_offset);
	free(r->process_rank);
	free(r->has_init);
	free(r->finalize_time);
	free(r->keys);
	ranks_pop_free(r->pop);
	free(r);
}

/* Grows `*array` (of `*cap` items of `size`) to hold `n + 1`; false when out of memory. */
static bool room(void *array, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return true;
	size_t grown = *cap ? 2 * *cap : 64;
	while (grown <= n)
		grown *= 2;
	void *p = realloc(*(void **)array, grown * size);
	if (p == NULL)
		return false;
	memset((char *)p + *cap * size, 0, (grown - *cap) * size);
	*(void **)array = p;
	*cap = grown;
	return true;
}

bool ranks_note(struct ranks *r, uint32_t segment, uint32_t tid, uint64_t time,
		const struct tp_record *rec, const char *input)
{
	unsigned type = tp_record_type(rec->word), small = tp_record_small(rec->word);
	if (!ranks_pop_note(r->pop, segment, tid, time, rec))
		return false;
	if (type == TP_RECORD_MPI_INIT) {
		if (r->n_ranks == MAX_RANKS ||
		    !room(&r->ranks, &r->cap_ranks, r->n_ranks, sizeof *r->ranks))
			return r->n_ranks == MAX_RANKS;
		if (!room(&r->has_init, &r->cap_has_init, segment, 1))
			return false;
		r->has_init[segment] |= HAS_INIT;
		struct rank *k = &r->ranks[r->n_ranks++];
		*k = (struct rank){.segment = segment,
				   .tid = tid,
				   .number = (int32_t)rec->arg[0],
				   .size = (uint32_t)rec->arg[1],
				   .time = time,
				   .system_minus_monotonic = (int64_t)(rec->arg[2] - rec->arg[3]),
				   .input = input};
		/* the text: host, NUL, job, NUL, within `small` bytes (checked by the caller) */
		const char *text = (const char *)&rec->arg[4];
		size_t host = strnlen(text, small);
		snprintf(k->host, sizeof k->host, "%.*s", (int)host, text);
		if (host + 1 < small)
			snprintf(k->job, sizeof k->job, "%.*s",
				 (int)strnlen(text + host + 1, small - host - 1), text + host + 1);
		return true;
	}
	struct note n = {.time = time, .segment = segment};
	if (type == TP_RECORD_MPI_SEND || type == TP_RECORD_MPI_RECV) {
		n.type = type == TP_RECORD_MPI_SEND ? NOTE_SEND : NOTE_RECV;
		n.peer = (int32_t)rec->arg[0];
		n.tag = (int32_t)rec->arg[1];
		n.communicator = tp_record_mpi_communicator(tp_record_small(rec->word), rec->arg);
	} else if (type == TP_RECORD_WAIT_END && small == TP_WAIT_MPI &&
		   rec->arg[0] == TP_MPI_CALL_FINALIZE) {
		if (!room(&r->has_init, &r->cap_has_init, segment, 1) ||
		    !room(&r->finalize_time, &r->cap_finalize_time, segment, sizeof(uint64_t)))
			return false;
		r->has_init[segment] |= HAS_FINALIZE;
		r->finalize_time[segment] = time;
		return true;
	} else {
		return true;
	}
	if (r->n_notes == MAX_NOTES) {
		r->notes_full = true;
		return true;
	}
	if (!room(&r->notes, &r->cap_notes, r->n_notes, sizeof *r->notes))
		return false;
	r->notes[r->n_notes++] = n;
	return true;
}

bool ranks_segment(struct ranks *r, uint32_t segment, uint64_t process, uint32_t pid)
{
	size_t cap = r->n_segments;
	if (segment >= cap) {
		size_t grown = segment + 1;
		uint64_t *p = realloc(r->segment_process, grown * sizeof *p);
		if (p != NULL)
			r->segment_process = p;
		uint32_t *q = realloc(r->segment_pid, grown * sizeof *q);
		if (q != NULL)
			r->segment_pid = q;
		int64_t *o = realloc(r->segment_offset, grown * sizeof *o);
		if (o != NULL)
			r->segment_offset = o;
		if (p == NULL || q == NULL || o == NULL)
			return false;
		for (size_t i = cap; i < grown; i++) {
			r->segment_process[i] = 0;
			r->segment_pid[i] = 0;
			r->segment_offset[i] = 0;
		}
		r->n_segments = grown;
	}
	r->segment_process[segment] = process;
	r->segment_pid[segment] = pid;
	return true;
}

/* The rank of `process`, or NULL. */
static struct rank *rank_of_process(const struct ranks *r, uint64_t process)
{
	if (process >= r->n_processes || r->process_rank[process] == 0)
		return NULL;
	return &r->ranks[r->process_rank[process] - 1];
}

bool ranks_none(const struct ranks *r)
{
	return r->n_ranks == 0; /* (rank_of_process finds none) */
}

bool ranks_names(const struct ranks *r, uint32_t segment)
{
	return segment < r->cap_has_init && (r->has_init[segment] & HAS_INIT);
}

int64_t ranks_offset(const struct ranks *r, uint32_t segment)
{
	return segment < r->n_segments ? r->segment_offset[segment] : 0;
}

static int by_process_then_order(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;
	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	if (x->segment != y->segment)
		return x->segment < y->segment ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

static int by_number(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;
	if (x->number != y->number)
		return x->number < y->number ? -1 : 1;
	return strcmp(x->job, y->job);
}

/* The index in `ranks` (sorted by number) of rank `number`, or -1. */
static long rank_index(const struct ranks *r, int32_t number)
{
	size_t lo = 0, hi = r->n_ranks;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->ranks[mid].number < number)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n_ranks && r->ranks[lo].number == number ? (long)lo : -1;
}

/* Says why the recordings are refused: they hold two jobs (or one rank twice). */
static void say_two_jobs(const struct rank *a, const struct rank *b, FILE *errors)
{
	if (errors == NULL)
		return;
	if (strcmp(a->job, b->job) != 0 || a->size != b->size)
		fprintf(errors,
			"taskprobe-timeline: %s and %s are recordings of two MPI jobs (job \"%s\" "
			"of %" PRIu32 " ranks, job \"%s\" of %" PRIu32 "): convert each job's "
			"recordings on their own\n",
			a->input, b->input, a->job, a->size, b->job, b->size);
	else
		fprintf(errors,
			"taskprobe-timeline: %s and %s both hold rank %" PRId32 " of an MPI job: "
			"recordings of two runs (keep one run's recordings in a directory); "
			"convert each run's on its own\n",
			a->input, b->input, a->number);
}

/*
 * The messages' constraints on the offsets: each receive ends after its send started. Moves
 * receivers later until none is violated; returns how many messages moved a rank.
 */
/* One pass of align_by_messages: each receive moved after its send where it is not. */
struct relaxing {
	struct ranks *r;
	bool changed, first_pass;
	size_t moved;
};

static void receive_after_send(void *context, const struct ranks_message_end *send,
			       const struct ranks_message_end *receive)
{
	struct relaxing *x = context;
	struct ranks *r = x->r;
	long from = rank_index(r, send->from), to = rank_index(r, receive->to);
	if (from < 0 || to < 0)
		return;
	/* receive end + its offset > send start + its offset (an end's order is its time) */
	int64_t need = clamped((__int128)r->ranks[from].offset + (int64_t)send->order -
			       (int64_t)receive->order + 1);
	if (r->ranks[to].offset < need) {
		r->ranks[to].moved = add(r->ranks[to].moved, sub(need, r->ranks[to].offset));
		r->ranks[to].offset = need;
		x->changed = true;
		x->moved += x->first_pass;
	}
}

static size_t align_by_messages(struct ranks *r,
				uint64_t (*to_ns)(const void *, uint32_t, uint64_t),
				const void *context, bool *ok)
{
	struct ranks_message_end *sends = calloc(r->n_notes + 1, sizeof *sends),
				 *receives = calloc(r->n_notes + 1, sizeof *receives);
	size_t n_sends = 0, n_receives = 0;
	*ok = sends != NULL && receives != NULL;
	for (size_t i = 0; *ok && i < r->n_notes; i++) {
		const struct note *n = &r->notes[i];
		if (n->segment >= r->n_segments)
			continue;
		const struct rank *k = rank_of_process(r, r->segment_process[n->segment]);
		if (k == NULL)
			continue;
		uint64_t ns = to_ns(context, n->segment, n->time);
		if (n->type == NOTE_SEND)
			sends[n_sends++] = (struct ranks_message_end){k->number, n->peer, n->tag,
								      n->communicator, ns};
		else
			receives[n_receives++] = (struct ranks_message_end){
				n->peer, k->number, n->tag, n->communicator, ns};
	}
	if (*ok) {
		ranks_message_ends_sort(sends, n_sends);
		ranks_message_ends_sort(receives, n_receives);
	}
	/* pair them: the n-th of a key with the n-th; then relax the offsets */
	struct relaxing x = {.r = r, .first_pass = true};
	for (size_t pass = 0; *ok && pass <= r->n_ranks && pass < RANKS_MAX_PASSES; pass++) {
		x.changed = false;
		x.first_pass = pass == 0;
		ranks_messages_pair(sends, n_sends, receives, n_receives, receive_after_send, &x);
		if (!x.changed)
			break;
	}
	free(sends);
	free(receives);
	return x.moved;
}

/* Says the alignment: which ranks, how far apart their clocks were, how well they now agree. */
static void say_alignment(const struct ranks *r, size_t moved_by_messages,
			  size_t moved_by_collectives, int64_t uncertainty,
			  const struct host_syncs *syncs, FILE *errors)
{
	if (errors == NULL || r->n_ranks < 2)
		return;
	int64_t widest = 0, moved = 0;
	size_t hosts = r->n_hosts;
	bool all_finalized = true;
	for (size_t i = 0; i < r->n_ranks; i++) {
		const struct rank *k = &r->ranks[i];
		int64_t off = sub(k->offset, k->moved);
		widest = llabs(off) > widest ? llabs(off) : widest;
		moved = k->moved > moved ? k->moved : moved;
		all_finalized &= k->finalized;
	}
	fprintf(errors,
		"taskprobe-timeline: MPI ranks %" PRId32 " to %" PRId32 " (%zu of %" PRIu32
		") on %zu host%s in one timeline: clocks aligned by each host's system clock",
		r->ranks[0].number, r->ranks[r->n_ranks - 1].number, r->n_ranks, r->ranks[0].size,
		hosts, hosts == 1 ? "" : "s");
	if (hosts > 1)
		fprintf(errors, ", hosts by MPI_Init%s", all_finalized ? " and MPI_Finalize" : "");
	if (hosts > 1 && all_finalized && syncs->spread[0] >= 0 && syncs->spread[1] >= 0)
		fprintf(errors,
			", each weighed by how closely one host's ranks end it: %.3f and %.3f "
			"ms apart",
			(double)syncs->spread[0] / 1e6, (double)syncs->spread[1] / 1e6);
	fprintf(errors, " (moved %.6f s at most)", (double)widest / 1e9);
	if (moved_by_messages > 0)
		fprintf(errors, ", then by %zu messages received before they were sent",
			moved_by_messages);
	if (moved_by_collectives > 0)
		fprintf(errors, "%s %zu collectives left before what they wait for arrived",
			moved_by_messages > 0 ? " and" : ", then by", moved_by_collectives);
	if (moved_by_messages > 0 || moved_by_collectives > 0)
		fprintf(errors, " (a rank moved %.3f us more at most)", (double)moved / 1e3);
	if (hosts > 1)
		fprintf(errors, "; residual uncertainty between hosts %.3f us\n",
			(double)uncertainty / 1e3);
	else
		fputs("; residual uncertainty: the system clock's reads, about a microsecond\n",
		      errors);
}

/* Says the ranks missing, and those whose recording stops before MPI_Finalize. */
static void say_gaps(const struct ranks *r, FILE *errors)
{
	if (errors == NULL)
		return;
	uint32_t size = r->ranks[0].size;
	/* each of the first GAPS_SAID named, the rest counted */
	uint64_t missing = size > r->n_ranks ? size - r->n_ranks : 0, said = 0;
	for (uint32_t number = 0, i = 0; number < size && said < GAPS_SAID && said < missing;
	     number++) {
		while (i < r->n_ranks && r->ranks[i].number < (int32_t)number)
			i++;
		if (i == r->n_ranks || r->ranks[i].number != (int32_t)number) {
			fprintf(errors,
				"taskprobe-timeline: rank %" PRIu32 " of the MPI job's %" PRIu32
				" has no recording among these: it is not in the timeline\n",
				number, size);
			said++;
		}
	}
	if (missing > said)
		fprintf(errors, "taskprobe-timeline: %" PRIu64 " more ranks have no recording\n",
			missing - said);
	size_t unfinished = 0;
	for (size_t i = 0; i < r->n_ranks && r->n_ranks > 1; i++) {
		if (r->ranks[i].finalized)
			continue;
		if (unfinished++ < GAPS_SAID)
			fprintf(errors,
				"taskprobe-timeline: rank %" PRId32 " (%s): its recording stops "
				"before MPI_Finalize (killed, or its file torn): the timeline has "
				"nothing of it after its last event; its clock is aligned by "
				"MPI_Init alone\n",
				r->ranks[i].number, r->ranks[i].input);
	}
	if (unfinished > GAPS_SAID)
		fprintf(errors,
			"taskprobe-timeline: %zu more ranks' recordings stop before MPI_Finalize\n",
			unfinished - GAPS_SAID);
}

bool ranks_align(struct ranks *r, struct timeline *t,
		 uint64_t (*to_ns)(const void *context, uint32_t segment, uint64_t time),
		 const void *context, FILE *errors, FILE *figures, bool *refused)
{
	*refused = false;
	if (r->n_ranks == 0)
		return true;
	/* one rank per process: its first MPI_Init (in the files' order: segment, then time) */
	for (size_t i = 0; i < r->n_ranks; i++) {
		struct rank *k = &r->ranks[i];
		k->process = k->segment < r->n_segments ? r->segment_process[k->segment] : 0;
		k->pid = k->segment < r->n_segments ? r->segment_pid[k->segment] : 0;
	}
	qsort(r->ranks, r->n_ranks, sizeof *r->ranks, by_process_then_order);
	size_t kept = 0;
	for (size_t i = 0; i < r->n_ranks; i++)
		if (r->ranks[i].segment < r->n_segments &&
		    (kept == 0 || r->ranks[kept - 1].process != r->ranks[i].process))
			r->ranks[kept++] = r->ranks[i];
	r->n_ranks = kept;
	if (kept == 0)
		return true;
	qsort(r->ranks, r->n_ranks, sizeof *r->ranks, by_number);
	for (size_t i = 1; i < r->n_ranks; i++)
		if (r->ranks[i].number == r->ranks[i - 1].number ||
		    strcmp(r->ranks[i].job, r->ranks[0].job) != 0 ||
		    r->ranks[i].size != r->ranks[0].size) {
			say_two_jobs(r->ranks[i].number == r->ranks[i - 1].number ? &r->ranks[i - 1]
										  : &r->ranks[0],
				     &r->ranks[i], errors);
			*refused = true;
			return false;
		}
	/* by process: its rank */
	for (size_t i = 0; i < r->n_segments; i++)
		if (r->segment_process[i] >= r->n_processes)
			r->n_processes = r->segment_process[i] + 1;
	r->process_rank = calloc(r->n_processes + 1, sizeof *r->process_rank);
	if (r->process_rank == NULL)
		return false;
	for (size_t i = 0; i < r->n_ranks; i++)
		r->process_rank[r->ranks[i].process] = (uint32_t)i + 1;
	/* the ends of MPI_Init and MPI_Finalize in each rank's clock */
	for (size_t i = 0; i < r->n_ranks; i++)
		r->ranks[i].init_ns = to_ns(context, r->ranks[i].segment, r->ranks[i].time);
	for (size_t i = 0; i < r->n_ranks; i++) {
		struct rank *k = &r->ranks[i];
		k->finalized = k->segment < r->cap_has_init &&
			       (r->has_init[k->segment] & HAS_FINALIZE);
		if (k->finalized)
			k->finalize_ns = to_ns(context, k->segment, r->finalize_time[k->segment]);
	}
	bool ok;
	struct host_syncs syncs;
	int64_t uncertainty = ranks_align_hosts(r->ranks, r->n_ranks, &r->n_hosts, &ok, &syncs);
	if (!ok)
		return false;
	size_t moved = align_by_messages(r, to_ns, context, &ok);
	if (!ok)
		return false;
	struct ranks_pop_rank *pop = calloc(r->n_ranks, sizeof *pop);
	if (pop == NULL)
		return false;
	for (size_t i = 0; i < r->n_ranks; i++)
		pop[i] = (struct ranks_pop_rank){.number = r->ranks[i].number,
						 .segment = r->ranks[i].segment,
						 .tid = r->ranks[i].tid,
						 .offset = r->ranks[i].offset};
	/* then the collectives, and the messages again after each move, until none moves */
	size_t by_collectives = 0;
	for (size_t round = 0; ok && round <= r->n_ranks && round < RANKS_MAX_PASSES; round++) {
		size_t now = ranks_pop_causality(r->pop, pop, r->n_ranks, to_ns, context);
		by_collectives += round == 0 ? now : 0;
		if (now == 0)
			break;
		for (size_t i = 0; i < r->n_ranks; i++) {
			struct rank *k = &r->ranks[i];
			k->moved = add(k->moved, sub(pop[i].offset, k->offset));
			k->offset = pop[i].offset;
		}
		align_by_messages(r, to_ns, context, &ok);
		for (size_t i = 0; i < r->n_ranks; i++)
			pop[i].offset = r->ranks[i].offset;
	}
	if (!ok) {
		free(pop);
		return false;
	}
	for (size_t i = 0; i < r->n_segments; i++) {
		const struct rank *k = rank_of_process(r, r->segment_process[i]);
		r->segment_offset[i] = k != NULL ? k->offset : 0;
	}
	for (size_t i = 0; t != NULL && i < r->n_ranks; i++) {
		char name[HOST_MAX + 32];
		snprintf(name, sizeof name, "rank %" PRId32 " (%s)", r->ranks[i].number,
			 r->ranks[i].host);
		timeline_process_name(t, r->ranks[i].pid, name);
		timeline_process_sort(t, r->ranks[i].pid, r->ranks[i].number);
	}
	say_alignment(r, moved, by_collectives, uncertainty, &syncs, errors);
	ranks_pop_say(r->pop, pop, r->n_ranks, to_ns, context, errors, figures);
	free(pop);
	say_gaps(r, errors);
	if (r->notes_full && errors != NULL)
		fprintf(errors,
			"taskprobe-timeline: more than %u MPI messages: the later ones do "
			"not align the ranks' clocks\n",
			MAX_NOTES);
	return true;
}

/* A flow key's place in a table of `cap` (a power of two) keys. */
static size_t flow_hash(int32_t from, int32_t to, int32_t tag, uint64_t communicator, size_t cap)
{
	return ((uint32_t)from * 2654435761u ^ (uint32_t)to * 40503u ^ (uint32_t)tag ^
		(size_t)(communicator * UINT64_C(0x9e3779b97f4a7c15) >> 32)) &
	       (cap - 1);
}

/* The counts of messages from `from` to `to` with `tag` on `communicator`; NULL when none can be
 * kept. */
static struct flow_key *flow_key(struct ranks *r, int32_t from, int32_t to, int32_t tag,
				 uint64_t communicator)
{
	if (r->n_keys * 2 >= r->cap_keys) {
		if (r->n_keys >= MAX_FLOW_KEYS)
			return NULL;
		size_t cap = r->cap_keys ? 2 * r->cap_keys : 256;
		struct flow_key *keys = calloc(cap, sizeof *keys);
		if (keys == NULL)
			return NULL;
		for (size_t i = 0; i < r->cap_keys; i++) {
			const struct flow_key *k = &r->keys[i];
			if (!k->used)
				continue;
			size_t h = flow_hash(k->from, k->to, k->tag, k->communicator, cap);
			while (keys[h].used)
				h = (h + 1) & (cap - 1);
			keys[h] = *k;
		}
		free(r->keys);
		r->keys = keys;
		r->cap_keys = cap;
	}
	size_t h = flow_hash(from, to, tag, communicator, r->cap_keys);
	while (r->keys[h].used &&
	       (r->keys[h].from != from || r->keys[h].to != to || r->keys[h].tag != tag ||
		r->keys[h].communicator != communicator))
		h = (h + 1) & (r->cap_keys - 1);
	if (!r->keys[h].used) {
		r->keys[h] = (struct flow_key){.communicator = communicator,
					       .from = from,
					       .to = to,
					       .tag = tag,
					       .used = true};
		r->n_keys++;
	}
	return &r->keys[h];
}

bool ranks_event(struct ranks *r, struct timeline *t, const struct timeline_event *e)
{
	const struct rank *k = rank_of_process(r, e->process);
	if (k == NULL)
		return true;
	if (!ranks_pop_event(r->pop, (size_t)(k - r->ranks), e->tid, e->ns, e->type, e->arg))
		return false;
	if (t == NULL || (e->type != TP_RECORD_MPI_SEND && e->type != TP_RECORD_MPI_RECV))
		return true;
	bool send = e->type == TP_RECORD_MPI_SEND;
	int32_t peer = (int32_t)e->arg[0], tag = (int32_t)e->arg[1];
	uint64_t communicator = (uint64_t)e->arg[2]; /* recording_decode.h's: 0 when not told */
	struct flow_key *key = send ? flow_key(r, k->number, peer, tag, communicator)
				    : flow_key(r, peer, k->number, tag, communicator);
	if (key == NULL)
		return true;
	uint32_t n = send ? key->sends++ : key->receives++;
	char id[80]; /* from>to:tag:n, then @communicator where one is told */
	int at = snprintf(id, sizeof id, "%" PRId32 ">%" PRId32 ":%" PRId32 ":%" PRIu32, key->from,
			  key->to, tag, n);
	if (communicator != 0 && at > 0 && (size_t)at < sizeof id)
		snprintf(id + at, sizeof id - (size_t)at, "@%" PRIx64, communicator);
	timeline_flow(t, e, send, "message", id);
	return true;
}

void ranks_finish(struct ranks *r, FILE *errors, FILE *figures, struct scaling_basis *job)
{
	ranks_pop_say_hybrid(r->pop, errors, figures);
	ranks_pop_basis(r->pop, job);
	if (!job->known) /* a job all the same: not one process's to stand for */
		job->ranks = (uint32_t)r->n_ranks;
}
