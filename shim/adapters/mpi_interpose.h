// SPDX-License-Identifier: MIT
/*
 * How the MPI adapter interposes a call (mpi.c, mpi_other_calls.c): TP_MPI_INTERPOSE makes its
 * MPI_ and PMPI_ symbols, their wrappers and resolvers; the functions behind them are mpi.c's.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "listeners.h"
#include "mpi_events.h"
#include "probes.h"
#include "waits.h"

/*
 * A resolver runs while the dynamic linker relocates, before any constructor: before a
 * sanitizer's runtime has started (its checks would fault on the shadow memory it has not made).
 */
#define TP_RESOLVER __attribute__((no_sanitize("address", "thread", "undefined")))

/* An MPI handle passed by value: a pointer (Open MPI) or an int (MPICH) in its register. */
typedef uintptr_t handle;

#define NOTHING ((void)0)

/* A collective as mpi-collective tells it (PROBES.md): call, root's rank in MPI_COMM_WORLD (-1:
 * none), its communicator's identity and size. */
struct tp_mpi_collective {
	uint64_t communicator;
	uint32_t call, size;
	int32_t root;
};

/* The root's rank in MPI_COMM_WORLD of a rooted collective on `comm`, its rank `root` (-1: not
 * told), for its wait-start (mpi.c). Keeps errno. */
__attribute__((visibility("hidden"))) int64_t tp_mpi_collective_root(handle comm, int root);

/* Collective `call` on `comm`, rooted at its rank `root` (-1: none), in *out: false when nobody
 * listens to mpi-collective or its communicator cannot be told (mpi.c). Keeps errno. */
__attribute__((visibility("hidden"))) bool
tp_mpi_collective_of(uint32_t call, handle comm, int root, struct tp_mpi_collective *out);

/* `comm`'s identity (mpi-collective's communicator, PROBES.md), 0 when it cannot be told, and its
 * rank `rank`'s in MPI_COMM_WORLD in *world (from the ranks kept with the identity where they
 * are, else tp_mpi_world_rank's): a message's ends (mpi_communicators.c). Keeps errno. */
__attribute__((visibility("hidden"))) uint64_t tp_mpi_communicator(handle comm, int rank,
								   int *world);

/* After a call (returning `ret`) that every rank of `parent` makes, in one order, to make a
 * communicator, written at `made_at` (MPI_COMM_NULL where this rank is in none): the new one's
 * identity, from its parent's and the communicators made on it before, kept with it
 * (mpi_communicators.c). Keeps errno. */
__attribute__((visibility("hidden"))) void tp_mpi_communicator_made(int ret, handle parent,
								    const void *made_at);

/*
 * The same after MPI_Comm_idup, whose communicator is not to be used until its request, written at
 * `request`, completes: its parent's part of the identity (`seed`) counted now, kept with the
 * request and the communicator written as the call returned (tp_mpi_communicator_pending, mpi.c),
 * and the rest made when a wait or test completes it (tp_mpi_communicator_completed), if
 * `made_at` holds that communicator still: a request completed unseen (among more than a wait's
 * 64) leaves its entry stale, and its handle may become another request's, when `made_at` may
 * be another variable's (read, never trusted). Both keep errno.
 */
__attribute__((visibility("hidden"))) void
tp_mpi_communicator_made_later(int ret, handle parent, const void *made_at, const void *request);
__attribute__((visibility("hidden"))) void
tp_mpi_communicator_pending(const void *request, const void *made_at, uint64_t seed);
__attribute__((visibility("hidden"))) void
tp_mpi_communicator_completed(const void *made_at, handle written, uint64_t seed);

/* The same after MPI_Comm_create_group on `parent` with `tag`, which the group's ranks alone make:
 * the new one's identity from its parent's, the tag and its ranks (mpi_communicators.c). */
__attribute__((visibility("hidden"))) void
tp_mpi_communicator_made_by_group(int ret, handle parent, int tag, const void *made_at);

/* The same after MPI_Intercomm_create with `tag`, whose two sides have parents of their own: the
 * new one's identity from its two groups', the tag and the intercommunicators made between them
 * before it (mpi_communicators.c). */
__attribute__((visibility("hidden"))) void tp_mpi_intercommunicator_made(int ret, int tag,
									 const void *made_at);

/* The same after MPI 4's MPI_Intercomm_create_from_groups with `string_tag`, and a communicator's
 * after MPI_Comm_create_from_group (no parent: its string tag, a count of those made with it
 * before, and its ranks) (mpi_communicators.c). */
__attribute__((visibility("hidden"))) void
tp_mpi_intercommunicator_made_by_name(int ret, const char *string_tag, const void *made_at);
__attribute__((visibility("hidden"))) void
tp_mpi_communicator_made_by_name(int ret, const char *string_tag, const void *made_at);

/* Nonblocking collective `c`, whose request the call wrote at `request`, kept until a wait or test
 * completes it, which fires its mpi-collective again (mpi.c). */
__attribute__((visibility("hidden"))) void
tp_mpi_collective_pending(const void *request, const struct tp_mpi_collective *c);

/* The slot to try `probe`-th for request `request` in a table of `slots` (a power of two) that
 * keeps requests by their hash (mpi.c's pending ones, mpi_persistent.c's). */
static inline size_t tp_mpi_request_slot(handle request, unsigned probe, size_t slots)
{
	return (((request * UINT64_C(0x9e3779b97f4a7c15)) >> 40) + probe) & (slots - 1);
}

/* A slot being filled (tp_mpi_slot_claim): no interface's request (an int's, or a pointer's). */
#define TP_MPI_SLOT_FILLING UINTPTR_MAX

/*
 * A free slot (its request word 0) claimed for `request` in a table of `slots` that keeps
 * requests by their hash, among the `probes` tried from it; `word(slot)` is a slot's request
 * word. It reads TP_MPI_SLOT_FILLING until the caller has filled the rest and stored the request
 * there (release): no other claim takes the slot meanwhile, and no look-up finds it half filled.
 * SIZE_MAX when every slot tried is taken.
 */
static inline size_t tp_mpi_slot_claim(handle *(*word)(size_t slot), handle request, size_t slots,
				       unsigned probes)
{
	for (unsigned i = 0; i < probes; i++) {
		size_t slot = tp_mpi_request_slot(request, i, slots);
		handle expected = 0;
		if (__atomic_load_n(word(slot), __ATOMIC_RELAXED) == 0 &&
		    __atomic_compare_exchange_n(word(slot), &expected, TP_MPI_SLOT_FILLING, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return slot;
	}
	return SIZE_MAX;
}

/* mpi-send for `count` elements of `type` to rank `dest` of `comm` (mpi.c). Keeps errno. */
__attribute__((visibility("hidden"))) void tp_mpi_send_event(int dest, int tag, handle comm,
							     int count, handle type);

/* Receive request `i` of `requests` (the call's argument), on `comm`, started: kept until a wait
 * or test completes it, which fires its mpi-recv (mpi.c). */
__attribute__((visibility("hidden"))) void tp_mpi_receive_started(const void *requests, int i,
								  handle comm);

/* Request `request` freed, or its handle made again (a persistent one's): what is pending of it
 * forgotten, so that a later request of its handle does not complete it (mpi.c). */
__attribute__((visibility("hidden"))) void tp_mpi_request_forgotten(handle request);

/* Request `i` of `requests` (the call's argument), 0 when the interface is not known (mpi.c). */
__attribute__((visibility("hidden"))) handle tp_mpi_request_at(const void *requests, int i);

/* `*cache`, or the implementation's PMPI_ entry point `name`, kept there: NULL, said, when there
 * is none. */
__attribute__((visibility("hidden"))) void *tp_mpi_pmpi_cached(void **cache, const char *name);

/* Whether `caller` (a PMPI_ entry point's return address) is out of the MPI library: the
 * program's call (mpi.c). */
__attribute__((visibility("hidden"))) bool tp_mpi_from_program(const void *caller);

/* The resolver of MPI_ symbol `mpi_name` (NULL: of the PMPI_ one) whose entry point is
 * `pmpi_name` (kept in `*pmpi_fn`): `wrapper`, a profiling layer's function, or NULL (mpi.c). */
__attribute__((visibility("hidden"))) TP_RESOLVER void *
tp_mpi_resolve(const char *pmpi_name, void **pmpi_fn, void *wrapper, const char *mpi_name);

/*
 * The interposed MPI_##name: its PMPI_ entry point, the wrapper, the resolver, the symbol.
 *   params, args   the call's (parameters), (arguments)
 *   call           its number (enum tp_mpi_call) as a wait, or 0: not a wait
 *   before, after  statements run around the call while traced (after: with ret_ set)
 */
#define TP_MPI_INTERPOSE(name, call, params, args, before, after)                                  \
	TP_MPI_INTERPOSE_ROOTED(name, call, -1, params, args, before, after)

/* The same, for a rooted collective: `root`, the wait's timeout argument, is its root's rank in
 * MPI_COMM_WORLD (PROBES.md), evaluated while traced. */
#define TP_MPI_INTERPOSE_ROOTED(name, call, root, params, args, before, after)                     \
	static int(*pmpi_##name) params;                                                           \
	__attribute__((noinline)) static int slow_##name(const void *caller_,                      \
							 TP_UNPARENTHESIZED params)                \
	{                                                                                          \
		int(*fn) params = (int(*) params)tp_mpi_pmpi_cached((void **)&pmpi_##name,         \
								    "PMPI_" #name);                \
		if (fn == NULL)                                                                    \
			return -1;                                                                 \
		if (!tp_listeners_mpi())                                                           \
			return fn args;                                                            \
		struct tp_wait wait_;                                                              \
		int ret_;                                                                          \
		if (call != 0)                                                                     \
			tp_wait_enter(&wait_, TP_WAIT_MPI, (const void *)(uintptr_t)(call), root,  \
				      caller_);                                                    \
		before;                                                                            \
		if (call != 0)                                                                     \
			TP_WAIT_CANCELLABLE(&wait_, ret_ = fn args);                               \
		else                                                                               \
			ret_ = fn args;                                                            \
		after;                                                                             \
		if (call != 0)                                                                     \
			tp_wait_leave(&wait_, -(int64_t)ret_);                                     \
		return ret_;                                                                       \
	}                                                                                          \
	static int wrap_##name params                                                              \
	{                                                                                          \
		int(*fn) params = __atomic_load_n(&pmpi_##name, __ATOMIC_RELAXED);                 \
		if (__builtin_expect(fn != NULL && !tp_listeners_mpi(), 1))                        \
			return fn args;                                                            \
		return slow_##name(__builtin_return_address(0), TP_UNPARENTHESIZED args);          \
	}                                                                                          \
	TP_RESOLVER static int(*resolve_##name(void)) params                                       \
	{                                                                                          \
		return (int(*) params)tp_mpi_resolve("PMPI_" #name, (void **)&pmpi_##name,         \
						     (void *)wrap_##name, "MPI_" #name);           \
	}                                                                                          \
	TP_EXPORT int MPI_##name params __attribute__((ifunc("resolve_" #name)));                  \
	/* PMPI_##name: the program's call unless the MPI library makes it (from_program) */       \
	static int pmpi_wrap_##name params                                                         \
	{                                                                                          \
		int(*fn) params = __atomic_load_n(&pmpi_##name, __ATOMIC_RELAXED);                 \
		if (__builtin_expect(fn != NULL && !tp_listeners_mpi(), 1))                        \
			return fn args;                                                            \
		const void *caller_ = __builtin_return_address(0);                                 \
		if (tp_mpi_from_program(caller_))                                                  \
			return slow_##name(caller_, TP_UNPARENTHESIZED args);                      \
		fn = (int(*) params)tp_mpi_pmpi_cached((void **)&pmpi_##name, "PMPI_" #name);      \
		return fn != NULL ? fn args : -1;                                                  \
	}                                                                                          \
	TP_RESOLVER static int(*resolve_pmpi_##name(void)) params                                  \
	{                                                                                          \
		return (int(*) params)tp_mpi_resolve("PMPI_" #name, (void **)&pmpi_##name,         \
						     (void *)pmpi_wrap_##name, NULL);              \
	}                                                                                          \
	TP_EXPORT int PMPI_##name params __attribute__((ifunc("resolve_pmpi_" #name)))
