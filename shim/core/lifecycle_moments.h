// SPDX-License-Identifier: MIT
/*
 * The moment the layers see that the program runs, which the lifecycle (above them all) acts on:
 * kept here, in the core, so that no layer calls one above it. The lifecycle hands over what to
 * run at exit once the program runs; the layers below say when it does.
 */
#pragma once

/*
 * The program runs (a thread started, or an executor's first event: main has begun): from then
 * on the exit's work that takes time is done at its start, before the libraries' destructors
 * (exit_hook.h): the handler the lifecycle set is registered now. Cheap after the first call.
 */
void tp_lifecycle_program_running(void);

/*
 * From the lifecycle's constructor (lifecycle/lifecycle.c): the handler registered, to run at
 * exit before the libraries' destructors, when the program runs.
 */
void tp_lifecycle_when_program_runs(void (*before_destructors)(void *));
