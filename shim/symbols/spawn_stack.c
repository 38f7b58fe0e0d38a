// SPDX-License-Identifier: MIT
/* Capturing spawn stacks with libunwind, and leaving out frames that are not the program's. */
#define _GNU_SOURCE
#include "spawn_stack.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <sys/auxv.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stddef.h>
#define UNW_LOCAL_ONLY /* this process only: libunwind's faster local unwinder */
#include <libunwind.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hash.h"
#include "library_load.h"
#include "own_files.h"
#include "process.h"
#include "real_symbol.h"
#include "settings.h"
#include "stack_table.h"
#include "warn.h"
#include "shim_work.h"

/* Address ranges whose frames on top of a stack are left out: the shim, then executors. */
#define SKIPPED_MODULES_MAX 8
#define SKIPPED_FRAMES_MAX  (TP_SPAWN_STACK_BUFFER - TP_STACK_DEPTH_MAX)

struct range {
	uintptr_t start, end;
};

static struct range skipped[SKIPPED_MODULES_MAX];
static unsigned n_skipped; /* published after its range is written */
static struct range shim;  /* the shim's own code (its end published last) */

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

/*
 * Sets `*r` to the range of the loaded module holding `address`, its end published last (for
 * in_range on other threads); false, `*r` untouched, when no module holds it.
 */
static bool find_module_range(const void *address, struct range *r)
{
	struct module_search search = {.address = (uintptr_t)address};
	if (dl_iterate_phdr(find_module, &search) != 1)
		return false;
	r->start = search.found.start;
	__atomic_store_n(&r->end, search.found.end, __ATOMIC_RELEASE);
	return true;
}

static bool in_range(const struct range *r, uintptr_t pc)
{
	return pc >= r->start && pc < __atomic_load_n(&r->end, __ATOMIC_ACQUIRE);
}

/* Appends `r` to the ranges skipped on top of a stack, if there is room. */
static void skip_range(const struct range *r)
{
	unsigned n = __atomic_load_n(&n_skipped, __ATOMIC_ACQUIRE);
	if (n < SKIPPED_MODULES_MAX) {
		skipped[n] = *r;
		__atomic_store_n(&n_skipped, n + 1, __ATOMIC_RELEASE);
	}
}

void tp_spawn_stack_skip_module(const void *address_in_module)
{
	struct range found;
	if (find_module_range(address_in_module, &found))
		skip_range(&found);
}

void tp_spawn_stack_own_module(const void *address_in_shim)
{
	if (find_module_range(address_in_shim, &shim))
		skip_range(&shim);
}

static bool is_skipped(uintptr_t pc)
{
	unsigned n = __atomic_load_n(&n_skipped, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < n; i++)
		if (in_range(&skipped[i], pc))
			return true;
	return false;
}

/*
 * libunwind is loaded at the first capture, privately (RTLD_LOCAL), not linked: it exports the
 * _Unwind_* functions of the C++ exception ABI too, and in the program's global scope it could
 * stand in for libgcc_s's. Loading it late also keeps its start-up out of programs whose stacks
 * are never captured: it opens a pipe (two close-on-exec descriptors) when it first unwinds,
 * which the shim keeps as its own (tp_spawn_stack_unwinder_pipe).
 * Racing first captures both load it; dlopen returns the same handle.
 */
#define NAME_OF(symbol) TP_STRING(symbol) /* unw_* are macros for _UL<arch>_* with UNW_LOCAL_ONLY */

typedef int (*unwind_fn)(void **frames, int size);
static unwind_fn unwind;
static bool unavailable;

/*
 * The threads inside libunwind now (loading it, unwinding): a child forked meanwhile leaves it
 * alone (tp_spawn_stack_child_after_fork). Taken before any lock of libunwind's or the loader's.
 */
static unsigned in_unwinder;

static inline void unwinder_enter(void)
{
	__atomic_add_fetch(&in_unwinder, 1, __ATOMIC_ACQ_REL);
}

static inline void unwinder_leave(void)
{
	__atomic_sub_fetch(&in_unwinder, 1, __ATOMIC_RELEASE);
}
static struct range unwinder; /* libunwind's code, once loaded (its end published last) */

/*
 * unw_backtrace, loaded now if it is not yet; NULL if it cannot be, or under a system call
 * filter (process.h): loading and unwinding make calls of libunwind's own (the file, a pipe,
 * mappings) that the filter may refuse.
 */
static unwind_fn load_libunwind(void)
{
	if (__builtin_expect(tp_process_filtered(), 0))
		return NULL;
	unwind_fn loaded = __atomic_load_n(&unwind, __ATOMIC_ACQUIRE);
	if (__builtin_expect(loaded != NULL, 1))
		return loaded;
	if (__atomic_load_n(&unavailable, __ATOMIC_RELAXED))
		return NULL;
	/*
	 * The shim's own work: setting the caching policy initializes libunwind under its lock,
	 * which racing first captures contend for (no wait of the program's, shim_work.h).
	 */
	bool nested = tp_shim_work_begin();
	unwinder_enter();
	char why[256];
	void *lib = tp_library_load("libunwind.so.8", RTLD_NOW | RTLD_LOCAL, why, sizeof why);
	void *backtrace = lib != NULL ? dlsym(lib, "unw_backtrace") : NULL;
	int (*set_caching)(unw_addr_space_t, unw_caching_policy_t) =
		lib != NULL ? (int (*)(unw_addr_space_t, unw_caching_policy_t))dlsym(
				      lib, NAME_OF(unw_set_caching_policy))
			    : NULL;
	unw_addr_space_t *local = lib != NULL ? dlsym(lib, NAME_OF(unw_local_addr_space)) : NULL;
	if (backtrace == NULL) {
		if (!__atomic_exchange_n(&unavailable, true, __ATOMIC_RELAXED))
			tp_warn("libunwind.so.8 cannot be loaded (%s); spawn stacks are off",
				lib == NULL ? why : "no unw_backtrace");
		unwinder_leave();
		tp_shim_work_end(nested);
		return NULL;
	}
	/* its range first: setting the caching policy starts libunwind, which makes its pipe
	 * (tp_spawn_stack_unwinder_pipe tells its pipe2 by the caller) */
	(void)find_module_range(backtrace, &unwinder);
	/* unwinding caches per thread, with no lock */
	if (set_caching != NULL && local != NULL)
		set_caching(*local, UNW_CACHE_PER_THREAD);
	unwinder_leave();
	tp_shim_work_end(nested);
	loaded = (unwind_fn)backtrace;
	__atomic_store_n(&unwind, loaded, __ATOMIC_RELEASE);
	return loaded;
}

/*
 * unw_backtrace as the shim's own work: a lock libunwind waits for is no wait of the program's
 * (shim_work.h), nor its time the program's.
 */
static struct tp_own_fd_gate unwinder_gate; /* libunwind's pipe's users: it writes to it */

static int unwind_frames(unwind_fn backtrace, void **frames, int n)
{
	bool nested = tp_shim_work_begin();
	unwinder_enter();
	tp_own_fd_gate_enter(&unwinder_gate);
	int got = backtrace(frames, n);
	tp_own_fd_gate_leave(&unwinder_gate);
	unwinder_leave();
	tp_shim_work_end(nested);
	return got;
}

void tp_spawn_stack_prepare(void)
{
	if (!tp_settings()->stacks)
		return;
	unwind_fn backtrace = load_libunwind();
	void *frames[TP_SPAWN_STACK_BUFFER];
	if (backtrace != NULL)
		(void)unwind_frames(backtrace, frames,
				    TP_SPAWN_STACK_BUFFER); /* its first sets it up */
}

/*
 * How many frames the last capture on this thread left out: the next one asks libunwind for that
 * many more than it keeps (and one to spare), rather than unwinding frames it would not keep.
 */
static __thread uint8_t last_skipped __attribute__((tls_model("initial-exec"))) = 4;

/*
 * Leaves the shim's frames out of `pcs[0..n)` in place, wherever they are (its thread trampoline
 * lies under the program's thread routine while thread-start is traced: a stack must not change
 * with the tracers attached), and folds recursion out, as flame graphs fold it; returns the
 * frames left, at most `keep`. A frame whose return address is already among the frames kept above
 * it is the same call again, one more turn of a recursion (a recursive task body resumed inside a
 * taskwait shows the same runtime and taskwait frames at every level), so it is left out. Stacks of
 * one call path then fold to one stack whatever the recursion depth, which keeps the stack table
 * from filling with one stack per task in recursive programs. The frames kept are found in a small
 * open-addressed set, at most half full, so a capture stays linear in its frames.
 */
static int keep_programs_frames(uintptr_t *pcs, int n, int keep)
{
	uintptr_t seen[2 * TP_STACK_DEPTH_MAX];
	unsigned bits = 32 - (unsigned)__builtin_clz(2 * (unsigned)keep - 1);
	size_t mask = ((size_t)1 << bits) - 1;
	memset(seen, 0, (mask + 1) * sizeof *seen);
	int kept = 0;
	for (int i = 0; i < n && kept < keep; i++) {
		uintptr_t pc = pcs[i];
		if (in_range(&shim, pc))
			continue;
		size_t slot = tp_hash_slot(pc, bits);
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
	return tp_spawn_stack_capture_outside(buffer, depth, id, NULL);
}

/*
 * The bytes of the program's entry code (_start) within which its one call returns: the call of
 * libc's start of main, at _start+0x21 on x86-64 glibc; a function of the program's own is never
 * that close after the entry point.
 */
#define ENTRY_CODE_BYTES 64

/*
 * Whether `pc` returns into the program's entry code, which called libc's start of main: the
 * outermost frame of the main thread, no call of the program's own (a wait a library's
 * destructor makes in exit after main returned, or one main tail-called, has no other frame
 * outside the libraries).
 */
static bool is_entry_code(uintptr_t pc)
{
	static uintptr_t entry;
	uintptr_t e = __atomic_load_n(&entry, __ATOMIC_RELAXED);
	if (e == 0) {
		e = (uintptr_t)getauxval(AT_ENTRY);
		__atomic_store_n(&entry, e, __ATOMIC_RELAXED);
	}
	return e != 0 && pc > e && pc - e < ENTRY_CODE_BYTES;
}

/*
 * Whether the frame `pc` on top of a stack is left out: the shim's, an executor's, `inside`'s,
 * or the entry code's (a stack with nothing above it has no frame of the program's).
 */
static bool is_left_out(uintptr_t pc, bool (*inside)(uintptr_t pc))
{
	return is_skipped(pc) || (inside != NULL && inside(pc)) || is_entry_code(pc);
}

const uintptr_t *tp_spawn_stack_capture_outside(uintptr_t buffer[TP_SPAWN_STACK_BUFFER],
						uint32_t *depth, uint32_t *id,
						bool (*inside)(uintptr_t pc))
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
		n = unwind_frames(backtrace, frames, want);
		first = 0;
		while (first < n && first < SKIPPED_FRAMES_MAX &&
		       is_left_out(buffer[first], inside))
			first++;
		kept = keep_programs_frames(buffer + first, n - first, keep);
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

uintptr_t tp_spawn_stack_first_outside(bool (*inside)(uintptr_t pc))
{
	unwind_fn backtrace = tp_settings()->stacks ? load_libunwind() : NULL;
	void *frames[TP_CALLER_FRAMES_MAX];
	int n = backtrace != NULL ? unwind_frames(backtrace, frames, TP_CALLER_FRAMES_MAX) : 0;
	for (int i = 0; i < n; i++) {
		uintptr_t pc = (uintptr_t)frames[i];
		if (!is_left_out(pc, inside))
			return pc;
	}
	return 0;
}

/* libunwind's cursor API, for tp_spawn_stack_executor_entry: loaded once, like unw_backtrace. */
static struct {
	int (*getcontext)(unw_context_t *);
	int (*init_local)(unw_cursor_t *, unw_context_t *);
	int (*step)(unw_cursor_t *);
	int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
} cursor_api;
static pthread_once_t cursor_once = PTHREAD_ONCE_INIT;
static bool cursor_ready;

/* load_cursor_api's lookups, inside libunwind (the loader's lock) */
static void load_cursor_functions(void)
{
	void *lib = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (lib == NULL)
		return;
	void *getcontext = dlsym(lib, NAME_OF(unw_tdep_getcontext));
	void *init_local = dlsym(lib, NAME_OF(unw_init_local));
	void *step = dlsym(lib, NAME_OF(unw_step));
	void *get_reg = dlsym(lib, NAME_OF(unw_get_reg));
	if (getcontext == NULL || init_local == NULL || step == NULL || get_reg == NULL)
		return;
	memcpy(&cursor_api.getcontext, &getcontext, sizeof getcontext);
	memcpy(&cursor_api.init_local, &init_local, sizeof init_local);
	memcpy(&cursor_api.step, &step, sizeof step);
	memcpy(&cursor_api.get_reg, &get_reg, sizeof get_reg);
	cursor_ready = true;
}

static void load_cursor_api(void)
{
	if (load_libunwind() == NULL)
		return;
	unwinder_enter();
	load_cursor_functions();
	unwinder_leave();
}

/* libc's code: a thread's first frames, never the program's call. */
static struct range libc_range(void)
{
	static struct range libc;
	struct module_search search = {.address = (uintptr_t)&abort};
	if (__atomic_load_n(&libc.end, __ATOMIC_ACQUIRE) == 0 &&
	    dl_iterate_phdr(find_module, &search) == 1) {
		libc.start = search.found.start;
		__atomic_store_n(&libc.end, search.found.end, __ATOMIC_RELEASE);
	}
	return libc;
}

#if defined(__x86_64__)
/*
 * The register through which the instruction before `return_address` called, when it is an
 * indirect call through a register that the callee must keep (rbx, rbp, r12 to r15: the
 * unwinder knows its value in the caller's frame); -1 otherwise.
 */
static int called_through(uintptr_t return_address)
{
	const unsigned char *c = (const unsigned char *)return_address;
	/* call *%reg: ff /2 with mod 11 (ff d0+r), and a REX.B prefix (41) for r8 to r15 */
	bool high = c[-3] == 0x41 && c[-2] == 0xff && (c[-1] & 0xf8) == 0xd0;
	if (!high && !(c[-2] == 0xff && (c[-1] & 0xf8) == 0xd0))
		return -1;
	static const int low_registers[8] = {-1, -1, -1, UNW_X86_64_RBX, -1, UNW_X86_64_RBP,
					     -1, -1};
	static const int high_registers[8] = {
		-1, -1, -1, -1, UNW_X86_64_R12, UNW_X86_64_R13, UNW_X86_64_R14, UNW_X86_64_R15};
	return high ? high_registers[c[-1] & 7] : low_registers[c[-1] & 7];
}
#else
static int called_through(uintptr_t return_address)
{
	(void)return_address;
	return -1;
}
#endif

static void find_executor_entry(uintptr_t executor_return, struct tp_executor_entry *entry);

void tp_spawn_stack_executor_entry(uintptr_t executor_return, struct tp_executor_entry *entry)
{
	*entry = (struct tp_executor_entry){0, 0};
	pthread_once(&cursor_once, load_cursor_api);
	if (!cursor_ready)
		return;
	unwinder_enter();
	tp_own_fd_gate_enter(&unwinder_gate);
	find_executor_entry(executor_return, entry);
	tp_own_fd_gate_leave(&unwinder_gate);
	unwinder_leave();
}

void tp_spawn_stack_child_after_fork(void)
{
	/* another thread was inside libunwind at the fork: its locks and the loader's may be held
	 * in the child, by a thread that is not there; the child takes no stack (a child that
	 * waited took one and hung, 1 fork in 3 of a threaded program under the statistics) */
	if (__atomic_load_n(&in_unwinder, __ATOMIC_RELAXED) != 0) {
		__atomic_store_n(&unavailable, true, __ATOMIC_RELAXED);
		__atomic_store_n(&unwind, NULL, __ATOMIC_RELEASE);
		cursor_ready = false;
	}
	__atomic_store_n(&in_unwinder, 0, __ATOMIC_RELAXED);
}

/* tp_spawn_stack_executor_entry's unwinding, inside libunwind's pipe's gate. */
static void find_executor_entry(uintptr_t executor_return, struct tp_executor_entry *entry)
{
	unw_context_t context;
	unw_cursor_t cursor;
	if (cursor_api.getcontext(&context) != 0 || cursor_api.init_local(&cursor, &context) != 0)
		return;
	struct range libc = libc_range();
	for (int frame = 0; frame < TP_SPAWN_STACK_BUFFER; frame++) {
		unw_word_t ip = 0;
		bool nested = tp_shim_work_begin();
		int stepped = frame > 0 ? cursor_api.step(&cursor) : 1;
		tp_shim_work_end(nested);
		if (stepped <= 0)
			return;
		if (cursor_api.get_reg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0)
			return;
		if (frame > 0 && ip == executor_return) {
			int reg = called_through(ip);
			unw_word_t callee = 0;
			if (reg >= 0 &&
			    cursor_api.get_reg(&cursor, (unw_regnum_t)reg, &callee) == 0 &&
			    callee != 0 && !is_skipped(callee)) {
				entry->callee = callee;
				return;
			}
		}
		if (frame > 0 && !is_skipped(ip)) {
			if (ip < libc.start || ip >= libc.end)
				entry->program_return = ip;
			return;
		}
	}
}

bool tp_spawn_stack_in_unwinder(uintptr_t address)
{
	return in_range(&unwinder, address);
}

static struct tp_own_fd unwinder_pipe[2] = {TP_OWN_FD_NONE, TP_OWN_FD_NONE};

bool tp_spawn_stack_unwinder_pipe(int fds[2])
{
	for (int i = 0; i < 2; i++) {
		unwinder_pipe[i].mirror = &fds[i];
		unwinder_pipe[i].gate = &unwinder_gate;
		if (!tp_own_fd_keep(&unwinder_pipe[i], fds[i])) { /* closed */
			if (i == 1)
				tp_own_fd_close(&unwinder_pipe[0]);
			else
				tp_real_close(fds[1]);
			fds[0] = fds[1] = -1;
			errno = EMFILE;
			return false;
		}
		fds[i] = __atomic_load_n(&unwinder_pipe[i].fd, __ATOMIC_RELAXED);
	}
	return true;
}

bool tp_spawn_stack_unwinder_closes(int fd)
{
	for (int i = 0; i < 2; i++)
		if (fd >= 0 && __atomic_load_n(&unwinder_pipe[i].fd, __ATOMIC_ACQUIRE) == fd) {
			tp_own_fd_close(&unwinder_pipe[i]);
			return true;
		}
	return false;
}

bool tp_spawn_stack_in_executor(uintptr_t address)
{
	return is_skipped(address);
}
