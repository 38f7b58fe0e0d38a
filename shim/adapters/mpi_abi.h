// SPDX-License-Identifier: MIT
/*
 * The MPI implementation's binary interface as the MPI adapter reads it (mpi.c looks it up; its
 * other files read it): handles and statuses, and the calls that tell ranks and communicators.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "mpi_interpose.h"

/*
 * The implementation's binary interface, as far as the events read it; `kind` 0 until looked
 * up (then written last), else ABI_OPEN_MPI, ABI_MPICH (MPICH and its derivatives: Intel MPI,
 * MVAPICH) or ABI_UNKNOWN (the waits alone are told).
 */
enum { ABI_OPEN_MPI = 1, ABI_MPICH, ABI_UNKNOWN };
struct tp_mpi_abi {
	int kind;
	handle comm_world, byte, mask; /* mask: a handle's bits (an int's in MPICH) */
	/* MPI_COMM_NULL, MPI_DATATYPE_NULL: no call of the adapter's is made on them (the program's
	 * call is erroneous; one of the adapter's would run the error handler once more) */
	handle comm_null, datatype_null;
	handle world_group;
	unsigned request_bytes, status_bytes, source_at, tag_at;
	uintptr_t status_ignore; /* MPI_STATUS_IGNORE, and MPI_STATUSES_IGNORE */
	int proc_null;
	int (*type_size)(handle type, int *size);
	int (*get_count)(const void *status, handle type, int *count);
	int (*comm_rank)(handle comm, int *rank);
	int (*comm_size)(handle comm, int *size);
	int (*comm_group)(handle comm, handle *group);
	int (*group_translate)(handle from, int n, const int *ranks, handle to, int *out);
	int (*group_free)(handle *group);
	/* MPI_Test_cancelled, or NULL */
	int (*test_cancelled)(const void *status, int *flag);
	/* MPI_Comm_test_inter, or NULL; then _remote_size and _remote_group */
	int (*comm_test_inter)(handle comm, int *flag);
	int (*comm_remote_size)(handle comm, int *size);
	int (*comm_remote_group)(handle comm, handle *group);
	/* MPI_Comm_create_keyval (its callbacks the adapter's), _get_attr, _set_attr, or NULL */
	int (*create_keyval)(void *copy, void *deleted, int *keyval, void *extra);
	int (*get_attr)(handle comm, int keyval, void *value, int *flag);
	int (*set_attr)(handle comm, int keyval, void *value);
};

__attribute__((visibility("hidden"))) extern struct tp_mpi_abi tp_mpi_abi;

/* Whether tp_mpi_abi is known: looked up once (racing first events find the same), only from an
 * MPI call. */
__attribute__((visibility("hidden"))) bool tp_mpi_abi_known(void);

/* MPI_COMM_WORLD's group, kept (0 when it cannot be told). */
__attribute__((visibility("hidden"))) handle tp_mpi_world_group(void);

/* Rank `rank` of communicator `comm` in MPI_COMM_WORLD (itself when it cannot be told). */
__attribute__((visibility("hidden"))) int tp_mpi_world_rank(handle comm, int rank);
