// SPDX-License-Identifier: MIT
/*
 * GCC's OpenMP entry points that hand the runtime a construct's outlined function (gomp.h):
 * each passes its arguments through to the runtime's own definition unchanged (libomp's, which
 * it provides for GCC-built programs, or libgomp's) and returns its result. Noted only while
 * task-spawn is listened to; untraced, a call costs that check and the call through a pointer.
 * The signatures are GCC's latest: GOMP_task has grown arguments over the years (priority,
 * detach) that older callers do not pass and the runtime reads only when their flags say so.
 */
#define _GNU_SOURCE
#include "gomp.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "events.h"
#include "probes.h"
#include "real_symbol.h"
#include "warn.h"

__thread struct tp_gomp_pending tp_gomp_pending;

const void *tp_gomp_outlined_take_pending(enum tp_ompt_construct construct,
					  const void *encountering)
{
	const void *outlined = tp_gomp_pending.outlined;
	if (tp_gomp_pending.construct == TP_OMPT_TASKLOOP)
		return construct == TP_OMPT_TASK && tp_gomp_pending.encountering == encountering &&
				       encountering != NULL
			       ? outlined
			       : NULL;
	if (tp_gomp_pending.construct != construct)
		return NULL;
	tp_gomp_pending.outlined = NULL;
	return outlined;
}

const void *tp_gomp_taskloop_begins(const void *encountering)
{
	if (tp_gomp_pending.outlined == NULL || tp_gomp_pending.construct != TP_OMPT_TASKLOOP)
		return NULL;
	if (tp_gomp_pending.encountering == NULL)
		tp_gomp_pending.encountering = encountering;
	return tp_gomp_pending.encountering == encountering ? tp_gomp_pending.outlined : NULL;
}

/*
 * Notes the construct a call begins, while task-spawn is listened to (true), keeping what was
 * pending before it in *before for call_ends; untraced, nothing.
 */
static inline bool call_begins(enum tp_ompt_construct construct, const void *outlined,
			       struct tp_gomp_pending *before)
{
	if (__builtin_expect(tp_listeners_task_spawn() == 0, 1))
		return false;
	*before = tp_gomp_pending;
	tp_gomp_pending = (struct tp_gomp_pending){outlined, construct, NULL};
	return true;
}

/* The call returned: what was pending before it is again (a construct run inside another). */
static inline void call_ends(bool noted, const struct tp_gomp_pending *before)
{
	if (noted)
		tp_gomp_pending = *before;
}

/*
 * The definition of `name` (of `version`) that the program's call would have reached without the
 * shim: the next one after it, else (a caller loaded with RTLD_LOCAL, whose runtime the global
 * scope lacks) the one its caller's own dependencies hold. Looked up at the first call, never
 * from inside the allocator; a call with no definition anywhere ends the process as the dynamic
 * linker would have, had the shim not defined the name.
 */
static void *real_entry(void **cache, const char *name, const char *version, const void *self,
			const void *caller)
{
	void *fn = __atomic_load_n(cache, __ATOMIC_RELAXED);
	if (__builtin_expect(fn != NULL, 1))
		return fn;
	fn = tp_next_symbol(name, version);
	Dl_info info;
	if (fn == NULL && dladdr(caller, &info) != 0 && info.dli_fname != NULL) {
		void *module = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
		if (module != NULL) {
			fn = dlvsym(module, name, version);
			if (fn == NULL)
				fn = dlsym(module, name);
			dlclose(module);
		}
	}
	if (fn == NULL || fn == self) {
		tp_warn("symbol lookup error: undefined symbol: %s", name);
		_exit(127);
	}
	__atomic_store_n(cache, fn, __ATOMIC_RELAXED);
	return fn;
}

/*
 * Defines entry point `name` of version `version`, for a construct of kind `construct`, with the
 * parameters `params` (the outlined function named `fn`) and the arguments `args` that pass them.
 */
#define GOMP_ENTRY(name, version, construct, params, args)                                         \
	static void *real_##name;                                                                  \
	TP_EXPORT void name params                                                                 \
	{                                                                                          \
		void(*real) params = (void(*) params)real_entry(                                   \
			&real_##name, #name, version, (const void *)name,                          \
			__builtin_extract_return_addr(__builtin_return_address(0)));               \
		struct tp_gomp_pending before;                                                     \
		bool noted = call_begins(construct, (const void *)fn, &before);                    \
		real args;                                                                         \
		call_ends(noted, &before);                                                         \
	}

typedef void (*outlined_fn)(void *);
typedef void (*copy_fn)(void *, void *);

GOMP_ENTRY(GOMP_parallel, "GOMP_4.0", TP_OMPT_PARALLEL,
	   (outlined_fn fn, void *data, unsigned threads, unsigned flags),
	   (fn, data, threads, flags))
GOMP_ENTRY(GOMP_parallel_sections, "GOMP_4.0", TP_OMPT_PARALLEL,
	   (outlined_fn fn, void *data, unsigned threads, unsigned count, unsigned flags),
	   (fn, data, threads, count, flags))

/* The combined parallel loops: with a chunk size, and with a schedule chosen at run time. */
#define PARALLEL_LOOP(name, version)                                                               \
	GOMP_ENTRY(name, version, TP_OMPT_PARALLEL,                                                \
		   (outlined_fn fn, void *data, unsigned threads, long start, long end, long incr, \
		    long chunk, unsigned flags),                                                   \
		   (fn, data, threads, start, end, incr, chunk, flags))
#define PARALLEL_LOOP_RUNTIME(name, version)                                                       \
	GOMP_ENTRY(name, version, TP_OMPT_PARALLEL,                                                \
		   (outlined_fn fn, void *data, unsigned threads, long start, long end, long incr, \
		    unsigned flags),                                                               \
		   (fn, data, threads, start, end, incr, flags))
PARALLEL_LOOP(GOMP_parallel_loop_static, "GOMP_4.0")
PARALLEL_LOOP(GOMP_parallel_loop_dynamic, "GOMP_4.0")
PARALLEL_LOOP(GOMP_parallel_loop_guided, "GOMP_4.0")
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic, "GOMP_4.5")
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided, "GOMP_4.5")
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime, "GOMP_4.0")
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime, "GOMP_5.0")
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime, "GOMP_5.0")

GOMP_ENTRY(GOMP_task, "GOMP_2.0", TP_OMPT_TASK,
	   (outlined_fn fn, void *data, copy_fn copy, long size, long align, bool if_clause,
	    unsigned flags, void **depend, int priority, void *detach),
	   (fn, data, copy, size, align, if_clause, flags, depend, priority, detach))
GOMP_ENTRY(GOMP_taskloop, "GOMP_4.5", TP_OMPT_TASKLOOP,
	   (outlined_fn fn, void *data, copy_fn copy, long size, long align, unsigned flags,
	    unsigned long tasks, int priority, long start, long end, long step),
	   (fn, data, copy, size, align, flags, tasks, priority, start, end, step))
GOMP_ENTRY(GOMP_taskloop_ull, "GOMP_4.5", TP_OMPT_TASKLOOP,
	   (outlined_fn fn, void *data, copy_fn copy, long size, long align, unsigned flags,
	    unsigned long tasks, int priority, unsigned long long start, unsigned long long end,
	    unsigned long long step),
	   (fn, data, copy, size, align, flags, tasks, priority, start, end, step))

/* The one that returns a value: a parallel region with task reductions (GCC 9). */
static void *real_GOMP_parallel_reductions;
TP_EXPORT unsigned GOMP_parallel_reductions(outlined_fn fn, void *data, unsigned threads,
					    unsigned flags)
{
	unsigned (*real)(outlined_fn, void *, unsigned, unsigned) = (unsigned (*)(
		outlined_fn, void *, unsigned,
		unsigned))real_entry(&real_GOMP_parallel_reductions, "GOMP_parallel_reductions",
				     "GOMP_5.0", (const void *)GOMP_parallel_reductions,
				     __builtin_extract_return_addr(__builtin_return_address(0)));
	struct tp_gomp_pending before;
	bool noted = call_begins(TP_OMPT_PARALLEL, (const void *)fn, &before);
	unsigned threads_run = real(fn, data, threads, flags);
	call_ends(noted, &before);
	return threads_run;
}
