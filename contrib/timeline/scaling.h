// SPDX-License-Identifier: MIT
/*
 * Runs of one program at several scales compared (`taskprobe-timeline --scaling`), in POP's
 * terms: global efficiency = parallel efficiency x computation scalability. A run's parallel
 * efficiency comes from the run alone (its threads' useful computation against its run time: the
 * analysis's, or an MPI job's); its computation scalability is the reference's (the first run's)
 * useful computation, added up over its threads, over this run's: below 1 when the same work
 * takes more computation on more threads (memory bandwidth, caches, contention for the cores:
 * what one run cannot see). Strong scaling: every run does the same work; or weak scaling: each
 * run's work in proportion to its threads or ranks.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * What a run's efficiencies are made of: its units' (threads', or an MPI job's ranks' threads')
 * useful computation, added up and the most of one, in its run time (its region of interest, if
 * any); its serialisation and transfer efficiencies, when told.
 */
struct scaling_basis {
	bool known;
	uint32_t units; /* the threads that computed (an MPI job's: its ranks', or their threads) */
	uint32_t ranks; /* an MPI job's (its ranks even when not known); 0: one process */
	double useful_ns, most_ns, run_ns;
	double serialisation, transfer; /* < 0: not told */
	/* of a region of interest (omp_control_tool, MPI_Pcontrol), not of the whole run, which
	 * the regions' computations are of */
	bool of_interest;
};

/* A parallel region's computation in a run: its threads', every process's added up. */
struct scaling_region {
	char *text; /* its site's, "function (file:line)" */
	double computation_ns;
};

/* A run: what was given for it, its program's name, its basis, its regions. */
struct scaling_run {
	const char *name;
	char program[64];
	struct scaling_basis basis;
	/* when its basis is not known, why (a sentence) */
	char why[160];
	struct scaling_region *regions;
	size_t n_regions;
};

/* Adds `computation_ns` to the region `text` of `run` (made if new). False when out of memory. */
bool scaling_region_add(struct scaling_run *run, const char *text, double computation_ns);

/* Says the comparison of the `n` runs on `out`, the first the reference; `weak`: weak scaling,
 * each run's work in proportion to its threads (or ranks): the reference's computation and run
 * time weighed so (a scaled speedup). */
void scaling_report(const struct scaling_run *runs, size_t n, bool weak, FILE *out);

void scaling_run_free(struct scaling_run *run);
