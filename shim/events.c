// SPDX-License-Identifier: MIT
/*
 * The event layer's start-up check of the semaphores' layout that tp_listeners_any reads (events.h):
 * were it not as expected, the in-process flag is raised for good, so that every check passes.
 */
#include "events.h"

#include <stddef.h>

#include "lifecycle.h"

uint64_t tp_listeners_in_process;

void tp_events_start(void)
{
	const unsigned short *const semaphores[] = {
		&taskprobe_task__spawn_semaphore,
		&taskprobe_task__stack_semaphore,
		&taskprobe_task__wake_semaphore,
		&taskprobe_task__poll__start_semaphore,
		&taskprobe_task__poll__end_semaphore,
		&taskprobe_task__terminate_semaphore,
		&taskprobe_worker__thread__start_semaphore,
		&taskprobe_worker__thread__stop_semaphore,
		&taskprobe_worker__thread__park_semaphore,
		&taskprobe_worker__thread__unpark_semaphore,
		&taskprobe_thread__start_semaphore,
		&taskprobe_thread__stop_semaphore,
		&taskprobe_wait__start_semaphore,
		&taskprobe_wait__end_semaphore,
	};
	_Static_assert(sizeof semaphores / sizeof semaphores[0] * sizeof(unsigned short) ==
			       TP_SEMAPHORES_BYTES,
		       "every semaphore is in the block");
	for (size_t i = 0; i < sizeof semaphores / sizeof semaphores[0]; i++)
		if (semaphores[i] != semaphores[0] + i)
			__atomic_store_n(&tp_listeners_in_process, 1, __ATOMIC_RELAXED);
}
