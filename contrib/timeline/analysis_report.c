// SPDX-License-Identifier: MIT
/*
 * The analysis's figures and what it prints of them (analysis_private.h): per process its work,
 * span and POP factors, its parallel regions' load balance and its sync sites' waits, its sites'
 * rows; the critical path's fragments; --analyze's run over recordings.
 */
#define _GNU_SOURCE
#include "analysis_private.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recording.h"
#include "shown_text.h"
#include "taskprobe_contract.h"
#include "taskprobe_figures.h"

/* A duration for people (taskprobe_live.h's, as the exit report says them). */
static const char *duration(uint64_t ns, char *buf, size_t size)
{
	return ns == UINT64_MAX ? "-" : tp_live_duration_words(ns, buf, size);
}

/* A site's text as printed: escaped (shown_text.h: it comes from the program's files). */
static const char *site_text(const struct analysis *a, uint32_t site, char *buf, size_t size,
			     unsigned shown)
{
	if (site == 0)
		return TP_LIVE_NO_SITE_TEXT;
	if (a->sites[site].text != NULL)
		return tp_shown(buf, size, a->sites[site].text, shown);
	snprintf(buf, size, "site %" PRIu64, a->sites[site].id);
	return buf;
}

/* The sites of process `p` (its own row for no site): by work, most first. */
struct sites_of {
	struct analysis *a;
	struct proc *p;
};

static int by_work(const void *x, const void *y, void *context)
{
	const struct sites_of *of = context;
	uint64_t a = site_figures(of->a, of->p, *(const uint32_t *)x)->work,
		 b = site_figures(of->a, of->p, *(const uint32_t *)y)->work;
	return a > b ? -1 : a < b;
}

/*
 * The computations `b` (a parallel region's threads', a barrier's phases: sync_waited.h) as every
 * reader makes them (tp_live_region_of): of each thread that ran the region or passed the
 * barrier, or computed in it.
 */
static struct tp_live_region balance_of(const struct by_thread *b)
{
	uint64_t *computation = malloc((b->n + 1) * sizeof *computation);
	unsigned threads = 0;
	for (uint32_t j = 0; computation != NULL && j < b->n; j++)
		if (b->of[j].in || b->of[j].ns != 0)
			computation[threads++] = b->of[j].ns;
	struct tp_live_region r = computation != NULL ? tp_live_region_of(computation, threads)
						      : (struct tp_live_region){0};
	free(computation);
	return r;
}

static int by_computation(const void *x, const void *y, void *context)
{
	const struct site *sites = context;
	uint64_t a = balance_of(&sites[*(const uint32_t *)x].by_thread).computation_ns,
		 b = balance_of(&sites[*(const uint32_t *)y].by_thread).computation_ns;
	return a > b ? -1 : a < b;
}

/* The sync kinds' names, as every reader says them: a mutual exclusion's by its kind
 * (task-acquire's), "mutex" where none was told. */
static const char *sync_name(unsigned sync, unsigned mutex_kind)
{
	return tp_live_sync_kind_words(sync, mutex_kind);
}

/* The widest of the sites' texts in `order` (for a column), at most 60. */
static int site_width(const struct analysis *a, const uint32_t *order, size_t n, unsigned shown)
{
	char name[512];
	int width = 4;
	for (size_t i = 0; i < n; i++) {
		int w = (int)strlen(site_text(a, order[i], name, sizeof name, shown));
		width = w > width ? w : width;
	}
	return width < 60 ? width : 60;
}

/* The POP factors of process `p`: its threads' computations, its placed path and run time (in
 * the region of interest, if any). */
static struct tp_live_factors factors_of(const struct analysis *a, const struct proc *p)
{
	uint64_t *computation = calloc(p->threads + 1, sizeof *computation);
	if (computation == NULL)
		return (struct tp_live_factors){0};
	for (size_t i = 0; i < a->threads.size; i++) {
		const struct key *k = map_at(&a->threads, i);
		if (k == NULL)
			continue;
		const struct thread *th = (const struct thread *)k;
		if (k->process == p->process && th->polled && th->index < p->threads)
			computation[th->index] = th->computation;
	}
	uint64_t run = p->roi_seen ? p->roi_run : p->end_ns - p->first_ns,
		 placed = p->roi_seen ? p->roi_placed : p->placed;
	struct tp_live_factors f = tp_live_factors_of(computation, p->threads, placed, run);
	free(computation);
	return f;
}

bool analysis_figures(struct analysis *a, size_t i, struct analysis_figures *f)
{
	analysis_finish(a);
	if (i >= a->n_procs)
		return false;
	const struct proc *p = &a->procs[i];
	*f = (struct analysis_figures){.work = p->work,
				       .span = path_of(p->span),
				       .burdened = p->span != NULL ? p->span->burdened : 0,
				       .factors = factors_of(a, p)};
	return true;
}

/* A sync site's line: its site, the kind of wait, the time waited. */
struct sync_line {
	uint32_t site;
	unsigned kind;
	uint64_t waited;
};

/* Most time waited first; then in the sites' order (first seen first), by kind. */
static int by_time_waited(const void *x, const void *y)
{
	const struct sync_line *a = x, *b = y;
	if (a->waited != b->waited)
		return a->waited > b->waited ? -1 : 1;
	if (a->site != b->site)
		return a->site < b->site ? -1 : 1;
	return (a->kind > b->kind) - (a->kind < b->kind);
}

/*
 * Whether region `i` was forked inside another or holds one: no efficiency (region_nested's). A
 * recording without version 12's task-spawn takes a deferred task with a site for an implicit
 * one: the other is a region only when its site is one.
 */
static bool nested(const struct site *sites, size_t i)
{
	return (sites[i].parallel && sites[i].around != 0) ||
	       (sites[i].inner != 0 && sites[sites[i].inner].parallel);
}

/* The POP factors of process `p` (taskprobe_figures.h), and the two tables of where the loss is:
 * the parallel regions' load balance, the sync sites' waits. */
static void report_factors(struct analysis *a, const struct proc *p, FILE *out, unsigned shown,
			   uint64_t span)
{
	char b1[32], b2[32], name[512], words[256];
	uint32_t *order = calloc(a->n_sites + 1, sizeof *order);
	if (order == NULL)
		return;
	struct tp_live_factors f = factors_of(a, p);
	for (int line = 0; line < 2 && f.valid; line++) {
		tp_live_factors_words(words, sizeof words, &f, line);
		fprintf(out, "  %s\n", words);
	}
	if (f.valid) {
		tp_live_factors_basis_words(words, sizeof words, &f);
		fprintf(out, "  %s\n", words);
	}
	tp_live_roi_words(words, sizeof words, p->roi_pairs, p->roi_markers);
	if (words[0] != '\0')
		fprintf(out, "  %s\n", words);

	size_t n = 0;
	for (size_t i = 1; i < a->n_sites; i++)
		if (a->sites[i].parallel && a->sites[i].process == p->process &&
		    balance_of(&a->sites[i].by_thread).threads > 0)
			order[n++] = (uint32_t)i;
	qsort_r(order, n, sizeof *order, by_computation, a->sites);
	int width = site_width(a, order, n, shown);
	if (n > 0)
		fprintf(out, "  %-*s %10s %13s %12s %12s %8s\n", width, "parallel region",
			"efficiency", "load balance", "computation", "time", "threads");
	for (size_t i = 0; i < n; i++) {
		struct tp_live_region r = balance_of(&a->sites[order[i]].by_thread);
		r.time_ns = a->sites[order[i]].region_time;
		r.nested = nested(a->sites, order[i]);
		char time[24], efficiency[16];
		fprintf(out, "  %-*s %10s %13s %12s %12s %8u\n", width,
			site_text(a, order[i], name, sizeof name, shown),
			tp_live_efficiency_words(&r, efficiency, sizeof efficiency),
			tp_live_balance_words(&r, b2, sizeof b2),
			duration(r.computation_ns, b1, sizeof b1),
			tp_live_region_time_words(r.time_ns, time, sizeof time), r.threads);
	}

	/* the sync sites' lines, a line a kind of wait at a site: most time waited first, as the
	 * exit report and the console list them */
	struct sync_line *lines = calloc(a->n_sites * (SYNC_KINDS - 1) + 1, sizeof *lines);
	n = 0;
	for (size_t i = 1; lines != NULL && i < a->n_sites; i++)
		for (unsigned k = 1; k < SYNC_KINDS; k++)
			if (a->sites[i].waits[k] > 0 && a->sites[i].process == p->process)
				lines[n++] = (struct sync_line){(uint32_t)i, k,
								a->sites[i].waited[k]};
	if (lines == NULL) {
		free(order);
		return;
	}
	qsort(lines, n, sizeof *lines, by_time_waited);
	for (size_t i = 0; i < n; i++)
		order[i] = lines[i].site;
	width = site_width(a, order, n, shown);
	if (n > 0)
		fprintf(out, "  %-*s %-16s %10s %8s %12s %21s\n", width, "sync site", "kind",
			"waited", "waits", "load balance", "of the critical path");
	for (size_t i = 0; i < n; i++) {
		const struct site *s = &a->sites[lines[i].site];
		unsigned k = lines[i].kind;
		/* a barrier's: of the phases it ended (sync_waited.h) */
		struct tp_live_region phases = k == TP_SYNC_BARRIER ? balance_of(&s->phases)
								    : (struct tp_live_region){0};
		char balance[16];
		/* a wait is never on the path: a mutual exclusion's sections are (in the exit
		 * report's and top's words: a recording's path is whole, never a lower bound) */
		if (k == TP_SYNC_MUTEX && span > 0)
			tp_live_share_words(b2, sizeof b2,
					    100.0 * (double)s->path_ns / (double)span, 1, false);
		else
			snprintf(b2, sizeof b2, "-");
		fprintf(out, "  %-*s %-16s %10s %8" PRIu64 " %12s %21s\n", width,
			site_text(a, lines[i].site, name, sizeof name, shown),
			sync_name(k, s->mutex_kind), duration(s->waited[k], b1, sizeof b1),
			s->waits[k], tp_live_balance_words(&phases, balance, sizeof balance), b2);
	}
	free(lines);
	free(order);
}

/* A process that made no task: no graph to say anything of (a plain MPI rank, mpirun, a program
 * of threads). */
static bool taskless(const struct proc *p)
{
	return p->work == 0 && p->span == NULL && p->tasks == 0;
}

/* The pids said of a command's processes without tasks before "and N more". */
#define TASKLESS_PIDS_SAID 8

static int pid_order(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

/*
 * The processes without tasks, in the exit report's words, no figures of zero: one line for the
 * processes of each command name (an MPI job's thousand ranks one line, not a thousand
 * paragraphs), its lowest pids up to TASKLESS_PIDS_SAID; `*first`: nothing said before it.
 */
static void report_taskless(const struct analysis *a, FILE *out, unsigned shown, bool *first)
{
	bool *said = calloc(a->n_procs, sizeof *said);
	uint32_t *pids = malloc(a->n_procs * sizeof *pids + 1);
	for (size_t i = 0; i < a->n_procs; i++) {
		const struct proc *p = &a->procs[i];
		if (!taskless(p) || (said != NULL && said[i]))
			continue;
		size_t n = 1;
		if (pids != NULL)
			pids[0] = p->pid;
		for (size_t j = i + 1; said != NULL && pids != NULL && j < a->n_procs; j++)
			if (taskless(&a->procs[j]) &&
			    strncmp(a->procs[j].comm, p->comm, sizeof p->comm) == 0)
				pids[n++] = a->procs[j].pid, said[j] = true;
		char comm[4 * sizeof p->comm + 1];
		tp_shown(comm, sizeof comm, p->comm, shown);
		fputs(*first ? "" : "\n", out);
		*first = false;
		if (n == 1) {
			fprintf(out, "%s (pid %" PRIu32, comm, p->pid);
		} else {
			qsort(pids, n, sizeof *pids, pid_order);
			fprintf(out, "%s (%zu processes: pids %" PRIu32, comm, n, pids[0]);
			size_t listed = n < TASKLESS_PIDS_SAID ? n : TASKLESS_PIDS_SAID;
			for (size_t k = 1; k < listed; k++)
				fprintf(out, ", %" PRIu32, pids[k]);
			if (n > listed)
				fprintf(out, " and %zu more", n - listed);
		}
		fputs("): no task executor was seen: no tasks to analyze\n", out);
	}
	free(pids);
	free(said);
}

static void report_process(struct analysis *a, struct proc *p, FILE *out, unsigned shown)
{
	char b1[32], b2[32], b3[32], name[512], comm[4 * sizeof p->comm + 1];
	/* the critical path's sites (only this process's sites have path time) */
	for (size_t i = 0; i < a->n_sites; i++)
		a->sites[i].path_ns = a->sites[i].path_fragments = 0;
	p->no_site.path_ns = p->no_site.path_fragments = 0;
	uint64_t fragments = 0;
	for (const struct node *n = p->span; n != NULL; n = n->prev) {
		struct site *s = site_figures(a, p, n->site);
		s->path_ns += n->end - n->start;
		s->path_fragments += !n->part;
		fragments += !n->part;
	}
	uint64_t burdened = p->span != NULL ? p->span->burdened : 0;
	uint64_t span = path_of(p->span),
		 elapsed = p->end_ns > p->first_ns ? p->end_ns - p->first_ns : 0;
	double parallelism = span > 0 ? (double)p->work / (double)span : 0,
	       speedup = elapsed > 0 ? (double)p->work / (double)elapsed : 0;
	tp_shown(comm, sizeof comm, p->comm, shown);
	const char *threads = p->threads == 1 ? "thread" : "threads";
	fprintf(out, "%s (pid %" PRIu32 "): %" PRIu64 " tasks ended, on %" PRIu32 " %s\n", comm,
		p->pid, p->tasks, p->threads, threads);
	fprintf(out,
		"  work T1         %12.3f ms  the polls of the tasks, OpenMP's initial task's "
		"serial "
		"code too, added up (an open one to the end)\n",
		(double)p->work / 1e6);
	fprintf(out,
		"  span Tinf       %12.3f ms  the longest path through the task graph (%" PRIu64
		" fragments)\n",
		(double)span / 1e6, fragments);
	fprintf(out,
		"  parallelism     %12.2f     T1/Tinf: no number of workers runs this faster than "
		"%.2fx\n",
		parallelism, parallelism);
	fprintf(out,
		"  speedup         %12.2f     T1/elapsed: measured %.2fx on %" PRIu32
		" %s (elapsed %s: from its first task's poll to %s)\n",
		speedup, speedup, p->threads, threads, duration(elapsed, b1, sizeof b1),
		p->exited ? "its exit's start" : "its last event");
	fprintf(out,
		"  burdened span   %12.3f ms  the critical path with the delay before each of its "
		"fragments started (from when it could, or its thread was free: "
		"taskprobe_figures.h)\n"
		"  burdened par.   %12.2f     T1/burdened span: what spawning and scheduling leave "
		"of the parallelism\n",
		(double)burdened / 1e6, burdened > 0 ? (double)p->work / (double)burdened : 0);
	if (p->work == 0)
		return;
	report_factors(a, p, out, shown, span);
	/* the sites with work or on the path, by work; a mutual exclusion's sections on the path
	 * are its sync site's, in the table of sync sites */
	uint32_t *order = calloc(a->n_sites + 1, sizeof *order);
	size_t n = 0;
	for (size_t i = 0; order != NULL && i < a->n_sites; i++) {
		const struct site *s = site_figures(a, p, (uint32_t)i);
		if ((s->path_fragments > 0 && s->mutex_kind == 0) ||
		    (s->work > 0 && (i == 0 || s->process == p->process)))
			order[n++] = (uint32_t)i;
	}
	if (order == NULL)
		return;
	qsort_r(order, n, sizeof *order, by_work, &(struct sites_of){a, p});
	fprintf(out, "  %10s %8s %11s %11s %11s %8s %9s  %s\n", "work ms", "tasks", "median task",
		"spawn cost", "start delay", "on path", "fragments", "site");
	for (size_t i = 0; i < n; i++) {
		const struct site *s = site_figures(a, p, order[i]);
		char share[16];
		tp_live_share_words(share, sizeof share,
				    span > 0 ? 100.0 * (double)s->path_ns / (double)span : 0.0, 1,
				    false);
		fprintf(out, "  %10.3f %8" PRIu64 " %11s %11s %11s %8s %9" PRIu64 "  %s\n",
			(double)s->work / 1e6, s->tasks,
			duration(hist_median(&s->task_time, true), b1, sizeof b1),
			duration(hist_median(&s->spawn_gap, false), b2, sizeof b2),
			duration(hist_median(&s->start_delay, false), b3, sizeof b3), share,
			s->path_fragments, site_text(a, order[i], name, sizeof name, shown));
	}
	/* tasks too small for what they cost: the verdict, its medians' reading and its words are
	 * the exit report's and the console's (taskprobe_figures.h) */
	for (size_t i = 0; i < n; i++) {
		const struct site *s = site_figures(a, p, order[i]);
		uint64_t task = hist_median(&s->task_time, true),
			 spawn = hist_median(&s->spawn_gap, false),
			 start = hist_median(&s->start_delay, false);
		/* each cost said where it was measured (a site whose tasks are all spawned first
		 * has no gap between spawns to measure) */
		struct tp_live_granularity g = {
			.task_ns = task != UINT64_MAX ? task : 0,
			.spawn_ns = spawn != UINT64_MAX ? spawn : 0,
			.start_ns = start != UINT64_MAX ? start : 0,
		};
		tp_live_granularity_judge(&g, s->tasks, 0);
		if (!g.too_small)
			continue;
		char words[1024];
		tp_live_granularity_words(words, sizeof words,
					  site_text(a, order[i], name, sizeof name, shown), &g);
		fprintf(out, "  %s\n", words);
	}
	free(order);
}

void analysis_report(struct analysis *a, FILE *out, bool utf8)
{
	unsigned shown = utf8 ? TP_SHOWN_UTF8 : 0;
	size_t task, node, edge;
	analysis_finish(a);
	analysis_memory(&task, &node, &edge);
	if (a->n_procs == 0)
		fputs("no task was recorded: nothing to analyze\n", out);
	bool first = true;
	for (size_t i = 0; i < a->n_procs; i++) {
		if (taskless(&a->procs[i]))
			continue;
		fputs(first ? "" : "\n", out);
		first = false;
		report_process(a, &a->procs[i], out, shown);
	}
	report_taskless(a, out, shown, &first);
	if (a->stopped)
		fprintf(out,
			"the analysis stopped %.3f s into the recording: over its memory bound "
			"(%u MiB of its own, %u MiB for the converter in all); the figures are up "
			"to "
			"there\n",
			(double)(a->stopped_ns - a->first_event_ns) / 1e9, ANALYSIS_MAX_BYTES >> 20,
			(unsigned)(a->resident_max >> 20));
	if (a->unknown_polls > 0)
		fprintf(out,
			"%" PRIu64 " tasks were polled but not spawned in the recording (begun "
			"before it): their spawn edges are missing\n",
			a->unknown_polls);
	fprintf(out,
		"memory: at most %zu tasks open (%zu bytes each), %zu path nodes (%zu bytes "
		"each); %.1f MiB at most\n",
		a->peak_tasks, task, a->peak_nodes, node, (double)a->peak_bytes / (1 << 20));
}

void analysis_critical_path(struct analysis *a,
			    void (*each)(void *context, const struct analysis_fragment *f,
					 bool first),
			    void *context)
{
	analysis_finish(a);
	for (size_t i = 0; i < a->n_procs; i++) {
		/* the nodes point back: the path's length first, then its nodes from the end */
		size_t n = 0;
		for (const struct node *at = a->procs[i].span; at != NULL; at = at->prev)
			n++;
		const struct node **path = malloc(n * sizeof *path + 1);
		if (path == NULL)
			continue;
		size_t k = n;
		for (const struct node *at = a->procs[i].span; at != NULL; at = at->prev)
			path[--k] = at;
		for (k = 0; k < n; k++) {
			const struct node *at = path[k];
			const struct site *s = &a->sites[at->site];
			struct analysis_fragment f = {
				.process = at->process,
				.pid = at->pid,
				.tid = at->tid,
				.task = at->task,
				.site_scope = at->site != 0 ? s->scope : 0,
				.site_id = at->site != 0 ? s->id : 0,
				.start_ns = at->start,
				.end_ns = at->end,
				.exclusion = s->mutex_kind,
				.part = at->part,
			};
			each(context, &f, k == 0);
		}
		free(path);
	}
}
static void sink_site(void *context, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	analysis_site(context, scope, id, text, len);
}

static void sink_event(void *context, const struct timeline_event *e)
{
	analysis_add(context, e);
}

/*
 * The recordings read into a new analysis (*out), an MPI job's efficiencies said in *job
 * (malloc'ed, NULL when nothing was said; `kept` NULL: not kept). Returns 0, or the exit status
 * when nothing was read (analysis_run's; said on `errors`).
 */
static int analysis_read(const struct recording_input *inputs, size_t n, FILE *errors,
			 struct analysis **out, char **kept, struct recording_totals *totals)
{
	char *said = NULL, **job = kept != NULL ? kept : &said;
	*job = NULL;
	struct analysis *a = analysis_new(ANALYSIS_RESIDENT_MAX);
	if (a == NULL) {
		fputs("taskprobe-timeline: out of memory\n", errors);
		return 2;
	}
	/* an MPI job's efficiencies across its ranks, said as the merge ends (without memory
	 * for them, they are said on the errors) */
	size_t job_size = 0;
	FILE *figures = open_memstream(job, &job_size);
	struct recording_sink sink = {a, sink_site, sink_event, figures};
	bool read = recording_read(inputs, n, &sink, errors, totals);
	if (figures != NULL && (fclose(figures) != 0 || job_size == 0)) {
		free(*job);
		*job = NULL;
	}
	if (!read) {
		free(*job);
		*job = NULL;
		analysis_free(a);
		if (totals->refused) /* said */
			return ANALYSIS_REFUSED;
		fputs("taskprobe-timeline: out of memory\n", errors);
		return 2;
	}
	*out = a;
	free(said);
	return 0;
}

int analysis_run(const struct recording_input *inputs, size_t n, FILE *out, FILE *errors, bool utf8)
{
	struct analysis *a;
	char *job;
	struct recording_totals totals;
	int status = analysis_read(inputs, n, errors, &a, &job, &totals);
	if (status != 0)
		return status;
	/* the job's figures: the output's first paragraph */
	if (job != NULL)
		fprintf(out, "%s\n", job);
	free(job);
	analysis_report(a, out, utf8);
	if (totals.dropped > 0)
		fprintf(out,
			"%" PRIu64 " events were not recorded (the recording says so): the graph "
			"misses them\n",
			totals.dropped);
	if (totals.left_out > 0)
		fprintf(out,
			"%" PRIu64
			" events were left out to keep the converter's memory bounded (said "
			"on standard error): the graph misses them\n",
			totals.left_out);
	analysis_free(a);
	return totals.cut_files > 0 || totals.left_out > 0;
}

/* The name most of the processes of `a` have (a job's ranks outnumber its launcher's). */
static void program_name(const struct analysis *a, char *out, size_t size, unsigned shown)
{
	size_t best = 0, most = 0;
	for (size_t i = 0; i < a->n_procs; i++) {
		size_t same = 0;
		for (size_t j = 0; j < a->n_procs; j++)
			same += strcmp(a->procs[i].comm, a->procs[j].comm) == 0;
		/* a process with tasks first, among as many */
		if (same > most ||
		    (same == most && !taskless(&a->procs[i]) && taskless(&a->procs[best]))) {
			most = same;
			best = i;
		}
	}
	if (a->n_procs == 0)
		snprintf(out, size, "%s", "?");
	else
		tp_shown(out, size, a->procs[best].comm, shown);
}

/* The basis of a run's efficiencies: an MPI job's (`job`), else its one process with tasks'. */
static void scaling_basis_of(struct analysis *a, const struct scaling_basis *job,
			     struct scaling_run *run)
{
	size_t with_tasks = 0;
	const struct proc *only = NULL;
	for (size_t i = 0; i < a->n_procs; i++)
		if (!taskless(&a->procs[i])) {
			with_tasks++;
			only = &a->procs[i];
		}
	if (job->known) {
		run->basis = *job;
		return;
	}
	struct tp_live_factors f = with_tasks == 1 && job->ranks == 0 ? factors_of(a, only)
								      : (struct tp_live_factors){0};
	if (f.valid)
		run->basis = (struct scaling_basis){.known = true,
						    .units = f.threads,
						    .useful_ns = (double)f.average_ns * f.threads,
						    .most_ns = (double)f.maximum_ns,
						    .run_ns = (double)f.run_ns,
						    .of_interest = only->roi_seen,
						    .serialisation = f.serialisation,
						    .transfer = f.transfer};
	else if (job->ranks > 0)
		snprintf(run->why, sizeof run->why,
			 "an MPI job of %" PRIu32 " ranks whose efficiencies are not told (said "
			 "by --analyze): not told",
			 job->ranks);
	else if (with_tasks > 1)
		snprintf(run->why, sizeof run->why,
			 "%zu processes made tasks, and no MPI job joins them: not told (give "
			 "one program's run)",
			 with_tasks);
	else
		snprintf(run->why, sizeof run->why,
			 "no task executor and no MPI job of two ranks or one was recorded: not "
			 "told");
}

bool analysis_scaling_of(struct analysis *a, const struct scaling_basis *job, bool utf8,
			 struct scaling_run *run)
{
	analysis_finish(a);
	unsigned shown = utf8 ? TP_SHOWN_UTF8 : 0;
	program_name(a, run->program, sizeof run->program, shown);
	scaling_basis_of(a, job, run);
	char name[512];
	for (size_t i = 1; run->basis.known && i < a->n_sites; i++) {
		struct tp_live_region r = balance_of(&a->sites[i].by_thread);
		if (a->sites[i].parallel && r.threads > 0 &&
		    !scaling_region_add(run, site_text(a, (uint32_t)i, name, sizeof name, shown),
					(double)r.computation_ns))
			return false;
	}
	return true;
}

int analysis_scaling(const struct recording_input *inputs, size_t n, FILE *errors, bool utf8,
		     struct scaling_run *run)
{
	struct analysis *a;
	struct recording_totals totals;
	int status = analysis_read(inputs, n, errors, &a, NULL, &totals);
	if (status != 0)
		return status;
	bool ok = analysis_scaling_of(a, &totals.job, utf8, run);
	analysis_free(a);
	if (!ok) {
		fputs("taskprobe-timeline: out of memory\n", errors);
		return 2;
	}
	if (totals.dropped > 0) /* as analysis_run says it */
		fprintf(errors,
			"taskprobe-timeline: %s: %" PRIu64 " events were not recorded (the "
			"recording says so): its figures miss them\n",
			run->name, totals.dropped);
	return totals.cut_files > 0 || totals.left_out > 0;
}
