// SPDX-License-Identifier: MIT
/* The program's construct for a call address libomp reports inside itself (ompt_sites.h). */
#define _GNU_SOURCE
#include "ompt_sites.h"

#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "spawn_stack.h"
#include "spin_lock.h"
#include "symbolize.h"

/* The loaded segments of one module, to read its code and data only where they are mapped. */
#define SEGMENTS_MAX 16
struct segments {
	uintptr_t address;
	unsigned n;
	struct {
		uintptr_t start, end;
		bool code;
	} at[SEGMENTS_MAX];
};

static int find_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct segments *s = arg;
	s->n = 0;
	bool holds = false;
	for (int i = 0; i < info->dlpi_phnum && s->n < SEGMENTS_MAX; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
		s->at[s->n].start = start;
		s->at[s->n].end = end;
		s->at[s->n].code = (ph->p_flags & PF_X) != 0;
		s->n++;
		holds = holds || (s->address >= start && s->address < end);
	}
	return holds;
}

/* Whether [address, address + length) lies in one segment (a code segment if `code`). */
static bool mapped(const struct segments *s, uintptr_t address, size_t length, bool code)
{
	for (unsigned i = 0; i < s->n; i++)
		if (address >= s->at[i].start && address <= s->at[i].end - length &&
		    (s->at[i].code || !code))
			return true;
	return false;
}

static int32_t rel32(const unsigned char *at)
{
	int32_t value;
	memcpy(&value, at, sizeof value);
	return value;
}

/* Whether `entry` is the start of one of libomp's entry points that `construct` calls. */
static bool entry_of(uintptr_t entry, enum tp_ompt_construct construct)
{
	static const char *const prefixes[][3] = {
		[TP_OMPT_TASK] = {"__kmpc_omp_task", "GOMP_task", NULL},
		[TP_OMPT_PARALLEL] = {"__kmpc_fork_call", "__kmpc_fork_teams", "GOMP_parallel"},
		[TP_OMPT_TASKLOOP] = {"__kmpc_taskloop", "GOMP_taskloop", NULL},
		[TP_OMPT_BARRIER] = {"__kmpc_barrier", "GOMP_barrier", NULL},
		[TP_OMPT_TASKWAIT] = {"__kmpc_omp_taskwait", "GOMP_taskwait", NULL},
		[TP_OMPT_TASKGROUP] = {"__kmpc_end_taskgroup", "GOMP_taskgroup_end", NULL},
		[TP_OMPT_LOCK] = {"omp_set_lock", "omp_set_nest_lock", "omp_test_"},
	};
	/* a task's prefixes' other entry points: no task is made there */
	static const char *const not_tasks[] = {"__kmpc_omp_task_alloc", "__kmpc_omp_taskwait",
						"__kmpc_omp_taskyield",  "GOMP_taskwait",
						"GOMP_taskyield",        "GOMP_taskgroup",
						"GOMP_taskloop"};
	Dl_info info;
	if (!tp_spawn_stack_in_executor(entry) || dladdr((const void *)entry, &info) == 0 ||
	    info.dli_sname == NULL || (uintptr_t)info.dli_saddr != entry)
		return false;
	for (unsigned i = 0; construct == TP_OMPT_TASK && i < sizeof not_tasks / sizeof *not_tasks;
	     i++)
		if (strncmp(info.dli_sname, not_tasks[i], strlen(not_tasks[i])) == 0)
			return false;
	for (unsigned i = 0; i < 3; i++)
		if (prefixes[construct][i] != NULL &&
		    strncmp(info.dli_sname, prefixes[construct][i],
			    strlen(prefixes[construct][i])) == 0)
			return true;
	return false;
}

/*
 * The jump through the GOT (jmp *slot(%rip)) of a PLT stub at `c`, [endbr64] [bnd] jmp, or NULL
 * when the code there is no such stub. Reads up to 11 bytes.
 */
static const unsigned char *stub_jump(const unsigned char *c)
{
	if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa)
		c += 4;
	if (c[0] == 0xf2)
		c++;
	return c[0] == 0xff && c[1] == 0x25 ? c : NULL;
}

/* The GOT slot a PLT stub at `stub` jumps through, or 0. */
static uintptr_t plt_slot(const struct segments *s, uintptr_t stub)
{
	const unsigned char *jump = mapped(s, stub, 11, true)
					    ? stub_jump((const unsigned char *)stub)
					    : NULL;
	return jump != NULL ? (uintptr_t)(jump + 6) + (uintptr_t)(intptr_t)rel32(jump + 2) : 0;
}

/*
 * The address just past the tail call into libomp's `construct` entry in the function
 * [start, end): a jmp to a PLT stub (jmp rel32), or through the GOT (jmp *slot(%rip), -fno-plt),
 * whose slot holds the entry. x86-64 code; 0 when none is found, or when `unique` and there are
 * more than one (which of them ran, nothing says).
 */
static uintptr_t tail_call(uintptr_t start, uintptr_t end, enum tp_ompt_construct construct,
			   bool unique)
{
	uintptr_t found = 0;
#if defined(__x86_64__)
	struct segments s = {.address = start};
	if (dl_iterate_phdr(find_segments, &s) != 1 || !mapped(&s, start, end - start, true))
		return 0;
	for (uintptr_t at = start; at + 5 <= end; at++) {
		const unsigned char *c = (const unsigned char *)at;
		uintptr_t slot = 0, past = 0;
		if (c[0] == 0xe9) {
			past = at + 5;
			slot = plt_slot(&s, past + (uintptr_t)(intptr_t)rel32(c + 1));
		} else if (c[0] == 0xff && c[1] == 0x25 && at + 6 <= end) {
			past = at + 6;
			slot = past + (uintptr_t)(intptr_t)rel32(c + 2);
		}
		uintptr_t entry;
		if (slot == 0 || !mapped(&s, slot, sizeof entry, false))
			continue;
		memcpy(&entry, (const void *)slot, sizeof entry);
		if (!entry_of(entry, construct))
			continue;
		if (!unique)
			return past;
		if (found != 0)
			return 0;
		found = past;
	}
#else
	(void)start, (void)end, (void)construct, (void)unique;
#endif
	return found;
}

/*
 * Functions already read: an outlined function's tail call per construct (0: none), by its start;
 * a function of the program's called at a return address, by that return address (`called`).
 */
#define OUTLINED_MAX 64
static struct {
	uintptr_t function;
	enum tp_ompt_construct construct;
	bool called;
	uintptr_t site;
} outlined[OUTLINED_MAX];
static unsigned n_outlined;
/*
 * Taken only if free: a thread that finds it taken (another thread in it, or one a fork left
 * holding it in this child) finds its site without the cache, never waits.
 */
static int outlined_lock;

/*
 * The site for a construct tail-called from the function libomp called at `callee` (an outlined
 * function, `called` false: its start + 1 when none is found, its first instruction's line the
 * region's), or from the function of the program's that the call returning to `return_address`
 * called (`called`: 0 when there is not exactly one).
 */
static uintptr_t tail_call_site(uintptr_t callee, uintptr_t return_address,
				enum tp_ompt_construct construct, bool called)
{
	uintptr_t key = called ? return_address : callee, site = 0;
	bool cached = tp_spin_try_lock(&outlined_lock);
	for (unsigned i = 0; cached && i < n_outlined && i < OUTLINED_MAX; i++)
		if (outlined[i].function == key && outlined[i].construct == construct &&
		    outlined[i].called == called) {
			site = outlined[i].site;
			tp_spin_unlock(&outlined_lock);
			return site;
		}
	uintptr_t start, end;
	if (tp_function_range(callee, &start, &end) && (!called || start == callee))
		site = tail_call(start, end, construct, called);
	if (site == 0 && !called)
		site = callee + 1;
	if (cached) {
		outlined[n_outlined % OUTLINED_MAX].function = key;
		outlined[n_outlined % OUTLINED_MAX].construct = construct;
		outlined[n_outlined % OUTLINED_MAX].called = called;
		outlined[n_outlined % OUTLINED_MAX].site = site;
		n_outlined++;
		tp_spin_unlock(&outlined_lock);
	}
	return site;
}

/*
 * The code segment the thread found a call address in last, its pages: the first's number in the
 * low 36 bits, how many above them. One word, so that a signal handler's look-up on the same
 * thread, between another's load and use, never pairs one segment's start with another's end.
 */
#define PAGE_BITS   12
#define PAGE_NUMBER ((1ull << 36) - 1)
static __thread uint64_t last_code __attribute__((tls_model("initial-exec")));

/* Whether [address, address + length) lies in the pages of `code` (a last_code word). */
static bool in_code(uint64_t code, uintptr_t address, size_t length)
{
	uintptr_t first = (uintptr_t)(code & PAGE_NUMBER) << PAGE_BITS;
	uintptr_t end = first + ((uintptr_t)(code >> 36) << PAGE_BITS);
	return code != 0 && address >= first && address <= end - length;
}

/*
 * The pages of the code segment of a loaded module holding [address, address + length), as a
 * last_code word; 0 when none does.
 */
static uint64_t code_around(uintptr_t address, size_t length)
{
	uint64_t code = __atomic_load_n(&last_code, __ATOMIC_RELAXED);
	if (in_code(code, address, length))
		return code;
	struct segments s = {.address = address};
	if (dl_iterate_phdr(find_segments, &s) != 1)
		return 0;
	for (unsigned i = 0; i < s.n; i++) {
		uintptr_t first = s.at[i].start >> PAGE_BITS;
		uintptr_t pages = ((s.at[i].end + (1u << PAGE_BITS) - 1) >> PAGE_BITS) - first;
		if (!s.at[i].code || first > PAGE_NUMBER || pages >= 1ull << 28)
			continue;
		code = (uint64_t)first | (uint64_t)pages << 36;
		if (in_code(code, address, length)) {
			__atomic_store_n(&last_code, code, __ATOMIC_RELAXED);
			return code;
		}
	}
	return 0;
}

/*
 * The function a direct call (call rel32) just before `return_address` called, when it is no PLT
 * stub (then the call was the program's own into libomp), else 0: both in the code segment of
 * the return address (a call whose five bytes before it only look like one may point anywhere).
 * x86-64 code.
 */
static uintptr_t called_function(uintptr_t return_address)
{
#if defined(__x86_64__)
	uint64_t code = return_address >= 5 ? code_around(return_address - 5, 5) : 0;
	if (code == 0)
		return 0;
	const unsigned char *c = (const unsigned char *)(return_address - 5);
	if (c[0] != 0xe8)
		return 0;
	uintptr_t callee = return_address + (uintptr_t)(intptr_t)rel32(c + 1);
	if (!in_code(code, callee, 11))
		return 0;
	return stub_jump((const unsigned char *)callee) != NULL ? 0 : callee;
#else
	(void)return_address;
	return 0;
#endif
}

bool tp_ompt_calls_program_function(const void *codeptr)
{
	return called_function((uintptr_t)codeptr) != 0;
}

__thread struct tp_ompt_tail_call tp_ompt_tail_call_last;

const void *tp_ompt_tail_called_site(const void *codeptr, enum tp_ompt_construct construct)
{
	const void *known = tp_ompt_tail_call_known(codeptr, construct);
	if (known != NULL)
		return known;
	uintptr_t callee = called_function((uintptr_t)codeptr);
	uintptr_t site = callee != 0 ? tail_call_site(callee, (uintptr_t)codeptr, construct, true)
				     : 0;
	if (site == 0)
		return codeptr;
	/* its call address written last: a signal handler's spawn meanwhile finds no entry, never
	 * another call's site */
	tp_ompt_tail_call_last.codeptr = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	tp_ompt_tail_call_last.site = (const void *)site;
	tp_ompt_tail_call_last.construct = construct;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	tp_ompt_tail_call_last.codeptr = codeptr;
	return (const void *)site;
}

const void *tp_ompt_program_site(const void *codeptr, enum tp_ompt_construct construct)
{
	struct tp_executor_entry entry;
	tp_spawn_stack_executor_entry((uintptr_t)codeptr, &entry);
	if (entry.callee != 0)
		return (const void *)tail_call_site(entry.callee, 0, construct, false);
	if (entry.program_return != 0)
		return (const void *)entry.program_return;
	return codeptr;
}
