// SPDX-License-Identifier: MIT
/*
 * The MPI adapter's events (adapters/mpi*.c): a rank's identity, its MPI window, its messages and
 * collectives, and the one check an MPI call makes when nobody listens. The rest of the events
 * layer: events.h.
 */
#pragma once

#include <stdint.h>

#include "events.h"

/*
 * Nonzero when anybody listens to the waits or to the MPI probes (mpi-init, mpi-send, mpi-recv,
 * mpi-collective: four semaphores read as one word): the only check an MPI call makes when
 * nobody listens.
 */
_Static_assert(__builtin_offsetof(struct tp_listener_block, other) + 7 * sizeof(unsigned short) ==
			       40 &&
		       sizeof(struct tp_listener_block) == 48,
	       "the MPI probes' semaphores, the last four of the block");
static inline uint64_t tp_listeners_mpi(void)
{
	uint64_t mpi;
	__builtin_memcpy(&mpi, &tp_listener_block.other[7], sizeof mpi);
	return tp_listeners_parks_and_waits() | mpi;
}

/* The rank's identity, at the end of its MPI_Init (host, job: NUL-terminated, job maybe empty). */
static inline void tp_fire_mpi_init(uint32_t rank, uint32_t size, const char *host, const char *job)
{
	TP_PROBE_MPI_INIT(rank, size, host, job);
	/* the live statistics' MPI window starts (work_span.h's tp_roi_step), and they name the
	 * rank; the recording's analysis finds both from the record */
	TP_IN_PROCESS(tp_record_mpi_init(rank, size, host, job),
		      (tp_live_mpi_rank(rank, size, job, host), tp_live_mpi_window(1),
		       tp_live_region_of_interest(1, TP_ROI_BY_MPI_WINDOW)),
		      TP_NOT_REPORTED);
}

/*
 * MPI_Finalize starts (its wait began): the live statistics' MPI window ends. No probe of its
 * own, no record: MPI_Finalize's wait-start says it to a tracer and to the recording's analysis.
 */
static inline void tp_fire_mpi_finalize_start(void)
{
	TP_IN_PROCESS((void)0,
		      (tp_live_mpi_window(0), tp_live_region_of_interest(0, TP_ROI_BY_MPI_WINDOW)),
		      TP_NOT_REPORTED);
}

/* A message's send (at its start) to world rank `peer`, on the communicator of identity `comm`
 * (0: not told). */
static inline void tp_fire_mpi_send(uint32_t peer, int32_t tag, uint64_t comm, uint64_t bytes)
{
	TP_PROBE_MPI_SEND(peer, tag, comm, bytes);
	TP_IN_PROCESS(tp_record(TP_RECORD_MPI_SEND, TP_RECORD_MPI_IDENTITY, 4, peer,
				(uint64_t)(int64_t)tag, comm, bytes),
		      (void)0, TP_NOT_REPORTED);
}

/* A message's receive (at its completion) from world rank `peer`, on the communicator of
 * identity `comm` (0: not told). */
static inline void tp_fire_mpi_recv(uint32_t peer, int32_t tag, uint64_t comm, uint64_t bytes)
{
	TP_PROBE_MPI_RECV(peer, tag, comm, bytes);
	TP_IN_PROCESS(tp_record(TP_RECORD_MPI_RECV, TP_RECORD_MPI_IDENTITY, 4, peer,
				(uint64_t)(int64_t)tag, comm, bytes),
		      (void)0, TP_NOT_REPORTED);
}

/*
 * A collective's start (a blocking one's right before its wait; a nonblocking one's at its start
 * and again in the wait or test completing it): its call (enum tp_mpi_call), its root's world
 * rank (-1: none), its communicator's identity (the same in each of its ranks) and its ranks.
 */
static inline void tp_fire_mpi_collective(uint32_t call, int32_t root, uint64_t communicator,
					  uint32_t size)
{
	TP_PROBE_MPI_COLLECTIVE(call, root, communicator, size);
	TP_IN_PROCESS(tp_record(TP_RECORD_MPI_COLLECTIVE, 0, 4, call, (uint64_t)(int64_t)root,
				communicator, size),
		      (void)0, TP_NOT_REPORTED);
}
