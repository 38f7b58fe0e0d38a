// SPDX-License-Identifier: MIT
/* The milliseconds since a moment of CLOCK_MONOTONIC, for the targets that time themselves. */
#pragma once

#include <time.h>

static inline double ms_since(const struct timespec *start)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) * 1e3 +
	       (double)(now.tv_nsec - start->tv_nsec) / 1e6;
}
