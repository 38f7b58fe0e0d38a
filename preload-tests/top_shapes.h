// SPDX-License-Identifier: MIT
/*
 * omp_top_shapes (three task constructs of known shapes: tasks that sleep 20 ms, a task blocking
 * its worker on a semaphore for 30 ms, short tasks) as the console's tests see it: its sites'
 * texts, its plain output, and a site's row of the console's sites table (test_top.c,
 * test_top_screen.c, test_top_once.c). Failures are the test's (criterion's asserts).
 */
#pragma once

#include <stdbool.h>

#define SLEEPY_TASKS 3 /* omp_top_shapes.c's, a round */
#define QUICK_TASKS  200
#define SLEEP_MS     20
#define BLOCK_MS     30

/* A site's row of the sites table (a screen or a snapshot). */
struct site_row {
	bool found;
	unsigned long spawned, alive, done, polls;
	double busy_ms, delay50_ms, delay99_ms, longest_ms;
	char warnings[256];
};

/* Milliseconds of a duration as the console prints it ("24.0ms", "850ns", "1.20s"). */
double ms_of(const char *text);
/* The row of the site whose text holds `place` ("(omp_top_shapes.c:55)"). */
struct site_row site_row(const char *screen, const char *place);
/* "(omp_top_shapes.c:L)" for the task construct after `before` in the target's source. */
const char *place_of(const char *before);
/* "(omp_top_shapes.c:L)" for the line of the blocker's sem_wait. */
const char *wait_place(void);

#define SLEEPY_SITE  place_of("i < SLEEPY_TASKS; i++")
#define BLOCKER_SITE place_of("r < rounds; r++")
/* where the blocker's task waits: "(omp_top_shapes.c:L)" of its sem_wait */
#define WAIT_PLACE wait_place()
#define QUICK_SITE place_of("i < QUICK_TASKS; i++")

/* omp_top_shapes, copied where the unprivileged user reads it. */
const char *top_shapes_target(void);
/* What omp_top_shapes prints after `rounds` rounds, run plainly (the caller frees). */
char *plain_output(unsigned rounds);
