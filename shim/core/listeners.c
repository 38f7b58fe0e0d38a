// SPDX-License-Identifier: MIT
/*
 * The provider's semaphores and the in-process listeners' word, in the block events.h reads
 * (listeners.h).
 * The probes' notes name each semaphore by its contract symbol, taskprobe_PROBE_semaphore:
 * here each is an alias of its place in the block. They stay in the .probes section, where
 * `dtrace -G` puts them and where tracers (bcc, bpftrace) look for them.
 */
#include "listeners.h"

/* in one cache line: the words events.h reads never cross one */
struct tp_listener_block tp_listener_block __attribute__((section(".probes"), aligned(64)));

#define SEMAPHORE_AT(name, offset)                                                                 \
	__asm__(".globl taskprobe_" #name "_semaphore\n"                                           \
		".hidden taskprobe_" #name "_semaphore\n"                                          \
		".type taskprobe_" #name "_semaphore, @object\n"                                   \
		".size taskprobe_" #name "_semaphore, 2\n"                                         \
		".set taskprobe_" #name "_semaphore, tp_listener_block + " #offset "\n");

/* task_state[] */
SEMAPHORE_AT(task__spawn, 0)
SEMAPHORE_AT(task__stack, 2)
SEMAPHORE_AT(task__wake, 4)
SEMAPHORE_AT(task__poll__start, 6)
SEMAPHORE_AT(task__poll__end, 8)
SEMAPHORE_AT(task__terminate, 10)
/* the next four in this order, at TP_PARK_AND_WAIT_SEMAPHORES_AT: read as one word */
SEMAPHORE_AT(worker__thread__park, 12)
SEMAPHORE_AT(worker__thread__unpark, 14)
SEMAPHORE_AT(wait__start, 16)
SEMAPHORE_AT(wait__end, 18)
/* read with the task-state semaphores (tp_listeners_task_state) */
SEMAPHORE_AT(task__dependence, 20)
/* after the in-process word: read with it by the waits' check (tp_listeners_parks_and_waits) */
SEMAPHORE_AT(wait__stack, 24)
/* other[] */
SEMAPHORE_AT(worker__thread__start, 26)
SEMAPHORE_AT(worker__thread__stop, 28)
SEMAPHORE_AT(thread__start, 30)
SEMAPHORE_AT(thread__stop, 32)
SEMAPHORE_AT(task__acquire, 34)
SEMAPHORE_AT(task__release, 36)
SEMAPHORE_AT(region__of__interest, 38)
SEMAPHORE_AT(mpi__init, 40)
SEMAPHORE_AT(mpi__send, 42)
SEMAPHORE_AT(mpi__recv, 44)
SEMAPHORE_AT(mpi__collective, 46)

_Static_assert(__builtin_offsetof(struct tp_listener_block, task_state) == 0 &&
		       sizeof(((struct tp_listener_block *)0)->task_state) == 20 &&
		       __builtin_offsetof(struct tp_listener_block, task_dependence) == 20 &&
		       __builtin_offsetof(struct tp_listener_block, in_process) == 22 &&
		       __builtin_offsetof(struct tp_listener_block, wait_stack) == 24 &&
		       __builtin_offsetof(struct tp_listener_block, other) == 26 &&
		       sizeof(struct tp_listener_block) == 48 &&
		       TP_PARK_AND_WAIT_SEMAPHORES_AT == 6 * sizeof(unsigned short),
	       "the aliases' offsets above");
