// SPDX-License-Identifier: MIT
/*
 * The comparison of runs at several scales (scaling.h): a table of POP's efficiencies, a column a
 * run, as POP's reports lay them out, then the computation scalability of each parallel region.
 */
#define _GNU_SOURCE /* qsort_r */
#include "scaling.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "taskprobe_figures.h"

bool scaling_region_add(struct scaling_run *run, const char *text, double computation_ns)
{
	for (size_t i = 0; i < run->n_regions; i++)
		if (strcmp(run->regions[i].text, text) == 0) {
			run->regions[i].computation_ns += computation_ns;
			return true;
		}
	struct scaling_region *more = realloc(run->regions,
					      (run->n_regions + 1) * sizeof *run->regions);
	if (more == NULL)
		return false;
	run->regions = more;
	char *copy = strdup(text);
	if (copy == NULL)
		return false;
	run->regions[run->n_regions++] = (struct scaling_region){copy, computation_ns};
	return true;
}

void scaling_run_free(struct scaling_run *run)
{
	for (size_t i = 0; i < run->n_regions; i++)
		free(run->regions[i].text);
	free(run->regions);
	run->regions = NULL;
	run->n_regions = 0;
}

/* A run's units in words: "1 thread", "8 threads", "4 ranks", "2 ranks, 8 threads". */
static const char *units_words(const struct scaling_basis *b, char *buf, size_t size)
{
	if (b->ranks > 0 && b->ranks != b->units)
		snprintf(buf, size, "%" PRIu32 " rank%s, %" PRIu32 " threads", b->ranks,
			 b->ranks == 1 ? "" : "s", b->units);
	else if (b->ranks > 0)
		snprintf(buf, size, "%" PRIu32 " rank%s", b->ranks, b->ranks == 1 ? "" : "s");
	else
		snprintf(buf, size, "%" PRIu32 " thread%s", b->units, b->units == 1 ? "" : "s");
	return buf;
}

/* The figures of a row: a run's column each. */
enum row {
	ROW_RUN,
	ROW_SPEEDUP,
	ROW_GLOBAL,
	ROW_PARALLEL,
	ROW_BALANCE,
	ROW_COMMUNICATION,
	ROW_SERIALISATION,
	ROW_TRANSFER,
	ROW_COMPUTATION,
	ROW_USEFUL,
	ROWS
};

static const char *const row_names[ROWS] = {
	"run time",
	"speedup",
	"global efficiency",
	"  parallel efficiency",
	"    load balance",
	"    communication efficiency",
	"      serialisation efficiency",
	"      transfer efficiency",
	"  computation scalability",
	"useful computation",
};

/* A column's width at least (wider for a run's units in words: scaling_report's). */
#define COLUMN 11

/* How much more work run `b` does than the reference `ref`: 1 in strong scaling; in weak scaling
 * (`weak`) its threads (or ranks) over the reference's, each with its own share of work. */
static double work_of(const struct scaling_basis *b, const struct scaling_basis *ref, bool weak)
{
	return weak && ref->units > 0 ? (double)b->units / (double)ref->units : 1.0;
}

/* Row `row`'s figure of run `b` against the reference `ref` (`weak`: work_of's), into `cell`. */
static void cell_of(enum row row, const struct scaling_basis *b, const struct scaling_basis *ref,
		    bool weak, char *cell, size_t size)
{
	if (!b->known) {
		snprintf(cell, size, "-");
		return;
	}
	double parallel = b->useful_ns / ((double)b->units * b->run_ns),
	       balance = b->useful_ns / (double)b->units / b->most_ns,
	       computation = ref->known ? ref->useful_ns * work_of(b, ref, weak) / b->useful_ns
					: -1;
	double value = -1;
	switch (row) {
	case ROW_RUN:
		tp_live_duration_words((uint64_t)b->run_ns, cell, size);
		return;
	case ROW_USEFUL:
		tp_live_duration_words((uint64_t)b->useful_ns, cell, size);
		return;
	case ROW_SPEEDUP:
		if (ref->known)
			snprintf(cell, size, "%.2f",
				 work_of(b, ref, weak) * ref->run_ns / b->run_ns);
		else
			snprintf(cell, size, "-");
		return;
	case ROW_GLOBAL:
		value = computation >= 0 ? parallel * computation : -1;
		break;
	case ROW_PARALLEL:
		value = parallel;
		break;
	case ROW_BALANCE:
		value = balance;
		break;
	case ROW_COMMUNICATION:
		value = b->most_ns / b->run_ns;
		break;
	case ROW_SERIALISATION:
		value = b->serialisation;
		break;
	case ROW_TRANSFER:
		value = b->transfer;
		break;
	case ROW_COMPUTATION:
		value = computation;
		break;
	default:
		break;
	}
	if (value < 0)
		snprintf(cell, size, "-");
	else
		snprintf(cell, size, "%.3f", value);
}

/* Regions by the last run's computation, most first (the reference's where the last has none). */
struct region_order {
	const struct scaling_run *runs;
	size_t n;
};

static double computation_in(const struct scaling_run *run, const char *text)
{
	for (size_t i = 0; i < run->n_regions; i++)
		if (strcmp(run->regions[i].text, text) == 0)
			return run->regions[i].computation_ns;
	return -1;
}

/* Every region's text of every run, once, in `texts` (room for all of them); their number. */
static size_t region_texts(const struct scaling_run *runs, size_t n, const char **texts)
{
	size_t m = 0;
	for (size_t r = 0; r < n; r++)
		for (size_t i = 0; i < runs[r].n_regions; i++) {
			size_t k = 0;
			while (k < m && strcmp(texts[k], runs[r].regions[i].text) != 0)
				k++;
			if (k == m)
				texts[m++] = runs[r].regions[i].text;
		}
	return m;
}

static int by_last_run(const void *x, const void *y, void *context)
{
	const struct region_order *o = context;
	const char *a = *(const char *const *)x, *b = *(const char *const *)y;
	double ca = computation_in(&o->runs[o->n - 1], a),
	       cb = computation_in(&o->runs[o->n - 1], b);
	if (ca != cb)
		return ca < cb ? 1 : -1;
	ca = computation_in(&o->runs[0], a);
	cb = computation_in(&o->runs[0], b);
	return ca < cb ? 1 : ca > cb ? -1 : strcmp(a, b);
}

/* A row of the regions' table: `name`'s computation in the reference (`of[0]`), and its
 * scalability in each run (`of[r]`: its computation there, < 0: none; `weak`: work_of's). */
static void region_row(FILE *out, int width, const char *name, const double *of,
		       const struct scaling_run *runs, size_t n, bool weak)
{
	char cell[32], took[24];
	double ref = of[0];
	if (ref >= 0)
		tp_live_duration_words((uint64_t)ref, cell, sizeof cell);
	else
		snprintf(cell, sizeof cell, "-");
	fprintf(out, "  %-*s %*s", width, name, COLUMN + 4, cell);
	for (size_t r = 1; r < n; r++) {
		if (ref > 0 && of[r] > 0)
			snprintf(cell, sizeof cell, "%.3f",
				 ref * work_of(&runs[r].basis, &runs[0].basis, weak) / of[r]);
		else if (ref < 0 && of[r] > 0) /* run by this run alone */
			snprintf(cell, sizeof cell, "+%s",
				 tp_live_duration_words((uint64_t)of[r], took, sizeof took));
		else
			snprintf(cell, sizeof cell, "-");
		fprintf(out, " %*s", COLUMN, cell);
	}
	fputc('\n', out);
}

/* Each parallel region's computation in the reference, and its scalability in each run (`weak`:
 * work_of's), then the rest's. */
static void report_regions(const struct scaling_run *runs, size_t n, bool weak, FILE *out)
{
	size_t all = 0;
	for (size_t r = 0; r < n; r++)
		all += runs[r].n_regions;
	const char **texts = calloc(all + 1, sizeof *texts);
	if (texts == NULL || all == 0) {
		free(texts);
		return;
	}
	size_t m = region_texts(runs, n, texts);
	qsort_r(texts, m, sizeof *texts, by_last_run, &(struct region_order){runs, n});
	int width = 27; /* the rest's row's name */
	for (size_t k = 0; k < m; k++)
		width = (int)strlen(texts[k]) > width ? (int)strlen(texts[k]) : width;
	width = width < 60 ? width : 60;
	fprintf(out,
		"  computation scalability by parallel region (its computation in [1]%s over its "
		"computation in each run; +T: a region [1] did not run, and its computation):\n",
		weak ? ", in proportion to the run's threads or ranks," : "");
	fprintf(out, "  %-*s %*s", width, "parallel region", COLUMN + 4, "computation [1]");
	for (size_t r = 1; r < n; r++) {
		char head[24];
		snprintf(head, sizeof head, "[%zu]", r + 1);
		fprintf(out, " %*s", COLUMN, head);
	}
	fputc('\n', out);
	double *of = calloc(n, sizeof *of);
	for (size_t k = 0; of != NULL && k < m; k++) {
		for (size_t r = 0; r < n; r++)
			of[r] = computation_in(&runs[r], texts[k]);
		region_row(out, width, texts[k], of, runs, n, weak);
	}
	/* the rest of each run's useful computation: serial code (OpenMP's initial task's); not
	 * told of a region of interest's (its regions' computations are the whole run's) */
	bool whole = true;
	for (size_t r = 0; of != NULL && r < n; r++) {
		whole &= !runs[r].basis.of_interest;
		of[r] = runs[r].basis.known && !runs[r].basis.of_interest ? runs[r].basis.useful_ns
									  : -1;
		for (size_t i = 0; of[r] >= 0 && i < runs[r].n_regions; i++)
			of[r] -= runs[r].regions[i].computation_ns;
	}
	if (of != NULL)
		region_row(out, width, "(outside them: serial code)", of, runs, n, weak);
	if (!whole)
		fprintf(out, "  (the regions' computations are the whole run's, where a run's "
			     "efficiencies are its region of interest's)\n");
	free(of);
	free(texts);
}

void scaling_report(const struct scaling_run *runs, size_t n, bool weak, FILE *out)
{
	if (n == 0)
		return;
	const struct scaling_basis *ref = &runs[0].basis;
	fprintf(out,
		"scaling of %zu runs, [1] the reference (POP's efficiencies, %s; global "
		"efficiency = parallel efficiency x computation scalability, the reference's "
		"useful computation%s over the run's):\n",
		n,
		weak ? "weak scaling: each run's work in proportion to its threads or ranks"
		     : "strong scaling: the same work in every run",
		weak ? " in proportion" : "");
	for (size_t r = 0; r < n; r++) {
		char units[48];
		if (runs[r].basis.known)
			fprintf(out, "  [%zu] %s: %s, %s\n", r + 1, runs[r].name, runs[r].program,
				units_words(&runs[r].basis, units, sizeof units));
		else
			fprintf(out, "  [%zu] %s: %s\n", r + 1, runs[r].name, runs[r].why);
	}
	if (!ref->known)
		fprintf(out, "  (the reference's efficiencies are not told: no run is compared "
			     "with it)\n");
	for (size_t r = 1; r < n; r++)
		if (runs[r].basis.known && strcmp(runs[r].program, runs[0].program) != 0) {
			fprintf(out,
				"  (runs of other programs than the reference's, %s: compared "
				"all the same)\n",
				runs[0].program);
			break;
		}
	char cell[48];
	int column = COLUMN; /* as wide as the widest run's units in words */
	for (size_t r = 0; r < n; r++)
		if (runs[r].basis.known &&
		    (int)strlen(units_words(&runs[r].basis, cell, sizeof cell)) > column)
			column = (int)strlen(cell);
	fprintf(out, "  %-30s", "");
	for (size_t r = 0; r < n; r++) {
		snprintf(cell, sizeof cell, "[%zu]", r + 1);
		fprintf(out, " %*s", column, cell);
	}
	fputc('\n', out);
	fprintf(out, "  %-30s", "ran on");
	for (size_t r = 0; r < n; r++)
		fprintf(out, " %*s", column,
			runs[r].basis.known ? units_words(&runs[r].basis, cell, sizeof cell) : "-");
	fputc('\n', out);
	for (int row = 0; row < ROWS; row++) {
		fprintf(out, "  %-30s",
			row == ROW_SPEEDUP && weak ? "scaled speedup" : row_names[row]);
		for (size_t r = 0; r < n; r++) {
			cell_of((enum row)row, &runs[r].basis, ref, weak, cell, sizeof cell);
			fprintf(out, " %*s", column, cell);
		}
		fputc('\n', out);
	}
	report_regions(runs, n, weak, out);
}
