// SPDX-License-Identifier: MIT
/*
 * The ideal network's run of an MPI job (ranks_pop.c's): each rank's operations replayed, its
 * clock advanced by its bursts; a receive waits for its send, a collective for what it needs:
 * each of its ranks waits for every other, but in a rooted one whose root the adapter told
 * (OTF-CPT's model) a broadcast's or scatter's ranks wait for the root alone, a reduction's or
 * gather's root for the others and the others for nobody, and a scan's ranks for those numbered
 * below them. A nonblocking collective arrives at its start, and its completion waits so;
 * messages and collectives cost nothing.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "ranks_pop.h"
#include "ranks_pop_private.h"
#include "taskprobe_contract.h"

/* A rank's place in the ideal run: where it is, its clock, and what it waits for. */
struct runner {
	size_t at, end;
	double clock;
	size_t blocked_on; /* 1 + the group of the nonblocking collective its completion awaits */
	bool waiting;      /* in the current collective */
	bool queued;
};

/* The ideal run's state: its ranks, the worklist of those that can go on, the collectives. */
struct replay {
	const struct ranks_pop_rank *ranks;
	size_t n;
	struct runner *run;
	size_t *work, n_work;
	struct groups groups;
	double *latest;     /* a group's last arrival */
	double *root_clock; /* its root's arrival (a nonblocking one's start) */
	size_t *arrived;
};

static void replay_queue(struct replay *x, size_t q)
{
	if (!x->run[q].queued) {
		x->run[q].queued = true;
		x->work[x->n_work++] = q;
	}
}

static size_t group_size(const struct replay *x, size_t g)
{
	return x->groups.at[g + 1] - x->groups.at[g];
}

/* The flow of collective `op` of group g (ranks_collective_flow). */
static enum ranks_flow group_flow(const struct replay *x, size_t g, const struct op *op,
				  size_t *root)
{
	return ranks_collective_flow(&x->groups, g, op, x->ranks, x->n, root);
}

static int by_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* A prefix collective's ranks of group g, each arrived: each leaves once every rank numbered
 * below it came (`ranks` are sorted by number, its members put in that order here). */
static void prefix_released(struct replay *x, size_t g)
{
	size_t *members = &x->groups.members[x->groups.at[g]];
	qsort(members, group_size(x, g), sizeof *members, by_index);
	double latest = 0;
	for (size_t m = 0; m < group_size(x, g); m++) {
		struct runner *q = &x->run[members[m]];
		latest = q->clock > latest ? q->clock : latest;
		q->clock = latest;
	}
}

/* Rank r arrives at blocking collective `op`: false while others of its group have not; the last
 * to come releases them all, a rooted one's ranks when what they wait for came (each rank's
 * clock is its arrival's then). */
static bool collective_passed(struct replay *x, size_t r, const struct op *op, size_t g)
{
	struct runner *me = &x->run[r];
	if (!me->waiting) {
		me->waiting = true;
		x->latest[g] = me->clock > x->latest[g] ? me->clock : x->latest[g];
		x->arrived[g]++;
	}
	if (x->arrived[g] < group_size(x, g))
		return false;
	size_t root;
	enum ranks_flow flow = group_flow(x, g, op, &root);
	double from_root = root != SIZE_MAX ? x->run[root].clock : 0;
	if (flow == RANKS_PREFIX)
		prefix_released(x, g);
	for (size_t m = x->groups.at[g]; m < x->groups.at[g + 1]; m++) {
		size_t q = x->groups.members[m];
		if (flow == RANKS_ALL_TO_ALL || (flow == RANKS_ALL_TO_ONE && q == root))
			x->run[q].clock = x->latest[g];
		else if (flow == RANKS_ONE_TO_ALL && from_root > x->run[q].clock)
			x->run[q].clock = from_root;
		x->run[q].waiting = false;
		if (q != r) {
			x->run[q].at++;
			replay_queue(x, q);
		}
	}
	return true;
}

/* Rank r starts nonblocking collective `op` of group g: the last to start wakes those that wait
 * for its completion. */
static void collective_started(struct replay *x, size_t r, const struct op *op, size_t g)
{
	double clock = x->run[r].clock;
	x->latest[g] = clock > x->latest[g] ? clock : x->latest[g];
	if (x->ranks[r].number == op->peer)
		x->root_clock[g] = clock;
	if (++x->arrived[g] < group_size(x, g))
		return;
	for (size_t m = x->groups.at[g]; m < x->groups.at[g + 1]; m++) {
		struct runner *q = &x->run[x->groups.members[m]];
		if (q->blocked_on == g + 1)
			replay_queue(x, x->groups.members[m]);
		q->blocked_on = 0;
	}
}

/* Rank r completes nonblocking collective `op` of group g: false while others have not started
 * it; then it waits for what it needs, as a blocking one's rank. */
static bool collective_completed(struct replay *x, size_t r, const struct op *op, size_t g)
{
	struct runner *me = &x->run[r];
	if (x->arrived[g] < group_size(x, g)) {
		me->blocked_on = g + 1;
		return false;
	}
	size_t root;
	enum ranks_flow flow = group_flow(x, g, op, &root);
	double from = flow == RANKS_ONE_TO_ALL ? x->root_clock[g] : x->latest[g];
	/* a nonblocking prefix's completion waits for every start (its starts' clocks not kept) */
	if ((flow == RANKS_ALL_TO_ALL || flow == RANKS_PREFIX ||
	     (flow == RANKS_ALL_TO_ONE && r == root) || (flow == RANKS_ONE_TO_ALL && r != root)) &&
	    from > me->clock)
		me->clock = from;
	return true;
}

/*
 * The ideal network's run time (ns), or -1 when the replay cannot finish (a receive whose send
 * never comes, collectives that do not pair up). A worklist of the ranks that can go on: a rank
 * blocked on a receive goes on when its send is replayed, the ranks in a collective when the
 * last of them reaches it (or starts it). Each operation is replayed once, each collective
 * releases its ranks once.
 */
double ranks_ideal_run(const struct ranks_pop *p, const struct ranks_pop_rank *ranks, size_t n,
		       const size_t *first, const size_t *end, const double *burst,
		       const size_t *sender)
{
	struct replay x = {.ranks = ranks, .n = n};
	bool paired = ranks_collectives_grouped(p->ops, p->n_ops, n, first, end, &x.groups);
	x.run = calloc(n, sizeof *x.run);
	x.work = calloc(n + 1, sizeof *x.work);
	x.latest = calloc(x.groups.n + 1, sizeof *x.latest);
	x.root_clock = calloc(x.groups.n + 1, sizeof *x.root_clock);
	x.arrived = calloc(x.groups.n + 1, sizeof *x.arrived);
	double *sent = calloc(p->n_ops + 1, sizeof *sent), result = -1;
	bool *replayed = calloc(p->n_ops + 1, sizeof *replayed);
	size_t *blocked_by = calloc(p->n_ops + 1, sizeof *blocked_by); /* send -> 1 + its rank */
	if (!paired || x.run == NULL || x.work == NULL || x.latest == NULL ||
	    x.root_clock == NULL || x.arrived == NULL || sent == NULL || replayed == NULL ||
	    blocked_by == NULL)
		goto out;
	for (size_t r = 0; r < n; r++) {
		x.run[r] = (struct runner){.at = first[r], .end = end[r]};
		replay_queue(&x, r);
	}
	while (x.n_work > 0) {
		size_t r = x.work[--x.n_work];
		struct runner *me = &x.run[r];
		me->queued = false;
		for (; me->at < me->end; me->at++) {
			const struct op *op = &p->ops[me->at];
			size_t g = x.groups.of[me->at];
			if (op->type == OP_BURST) {
				me->clock += burst[me->at];
			} else if (op->type == OP_SEND) {
				sent[me->at] = me->clock;
				replayed[me->at] = true;
				if (blocked_by[me->at] != 0)
					replay_queue(&x, blocked_by[me->at] - 1);
			} else if (op->type == OP_RECV && sender[me->at] != SIZE_MAX) {
				size_t s = sender[me->at];
				if (!replayed[s]) {
					blocked_by[s] = r + 1;
					break;
				}
				me->clock = sent[s] > me->clock ? sent[s] : me->clock;
			} else if (op->type == OP_COLLECTIVE_START) {
				collective_started(&x, r, op, g);
			} else if ((op->type == OP_COLLECTIVE_DONE &&
				    !collective_completed(&x, r, op, g)) ||
				   (op->type == OP_COLLECTIVE &&
				    !collective_passed(&x, r, op, g))) {
				break;
			}
		}
	}
	result = 0;
	for (size_t r = 0; r < n; r++) {
		if (x.run[r].at < x.run[r].end) { /* blocked for good: the pairing failed */
			result = -1;
			break;
		}
		result = x.run[r].clock > result ? x.run[r].clock : result;
	}
out:
	ranks_groups_free(&x.groups);
	free(x.run);
	free(x.work);
	free(x.latest);
	free(x.root_clock);
	free(x.arrived);
	free(sent);
	free(replayed);
	free(blocked_by);
	return result;
}
