// SPDX-License-Identifier: MIT
/*
 * Spawn stacks: the calling thread's stack unwound with libunwind (DWARF unwind tables, so right
 * without frame pointers), without the shim's own frames (anywhere) and without the executor's
 * frames on top (its callback trampolines), so that the first frame is the spawn call in the
 * program.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "settings.h" /* TP_STACK_DEPTH_MAX */

/*
 * Leaves out of spawn stacks the frames on top of the stack that lie in the module (executable
 * or shared object) containing `address_in_module`: an adapter names its executor's library.
 */
void tp_spawn_stack_skip_module(const void *address_in_module);

/*
 * The shim's own module, the one containing `address_in_shim`: its frames are left out of every
 * stack wherever they are, on top or below the program's (the thread trampoline of
 * thread_create.c), and on top as tp_spawn_stack_skip_module's.
 */
void tp_spawn_stack_own_module(const void *address_in_shim);

/* Room for a capture: the frames kept and the frames left out above them. */
#define TP_SPAWN_STACK_BUFFER (TP_STACK_DEPTH_MAX + 32)

/*
 * Captures the calling thread's spawn stack into `buffer` and returns where its first kept frame
 * is (innermost first), at most TASKPROBE_STACK_DEPTH frames. `*depth` is the number of frames,
 * 0 when capture is off (TASKPROBE_STACKS=0) or failed; `*id` is the stack's id in the stack
 * table (0 if none).
 */
const uintptr_t *tp_spawn_stack_capture(uintptr_t buffer[TP_SPAWN_STACK_BUFFER], uint32_t *depth,
					uint32_t *id);

/*
 * The same, leaving out too the frames on top for which `inside` is true (a wait's: the system
 * libraries the program's call went through, as for its site).
 */
const uintptr_t *tp_spawn_stack_capture_outside(uintptr_t buffer[TP_SPAWN_STACK_BUFFER],
						uint32_t *depth, uint32_t *id,
						bool (*inside)(uintptr_t pc));

/*
 * For an executor that reports a construct's call address inside its own code: where the
 * executor's frames on top of the calling thread's stack were entered from the program.
 * `program_return` is the first frame outside the shim and the executors (and libc): the
 * program's call into the executor (0: none, as on a worker thread). `callee` is set instead when
 * the frame returning to `executor_return` called, through a register its callee keeps, code
 * outside them: the executor ran the program's outlined code, which tail-called back into the
 * executor (so no frame of it is left; the callee is its address). x86-64 only; 0 elsewhere.
 * Unwinds the stack: for call addresses that are not the program's only.
 */
struct tp_executor_entry {
	uintptr_t program_return;
	uintptr_t callee;
};
void tp_spawn_stack_executor_entry(uintptr_t executor_return, struct tp_executor_entry *entry);

/*
 * Whether `address` lies in libunwind, which the shim loaded for itself: its locks (taken as a
 * thread ends, freeing its unwinding cache) are the shim's, no wait of the program's.
 */
bool tp_spawn_stack_in_unwinder(uintptr_t address);

/*
 * libunwind's pipe (its memory validation: it reads a byte from one end and writes one from the
 * address checked to the other, at every address it validates), which it makes once, at its
 * first unwind, with the lowest free numbers: 3 and 4 in most programs, numbers the program
 * takes for its own files next. `fds`, made by libunwind's pipe2 (descriptors.c tells it by the
 * caller), are kept as the shim's own descriptors (own_files.h: moved high, out of the close
 * family's reach), their new numbers written back where libunwind keeps them. False when they
 * cannot be (no room): both closed, -1 in `fds`, errno EMFILE.
 */
bool tp_spawn_stack_unwinder_pipe(int fds[2]);

/* libunwind closes `fd`, an end of its pipe (before making it again): closed, true; false when
 * `fd` is no end of it. */
bool tp_spawn_stack_unwinder_closes(int fd);

/* Whether `address` lies in the shim or an executor's module (tp_spawn_stack_skip_module). */
bool tp_spawn_stack_in_executor(uintptr_t address);

/*
 * Loads libunwind and unwinds once, so that the first spawn a consumer samples does not pay for
 * setting it up inside the spawning task (lifecycle.c: at start, when a consumer in the process
 * takes stacks). Nothing when TASKPROBE_STACKS is 0.
 */
void tp_spawn_stack_prepare(void);

/* The child of fork: no stacks if another thread was inside libunwind at the fork. */
void tp_spawn_stack_child_after_fork(void);

/* The most frames tp_spawn_stack_first_outside looks through. */
#define TP_CALLER_FRAMES_MAX 24

/*
 * The return address of the first frame of the calling thread's stack, outside the shim, for
 * which `inside` is false (the first frame of the program's, above the libraries a call went
 * through); 0 when none of the first TP_CALLER_FRAMES_MAX is, or stacks are off. The program's
 * entry code (_start) is none. Unwinds: for traced paths only.
 */
uintptr_t tp_spawn_stack_first_outside(bool (*inside)(uintptr_t pc));
