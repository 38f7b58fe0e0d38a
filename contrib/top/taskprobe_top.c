// SPDX-License-Identifier: MIT
/*
 * taskprobe-top: a live console of a program's tasks, from its live statistics
 * (TASKPROBE_LIVE, dtrace/taskprobe_live.h), without root. A full-screen view (ncurses) of the
 * spawn sites and the workers, refreshed every interval; a site's detail view; or plain-text
 * snapshots (--once, or when there is no terminal to draw on). Started by `taskprobe top`;
 * taskprobe-top(1).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <time.h>
#include <unistd.h>

#include "follow.h"
#include "live_view.h"

#define DEFAULT_INTERVAL_MS 1000
#define KEY_CHECK_MS        FOLLOW_CHECK_MS /* keys are looked at as often as the program's end */
#define LINE_MAX_CHARS      1024
#define SITE_WIDTH_MIN      20
#define SITE_WIDTH_WANTED   40 /* "function (file:line)" whole, columns left out for it */
#define HISTOGRAM_BAR       30 /* characters of the longest bar */
#define KEY_ESCAPE          27
#define KEY_CONTROL_C       3

struct options {
	bool once;
	bool batch;
	bool children; /* show the busiest of the run's processes while the program spawns none */
	unsigned interval_ms;
	unsigned wait_ms; /* how long to wait for the file to appear */
	enum site_column sort;
	bool ascending;
	const char *dir;
	pid_t pid;
	uint64_t remove_at_end; /* the start time of PID, whose statistics to remove when it ends */
	bool check_options;     /* the options checked, nothing done (--check-options) */
};

static void usage(FILE *to)
{
	fprintf(to,
		"usage: taskprobe-top [--once | --batch] [--interval SECONDS] [--sort COLUMN] "
		"[--reverse]\n"
		"                     [--dir DIR] [--wait SECONDS] PID\n"
		"       taskprobe-top --remove-at-end STARTTIME PID\n"
		"       taskprobe-top --check-options [OPTIONS] [PID]\n"
		"       taskprobe-top --version\n"
		"Shows the tasks of process PID, started with live statistics (taskprobe run, or\n"
		"TASKPROBE_LIVE=1), as the same user. Columns: site spawned alive done polls busy\n"
		"delay50 delay99 idle longest warnings. Usually started by `taskprobe top`.\n"
		"--remove-at-end: waits for PID (which started at STARTTIME, /proc/PID/stat's)\n"
		"to end, then removes the statistics it left (`taskprobe run` starts it so).\n"
		"--check-options: checks the options and does nothing else (exit status 0, or 2\n"
		"with the error said): `taskprobe top` asks before the program runs.\n");
}

static bool parse_options(int argc, char **argv, struct options *o)
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
static struct follow following(const struct options *o)
{
	return (struct follow){
		.run = o->pid, .dir = o->dir, .children = o->children, .once = o->once};
}

/* --- lines, for the screen and for plain text alike --- */

/*
 * The sites table: the site, the number columns (live_view.h's order) each this wide, and the
 * warnings.
 */
static const int column_widths[COLUMNS] = {
	[COLUMN_SPAWNED] = 8, [COLUMN_ALIVE] = 6,     [COLUMN_DONE] = 8,      [COLUMN_POLLS] = 8,
	[COLUMN_BUSY] = 8,    [COLUMN_DELAY_P50] = 8, [COLUMN_DELAY_P99] = 8, [COLUMN_IDLE] = 8,
	[COLUMN_LONGEST] = 8, [COLUMN_SPAN] = 5,      [COLUMN_ON_PATH] = 6,   [COLUMN_SPAWN] = 7,
};
#define FIRST_NUMBER_COLUMN COLUMN_SPAWNED
#define LAST_NUMBER_COLUMN  COLUMN_SPAWN
typedef unsigned column_set; /* bit c: number column c shown */
#define ALL_COLUMNS ((1u << (LAST_NUMBER_COLUMN + 1)) - (1u << FIRST_NUMBER_COLUMN))

/*
 * The columns a terminal too narrow for all leaves out, first to last: figures the others imply
 * or that matter least for finding a slow site. SPAWNED, DELAY99, LONGEST and the warnings stay.
 */
static const enum site_column narrow_terminal_drops[] = {
	COLUMN_SPAWN, COLUMN_ON_PATH, COLUMN_IDLE, COLUMN_DELAY_P50, COLUMN_DONE,
	COLUMN_POLLS, COLUMN_ALIVE,   COLUMN_BUSY, COLUMN_SPAN,
};
#define WARNINGS_ROOM 21 /* columns the screen leaves the warnings ("polling 16.2ms now +1") */

/* The width the number columns of `shown` take, a space before each. */
static int columns_width(column_set shown)
{
	int width = 0;
	for (int c = FIRST_NUMBER_COLUMN; c <= LAST_NUMBER_COLUMN; c++)
		if (shown & (1u << c))
			width += 1 + column_widths[c];
	return width;
}

/* A line of the sites table: the site in `site_width`, then `cells` of the `shown` columns. */
static void site_columns_line(char *out, size_t size, const char *site, int site_width,
			      column_set shown, const char *const cells[COLUMNS],
			      const char *warnings)
{
	int used = snprintf(out, size, "%-*s", site_width, site);
	for (int c = FIRST_NUMBER_COLUMN;
	     c <= LAST_NUMBER_COLUMN && used >= 0 && (size_t)used < size; c++)
		if (shown & (1u << c))
			used += snprintf(out + used, size - (size_t)used, " %*s", column_widths[c],
					 cells[c]);
	if (used >= 0 && (size_t)used < size)
		snprintf(out + used, size - (size_t)used, "  %s", warnings);
}

static void site_header(char *out, size_t size, int site_width, column_set shown)
{
	char names[COLUMNS][16];
	const char *cells[COLUMNS];
	for (int c = 0; c < COLUMNS; c++) {
		const char *name = live_column_name((enum site_column)c);
		size_t i = 0;
		for (; name[i] != '\0' && i + 1 < sizeof names[c]; i++)
			names[c][i] = (char)toupper((unsigned char)name[i]);
		names[c][i] = '\0';
		cells[c] = names[c];
	}
	site_columns_line(out, size, cells[COLUMN_SITE], site_width, shown, cells,
			  cells[COLUMN_WARNINGS]);
}

static void count_text(char *out, size_t size, uint64_t n)
{
	if (n < 100000000)
		snprintf(out, size, "%llu", (unsigned long long)n);
	else
		snprintf(out, size, "%.0fM", (double)n / 1e6);
}

/*
 * A site's text in `width` characters: cut in its function's name, so that "(file:line)", which
 * tells an unrolled or outlined function's constructs apart, stays whole where it fits.
 */
static void site_text(char *out, size_t size, const char *text, int width)
{
	int len = (int)strlen(text);
	const char *place = strrchr(text, '(');
	int place_len = place != NULL ? (int)strlen(place) : 0;
	if (len <= width || place == NULL || place_len + 2 > width) {
		/* not inside a UTF-8 character */
		int cut = len <= width ? len : width;
		while (cut > 0 && cut < len && ((unsigned char)text[cut] & 0xc0) == 0x80)
			cut--;
		snprintf(out, size, "%.*s", cut, text);
		return;
	}
	size_t head = (size_t)(width - place_len - 2);
	while (head > 0 && ((unsigned char)text[head] & 0xc0) == 0x80)
		head--;
	if (head + 2 + (size_t)place_len >= size)
		head = 0;
	memcpy(out, text, head);
	memcpy(out + head, "~ ", 2);
	memcpy(out + head + 2, place, (size_t)place_len + 1);
}

/* A site's row; `width`, if not 0, the terminal's: the warnings that fit it whole. */
/*
 * The fewest characters a site's text is cut to: whole when short, else its function's first
 * SITE_HEAD_MIN characters and its whole "(file:line)" ("blocki~ (omp_slow.c:17)").
 */
#define SITE_HEAD_MIN 6
static int readable_width(const char *text)
{
	int len = (int)strlen(text);
	const char *place = strrchr(text, '(');
	int least = place != NULL ? SITE_HEAD_MIN + 2 + (int)strlen(place) : SITE_WIDTH_MIN;
	return len < least ? len : least;
}

static void site_line(char *out, size_t size, const struct live_snapshot *s,
		      const struct site_view *v, int site_width, column_set shown, int width)
{
	char text[sizeof v->text];
	site_text(text, sizeof text, v->text, site_width);
	char cells[COLUMNS][16], warnings[128];
	count_text(cells[COLUMN_SPAWNED], sizeof cells[0], v->spawned);
	count_text(cells[COLUMN_ALIVE], sizeof cells[0], v->alive);
	count_text(cells[COLUMN_DONE], sizeof cells[0], v->done);
	count_text(cells[COLUMN_POLLS], sizeof cells[0], v->polls);
	live_format_ns(cells[COLUMN_BUSY], sizeof cells[0], v->busy_ns);
	live_format_ns(cells[COLUMN_DELAY_P50], sizeof cells[0], v->delay_p50_ns);
	live_format_ns(cells[COLUMN_DELAY_P99], sizeof cells[0], v->delay_p99_ns);
	live_format_ns(cells[COLUMN_IDLE], sizeof cells[0], v->idle_ns);
	live_format_ns(cells[COLUMN_LONGEST], sizeof cells[0],
		       v->longest_now_ns > v->longest_poll_ns ? v->longest_now_ns
							      : v->longest_poll_ns);
	live_format_span_share(cells[COLUMN_SPAN], sizeof cells[0], s, v);
	count_text(cells[COLUMN_ON_PATH], sizeof cells[0], v->path_fragments);
	live_format_ns(cells[COLUMN_SPAWN], sizeof cells[0], v->spawn_p50_ns);
	if (v->spawn_p50_ns == 0)
		strcpy(cells[COLUMN_SPAWN], "-");
	if (v->path_ns == 0)
		strcpy(cells[COLUMN_ON_PATH], "-");
	int warnings_width = width - site_width - columns_width(shown) - 2;
	live_format_warnings(warnings, sizeof warnings, v,
			     width <= 0           ? 0
			     : warnings_width > 0 ? warnings_width
						  : 1);
	if (v->delays == 0)
		strcpy(cells[COLUMN_DELAY_P50], "-"), strcpy(cells[COLUMN_DELAY_P99], "-");
	const char *texts[COLUMNS];
	for (int c = 0; c < COLUMNS; c++)
		texts[c] = cells[c];
	site_columns_line(out, size, text, site_width, shown, texts, warnings);
}

/*
 * The threads table's layout: every column (plain snapshots: now_width 0), or on a narrow
 * terminal without POLLS, then THREAD, so that what a thread does now has NOW_WIDTH_WANTED.
 * THREAD is as wide as its longest name (a start routine's "worker (threadpool.c:58)"), at most
 * THREAD_WIDTH_MAX on a terminal.
 */
struct worker_layout {
	bool thread, polls;
	int thread_width;
	int now_width; /* 0: unlimited */
};
#define NOW_WIDTH_WANTED 50 /* "polling function (file:line) for 16.0ms" */
#define TID_WIDTH        8
#define THREAD_WIDTH     15 /* a name threads set themselves: 15 characters at most */
#define THREAD_WIDTH_MAX 36
#define POLLS_WIDTH      8

/* Every column, THREAD as wide as the longest name shown (plain snapshots). */
static struct worker_layout every_worker_column(const struct live_snapshot *s)
{
	struct worker_layout l = {true, true, THREAD_WIDTH, 0};
	for (unsigned i = 0; i < s->n_threads; i++)
		if ((int)strlen(s->threads[i].name) > l.thread_width)
			l.thread_width = (int)strlen(s->threads[i].name);
	return l;
}

static void worker_columns_line(char *out, size_t size, const struct worker_layout *l,
				const char *tid, const char *thread, const char *busy,
				const char *spin, const char *parked, const char *polls,
				const char *now)
{
	int used = snprintf(out, size, "%-*s", TID_WIDTH, tid);
	char name[LINE_MAX_CHARS];
	site_text(name, sizeof name, thread, l->thread_width); /* its place kept, if cut */
	if (l->thread && used >= 0 && (size_t)used < size)
		used += snprintf(out + used, size - (size_t)used, " %-*s", l->thread_width, name);
	if (used >= 0 && (size_t)used < size)
		used += snprintf(out + used, size - (size_t)used, " %5s %5s %6s", busy, spin,
				 parked);
	if (l->polls && used >= 0 && (size_t)used < size)
		used += snprintf(out + used, size - (size_t)used, " %*s", POLLS_WIDTH, polls);
	if (used >= 0 && (size_t)used < size)
		snprintf(out + used, size - (size_t)used, "  %s", now);
}

static void worker_header(char *out, size_t size, const struct worker_layout *l)
{
	worker_columns_line(out, size, l, "TID", "THREAD", "BUSY", "SPIN", "PARKED", "POLLS",
			    "NOW");
}

/* The layout for a terminal `width` columns wide. */
static struct worker_layout worker_layout(const struct live_snapshot *s, int width)
{
	struct worker_layout l = every_worker_column(s);
	if (l.thread_width > THREAD_WIDTH_MAX)
		l.thread_width = THREAD_WIDTH_MAX;
	bool *const drops[] = {&l.polls, &l.thread}; /* first to last */
	char header[LINE_MAX_CHARS];
	for (size_t i = 0;; i++) {
		worker_header(header, sizeof header, &l);
		l.now_width = width - ((int)strlen(header) - (int)strlen("NOW"));
		if (l.now_width >= NOW_WIDTH_WANTED || i == sizeof drops / sizeof drops[0])
			return l;
		*drops[i] = false;
	}
}

/*
 * What a thread does now, in words: its task's site, its wait; the site cut (its function name
 * first, site_text) so that it and how long fit in `width` characters, if not 0.
 */
static void worker_now(char *out, size_t size, const struct live_snapshot *s,
		       const struct thread_view *w, int width)
{
	char how_long[16], wait[LIVE_SHOWN(TP_LIVE_SITE_TEXT) + 128] = "";
	live_format_ns(how_long, sizeof how_long, w->state_for_ns);
	/* the wait it is in; where the line is too narrow, without its site, then left out (the
	 * row's colour tells a wait blocks its worker) */
	for (int words = w->wait_kind != 0 ? 2 : 0; words > 0; words--) {
		char wait_for[16];
		live_format_ns(wait_for, sizeof wait_for, w->wait_for_ns);
		bool at = words == 2 && w->wait_site[0] != '\0';
		snprintf(wait, sizeof wait, "%s in a %s wait%s%.*s for %s%s",
			 w->state == TP_LIVE_POLLING ? "," : "", live_wait_kind_name(w->wait_kind),
			 at ? " at " : "", at ? (int)sizeof w->wait_site - 1 : 0, w->wait_site,
			 wait_for, w->wait_task != 0 ? " (blocking its worker)" : "");
		int others = w->state == TP_LIVE_POLLING
				     ? (int)strlen("polling  for ") + (int)strlen(how_long) +
					       readable_width(live_site(s, w->site) != NULL
								      ? live_site(s, w->site)->text
								      : "a task")
				     : (int)strlen("between tasks for ") + (int)strlen(how_long);
		if (width <= 0 || others + (int)strlen(wait) <= width)
			break;
		wait[0] = '\0';
	}
	const struct site_view *site = live_site(s, w->site);
	if (w->ended) {
		snprintf(out, size, "ended%s", wait);
	} else if (w->state == TP_LIVE_POLLING) {
		char text[sizeof site->text];
		snprintf(text, sizeof text, "%s", site != NULL ? site->text : "a task");
		int rest = (int)(strlen("polling  for ") + strlen(how_long) + strlen(wait));
		int least = readable_width(text);
		if (width > 0)
			site_text(text, sizeof text, site != NULL ? site->text : "a task",
				  width - rest > least ? width - rest : least);
		/* cut where it is long (escaped bytes), as the line that holds it is */
		snprintf(out, size, "polling %.*s for %s%s", (int)(size / 2), text, how_long, wait);
	} else if (w->state == TP_LIVE_PARKED) {
		snprintf(out, size, "parked for %s%s", how_long, wait);
	} else {
		snprintf(out, size, "%s%s", w->worker ? "between tasks" : "running", wait);
	}
}

static void percent(char *out, size_t size, double share, bool shown)
{
	if (shown)
		snprintf(out, size, "%.0f%%", share * 100);
	else
		snprintf(out, size, "-");
}

static void worker_line(char *out, size_t size, const struct live_snapshot *s,
			const struct thread_view *w, const struct worker_layout *l)
{
	char tid[16], busy[8], spin[8], parked[8], polls[16], now[LINE_MAX_CHARS / 2];
	snprintf(tid, sizeof tid, "%u", w->tid);
	percent(busy, sizeof busy, w->busy_share, true);
	percent(spin, sizeof spin, w->spinning_share, w->was_worker);
	percent(parked, sizeof parked, w->parked_share, w->was_worker || w->parked_ns > 0);
	count_text(polls, sizeof polls, w->polls);
	worker_now(now, sizeof now, s, w, l->now_width);
	worker_columns_line(out, size, l, tid, w->name, busy, spin, parked, polls, now);
}

/*
 * The threads table of a program without tasks (live_without_tasks): each thread by what it did,
 * its running time, its waits' time, count and kinds, its longest wait. On a narrow terminal
 * WAITS goes, then NOW, then THREAD is cut to THREAD_WIDTH (a start routine's name without its
 * place), then KINDS goes, so that the longest wait has LONGEST_WIDTH_WANTED.
 */
struct waiter_layout {
	bool waits, now, kinds;
	int thread_width, kinds_width;
	int longest_width; /* 0: unlimited */
};
#define LONGEST_WIDTH_WANTED 36 /* "21.2ms at function (file.c:63)" */
#define STATE_WIDTH          7  /* "running", "waiting", "ended" */
#define WAITS_WIDTH          6
#define KINDS_WIDTH_MAX      40

/*
 * The kinds a thread waited in, most time first: "mutex", or with their shares of its time
 * waited when several ("mutex 90%, futex 10%"); "-" when it has not waited.
 */
static void waiter_kinds(char *out, size_t size, const struct thread_view *w)
{
	unsigned kinds[TP_LIVE_WAIT_KINDS], n = 0;
	for (unsigned k = 1; k < TP_LIVE_WAIT_KINDS; k++)
		if (w->waited_ns[k] > 0)
			kinds[n++] = k;
	for (unsigned i = 1; i < n; i++) /* by time, most first: a handful */
		for (unsigned j = i; j > 0 && w->waited_ns[kinds[j]] > w->waited_ns[kinds[j - 1]];
		     j--) {
			unsigned k = kinds[j];
			kinds[j] = kinds[j - 1];
			kinds[j - 1] = k;
		}
	size_t used = 0;
	snprintf(out, size, "%s", n == 0 ? "-" : "");
	for (unsigned i = 0; i < n && used < size; i++) {
		if (n == 1) {
			snprintf(out, size, "%s", live_wait_kind_name(kinds[i]));
			break;
		}
		used += (size_t)snprintf(out + used, size - used, "%s%s %.0f%%", i > 0 ? ", " : "",
					 live_wait_kind_name(kinds[i]),
					 100.0 * (double)w->waited_ns[kinds[i]] /
						 (double)w->waited_total_ns);
	}
}

/* Its longest wait in words, "21.2ms at function (file:line)" (the kind too when it waited in
 * several), the site cut to `width` characters if not 0; "-" when it has not waited. */
static void waiter_longest(char *out, size_t size, const struct thread_view *w, int width)
{
	if (w->longest_wait_ns == 0 && w->waits == 0 && w->wait_kind == 0) {
		snprintf(out, size, "-");
		return;
	}
	unsigned kinds = 0;
	for (unsigned k = 1; k < TP_LIVE_WAIT_KINDS; k++)
		kinds += w->waited_ns[k] > 0;
	char how_long[16], kind[24] = "", head[48], site[sizeof w->longest_wait_site];
	live_format_ns(how_long, sizeof how_long, w->longest_wait_ns);
	if (kinds > 1)
		snprintf(kind, sizeof kind, " %s", live_wait_kind_name(w->longest_wait_kind));
	snprintf(head, sizeof head, "%s%s%s", how_long, kind,
		 w->longest_wait_site[0] != '\0' ? " at " : "");
	int room = width - (int)strlen(head), least = readable_width(w->longest_wait_site);
	site_text(site, sizeof site, w->longest_wait_site,
		  width <= 0     ? (int)sizeof site
		  : room > least ? room
				 : least);
	snprintf(out, size, "%s%.*s", head, (int)(size / 2), site);
}

/*
 * A thread's name in `width` characters: one named by its start routine ("consumer (file.c:36)")
 * by the routine alone where the whole does not fit, else cut as a site's text.
 */
static void thread_text(char *out, size_t size, const char *name, int width)
{
	const char *place = strstr(name, " (");
	if ((int)strlen(name) > width && place != NULL && place - name <= width)
		snprintf(out, size, "%.*s", (int)(place - name), name);
	else
		site_text(out, size, name, width);
}

static void waiter_columns_line(char *out, size_t size, const struct waiter_layout *l,
				const char *tid, const char *thread, const char *now,
				const char *running, const char *waited, const char *waits,
				const char *kinds, const char *longest)
{
	char name[LINE_MAX_CHARS];
	thread_text(name, sizeof name, thread, l->thread_width);
	int used = snprintf(out, size, "%-*s %-*s", TID_WIDTH, tid, l->thread_width, name);
	if (l->now && used >= 0 && (size_t)used < size)
		used += snprintf(out + used, size - (size_t)used, " %-*s", STATE_WIDTH, now);
	if (used >= 0 && (size_t)used < size)
		used += snprintf(out + used, size - (size_t)used, " %8s %8s", running, waited);
	if (l->waits && used >= 0 && (size_t)used < size)
		used += snprintf(out + used, size - (size_t)used, " %*s", WAITS_WIDTH, waits);
	if (l->kinds && used >= 0 && (size_t)used < size)
		used += snprintf(out + used, size - (size_t)used, "  %-*s", l->kinds_width, kinds);
	if (used >= 0 && (size_t)used < size)
		snprintf(out + used, size - (size_t)used, "  %s", longest);
}

static void waiter_header(char *out, size_t size, const struct waiter_layout *l)
{
	waiter_columns_line(out, size, l, "TID", "THREAD", "NOW", "RUNNING", "WAITED", "WAITS",
			    "KINDS", "LONGEST WAIT");
}

/* Every column, THREAD and KINDS as wide as their longest text (plain snapshots). */
static struct waiter_layout every_waiter_column(const struct live_snapshot *s)
{
	struct waiter_layout l = {true, true, true, THREAD_WIDTH, (int)strlen("KINDS"), 0};
	for (unsigned i = 0; i < s->n_threads; i++) {
		char kinds[128];
		waiter_kinds(kinds, sizeof kinds, &s->threads[i]);
		if ((int)strlen(kinds) > l.kinds_width)
			l.kinds_width = (int)strlen(kinds);
		if ((int)strlen(s->threads[i].name) > l.thread_width)
			l.thread_width = (int)strlen(s->threads[i].name);
	}
	return l;
}

/* The layout for a terminal `width` columns wide. */
static struct waiter_layout waiter_layout(const struct live_snapshot *s, int width)
{
	struct waiter_layout l = every_waiter_column(s);
	if (l.thread_width > THREAD_WIDTH_MAX)
		l.thread_width = THREAD_WIDTH_MAX;
	if (l.kinds_width > KINDS_WIDTH_MAX)
		l.kinds_width = KINDS_WIDTH_MAX;
	char header[LINE_MAX_CHARS];
	for (int step = 0;; step++) {
		waiter_header(header, sizeof header, &l);
		l.longest_width = width - ((int)strlen(header) - (int)strlen("LONGEST WAIT"));
		if (l.longest_width >= LONGEST_WIDTH_WANTED || step == 4)
			return l;
		if (step == 0)
			l.waits = false;
		else if (step == 1)
			l.now = false;
		else if (step == 2 && l.thread_width > THREAD_WIDTH)
			l.thread_width = THREAD_WIDTH;
		else if (step == 3)
			l.kinds = false;
	}
}

/* A thread's row; `exited`: the process has (its threads ended with it). */
static void waiter_line(char *out, size_t size, const struct thread_view *w,
			const struct waiter_layout *l, bool exited)
{
	char tid[16], running[16], waited[16], waits[16], kinds[128], longest[LINE_MAX_CHARS / 2];
	snprintf(tid, sizeof tid, "%u", w->tid);
	live_format_ns(running, sizeof running, w->running_ns);
	live_format_ns(waited, sizeof waited, w->waited_total_ns);
	count_text(waits, sizeof waits, w->waits + (w->wait_kind != 0));
	waiter_kinds(kinds, sizeof kinds, w);
	if ((int)strlen(kinds) > l->kinds_width)
		kinds[l->kinds_width] = '\0';
	waiter_longest(longest, sizeof longest, w, l->longest_width);
	const char *now = w->ended || exited ? "ended" : w->wait_kind != 0 ? "waiting" : "running";
	waiter_columns_line(out, size, l, tid, w->name, now, running, waited, waits, kinds,
			    longest);
}

/* The title; `program` is the pid asked for, whose run the process shown may be a child of. */
/*
 * The title: whose figures, what the program is (the header's notes), how long, the task counts
 * and the long-poll threshold. Where it is wider than `width`, if not 0, parts are left out:
 * the notes first, then "taskprobe top:" and the threshold.
 */
static void title_line(char *out, size_t size, const struct live_snapshot *s, bool gone,
		       pid_t program, int width)
{
	char elapsed[16], long_poll[16], whose[48] = "", notes[64] = "";
	live_format_ns(elapsed, sizeof elapsed, s->elapsed_ns);
	live_format_ns(long_poll, sizeof long_poll, s->header.long_poll_ns);
	if (s->header.pid != (uint32_t)program)
		snprintf(whose, sizeof whose, ", started by %d's run", (int)program);
	if (s->header.notes & TP_LIVE_NOTE_LIBGOMP_ON_LIBOMP)
		snprintf(notes, sizeof notes, " (libgomp program on libomp)");
	const char *state = s->header.exited ? "exited after"
			    : gone           ? "gone (killed?) after"
					     : "running";
	int len = 0;
	for (int with_notes = notes[0] != '\0'; with_notes >= 0; with_notes--) {
		len = snprintf(out, size,
			       "taskprobe top: %s (pid %u%s)%s %s %s | tasks %llu spawned, %llu "
			       "alive, %llu done | long poll >= %s",
			       s->comm, s->header.pid, whose, with_notes ? notes : "", state,
			       elapsed, (unsigned long long)s->spawned,
			       (unsigned long long)s->alive, (unsigned long long)s->done,
			       long_poll);
		if (width <= 0 || len <= width)
			return;
	}
	snprintf(out, size, "%s (pid %u%s) %s %s | %llu spawned, %llu alive, %llu done", s->comm,
		 s->header.pid, whose, state, elapsed, (unsigned long long)s->spawned,
		 (unsigned long long)s->alive, (unsigned long long)s->done);
}

/* What the statistics could not count, in words ("; " between two), or "". */
static void losses_line(char *out, size_t size, const struct live_snapshot *s)
{
	const struct tp_live_header *h = &s->header;
	char threads_beyond[64];
	snprintf(threads_beyond, sizeof threads_beyond, "threads beyond %d at once not counted",
		 TP_LIVE_THREADS);
	char waiting_beyond[96];
	snprintf(waiting_beyond, sizeof waiting_beyond,
		 "threads that only waited not listed (beyond %d at once)",
		 TP_LIVE_WAITING_THREADS);
	const struct {
		uint64_t count;
		const char *what;
	} losses[] = {
		{h->threads_uncounted, threads_beyond},
		{h->threads_without_space, "threads not counted (no space left for the "
					   "statistics' file)"},
		{h->waiting_threads_unlisted, waiting_beyond},
		{h->tasks_untracked, "tasks (too many alive at once) left out"},
		{h->events_dropped, "signal handlers' events not counted"},
	};
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < sizeof losses / sizeof losses[0] && used < size; i++)
		if (losses[i].count > 0)
			used += (size_t)snprintf(
				out + used, size - used, "%s%llu %s", used > 0 ? "; " : "",
				(unsigned long long)losses[i].count, losses[i].what);
}

/* The waits table: per call site of the program's waits (any thread's), most time first. */
static const char WAITS_TITLE[] = "WAITS BY CALL SITE (every thread's; most time waited first)";

static void wait_columns_line(char *out, size_t size, const char *site, int site_width,
			      const char *kind, const char *waits, const char *total,
			      const char *longest, const char *threads, const char *now)
{
	int n = snprintf(out, size, "%-*s", site_width, site);
	if (n >= 0 && (size_t)n < size)
		snprintf(out + n, size - (size_t)n, "  %-9s %8s %8s %8s %7s %5s", kind, waits,
			 total, longest, threads, now);
}

static void wait_header(char *out, size_t size, int site_width)
{
	wait_columns_line(out, size, "SITE", site_width, "KIND", "WAITS", "TOTAL", "LONGEST",
			  "THREADS", "NOW");
}

static void wait_line(char *out, size_t size, const struct wait_view *w, int site_width)
{
	char text[sizeof w->text], waits[16], total[16], longest[16], threads[16], now[16];
	site_text(text, sizeof text, w->text, site_width);
	count_text(waits, sizeof waits, w->waits);
	live_format_ns(total, sizeof total, w->total_ns);
	live_format_ns(longest, sizeof longest, w->longest_ns);
	snprintf(threads, sizeof threads, "%u", w->threads);
	count_text(now, sizeof now, w->waiting);
	wait_columns_line(out, size, text, site_width, live_wait_kind_name(w->kind), waits, total,
			  longest, threads, now);
}

/* The widest wait site's text, at least the header's. */
static int widest_wait_site(const struct live_snapshot *s)
{
	int w = (int)strlen("SITE");
	for (unsigned i = 0; i < s->n_waits; i++)
		if ((int)strlen(s->waits[i].text) > w)
			w = (int)strlen(s->waits[i].text);
	return w;
}

/* What the console says when it has nothing to show: why, and what to set. */
static const char NOTHING_YET[] =
	"(no task spawned, and no thread waited in an interposed wait yet: tasks come from an "
	"executor taskprobe adapts (OpenMP); TASKPROBE_WORKERS=GLOB makes named threads workers; "
	"joins, sleeps, select and read are not waits here)";
static const char NO_TASK[] = "(no task spawned: the program's waits follow, by call site)";

static int widest_site(const struct live_snapshot *s)
{
	int w = (int)strlen("SITE");
	for (unsigned i = 0; i < s->n_sites; i++)
		if ((int)strlen(s->sites[i].text) > w)
			w = (int)strlen(s->sites[i].text);
	return w;
}

/* The table of parallel regions (their load balance), after a blank line; none without one. */
static void print_regions(const struct live_snapshot *s, int width)
{
	char line[LINE_MAX_CHARS];
	bool heading = false;
	for (unsigned i = 0; i < s->n_sites; i++) {
		if (!live_format_region(line, sizeof line, &s->sites[i], width))
			continue;
		if (!heading) {
			char header[LINE_MAX_CHARS];
			live_format_region_header(header, sizeof header, width);
			printf("\n%s\n", header);
			heading = true;
		}
		printf("%s\n", line);
	}
}

/* The table of sync sites (where tasks waited), after a blank line; none without one. */
static void print_syncs(const struct live_snapshot *s)
{
	char line[LINE_MAX_CHARS];
	int width = (int)strlen("SYNC SITE");
	for (unsigned i = 0; i < s->n_syncs; i++)
		if ((int)strlen(s->syncs[i].text) > width)
			width = (int)strlen(s->syncs[i].text);
	for (unsigned i = 0; i < s->n_syncs; i++) {
		if (i == 0) {
			live_format_sync_header(line, sizeof line, width);
			printf("\n%s\n", line);
		}
		live_format_sync(line, sizeof line, s, &s->syncs[i], width);
		printf("%s\n", line);
	}
}

/* One snapshot as plain text. */
static void print_snapshot(const struct live_snapshot *s, bool gone, pid_t program)
{
	char line[LINE_MAX_CHARS];
	int width = widest_site(s);
	title_line(line, sizeof line, s, gone, program, 0);
	printf("%s\n", line);
	live_format_figures(line, sizeof line, s, 0);
	printf("%s\n", line);
	for (int l = 0; l < 2; l++) {
		live_format_factors(line, sizeof line, s, l);
		if (line[0] != '\0')
			printf("%s\n", line);
	}
	live_format_roi(line, sizeof line, s);
	if (line[0] != '\0')
		printf("%s\n", line);
	printf("\n");
	site_header(line, sizeof line, width, ALL_COLUMNS);
	printf("%s\n", line);
	for (unsigned i = 0; i < s->n_sites; i++) {
		site_line(line, sizeof line, s, &s->sites[i], width, ALL_COLUMNS, 0);
		printf("%s\n", line);
	}
	if (s->n_sites == 0)
		printf("%s\n", s->n_waits == 0 ? NOTHING_YET : NO_TASK);
	for (unsigned i = 0; i < s->n_sites; i++) {
		live_format_too_small(line, sizeof line, &s->sites[i]);
		if (line[0] != '\0')
			printf("%s\n", line);
	}
	print_regions(s, width);
	print_syncs(s);
	printf("\n");
	if (live_without_tasks(s)) {
		struct waiter_layout all = every_waiter_column(s);
		waiter_header(line, sizeof line, &all);
		printf("%s\n", line);
		for (unsigned i = 0; i < s->n_threads; i++) {
			waiter_line(line, sizeof line, &s->threads[i], &all, s->header.exited);
			printf("%s\n", line);
		}
	} else {
		struct worker_layout all = every_worker_column(s);
		worker_header(line, sizeof line, &all);
		printf("%s\n", line);
		for (unsigned i = 0; i < s->n_threads; i++) {
			worker_line(line, sizeof line, s, &s->threads[i], &all);
			printf("%s\n", line);
		}
	}
	if (s->n_waits > 0) { /* below the threads, as on the screen */
		int wait_width = widest_wait_site(s);
		printf("\n%s\n", WAITS_TITLE);
		wait_header(line, sizeof line, wait_width);
		printf("%s\n", line);
		for (unsigned i = 0; i < s->n_waits; i++) {
			wait_line(line, sizeof line, &s->waits[i], wait_width);
			printf("%s\n", line);
		}
	}
	losses_line(line, sizeof line, s);
	if (line[0] != '\0')
		printf("\nnot counted: %s\n", line);
	fflush(stdout);
}

/* Plain-text snapshots: one (--once), or one an interval until the program ends. */
static int run_plain(struct live_file *f, const struct options *o)
{
	static struct live_snapshot snapshots[2];
	int current = 0;
	struct live_snapshot *previous = NULL;
	char why[1024];
	const struct follow w = following(o);
	for (;;) {
		bool gone = live_process_gone(f->pid);
		struct live_snapshot *s = &snapshots[current];
		if (!live_snapshot(f, previous, s, why, sizeof why)) {
			fflush(stdout);
			fprintf(stderr, "taskprobe-top: %s\n", why);
			return 1;
		}
		bool ended = s->header.exited || gone;
		/* the run's process has no task: another of the run's (follow_child) */
		if (follow_child(f, &w, s, false)) {
			previous = NULL;
			continue;
		}
		live_sort_sites(s, o->sort, o->ascending);
		/* an exec's next image: followed, within a moment */
		if (ended && !o->once && follow_exec(f, &w, FOLLOW_EXEC_MS)) {
			previous = NULL;
			continue;
		}
		print_snapshot(s, gone, o->pid);
		if (o->once)
			return 0;
		if (ended) { /* its last figures are out: the run's next program, or the run's end */
			if (!follow_next_process(f, &w, s))
				return 0;
			printf("\n");
			previous = NULL;
			continue;
		}
		printf("\n");
		previous = s;
		current = 1 - current;
		sleep_ms(o->interval_ms);
	}
}

/* --- the full-screen view --- */

enum colour_pair { PAIR_TITLE = 1, PAIR_HEADER, PAIR_SELECTED, PAIR_WARNING, PAIR_FOOTER };

struct screen {
	const struct options *options;
	struct follow follow;
	struct live_file *file;
	struct live_snapshot snapshots[2];
	int current;
	bool have_previous;
	bool selected; /* a site was selected (else the first is, once there is one) */
	enum site_column sort;
	bool ascending;
	/* the selected site's row, or wait site's entry: kept as the order changes */
	uint32_t selected_row, selected_wait;
	bool wait_selected; /* a wait site is, below the task sites */
	int selected_index; /* the task sites', then the wait sites' (n_sites + i) */
	int first_site;     /* the first site row shown */
	bool detail;
	bool help;   /* the keys' help shown, over the tables or the detail */
	bool losses; /* the view of where the loss is: regions' balance, sync sites (p) */
	int detail_scroll;
	bool colours;
	bool gone;
};

static attr_t style(const struct screen *sc, enum colour_pair pair)
{
	if (sc->colours)
		return COLOR_PAIR(pair) |
		       (pair == PAIR_WARNING || pair == PAIR_HEADER ? A_BOLD : 0);
	switch (pair) { /* no colours: attributes every terminal with addressing has */
	case PAIR_TITLE:
	case PAIR_SELECTED:
	case PAIR_FOOTER:
		return A_REVERSE;
	case PAIR_HEADER:
		return A_UNDERLINE;
	case PAIR_WARNING:
		return A_BOLD;
	}
	return A_NORMAL;
}

/*
 * How much of `text` a line of `width` columns shows: all that fits, or where wider, up to the
 * last space before the edge, so that no figure or word is cut (the layouts leave out whole
 * columns first; this is for what they could not).
 */
static int shown_length(const char *text, int width)
{
	int len = (int)strlen(text);
	if (len <= width || text[width] == ' ')
		return len <= width ? len : width;
	int cut = width;
	while (cut > 0 && text[cut - 1] != ' ')
		cut--;
	while (cut > 0 && (text[cut - 1] == ' ' || text[cut - 1] == ','))
		cut--;
	return cut > 0 ? cut : width; /* one word wider than the line: its start */
}

static void put_line(int y, const char *text, attr_t attributes, bool fill)
{
	if (y < 0 || y >= LINES)
		return;
	move(y, 0);
	clrtoeol();
	attron(attributes);
	int len = shown_length(text, COLS);
	addnstr(text, len);
	if (fill)
		for (int x = len; x < COLS; x++)
			addch(' ');
	attroff(attributes);
}

/*
 * The screen's first row below the title, the figures, the two lines of the POP factors and the
 * sort order (or what is lost).
 */
#define TABLES_TOP 5

static const char *FOOTER_TABLES =
	"q quit  ? help  Up/Down select  Enter detail  < > sort  r reverse  space refresh";
static const char *FOOTER_DETAIL =
	"q quit  ? help  Esc/Left/Backspace back  Up/Down scroll  space refresh";
static const char *FOOTER_HELP = "q quit  Esc/Left/Backspace/? back";
static const char *FOOTER_LOSSES = "q quit  ? help  p/Esc/Left/Backspace back  space refresh";

/* The help's lines (? or h): every key, as taskprobe-top(1) says them. */
static const char *const HELP[] = {
	"KEYS",
	"  q, Ctrl-C              quit the console (the program runs on)",
	"  ?, h                   this help; again (or Esc) to leave it",
	"  Up/Down, k/j           select a site; in its detail, scroll",
	"  Enter                  a site's detail: its figures, histograms and stacks",
	"  p                      where the loss is: parallel regions' load balance, sync sites",
	"  Esc, Left, Backspace   back from the detail (or this help) to the tables",
	"  < >                    sort by the column before, after",
	"  r                      reverse the order",
	"  space, R               refresh now",
};

static const struct live_snapshot *shown(const struct screen *sc)
{
	return &sc->snapshots[sc->current];
}

/* The selected site's identity from selected_index: a task site's row, or a wait site's entry. */
static void select_index(struct screen *sc)
{
	const struct live_snapshot *s = shown(sc);
	unsigned i = (unsigned)sc->selected_index;
	if (i < s->n_sites) {
		sc->wait_selected = false;
		sc->selected_row = s->sites[i].row;
	} else if (i - s->n_sites < s->n_waits) {
		sc->wait_selected = true;
		sc->selected_wait = s->waits[i - s->n_sites].entry;
	}
}

/* A new snapshot shown; false (with `why`) when the file can no longer be read. */
static bool take_snapshot(struct screen *sc, char *why, size_t why_size)
{
	int next = sc->have_previous ? 1 - sc->current : sc->current;
	const struct live_snapshot *previous = sc->have_previous ? shown(sc) : NULL;
	sc->gone = live_process_gone(sc->file->pid);
	if (!live_snapshot(sc->file, previous, &sc->snapshots[next], why, why_size))
		return false;
	if (follow_child(sc->file, &sc->follow, &sc->snapshots[next], false)) {
		sc->gone = live_process_gone(sc->file->pid);
		previous = NULL;
		if (!live_snapshot(sc->file, NULL, &sc->snapshots[next], why, why_size))
			return false;
	}
	live_sort_sites(&sc->snapshots[next], sc->sort, sc->ascending);
	sc->current = next;
	sc->have_previous = true;
	/* the selection follows its site */
	const struct live_snapshot *s = shown(sc);
	if (!sc->selected && s->n_sites + s->n_waits > 0) {
		sc->selected_index = 0;
		select_index(sc);
		sc->selected = true;
	}
	sc->selected_index = 0;
	for (unsigned i = 0; i < s->n_sites; i++)
		if (!sc->wait_selected && s->sites[i].row == sc->selected_row)
			sc->selected_index = (int)i;
	for (unsigned i = 0; i < s->n_waits; i++)
		if (sc->wait_selected && s->waits[i].entry == sc->selected_wait)
			sc->selected_index = (int)(s->n_sites + i);
	select_index(sc);
	return true;
}

static void draw_tables(struct screen *sc)
{
	const struct live_snapshot *s = shown(sc);
	char line[LINE_MAX_CHARS];
	int y = TABLES_TOP;
	/* the columns that fit beside a readable site and the warnings; the site takes the rest */
	int site_wanted = widest_site(s) < SITE_WIDTH_WANTED ? widest_site(s) : SITE_WIDTH_WANTED;
	column_set shown = ALL_COLUMNS;
	for (size_t i = 0; i < sizeof narrow_terminal_drops / sizeof narrow_terminal_drops[0] &&
			   site_wanted + columns_width(shown) + 2 + WARNINGS_ROOM > COLS;
	     i++)
		shown &= ~(1u << narrow_terminal_drops[i]);
	int site_width = COLS - columns_width(shown) - 2 - WARNINGS_ROOM;
	if (site_width < SITE_WIDTH_MIN)
		site_width = SITE_WIDTH_MIN;
	if (site_width > widest_site(s))
		site_width = widest_site(s);
	site_header(line, sizeof line, site_width, shown);
	put_line(y++, line, style(sc, PAIR_HEADER), true);

	/* sites get the rows the workers and the waits leave, at least a third */
	int bottom = LINES - 1; /* the footer's row */
	int worker_rows = (int)s->n_threads + 2;
	int wait_rows = s->n_waits > 0 ? (int)s->n_waits + 3 : 0; /* a blank, a title, a header */
	int site_rows = bottom - y - worker_rows - wait_rows;
	if (site_rows < (bottom - y) / 3)
		site_rows = (bottom - y) / 3;
	if (site_rows < 1)
		site_rows = 1;
	if (sc->selected_index < sc->first_site)
		sc->first_site = sc->selected_index;
	if (sc->selected_index >= sc->first_site + site_rows)
		sc->first_site = sc->selected_index - site_rows + 1;
	for (int i = 0; i < site_rows; i++) {
		int k = sc->first_site + i;
		if (k >= (int)s->n_sites) {
			put_line(y++,
				 s->n_sites == 0 && i == 0
					 ? (s->n_waits == 0 ? NOTHING_YET : NO_TASK)
					 : "",
				 0, false);
			continue;
		}
		const struct site_view *v = &s->sites[k];
		site_line(line, sizeof line, s, v, site_width, shown, COLS);
		attr_t a = k == sc->selected_index ? style(sc, PAIR_SELECTED)
			   : v->warnings != 0      ? style(sc, PAIR_WARNING)
						   : A_NORMAL;
		put_line(y++, line, a, k == sc->selected_index);
	}
	put_line(y++, "", 0, false);
	if (live_without_tasks(s)) {
		struct waiter_layout waiters = waiter_layout(s, COLS);
		waiter_header(line, sizeof line, &waiters);
		put_line(y++, line, style(sc, PAIR_HEADER), true);
		for (unsigned i = 0; i < s->n_threads && y < bottom; i++) {
			waiter_line(line, sizeof line, &s->threads[i], &waiters, s->header.exited);
			put_line(y++, line, 0, false);
		}
	} else {
		struct worker_layout workers = worker_layout(s, COLS);
		worker_header(line, sizeof line, &workers);
		put_line(y++, line, style(sc, PAIR_HEADER), true);
		for (unsigned i = 0; i < s->n_threads && y < bottom; i++) {
			worker_line(line, sizeof line, s, &s->threads[i], &workers);
			put_line(y++, line,
				 s->threads[i].wait_task != 0 ? style(sc, PAIR_WARNING) : 0, false);
		}
	}
	/* the waits by call site, in the rows left */
	if (s->n_waits > 0 && y + 3 < bottom) {
		/* the site in the room the figures leave, never less than readable_width's (the
		 * figures at the edge then left out whole, put_line) */
		char header[LINE_MAX_CHARS];
		wait_header(header, sizeof header, 0);
		int wait_width = widest_wait_site(s),
		    room = COLS - ((int)strlen(header) - (int)strlen("SITE"));
		int readable = 0;
		for (unsigned i = 0; i < s->n_waits; i++)
			if (readable_width(s->waits[i].text) > readable)
				readable = readable_width(s->waits[i].text);
		if (wait_width > room)
			wait_width = room > readable ? room : readable;
		put_line(y++, "", 0, false);
		put_line(y++, WAITS_TITLE, style(sc, PAIR_HEADER), true);
		wait_header(line, sizeof line, wait_width);
		put_line(y++, line, style(sc, PAIR_HEADER), true);
		for (unsigned i = 0; i < s->n_waits && y < bottom; i++) {
			bool selected = (int)(s->n_sites + i) == sc->selected_index;
			wait_line(line, sizeof line, &s->waits[i], wait_width);
			put_line(y++, line, selected ? style(sc, PAIR_SELECTED) : 0, selected);
		}
	}
	while (y < bottom)
		put_line(y++, "", 0, false);
}

/* A histogram's lines: "  1.0us ..   2.0us  ####   12", from its first to its last bucket used. */
static int draw_histogram(struct screen *sc, int y, int skip, const char *title,
			  const uint64_t *histogram)
{
	char line[LINE_MAX_CHARS];
	int first = -1, last = -1;
	uint64_t most = 0;
	for (int b = 0; b < TP_LIVE_BUCKETS; b++) {
		if (histogram[b] == 0)
			continue;
		if (first < 0)
			first = b;
		last = b;
		if (histogram[b] > most)
			most = histogram[b];
	}
	int shown_lines = 0;
#define DETAIL_LINE(text, attributes)                                                              \
	do {                                                                                       \
		if (shown_lines++ >= skip)                                                         \
			put_line(y++, text, attributes, false);                                    \
	} while (0)
	DETAIL_LINE(title, style(sc, PAIR_HEADER));
	if (first < 0)
		DETAIL_LINE("  (none yet)", 0);
	for (int b = first; b >= 0 && b <= last; b++) {
		char low[16], high[16], bar[HISTOGRAM_BAR + 1];
		live_format_ns(low, sizeof low, b == 0 ? 0 : 1ull << b);
		live_format_ns(high, sizeof high, 2ull << b);
		uint64_t scaled = (histogram[b] * HISTOGRAM_BAR + most - 1) / most;
		int n = scaled < HISTOGRAM_BAR ? (int)scaled : HISTOGRAM_BAR;
		memset(bar, '#', (size_t)n);
		bar[n] = '\0';
		snprintf(line, sizeof line, "  %7s .. %7s  %-*s %llu", low, high, HISTOGRAM_BAR,
			 bar, (unsigned long long)histogram[b]);
		DETAIL_LINE(line, 0);
	}
	DETAIL_LINE("", 0);
#undef DETAIL_LINE
	return shown_lines;
}

/*
 * Whether the snapshot's stack `i` is of site `row`, and the first with its text: stacks that
 * differ only in return addresses that name the same lines (an unrolled loop's calls) are shown
 * as one.
 */
static bool stack_shown_first(const struct live_snapshot *s, unsigned i, uint32_t row)
{
	if (s->stacks[i].row != row)
		return false;
	for (unsigned k = 0; k < i; k++)
		if (s->stacks[k].row == row && strcmp(s->stacks[k].text, s->stacks[i].text) == 0)
			return false;
	return true;
}

/* The samples of stack `i` and of every later one of its site with its text. */
static unsigned stack_samples(const struct live_snapshot *s, unsigned i)
{
	unsigned n = 0;
	for (unsigned k = i; k < s->n_stacks; k++)
		if (s->stacks[k].row == s->stacks[i].row &&
		    strcmp(s->stacks[k].text, s->stacks[i].text) == 0)
			n += s->stacks[k].samples;
	return n;
}

/*
 * The stacks of `row` (a site's row, or a wait site's entry) from line `y`, the first `skip`
 * lines scrolled away, under `title` (`none` when it has none); returns the line below them.
 */
static int draw_stacks(struct screen *sc, int y, int skip, uint32_t row, const char *title,
		       const char *none)
{
	const struct live_snapshot *s = shown(sc);
	int bottom = LINES - 1, shown_lines = 0;
	char line[LINE_MAX_CHARS];
#define STACK_LINE(text, attributes)                                                               \
	do {                                                                                       \
		if (shown_lines++ >= skip && y < bottom)                                           \
			put_line(y++, text, attributes, false);                                    \
	} while (0)
	STACK_LINE(title, style(sc, PAIR_HEADER));
	bool any = false;
	for (unsigned i = 0; i < s->n_stacks; i++) {
		if (!stack_shown_first(s, i, row))
			continue;
		any = true;
		snprintf(line, sizeof line, "  %u samples:", stack_samples(s, i));
		STACK_LINE(line, A_BOLD);
		const char *frame = s->stacks[i].text;
		while (*frame != '\0') {
			const char *end = strchr(frame, '\n');
			int len = end != NULL ? (int)(end - frame) : (int)strlen(frame);
			snprintf(line, sizeof line, "    %.*s", len, frame);
			STACK_LINE(line, 0);
			frame += len + (end != NULL);
		}
	}
	if (!any)
		STACK_LINE(none, 0);
#undef STACK_LINE
	return y;
}

/* The detail of the selected wait site: its figures, then its sampled stacks. */
static void draw_wait_detail(struct screen *sc)
{
	const struct live_snapshot *s = shown(sc);
	const struct wait_view *w = NULL;
	for (unsigned i = 0; i < s->n_waits; i++)
		if (s->waits[i].entry == sc->selected_wait)
			w = &s->waits[i];
	int y = TABLES_TOP;
	if (w == NULL) {
		put_line(y, "(no site selected)", 0, false);
		return;
	}
	char line[LINE_MAX_CHARS], total[16], longest[16];
	live_format_ns(total, sizeof total, w->total_ns);
	live_format_ns(longest, sizeof longest, w->longest_ns);
	snprintf(line, sizeof line, "%.*s  (%s waits)", (int)sizeof line - 32, w->text,
		 live_wait_kind_name(w->kind));
	put_line(y++, line, A_BOLD, false);
	snprintf(line, sizeof line,
		 "waits %llu, %s in all, longest %s; %u thread%s, %llu waiting now",
		 (unsigned long long)w->waits, total, longest, w->threads,
		 w->threads == 1 ? "" : "s", (unsigned long long)w->waiting);
	put_line(y++, line, 0, false);
	put_line(y++, "", 0, false);
	y = draw_stacks(sc, y, sc->detail_scroll, w->entry,
			"WAIT STACKS (sampled: each thread's first " TP_LIVE_STRING(
				TP_LIVE_STACK_SAMPLE_FIRST) " waits here, then 1 "
							    "in " TP_LIVE_STRING(
								    TP_LIVE_STACK_SAMPLE_EVERY) ")",
			"  (none: stacks are off (TASKPROBE_STACKS=0), or none sampled yet)");
	if (sc->detail_scroll > 0 && y < LINES - 2)
		sc->detail_scroll--; /* scrolled past the end: come back */
}

static void draw_detail(struct screen *sc)
{
	const struct live_snapshot *s = shown(sc);
	const struct site_view *v = live_site(s, sc->selected_row);
	int y = TABLES_TOP, bottom = LINES - 1;
	char line[LINE_MAX_CHARS];
	for (int k = y; k < bottom; k++)
		put_line(k, "", 0, false);
	if (sc->wait_selected) {
		draw_wait_detail(sc);
		return;
	}
	if (v == NULL) {
		put_line(y, "(no site selected)", 0, false);
		return;
	}
	char busy[16], idle[16], avg[16], p50[16], p99[16], longest[16], blocking[16], w[128],
		poll50[16], poll99[16];
	live_format_ns(busy, sizeof busy, v->busy_ns);
	live_format_ns(idle, sizeof idle, v->idle_ns);
	live_format_ns(avg, sizeof avg, v->delays > 0 ? v->delay_ns / v->delays : 0);
	live_format_ns(p50, sizeof p50, v->delay_p50_ns);
	live_format_ns(p99, sizeof p99, v->delay_p99_ns);
	live_format_ns(poll50, sizeof poll50, v->poll_p50_ns);
	live_format_ns(poll99, sizeof poll99, v->poll_p99_ns);
	live_format_ns(longest, sizeof longest, v->longest_poll_ns);
	live_format_ns(blocking, sizeof blocking, v->blocking_ns);
	live_format_warnings(w, sizeof w, v, 0);
	snprintf(line, sizeof line, "%.*s  (site %u)", (int)sizeof line - 32, v->text, v->site_id);
	put_line(y++, line, A_BOLD, false);
	/* lines that fit 80 columns */
	snprintf(line, sizeof line, "tasks %llu spawned, %llu alive, %llu done; idle %s",
		 (unsigned long long)v->spawned, (unsigned long long)v->alive,
		 (unsigned long long)v->done, idle);
	put_line(y++, line, 0, false);
	snprintf(line, sizeof line, "polls %llu, busy %s: p50 %s, p99 %s, longest %s; %llu long",
		 (unsigned long long)v->polls, busy, poll50, poll99, longest,
		 (unsigned long long)v->long_polls);
	put_line(y++, line, 0, false);
	snprintf(line, sizeof line,
		 "scheduling delay (woken to polled): %llu, mean %s, p50 %s, p99 %s",
		 (unsigned long long)v->delays, avg, p50, p99);
	put_line(y++, line, 0, false);
	snprintf(line, sizeof line, "waits blocking their worker: %llu, %s",
		 (unsigned long long)v->blocking_waits, blocking);
	put_line(y++, line, 0, false);
	char spawn[16], share[16];
	live_format_ns(spawn, sizeof spawn, v->spawn_p50_ns);
	live_format_span_share(share, sizeof share, s, v);
	char spawn_cost[48] = "spawning one: not measured yet";
	if (v->spawn_p50_ns > 0)
		snprintf(spawn_cost, sizeof spawn_cost, "spawning one costs %s (p50)", spawn);
	snprintf(line, sizeof line, "critical path: %s of the span, %llu fragment%s; %s", share,
		 (unsigned long long)v->path_fragments, v->path_fragments == 1 ? "" : "s",
		 spawn_cost);
	put_line(y++, line, 0, false);
	if (v->by_executor && v->region.threads > 0) {
		char computation[24];
		snprintf(line, sizeof line,
			 "parallel region: load balance %.3f over %u thread%s, computation %s",
			 v->region.load_balance, v->region.threads,
			 v->region.threads == 1 ? "" : "s",
			 tp_live_duration_words(v->region.computation_ns, computation,
						sizeof computation));
		put_line(y++, line, 0, false);
	}
	if (w[0] != '\0') {
		snprintf(line, sizeof line, "warnings: %s", w);
		put_line(y++, line, style(sc, PAIR_WARNING), false);
	}
	live_format_too_small(w, sizeof w, v);
	if (w[0] != '\0')
		put_line(y++, w, style(sc, PAIR_WARNING), false);
	put_line(y++, "", 0, false);

	/* scrolled part: histograms, then the stacks */
	int skip = sc->detail_scroll, used;
	used = draw_histogram(sc, y, skip, "POLL TIME", v->poll_histogram);
	y += used > skip ? used - skip : 0;
	skip = skip > used ? skip - used : 0;
	used = draw_histogram(sc, y, skip, "SCHEDULING DELAY", v->delay_histogram);
	y += used > skip ? used - skip : 0;
	skip = skip > used ? skip - used : 0;

	y = draw_stacks(
		sc, y, skip, v->row,
		"SPAWN STACKS (sampled: each thread's first spawns here, then 1 in " TP_LIVE_STRING(
			TP_LIVE_STACK_SAMPLE_EVERY) ")",
		"  (none: spawn stacks are off, or the executor started these tasks)");
	if (sc->detail_scroll > 0 && y < bottom - 1)
		sc->detail_scroll--; /* scrolled past the end: come back */
}

/*
 * Where the loss is (p), under the factors' lines: each parallel region's load balance, then the
 * sync sites where tasks waited, as --once prints them.
 */
static void draw_losses(struct screen *sc)
{
	const struct live_snapshot *s = shown(sc);
	char line[LINE_MAX_CHARS];
	int y = TABLES_TOP, bottom = LINES - 1;
	/* a site's text in the room the figures leave (at least readable_width's), cut as the
	 * sites table cuts it: its function's start and its whole (file:line) */
	static struct site_view cut;
	int width = (int)strlen("PARALLEL REGION"),
	    room = COLS - (int)strlen("  LOAD BALANCE   COMPUTATION  THREADS") - 1;
	for (unsigned i = 0; i < s->n_sites; i++)
		if (s->sites[i].by_executor && (int)strlen(s->sites[i].text) > width)
			width = (int)strlen(s->sites[i].text);
	for (unsigned i = 0; i < s->n_sites; i++)
		if (s->sites[i].by_executor && width > room &&
		    readable_width(s->sites[i].text) > room)
			room = readable_width(s->sites[i].text);
	width = width < room ? width : room;
	live_format_region_header(line, sizeof line, width);
	put_line(y++, line, style(sc, PAIR_HEADER), true);
	for (unsigned i = 0; i < s->n_sites && y < bottom; i++) {
		cut = s->sites[i];
		site_text(cut.text, sizeof cut.text, s->sites[i].text, width);
		if (live_format_region(line, sizeof line, &cut, width))
			put_line(y++, line, 0, false);
	}
	if (y + 2 < bottom)
		put_line(y++, "", 0, false);
	width = (int)strlen("SYNC SITE");
	room = COLS - (int)strlen("  KIND             WAITED   WAITS  99.9%") - 1;
	for (unsigned i = 0; i < s->n_syncs; i++) {
		if ((int)strlen(s->syncs[i].text) > width)
			width = (int)strlen(s->syncs[i].text);
		if (readable_width(s->syncs[i].text) > room)
			room = readable_width(s->syncs[i].text);
	}
	width = width < room ? width : room;
	if (y < bottom) { /* the last heading cut at the edge on a narrow terminal, not a figure */
		live_format_sync_header(line, sizeof line, width);
		put_line(y++, line, style(sc, PAIR_HEADER), true);
	}
	for (unsigned i = 0; i < s->n_syncs && y < bottom; i++) {
		cut = s->syncs[i];
		site_text(cut.text, sizeof cut.text, s->syncs[i].text, width);
		live_format_sync(line, sizeof line, s, &cut, width);
		put_line(y++, line, 0, false);
	}
	if (s->n_syncs == 0 && y < bottom)
		put_line(y++,
			 "(no task waited at a barrier, taskwait, taskgroup or mutual exclusion)",
			 0, false);
	live_format_roi(line, sizeof line, s);
	if (line[0] != '\0' && y + 1 < bottom) {
		put_line(y++, "", 0, false);
		put_line(y++, line, 0, false);
	}
	while (y < bottom)
		put_line(y++, "", 0, false);
}

static void draw_help(struct screen *sc)
{
	int y = TABLES_TOP;
	for (size_t i = 0; i < sizeof HELP / sizeof HELP[0]; i++)
		put_line(y++, HELP[i], i == 0 ? style(sc, PAIR_HEADER) : 0, false);
	while (y < LINES - 1)
		put_line(y++, "", 0, false);
}

static void draw(struct screen *sc)
{
	char line[LINE_MAX_CHARS];
	const struct live_snapshot *s = shown(sc);
	title_line(line, sizeof line, s, sc->gone, sc->options->pid, COLS);
	put_line(0, line, style(sc, PAIR_TITLE), true);
	live_format_figures(line, sizeof line, s, COLS);
	put_line(1, line, 0, false);
	for (int l = 0; l < 2; l++) {
		live_format_factors(line, sizeof line, s, l);
		/* narrow: the second line without the communication efficiency the first says */
		const char *is = strstr(line, " = ");
		put_line(2 + l, l == 1 && (int)strlen(line) > COLS && is != NULL ? is + 3 : line, 0,
			 false);
	}
	losses_line(line, sizeof line, s);
	char sort[96];
	snprintf(sort, sizeof sort, "sorted by %s, %s", live_column_name(sc->sort),
		 sc->ascending ? "ascending" : "descending");
	if (line[0] != '\0') {
		put_line(TABLES_TOP - 1, line, style(sc, PAIR_WARNING), false);
	} else {
		put_line(TABLES_TOP - 1, sc->detail || sc->losses ? "" : sort, 0, false);
	}
	if (sc->help)
		draw_help(sc);
	else if (sc->losses)
		draw_losses(sc);
	else if (sc->detail)
		draw_detail(sc);
	else
		draw_tables(sc);
	put_line(LINES - 1,
		 sc->help     ? FOOTER_HELP
		 : sc->losses ? FOOTER_LOSSES
		 : sc->detail ? FOOTER_DETAIL
			      : FOOTER_TABLES,
		 style(sc, PAIR_FOOTER), true);
	refresh();
}

/* Handles a key; false to quit. Sets *refresh_now for keys that want fresh figures. */
static bool on_key(struct screen *sc, int key, bool *refresh_now)
{
	const struct live_snapshot *s = shown(sc);
	if (sc->help) { /* the help is left by its keys or a way back; q still quits */
		switch (key) {
		case '?':
		case 'h':
		case KEY_ESCAPE:
		case KEY_LEFT:
		case KEY_BACKSPACE:
		case '\n':
		case '\r':
		case KEY_ENTER:
			sc->help = false;
			return true;
		case 'q':
		case 'Q':
		case KEY_CONTROL_C:
			return false;
		default:
			return true;
		}
	}
	switch (key) {
	case '?':
	case 'h':
		sc->help = true;
		break;
	case 'q':
	case 'Q':
	case KEY_CONTROL_C:
		return false;
	case KEY_UP:
	case 'k':
		if (sc->detail) {
			if (sc->detail_scroll > 0)
				sc->detail_scroll--;
		} else if (sc->selected_index > 0) {
			sc->selected_index--;
		}
		break;
	case KEY_DOWN:
	case 'j':
		if (sc->detail)
			sc->detail_scroll++;
		else if (sc->selected_index + 1 < (int)(s->n_sites + s->n_waits))
			sc->selected_index++;
		break;
	case KEY_ENTER:
	case '\n':
	case '\r':
		if (s->n_sites + s->n_waits > 0) {
			sc->detail = !sc->detail;
			sc->detail_scroll = 0;
		}
		break;
	case KEY_ESCAPE:
	case KEY_LEFT:
	case KEY_BACKSPACE:
	case 127: /* Backspace on terminals whose kbs is ^H, sending DEL */
		sc->detail = false;
		sc->losses = false;
		break;
	case 'p':
		sc->losses = !sc->losses;
		break;
	case '<':
		sc->sort = sc->sort == 0 ? COLUMNS - 1 : sc->sort - 1;
		*refresh_now = true;
		break;
	case '>':
		sc->sort = (sc->sort + 1) % COLUMNS;
		*refresh_now = true;
		break;
	case 'r':
		sc->ascending = !sc->ascending;
		*refresh_now = true;
		break;
	case ' ':
	case 'R':
		*refresh_now = true;
		break;
	case KEY_RESIZE:
		break;
	default:
		return true;
	}
	select_index(sc);
	return true;
}

static uint64_t monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Whether the full-screen view can be: keys to read (standard input a terminal), a terminal to
 * draw on with cursor addressing at least; else why not, in `why`.
 */
static bool terminal_usable(char *why, size_t size)
{
	const char *term = getenv("TERM") != NULL ? getenv("TERM") : "";
	char shown[128];
	live_escape(shown, sizeof shown, term, strlen(term), false);
	snprintf(why, size, "the terminal cannot draw a full-screen view (TERM=%s)", shown);
	if (!isatty(STDIN_FILENO)) {
		snprintf(why, size, "no keys to read: standard input is not a terminal");
		return false;
	}
	if (!isatty(STDOUT_FILENO)) {
		snprintf(why, size, "standard output is not a terminal");
		return false;
	}
	int err = 0;
	if (term[0] == '\0' || setupterm(NULL, STDOUT_FILENO, &err) != OK)
		return false;
	const char *cup = tigetstr("cup");
	bool usable = cup != NULL && cup != (char *)-1 && tigetnum("lines") != 0;
	del_curterm(cur_term);
	return usable;
}

static int run_screen(struct live_file *f, const struct options *o)
{
	static struct screen sc;
	sc = (struct screen){.options = o,
			     .follow = following(o),
			     .file = f,
			     .sort = o->sort,
			     .ascending = o->ascending};
	SCREEN *screen = newterm(NULL, stdout, stdin);
	if (screen == NULL)
		return run_plain(f, o);
	raw(); /* Ctrl-C is a key: it quits the console, never reaching the program */
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	timeout(KEY_CHECK_MS);
	sc.colours = has_colors() && getenv("NO_COLOR") == NULL;
	if (sc.colours) {
		start_color();
		use_default_colors();
		init_pair(PAIR_TITLE, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_HEADER, -1, -1);
		init_pair(PAIR_SELECTED, COLOR_BLACK, COLOR_WHITE);
		init_pair(PAIR_WARNING, COLOR_RED, -1);
		init_pair(PAIR_FOOTER, COLOR_BLACK, COLOR_CYAN);
	}
	char why[1024];
	bool readable = take_snapshot(&sc, why, sizeof why);
	if (readable)
		draw(&sc);
	uint64_t last = monotonic_ms();
	while (readable) {
		int key = getch();
		bool refresh_now = false;
		if (key != ERR && !on_key(&sc, key, &refresh_now))
			break;
		bool ended = shown(&sc)->header.exited || sc.gone;
		if (ended &&
		    follow_exec(f, &sc.follow, 0)) { /* an exec made the program a new file */
			sc.have_previous = false;
			ended = false;
			refresh_now = true;
		}
		if (refresh_now || monotonic_ms() - last >= o->interval_ms) {
			/* an ended program's last figures stay an interval: then the run's next */
			if (ended && follow_child(f, &sc.follow, shown(&sc), true)) {
				sc.have_previous = false;
				ended = false;
			}
			if ((!ended || refresh_now) && !take_snapshot(&sc, why, sizeof why)) {
				readable = false;
				break;
			}
			last = monotonic_ms();
			draw(&sc);
		} else if (key != ERR) {
			draw(&sc);
		}
	}
	endwin();
	delscreen(screen);
	if (!readable) {
		fprintf(stderr, "taskprobe-top: %s\n", why);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	setlocale(LC_ALL, "");
	/* the program's texts keep their UTF-8 only where the terminal takes it */
	live_text_utf8(strcmp(nl_langinfo(CODESET), "UTF-8") == 0);
	/* the error said (by getopt too), then where the usage is: not all of it */
	if (!parse_options(argc, argv, &o)) {
		fputs("taskprobe-top: see taskprobe-top --help\n", stderr);
		return 2;
	}
	if (o.check_options)
		return 0;
	if (o.remove_at_end != 0) {
		/*
		 * `taskprobe run`'s, started beside the program it became: out of the program's
		 * session (no signal of its terminal or process group ends this), holding none of
		 * its descriptors (its pipes' readers see their end when the program ends).
		 */
		setsid();
		closefrom(STDERR_FILENO + 1);
		follow_until_ended(o.pid, o.remove_at_end);
		live_remove_ended(o.pid, o.remove_at_end);
		return 0;
	}
	struct live_file f;
	char why[1024];
	const struct follow w = following(&o);
	if (!follow_open(&f, o.pid, &w, o.wait_ms, why, sizeof why)) {
		fprintf(stderr, "taskprobe-top: %s\n", why);
		return 1;
	}
	if (o.once || o.batch)
		return run_plain(&f, &o);
	if (!terminal_usable(why, sizeof why)) {
		fprintf(stderr, "taskprobe-top: %s: printing snapshots instead\n", why);
		return run_plain(&f, &o);
	}
	return run_screen(&f, &o);
}
