// SPDX-License-Identifier: MIT
/* taskprobe-timeline's command line (timeline_cli.h). */
#define _GNU_SOURCE
#include "timeline_cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The limit of the output's size unless --max-size says otherwise. */
#define DEFAULT_MAX_SIZE (UINT64_C(1) << 30)

static int usage(FILE *to, int status)
{
	fputs("usage: taskprobe-timeline [-o OUTPUT] [--format json|speedscope] [--max-size SIZE]\n"
	      "         [--from TIME] [--to TIME] [--site TEXT]... [--thread TID]... [--count]\n"
	      "         [--critical-path]\n"
	      "         [RECORDING... | PERF-SCRIPT-TEXT]\n"
	      "       taskprobe-timeline --analyze RECORDING...\n"
	      "       taskprobe-timeline --scaling [--weak] RUN RUN...\n"
	      "       taskprobe-timeline --check-options [OPTIONS]\n"
	      "       taskprobe-timeline --version\n"
	      "       taskprobe-timeline -h | --help\n"
	      "Converts recordings of TASKPROBE_RECORD (one file per process), or\n"
	      "`perf script -F comm,pid,tid,time,event,trace` output of the sdt_taskprobe events,\n"
	      "to Trace Event Format JSON (chrome://tracing, Perfetto, speedscope), or with\n"
	      "--format speedscope (or an OUTPUT named *.speedscope.json) to speedscope's own\n"
	      "format: a profile of slices per thread, a tenth the size, no task tracks or "
	      "counters.\n"
	      "--max-size SIZE (bytes, or with k, M, G: 1024s; default 1G; 0: no limit): a larger\n"
	      "  output is not written (exit status 3); its estimated size is said on stderr.\n"
	      "--from TIME, --to TIME: the window written, from the first event (1.5s, 200ms,\n"
	      "  300us, 5000ns; a plain number is seconds); slices cut by it are clipped.\n"
	      "--site TEXT: only the tasks whose site's text holds TEXT (and the waits in their\n"
	      "  polls); --thread TID: only that thread's track. Both may be repeated.\n"
	      "-o OUTPUT: the file written (standard output without it).\n"
	      "--count says on stderr how many events a recording held.\n"
	      "--analyze prints, rather than a timeline, why the program does or does not scale:\n"
	      "  its task graph's work, span, parallelism and critical path, by site, and the\n"
	      "  POP factors, with the load balance by parallel region and the waits by sync "
	      "site.\n"
	      "--scaling compares runs of one program at several scales (each RUN a directory of\n"
	      "  recordings, as `taskprobe record --dir` makes, or a recording; the first is the\n"
	      "  reference): POP's global efficiency, parallel efficiency and computation\n"
	      "  scalability, a column a run, and each parallel region's computation scalability;\n"
	      "  --weak: weak scaling (each run's work in proportion to its threads or ranks).\n"
	      "--critical-path adds to the timeline a track per process named \"critical path\":\n"
	      "  the fragments of its task graph's critical path, named by their sites\n"
	      "  (recordings only; the conversion takes up to twice as long).\n"
	      "--check-options checks the options and does nothing else (exit status 0, or 2\n"
	      "  with the error said): `taskprobe record` asks before the program runs.\n",
	      to);
	return status;
}

/* SIZE: bytes, or a number with k, M, G or T (powers of 1024; "KiB", "MB" alike). */
static bool parse_size(const char *text, uint64_t *size)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || errno != 0 || !(v >= 0))
		return false;
	static const char units[] = "kmgt";
	const char *unit = *end != '\0' ? strchr(units, tolower((unsigned char)*end)) : NULL;
	if (unit != NULL) {
		for (const char *u = units; u <= unit; u++)
			v *= 1024;
		end++;
		if (*end == 'i' || *end == 'I')
			end++;
	}
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end != '\0' || v >= 18446744073709551615.0)
		return false;
	*size = (uint64_t)v;
	return true;
}

/* TIME: seconds, or a number with ns, us, ms, s or m. */
static bool parse_time(const char *text, uint64_t *ns)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || errno != 0 || !(v >= 0))
		return false;
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"", 1e9}, {"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1}, {"m", 60e9}};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(end, units[i].unit) == 0) {
			v *= units[i].ns;
			if (v >= 18446744073709551615.0)
				return false;
			*ns = (uint64_t)v;
			return true;
		}
	return false;
}

/* Whether `name` ends with `suffix`. */
static bool ends_with(const char *name, const char *suffix)
{
	size_t n = strlen(name), m = strlen(suffix);
	return n >= m && strcmp(name + n - m, suffix) == 0;
}

/* The long options' values: above any character, so that a short option's is told apart. */
enum long_only {
	OPT_COUNT = 256,
	OPT_CHECK_OPTIONS,
	OPT_VERSION,
	OPT_ANALYZE,
	OPT_SCALING,
	OPT_WEAK,
	OPT_CRITICAL_PATH,
	OPT_FORMAT,
	OPT_MAX_SIZE,
	OPT_FROM,
	OPT_TO,
	OPT_SITE,
	OPT_THREAD,
};

static const struct option long_options[] = {
	{"count", no_argument, NULL, OPT_COUNT},
	{"check-options", no_argument, NULL, OPT_CHECK_OPTIONS},
	{"version", no_argument, NULL, OPT_VERSION},
	{"analyze", no_argument, NULL, OPT_ANALYZE},
	{"scaling", no_argument, NULL, OPT_SCALING},
	{"weak", no_argument, NULL, OPT_WEAK},
	{"critical-path", no_argument, NULL, OPT_CRITICAL_PATH},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"max-size", required_argument, NULL, OPT_MAX_SIZE},
	{"from", required_argument, NULL, OPT_FROM},
	{"to", required_argument, NULL, OPT_TO},
	{"site", required_argument, NULL, OPT_SITE},
	{"thread", required_argument, NULL, OPT_THREAD},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/*
 * An option's value read into *cli (`format` the --format named); false when it is wrong
 * (said).
 */
static bool option_value(int option, const char *value, struct cli *cli, const char **format,
			 uint64_t *tids)
{
	struct timeline_options *o = &cli->options;
	uint64_t number;
	char *end;
	switch (option) {
	case OPT_FORMAT:
		*format = value;
		if (strcmp(value, "json") == 0 || strcmp(value, "speedscope") == 0)
			return true;
		fprintf(stderr, "taskprobe-timeline: --format %s: json or speedscope\n", value);
		return false;
	case OPT_MAX_SIZE:
		if (parse_size(value, &cli->limit))
			return true;
		fprintf(stderr,
			"taskprobe-timeline: --max-size %s: a size is bytes, or a number with k, M "
			"or G (0: no limit)\n",
			value);
		return false;
	case OPT_FROM:
	case OPT_TO:
		if (parse_time(value, option == OPT_FROM ? &o->from_ns : &o->to_ns))
			return true;
		fprintf(stderr,
			"taskprobe-timeline: %s %s: a time is seconds from the first event, or a "
			"number with ns, us, ms, s or m\n",
			option == OPT_FROM ? "--from" : "--to", value);
		return false;
	case OPT_SITE:
		((const char **)o->sites)[o->n_sites++] = value;
		return true;
	default: /* OPT_THREAD */
		errno = 0;
		number = strtoull(value, &end, 10);
		if (*value < '0' || *value > '9' || *end != '\0' || errno != 0 || number == 0) {
			fprintf(stderr, "taskprobe-timeline: --thread %s: a thread id\n", value);
			return false;
		}
		tids[o->n_tids++] = number;
		return true;
	}
}

/* What was wrong with the command line (the option at argv[optind - 1], or short option
 * `optopt`), then where the usage is: not all of it. */
static int wrong_option(char **argv)
{
	char shown[3] = {'-', (char)optopt, '\0'};
	/* a long option (unknown: optopt 0, or without its value) is argv[optind - 1] whole */
	const char *option = optopt == 0 || optopt >= OPT_COUNT ? argv[optind - 1] : shown;
	fprintf(stderr,
		"taskprobe-timeline: %s: no such option, or no value after it\n"
		"taskprobe-timeline: see taskprobe-timeline --help\n",
		option);
	return 2;
}

int cli_parse(int argc, char **argv, struct cli *cli)
{
	const char **sites = calloc((size_t)argc + 1, sizeof *sites);
	uint64_t *tids = calloc((size_t)argc + 1, sizeof *tids);
	const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
	*cli = (struct cli){.limit = DEFAULT_MAX_SIZE,
			    .options = {.to_ns = UINT64_MAX, .sites = sites, .tids = tids},
			    .inputs = inputs};
	if (sites == NULL || tids == NULL || inputs == NULL)
		return 2;
	const char *format = NULL;
	/* "-": inputs and options in any order, inputs kept in theirs (whatever
	 * POSIXLY_CORRECT says); ':' before the options: no message of getopt's own */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "-:o:h", long_options, NULL)) != -1) {
		switch (c) {
		case 1: /* an input */
			inputs[cli->n_inputs++] = optarg;
			break;
		case 'o':
			cli->output = optarg;
			break;
		case OPT_COUNT:
			cli->say_counts = true;
			break;
		case OPT_CHECK_OPTIONS:
			cli->check_options = true;
			break;
		case OPT_VERSION:
			puts("taskprobe-timeline " TASKPROBE_VERSION);
			return 0;
		case OPT_ANALYZE:
			cli->analyze = true;
			break;
		case OPT_SCALING:
			cli->scaling = true;
			break;
		case OPT_WEAK:
			cli->weak = true;
			break;
		case OPT_CRITICAL_PATH:
			cli->options.critical_path = true;
			break;
		case 'h':
			return usage(stdout, 0);
		case OPT_FORMAT:
		case OPT_MAX_SIZE:
		case OPT_FROM:
		case OPT_TO:
		case OPT_SITE:
		case OPT_THREAD:
			if (!option_value(c, optarg, cli, &format, tids))
				return 2;
			break;
		default: /* '?' or ':' */
			return wrong_option(argv);
		}
	}
	/* after "--": inputs all */
	while (optind < argc)
		inputs[cli->n_inputs++] = argv[optind++];
	if (cli->options.from_ns > cli->options.to_ns) {
		fputs("taskprobe-timeline: --from is after --to: an empty window\n", stderr);
		return 2;
	}
	if (cli->weak && !cli->scaling) {
		fputs("taskprobe-timeline: --weak is --scaling's: give both\n", stderr);
		return 2;
	}
	if (cli->check_options)
		return 0;
	if (format != NULL ? strcmp(format, "speedscope") == 0
			   : cli->output != NULL && ends_with(cli->output, ".speedscope.json"))
		cli->options.format = TIMELINE_SPEEDSCOPE;
	return CLI_GO_ON;
}

void cli_free(struct cli *cli)
{
	free((void *)cli->options.sites);
	free((void *)cli->options.tids);
	free((void *)cli->inputs);
	*cli = (struct cli){0};
}
