// SPDX-License-Identifier: MIT
/*
 * taskprobe-timeline's command line: its options read (getopt_long, as taskprobe-top's), and its
 * usage. taskprobe-timeline(1) is the reference of each option; usage() names the same ones (a
 * test checks it).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timeline.h"

struct cli {
	const char *output; /* -o; NULL: standard output */
	bool say_counts, analyze, scaling, weak, check_options;
	uint64_t limit; /* --max-size; 0: none */
	/* the format (an -o named *.speedscope.json chooses speedscope's too), the window, the
	 * filters (their arrays the cli's, until cli_free) */
	struct timeline_options options;
	const char **inputs; /* the inputs named, in their order; none: standard input */
	size_t n_inputs;
};

/* What cli_parse returns when the program goes on (else it is the exit status). */
#define CLI_GO_ON (-1)

/*
 * Reads the command line into *cli. Returns CLI_GO_ON, or the exit status: 0 when --help or
 * --version was said, or the options are right and --check-options asks for nothing else; 2 when
 * they are wrong (said on stderr: what, then where the usage is).
 */
int cli_parse(int argc, char **argv, struct cli *cli);

/* Frees what cli_parse allocated in *cli (whatever it returned); the strings are argv's. */
void cli_free(struct cli *cli);
