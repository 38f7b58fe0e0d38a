// SPDX-License-Identifier: MIT
/*
 * The libraries' destructors, their code paged in ahead of exit's destructors (exit_hook.h): a
 * runtime torn down in its destructor under its still running threads (libomp, exit() from a
 * thread it does not know) keeps the process alive only until exit ends, and the destructors that
 * run after its own (every library loaded after it that is still loaded: libunwind, loaded at
 * the first spawn stack; libdw, which names sites, is unloaded before the destructors) each
 * first touch a page of code there, which a virtual machine takes tens of microseconds to map.
 */
#pragma once

/*
 * Maps in the pages of every loaded module's destructors (DT_FINI, DT_FINI_ARRAY) with
 * madvise(MADV_POPULATE_READ): nothing is read that could fault (a kernel without it says
 * EINVAL, and nothing is done). Call it at the start of exit, after the last library is loaded.
 */
void tp_destructors_ready(void);
