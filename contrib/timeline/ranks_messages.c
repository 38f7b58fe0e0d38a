// SPDX-License-Identifier: MIT
/*
 * Messages paired in MPI's order (ranks_pop.h): the n-th send of a key (from, to, tag,
 * communicator) is received by the n-th receive of the same key. The ranks' clocks' alignment
 * and the ideal network's replay (ranks_pop.c) both pair their messages so.
 */
#include <stdlib.h>

#include "ranks_pop.h"

/* The order of two ends' keys (from, to, tag, communicator). */
static int by_key(const struct ranks_message_end *x, const struct ranks_message_end *y)
{
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return (x->communicator > y->communicator) - (x->communicator < y->communicator);
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
