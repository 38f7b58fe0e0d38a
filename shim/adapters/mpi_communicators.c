// SPDX-License-Identifier: MIT
/*
 * The MPI adapter's communicators as mpi-collective tells them (PROBES.md): an identity that each
 * of a communicator's ranks finds the same with no message between them, its size, and a rooted
 * collective's root in MPI_COMM_WORLD.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "events.h"
#include "mpi_abi.h"

/* The root of a rooted collective on `comm`, in MPI_COMM_WORLD (-1: not told). */
int64_t tp_mpi_collective_root(handle comm, int root)
{
	if (!tp_mpi_abi_known() || root < 0)
		return -1;
	int saved_errno = errno, world = tp_mpi_world_rank(comm, root);
	errno = saved_errno;
	return world >= 0 ? world : -1;
}

/* A communicator's ranks translated at once: a block on the stack. */
#define RANKS_AT_ONCE 64

/*
 * A communicator's identity, the same in each of its ranks with no message between them: a hash
 * of its ranks in MPI_COMM_WORLD, in its order, never 0 (communicators of the same ranks in the
 * same order are one to it: MPI_COMM_WORLD and its duplicates, say); in *size its ranks, in
 * *root_world its rank `root`'s in MPI_COMM_WORLD (-1 for none). An intercommunicator's is its
 * local group's: its two sides differ, and an analysis pairing its collectives finds them
 * unpaired (ranks_pop.c). Read at each call, not kept by handle: a freed communicator's handle
 * may become another's. False when it cannot be told.
 */
static bool communicator_identity(handle comm, int root, uint64_t *identity, int *size,
				  int32_t *root_world)
{
	handle group = 0, world = tp_mpi_world_group();
	if (tp_mpi_abi.comm_size(comm, size) != 0 || *size <= 0 || world == 0 ||
	    tp_mpi_abi.comm_group(comm, &group) != 0)
		return false;
	uint64_t h = UINT64_C(0xcbf29ce484222325); /* FNV-1a, a rank's four bytes at a time */
	bool told = true;
	*root_world = -1;
	for (int at = 0; told && at < *size; at += RANKS_AT_ONCE) {
		int n = *size - at < RANKS_AT_ONCE ? *size - at : RANKS_AT_ONCE;
		int local[RANKS_AT_ONCE], out[RANKS_AT_ONCE];
		for (int i = 0; i < n; i++)
			local[i] = at + i;
		told = tp_mpi_abi.group_translate(group, n, local, world, out) == 0;
		for (int i = 0; told && i < n; i++) {
			for (unsigned b = 0; b < 4; b++)
				h = (h ^ ((uint32_t)out[i] >> (8 * b) & 0xff)) *
				    UINT64_C(0x100000001b3);
			if (at + i == root)
				*root_world = out[i];
		}
	}
	tp_mpi_abi.group_free(&group);
	*identity = h != 0 ? h : 1;
	return told;
}

/*
 * A communicator keeps its identity as an attribute under the adapter's key, so that a collective
 * on it reads its ranks once, not at each call (hundreds of instructions a block of ranks): MPI
 * deletes the attribute with the communicator, whose handle may then become another's, and a
 * duplicate gets none (its own is read, the same). The key: 0 while not made, 1 being made, 2
 * made, 3 none (the implementation has no attributes, or refused the key).
 */
static int identity_key_state, identity_key;

/*
 * The identities of the communicators that keep one, as their attribute holds it, by handle: a
 * table of KEPT_SLOTS, one slot a handle (its hash's; another's takes it), read in a few
 * instructions where the attribute's look-up takes a hundred and more. A slot is emptied when
 * MPI deletes the attribute (identity_deleted: the communicator is freed, its handle may become
 * another's), and filled only once the attribute is set. Its handle is written last and read
 * again after the rest: a slot refilled meanwhile reads as none.
 */
#define KEPT_SLOTS 64 /* a power of two */
static struct {
	handle comm; /* 0: none (no interface's communicator) */
	uint64_t identity;
	int size;
} kept[KEPT_SLOTS];

static size_t kept_slot(handle comm)
{
	return tp_mpi_request_slot(comm, 0, KEPT_SLOTS);
}

/* The identity and size kept for `comm`; false when none is. */
static bool kept_find(handle comm, uint64_t *identity, int *size)
{
	size_t i = kept_slot(comm);
	if (__atomic_load_n(&kept[i].comm, __ATOMIC_ACQUIRE) != comm)
		return false;
	*identity = __atomic_load_n(&kept[i].identity, __ATOMIC_RELAXED);
	*size = __atomic_load_n(&kept[i].size, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&kept[i].comm, __ATOMIC_RELAXED) == comm && *identity != 0;
}

static void kept_put(handle comm, uint64_t identity, int size)
{
	size_t i = kept_slot(comm);
	__atomic_store_n(&kept[i].comm, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&kept[i].identity, identity, __ATOMIC_RELAXED);
	__atomic_store_n(&kept[i].size, size, __ATOMIC_RELAXED);
	__atomic_store_n(&kept[i].comm, comm, __ATOMIC_RELEASE);
}

/* The key's copy callback: a duplicate's identity is read for it. */
static int identity_not_copied(handle comm, int key, void *extra, void *in, void *out, int *flag)
{
	(void)comm, (void)key, (void)extra, (void)in, (void)out;
	*flag = 0;
	return 0; /* MPI_SUCCESS, in both interfaces */
}

/* Its delete callback: nothing to free (the identity is the attribute's value); the slot kept for
 * the communicator's handle emptied. */
static int identity_deleted(handle comm, int key, void *value, void *extra)
{
	(void)key, (void)value, (void)extra;
	handle expected = comm;
	__atomic_compare_exchange_n(&kept[kept_slot(comm)].comm, &expected, 0, false,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	return 0;
}

/* The key, made at the first call that needs it (racing first calls: one makes it, the others
 * read the ranks this once); false when there is none. */
static bool identity_keyed(int *key)
{
	_Static_assert(sizeof(void *) == sizeof(uint64_t), "an identity is an attribute's value");
	int state = __atomic_load_n(&identity_key_state, __ATOMIC_ACQUIRE);
	if (state == 0 && __atomic_compare_exchange_n(&identity_key_state, &state, 1, false,
						      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		state = tp_mpi_abi.create_keyval != NULL && tp_mpi_abi.get_attr != NULL &&
					tp_mpi_abi.set_attr != NULL &&
					tp_mpi_abi.create_keyval((void *)identity_not_copied,
								 (void *)identity_deleted,
								 &identity_key, NULL) == 0
				? 2
				: 3;
		__atomic_store_n(&identity_key_state, state, __ATOMIC_RELEASE);
	}
	*key = identity_key;
	return state == 2;
}

/* The identity `comm` keeps (identity_keyed), in *identity; false when it keeps none. */
static bool identity_kept(handle comm, uint64_t *identity)
{
	int key, flag = 0;
	void *value = NULL;
	if (!identity_keyed(&key) || tp_mpi_abi.get_attr(comm, key, &value, &flag) != 0 || !flag)
		return false;
	*identity = (uint64_t)(uintptr_t)value;
	return *identity != 0;
}

/* communicator_identity's, MPI_COMM_WORLD's read once, another communicator's kept with it. */
bool tp_mpi_collective_of(uint32_t call, handle comm, int root, struct tp_mpi_collective *out)
{
	static uint64_t world_identity;
	static int world_size;
	if (!tp_listeners_mpi_collective() || !tp_mpi_abi_known() ||
	    (comm & tp_mpi_abi.mask) == tp_mpi_abi.comm_null) /* tp_mpi_world_rank's reason */
		return false;
	int saved_errno = errno, size = 0, key;
	bool world = (comm & tp_mpi_abi.mask) == tp_mpi_abi.comm_world, told = true;
	*out = (struct tp_mpi_collective){.call = call};
	if (world &&
	    (out->communicator = __atomic_load_n(&world_identity, __ATOMIC_ACQUIRE)) != 0) {
		size = __atomic_load_n(&world_size, __ATOMIC_RELAXED);
		out->root = root >= 0 && root < size ? root : -1;
	} else if (!world && kept_find(comm, &out->communicator, &size)) {
		out->root = (int32_t)tp_mpi_collective_root(comm, root);
	} else if (!world && identity_kept(comm, &out->communicator)) {
		told = tp_mpi_abi.comm_size(comm, &size) == 0 && size > 0;
		out->root = (int32_t)tp_mpi_collective_root(comm, root);
		if (told)
			kept_put(comm, out->communicator, size);
	} else if ((told = communicator_identity(comm, root, &out->communicator, &size,
						 &out->root))) {
		if (world) { /* racing first calls store the same */
			__atomic_store_n(&world_size, size, __ATOMIC_RELAXED);
			__atomic_store_n(&world_identity, out->communicator, __ATOMIC_RELEASE);
		} else if (identity_keyed(&key) &&
			   tp_mpi_abi.set_attr(comm, key, (void *)(uintptr_t)out->communicator) ==
				   0) {
			kept_put(comm, out->communicator, size);
		}
	}
	out->size = (uint32_t)size;
	errno = saved_errno;
	return told;
}
