// SPDX-License-Identifier: MIT
/*
 * The figures every reader makes of the live statistics (dtrace/taskprobe_live.h, the file's
 * layout) and of a recording's analysis alike, each defined once here: a fragment's start delay
 * (the burdened span), a site's spawn cost and granularity, a histogram's quantiles, a
 * duration's text, the POP factors and their words, and the task graph's and the parallel
 * regions' figures read from the slots. The shim's exit report, `taskprobe top` and
 * `taskprobe-timeline --analyze` include this header and say what it computes.
 */
#pragma once

#include "taskprobe_live.h"

/*
 * The burdened span's one definition (here, for the live statistics and the recording's analysis
 * alike): a fragment's delay, from the later of when it could start (the last end of what joins
 * it: its spawn or its predecessors' ends for a task's first fragment; its last poll's end, or the
 * ends of the children a taskwait, of the descendants a taskgroup, of all a barrier joins, for a
 * later one) and when its thread was last free (the end of the last fragment it ran), to its
 * poll's start; 0 when it started no later. A burdened path adds
 * its fragments' delays to their time: what spawning and scheduling cost the path.
 */
static inline uint64_t tp_live_start_delay(uint64_t start_ns, uint64_t could_start_ns,
					   uint64_t thread_free_ns)
{
	uint64_t from = could_start_ns > thread_free_ns ? could_start_ns : thread_free_ns;
	return start_ns > from ? start_ns - from : 0;
}

/*
 * A site's spawn cost, one definition: the median gap between two spawns of its tasks in one poll
 * of their parent (the spawning task's time per child), but for a gap that holds the capture of
 * its spawn's stack, taskprobe's work, not the program's: the live statistics leave out the
 * spawns whose stack they sampled (the first four of a site on a thread, then one in 4096), and
 * `--analyze` those whose spawn carries a stack id (TASKPROBE_RECORD_STACKS, or a tracer on
 * task-stack: every spawn then, and the spawn cost is not measured). The granularity's verdict:
 * its tasks are too small when their median time is below TP_LIVE_TOO_SMALL_RATIO times what
 * spawning and starting one costs (the spawn cost and the median delay before a task's first
 * poll, tp_live_start_delay; 0 where not measured): more of the run goes to making and
 * scheduling them than to their work.
 */
#define TP_LIVE_TOO_SMALL_RATIO 2
static inline int tp_live_too_small(uint64_t task_ns, uint64_t spawn_ns, uint64_t start_ns)
{
	uint64_t cost = spawn_ns + start_ns;
	return task_ns > 0 && cost > 0 && task_ns < TP_LIVE_TOO_SMALL_RATIO * cost;
}

/*
 * The bounds a log2 bucket [*low, *high) is read between when its values' mean position in it is
 * `at` (a fraction): around that mean, as far as the nearer bound, kept inside the bucket.
 */
static inline void tp_live_bucket_at(double at, double *low, double *high)
{
	const double edge = 0.5 / (1u << TP_LIVE_POSITION_BITS);
	at = at < edge ? edge : at > 1 - edge ? 1 - edge : at;
	double mean = *low + (*high - *low) * at,
	       half = mean - *low < *high - mean ? mean - *low : *high - mean;
	*low = mean - half;
	*high = mean + half;
}

/*
 * The bounds a log2 bucket [*low, *high) is read between when its `count` values' positions
 * (tp_live_position) add up to `positions`: around their mean position, as far as the nearer
 * bound (tp_live_bucket_at). A position is the start of its 256th: the mean of values all in one
 * 256th is half a 256th on. Kept inside the bucket: a reader may load a count before the
 * position the writer adds after it.
 */
static inline void tp_live_bucket_around(uint64_t positions, uint64_t count, double *low,
					 double *high)
{
	const double scale = 1u << TP_LIVE_POSITION_BITS;
	tp_live_bucket_at(((double)positions / (double)count + 0.5) / scale, low, high);
}

/*
 * The bounds the open bucket [*low, infinity) of a cost histogram (TP_LIVE_COST_OPEN) is read
 * between when its `count` values' positions (tp_live_cost_position: in 256ths of octaves above
 * it) add up to `positions`: the octave of their mean position, around that mean as far as the
 * octave's nearer bound (tp_live_bucket_at), as another bucket is read. A site's one task of 1.1 s
 * reads 1.1 s; five of 100 ms beside three of 1 ms, 80 ms (spread from 2.1 ms to twice their
 * mean, 41 ms); a 99th of tasks of 9 ms stays within 9.6 ms.
 */
static inline void tp_live_bucket_open(uint64_t positions, uint64_t count, double *low,
				       double *high)
{
	const double scale = 1u << TP_LIVE_POSITION_BITS;
	double at = ((double)positions / (double)count + 0.5) / scale;
	/* below 43: a position is at most 42 octaves and a 256th */
	unsigned octaves = (unsigned)at;
	for (unsigned o = 0; o < octaves && o < 64 - TP_LIVE_COST_OPEN; o++)
		*low *= 2;
	*high = 2 * *low;
	tp_live_bucket_at(at - octaves, low, high);
}

/*
 * The figures' one reading of a log2 histogram (TP_LIVE_BUCKETS: bucket b counts [2^b, 2^(b+1))
 * ns), for the exit report, the console and --analyze alike: the value at `fraction` of its
 * counts (0.5: the median), interpolated inside its bucket, never beyond `longest` (the longest
 * value seen, where kept; 0: not kept); 0 when it is empty. A bucket's bounds or middle would be
 * off by up to half the value (192 ns, 768 ns: the middles of buckets), and two readers' figures
 * would differ. Where the histogram has them (not NULL), `positions` and `positioned` say where
 * in its bucket its values lie (tp_live_position's added up, of how many): around their mean
 * position, as far as the nearer bound, not over the whole bucket. Tasks of 1 ms each read 1 ms,
 * not the 786 us of [2^19, 2^20) ns read at half. A cost histogram's open bucket (its values from
 * TP_LIVE_COST_OPEN's bucket on, when it has their positions) is read as tp_live_bucket_open
 * says: tasks of 60 ms read 60 ms, not ">= 2.10 ms".
 */
static inline uint64_t tp_live_quantile(const uint64_t *histogram, double fraction,
					uint64_t longest, const uint64_t *positions,
					const uint64_t *positioned)
{
	uint64_t total = 0;
	for (unsigned b = 0; b < TP_LIVE_BUCKETS; b++)
		total += histogram[b];
	if (total == 0)
		return 0;
	double wanted = fraction * (double)total, seen = 0;
	uint64_t value = 1ull << (TP_LIVE_BUCKETS - 1);
	for (unsigned b = 0; b < TP_LIVE_BUCKETS; b++) {
		if (histogram[b] == 0)
			continue;
		if (seen + (double)histogram[b] >= wanted) {
			double low = b == 0 ? 0 : (double)(1ull << b), high = (double)(2ull << b);
			if (positions != NULL && positioned[b] != 0 && b == TP_LIVE_COST_OPEN)
				tp_live_bucket_open(positions[b], positioned[b], &low, &high);
			else if (positions != NULL && positioned[b] != 0)
				tp_live_bucket_around(positions[b], positioned[b], &low, &high);
			value = (uint64_t)(low +
					   (high - low) * (wanted - seen) / (double)histogram[b]);
			break;
		}
		seen += (double)histogram[b];
	}
	return longest != 0 && value > longest ? longest : value;
}

/*
 * A site's granularity, one computation for every reader: its tasks' median time, its spawn cost
 * and its median start delay (0 where not measured), and the verdict on them (tp_live_too_small),
 * given for a site of the program's (not the executor's own tasks) with two ended tasks or more.
 */
struct tp_live_granularity {
	uint64_t task_ns, spawn_ns, start_ns;
	int too_small;
};

/* The verdict on medians a reader has (--analyze's, from a recording's histograms). */
static inline void tp_live_granularity_judge(struct tp_live_granularity *g, uint64_t tasks_done,
					     int by_executor)
{
	g->too_small = !by_executor && tasks_done >= 2 &&
		       tp_live_too_small(g->task_ns, g->spawn_ns, g->start_ns);
}

/* The figures and verdict from the live statistics' cost figures. */
static inline struct tp_live_granularity
tp_live_granularity_of(const struct tp_live_costs *c, uint64_t tasks_done, int by_executor)
{
	struct tp_live_granularity g = {
		.task_ns = tp_live_quantile(c->task_time, 0.5, 0, c->task_time_positions,
					    c->task_time_positioned),
		.spawn_ns = tp_live_quantile(c->spawn_gap, 0.5, 0, NULL, NULL),
		.start_ns = tp_live_quantile(c->start_delay, 0.5, 0, NULL, NULL),
	};
	tp_live_granularity_judge(&g, tasks_done, by_executor);
	return g;
}

/*
 * A duration said by every reader, the one format (issue 35 item 6): in words, as the exit
 * report, the verdicts and --analyze say it ("90 ns", "1.2 us", "5.00 ms", "1.250 s"), or in a
 * console's column (`column`: "90ns", "1.2us", "5.0ms", "1.25s", past 1000 s "1234s": its
 * columns are narrow). Returns `buf`.
 */
static inline const char *tp_live_duration_text(uint64_t ns, bool column, char *buf, size_t size)
{
	static const char *const unit[] = {"ns", "us", "ms", "s"};
	static const double per_unit[] = {1, 1e3, 1e6, 1e9};
	static const int words_digits[] = {0, 1, 2, 3}, column_digits[] = {0, 1, 1, 2};
	unsigned u = ns < 1000 ? 0 : ns < 1000000 ? 1 : ns < 1000000000 ? 2 : 3;
	int digits = column ? column_digits[u] : words_digits[u];
	if (column && ns >= 1000000000000ull)
		digits = 0;
	snprintf(buf, size, "%.*f%s%s", digits, (double)ns / per_unit[u], column ? "" : " ",
		 unit[u]);
	return buf;
}

/* A duration in words (tp_live_duration_text's): "90 ns", "1.2 us", "5.00 ms", "1.250 s". */
static inline const char *tp_live_duration_words(uint64_t ns, char *buf, size_t size)
{
	return tp_live_duration_text(ns, false, buf, size);
}

/*
 * An MPI rank in every reader's words, after its pid (top's title, the exit report's sections):
 * ", MPI rank 1 of 8" (its rank in MPI_COMM_WORLD, `size` its size), "" when `size` is 0 (no MPI
 * rank, or before its MPI_Init ended). Returns `buf`.
 */
static inline const char *tp_live_mpi_rank_words(uint32_t rank, uint32_t size, char *buf,
						 size_t size_of_buf)
{
	if (size == 0)
		buf[0] = '\0';
	else
		snprintf(buf, size_of_buf, ", MPI rank %u of %u", rank, size);
	return buf;
}

/*
 * A site's median task time from the live statistics (tp_live_granularity_of) in words, "-"
 * when no task ended.
 */
static inline const char *tp_live_task_time_words(uint64_t ns, char *buf, size_t size)
{
	return ns == 0 ? "-" : tp_live_duration_words(ns, buf, size);
}

/*
 * The verdict in words, each reader's durations given as it writes them ("90 ns"; spawn or start
 * NULL where not measured): "tasks of fib (fib.c:12) take 90 ns (median); spawning one costs
 * ~200 ns and starting one ~1.2 us: too small".
 */
static inline void tp_live_too_small_words(char *out, size_t size, const char *site,
					   const char *task, const char *spawn, const char *start)
{
	snprintf(out, size, "tasks of %s take %s (median); %s%s%s%s: too small", site, task,
		 spawn != NULL ? "spawning one costs ~" : "", spawn != NULL ? spawn : "",
		 spawn != NULL && start != NULL ? " and starting one ~"
		 : start != NULL                ? "starting one costs ~"
						: "",
		 start != NULL ? start : "");
}

/* The verdict on `g` in words (tp_live_too_small_words), durations said alike by every reader. */
static inline void tp_live_granularity_words(char *out, size_t size, const char *site,
					     const struct tp_live_granularity *g)
{
	char task[24], spawn[24], start[24];
	tp_live_too_small_words(
		out, size, site, tp_live_duration_words(g->task_ns, task, sizeof task),
		g->spawn_ns != 0 ? tp_live_duration_words(g->spawn_ns, spawn, sizeof spawn) : NULL,
		g->start_ns != 0 ? tp_live_duration_words(g->start_ns, start, sizeof start) : NULL);
}

/*
 * The POP model's factors (the POP Centre of Excellence's; Scalasca's, OTF-CPT's), one
 * computation for every reader (the exit report, the console, --analyze), from each thread's
 * useful computation (its time polling tasks: the runtime's waits in barriers, taskwaits,
 * taskgroups, critical, ordered and locks end a poll, so they are not in it), the critical path's
 * computation with waits at zero cost and every thread running its fragments in the order it
 * ran them (placed: at least each thread's computation, at most the run time), and the run time:
 *
 *   parallel efficiency      = load balance x communication efficiency = average / run time
 *   load balance             = average computation / maximum computation
 *   communication efficiency = serialisation efficiency x transfer efficiency
 *   serialisation efficiency = maximum computation / the critical path's computation
 *   transfer efficiency      = the critical path's computation / the run time
 *
 * Each factor is at most 1 (a clock read late may make a ratio pass it by a hair). `valid` is
 * 0 when there is nothing to divide by (no thread computed, no run time).
 */
struct tp_live_factors {
	double parallel, load_balance, communication, serialisation, transfer;
	uint64_t average_ns, maximum_ns, placed_ns, run_ns;
	unsigned threads;
	int valid;
};

static inline double tp_live_ratio_at_most_1(uint64_t part, uint64_t whole)
{
	if (whole == 0 || part >= whole)
		return 1.0;
	return (double)part / (double)whole;
}

/* The factors of `threads` threads' computations (`computation_ns[t]`), `placed_ns`, `run_ns`. */
static inline struct tp_live_factors tp_live_factors_of(const uint64_t *computation_ns,
							unsigned threads, uint64_t placed_ns,
							uint64_t run_ns)
{
	struct tp_live_factors f = {.threads = threads, .placed_ns = placed_ns, .run_ns = run_ns};
	uint64_t total = 0;
	for (unsigned t = 0; t < threads; t++) {
		total += computation_ns[t];
		if (computation_ns[t] > f.maximum_ns)
			f.maximum_ns = computation_ns[t];
	}
	if (threads == 0 || f.maximum_ns == 0 || run_ns == 0)
		return f;
	f.average_ns = total / threads;
	/* the critical path holds each thread's computation in order: never shorter than the most */
	if (f.placed_ns < f.maximum_ns)
		f.placed_ns = f.maximum_ns;
	f.load_balance = (double)total / threads / (double)f.maximum_ns;
	f.serialisation = tp_live_ratio_at_most_1(f.maximum_ns, f.placed_ns);
	f.transfer = tp_live_ratio_at_most_1(f.placed_ns, run_ns);
	f.communication = f.serialisation * f.transfer;
	f.parallel = f.load_balance * f.communication;
	f.valid = 1;
	return f;
}

/*
 * The factors in words, the same in every reader, on two lines:
 *   "parallel efficiency 0.498 = load balance 0.996 x communication efficiency 0.500"
 *   "communication efficiency 0.500 = serialisation efficiency 0.500 x transfer efficiency 1.000"
 * `line` 0 or 1; an empty string when not valid.
 */
static inline void tp_live_factors_words(char *out, size_t size, const struct tp_live_factors *f,
					 int line)
{
	if (!f->valid)
		snprintf(out, size, "%s", "");
	else if (line == 0)
		snprintf(out, size,
			 "parallel efficiency %.3f = load balance %.3f x communication efficiency "
			 "%.3f",
			 f->parallel, f->load_balance, f->communication);
	else
		snprintf(out, size,
			 "communication efficiency %.3f = serialisation efficiency %.3f x transfer "
			 "efficiency %.3f",
			 f->communication, f->serialisation, f->transfer);
}

/*
 * What the factors were computed from, every reader's words: "(computation: 1.38 ms a thread
 * on average, 2.76 ms at most; the critical path's computation 2.76 ms; run time 2.79 ms)".
 */
static inline void tp_live_factors_basis_words(char *out, size_t size,
					       const struct tp_live_factors *f)
{
	char average[24], maximum[24], placed[24], run[24];
	snprintf(out, size,
		 "(computation: %s a thread on average, %s at most; the critical path's "
		 "computation %s; run time %s)",
		 tp_live_duration_words(f->average_ns, average, sizeof average),
		 tp_live_duration_words(f->maximum_ns, maximum, sizeof maximum),
		 tp_live_duration_words(f->placed_ns, placed, sizeof placed),
		 tp_live_duration_words(f->run_ns, run, sizeof run));
}

/*
 * The region of interest the factors are limited to, every reader's words: "region of interest:
 * omp_control_tool" (", 3 start/stop pairs"), by the calls that marked it (`markers`: bit
 * 1 << enum tp_roi_marker of each; none said, omp_control_tool's); "" without one (`pairs` 0).
 * Said of the factors alone: work, span and the tables of regions, sync sites and task sites are
 * the whole run's, which a reader who marked a region to leave its program's start out would
 * otherwise take for the region's (its start's regions and barriers listed beside its own).
 */
#define TP_LIVE_ROI_SCOPE " (the factors; the rest: the whole run)"
static inline void tp_live_roi_words(char *out, size_t size, uint64_t pairs, unsigned markers)
{
	const char *by = markers == (1u << TP_ROI_BY_MPI_PCONTROL) ? "MPI_Pcontrol"
			 : markers == (1u << TP_ROI_BY_MPI_WINDOW) ? "MPI_Init to MPI_Finalize"
			 : markers == (1u << TP_ROI_BY_OMP_CONTROL_TOOL |
				       1u << TP_ROI_BY_MPI_PCONTROL)
				 ? "omp_control_tool and MPI_Pcontrol"
				 : "omp_control_tool";
	if (pairs == 0)
		snprintf(out, size, "%s", "");
	else if (pairs == 1)
		snprintf(out, size, "region of interest: %s" TP_LIVE_ROI_SCOPE, by);
	else
		snprintf(out, size,
			 "region of interest: %s, %llu start/stop pairs" TP_LIVE_ROI_SCOPE, by,
			 (unsigned long long)pairs);
}

/*
 * The span's share a site has on it, or when it has none: "-" (not on the path), unless the path
 * ran through more sites than it keeps (TP_LIVE_PATH_SITES; `other_ns` of its time in sites it
 * gave up), when a site without time kept may be one of those: "?". In a time-step loop of many
 * regions the sites kept are those whose fragments came longest, not the largest (BOTS-like
 * known graphs stay within four; LULESH said "-" for a region of 21% of the path).
 */
#define TP_LIVE_SHARE_NOT_KNOWN "?"
static inline const char *tp_live_no_share_words(uint64_t other_ns)
{
	return other_ns > 0 ? TP_LIVE_SHARE_NOT_KNOWN : "-";
}

/* A site a path kept, as every reader takes it (tp_live_path_site_read). */
struct tp_live_path_site {
	uint32_t row;       /* its row (below TP_LIVE_SITES) */
	uint64_t ns;        /* its time on the path */
	uint32_t fragments; /* its fragments on the path */
	bool at_least; /* `ns` is what it ran since it was kept again (TP_LIVE_PATH_SINCE_LOSS) */
};

/*
 * Place `k` of path `p` into `out`: false when unused, or when its time would make the sites' more
 * than the path, `kept` being theirs so far (a torn read's): the reader adds `out->ns` to `kept`
 * once it counts the site.
 */
static inline bool tp_live_path_site_read(const struct tp_live_path *p, unsigned k, uint64_t kept,
					  struct tp_live_path_site *out)
{
	uint64_t v = p->sites[k];
	out->row = TP_LIVE_PATH_ROW_OF(v) % TP_LIVE_SITES;
	out->ns = v & TP_LIVE_PATH_NS_MASK;
	out->fragments = p->fragments[k] & TP_LIVE_PATH_FRAGMENTS_MASK;
	out->at_least = (p->fragments[k] & TP_LIVE_PATH_SINCE_LOSS) != 0;
	return v != 0 && kept + out->ns <= p->ns;
}

/*
 * A site's share of the span, `share` per cent, with `decimals` (0 to 2); its time is only what
 * it ran since it was last kept when `at_least` (TP_LIVE_PATH_SINCE_LOSS): said ">=" with the
 * share cut down to the decimals (a lower bound rounded up would claim more than is known), or
 * "?" when that is nothing (the initial task's serial code between regions, given up at every
 * region and kept again: ">=0.0%" would say nothing, and may be a fifth of the span). The
 * console's SPAN% (no decimals) and the report's (one) say the same thing so.
 */
static inline void tp_live_share_words(char *out, size_t size, double share, int decimals,
				       bool at_least)
{
	static const double unit[] = {1, 10, 100};
	decimals = decimals < 0 ? 0 : decimals > 2 ? 2 : decimals;
	if (at_least) {
		/* (the epsilon: 0.29 * 100 is 28.999...) */
		double cut = (double)(uint64_t)(share * unit[decimals] + 1e-9) / unit[decimals];
		if (cut <= 0)
			snprintf(out, size, "%s", TP_LIVE_SHARE_NOT_KNOWN);
		else
			snprintf(out, size, ">=%.*f%%", decimals, cut);
	} else {
		snprintf(out, size, "%.*f%%", decimals, share);
	}
}

/*
 * Slot `i`'s rows, every reader's: at `map` + `rows_offset` + i * `rows_stride`, once the slot is
 * taken and its rows_ready; else NULL (no figure of it to read).
 */
static inline const struct tp_live_site_stats *tp_live_slot_rows(const struct tp_live_thread *slots,
								 unsigned i, const char *map,
								 uint64_t rows_offset,
								 uint64_t rows_stride)
{
	if (__atomic_load_n(&slots[i].in_use, __ATOMIC_ACQUIRE) == TP_LIVE_SLOT_FREE ||
	    !__atomic_load_n(&slots[i].rows_ready, __ATOMIC_ACQUIRE))
		return NULL;
	return (const void *)(map + rows_offset + (uint64_t)i * rows_stride);
}

/*
 * The waits at sync sites that found no row (the header's syncs_unlisted), counted in the
 * overflow row's sync figures: their time and count over the slots' rows (tp_live_slot_rows).
 */
struct tp_live_unlisted {
	uint64_t waited_ns, waits;
};
static inline struct tp_live_unlisted
tp_live_syncs_unlisted_read(const struct tp_live_thread *slots, const char *map,
			    uint64_t rows_offset, uint64_t rows_stride)
{
	struct tp_live_unlisted u = {0};
	for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
		const struct tp_live_site_stats *rows = tp_live_slot_rows(slots, i, map,
									  rows_offset, rows_stride);
		if (rows == NULL)
			continue;
		const struct tp_live_site_stats *row = &rows[TP_LIVE_OVERFLOW];
		u.waited_ns += __atomic_load_n(&row->sync_waited_ns, __ATOMIC_RELAXED);
		u.waits += __atomic_load_n(&row->sync_waits, __ATOMIC_RELAXED);
	}
	return u;
}

/* Every reader's line under its sync sites' table when some are in no line: "(waits at sync
 * sites beyond the first 253 sites are in no line: 1.20 ms in 240 waits; ...)". */
static inline void tp_live_syncs_unlisted_words(char *out, size_t size, struct tp_live_unlisted u)
{
	char waited[32];
	snprintf(out, size,
		 TP_LIVE_SYNCS_UNLISTED_TEXT ": %s in %llu waits; taskprobe-timeline --analyze of "
					     "a recording lists every site)",
		 tp_live_duration_words(u.waited_ns, waited, sizeof waited),
		 (unsigned long long)u.waits);
}

/*
 * What the live statistics of header `h` (a reader's copy or the file's own) could not count, in
 * words, "; " between two, or "": the console's "not counted:" line and the exit report's alike.
 */
static inline void tp_live_losses_words(char *out, size_t size, const struct tp_live_header *h)
{
	char threads_beyond[64], waiting_beyond[96];
	snprintf(threads_beyond, sizeof threads_beyond, "threads beyond %d at once not counted",
		 TP_LIVE_THREADS);
	snprintf(waiting_beyond, sizeof waiting_beyond,
		 "threads that only waited not listed (beyond %d at once)",
		 TP_LIVE_WAITING_THREADS);
	const struct {
		uint64_t count;
		const char *what;
	} losses[] = {
		{__atomic_load_n(&h->threads_uncounted, __ATOMIC_RELAXED), threads_beyond},
		{__atomic_load_n(&h->threads_without_space, __ATOMIC_RELAXED),
		 "threads not counted (no space left for the statistics' file)"},
		{__atomic_load_n(&h->waiting_threads_unlisted, __ATOMIC_RELAXED), waiting_beyond},
		{__atomic_load_n(&h->tasks_untracked, __ATOMIC_RELAXED),
		 "tasks (too many alive at once) left out"},
		{__atomic_load_n(&h->dependences_dropped, __ATOMIC_RELAXED),
		 "dependences found their table full (the span may be short)"},
		{__atomic_load_n(&h->events_dropped, __ATOMIC_RELAXED),
		 "signal handlers' events not counted"},
	};
	size_t used = 0;
	if (size > 0)
		out[0] = '\0';
	for (size_t i = 0; i < sizeof losses / sizeof losses[0] && used < size; i++)
		if (losses[i].count > 0)
			used += (size_t)snprintf(
				out + used, size - used, "%s%llu %s", used > 0 ? "; " : "",
				(unsigned long long)losses[i].count, losses[i].what);
}

/*
 * The share of the span in sites not kept, in words ("12.8%", "under 0.1%"), in `said` (16
 * bytes); false, `out` emptied, when no site was given up.
 */
static inline int tp_live_path_other_share(char *said, char *out, size_t size, uint64_t other_ns,
					   uint64_t path_ns)
{
	if (other_ns == 0 || path_ns == 0) {
		snprintf(out, size, "%s", "");
		return 0;
	}
	double share = 100.0 * (double)other_ns / (double)path_ns;
	/* (a poll going on that is the span's end leaves the path before it: a small share) */
	if (share < 0.05)
		snprintf(said, 16, "under 0.1%%");
	else
		snprintf(said, 16, "%.1f%%", share);
	return 1;
}

/* The line that says what "?" and ">=" mean (tp_live_no_share_words, tp_live_share_words), empty
 * when no site was given up. */
static inline void tp_live_path_other_words(char *out, size_t size, uint64_t other_ns,
					    uint64_t path_ns)
{
	char said[16];
	if (tp_live_path_other_share(said, out, size, other_ns, path_ns))
		snprintf(out, size,
			 "%s of the span in sites the live statistics did not keep (a path keeps "
			 "%u; \"?\": on it or not, not known; \">=\": its time since it was kept "
			 "again): `taskprobe-timeline --analyze` of a recording names every site "
			 "on it",
			 said, (unsigned)TP_LIVE_PATH_SITES);
}

/* The same, brief, for a line that the other would overflow (the console's screen). */
static inline void tp_live_path_other_brief_words(char *out, size_t size, uint64_t other_ns,
						  uint64_t path_ns)
{
	char said[16];
	if (tp_live_path_other_share(said, out, size, other_ns, path_ns))
		snprintf(out, size,
			 "%s of the span in sites not kept (\"?\"; --analyze names them all)",
			 said);
}

/*
 * The task graph's figures at `now` (the process's clock), as every reader of the live
 * statistics reads them from the header and the slots (a slot's outlive its threads): the work
 * (each thread's computation, the fragment it polls now counted up to `now`), the run's start
 * (the first poll's start: OpenMP's initial task's, at the executor's start), the last poll's
 * end (now while one goes on), the longest path ended (its sites), and the span and placed
 * length with the fragments going on now. The factors' figures (computation, placed length, run)
 * are the region of interest's when the program marked one (roi_pairs or roi_on), else the whole
 * run's.
 */
struct tp_live_graph {
	uint64_t work_ns, first_ns, last_ns;
	struct tp_live_path longest;
	uint64_t span_ns, placed_ns;
	unsigned threads; /* slots whose threads polled a task of the graph */
	/* the factors': each of those threads' computation (the first `threads`), the placed
	 * length and the run, inside the region of interest if there is one */
	uint64_t computation_ns[TP_LIVE_THREADS];
	uint64_t factors_placed_ns, run_ns;
	/* when a fragment going on is the span's end, no ended path as long: its time so far, its
	 * thread's polled task's row and the path to its start, with its sites when they are known
	 * (no site kept: not known; open_ran_ns 0: the span is the longest path ended) */
	uint64_t open_ran_ns;
	uint32_t open_row;
	struct tp_live_path open_from;
	unsigned roi_pairs;   /* start and stop pairs, one going on counted: 0 none */
	unsigned roi_markers; /* the calls that marked them (the header's roi_markers) */
};

/*
 * Slot `t`'s fragment going on now: false if none; else its time since last counted, since its
 * start, and its paths' to now. A fragment paused (open_paused: its thread in an MPI call) counts
 * up to its pause.
 */
static inline bool tp_live_open_fragment(const struct tp_live_thread *t, uint64_t now,
					 uint64_t *uncounted_ns, uint64_t *ran_ns,
					 uint64_t *path_ns, uint64_t *placed_ns)
{
	*uncounted_ns = *ran_ns = *path_ns = *placed_ns = 0;
	bool paused = __atomic_load_n(&t->open_paused, __ATOMIC_ACQUIRE) != 0;
	uint64_t counted = __atomic_load_n(&t->open_counted_ns, __ATOMIC_ACQUIRE);
	if (counted == 0)
		return false;
	uint64_t to = paused ? counted : now;
	*ran_ns = tp_live_since(to, __atomic_load_n(&t->open_start_ns, __ATOMIC_RELAXED));
	*uncounted_ns = tp_live_since(to, counted);
	*path_ns = __atomic_load_n(&t->open_path_ns, __ATOMIC_RELAXED) + *ran_ns;
	*placed_ns = __atomic_load_n(&t->open_placed_ns, __ATOMIC_RELAXED) + *ran_ns;
	return true;
}

/* Slot `t`'s computation at `now`: its polls of the graph's tasks, the one going on counted. */
static inline uint64_t tp_live_computation(const struct tp_live_thread *t, uint64_t now)
{
	uint64_t uncounted, ran, path, placed;
	tp_live_open_fragment(t, now, &uncounted, &ran, &path, &placed);
	return __atomic_load_n(&t->work_ns, __ATOMIC_RELAXED) + uncounted;
}

/*
 * The path to the start of slot `t`'s fragment going on, `ns` long: its sites as the slot
 * published them for a first poll's path of that length (a torn read's are never more than `ns`:
 * tp_live_path_site_read), and true; none kept, and false, when it published them for another.
 */
static inline bool tp_live_read_open_from(const struct tp_live_thread *t, uint64_t ns,
					  struct tp_live_path *out)
{
	*out = (struct tp_live_path){.ns = ns};
	if (__atomic_load_n(&t->open_sites_ns, __ATOMIC_RELAXED) != ns)
		return false;
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++) {
		out->sites[k] = __atomic_load_n(&t->open_sites[k], __ATOMIC_RELAXED);
		out->fragments[k] = __atomic_load_n(&t->open_fragments[k], __ATOMIC_RELAXED);
	}
	return true;
}

static inline void tp_live_graph_read(const struct tp_live_header *h,
				      const struct tp_live_thread *slots, uint64_t now,
				      struct tp_live_graph *g)
{
	*g = (struct tp_live_graph){0};
	uint32_t pairs = __atomic_load_n(&h->roi_pairs, __ATOMIC_ACQUIRE),
		 on = __atomic_load_n(&h->roi_on, __ATOMIC_ACQUIRE);
	g->roi_pairs = pairs + (on != 0);
	g->roi_markers = __atomic_load_n(&h->roi_markers, __ATOMIC_RELAXED);
	bool open_known = false; /* open_from's sites are the ones published with it */
	for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
		const struct tp_live_thread *t = &slots[i];
		if (__atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) == TP_LIVE_SLOT_FREE)
			continue;
		uint64_t uncounted, ran, open_path, open_placed;
		bool open = tp_live_open_fragment(t, now, &uncounted, &ran, &open_path,
						  &open_placed);
		uint64_t work = __atomic_load_n(&t->work_ns, __ATOMIC_RELAXED) + uncounted;
		if (work == 0)
			continue;
		uint64_t first = __atomic_load_n(&t->graph_first_ns, __ATOMIC_RELAXED),
			 last = __atomic_load_n(&t->graph_last_ns, __ATOMIC_RELAXED);
		uint64_t computation = work;
		if (g->roi_pairs > 0)
			computation = __atomic_load_n(&t->roi_counted_ns, __ATOMIC_RELAXED) +
				      (on ? tp_live_since(work, __atomic_load_n(&t->roi_at_start_ns,
										__ATOMIC_RELAXED))
					  : 0);
		g->computation_ns[g->threads++] = computation;
		g->work_ns += work;
		if (first != 0 && (g->first_ns == 0 || first < g->first_ns))
			g->first_ns = first;
		/* a poll going on ends now, as far as it is counted (a paused one too: its
		 * process's run goes on) */
		if (open && (uncounted > 0 || open_path > 0))
			last = now;
		if (last > g->last_ns)
			g->last_ns = last;
		struct tp_live_path p;
		tp_live_read_longest(t, &p);
		if (p.ns > g->longest.ns)
			g->longest = p;
		if (open && open_path > g->span_ns && open_path > p.ns) {
			g->open_ran_ns = ran;
			g->open_row = __atomic_load_n(&t->site, __ATOMIC_RELAXED);
			open_known = tp_live_read_open_from(t, open_path - ran, &g->open_from);
		}
		uint64_t span = p.ns > open_path ? p.ns : open_path,
			 placed = p.placed_ns > open_placed ? p.placed_ns : open_placed;
		g->span_ns = span > g->span_ns ? span : g->span_ns;
		g->placed_ns = placed > g->placed_ns ? placed : g->placed_ns;
	}
	/* a torn read never makes the span shorter than the path whose sites are read */
	if (g->span_ns < g->longest.ns)
		g->span_ns = g->longest.ns;
	if (g->span_ns <= g->longest.ns) {
		g->open_ran_ns = g->open_row = 0;
		g->open_from = (struct tp_live_path){0};
	} else if (!open_known && g->open_from.ns == g->longest.ns) {
		/* a later poll's: it joined the longest path ended (copied it: the same length) */
		g->open_from = g->longest;
	}
	if (g->roi_pairs == 0) {
		g->factors_placed_ns = g->placed_ns;
		g->run_ns = g->first_ns != 0 ? tp_live_since(now, g->first_ns) : 0;
		return;
	}
	g->factors_placed_ns = __atomic_load_n(&h->roi_placed_ns, __ATOMIC_RELAXED);
	g->run_ns = __atomic_load_n(&h->roi_run_ns, __ATOMIC_RELAXED);
	if (on) {
		g->factors_placed_ns += tp_live_since(
			g->placed_ns,
			__atomic_load_n(&h->roi_placed_at_start_ns, __ATOMIC_RELAXED));
		g->run_ns += tp_live_since(now,
					   __atomic_load_n(&h->roi_start_ns, __ATOMIC_RELAXED));
	}
}

/* The factors of the graph read (tp_live_graph_read). */
static inline struct tp_live_factors tp_live_graph_factors(const struct tp_live_graph *g)
{
	return tp_live_factors_of(g->computation_ns, g->threads, g->factors_placed_ns, g->run_ns);
}

/* The parallel regions' figures (and a barrier's phases'), every reader's. */
#include "taskprobe_regions.h"
/* A path's time by site, every reader's. */
#include "taskprobe_path_sites.h"
