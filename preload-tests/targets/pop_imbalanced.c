// SPDX-License-Identifier: MIT
/*
 * An imbalanced worksharing loop (test_pop.c): thread t runs 1 + 2t units (pop_units.h) an
 * iteration, the iterations dealt in turn (schedule(static, 1)). On two threads, 12 iterations
 * each: thread 0 computes 12 units, thread 1 36 (180 ms): load balance (12 + 36) / 2 / 36 =
 * 0.667 (T / (2T - 1) on T threads).
 *
 * Built with POP_REGION_OF_INTEREST (pop_roi): the loop is the region of interest, between
 * omp_control_tool(omp_control_tool_start) and (omp_control_tool_pause), with 12 units of serial
 * code before it and 12 after, outside. Inside, the factors are the loop's; counted whole,
 * thread 0 would compute 36 units as thread 1 does: load balance 1, parallel efficiency 36 / 60.
 *
 * Built with POP_TEAM_OF_ONE (pop_team_of_one): each iteration's units are computed inside a
 * parallel construct of their own, as a library's called in a program's region: with nesting off
 * (OpenMP's default) a team of one thread, the encountering thread's. The same loss, the loop's.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>

#include "pop_units.h"

#define ITERATIONS 24

#ifdef POP_REGION_OF_INTEREST
#define SERIAL_UNITS 12
/* OpenMP 5.0's commands: GCC's omp.h (12) has neither them nor omp_control_tool */
#define TOOL_START 1 /* omp_control_tool_start */
#define TOOL_PAUSE 2 /* omp_control_tool_pause: OpenMP has no "stop" */

/*
 * omp_control_tool looked up as the program runs: GCC's libgomp has none (nor a tool to tell),
 * LLVM's libomp has, which the launcher preloads under a GCC build (a weak reference would not
 * do: in a program without PIE the linker makes it 0 when the libraries linked have none).
 */
static void control_tool(int command)
{
	int (*control)(int, int, void *) = (int (*)(int, int, void *))dlsym(RTLD_DEFAULT,
									    "omp_control_tool");
	if (control != NULL)
		(void)control(command, 0, NULL); /* what the tool answers is not output */
}
#endif

#ifdef POP_TEAM_OF_ONE
static __attribute__((noinline)) void work_in_a_team_of_one(int units)
{
#pragma omp parallel
	pop_work(units);
}
#else
#define work_in_a_team_of_one pop_work
#endif

int main(void)
{
	static unsigned long units_of[ITERATIONS];
	pop_start();
#ifdef POP_REGION_OF_INTEREST
	pop_work(SERIAL_UNITS);
	control_tool(TOOL_START);
	struct pop_busy at_start;
	double start_ms = pop_now_ms();
	pop_busy_now(&at_start);
#endif
	pop_fork();
#pragma omp parallel for schedule(static, 1)
	for (int i = 0; i < ITERATIONS; i++) {
		int units = 1 + 2 * omp_get_thread_num();
		work_in_a_team_of_one(units);
		units_of[i] = (unsigned long)units;
	}
	pop_join();
#ifdef POP_REGION_OF_INTEREST
	control_tool(TOOL_PAUSE);
	pop_say_times("pop_roi from start to pause", &at_start, start_ms);
	pop_work(SERIAL_UNITS);
#endif
	for (int i = 0; i < ITERATIONS; i++)
		pop_checksum += (unsigned long)(i + 1) * units_of[i];
#ifdef POP_REGION_OF_INTEREST
	pop_end("pop_roi");
#elif defined POP_TEAM_OF_ONE
	pop_end("pop_team_of_one");
#else
	pop_end("pop_imbalanced");
#endif
	return 0;
}
