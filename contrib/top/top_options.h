// SPDX-License-Identifier: MIT
/* taskprobe-top's command line (top_options.c): its options, and what the console follows. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "follow.h"
#include "live_view.h"

struct options {
	bool once;
	bool batch;
	bool children; /* show the busiest of the run's processes while the program spawns none */
	unsigned interval_ms;
	unsigned wait_ms; /* how long to wait for the file to appear */
	enum site_column sort;
	bool ascending;
	const char *dir;
	pid_t pid;
	uint64_t remove_at_end; /* the start time of PID, whose statistics to remove when it ends */
	bool check_options;     /* the options checked, nothing done (--check-options) */
};

/*
 * Reads the command line into `o` (getopt_long); false, the error said, when it is not one to
 * run. --help and --version print and exit.
 */
bool parse_options(int argc, char **argv, struct options *o);

/* What the console follows, from its options. */
struct follow following(const struct options *o);
