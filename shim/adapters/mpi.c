// SPDX-License-Identifier: MIT
/*
 * The MPI adapter: the C MPI calls a program makes, each passed to the implementation's PMPI_
 * entry point unchanged; and its calls of the PMPI_ entry points the adapter interposes, which
 * Open MPI's Fortran bindings and a profiling layer make (tp_mpi_from_program). A blocking call
 * (point-to-point, waits, collectives, MPI_Init and MPI_Finalize) and a poll (MPI_Test and its
 * kin, MPI_Iprobe, MPI_Improbe) are a wait of kind mpi, its object the call's number (enum
 * tp_mpi_call), its site the program's call; a message's send (at its start) and receive (at its completion) are
 * mpi-send and mpi-recv, with the peer's rank in MPI_COMM_WORLD; MPI_Init's end says the rank,
 * the world's size, the host and the job (mpi-init). MPI_Pcontrol(1) and (0) start and stop the
 * region of interest.
 *
 * Nothing of this is called, looked up or loaded in a program without MPI: each MPI_ symbol is
 * an indirect function (STT_GNU_IFUNC) whose resolver, run by the dynamic linker when an object
 * refers to the symbol, answers the adapter's wrapper only when the process has the call's
 * PMPI_ entry point, and else NULL: a program that tests `if (MPI_Init)` through a weak
 * reference finds it absent, as without taskprobe. The resolver looks the PMPI_ entry point up
 * then (a dlsym of the scope after the shim's, which the dynamic linker allows once the shim is
 * relocated, or of the object that opened MPI with dlopen(RTLD_LOCAL) in its own scope: a Python
 * extension's); a resolver run before that (an object relocated ahead of the shim, with
 * LD_BIND_NOW) answers the wrapper, which looks its entry point up at its first call.
 *
 * The calls are passed through without being understood: handles (MPI_Comm, MPI_Datatype, ...)
 * are a pointer in Open MPI and an int in MPICH, both one register or stack slot, carried as
 * uintptr_t. What the events read (MPI_COMM_WORLD, MPI_BYTE, a status's source and tag) is read
 * by the implementation's binary interface, told by MPI_Get_library_version at the first event.
 * Untraced, a call costs one check (tp_listeners_mpi) and a tail call through a pointer.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "code_map.h"
#include "mpi_events.h"
#include "loaded_symbol.h"
#include "mpi_abi.h"
#include "mpi_interpose.h"
#include "probes.h"
#include "waits.h"
#include "warn.h"

struct tp_mpi_abi tp_mpi_abi;

/* The largest MPI_Status of the interfaces read (Open MPI's 24 bytes), with room. */
#define STATUS_BYTES_MAX 32

/* Holds its own address once the dynamic linker has relocated the shim (a relative relocation). */
static void *const volatile relocated = (void *)&relocated;

/*
 * The MPI library's object (its load address) when the implementation was found in a scope of its
 * own (pmpi_in_local_scope); 0 while it is in the global scope, or unknown.
 */
static uintptr_t mpi_object;

/* Set by the shim's constructors: every object loaded before is in the global scope. */
static bool constructed;
__attribute__((constructor)) static void mpi_adapter_constructed(void)
{
	__atomic_store_n(&constructed, true, __ATOMIC_RELEASE);
}

/*
 * dlsym of `name` in `handle`, its failure no error of the program's: the message dlerror() would
 * give the program next is taken. A resolver runs inside the dynamic linker's work for a program's
 * call (a dlopen, which cleared the message before it) or at start (none yet): a successful
 * dlopen of a library linked with MPI once left "libtaskprobe.so: undefined symbol" there.
 */
static void *look_up(void *handle, const char *name)
{
	void *found = dlsym(handle, name);
	if (found == NULL)
		(void)dlerror();
	return found;
}

/* The implementation's `name` as `scope` (a dlsym handle) has it, else the MPI library's in its
 * own scope (pmpi_in_local_scope). */
static void *implementation(void *scope, const char *name)
{
	void *fn = look_up(scope, name);
	uintptr_t object = __atomic_load_n(&mpi_object, __ATOMIC_ACQUIRE);
	if (fn == NULL && object != 0)
		fn = tp_loaded_symbol_in(object, name);
	return fn;
}

/*
 * What the events read of the implementation: the global scope's `name` (where the program's copy
 * of an object it refers to is the object: MPI_COMM_WORLD's, non-PIE).
 */
static void *pmpi(const char *name)
{
	return implementation(RTLD_DEFAULT, name);
}

/*
 * `name` defined by an object the program loaded in a scope of its own: a library linked with MPI
 * opened by dlopen(RTLD_LOCAL), as Python opens its extension modules (mpi4py's, h5py's), whose
 * MPI neither RTLD_DEFAULT nor RTLD_NEXT sees: its object is kept (mpi_object) for the further
 * look-ups. Not before the constructors (a resolver run at start-up, before a sanitizer's
 * runtime has started): every object is in the global scope then.
 */
static void *pmpi_in_local_scope(const char *name)
{
	if (!__atomic_load_n(&constructed, __ATOMIC_ACQUIRE))
		return NULL;
	uintptr_t object = 0;
	void *fn = tp_loaded_symbol(name, (const void *)&relocated, &object);
	if (fn != NULL)
		__atomic_store_n(&mpi_object, object, __ATOMIC_RELEASE);
	return fn;
}

/* Looks the interface up, once (racing first events find the same). Only from an MPI call. */
bool tp_mpi_abi_known(void)
{
	int kind = __atomic_load_n(&tp_mpi_abi.kind, __ATOMIC_ACQUIRE);
	if (__builtin_expect(kind != 0, 1))
		return kind != ABI_UNKNOWN;
	int (*version)(char *text,
		       int *len) = (int (*)(char *, int *))pmpi("PMPI_Get_library_version");
	char text[8192] = ""; /* MPI_MAX_LIBRARY_VERSION_STRING: 256 in Open MPI, 8192 in MPICH */
	int len = 0;
	kind = ABI_UNKNOWN;
	if (version != NULL && version(text, &len) == 0) {
		text[sizeof text - 1] = '\0';
		if (strstr(text, "Open MPI") != NULL && pmpi("ompi_mpi_comm_world") != NULL) {
			tp_mpi_abi.comm_world = (handle)pmpi("ompi_mpi_comm_world");
			tp_mpi_abi.comm_null = (handle)pmpi("ompi_mpi_comm_null");
			tp_mpi_abi.datatype_null = (handle)pmpi("ompi_mpi_datatype_null");
			tp_mpi_abi.byte = (handle)pmpi("ompi_mpi_byte");
			tp_mpi_abi.mask = ~(handle)0;
			tp_mpi_abi.request_bytes = sizeof(void *);
			tp_mpi_abi.status_bytes = 24;
			tp_mpi_abi.source_at = 0;
			tp_mpi_abi.tag_at = 4;
			tp_mpi_abi.status_ignore = 0;
			tp_mpi_abi.proc_null = -2;
			kind = tp_mpi_abi.byte != 0 ? ABI_OPEN_MPI : ABI_UNKNOWN;
		} else if (strstr(text, "MPICH") != NULL || strstr(text, "Intel(R) MPI") != NULL ||
			   strstr(text, "MVAPICH") != NULL) {
			tp_mpi_abi.comm_world = 0x44000000;
			tp_mpi_abi.comm_null = 0x04000000;
			tp_mpi_abi.datatype_null = 0x0c000000;
			tp_mpi_abi.byte = 0x4c00010d;
			tp_mpi_abi.mask = 0xffffffffu;
			tp_mpi_abi.request_bytes = sizeof(int);
			tp_mpi_abi.status_bytes = 20;
			tp_mpi_abi.source_at = 8;
			tp_mpi_abi.tag_at = 12;
			tp_mpi_abi.status_ignore = 1;
			tp_mpi_abi.proc_null = -1;
			kind = ABI_MPICH;
		}
	}
	tp_mpi_abi.type_size = (int (*)(handle, int *))pmpi("PMPI_Type_size");
	tp_mpi_abi.get_count = (int (*)(const void *, handle, int *))pmpi("PMPI_Get_count");
	tp_mpi_abi.comm_rank = (int (*)(handle, int *))pmpi("PMPI_Comm_rank");
	tp_mpi_abi.comm_size = (int (*)(handle, int *))pmpi("PMPI_Comm_size");
	tp_mpi_abi.comm_group = (int (*)(handle, handle *))pmpi("PMPI_Comm_group");
	tp_mpi_abi.group_translate = (int (*)(handle, int, const int *, handle, int *))pmpi(
		"PMPI_Group_translate_ranks");
	tp_mpi_abi.group_free = (int (*)(handle *))pmpi("PMPI_Group_free");
	/* optional: a cancelled receive fires no mpi-recv where it is */
	tp_mpi_abi.test_cancelled = (int (*)(const void *, int *))pmpi("PMPI_Test_cancelled");
	/* optional: an intercommunicator's identity is both its groups' where they are */
	tp_mpi_abi.comm_remote_size = (int (*)(handle, int *))pmpi("PMPI_Comm_remote_size");
	tp_mpi_abi.comm_remote_group = (int (*)(handle, handle *))pmpi("PMPI_Comm_remote_group");
	tp_mpi_abi.comm_test_inter = tp_mpi_abi.comm_remote_size != NULL &&
						     tp_mpi_abi.comm_remote_group != NULL
					     ? (int (*)(handle, int *))pmpi("PMPI_Comm_test_inter")
					     : NULL;
	/* optional: a communicator's identity is kept with it where they are */
	tp_mpi_abi.create_keyval = (int (*)(void *, void *, int *, void *))pmpi(
		"PMPI_Comm_create_keyval");
	tp_mpi_abi.get_attr = (int (*)(handle, int, void *, int *))pmpi("PMPI_Comm_get_attr");
	tp_mpi_abi.set_attr = (int (*)(handle, int, void *))pmpi("PMPI_Comm_set_attr");
	if (tp_mpi_abi.type_size == NULL || tp_mpi_abi.get_count == NULL ||
	    tp_mpi_abi.comm_rank == NULL || tp_mpi_abi.comm_size == NULL ||
	    tp_mpi_abi.comm_group == NULL || tp_mpi_abi.group_translate == NULL ||
	    tp_mpi_abi.group_free == NULL)
		kind = ABI_UNKNOWN;
	__atomic_store_n(&tp_mpi_abi.kind, kind, __ATOMIC_RELEASE);
	return kind != ABI_UNKNOWN;
}

handle tp_mpi_world_group(void)
{
	handle world = __atomic_load_n(&tp_mpi_abi.world_group, __ATOMIC_RELAXED);
	if (world == 0 && tp_mpi_abi.comm_group(tp_mpi_abi.comm_world, &world) == 0)
		__atomic_store_n(&tp_mpi_abi.world_group, world, __ATOMIC_RELAXED);
	return world;
}

int tp_mpi_world_rank(handle comm, int rank)
{
	/* MPI_COMM_NULL, or a rank beyond the communicator's: the program's call is erroneous, and
	 * a call of the adapter's on them would run the error handler once more (a program's own) */
	int size = 0, inter = 0;
	if ((comm & tp_mpi_abi.mask) == tp_mpi_abi.comm_world ||
	    (comm & tp_mpi_abi.mask) == tp_mpi_abi.comm_null || rank < 0)
		return rank;
	/* an intercommunicator's peer (and a collective's root there) is of its remote group */
	bool remote = tp_mpi_abi.comm_test_inter != NULL &&
		      tp_mpi_abi.comm_test_inter(comm, &inter) == 0 && inter;
	if ((remote ? tp_mpi_abi.comm_remote_size(comm, &size)
		    : tp_mpi_abi.comm_size(comm, &size)) != 0 ||
	    rank >= size)
		return rank;
	handle group = 0, world = tp_mpi_world_group();
	int out = rank;
	if ((remote ? tp_mpi_abi.comm_remote_group(comm, &group)
		    : tp_mpi_abi.comm_group(comm, &group)) == 0) {
		if (tp_mpi_abi.group_translate(group, 1, &rank, world, &out) != 0 || out < 0)
			out = rank; /* MPI_UNDEFINED */
		tp_mpi_abi.group_free(&group);
	}
	return out;
}

static int32_t status_int(const void *status, unsigned at)
{
	int32_t v;
	memcpy(&v, (const char *)status + at, sizeof v);
	return v;
}

/* mpi-send for `count` elements of `type` to rank `dest` of `comm`. Keeps errno. */
static void send_event(int dest, int tag, handle comm, int count, handle type)
{
	if (!tp_listeners_mpi_send() || !tp_mpi_abi_known() || dest == tp_mpi_abi.proc_null ||
	    dest < 0)
		return;
	int saved_errno = errno, size = 0;
	if ((type & tp_mpi_abi.mask) == tp_mpi_abi.datatype_null ||
	    tp_mpi_abi.type_size(type, &size) != 0 || size < 0 || count < 0)
		size = 0;
	int peer;
	uint64_t communicator = tp_mpi_communicator(comm, dest, &peer);
	tp_fire_mpi_send((uint32_t)peer, tag, communicator, (uint64_t)count * (uint64_t)size);
	errno = saved_errno;
}

/* mpi-recv for the message `status` (the call's, filled) says was received on `comm`. */
static void recv_event(handle comm, const void *status)
{
	if (!tp_listeners_mpi_recv() || !tp_mpi_abi_known())
		return;
	int source = status_int(status, tp_mpi_abi.source_at),
	    tag = status_int(status, tp_mpi_abi.tag_at);
	if (source < 0 || source == tp_mpi_abi.proc_null)
		return;
	int saved_errno = errno, count = 0;
	if (tp_mpi_abi.get_count(status, tp_mpi_abi.byte, &count) != 0 ||
	    count < 0) /* MPI_UNDEFINED */
		count = 0;
	int peer;
	uint64_t communicator = tp_mpi_communicator(comm, source, &peer);
	tp_fire_mpi_recv((uint32_t)peer, tag, communicator, (uint64_t)count);
	errno = saved_errno;
}

/* A receive request completed with `status`: its mpi-recv, unless it was cancelled (MPI_Cancel:
 * no message; MPICH leaves its status's source as it was, a rank). */
static void received(handle comm, const void *status)
{
	int cancelled = 0, saved_errno = errno;
	bool was = tp_mpi_abi.test_cancelled != NULL &&
		   tp_mpi_abi.test_cancelled(status, &cancelled) == 0 && cancelled;
	errno = saved_errno;
	if (!was)
		recv_event(comm, status);
}

/*
 * The receives (MPI_Irecv), nonblocking collectives (mpi_collectives.c) and communicators'
 * makings (MPI_Comm_idup) started while traced, by request, until a wait or test completes them
 * (on any thread): then a receive's mpi-recv fires, a collective's mpi-collective again, and a
 * communicator made keeps its identity. One table for the process, not per thread:
 * the shim's thread-local storage stays small (a library loaded after start-up gets little
 * static TLS). Slots are taken (tp_mpi_slot_claim, then filled) and given back with atomics, no
 * lock; a request is looked for in PENDING_PROBES slots from its hash, and one that finds none
 * free is told as a wait only. A handle 0 is no request of either interface (their
 * MPI_REQUEST_NULL is not 0): a free slot.
 */
/* a power of two: an exchange by messages with thousands of ranks at once fits (320 KiB, its pages
 * touched as they are used) */
#define PENDING_SLOTS  8192
#define PENDING_PROBES 16
#define PENDING_MAX    64 /* the requests of one wait or test kept in place (completing) */
struct pended {
	/* a receive's communicator, a nonblocking collective's identity, or the communicator
	 * MPI_Comm_idup wrote as it returned */
	handle comm;
	uint64_t collective; /* a collective's (collective_packed), else 0 */
	/* MPI_Comm_idup's: where it writes its communicator (else NULL), and the part of its
	 * identity its parent makes (tp_mpi_communicator_pending) */
	const void *made_at;
	uint64_t seed;
};
static struct {
	handle request;
	struct pended what;
} pending[PENDING_SLOTS];
static unsigned pending_count; /* slots taken (a hint: 0 skips the look-ups) */

static size_t pending_slot(handle request, unsigned probe)
{
	return tp_mpi_request_slot(request, probe, PENDING_SLOTS);
}

static handle *pending_request(size_t slot)
{
	return &pending[slot].request;
}

static handle request_at(const void *requests, int i)
{
	if (tp_mpi_abi.request_bytes == sizeof(int)) {
		unsigned v;
		memcpy(&v, (const char *)requests + (size_t)i * sizeof v, sizeof v);
		return v;
	}
	handle v;
	memcpy(&v, (const char *)requests + (size_t)i * sizeof v, sizeof v);
	return v;
}

/* A nonblocking collective's call, root and size, as the pending table keeps them (never 0). */
static uint64_t collective_packed(const struct tp_mpi_collective *c)
{
	uint64_t root = c->root >= 0 && c->root < 0xffffff ? (uint64_t)c->root + 1 : 0;
	return (uint64_t)(c->call & 0xff) << 56 | root << 32 | c->size;
}

/* Takes `request` off the pending requests: what it is in *out, or false when not one. */
static bool pending_take(handle request, struct pended *out)
{
	if (request == 0 || __atomic_load_n(&pending_count, __ATOMIC_RELAXED) == 0)
		return false;
	for (unsigned i = 0; i < PENDING_PROBES; i++) {
		size_t slot = pending_slot(request, i);
		if (__atomic_load_n(&pending[slot].request, __ATOMIC_ACQUIRE) != request)
			continue;
		handle expected = request;
		out->comm = __atomic_load_n(&pending[slot].what.comm, __ATOMIC_RELAXED);
		out->collective = __atomic_load_n(&pending[slot].what.collective, __ATOMIC_RELAXED);
		out->made_at = __atomic_load_n(&pending[slot].what.made_at, __ATOMIC_RELAXED);
		out->seed = __atomic_load_n(&pending[slot].what.seed, __ATOMIC_RELAXED);
		if (__atomic_compare_exchange_n(&pending[slot].request, &expected, 0, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			__atomic_fetch_sub(&pending_count, 1, __ATOMIC_RELAXED);
			return true;
		}
	}
	return false;
}

/* Remembers `request`, a receive, a nonblocking collective or a communicator's making, `what`
 * (over a stale entry of the same handle). */
static void pending_put(handle request, struct pended what)
{
	struct pended stale;
	if (request == 0)
		return;
	(void)pending_take(request, &stale);
	size_t slot = tp_mpi_slot_claim(pending_request, request, PENDING_SLOTS, PENDING_PROBES);
	if (slot == SIZE_MAX)
		return;
	__atomic_store_n(&pending[slot].what.comm, what.comm, __ATOMIC_RELAXED);
	__atomic_store_n(&pending[slot].what.collective, what.collective, __ATOMIC_RELAXED);
	__atomic_store_n(&pending[slot].what.made_at, what.made_at, __ATOMIC_RELAXED);
	__atomic_store_n(&pending[slot].what.seed, what.seed, __ATOMIC_RELAXED);
	__atomic_store_n(&pending[slot].request, request, __ATOMIC_RELEASE);
	__atomic_fetch_add(&pending_count, 1, __ATOMIC_RELAXED);
}

/*
 * The requests of `n` to be completed, copied before the call ends them: up to PENDING_MAX in
 * place, more (a halo exchange of many neighbours and fields in one MPI_Waitall) on the heap, so
 * that none of their receives is missed and none of their entries left stale (MPI calls are not
 * made from a signal handler: no allocator is interrupted).
 */
struct completing {
	handle few[PENDING_MAX];
	handle *requests; /* `few`, or the heap's */
	int n;            /* 0: none of them is a pending receive */
	unsigned char own_few[PENDING_MAX * STATUS_BYTES_MAX];
	unsigned char *own; /* statuses for the ignored: `own_few`, the heap's, or NULL */
};

/* Before a wait or test: its requests, and statuses (`*statuses` replaced when ignored). */
static void completing_start(struct completing *c, const void *requests, int n, void **statuses)
{
	c->n = 0;
	c->requests = c->few;
	c->own = NULL;
	if (__atomic_load_n(&pending_count, __ATOMIC_RELAXED) == 0 || n <= 0 || requests == NULL ||
	    !tp_mpi_abi_known())
		return;
	bool ignored = (uintptr_t)*statuses == tp_mpi_abi.status_ignore || *statuses == NULL;
	if (n > PENDING_MAX) {
		int saved_errno = errno;
		c->requests = malloc((size_t)n * sizeof *c->requests);
		c->own = ignored ? calloc((size_t)n, tp_mpi_abi.status_bytes) : NULL;
		errno = saved_errno;
		if (c->requests == NULL || (ignored && c->own == NULL)) {
			free(c->requests);
			free(c->own);
			c->requests = c->few;
			c->own = NULL;
			return;
		}
	} else if (ignored) {
		c->own = c->own_few;
		memset(c->own, 0, (size_t)n * tp_mpi_abi.status_bytes);
	}
	for (int i = 0; i < n; i++)
		c->requests[i] = request_at(requests, i);
	c->n = n;
	if (ignored)
		*statuses = c->own;
}

/* After the call's completions: what completing_start took given back. */
static void completing_end(struct completing *c)
{
	if (c->requests != c->few)
		free(c->requests);
	if (c->own != c->own_few)
		free(c->own);
}

/* After it: request `i` completed, with `status`: a receive's mpi-recv, a nonblocking
 * collective's mpi-collective again, or a communicator's identity kept. */
static void completing_done(const struct completing *c, int i, const void *status)
{
	struct pended p;
	if (i < 0 || i >= c->n || !pending_take(c->requests[i], &p))
		return;
	if (p.made_at != NULL)
		tp_mpi_communicator_completed(p.made_at, p.comm, p.seed);
	else if (p.collective == 0)
		received(p.comm, status);
	else if (tp_listeners_mpi_collective())
		tp_fire_mpi_collective((uint32_t)(p.collective >> 56),
				       (int32_t)(p.collective >> 32 & 0xffffff) - 1, p.comm,
				       (uint32_t)p.collective);
}

void tp_mpi_collective_pending(const void *request, const struct tp_mpi_collective *c)
{
	if (tp_mpi_abi_known())
		pending_put(request_at(request, 0),
			    (struct pended){.comm = c->communicator,
					    .collective = collective_packed(c)});
}

void tp_mpi_communicator_pending(const void *request, const void *made_at, uint64_t seed)
{
	if (tp_mpi_abi_known() && made_at != NULL)
		pending_put(request_at(request, 0), (struct pended){.comm = request_at(made_at, 0),
								    .made_at = made_at,
								    .seed = seed});
}

/* Status `i` of an array of them. */
static const void *status_of(const void *statuses, int i)
{
	return (const char *)statuses + (size_t)i * tp_mpi_abi.status_bytes;
}

/*
 * The implementation's PMPI_ entry point `name`: the next object's after the shim, which defines
 * them too (for the Fortran bindings' calls), else the MPI library's in its own scope.
 */
static void *pmpi_entry(const char *name)
{
	return implementation(RTLD_NEXT, name);
}

/*
 * A call of a PMPI_ entry point the shim interposes is the program's unless the MPI library makes
 * it itself: Open MPI's Fortran bindings (libmpi_mpifh, and libmpi_usempif08 through it) call the
 * PMPI_ entry points, not the MPI_ ones (some by a tail call: then the return address is the
 * program's), so that a program in Fortran would make no MPI call the adapter sees; and a
 * program's own wrapper of an MPI_ function (a profiling layer linked in) calls its PMPI_ one.
 * The MPI library is PMPI_Init's module (code_map.h), found at the first such call traced
 * (racing first calls find the same): its index + 1, 0 not yet, NO_MODULE none (every call the
 * program's then).
 */
#define NO_MODULE UINT32_MAX
static uint32_t library_module;

/* Whether `caller` (a PMPI_ entry point's return address) is out of the MPI library. */
bool tp_mpi_from_program(const void *caller)
{
	uint32_t library = __atomic_load_n(&library_module, __ATOMIC_ACQUIRE);
	if (__builtin_expect(library == 0, 0)) {
		int saved_errno = errno;
		void *init = pmpi_entry("PMPI_Init");
		library = init != NULL ? tp_code_module_of((uintptr_t)init) : 0;
		library = library != 0 ? library : NO_MODULE;
		errno = saved_errno;
		__atomic_store_n(&library_module, library, __ATOMIC_RELEASE);
	}
	const struct tp_code_module *m = library != NO_MODULE ? tp_code_module(library - 1) : NULL;
	return m == NULL || (uintptr_t)caller < m->start || (uintptr_t)caller >= m->end;
}

/* `*cache`, or the entry point `name` (pmpi_entry), kept there: NULL, said, when there is none. */
void *tp_mpi_pmpi_cached(void **cache, const char *name)
{
	void *fn = __atomic_load_n(cache, __ATOMIC_RELAXED);
	if (__builtin_expect(fn == NULL, 0)) {
		if ((fn = pmpi_entry(name)) == NULL)
			tp_warn("cannot find the real %s; the call fails", name);
		__atomic_store_n(cache, fn, __ATOMIC_RELAXED);
	}
	return fn;
}

/*
 * For MPI_ symbol `mpi_name`, whose PMPI_ entry point is `pmpi_fn`: the MPI_ function of a
 * profiling layer of MPI's own kind (mpiP, IPM: a library that defines MPI_ functions and calls
 * their PMPI_ ones) loaded after the shim, if there is one, else `wrapper`. The shim's MPI_
 * symbols come before it, and bypassed it (its counts lost, its report never written); the
 * program's call now goes to the layer, whose PMPI_ call is the program's call the shim sees
 * (tp_mpi_from_program). The implementation's own MPI_ function is its PMPI_ one, or in its object.
 */
TP_RESOLVER static void *layer_or(const char *mpi_name, void *pmpi_fn, void *wrapper)
{
	void *next = look_up(RTLD_NEXT, mpi_name);
	Dl_info layer, implementation;
	if (next == NULL || next == pmpi_fn || dladdr(next, &layer) == 0 ||
	    dladdr(pmpi_fn, &implementation) == 0 || layer.dli_fbase == implementation.dli_fbase)
		return wrapper;
	return next;
}

/*
 * An MPI_ symbol's resolver: `wrapper` when the process has `pmpi_name` (kept in `*pmpi`), else
 * NULL; the wrapper alone before the shim is relocated (no call out of it can be made then).
 */
TP_RESOLVER void *tp_mpi_resolve(const char *pmpi_name, void **pmpi_fn, void *wrapper,
				 const char *mpi_name)
{
	if (relocated != (void *)&relocated)
		return wrapper;
	void *fn = pmpi_entry(pmpi_name);
	if (fn == NULL)
		fn = pmpi_in_local_scope(pmpi_name);
	if (fn == NULL)
		return NULL;
	__atomic_store_n(pmpi_fn, fn, __ATOMIC_RELAXED);
	return mpi_name != NULL ? layer_or(mpi_name, fn, wrapper) : wrapper;
}

/* The job's identity, as the launchers hand it to every rank ("" when none is known). */
static void job_of(char *out, size_t size)
{
	const char *v;
	out[0] = '\0';
	if ((v = secure_getenv("PMIX_NAMESPACE")) != NULL ||
	    (v = secure_getenv("OMPI_MCA_ess_base_jobid")) != NULL ||
	    (v = secure_getenv("PMI_KVSNAME")) != NULL) {
		snprintf(out, size, "%s", v);
	} else if ((v = secure_getenv("SLURM_JOB_ID")) != NULL) {
		const char *step = secure_getenv("SLURM_STEP_ID");
		snprintf(out, size, "slurm %s.%s", v, step != NULL ? step : "");
	}
}

/* mpi-init, once MPI_Init or MPI_Init_thread succeeded. */
static void init_event(int ret)
{
	if (ret != 0 || !tp_listeners_mpi_init() || !tp_mpi_abi_known())
		return;
	int saved_errno = errno, rank = -1, size = 0;
	char host[65] = "", job[129];
	if (tp_mpi_abi.comm_rank(tp_mpi_abi.comm_world, &rank) != 0 ||
	    tp_mpi_abi.comm_size(tp_mpi_abi.comm_world, &size) != 0)
		return;
	if (gethostname(host, sizeof host - 1) != 0)
		strcpy(host, "?");
	job_of(job, sizeof job);
	tp_fire_mpi_init((uint32_t)rank, (uint32_t)size, host, job);
	errno = saved_errno;
}

TP_MPI_INTERPOSE(Init, TP_MPI_CALL_INIT, (int *argc, char ***argv), (argc, argv), NOTHING,
		 init_event(ret_));
TP_MPI_INTERPOSE(Init_thread, TP_MPI_CALL_INIT_THREAD,
		 (int *argc, char ***argv, int required, int *provided),
		 (argc, argv, required, provided), NOTHING, init_event(ret_));
/* MPI_Finalize takes no argument: an unused one makes it fit the macro's parameter lists. */
TP_MPI_INTERPOSE(Finalize, TP_MPI_CALL_FINALIZE, (void *unused), (unused),
		 tp_fire_mpi_finalize_start(), NOTHING);

/* The sends: their mpi-send at their start. */
#define TP_MPI_SEND(name, call)                                                                    \
	TP_MPI_INTERPOSE(                                                                          \
		name, call,                                                                        \
		(const void *buf, int count, handle type, int dest, int tag, handle comm),         \
		(buf, count, type, dest, tag, comm), send_event(dest, tag, comm, count, type),     \
		NOTHING)
TP_MPI_SEND(Send, TP_MPI_CALL_SEND);
TP_MPI_SEND(Ssend, TP_MPI_CALL_SSEND);
TP_MPI_SEND(Bsend, TP_MPI_CALL_BSEND);
TP_MPI_SEND(Rsend, TP_MPI_CALL_RSEND);

/* An ignored status is replaced by the adapter's own, for the receive's source and tag. */
#define OWN_STATUS_IF_IGNORED(status)                                                              \
	unsigned char own_status_[STATUS_BYTES_MAX] = {0};                                         \
	if (tp_mpi_abi_known() && (uintptr_t)(status) == tp_mpi_abi.status_ignore)                 \
	status = own_status_

TP_MPI_INTERPOSE(Recv, TP_MPI_CALL_RECV,
		 (void *buf, int count, handle type, int source, int tag, handle comm,
		  void *status),
		 (buf, count, type, source, tag, comm, status), OWN_STATUS_IF_IGNORED(status),
		 if (ret_ == 0) recv_event(comm, status));
TP_MPI_INTERPOSE(Sendrecv, TP_MPI_CALL_SENDRECV,
		 (const void *sendbuf, int sendcount, handle sendtype, int dest, int sendtag,
		  void *recvbuf, int recvcount, handle recvtype, int source, int recvtag,
		  handle comm, void *status),
		 (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
		  recvtag, comm, status),
		 send_event(dest, sendtag, comm, sendcount, sendtype);
		 OWN_STATUS_IF_IGNORED(status), if (ret_ == 0) recv_event(comm, status));
TP_MPI_INTERPOSE(Sendrecv_replace, TP_MPI_CALL_SENDRECV_REPLACE,
		 (void *buf, int count, handle type, int dest, int sendtag, int source, int recvtag,
		  handle comm, void *status),
		 (buf, count, type, dest, sendtag, source, recvtag, comm, status),
		 send_event(dest, sendtag, comm, count, type);
		 OWN_STATUS_IF_IGNORED(status), if (ret_ == 0) recv_event(comm, status));
TP_MPI_INTERPOSE(Probe, TP_MPI_CALL_PROBE, (int source, int tag, handle comm, void *status),
		 (source, tag, comm, status), NOTHING, NOTHING);

/*
 * Matched probes take the message out of the queue: MPI_Mprobe (blocking) and MPI_Improbe (when
 * it finds one) receive it there, for the events (its source and tag are known then); the
 * MPI_Mrecv or MPI_Imrecv that reads it later is no further receive.
 */
TP_MPI_INTERPOSE(Mprobe, TP_MPI_CALL_MPROBE,
		 (int source, int tag, handle comm, void *message, void *status),
		 (source, tag, comm, message, status), OWN_STATUS_IF_IGNORED(status),
		 if (ret_ == 0) recv_event(comm, status));
TP_MPI_INTERPOSE(Improbe, TP_MPI_CALL_IMPROBE,
		 (int source, int tag, handle comm, int *flag, void *message, void *status),
		 (source, tag, comm, flag, message, status), OWN_STATUS_IF_IGNORED(status),
		 if (ret_ == 0 && *flag) recv_event(comm, status));
TP_MPI_INTERPOSE(Iprobe, TP_MPI_CALL_IPROBE,
		 (int source, int tag, handle comm, int *flag, void *status),
		 (source, tag, comm, flag, status), NOTHING, NOTHING);
TP_MPI_INTERPOSE(Mrecv, TP_MPI_CALL_MRECV,
		 (void *buf, int count, handle type, void *message, void *status),
		 (buf, count, type, message, status), NOTHING, NOTHING);

void tp_mpi_request_forgotten(handle request)
{
	struct pended stale;
	if (tp_mpi_abi_known())
		(void)pending_take(request, &stale);
}

/*
 * A send's new request: a receive of the same handle still remembered is stale (completed by a
 * call not interposed, or freed) and forgotten, so its completion is no receive.
 */
static void send_started(int ret, const void *request)
{
	if (ret == 0 && tp_mpi_abi_known())
		tp_mpi_request_forgotten(request_at(request, 0));
}

/* Nonblocking: a send's event at its start; a receive's when a wait or test completes it. */
#define TP_MPI_ISEND(name)                                                                         \
	TP_MPI_INTERPOSE(name, 0,                                                                  \
			 (const void *buf, int count, handle type, int dest, int tag, handle comm, \
			  void *request),                                                          \
			 (buf, count, type, dest, tag, comm, request),                             \
			 send_event(dest, tag, comm, count, type), send_started(ret_, request))
TP_MPI_ISEND(Isend);
TP_MPI_ISEND(Issend);
TP_MPI_ISEND(Ibsend);
TP_MPI_ISEND(Irsend);

void tp_mpi_send_event(int dest, int tag, handle comm, int count, handle type)
{
	send_event(dest, tag, comm, count, type);
}

void tp_mpi_receive_started(const void *requests, int i, handle comm)
{
	if (tp_listeners_mpi_recv() && tp_mpi_abi_known())
		pending_put(request_at(requests, i), (struct pended){.comm = comm});
}

/* (A communicator's handle, written by a call that makes one, is read so too: its size is a
 * request's in both interfaces.) */
handle tp_mpi_request_at(const void *requests, int i)
{
	/* a NULL array is the implementation's to refuse (MPI_ERR_REQUEST), not the shim's to read */
	return requests != NULL && tp_mpi_abi_known() ? request_at(requests, i) : 0;
}

/* A receive started while mpi-recv is listened to, remembered until it completes. */
static void irecv_started(int ret, handle comm, const void *request)
{
	if (ret == 0)
		tp_mpi_receive_started(request, 0, comm);
}
TP_MPI_INTERPOSE(Irecv, 0,
		 (void *buf, int count, handle type, int source, int tag, handle comm,
		  void *request),
		 (buf, count, type, source, tag, comm, request), NOTHING,
		 irecv_started(ret_, comm, request));

TP_MPI_INTERPOSE(Wait, TP_MPI_CALL_WAIT, (void *request, void *status), (request, status),
		 struct completing c_;
		 completing_start(&c_, request, 1, &status),
		 if (ret_ == 0) completing_done(&c_, 0, status);
		 completing_end(&c_));
TP_MPI_INTERPOSE(Waitall, TP_MPI_CALL_WAITALL, (int count, void *requests, void *statuses),
		 (count, requests, statuses), struct completing c_;
		 completing_start(&c_, requests, count, &statuses),
		 for (int i_ = 0; ret_ == 0 && i_ < c_.n; i_++)
			 completing_done(&c_, i_, status_of(statuses, i_));
		 completing_end(&c_));
TP_MPI_INTERPOSE(Waitany, TP_MPI_CALL_WAITANY,
		 (int count, void *requests, int *index, void *status),
		 (count, requests, index, status), struct completing c_;
		 completing_start(&c_, requests, count, &status),
		 if (ret_ == 0) completing_done(&c_, *index, status);
		 completing_end(&c_));
TP_MPI_INTERPOSE(Waitsome, TP_MPI_CALL_WAITSOME,
		 (int incount, void *requests, int *outcount, int *indices, void *statuses),
		 (incount, requests, outcount, indices, statuses), struct completing c_;
		 completing_start(&c_, requests, incount, &statuses),
		 for (int i_ = 0; ret_ == 0 && c_.n > 0 && i_ < *outcount; i_++)
			 completing_done(&c_, indices[i_], status_of(statuses, i_));
		 completing_end(&c_));
TP_MPI_INTERPOSE(Test, TP_MPI_CALL_TEST, (void *request, int *flag, void *status),
		 (request, flag, status), struct completing c_;
		 completing_start(&c_, request, 1, &status),
		 if (ret_ == 0 && *flag) completing_done(&c_, 0, status);
		 completing_end(&c_));
TP_MPI_INTERPOSE(Testall, TP_MPI_CALL_TESTALL,
		 (int count, void *requests, int *flag, void *statuses),
		 (count, requests, flag, statuses), struct completing c_;
		 completing_start(&c_, requests, count, &statuses),
		 for (int i_ = 0; ret_ == 0 && *flag && i_ < c_.n; i_++)
			 completing_done(&c_, i_, status_of(statuses, i_));
		 completing_end(&c_));
TP_MPI_INTERPOSE(Testany, TP_MPI_CALL_TESTANY,
		 (int count, void *requests, int *index, int *flag, void *status),
		 (count, requests, index, flag, status), struct completing c_;
		 completing_start(&c_, requests, count, &status),
		 if (ret_ == 0 && *flag) completing_done(&c_, *index, status);
		 completing_end(&c_));
TP_MPI_INTERPOSE(Testsome, TP_MPI_CALL_TESTSOME,
		 (int incount, void *requests, int *outcount, int *indices, void *statuses),
		 (incount, requests, outcount, indices, statuses), struct completing c_;
		 completing_start(&c_, requests, incount, &statuses),
		 for (int i_ = 0; ret_ == 0 && c_.n > 0 && i_ < *outcount; i_++)
			 completing_done(&c_, indices[i_], status_of(statuses, i_));
		 completing_end(&c_));

/* MPI_Pcontrol(1) starts the region of interest, (0) stops it (its further arguments unread). */
static void pcontrol_event(int level)
{
	if (tp_listeners_region_of_interest())
		tp_fire_region_of_interest(level != 0, TP_ROI_BY_MPI_PCONTROL);
}
TP_MPI_INTERPOSE(Pcontrol, 0, (int level), (level), pcontrol_event(level), NOTHING);
