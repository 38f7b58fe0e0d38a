// SPDX-License-Identifier: MIT
/* Capturing spawn stacks with libunwind, and leaving out frames that are not the program's. */
#define _GNU_SOURCE
#include "spawn_stack.h"

#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#define UNW_LOCAL_ONLY /* this process only: libunwind's faster local unwinder */
#include <libunwind.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "settings.h"
#include "stack_table.h"
#include "warn.h"

/* Address ranges whose frames on top of a stack are left out: the shim, then executors. */
#define SKIPPED_MODULES_MAX 8
#define SKIPPED_FRAMES_MAX  (TP_SPAWN_STACK_BUFFER - TP_STACK_DEPTH_MAX)

struct range {
	uintptr_t start, end;
};

static struct range skipped[SKIPPED_MODULES_MAX];
static unsigned n_skipped; /* published after its range is written */

struct module_search {
	uintptr_t address;
	struct range found;
};

static int find_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct module_search *search = arg;
	uintptr_t start = UINTPTR_MAX, end = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t s = info->dlpi_addr + ph->p_vaddr, e = s + ph->p_memsz;
		start = s < start ? s : start;
		end = e > end ? e : end;
	}
	if (search->address < start || search->address >= end)
		return 0;
	search->found = (struct range){start, end};
	return 1;
}

void tp_spawn_stack_skip_module(const void *address_in_module)
{
	struct module_search search = {.address = (uintptr_t)address_in_module};
	unsigned n = __atomic_load_n(&n_skipped, __ATOMIC_ACQUIRE);
	if (n < SKIPPED_MODULES_MAX && dl_iterate_phdr(find_module, &search) == 1) {
		skipped[n] = search.found;
		__atomic_store_n(&n_skipped, n + 1, __ATOMIC_RELEASE);
	}
}

static bool is_skipped(uintptr_t pc)
{
	unsigned n = __atomic_load_n(&n_skipped, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < n; i++)
		if (pc >= skipped[i].start && pc < skipped[i].end)
			return true;
	return false;
}

/*
 * libunwind is loaded at the first capture, privately (RTLD_LOCAL), not linked: it exports the
 * _Unwind_* functions of the C++ exception ABI too, and in the program's global scope it could
 * stand in for libgcc_s's. Loading it late also keeps its start-up out of programs whose stacks
 * are never captured: it opens a pipe (two close-on-exec descriptors) when it first unwinds.
 * Racing first captures both load it; dlopen returns the same handle.
 */
#define NAME_OF(symbol)   STRING_OF(symbol) /* unw_* are macros for _UL<arch>_* with UNW_LOCAL_ONLY */
#define STRING_OF(symbol) #symbol

typedef int (*unwind_fn)(void **frames, int size);
static unwind_fn unwind;
static bool unavailable;

/* unw_backtrace, loaded now if it is not yet; NULL if it cannot be. */
static unwind_fn load_libunwind(void)
{
	unwind_fn loaded = __atomic_load_n(&unwind, __ATOMIC_ACQUIRE);
	if (__builtin_expect(loaded != NULL, 1))
		return loaded;
	if (__atomic_load_n(&unavailable, __ATOMIC_RELAXED))
		return NULL;
	void *lib = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	void *backtrace = lib != NULL ? dlsym(lib, "unw_backtrace") : NULL;
	int (*set_caching)(unw_addr_space_t, unw_caching_policy_t) =
		lib != NULL ? (int (*)(unw_addr_space_t, unw_caching_policy_t))dlsym(
				      lib, NAME_OF(unw_set_caching_policy))
			    : NULL;
	unw_addr_space_t *local = lib != NULL ? dlsym(lib, NAME_OF(unw_local_addr_space)) : NULL;
	if (backtrace == NULL) {
		if (!__atomic_exchange_n(&unavailable, true, __ATOMIC_RELAXED))
			tp_warn("libunwind.so.8 cannot be loaded (%s); spawn stacks are off",
				lib == NULL ? dlerror() : "no unw_backtrace");
		return NULL;
	}
	/* unwinding caches per thread, with no lock */
	if (set_caching != NULL && local != NULL)
		set_caching(*local, UNW_CACHE_PER_THREAD);
	loaded = (unwind_fn)backtrace;
	__atomic_store_n(&unwind, loaded, __ATOMIC_RELEASE);
	return loaded;
}

/*
 * How many frames the last capture on this thread left out: the next one asks libunwind for that
 * many more than it keeps (and one to spare), rather than unwinding frames it would not keep.
 */
static __thread uint8_t last_skipped __attribute__((tls_model("initial-exec"))) = 4;

/*
 * Folds recursion out of `pcs[0..n)` in place, as flame graphs fold it, and returns the frames
 * left, at most `keep`: a frame whose return address is already among the frames kept above it
 * is the same call again, one more turn of a recursion (a recursive task body resumed inside a
 * taskwait shows the same runtime and taskwait frames at every level), so it is left out.
 * Stacks of one call path then fold to one stack whatever the recursion depth, which keeps the
 * stack table from filling with one stack per task in recursive programs. The frames kept are
 * found in a small open-addressed set, at most half full, so a capture stays linear in its
 * frames.
 */
static int fold_recursion(uintptr_t *pcs, int n, int keep)
{
	uintptr_t seen[2 * TP_STACK_DEPTH_MAX];
	unsigned bits = 32 - (unsigned)__builtin_clz(2 * (unsigned)keep - 1);
	size_t mask = ((size_t)1 << bits) - 1;
	memset(seen, 0, (mask + 1) * sizeof *seen);
	int kept = 0;
	for (int i = 0; i < n && kept < keep; i++) {
		uintptr_t pc = pcs[i];
		size_t slot = (size_t)((pc * 0x9E3779B97F4A7C15ull) >> (64 - bits));
		while (seen[slot] != 0 && seen[slot] != pc)
			slot = (slot + 1) & mask;
		if (seen[slot] == pc)
			continue;
		seen[slot] = pc;
		pcs[kept++] = pc;
	}
	return kept;
}

const uintptr_t *tp_spawn_stack_capture(uintptr_t buffer[TP_SPAWN_STACK_BUFFER], uint32_t *depth,
					uint32_t *id)
{
	const struct tp_settings *settings = tp_settings();
	int keep = (int)settings->stack_depth, n, first, kept;
	*depth = 0;
	*id = 0;
	unwind_fn backtrace = settings->stacks ? load_libunwind() : NULL;
	if (backtrace == NULL)
		return NULL;
	void **frames = (void **)buffer;
	int want = keep + last_skipped + 1;
	if (want > TP_SPAWN_STACK_BUFFER)
		want = TP_SPAWN_STACK_BUFFER;
	for (;;) {
		n = backtrace(frames, want);
		first = 0;
		while (first < n && first < SKIPPED_FRAMES_MAX && is_skipped(buffer[first]))
			first++;
		kept = fold_recursion(buffer + first, n - first, keep);
		/* all frames asked for were taken and too few kept: ask for more */
		if (n < want || n - first >= keep || want == TP_SPAWN_STACK_BUFFER)
			break;
		want = TP_SPAWN_STACK_BUFFER;
	}
	last_skipped = (uint8_t)first;
	*depth = (uint32_t)kept;
	if (*depth == 0)
		return NULL;
	*id = tp_stack_table_intern(buffer + first, *depth);
	return buffer + first;
}
