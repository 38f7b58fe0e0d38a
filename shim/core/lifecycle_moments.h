// SPDX-License-Identifier: MIT
/*
 * Moments the layers below the lifecycle tell it of, as they see them (lifecycle.c defines
 * these): declared here, in the core, so that no layer includes one above it.
 */
#pragma once

/*
 * The program runs (a thread started, or an executor's first event: main has begun): from then
 * on the exit's work that takes time is done at its start, before the libraries' destructors
 * (exit_hook.h). Cheap after the first call.
 */
void tp_lifecycle_program_running(void);

/* An executor's runtime starts (executor.h): consumers' one-time set-up (spawn stacks). */
void tp_lifecycle_executor_started(void);
