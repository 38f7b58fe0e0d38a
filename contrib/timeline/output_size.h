// SPDX-License-Identifier: MIT
/*
 * taskprobe-timeline's output: its size estimated from a census of the events before anything is
 * written (over --max-size, nothing is), its file opened, and the census of recordings counted in
 * a thread beside their conversion to speedscope, whose text is written only at its end.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "recording.h"
#include "timeline.h"
#include "timeline_cli.h"

/* The exit status when the output would be larger than --max-size. */
#define STATUS_TOO_LARGE 3

/* A size said to people: "12.3 MB" (powers of 1000: what ls -lh --si says). */
const char *human(uint64_t bytes, char buf[32]);

/* The output's size in `format`, estimated from the census. */
uint64_t estimate(const struct recording_census *c, enum timeline_format format);

/* The size check before anything is written: says the estimate (`estimated` bytes in `format`,
 * `other` in the other format); false (said) when over `limit`. */
bool size_fits(uint64_t estimated, uint64_t other, uint64_t events, uint64_t limit,
	       enum timeline_format format);

/* Opens the output (-o; see output_size.c); NULL, said, when refused or it cannot be opened. */
FILE *open_output(const char *output);

/*
 * The census of recordings read (recordings_read) counted in a thread beside their conversion
 * into `t`, started before it: it says the estimated size as check_size would, then opens the
 * output (`output`, or standard output when NULL) if the timeline fits `limit`; if not, `t` is
 * abandoned (timeline_abandon: the conversion stops). What the conversion says meanwhile goes to
 * census_beside_errors, said after the census (in the order of the conversion alone). NULL when
 * it cannot start (the census then counted before the conversion).
 */
struct census_beside;
struct census_beside *census_beside_start(const struct recordings *read, struct timeline *t,
					  const struct timeline_options *options,
					  const char *output, uint64_t limit);
FILE *census_beside_errors(const struct census_beside *c);
/* Waits for the census: CLI_GO_ON with the output opened in *file, or the exit status (said;
 * nothing opened, the conversion's messages not said: it was not to be). Frees `c`. */
int census_beside_end(struct census_beside *c, FILE **file);
