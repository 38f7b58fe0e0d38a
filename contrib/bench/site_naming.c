// SPDX-License-Identifier: MIT
/*
 * The cost of naming spawn sites, with the shim's own code (spawn_site.c over symbolize.c and
 * source_lines.c): the first site (libdw loaded, the process's modules listed, this program's
 * line tables read), the first site in a library with large debug information (LIBRARY, loaded
 * here; its function FUNCTION), a second site there, SITES sites in one large unit of the library
 * (its functions PREFIX0, PREFIX1, ...: each site's name once walked the whole unit), and a lookup
 * of a site already known, which is all a spawn pays once its site has been seen.
 * Usage: site_naming [LIBRARY FUNCTION [PREFIX FUNCTIONS SITES]]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spawn_site.h"

#define LOOKUPS 10000000L
/* Into the function's body: a site is named by the call before its return address. */
#define INTO_BODY 8

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Names the site of `address` (new) and says how long it took and what it is. */
static uint32_t name_once(const char *what, const void *address)
{
	double t0 = now_us();
	uint32_t id = tp_spawn_site(address);
	double t1 = now_us();
	printf("%-44s %10.0f us  %s\n", what, t1 - t0, tp_spawn_site_text(id));
	return id;
}

/* Names `sites` sites spread over the `functions` functions `prefix`N of one unit of `lib`. */
static void name_in_one_unit(void *lib, const char *prefix, long functions, long sites)
{
	double total = 0;
	long named = 0;
	for (long i = 0; lib != NULL && i < sites; i++) {
		char symbol[128];
		snprintf(symbol, sizeof symbol, "%s%ld", prefix, i * functions / sites);
		const char *f = dlsym(lib, symbol);
		if (f == NULL)
			continue;
		double t0 = now_us();
		(void)tp_spawn_site(f + INTO_BODY);
		total += now_us() - t0;
		named++;
	}
	char what[96];
	snprintf(what, sizeof what, "%ld sites in one unit of %ld functions", named, functions);
	printf("%-44s %10.0f us  (%.0f us a site)\n", what, total, named > 0 ? total / named : 0);
}

int main(int argc, char **argv)
{
	const char *here = (const char *)(uintptr_t)main + INTO_BODY;
	name_once("first site (libdw loaded, program's lines)", here);
	name_once("second site in the program", (const char *)(uintptr_t)name_once + INTO_BODY);
	if (argc >= 3) {
		void *lib = dlopen(argv[1], RTLD_NOW);
		const char *f = lib != NULL ? dlsym(lib, argv[2]) : NULL;
		if (f == NULL) {
			fprintf(stderr, "site_naming: %s: %s\n", argv[1],
				lib == NULL ? dlerror() : "no such function");
			return 1;
		}
		name_once("first site in the large library", f + INTO_BODY);
		const char *g = dlsym(lib, "big_function_0_0");
		if (g != NULL)
			name_once("second site in the large library", g + INTO_BODY);
	}
	if (argc == 6)
		name_in_one_unit(dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD), argv[3], atol(argv[4]),
				 atol(argv[5]));
	volatile uint32_t sink = 0;
	double t0 = now_us();
	for (long i = 0; i < LOOKUPS; i++)
		sink += tp_spawn_site(here);
	double t1 = now_us();
	printf("%-44s %10.1f ns\n", "lookup of a known site (per spawn)",
	       (t1 - t0) * 1e3 / LOOKUPS);
	return sink == 0;
}
