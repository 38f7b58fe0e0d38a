/* Capturing spawn stacks with libunwind, and leaving out frames that are not the program's. */
#define _GNU_SOURCE
#include "spawn_stack.h"

#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#define UNW_LOCAL_ONLY /* this process only: libunwind's faster local unwinder */
#include <libunwind.h>

#include "settings.h"
#include "stack_table.h"

/* Address ranges whose frames on top of a stack are left out: the shim, then executors. */
#define SKIPPED_MODULES_MAX 8
#define SKIPPED_FRAMES_MAX 32

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
 * libunwind opens a pipe (two descriptors, close-on-exec) when it first initializes, so it is
 * initialized at the first capture, not at start-up: a program whose spawn stacks are never
 * captured keeps the same descriptor numbers as without the shim. Unwinding then caches per
 * thread, with no lock. Two racing first captures set the same policy.
 */
static void set_up_unwinding(void)
{
	static bool done;
	if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		return;
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	__atomic_store_n(&done, true, __ATOMIC_RELEASE);
}

uint32_t tp_spawn_stack_capture(uintptr_t pcs[TP_STACK_DEPTH_MAX], uint32_t *id)
{
	const struct tp_settings *settings = tp_settings();
	void *frames[TP_STACK_DEPTH_MAX + SKIPPED_FRAMES_MAX];
	*id = 0;
	if (!settings->stacks)
		return 0;
	set_up_unwinding();
	int n = unw_backtrace(frames, (int)settings->stack_depth + SKIPPED_FRAMES_MAX);
	int first = 0;
	while (first < n && first < SKIPPED_FRAMES_MAX && is_skipped((uintptr_t)frames[first]))
		first++;
	uint32_t depth = 0;
	for (int i = first; i < n && depth < settings->stack_depth; i++)
		pcs[depth++] = (uintptr_t)frames[i];
	if (depth > 0)
		*id = tp_stack_table_intern(pcs, depth);
	return depth;
}

/* The shim's own frames are never the program's. */
__attribute__((constructor)) static void skip_the_shim(void)
{
	tp_spawn_stack_skip_module((const void *)tp_spawn_stack_capture);
}
