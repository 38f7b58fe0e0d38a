// SPDX-License-Identifier: MIT
/*
 * The analysis's memory bound: an analysis that stops says where, in the recording's time. It
 * said the clock's reading ("stopped at 58010.844 s of the recording", the machine's uptime, for
 * a run of 87 s).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "test_stream.h"

Test(pop_conv_analysis, a_stopped_analysis_says_how_far_into_the_recording)
{
	struct analysis *a = analysis_new(1); /* any resident memory is over it: it stops */
	cr_assert_not_null(a);
	stream_event(a, TP_RECORD_TASK_SPAWN, 1, 0, INITIAL, 0, 0, 0);
	stream_event(a, TP_RECORD_TASK_POLL_START, 1, 0, INITIAL, 0, 0, 0);
	/* tasks alive, kept: past a MiB of them the converter's memory is read */
	for (int64_t i = 0; i < 100000; i++)
		stream_event(a, TP_RECORD_TASK_SPAWN, 1, 10 + (uint64_t)i / 1000, 100 + i, INITIAL,
			     TASKS, 0);
	char *text = stream_report(a);
	cr_assert_not_null(text);
	const char *said = strstr(text, "the analysis stopped ");
	double s = -1;
	cr_assert(said != NULL && sscanf(said, "the analysis stopped %lf s into", &s) == 1, "%s",
		  text);
	cr_expect(s >= 0.010 && s <= 0.110, "stopped %.3f s into a recording of 0.110 s:\n%s", s,
		  text);
	free(text);
	analysis_free(a);
}
