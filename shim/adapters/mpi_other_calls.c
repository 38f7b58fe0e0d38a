// SPDX-License-Identifier: MIT
/*
 * The MPI adapter's waits that carry no message the events read (mpi.c has those that do): calls
 * that block until other ranks take part, whose time is MPI's and not useful. A communicator's
 * making (MPI_Comm_split, _dup, _create; its identity kept), MPI_Alltoallw and the neighbourhood collectives,
 * one-sided communication's synchronisation (fences, access and exposure epochs, locks and
 * flushes), and file I/O. Each a wait of kind mpi, its object the call's number; none takes part
 * in the ideal run of the POP factors as a collective does (a neighbourhood's or a window's
 * ranks are not every rank): its time is waiting, that is all.
 */
#define _GNU_SOURCE
#include "mpi_interpose.h"

/* An MPI_Offset: a file's offset in bytes. */
typedef long long offset;

/*
 * The calls that make a communicator from another, every rank of that one taking part, in one
 * order: the new one's identity made of its parent's (tp_mpi_communicator_made). Each blocking
 * one a wait: the time a rank spends in it waiting for the others is MPI's, not useful.
 * MPI_Comm_idup's (and MPI 4's _idup_with_info's), no wait, is counted at the call and kept when
 * its request completes (its communicator is not to be used before). MPI_Intercomm_merge's
 * parent is an intercommunicator, whose identity its two sides share. MPI_Comm_create_group's
 * group's ranks alone take part: its parent's identity, its tag and its ranks make its
 * identity, uncounted. MPI_Intercomm_create's two sides have parents of their own: its identity
 * is its two groups', its tag and a count of those made between them (PROBES.md). MPI 4's
 * MPI_Intercomm_create_from_groups is told so by its string tag, and MPI_Comm_create_from_group
 * (no parent) by its string tag, a count of those made with it, and its ranks.
 */
TP_MPI_INTERPOSE(Comm_split, TP_MPI_CALL_COMM_SPLIT,
		 (handle comm, int color, int key, handle *newcomm), (comm, color, key, newcomm),
		 NOTHING, tp_mpi_communicator_made(ret_, comm, newcomm));
TP_MPI_INTERPOSE(Comm_dup, TP_MPI_CALL_COMM_DUP, (handle comm, handle *newcomm), (comm, newcomm),
		 NOTHING, tp_mpi_communicator_made(ret_, comm, newcomm));
TP_MPI_INTERPOSE(Comm_create, TP_MPI_CALL_COMM_CREATE, (handle comm, handle group, handle *newcomm),
		 (comm, group, newcomm), NOTHING, tp_mpi_communicator_made(ret_, comm, newcomm));
TP_MPI_INTERPOSE(Comm_split_type, TP_MPI_CALL_COMM_SPLIT_TYPE,
		 (handle comm, int type, int key, handle info, handle *newcomm),
		 (comm, type, key, info, newcomm), NOTHING,
		 tp_mpi_communicator_made(ret_, comm, newcomm));
TP_MPI_INTERPOSE(Comm_dup_with_info, TP_MPI_CALL_COMM_DUP_WITH_INFO,
		 (handle comm, handle info, handle *newcomm), (comm, info, newcomm), NOTHING,
		 tp_mpi_communicator_made(ret_, comm, newcomm));
TP_MPI_INTERPOSE(Comm_idup, 0, (handle comm, handle *newcomm, void *request),
		 (comm, newcomm, request), NOTHING,
		 tp_mpi_communicator_made_later(ret_, comm, newcomm, request));
TP_MPI_INTERPOSE(Comm_idup_with_info, 0, (handle comm, handle info, handle *newcomm, void *request),
		 (comm, info, newcomm, request), NOTHING,
		 tp_mpi_communicator_made_later(ret_, comm, newcomm, request));
TP_MPI_INTERPOSE(Intercomm_merge, TP_MPI_CALL_INTERCOMM_MERGE,
		 (handle intercomm, int high, handle *newcomm), (intercomm, high, newcomm), NOTHING,
		 tp_mpi_communicator_made(ret_, intercomm, newcomm));
TP_MPI_INTERPOSE(Intercomm_create, TP_MPI_CALL_INTERCOMM_CREATE,
		 (handle local, int local_leader, handle peer, int remote_leader, int tag,
		  handle *newcomm),
		 (local, local_leader, peer, remote_leader, tag, newcomm), NOTHING,
		 tp_mpi_intercommunicator_made(ret_, tag, newcomm));
TP_MPI_INTERPOSE(Intercomm_create_from_groups, TP_MPI_CALL_INTERCOMM_CREATE_FROM_GROUPS,
		 (handle local, int local_leader, handle remote, int remote_leader,
		  const char *string_tag, handle info, handle errhandler, handle *newcomm),
		 (local, local_leader, remote, remote_leader, string_tag, info, errhandler,
		  newcomm),
		 NOTHING, tp_mpi_intercommunicator_made_by_name(ret_, string_tag, newcomm));
TP_MPI_INTERPOSE(Comm_create_from_group, TP_MPI_CALL_COMM_CREATE_FROM_GROUP,
		 (handle group, const char *string_tag, handle info, handle errhandler,
		  handle *newcomm),
		 (group, string_tag, info, errhandler, newcomm), NOTHING,
		 tp_mpi_communicator_made_by_name(ret_, string_tag, newcomm));
TP_MPI_INTERPOSE(Comm_create_group, TP_MPI_CALL_COMM_CREATE_GROUP,
		 (handle comm, handle group, int tag, handle *newcomm), (comm, group, tag, newcomm),
		 NOTHING, tp_mpi_communicator_made_by_group(ret_, comm, tag, newcomm));
TP_MPI_INTERPOSE(Cart_create, TP_MPI_CALL_CART_CREATE,
		 (handle comm, int ndims, const int *dims, const int *periods, int reorder,
		  handle *newcomm),
		 (comm, ndims, dims, periods, reorder, newcomm), NOTHING,
		 tp_mpi_communicator_made(ret_, comm, newcomm));
TP_MPI_INTERPOSE(Cart_sub, TP_MPI_CALL_CART_SUB, (handle comm, const int *remain, handle *newcomm),
		 (comm, remain, newcomm), NOTHING, tp_mpi_communicator_made(ret_, comm, newcomm));
TP_MPI_INTERPOSE(Graph_create, TP_MPI_CALL_GRAPH_CREATE,
		 (handle comm, int nnodes, const int *index, const int *edges, int reorder,
		  handle *newcomm),
		 (comm, nnodes, index, edges, reorder, newcomm), NOTHING,
		 tp_mpi_communicator_made(ret_, comm, newcomm));
TP_MPI_INTERPOSE(Dist_graph_create, TP_MPI_CALL_DIST_GRAPH_CREATE,
		 (handle comm, int n, const int *sources, const int *degrees,
		  const int *destinations, const int *weights, handle info, int reorder,
		  handle *newcomm),
		 (comm, n, sources, degrees, destinations, weights, info, reorder, newcomm),
		 NOTHING, tp_mpi_communicator_made(ret_, comm, newcomm));
TP_MPI_INTERPOSE(Dist_graph_create_adjacent, TP_MPI_CALL_DIST_GRAPH_CREATE_ADJACENT,
		 (handle comm, int indegree, const int *sources, const int *sourceweights,
		  int outdegree, const int *destinations, const int *destweights, handle info,
		  int reorder, handle *newcomm),
		 (comm, indegree, sources, sourceweights, outdegree, destinations, destweights,
		  info, reorder, newcomm),
		 NOTHING, tp_mpi_communicator_made(ret_, comm, newcomm));

TP_MPI_INTERPOSE(Alltoallw, TP_MPI_CALL_ALLTOALLW,
		 (const void *s, const int *scs, const int *sdispls, const handle *sts, void *r,
		  const int *rcs, const int *rdispls, const handle *rts, handle comm),
		 (s, scs, sdispls, sts, r, rcs, rdispls, rts, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE(Neighbor_allgather, TP_MPI_CALL_NEIGHBOR_ALLGATHER,
		 (const void *s, int sc, handle st, void *r, int rc, handle rt, handle comm),
		 (s, sc, st, r, rc, rt, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE(Neighbor_allgatherv, TP_MPI_CALL_NEIGHBOR_ALLGATHERV,
		 (const void *s, int sc, handle st, void *r, const int *rcs, const int *displs,
		  handle rt, handle comm),
		 (s, sc, st, r, rcs, displs, rt, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE(Neighbor_alltoall, TP_MPI_CALL_NEIGHBOR_ALLTOALL,
		 (const void *s, int sc, handle st, void *r, int rc, handle rt, handle comm),
		 (s, sc, st, r, rc, rt, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE(Neighbor_alltoallv, TP_MPI_CALL_NEIGHBOR_ALLTOALLV,
		 (const void *s, const int *scs, const int *sdispls, handle st, void *r,
		  const int *rcs, const int *rdispls, handle rt, handle comm),
		 (s, scs, sdispls, st, r, rcs, rdispls, rt, comm), NOTHING, NOTHING);
TP_MPI_INTERPOSE(Neighbor_alltoallw, TP_MPI_CALL_NEIGHBOR_ALLTOALLW,
		 (const void *s, const int *scs, const offset *sdispls, const handle *sts, void *r,
		  const int *rcs, const offset *rdispls, const handle *rts, handle comm),
		 (s, scs, sdispls, sts, r, rcs, rdispls, rts, comm), NOTHING, NOTHING);

/* One-sided communication: its epochs' synchronisation waits for the other ranks. */
TP_MPI_INTERPOSE(Win_fence, TP_MPI_CALL_WIN_FENCE, (int assertion, handle win), (assertion, win),
		 NOTHING, NOTHING);
TP_MPI_INTERPOSE(Win_start, TP_MPI_CALL_WIN_START, (handle group, int assertion, handle win),
		 (group, assertion, win), NOTHING, NOTHING);
TP_MPI_INTERPOSE(Win_complete, TP_MPI_CALL_WIN_COMPLETE, (handle win), (win), NOTHING, NOTHING);
TP_MPI_INTERPOSE(Win_wait, TP_MPI_CALL_WIN_WAIT, (handle win), (win), NOTHING, NOTHING);
TP_MPI_INTERPOSE(Win_lock, TP_MPI_CALL_WIN_LOCK,
		 (int lock_type, int rank, int assertion, handle win),
		 (lock_type, rank, assertion, win), NOTHING, NOTHING);
TP_MPI_INTERPOSE(Win_unlock, TP_MPI_CALL_WIN_UNLOCK, (int rank, handle win), (rank, win), NOTHING,
		 NOTHING);
TP_MPI_INTERPOSE(Win_lock_all, TP_MPI_CALL_WIN_LOCK_ALL, (int assertion, handle win),
		 (assertion, win), NOTHING, NOTHING);
TP_MPI_INTERPOSE(Win_unlock_all, TP_MPI_CALL_WIN_UNLOCK_ALL, (handle win), (win), NOTHING, NOTHING);
TP_MPI_INTERPOSE(Win_flush, TP_MPI_CALL_WIN_FLUSH, (int rank, handle win), (rank, win), NOTHING,
		 NOTHING);
TP_MPI_INTERPOSE(Win_flush_all, TP_MPI_CALL_WIN_FLUSH_ALL, (handle win), (win), NOTHING, NOTHING);

/* File I/O: opening and closing a file are collective; reads and writes wait for the file. */
TP_MPI_INTERPOSE(File_open, TP_MPI_CALL_FILE_OPEN,
		 (handle comm, const char *name, int amode, handle info, handle *fh),
		 (comm, name, amode, info, fh), NOTHING, NOTHING);
TP_MPI_INTERPOSE(File_close, TP_MPI_CALL_FILE_CLOSE, (handle * fh), (fh), NOTHING, NOTHING);
TP_MPI_INTERPOSE(File_sync, TP_MPI_CALL_FILE_SYNC, (handle fh), (fh), NOTHING, NOTHING);

/* A read's or a write's parameters and arguments, at the file's pointer or at an offset. */
#define TP_MPI_FILE_IO(name, call)                                                                 \
	TP_MPI_INTERPOSE(name, call, (handle fh, void *buf, int count, handle type, void *status), \
			 (fh, buf, count, type, status), NOTHING, NOTHING)
#define TP_MPI_FILE_IO_AT(name, call)                                                              \
	TP_MPI_INTERPOSE(name, call,                                                               \
			 (handle fh, offset at, void *buf, int count, handle type, void *status),  \
			 (fh, at, buf, count, type, status), NOTHING, NOTHING)
TP_MPI_FILE_IO(File_read, TP_MPI_CALL_FILE_READ);
TP_MPI_FILE_IO(File_write, TP_MPI_CALL_FILE_WRITE);
TP_MPI_FILE_IO(File_read_all, TP_MPI_CALL_FILE_READ_ALL);
TP_MPI_FILE_IO(File_write_all, TP_MPI_CALL_FILE_WRITE_ALL);
TP_MPI_FILE_IO_AT(File_read_at, TP_MPI_CALL_FILE_READ_AT);
TP_MPI_FILE_IO_AT(File_write_at, TP_MPI_CALL_FILE_WRITE_AT);
TP_MPI_FILE_IO_AT(File_read_at_all, TP_MPI_CALL_FILE_READ_AT_ALL);
TP_MPI_FILE_IO_AT(File_write_at_all, TP_MPI_CALL_FILE_WRITE_AT_ALL);
