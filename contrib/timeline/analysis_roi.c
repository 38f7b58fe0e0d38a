// SPDX-License-Identifier: MIT
/*
 * The recording's analysis (analysis.h): the region of interest (issue 35), from
 * omp_control_tool's and MPI_Pcontrol's marks, or an MPI rank's window, by the rule both engines
 * follow (work_span.h's tp_roi_step; the live statistics' live_slots.c): the factors count only
 * what lies inside.
 */
#define _GNU_SOURCE
#include "analysis_private.h"

#include "taskprobe_live.h" /* enum tp_roi_marker */
#include "work_span.h"      /* tp_roi_step */

/*
 * A region of interest starts (on) or stops: the factors count only what lies inside (the polls
 * open now are counted up to here as they were); the first start drops what was counted before.
 */
static void on_region_of_interest(struct analysis *a, struct proc *p, uint64_t ns, bool on)
{
	if (on == p->roi_on)
		return;
	for (size_t i = 0; i < a->threads.size; i++) {
		struct key *k = map_at(&a->threads, i);
		if (k == NULL)
			continue;
		struct thread *th = (struct thread *)k;
		if (k->process != p->process)
			continue;
		if (th->task != NULL)
			count_work(a, p, th, th->task, polled_to(th, ns));
		if (on && !p->roi_seen)
			th->computation = 0;
	}
	uint64_t placed = placed_at(a, p, ns);
	if (on) {
		p->roi_seen = p->roi_on = true;
		p->roi_since = ns;
		p->roi_placed_since = placed;
	} else {
		p->roi_on = false;
		p->roi_pairs++;
		p->roi_run += ns - p->roi_since;
		p->roi_placed += placed > p->roi_placed_since ? placed - p->roi_placed_since : 0;
	}
}

/*
 * A region of interest's start (`on`) or stop by `marker` (enum tp_roi_marker), as the rule says
 * (work_span.h's tp_roi_step; the live statistics' live_slots.c the same): an MPI rank's window
 * unless the program marks its own, whose first start forgets the window.
 */
void analysis_roi_marked(struct analysis *a, struct proc *p, uint64_t ns, bool on, uint64_t marker)
{
	if (marker >= 32)
		return;
	switch (tp_roi_step(p->roi_markers, on, (unsigned)marker)) {
	case TP_ROI_IGNORED:
		return;
	case TP_ROI_FORGETS_WINDOW:
		p->roi_markers = 0;
		p->roi_seen = p->roi_on = false;
		p->roi_pairs = p->roi_run = p->roi_placed = 0;
		break;
	case TP_ROI_TAKEN:
		break;
	}
	if (on)
		p->roi_markers |= 1u << marker;
	on_region_of_interest(a, p, ns, on);
}

void analysis_roi_ends(struct analysis *a, struct proc *p, uint64_t ns)
{
	on_region_of_interest(a, p, ns, false);
}
