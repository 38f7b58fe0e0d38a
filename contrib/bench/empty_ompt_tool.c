// SPDX-License-Identifier: MIT
/*
 * The floor for the OpenMP adapter's cost: an OMPT tool that registers the same callbacks as
 * taskprobe's adapter and does nothing in them, so libomp pays for dispatching to a tool.
 */
#include <omp-tools.h>
#include <stddef.h>

static void nothing(void)
{
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *tool)
{
	(void)device;
	(void)tool;
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	static const ompt_callbacks_t used[] = {
		ompt_callback_thread_begin,     ompt_callback_thread_end,
		ompt_callback_implicit_task,    ompt_callback_parallel_end,
		ompt_callback_task_create,      ompt_callback_task_schedule,
		ompt_callback_sync_region_wait, ompt_callback_task_dependence,
	};
	for (size_t i = 0; i < sizeof used / sizeof used[0]; i++)
		set(used[i], (ompt_callback_t)nothing);
	return 1;
}

static void finalize(ompt_data_t *tool)
{
	(void)tool;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime)
{
	(void)version;
	(void)runtime;
	static ompt_start_tool_result_t result = {initialize, finalize, {0}};
	return &result;
}
