// SPDX-License-Identifier: MIT
/* taskprobe-top's command line: its options read (getopt_long), its usage (top_options.h). */
#define _GNU_SOURCE
#include "top_options.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_INTERVAL_MS 1000
#define USAGE_WIDTH         80 /* columns of the usage's lines */

/*
 * The sites table's columns, which --sort takes: from the table itself (live_column_name), so
 * that the usage cannot leave one out; taskprobe-top(1) lists the same (a test checks it).
 */
static void columns_usage(FILE *to)
{
	const char *prefix = "Columns (--sort COLUMN):";
	int line = fprintf(to, "%s", prefix);
	for (int c = 0; c < COLUMNS; c++) {
		const char *name = live_column_name((enum site_column)c);
		int len = (int)strlen(name) + 1 +
			  (c == COLUMNS - 1);   /* a space before it, a "." after the last */
		if (line + len > USAGE_WIDTH) { /* the next line, its columns under the first's */
			fputs("\n ", to);
			line = 1;
		}
		line += fprintf(to, " %s%s", name, c == COLUMNS - 1 ? ".\n" : "");
	}
}

static void usage(FILE *to)
{
	fprintf(to,
		"usage: taskprobe-top [--once | --batch] [--interval SECONDS] [--sort COLUMN] "
		"[--reverse]\n"
		"                     [--dir DIR] [--wait SECONDS] [--children] PID\n"
		"       taskprobe-top --remove-at-end STARTTIME PID\n"
		"       taskprobe-top --check-options [OPTIONS] [PID]\n"
		"       taskprobe-top --version\n"
		"Shows the tasks of process PID, started with live statistics (taskprobe run, or\n"
		"TASKPROBE_LIVE=1), as the same user. Usually started by `taskprobe top`.\n");
	columns_usage(to);
	fprintf(to,
		"--remove-at-end: waits for PID (which started at STARTTIME, /proc/PID/stat's)\n"
		"to end, then removes the statistics it left, and those of every other process of\n"
		"the user's that has ended (`taskprobe run` starts it so).\n"
		"--check-options: checks the options and does nothing else (exit status 0, or 2\n"
		"with the error said): `taskprobe top` asks before the program runs.\n");
}

bool parse_options(int argc, char **argv, struct options *o)
{
	static const struct option long_options[] = {
		{"once", no_argument, NULL, 'o'},
		{"batch", no_argument, NULL, 'b'},
		{"interval", required_argument, NULL, 'i'},
		{"sort", required_argument, NULL, 's'},
		{"reverse", no_argument, NULL, 'r'},
		{"dir", required_argument, NULL, 'd'},
		{"wait", required_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{"children", no_argument, NULL, 'c'},
		{"remove-at-end", required_argument, NULL, 'e'},
		{"check-options", no_argument, NULL, 'k'},
		{"version", no_argument, NULL, 'v'},
		{NULL, 0, NULL, 0},
	};
	*o = (struct options){.interval_ms = DEFAULT_INTERVAL_MS, .sort = COLUMN_BUSY};
	int c;
	while ((c = getopt_long(argc, argv, "obi:s:rd:w:hc", long_options, NULL)) != -1) {
		char *end;
		double seconds;
		switch (c) {
		case 'o':
			o->once = true;
			break;
		case 'b':
			o->batch = true;
			break;
		case 'c':
			o->children = true;
			break;
		case 'r':
			o->ascending = true;
			break;
		case 'd':
			o->dir = optarg;
			break;
		case 'e':
			o->remove_at_end = strtoull(optarg, &end, 10);
			if (end == optarg || *end != '\0' || !isdigit((unsigned char)optarg[0]) ||
			    o->remove_at_end == 0) {
				fprintf(stderr, "taskprobe-top: --remove-at-end needs a start time "
						"(clock ticks)\n");
				return false;
			}
			break;
		case 'i':
		case 'w':
			seconds = strtod(optarg, &end);
			if (end == optarg || *end != '\0' ||
			    !(seconds >= 0.05 || (c == 'w' && seconds == 0)) || seconds > 3600) {
				fprintf(stderr,
					"taskprobe-top: --%s %s: give seconds from 0.05 to 3600\n",
					c == 'i' ? "interval" : "wait", optarg);
				return false;
			}
			*(c == 'i' ? &o->interval_ms : &o->wait_ms) = (unsigned)(seconds * 1000);
			break;
		case 's':
			o->sort = live_column_by_name(optarg);
			if (o->sort == COLUMNS) {
				fprintf(stderr, "taskprobe-top: --sort %s: no such column\n",
					optarg);
				return false;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'v':
			puts("taskprobe-top " TASKPROBE_VERSION);
			exit(0);
		case 'k':
			o->check_options = true;
			break;
		default:
			return false;
		}
	}
	/* the launcher's check has no process yet */
	if (o->check_options && optind == argc)
		return true;
	if (optind != argc - 1) {
		fputs(optind == argc ? "taskprobe-top: which process? Give its PID\n"
				     : "taskprobe-top: one PID, and nothing after it\n",
		      stderr);
		return false;
	}
	if (!live_parse_pid(argv[optind], &o->pid)) {
		char shown[64];
		live_escape(shown, sizeof shown, argv[optind], strlen(argv[optind]), false);
		fprintf(stderr,
			"taskprobe-top: %s is not a process id (digits, 1 to the system's largest "
			"pid)\n",
			shown);
		return false;
	}
	return true;
}

/* What the console follows, from its options. */
struct follow following(const struct options *o)
{
	return (struct follow){
		.run = o->pid, .dir = o->dir, .children = o->children, .once = o->once};
}
