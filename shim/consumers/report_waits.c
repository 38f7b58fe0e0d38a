// SPDX-License-Identifier: MIT
/*
 * The exit report's waits (report_waits.h): where each thread waited, by call site.
 *
 * Kept per thread, in fixed tables in the shim's memory (untouched pages cost nothing): a thread
 * takes the next free table at its first wait (one atomic add, its name read once) and counts
 * each wait that ends in a row of its call site's key (found by a scan of at most
 * SITES_PER_THREAD keys), with the time waited, in the clock's units: no lock, no allocation, no
 * naming while the program runs. A table outlives its thread, so that threads that ended before
 * exit are reported too. Bounds, and what happens past them:
 *   - THREAD_TABLES threads have a table of their own; the threads after them share one more,
 *     counted with atomic adds and reported as one line ("threads past the table");
 *   - a thread's first SITES_PER_THREAD sites have a row each; its waits at later sites are
 *     counted in its "other sites" figures;
 *   - a wait with no site key (the key table full, or a wait inside the shim's own finding of a
 *     site) is counted under key 0, said as such.
 * Every wait that ends is counted, a signal handler's inside another too (its time then in both),
 * and at exit each thread's wait going on then, up to then (a worker blocked until the program
 * ended: xz's, waiting for blocks that never came, are its longest waits): a thread's table keeps
 * its outermost wait's start, kind and key while it lasts (the threads past the tables' have
 * none). At exit (report.c says when) the keys are named and the threads listed, most time
 * waited first (the first THREADS_SHOWN, the rest added up), each with its TOP_SITES sites of most
 * time.
 */
#define _GNU_SOURCE
#include "report_waits.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "clock.h"
#include "in_process_consumers.h"
#include "listeners.h"
#include "live.h"
#include "real_symbol.h"
#include "settings.h"
#include "shown_text.h"
#include "spawn_site.h"
#include "taskprobe_contract.h"
#include "taskprobe_figures.h" /* tp_live_duration_words */
#include "thread_identity.h"

#define THREAD_TABLES    256 /* threads with a table of their own */
#define SITES_PER_THREAD 16  /* call sites a table has rows for */
#define TOP_SITES        5   /* sites reported per thread */
#define THREADS_SHOWN    32  /* threads reported one by one, most time waited first */

struct site_row {
	uint32_t key;  /* the call site's key (spawn_site.h); claimed with a compare-and-swap */
	uint32_t kind; /* the contract's wait kind of its first wait */
	uint64_t waits, time; /* waits ended, and their time in tp_clock_now's units */
};

struct thread_table {
	pid_t tid; /* 0 for the shared table */
	char name[16];
	struct site_row rows[SITES_PER_THREAD];
	uint64_t other_waits, other_time; /* at sites past the rows */
	/* its outermost wait going on: its start (0: none; written last) and its row's key and kind */
	uint64_t open_since;
	uint32_t open_key, open_kind;
};

/* [THREAD_TABLES]: shared by the threads that found none free. */
static struct thread_table tables[THREAD_TABLES + 1];
static uint32_t tables_taken;
/* Threads that counted into the shared table. */
static uint32_t threads_sharing;
static __thread struct thread_table *own __attribute__((tls_model("initial-exec")));

/* The clock at the start, to turn its units into nanoseconds at exit. */
static uint64_t clock_at_start, ns_at_start;

void tp_report_waits_start(void)
{
	tp_clock_pair(&clock_at_start, &ns_at_start);
}

/* The calling thread's table, taken at its first wait. */
static struct thread_table *own_table(void)
{
	if (__builtin_expect(own != NULL, 1))
		return own;
	uint32_t i = __atomic_fetch_add(&tables_taken, 1, __ATOMIC_RELAXED);
	struct thread_table *t = &tables[THREAD_TABLES];
	if (i < THREAD_TABLES) {
		t = &tables[i];
		tp_thread_read_name(t->name);
		__atomic_store_n(&t->tid, tp_thread_tid(), __ATOMIC_RELEASE);
	} else {
		__atomic_add_fetch(&threads_sharing, 1, __ATOMIC_RELAXED);
	}
	own = t;
	return t;
}

/* The shared table's threads keep no wait going on: they would overwrite each other's. */
static bool keeps_open(const struct thread_table *t)
{
	return t != &tables[THREAD_TABLES];
}

/* A row's key for call site `site_key`: 0 marks a free row, so a wait with no key is UINT32_MAX. */
static uint32_t row_key(uint32_t site_key)
{
	return site_key != 0 ? site_key : UINT32_MAX;
}

uint64_t tp_report_waits_enter(uint32_t kind, uint32_t site_key, uint64_t at)
{
	struct thread_table *t = own_table();
	/* the outermost: a signal handler's wait inside it leaves it, and ends as its own */
	if (keeps_open(t) && __atomic_load_n(&t->open_since, __ATOMIC_RELAXED) == 0) {
		__atomic_store_n(&t->open_key, row_key(site_key), __ATOMIC_RELAXED);
		__atomic_store_n(&t->open_kind, kind, __ATOMIC_RELAXED);
		__atomic_store_n(&t->open_since, at, __ATOMIC_RELEASE);
	}
	return at;
}

/* A wait of `time` ended at site `site_key` (0: none) in table `t`. */
static void count_wait(struct thread_table *t, uint32_t kind, uint32_t site_key, uint64_t time)
{
	for (unsigned i = 0; i < SITES_PER_THREAD; i++) {
		struct site_row *row = &t->rows[i];
		uint32_t key = __atomic_load_n(&row->key, __ATOMIC_ACQUIRE);
		if (key == 0) {
			uint32_t free_row = 0, wanted = row_key(site_key);
			if (__atomic_compare_exchange_n(&row->key, &free_row, wanted, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				__atomic_store_n(&row->kind, kind, __ATOMIC_RELAXED);
				key = wanted;
			} else {
				key = free_row; /* another thread of the shared table took it */
			}
		}
		if (key == row_key(site_key)) {
			__atomic_add_fetch(&row->waits, 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&row->time, time, __ATOMIC_RELAXED);
			return;
		}
	}
	__atomic_add_fetch(&t->other_waits, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->other_time, time, __ATOMIC_RELAXED);
}

void tp_report_waits_leave(uint32_t kind, uint32_t site_key, uint64_t since, uint64_t at)
{
	if (since == 0)
		return;
	/* at its moment: a wait's moments never step back, but a moment given may be its start */
	uint64_t time = at > since ? at - since : 0;
	struct thread_table *t = own_table();
	if (__atomic_load_n(&t->open_since, __ATOMIC_RELAXED) == since)
		__atomic_store_n(&t->open_since, 0, __ATOMIC_RELEASE);
	count_wait(t, kind, site_key, time);
}

uint64_t tp_report_waits_unwound(uint64_t since)
{
	uint64_t now = tp_clock_now();
	if (since == 0 || now <= since)
		return since;
	struct thread_table *t = own_table();
	if (__atomic_load_n(&t->open_since, __ATOMIC_RELAXED) == since)
		__atomic_store_n(&t->open_since, now, __ATOMIC_RELEASE);
	return now;
}

void tp_report_waits_at_once(uint32_t kind, uint32_t site_key)
{
	count_wait(own_table(), kind, site_key, 0);
}

void tp_report_waits_child_after_fork(void)
{
	uint32_t taken = __atomic_load_n(&tables_taken, __ATOMIC_RELAXED);
	memset(tables, 0, (taken < THREAD_TABLES ? taken : THREAD_TABLES) * sizeof tables[0]);
	memset(&tables[THREAD_TABLES], 0, sizeof tables[0]);
	tables_taken = threads_sharing = 0;
	own = NULL;
	tp_clock_pair(&clock_at_start, &ns_at_start);
}

void tp_report_waits_name_sites(void)
{
	if (!tp_reporting())
		return;
	for (unsigned i = 0; i < THREAD_TABLES + 1; i++)
		for (unsigned r = 0; r < SITES_PER_THREAD; r++) {
			uint32_t key = __atomic_load_n(&tables[i].rows[r].key, __ATOMIC_ACQUIRE);
			if (key != 0 && key != UINT32_MAX)
				tp_spawn_site_of_key(key);
		}
}

/* A row of the report: a site's figures, with the wait going on at exit among them (if any). */
struct shown_row {
	struct site_row figures;
	uint32_t site; /* its key's site (0: none named) */
	bool going_on;
};

/* What the report reads of one table, at exit: each figure read once. */
struct thread_figures {
	const struct thread_table *table;
	/* its rows, and the one of its wait going on */
	struct shown_row rows[SITES_PER_THREAD + 1];
	unsigned n_rows;
	uint64_t waits, time;
	uint64_t other_waits, other_time; /* at sites past TOP_SITES, or past the rows */
	bool other_going_on;
};
static struct thread_figures figures[THREAD_TABLES + 1];

static int by_time(const void *a, const void *b)
{
	const struct site_row *x = &((const struct shown_row *)a)->figures;
	const struct site_row *y = &((const struct shown_row *)b)->figures;
	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Most time waited first; of as much time (waits taken at once: none), most waits first. */
static int threads_by_time(const void *a, const void *b)
{
	const struct thread_figures *x = a, *y = b;
	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	if (x->waits != y->waits)
		return x->waits > y->waits ? -1 : 1;
	return x->table < y->table ? -1 : 1;
}

/*
 * `row` added to `f`: to the row of its kind whose call address names the same site (a loop the
 * compiler unrolled, a line's inlined copies are one line), else as a row of its own.
 */
static void add_row(struct thread_figures *f, const struct site_row *row, bool going_on)
{
	f->waits += row->waits;
	f->time += row->time;
	uint32_t site = row->key != UINT32_MAX ? tp_spawn_site_of_key(row->key) : 0;
	unsigned same = 0;
	while (same < f->n_rows &&
	       (site == 0 || f->rows[same].site != site || f->rows[same].figures.kind != row->kind))
		same++;
	if (same < f->n_rows) {
		f->rows[same].figures.waits += row->waits;
		f->rows[same].figures.time += row->time;
		f->rows[same].going_on |= going_on;
		return;
	}
	f->rows[f->n_rows++] = (struct shown_row){
		.figures = *row, .site = site, .going_on = going_on};
}

/* Whether thread `tid` of this process is still there (an open wait of one gone is none). */
static bool thread_there(pid_t tid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d", (int)tid);
	return access(path, F_OK) == 0;
}

/*
 * `t`'s wait going on at `now` (the clock's), as a row of one wait of its time so far; false
 * when none (or it ended, or another began, while read).
 */
static bool read_going_on(const struct thread_table *t, uint64_t now, struct site_row *row)
{
	uint64_t since = __atomic_load_n(&t->open_since, __ATOMIC_ACQUIRE);
	if (since == 0 || since > now || t->tid == 0)
		return false;
	*row = (struct site_row){
		.key = __atomic_load_n(&t->open_key, __ATOMIC_RELAXED),
		.kind = __atomic_load_n(&t->open_kind, __ATOMIC_RELAXED),
		.waits = 1,
		.time = now - since,
	};
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&t->open_since, __ATOMIC_RELAXED) == since && row->key != 0 &&
	       thread_there(t->tid);
}

/*
 * Reads `t` into `f`, its wait going on at `now` (the clock's) too: its rows by time waited, the
 * ones past TOP_SITES added to "other". Names the keys: at exit only.
 */
static void read_table(const struct thread_table *t, struct thread_figures *f, uint64_t now)
{
	*f = (struct thread_figures){.table = t};
	for (unsigned i = 0; i < SITES_PER_THREAD; i++) {
		struct site_row row = {
			.key = __atomic_load_n(&t->rows[i].key, __ATOMIC_ACQUIRE),
			.kind = __atomic_load_n(&t->rows[i].kind, __ATOMIC_RELAXED),
			.waits = __atomic_load_n(&t->rows[i].waits, __ATOMIC_RELAXED),
			.time = __atomic_load_n(&t->rows[i].time, __ATOMIC_RELAXED),
		};
		if (row.key != 0 && row.waits != 0)
			add_row(f, &row, false);
	}
	struct site_row going_on;
	if (read_going_on(t, now, &going_on))
		add_row(f, &going_on, true);
	qsort(f->rows, f->n_rows, sizeof f->rows[0], by_time);
	f->other_waits = __atomic_load_n(&t->other_waits, __ATOMIC_RELAXED);
	f->other_time = __atomic_load_n(&t->other_time, __ATOMIC_RELAXED);
	f->waits += f->other_waits;
	f->time += f->other_time;
	for (unsigned i = TOP_SITES; i < f->n_rows; i++) {
		f->other_waits += f->rows[i].figures.waits;
		f->other_time += f->rows[i].figures.time;
		f->other_going_on |= f->rows[i].going_on;
	}
	if (f->n_rows > TOP_SITES)
		f->n_rows = TOP_SITES;
}

/* Nanoseconds per unit of the clock, from the start to now. */
static double ns_per_unit(void)
{
	uint64_t clock_now, ns_now;
	tp_clock_pair(&clock_now, &ns_now);
	return clock_now > clock_at_start
		       ? (double)(ns_now - ns_at_start) / (double)(clock_now - clock_at_start)
		       : 1.0;
}

/* As every duration is said (tp_live_duration_words): "12.3 us", "12.30 ms", "1.230 s". */
static void put_time(FILE *out, uint64_t time, double ns_per)
{
	char words[32];
	fputs(tp_live_duration_words((uint64_t)((double)time * ns_per), words, sizeof words), out);
}

/* A row's end: said when the thread's wait going on at exit is one of its waits. */
static void put_going_on(FILE *out, bool going_on)
{
	fputs(going_on ? " (1 going on at exit)\n" : "\n", out);
}

static void put_waits(FILE *out, uint64_t waits, const char *kind)
{
	fprintf(out, "%llu %s%swait%s", (unsigned long long)waits, kind, kind[0] ? " " : "",
		waits == 1 ? "" : "s");
}

/* The name of a live thread now (it may have been renamed since its first wait). */
static void name_now(pid_t tid, char name[16])
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return; /* ended: the name of its first wait */
	ssize_t n = read(fd, name, 15);
	tp_real_close(fd);
	if (n > 0) {
		name[n] = '\0';
		name[strcspn(name, "\n")] = '\0';
	}
}

static void write_thread(FILE *out, const struct thread_figures *f, double ns_per)
{
	static const char *const kinds[] = TP_WAIT_KIND_NAMES;
	const struct thread_table *t = f->table;
	/* names from the program and its files, escaped for the terminal the report may reach */
	unsigned shown = tp_settings()->text_utf8 ? TP_SHOWN_UTF8 : 0;
	char text_shown[1024];
	if (t->tid != 0) {
		char name[16];
		memcpy(name, t->name, sizeof name);
		name_now(t->tid, name);
		fprintf(out, "  thread %d \"%s\": ", (int)t->tid,
			tp_shown(text_shown, sizeof text_shown, name, shown));
	} else {
		uint32_t sharing = __atomic_load_n(&threads_sharing, __ATOMIC_RELAXED);
		fprintf(out, "  %u thread%s past the first %d, together: ", sharing,
			sharing == 1 ? "" : "s", THREAD_TABLES);
	}
	put_waits(out, f->waits, "");
	fputs(", ", out);
	put_time(out, f->time, ns_per);
	fputc('\n', out);
	for (unsigned i = 0; i < f->n_rows; i++) {
		const struct site_row *row = &f->rows[i].figures;
		const char *text = NULL;
		if (row->key != UINT32_MAX)
			text = tp_spawn_site_text(tp_spawn_site_of_key(row->key));
		fputs("    ", out);
		put_waits(out, row->waits, row->kind <= TP_WAIT_KINDS ? kinds[row->kind] : "?");
		fprintf(out, " at %s: ",
			text != NULL ? tp_shown(text_shown, sizeof text_shown, text, shown)
				     : "(no call site: the site tables were full)");
		put_time(out, row->time, ns_per);
		put_going_on(out, f->rows[i].going_on);
	}
	if (f->other_waits > 0) {
		fputs("    ", out);
		put_waits(out, f->other_waits, "");
		fputs(" at other sites: ", out);
		put_time(out, f->other_time, ns_per);
		put_going_on(out, f->other_going_on);
	}
}

bool tp_report_waits_any(void)
{
	uint32_t taken = __atomic_load_n(&tables_taken, __ATOMIC_RELAXED);
	uint64_t now = tp_clock_now();
	for (unsigned i = 0; i < THREAD_TABLES + 1; i++) {
		if (i < THREAD_TABLES && i >= taken)
			continue;
		const struct thread_table *t = &tables[i];
		struct site_row going_on;
		if (__atomic_load_n(&t->other_waits, __ATOMIC_RELAXED) > 0 ||
		    read_going_on(t, now, &going_on))
			return true;
		for (unsigned r = 0; r < SITES_PER_THREAD; r++)
			if (__atomic_load_n(&t->rows[r].waits, __ATOMIC_RELAXED) > 0)
				return true;
	}
	return false;
}

void tp_report_waits(FILE *out)
{
	if (!tp_reporting())
		return;
	uint32_t taken = __atomic_load_n(&tables_taken, __ATOMIC_RELAXED);
	uint64_t now = tp_clock_now();
	unsigned n = 0;
	for (unsigned i = 0; i < THREAD_TABLES + 1; i++) {
		/* a table being taken now has no tid yet: left out */
		if (i < THREAD_TABLES &&
		    (i >= taken || __atomic_load_n(&tables[i].tid, __ATOMIC_ACQUIRE) == 0))
			continue;
		read_table(&tables[i], &figures[n], now);
		if (figures[n].waits > 0)
			n++;
	}
	double ns_per = ns_per_unit();
	char whose[64];
	tp_live_process_words(whose, sizeof whose);
	if (n == 0) {
		fprintf(out,
			"taskprobe: no thread waited in an interposed wait (%s): joins, sleeps, "
			"select and read are not waits here\n",
			whose);
		return;
	}
	qsort(figures, n, sizeof figures[0], threads_by_time);
	fprintf(out,
		"taskprobe: where threads waited (%s): each thread's top %d call sites by time "
		"waited\n",
		whose, TOP_SITES);
	for (unsigned i = 0; i < n && i < THREADS_SHOWN; i++)
		write_thread(out, &figures[i], ns_per);
	if (n > THREADS_SHOWN) {
		uint64_t waits = 0, time = 0;
		for (unsigned i = THREADS_SHOWN; i < n; i++) {
			waits += figures[i].waits;
			time += figures[i].time;
		}
		fprintf(out, "  %u more threads: ", n - THREADS_SHOWN);
		put_waits(out, waits, "");
		fputs(", ", out);
		put_time(out, time, ns_per);
		fputc('\n', out);
	}
}
