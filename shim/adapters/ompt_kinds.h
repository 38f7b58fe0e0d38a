// SPDX-License-Identifier: MIT
/* The contract's names of OMPT's kinds of sync region and mutual exclusion, for the OMPT adapter
 * (ompt.c). */
#pragma once

#include <omp-tools.h>

#include "taskprobe_contract.h" /* enum tp_sync_kind, enum tp_exclusion_kind */

/* The contract's name of an OMPT sync region (a reduction's: none). */
static inline enum tp_sync_kind tp_ompt_sync_kind(ompt_sync_region_t kind)
{
	switch (kind) {
	case ompt_sync_region_taskwait:
		return TP_SYNC_TASKWAIT;
	case ompt_sync_region_taskgroup:
		return TP_SYNC_TASKGROUP;
	case ompt_sync_region_reduction:
		return TP_SYNC_NONE;
	default: /* the barriers */
		return TP_SYNC_BARRIER;
	}
}

/* The contract's kind of an OMPT mutual exclusion; 0 for one it does not name (atomic). */
static inline enum tp_exclusion_kind tp_ompt_exclusion_kind(ompt_mutex_t kind)
{
	switch (kind) {
	case ompt_mutex_critical:
		return TP_EXCLUSION_CRITICAL;
	case ompt_mutex_ordered:
		return TP_EXCLUSION_ORDERED;
	case ompt_mutex_lock:
	case ompt_mutex_test_lock:
		return TP_EXCLUSION_LOCK;
	case ompt_mutex_nest_lock:
	case ompt_mutex_test_nest_lock:
		return TP_EXCLUSION_NEST_LOCK;
	default:
		return 0;
	}
}
