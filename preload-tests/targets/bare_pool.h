// SPDX-License-Identifier: MIT
/* The stripped library's one function (bare_pool.c). */
#pragma once

#define BARE_POOL_THREADS 2

/* Runs BARE_POOL_THREADS threads that wait `rounds` times each; their number, -1 on failure. */
int bare_pool_run(int rounds);
