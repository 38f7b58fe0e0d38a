// SPDX-License-Identifier: MIT
/*
 * The MPI adapter's persistent requests (MPI_Send_init and its kin, MPI_Recv_init): each start of
 * one (MPI_Start, MPI_Startall) is a message's send, or a receive started, as the nonblocking
 * call's would be (mpi.c): its mpi-send at the start, its mpi-recv in the wait or test that
 * completes it. What a request made while traced was made for is kept here, by request, until
 * MPI_Request_free: one table for the process, its slots taken and given back with atomics, a
 * request looked for in PERSISTENT_PROBES slots from its hash (a request made when every one was
 * taken, or before a tracer attached, is told by its waits only).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>

#include "mpi_interpose.h"

#define PERSISTENT_SLOTS  512 /* a power of two */
#define PERSISTENT_PROBES 16
static struct {
	handle request; /* 0: a free slot (no interface's request) */
	handle comm, type;
	int peer, tag, count;
	bool receive;
} persistent[PERSISTENT_SLOTS];

static size_t persistent_slot(handle request, unsigned probe)
{
	return tp_mpi_request_slot(request, probe, PERSISTENT_SLOTS);
}

static handle *persistent_request(size_t slot)
{
	return &persistent[slot].request;
}

/* The slot of `request`, or SIZE_MAX. */
static size_t persistent_find(handle request)
{
	for (unsigned i = 0; request != 0 && i < PERSISTENT_PROBES; i++) {
		size_t slot = persistent_slot(request, i);
		if (__atomic_load_n(&persistent[slot].request, __ATOMIC_ACQUIRE) == request)
			return slot;
	}
	return SIZE_MAX;
}

/* Request `request` is no longer kept (freed, or its handle made again), nor what is pending of
 * it (an active receive freed: its completion is never seen, and its handle may become a
 * persistent request's, whose wait would complete it as a receive). */
static void persistent_forget(handle request)
{
	tp_mpi_request_forgotten(request);
	size_t slot = persistent_find(request);
	handle expected = request;
	if (slot != SIZE_MAX)
		__atomic_compare_exchange_n(&persistent[slot].request, &expected, 0, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/* A persistent send to `peer` (or a receive from it) made (`ret` 0) at `request`: kept. */
static void persistent_made(int ret, const void *request, bool receive, int peer, int tag,
			    handle comm, int count, handle type)
{
	handle r = ret == 0 ? tp_mpi_request_at(request, 0) : 0;
	if (r == 0)
		return;
	persistent_forget(r);
	size_t slot = tp_mpi_slot_claim(persistent_request, r, PERSISTENT_SLOTS, PERSISTENT_PROBES);
	if (slot == SIZE_MAX)
		return;
	__atomic_store_n(&persistent[slot].comm, comm, __ATOMIC_RELAXED);
	__atomic_store_n(&persistent[slot].type, type, __ATOMIC_RELAXED);
	__atomic_store_n(&persistent[slot].peer, peer, __ATOMIC_RELAXED);
	__atomic_store_n(&persistent[slot].tag, tag, __ATOMIC_RELAXED);
	__atomic_store_n(&persistent[slot].count, count, __ATOMIC_RELAXED);
	__atomic_store_n(&persistent[slot].receive, receive, __ATOMIC_RELAXED);
	__atomic_store_n(&persistent[slot].request, r, __ATOMIC_RELEASE);
}

/*
 * The `n` requests at `requests` start: before the call (`receives` false) each send's mpi-send,
 * after it (true, the call succeeded) each receive kept until it completes.
 */
static void persistent_started(const void *requests, int n, bool receives)
{
	for (int i = 0; i < n; i++) {
		size_t slot = persistent_find(tp_mpi_request_at(requests, i));
		if (slot == SIZE_MAX ||
		    __atomic_load_n(&persistent[slot].receive, __ATOMIC_RELAXED) != receives)
			continue;
		handle comm = __atomic_load_n(&persistent[slot].comm, __ATOMIC_RELAXED);
		if (receives)
			tp_mpi_receive_started(requests, i, comm);
		else
			tp_mpi_send_event(
				__atomic_load_n(&persistent[slot].peer, __ATOMIC_RELAXED),
				__atomic_load_n(&persistent[slot].tag, __ATOMIC_RELAXED), comm,
				__atomic_load_n(&persistent[slot].count, __ATOMIC_RELAXED),
				__atomic_load_n(&persistent[slot].type, __ATOMIC_RELAXED));
	}
}

#define PERSISTENT(name, receive)                                                                  \
	TP_MPI_INTERPOSE(name, 0,                                                                  \
			 (const void *buf, int count, handle type, int peer, int tag, handle comm, \
			  void *request),                                                          \
			 (buf, count, type, peer, tag, comm, request), NOTHING,                    \
			 persistent_made(ret_, request, receive, peer, tag, comm, count, type))
PERSISTENT(Send_init, false);
PERSISTENT(Ssend_init, false);
PERSISTENT(Bsend_init, false);
PERSISTENT(Rsend_init, false);
PERSISTENT(Recv_init, true);

TP_MPI_INTERPOSE(Start, 0, (void *request), (request), persistent_started(request, 1, false),
		 if (ret_ == 0) persistent_started(request, 1, true));
TP_MPI_INTERPOSE(Startall, 0, (int count, void *requests), (count, requests),
		 persistent_started(requests, count, false),
		 if (ret_ == 0) persistent_started(requests, count, true));
/* its handle read before the call, which sets it to MPI_REQUEST_NULL */
TP_MPI_INTERPOSE(Request_free, 0, (void *request), (request),
		 persistent_forget(tp_mpi_request_at(request, 0)), NOTHING);
