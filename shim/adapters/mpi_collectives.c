// SPDX-License-Identifier: MIT
/*
 * The MPI adapter's collectives, every rank of a communicator taking part: the blocking ones,
 * waits of kind mpi (their object the call's number) with their mpi-collective right before; the
 * nonblocking ones (MPI_Ibarrier to MPI_Iexscan), no waits, their mpi-collective at their start
 * and again inside the wait or test that completes their request (mpi.c keeps it, with the
 * receives started), so that an analysis finds where each rank needed the others' part
 * (ranks_pop.c's ideal run).
 */
#define _GNU_SOURCE
#include "mpi_events.h"
#include "mpi_interpose.h"

/*
 * A blocking collective `call` on `comm`, rooted at its rank `root` (-1: no root), starts: its
 * mpi-collective, right before its wait (so that the wait's start and end, one after the other,
 * share a record); returns the root's rank in MPI_COMM_WORLD for the wait's start (-1: none).
 */
static int64_t collective_event(uint32_t call, handle comm, int root)
{
	struct tp_mpi_collective c;
	if (!tp_mpi_collective_of(call, comm, root, &c))
		return tp_mpi_collective_root(comm, root);
	tp_fire_mpi_collective(c.call, c.root, c.communicator, c.size);
	return c.root;
}

/* Nonblocking collective `call` on `comm`, rooted at its rank `root` (-1: no root), started
 * (`ret` 0) with its request at `request`: its mpi-collective, and its request kept. */
static void collective_started(int ret, uint32_t call, handle comm, int root, const void *request)
{
	struct tp_mpi_collective c;
	if (ret != 0 || !tp_mpi_collective_of(call, comm, root, &c))
		return;
	tp_fire_mpi_collective(c.call, c.root, c.communicator, c.size);
	tp_mpi_collective_pending(request, &c);
}

/* The blocking collectives: waits, on every rank of the communicator; their mpi-collective
 * before it. */
TP_MPI_INTERPOSE_ROOTED(Barrier, TP_MPI_CALL_BARRIER,
			collective_event(TP_MPI_CALL_BARRIER, comm, -1), (handle comm), (comm),
			NOTHING, NOTHING);
TP_MPI_INTERPOSE_ROOTED(Bcast, TP_MPI_CALL_BCAST, collective_event(TP_MPI_CALL_BCAST, comm, root),
			(void *buf, int count, handle type, int root, handle comm),
			(buf, count, type, root, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE_ROOTED(Reduce, TP_MPI_CALL_REDUCE,
			collective_event(TP_MPI_CALL_REDUCE, comm, root),
			(const void *s, void *r, int count, handle type, handle op, int root,
			 handle comm),
			(s, r, count, type, op, root, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE_ROOTED(Allreduce, TP_MPI_CALL_ALLREDUCE,
			collective_event(TP_MPI_CALL_ALLREDUCE, comm, -1),
			(const void *s, void *r, int count, handle type, handle op, handle comm),
			(s, r, count, type, op, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE_ROOTED(Gather, TP_MPI_CALL_GATHER,
			collective_event(TP_MPI_CALL_GATHER, comm, root),
			(const void *s, int sc, handle st, void *r, int rc, handle rt, int root,
			 handle comm),
			(s, sc, st, r, rc, rt, root, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE_ROOTED(Gatherv, TP_MPI_CALL_GATHERV,
			collective_event(TP_MPI_CALL_GATHERV, comm, root),
			(const void *s, int sc, handle st, void *r, const int *rcs,
			 const int *displs, handle rt, int root, handle comm),
			(s, sc, st, r, rcs, displs, rt, root, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE_ROOTED(Scatter, TP_MPI_CALL_SCATTER,
			collective_event(TP_MPI_CALL_SCATTER, comm, root),
			(const void *s, int sc, handle st, void *r, int rc, handle rt, int root,
			 handle comm),
			(s, sc, st, r, rc, rt, root, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE_ROOTED(Scatterv, TP_MPI_CALL_SCATTERV,
			collective_event(TP_MPI_CALL_SCATTERV, comm, root),
			(const void *s, const int *scs, const int *displs, handle st, void *r,
			 int rc, handle rt, int root, handle comm),
			(s, scs, displs, st, r, rc, rt, root, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE_ROOTED(Allgather, TP_MPI_CALL_ALLGATHER,
			collective_event(TP_MPI_CALL_ALLGATHER, comm, -1),
			(const void *s, int sc, handle st, void *r, int rc, handle rt, handle comm),
			(s, sc, st, r, rc, rt, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE_ROOTED(Allgatherv, TP_MPI_CALL_ALLGATHERV,
			collective_event(TP_MPI_CALL_ALLGATHERV, comm, -1),
			(const void *s, int sc, handle st, void *r, const int *rcs,
			 const int *displs, handle rt, handle comm),
			(s, sc, st, r, rcs, displs, rt, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE_ROOTED(Alltoall, TP_MPI_CALL_ALLTOALL,
			collective_event(TP_MPI_CALL_ALLTOALL, comm, -1),
			(const void *s, int sc, handle st, void *r, int rc, handle rt, handle comm),
			(s, sc, st, r, rc, rt, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE_ROOTED(Alltoallv, TP_MPI_CALL_ALLTOALLV,
			collective_event(TP_MPI_CALL_ALLTOALLV, comm, -1),
			(const void *s, const int *scs, const int *sdispls, handle st, void *r,
			 const int *rcs, const int *rdispls, handle rt, handle comm),
			(s, scs, sdispls, st, r, rcs, rdispls, rt, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE_ROOTED(Reduce_scatter, TP_MPI_CALL_REDUCE_SCATTER,
			collective_event(TP_MPI_CALL_REDUCE_SCATTER, comm, -1),
			(const void *s, void *r, const int *rcs, handle type, handle op,
			 handle comm),
			(s, r, rcs, type, op, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE_ROOTED(Reduce_scatter_block, TP_MPI_CALL_REDUCE_SCATTER_BLOCK,
			collective_event(TP_MPI_CALL_REDUCE_SCATTER_BLOCK, comm, -1),
			(const void *s, void *r, int rc, handle type, handle op, handle comm),
			(s, r, rc, type, op, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE_ROOTED(Scan, TP_MPI_CALL_SCAN, collective_event(TP_MPI_CALL_SCAN, comm, -1),
			(const void *s, void *r, int count, handle type, handle op, handle comm),
			(s, r, count, type, op, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE_ROOTED(Exscan, TP_MPI_CALL_EXSCAN, collective_event(TP_MPI_CALL_EXSCAN, comm, -1),
			(const void *s, void *r, int count, handle type, handle op, handle comm),
			(s, r, count, type, op, comm), NOTHING, NOTHING);

/* The nonblocking collectives: no waits; their mpi-collective at their start. */
#define STARTED(call)        collective_started(ret_, call, comm, -1, request)
#define ROOTED_STARTED(call) collective_started(ret_, call, comm, root, request)
TP_MPI_INTERPOSE(Ibarrier, 0, (handle comm, void *request), (comm, request), NOTHING,
		 STARTED(TP_MPI_CALL_IBARRIER));
TP_MPI_INTERPOSE(Ibcast, 0,
		 (void *buf, int count, handle type, int root, handle comm, void *request),
		 (buf, count, type, root, comm, request), NOTHING,
		 ROOTED_STARTED(TP_MPI_CALL_IBCAST));
TP_MPI_INTERPOSE(Ireduce, 0,
		 (const void *s, void *r, int count, handle type, handle op, int root, handle comm,
		  void *request),
		 (s, r, count, type, op, root, comm, request), NOTHING,
		 ROOTED_STARTED(TP_MPI_CALL_IREDUCE));
TP_MPI_INTERPOSE(Iallreduce, 0,
		 (const void *s, void *r, int count, handle type, handle op, handle comm,
		  void *request),
		 (s, r, count, type, op, comm, request), NOTHING, STARTED(TP_MPI_CALL_IALLREDUCE));
TP_MPI_INTERPOSE(Igather, 0,
		 (const void *s, int sc, handle st, void *r, int rc, handle rt, int root,
		  handle comm, void *request),
		 (s, sc, st, r, rc, rt, root, comm, request), NOTHING,
		 ROOTED_STARTED(TP_MPI_CALL_IGATHER));
TP_MPI_INTERPOSE(Igatherv, 0,
		 (const void *s, int sc, handle st, void *r, const int *rcs, const int *displs,
		  handle rt, int root, handle comm, void *request),
		 (s, sc, st, r, rcs, displs, rt, root, comm, request), NOTHING,
		 ROOTED_STARTED(TP_MPI_CALL_IGATHERV));
TP_MPI_INTERPOSE(Iscatter, 0,
		 (const void *s, int sc, handle st, void *r, int rc, handle rt, int root,
		  handle comm, void *request),
		 (s, sc, st, r, rc, rt, root, comm, request), NOTHING,
		 ROOTED_STARTED(TP_MPI_CALL_ISCATTER));
TP_MPI_INTERPOSE(Iscatterv, 0,
		 (const void *s, const int *scs, const int *displs, handle st, void *r, int rc,
		  handle rt, int root, handle comm, void *request),
		 (s, scs, displs, st, r, rc, rt, root, comm, request), NOTHING,
		 ROOTED_STARTED(TP_MPI_CALL_ISCATTERV));
TP_MPI_INTERPOSE(Iallgather, 0,
		 (const void *s, int sc, handle st, void *r, int rc, handle rt, handle comm,
		  void *request),
		 (s, sc, st, r, rc, rt, comm, request), NOTHING, STARTED(TP_MPI_CALL_IALLGATHER));
TP_MPI_INTERPOSE(Iallgatherv, 0,
		 (const void *s, int sc, handle st, void *r, const int *rcs, const int *displs,
		  handle rt, handle comm, void *request),
		 (s, sc, st, r, rcs, displs, rt, comm, request), NOTHING,
		 STARTED(TP_MPI_CALL_IALLGATHERV));
TP_MPI_INTERPOSE(Ialltoall, 0,
		 (const void *s, int sc, handle st, void *r, int rc, handle rt, handle comm,
		  void *request),
		 (s, sc, st, r, rc, rt, comm, request), NOTHING, STARTED(TP_MPI_CALL_IALLTOALL));
TP_MPI_INTERPOSE(Ialltoallv, 0,
		 (const void *s, const int *scs, const int *sdispls, handle st, void *r,
		  const int *rcs, const int *rdispls, handle rt, handle comm, void *request),
		 (s, scs, sdispls, st, r, rcs, rdispls, rt, comm, request), NOTHING,
		 STARTED(TP_MPI_CALL_IALLTOALLV));
TP_MPI_INTERPOSE(Ireduce_scatter, 0,
		 (const void *s, void *r, const int *rcs, handle type, handle op, handle comm,
		  void *request),
		 (s, r, rcs, type, op, comm, request), NOTHING,
		 STARTED(TP_MPI_CALL_IREDUCE_SCATTER));
TP_MPI_INTERPOSE(Ireduce_scatter_block, 0,
		 (const void *s, void *r, int rc, handle type, handle op, handle comm,
		  void *request),
		 (s, r, rc, type, op, comm, request), NOTHING,
		 STARTED(TP_MPI_CALL_IREDUCE_SCATTER_BLOCK));
TP_MPI_INTERPOSE(Iscan, 0,
		 (const void *s, void *r, int count, handle type, handle op, handle comm,
		  void *request),
		 (s, r, count, type, op, comm, request), NOTHING, STARTED(TP_MPI_CALL_ISCAN));
TP_MPI_INTERPOSE(Iexscan, 0,
		 (const void *s, void *r, int count, handle type, handle op, handle comm,
		  void *request),
		 (s, r, count, type, op, comm, request), NOTHING, STARTED(TP_MPI_CALL_IEXSCAN));
