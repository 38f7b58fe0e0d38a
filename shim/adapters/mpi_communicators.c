// SPDX-License-Identifier: MIT
/*
 * The MPI adapter's communicators as mpi-collective, mpi-send and mpi-recv tell them (PROBES.md):
 * an identity that each of a communicator's ranks finds the same with no message between them,
 * its size, and a rooted collective's root in MPI_COMM_WORLD. A communicator made from another
 * by a call every rank of that one makes (MPI_Comm_dup, _split, _create, a topology's) has an
 * identity of its own, from its parent's and the parent's communicators made before it: MPI has
 * every rank of a communicator make them in one order. So a duplicate is not its parent, whose
 * ranks it has: messages of one tag between two ranks on the two are two orders (MPI's), not one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "mpi_events.h"
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

/* FNV-1a's start, and `value`'s `bytes` low bytes added to hash `h` (little-endian). */
#define FNV_START UINT64_C(0xcbf29ce484222325)
static uint64_t fnv_add(uint64_t h, uint64_t value, unsigned bytes)
{
	for (unsigned b = 0; b < bytes; b++)
		h = (h ^ (value >> (8 * b) & 0xff)) * UINT64_C(0x100000001b3);
	return h;
}

/*
 * A communicator's ranks in MPI_COMM_WORLD as kept with its identity, so that a message's peer
 * and a collective's root are translated without asking MPI (four calls, some 430 instructions a
 * message): RANKS_WORLD, each its own rank there (a duplicate of MPI_COMM_WORLD, a Cartesian
 * communicator of every rank not reordered); RANKS_KEPT, at most KEPT_RANKS of them, in `ranks`
 * (a row or a plane of a large grid, reordered: 1 KiB a kept communicator, in untouched pages
 * until used); else RANKS_NONE (MPI asked each time).
 */
#define KEPT_RANKS 256
enum { RANKS_NONE, RANKS_WORLD, RANKS_KEPT };
struct ranks_told {
	int32_t order;
	int32_t ranks[KEPT_RANKS];
};

/* Hash `h` on with the `size` ranks of `group` in MPI_COMM_WORLD, in its order; in *root_world
 * its rank `root`'s (untouched when it has none), in *told (unless NULL) its ranks as kept. False
 * when they cannot be told. */
static bool group_hash(handle group, int size, int root, uint64_t *h, int32_t *root_world,
		       struct ranks_told *told_ranks)
{
	handle world = tp_mpi_world_group();
	bool told = world != 0, in_order = true;
	for (int at = 0; told && at < size; at += RANKS_AT_ONCE) {
		int n = size - at < RANKS_AT_ONCE ? size - at : RANKS_AT_ONCE;
		int local[RANKS_AT_ONCE], out[RANKS_AT_ONCE];
		for (int i = 0; i < n; i++)
			local[i] = at + i;
		told = tp_mpi_abi.group_translate(group, n, local, world, out) == 0;
		for (int i = 0; told && i < n; i++) {
			*h = fnv_add(*h, (uint32_t)out[i], 4);
			if (at + i == root)
				*root_world = out[i];
			in_order &= out[i] == at + i;
			if (told_ranks != NULL && at + i < KEPT_RANKS)
				told_ranks->ranks[at + i] = out[i];
		}
	}
	if (told_ranks != NULL)
		told_ranks->order = !told                ? RANKS_NONE
				    : in_order           ? RANKS_WORLD
				    : size <= KEPT_RANKS ? RANKS_KEPT
							 : RANKS_NONE;
	return told;
}

/* Hash `h` on with intercommunicator `comm`'s two groups (local of `size` ranks), each's hash
 * (group_hash from FNV_START), the smaller first: the same on its two sides. */
static bool intercommunicator_hash(handle comm, handle local, int size, uint64_t *h)
{
	handle remote = 0;
	int remote_size = 0;
	int32_t no_root;
	uint64_t ours = FNV_START, theirs = FNV_START;
	if (tp_mpi_abi.comm_remote_size(comm, &remote_size) != 0 || remote_size <= 0 ||
	    tp_mpi_abi.comm_remote_group(comm, &remote) != 0)
		return false;
	bool told = group_hash(local, size, -1, &ours, &no_root, NULL) &&
		    group_hash(remote, remote_size, -1, &theirs, &no_root, NULL);
	tp_mpi_abi.group_free(&remote);
	*h = fnv_add(fnv_add(*h, ours < theirs ? ours : theirs, 8), ours < theirs ? theirs : ours,
		     8);
	return told;
}

/*
 * A communicator's identity, the same in each of its ranks with no message between them: hash
 * `h` (FNV_START, or its parent's part: communicator_made) on with its ranks in MPI_COMM_WORLD,
 * in its order, never 0 (communicators of the same ranks in the same order, neither made while
 * traced, are one to it: MPI_COMM_WORLD and a duplicate made before a tracer came, say); an
 * intercommunicator's with both its groups (intercommunicator_hash), so that its messages pair
 * (its collectives, each side telling its own size, do not: ranks_pop.c); in *size its ranks
 * (an intercommunicator's local group's), in *root_world its rank `root`'s in MPI_COMM_WORLD (-1
 * for none), in *told_ranks its ranks as kept (an intercommunicator's peers are its remote
 * group's: none). False when it cannot be told.
 */
static bool communicator_identity(handle comm, int root, uint64_t h, uint64_t *identity, int *size,
				  int32_t *root_world, struct ranks_told *told_ranks)
{
	handle group = 0;
	int inter = 0;
	if (tp_mpi_abi.comm_size(comm, size) != 0 || *size <= 0 ||
	    tp_mpi_abi.comm_group(comm, &group) != 0)
		return false;
	*root_world = -1;
	told_ranks->order = RANKS_NONE;
	bool told = tp_mpi_abi.comm_test_inter != NULL &&
				    tp_mpi_abi.comm_test_inter(comm, &inter) == 0 && inter
			    ? intercommunicator_hash(comm, group, *size, &h)
			    : group_hash(group, *size, root, &h, root_world, told_ranks);
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
	struct ranks_told ranks;
} kept[KEPT_SLOTS];

static size_t kept_slot(handle comm)
{
	return tp_mpi_request_slot(comm, 0, KEPT_SLOTS);
}

/* The identity and size kept for `comm`, and its rank `rank`'s in MPI_COMM_WORLD in *world where
 * its ranks are kept (else -1); false when none is. */
static bool kept_find(handle comm, int rank, uint64_t *identity, int *size, int32_t *world)
{
	size_t i = kept_slot(comm);
	if (__atomic_load_n(&kept[i].comm, __ATOMIC_ACQUIRE) != comm)
		return false;
	*identity = __atomic_load_n(&kept[i].identity, __ATOMIC_RELAXED);
	*size = __atomic_load_n(&kept[i].size, __ATOMIC_RELAXED);
	int32_t order = __atomic_load_n(&kept[i].ranks.order, __ATOMIC_RELAXED);
	*world = -1;
	if (rank >= 0 && rank < *size && order == RANKS_WORLD)
		*world = rank;
	else if (rank >= 0 && rank < *size && order == RANKS_KEPT && rank < KEPT_RANKS)
		*world = __atomic_load_n(&kept[i].ranks.ranks[rank], __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&kept[i].comm, __ATOMIC_RELAXED) == comm && *identity != 0;
}

/* `comm`'s identity, size and ranks (NULL: not told) kept. */
static void kept_put(handle comm, uint64_t identity, int size, const struct ranks_told *ranks)
{
	size_t i = kept_slot(comm);
	__atomic_store_n(&kept[i].comm, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&kept[i].identity, identity, __ATOMIC_RELAXED);
	__atomic_store_n(&kept[i].size, size, __ATOMIC_RELAXED);
	int32_t order = ranks != NULL ? ranks->order : RANKS_NONE;
	for (int r = 0; order == RANKS_KEPT && r < size; r++)
		__atomic_store_n(&kept[i].ranks.ranks[r], ranks->ranks[r], __ATOMIC_RELAXED);
	__atomic_store_n(&kept[i].ranks.order, order, __ATOMIC_RELAXED);
	__atomic_store_n(&kept[i].comm, comm, __ATOMIC_RELEASE);
}

/*
 * The communicators made on each communicator so far, by the parent's identity (the first
 * MADE_PROBES slots from its hash, one taken for it at its first): a child's identity is made of
 * its parent's and this count (communicator_made). A slot is given back when MPI deletes the
 * parent's attribute. MPI_COMM_WORLD's is never given back.
 */
#define MADE_SLOTS  256 /* a power of two */
#define MADE_PROBES 16
/* every slot tried taken: the parent's children differ by their ranks alone */
#define NOT_COUNTED UINT32_MAX
static struct {
	uint64_t parent; /* 0: free */
	uint32_t made;
} made[MADE_SLOTS];

static size_t made_slot(uint64_t parent, unsigned probe)
{
	return tp_mpi_request_slot(parent, probe, MADE_SLOTS);
}

/* The communicators made on `parent` before this one, this one counted. MPI has its ranks make
 * them in one order, one at a time (a thread's at once are erroneous). */
static uint32_t made_before(uint64_t parent)
{
	for (unsigned i = 0; i < MADE_PROBES; i++) {
		size_t slot = made_slot(parent, i);
		if (__atomic_load_n(&made[slot].parent, __ATOMIC_ACQUIRE) == parent)
			return __atomic_fetch_add(&made[slot].made, 1, __ATOMIC_RELAXED);
	}
	for (unsigned i = 0; i < MADE_PROBES; i++) {
		size_t slot = made_slot(parent, i);
		uint64_t expected = 0;
		if (__atomic_compare_exchange_n(&made[slot].parent, &expected, parent, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return __atomic_fetch_add(&made[slot].made, 1, __ATOMIC_RELAXED);
	}
	return NOT_COUNTED;
}

/* MPI_COMM_WORLD's identity and size, read once (0 until then). */
static uint64_t world_identity;
static int world_size;

/* The count of `parent`, a communicator MPI deletes, given back (not MPI_COMM_WORLD's, whose
 * identity a communicator of its ranks not made from it has too). */
static void made_forget(uint64_t parent)
{
	if (parent == __atomic_load_n(&world_identity, __ATOMIC_ACQUIRE))
		return;
	for (unsigned i = 0; i < MADE_PROBES; i++) {
		size_t slot = made_slot(parent, i);
		if (__atomic_load_n(&made[slot].parent, __ATOMIC_ACQUIRE) != parent)
			continue;
		__atomic_store_n(&made[slot].made, 0, __ATOMIC_RELAXED);
		uint64_t expected = parent;
		__atomic_compare_exchange_n(&made[slot].parent, &expected, 0, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
		return;
	}
}

/* The key's copy callback: a duplicate's identity is read for it. */
static int identity_not_copied(handle comm, int key, void *extra, void *in, void *out, int *flag)
{
	(void)comm, (void)key, (void)extra, (void)in, (void)out;
	*flag = 0;
	return 0; /* MPI_SUCCESS, in both interfaces */
}

/* Its delete callback: nothing to free (the identity is the attribute's value); the slot kept for
 * the communicator's handle emptied, and its count of communicators made given back. */
static int identity_deleted(handle comm, int key, void *value, void *extra)
{
	(void)key, (void)extra;
	handle expected = comm;
	__atomic_compare_exchange_n(&kept[kept_slot(comm)].comm, &expected, 0, false,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	made_forget((uint64_t)(uintptr_t)value);
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

/*
 * `comm`'s identity and size, and its rank `root`'s in MPI_COMM_WORLD (-1: none): MPI_COMM_WORLD's
 * read once, another communicator's kept with it (an attribute, then the table) the first time
 * (communicator_made keeps a child's when it is made). False when it cannot be told.
 */
static bool communicator_of(handle comm, int root, uint64_t *identity, int *size,
			    int32_t *root_world)
{
	int key;
	struct ranks_told ranks;
	bool world = (comm & tp_mpi_abi.mask) == tp_mpi_abi.comm_world, told = true;
	if (world && (*identity = __atomic_load_n(&world_identity, __ATOMIC_ACQUIRE)) != 0) {
		*size = __atomic_load_n(&world_size, __ATOMIC_RELAXED);
		*root_world = root >= 0 && root < *size ? root : -1;
	} else if (!world && kept_find(comm, root, identity, size, root_world)) {
		if (*root_world < 0) /* its ranks not kept: MPI asked */
			*root_world = (int32_t)tp_mpi_collective_root(comm, root);
	} else if (!world && identity_kept(comm, identity)) {
		told = tp_mpi_abi.comm_size(comm, size) == 0 && *size > 0;
		*root_world = (int32_t)tp_mpi_collective_root(comm, root);
		if (told)
			kept_put(comm, *identity, *size, NULL);
	} else if ((told = communicator_identity(comm, root, FNV_START, identity, size, root_world,
						 &ranks))) {
		if (world) { /* racing first calls store the same */
			__atomic_store_n(&world_size, *size, __ATOMIC_RELAXED);
			__atomic_store_n(&world_identity, *identity, __ATOMIC_RELEASE);
		} else if (identity_keyed(&key) &&
			   tp_mpi_abi.set_attr(comm, key, (void *)(uintptr_t)*identity) == 0) {
			kept_put(comm, *identity, *size, &ranks);
		}
	}
	return told;
}

/* Whether the adapter may ask MPI of `comm` (not MPI_COMM_NULL, where the program's call is
 * erroneous: a call of the adapter's would run its error handler once more). */
static bool askable(handle comm)
{
	return tp_mpi_abi_known() && (comm & tp_mpi_abi.mask) != tp_mpi_abi.comm_null;
}

bool tp_mpi_collective_of(uint32_t call, handle comm, int root, struct tp_mpi_collective *out)
{
	if (!tp_listeners_mpi_collective() || !askable(comm))
		return false;
	int saved_errno = errno, size = 0;
	*out = (struct tp_mpi_collective){.call = call};
	bool told = communicator_of(comm, root, &out->communicator, &size, &out->root);
	out->size = (uint32_t)size;
	errno = saved_errno;
	return told;
}

uint64_t tp_mpi_communicator(handle comm, int rank, int *world)
{
	int saved_errno = errno, size;
	int32_t kept_world = -1;
	uint64_t identity = 0;
	if (!askable(comm) || !communicator_of(comm, rank, &identity, &size, &kept_world))
		identity = 0;
	/* an intercommunicator's rank is of its remote group, and a rank beyond the communicator's
	 * (an erroneous call) is not translated: tp_mpi_world_rank's */
	*world = kept_world >= 0 ? kept_world : tp_mpi_world_rank(comm, rank);
	errno = saved_errno;
	return identity;
}

/* The communicator written at `made_at` (NULL: none) by a call that returned `ret`, in *comm, and
 * its identity, `seed` on with its ranks (communicator_identity's). False when none is told. */
static bool made_identity(int ret, const void *made_at, uint64_t seed, handle *comm,
			  uint64_t *identity, int *size, struct ranks_told *ranks)
{
	int32_t no_root;
	*comm = made_at != NULL ? tp_mpi_request_at(made_at, 0) : 0;
	return ret == 0 && *comm != 0 && askable(*comm) &&
	       communicator_identity(*comm, -1, seed, identity, size, &no_root, ranks);
}

/* The communicator written at `made_at` (NULL: none to keep) given its identity, `seed` on with its
 * ranks, and kept with it. */
static void made_keep(const void *made_at, uint64_t seed)
{
	int size, key;
	uint64_t identity;
	struct ranks_told ranks;
	handle comm;
	if (made_identity(0, made_at, seed, &comm, &identity, &size, &ranks) &&
	    identity_keyed(&key) &&
	    tp_mpi_abi.set_attr(comm, key, (void *)(uintptr_t)identity) == 0)
		kept_put(comm, identity, size, &ranks);
}

/* `parent`'s identity in *identity, when the call that made a communicator of it succeeded
 * (`ret`); errno kept. */
static bool made_of(int ret, handle parent, uint64_t *identity)
{
	int size;
	int32_t no_root;
	return ret == 0 && askable(parent) &&
	       communicator_of(parent, -1, identity, &size, &no_root);
}

/* The part of the identity of a communicator made on `parent` by a call returning `ret` that its
 * parent makes, counted among the parent's (0: none, the call failed). */
static uint64_t made_seed(int ret, handle parent)
{
	uint64_t parent_identity;
	if (!made_of(ret, parent, &parent_identity))
		return 0;
	uint32_t before = made_before(parent_identity);
	return fnv_add(fnv_add(FNV_START, parent_identity, 8), before, 4);
}

void tp_mpi_communicator_made(int ret, handle parent, const void *made_at)
{
	int saved_errno = errno;
	uint64_t seed = made_seed(ret, parent);
	if (seed != 0)
		made_keep(made_at, seed);
	errno = saved_errno;
}

void tp_mpi_communicator_made_later(int ret, handle parent, const void *made_at,
				    const void *request)
{
	int saved_errno = errno;
	uint64_t seed = made_seed(ret, parent);
	if (seed != 0)
		tp_mpi_communicator_pending(request, made_at, seed);
	errno = saved_errno;
}

void tp_mpi_communicator_completed(const void *made_at, handle written, uint64_t seed)
{
	int saved_errno = errno;
	if (tp_mpi_request_at(made_at, 0) == written)
		made_keep(made_at, seed);
	errno = saved_errno;
}

/* Where a communicator made by its group's ranks alone (MPI_Comm_create_group) has its tag in
 * its identity, in place of a count: no count is this. */
#define MADE_BY_GROUP 0xfffffffeu

void tp_mpi_communicator_made_by_group(int ret, handle parent, int tag, const void *made_at)
{
	int saved_errno = errno;
	uint64_t parent_identity;
	if (made_of(ret, parent, &parent_identity))
		made_keep(made_at,
			  fnv_add(fnv_add(fnv_add(FNV_START, parent_identity, 8), MADE_BY_GROUP, 4),
				  (uint32_t)tag, 4));
	errno = saved_errno;
}

/* And where an intercommunicator made by MPI_Intercomm_create has its tag, then a count; one made
 * by MPI 4's MPI_Intercomm_create_from_groups its string tag's bytes, then a count; and a
 * communicator made by MPI_Comm_create_from_group its string tag's, then a count. */
#define MADE_BETWEEN_GROUPS       0xfffffffdu
#define MADE_FROM_GROUP           0xfffffffcu
#define MADE_BETWEEN_GROUPS_NAMED 0xfffffffbu
/* The most bytes of a string tag read (MPI_MAX_STRINGTAG_LEN's, MPICH's and the standard's
 * least, 256, with its NUL). */
#define STRING_TAG_MOST 255

/* Hash `h` on with a string tag's bytes (without its NUL, at most STRING_TAG_MOST). */
static uint64_t string_tag_hash(uint64_t h, const char *tag)
{
	for (size_t i = 0; tag != NULL && i < STRING_TAG_MOST && tag[i] != '\0'; i++)
		h = fnv_add(h, (unsigned char)tag[i], 1);
	return h;
}

/* The intercommunicator written at `made_at` by a call that returned `ret` given its identity:
 * its two groups' (the same on both sides), `marker`, its tag as `tagged` hashes it on, then the
 * number made between the same groups before it, counted under the groups' identity and the
 * marker (no communicator's identity): both groups' ranks make them in one order (their leaders
 * meet for each, by its tag). */
static void made_between_groups(int ret, const void *made_at, uint32_t marker, int tag,
				const char *string_tag)
{
	int size;
	uint64_t groups;
	struct ranks_told ranks;
	handle comm;
	if (!made_identity(ret, made_at, FNV_START, &comm, &groups, &size, &ranks))
		return;
	uint64_t between = fnv_add(fnv_add(FNV_START, groups, 8), marker, 4);
	uint64_t tagged = string_tag != NULL ? string_tag_hash(between, string_tag)
					     : fnv_add(between, (uint32_t)tag, 4);
	made_keep(made_at, fnv_add(tagged, made_before(between), 4));
}

void tp_mpi_intercommunicator_made(int ret, int tag, const void *made_at)
{
	int saved_errno = errno;
	made_between_groups(ret, made_at, MADE_BETWEEN_GROUPS, tag, NULL);
	errno = saved_errno;
}

void tp_mpi_intercommunicator_made_by_name(int ret, const char *string_tag, const void *made_at)
{
	int saved_errno = errno;
	made_between_groups(ret, made_at, MADE_BETWEEN_GROUPS_NAMED, 0,
			    string_tag != NULL ? string_tag : "");
	errno = saved_errno;
}

void tp_mpi_communicator_made_by_name(int ret, const char *string_tag, const void *made_at)
{
	int saved_errno = errno, size;
	uint64_t named;
	struct ranks_told ranks;
	handle comm;
	/* its group's ranks alone take part, in one order for one string tag: those made with the
	 * tag by the same ranks before it are counted, under the tag and the ranks (a count under
	 * the tag alone could differ between two of its ranks, one of which made another with it) */
	if (made_identity(ret, made_at,
			  string_tag_hash(fnv_add(FNV_START, MADE_FROM_GROUP, 4), string_tag),
			  &comm, &named, &size, &ranks))
		made_keep(made_at, fnv_add(fnv_add(FNV_START, named, 8), made_before(named), 4));
	errno = saved_errno;
}
