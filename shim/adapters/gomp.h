// SPDX-License-Identifier: MIT
/*
 * The outlined function a GCC-built construct hands the OpenMP runtime. GCC's line table often
 * puts a construct's call into the runtime on another construct's line (the enclosing loop's, the
 * next statement's), but the function it outlines the construct's body into ("main._omp_fn.3")
 * begins at the construct's own line: the OMPT adapter names a GCC construct by it. The runtime's
 * GOMP_* entry points are interposed to note it on the calling thread for the length of the call,
 * while task-spawn is listened to; libomp's callbacks for the construct come on that thread
 * during the call.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "ompt_sites.h"

/* The construct whose GOMP_* call the calling thread is in, and its outlined function. */
struct tp_gomp_pending {
	const void *outlined; /* NULL: none, or taken */
	enum tp_ompt_construct construct;
	const void *encountering; /* a taskloop's encountering task, once its work began */
};
extern __thread struct tp_gomp_pending tp_gomp_pending
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Whether no construct is pending on the calling thread (tp_gomp_outlined_take gives NULL). */
static inline bool tp_gomp_none_pending(void)
{
	return tp_gomp_pending.outlined == NULL;
}

/* tp_gomp_outlined_take's path when a construct is pending. */
const void *tp_gomp_outlined_take_pending(enum tp_ompt_construct construct,
					  const void *encountering);

/*
 * The outlined function of the GCC construct of kind `construct` (a task's, or a parallel
 * region's) whose call the calling thread is in, or NULL (no such call, or nobody listened when
 * it began). Taken: one callback is the construct's, and a construct run inside the call that did
 * not come through GOMP_* gets NULL. For a task, also the outlined function of the taskloop whose
 * call the thread is in, when `encountering` is the task that met it: the taskloop's tasks.
 * Inline: every traced task asks it, and a program libomp built (not GCC) has none pending.
 */
static inline const void *tp_gomp_outlined_take(enum tp_ompt_construct construct,
						const void *encountering)
{
	if (__builtin_expect(tp_gomp_none_pending(), 1))
		return NULL;
	return tp_gomp_outlined_take_pending(construct, encountering);
}

/*
 * The taskloop whose call the calling thread is in begins its work, for encountering task
 * `encountering`: its outlined function (NULL as above), kept for its tasks until the call returns.
 */
const void *tp_gomp_taskloop_begins(const void *encountering);
