// SPDX-License-Identifier: MIT
/* The console's lines, for the screen and for plain text alike (top_lines.h). */
#define _GNU_SOURCE
#include "top_lines.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/*
 * The sites table: the site, the number columns (live_view.h's order) each this wide, and the
 * warnings.
 */
static const int column_widths[COLUMNS] = {
	[COLUMN_SPAWNED] = 8, [COLUMN_ALIVE] = 6,     [COLUMN_DONE] = 8,      [COLUMN_POLLS] = 8,
	[COLUMN_BUSY] = 8,    [COLUMN_DELAY_P50] = 8, [COLUMN_DELAY_P99] = 8, [COLUMN_IDLE] = 8,
	[COLUMN_LONGEST] = 8, [COLUMN_SPAN] = 5,      [COLUMN_ON_PATH] = 6,   [COLUMN_SPAWN] = 7,
};

/*
 * The columns a terminal too narrow for all leaves out, first to last: figures the others imply
 * or that matter least for finding a slow site. SPAWNED, DELAY99, LONGEST and the warnings stay.
 */
static const enum site_column narrow_terminal_drops[] = {
	COLUMN_SPAWN, COLUMN_ON_PATH, COLUMN_IDLE, COLUMN_DELAY_P50, COLUMN_DONE,
	COLUMN_POLLS, COLUMN_ALIVE,   COLUMN_BUSY, COLUMN_SPAN,
};

/* The width the number columns of `shown` take, a space before each. */
int columns_width(column_set shown)
{
	int width = 0;
	for (int c = FIRST_NUMBER_COLUMN; c <= LAST_NUMBER_COLUMN; c++)
		if (shown & (1u << c))
			width += 1 + column_widths[c];
	return width;
}

column_set site_columns_fitting(int site_wanted, int width)
{
	column_set shown = ALL_COLUMNS;
	for (size_t i = 0; i < sizeof narrow_terminal_drops / sizeof narrow_terminal_drops[0] &&
			   site_wanted + columns_width(shown) + 2 + WARNINGS_ROOM > width;
	     i++)
		shown &= ~(1u << narrow_terminal_drops[i]);
	return shown;
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

void site_header(char *out, size_t size, int site_width, column_set shown)
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
void site_text(char *out, size_t size, const char *text, int width)
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
int readable_width(const char *text)
{
	int len = (int)strlen(text);
	const char *place = strrchr(text, '(');
	int least = place != NULL ? SITE_HEAD_MIN + 2 + (int)strlen(place) : SITE_WIDTH_MIN;
	return len < least ? len : least;
}

void site_line(char *out, size_t size, const struct live_snapshot *s, const struct site_view *v,
	       int site_width, column_set shown, int width)
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
		strcpy(cells[COLUMN_ON_PATH], tp_live_no_share_words(s->path_other_ns));
	if (strcmp(cells[COLUMN_SPAN], TP_LIVE_SHARE_NOT_KNOWN) == 0) /* nor its fragments */
		strcpy(cells[COLUMN_ON_PATH], cells[COLUMN_SPAN]);
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

#define NOW_WIDTH_WANTED 50 /* "polling function (file:line) for 16.0ms" */
#define TID_WIDTH        8
#define THREAD_WIDTH     15 /* a name threads set themselves: 15 characters at most */
#define THREAD_WIDTH_MAX 36
#define POLLS_WIDTH      8

/* Every column, THREAD as wide as the longest name shown (plain snapshots). */
struct worker_layout every_worker_column(const struct live_snapshot *s)
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

/*
 * The heading of a table's column of what is going on now: once the program has exited, what was
 * going on at the exit (a worker blocked to the end), which the column then shows.
 */
static const char *now_heading(bool exited)
{
	return exited ? "AT EXIT" : "NOW";
}

/* `exited`: the process has; the last column then says what each thread did at the exit. */
void worker_header(char *out, size_t size, const struct worker_layout *l, bool exited)
{
	worker_columns_line(out, size, l, "TID", "THREAD", "BUSY", "SPIN", "PARKED", "POLLS",
			    now_heading(exited));
}

/* The layout for a terminal `width` columns wide. */
struct worker_layout worker_layout(const struct live_snapshot *s, int width)
{
	struct worker_layout l = every_worker_column(s);
	if (l.thread_width > THREAD_WIDTH_MAX)
		l.thread_width = THREAD_WIDTH_MAX;
	bool *const drops[] = {&l.polls, &l.thread}; /* first to last */
	char header[LINE_MAX_CHARS];
	for (size_t i = 0;; i++) {
		worker_header(header, sizeof header, &l, false);
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
	char how_long[16], wait_for[16], wait[LIVE_SHOWN(TP_LIVE_SITE_TEXT) + 128] = "";
	live_format_ns(how_long, sizeof how_long, w->state_for_ns);
	live_format_ns(wait_for, sizeof wait_for, w->wait_for_ns);
	const char *kind = live_wait_kind_name(w->wait_kind);
	/* the wait it is in; where the line is too narrow, without its site, then left out (the
	 * row's colour tells a wait blocks its worker) */
	for (int words = w->wait_kind != 0 ? 2 : 0; words > 0; words--) {
		bool at = words == 2 && w->wait_site[0] != '\0';
		snprintf(wait, sizeof wait, "%s in %s %s wait%s%.*s for %s%s",
			 w->state == TP_LIVE_POLLING ? "," : "",
			 kind[0] == 'e' || strcmp(kind, "mpi") == 0 ? "an" : "a", kind,
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
		/* parked by the wait it is in: its time once ("parked in a poll wait at X for 7.3s",
		 * not "parked for 7.3s in a poll wait at X for 7.3s") */
		if (wait[0] != '\0' && strcmp(wait_for, how_long) == 0)
			snprintf(out, size, "parked%s", wait);
		else
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

void worker_line(char *out, size_t size, const struct live_snapshot *s, const struct thread_view *w,
		 const struct worker_layout *l)
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

/* Once the program has exited, a thread's state is the one it had at the exit: said so. */
void waiter_header(char *out, size_t size, const struct waiter_layout *l, bool exited)
{
	_Static_assert(sizeof "AT EXIT" - 1 <= STATE_WIDTH,
		       "now_heading's fits the state's column");
	waiter_columns_line(out, size, l, "TID", "THREAD", now_heading(exited), "RUNNING", "WAITED",
			    "WAITS", "KINDS", "LONGEST WAIT");
}

/* Every column, THREAD and KINDS as wide as their longest text (plain snapshots). */
struct waiter_layout every_waiter_column(const struct live_snapshot *s)
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
struct waiter_layout waiter_layout(const struct live_snapshot *s, int width)
{
	struct waiter_layout l = every_waiter_column(s);
	if (l.thread_width > THREAD_WIDTH_MAX)
		l.thread_width = THREAD_WIDTH_MAX;
	if (l.kinds_width > KINDS_WIDTH_MAX)
		l.kinds_width = KINDS_WIDTH_MAX;
	char header[LINE_MAX_CHARS];
	for (int step = 0;; step++) {
		waiter_header(header, sizeof header, &l, false); /* as wide either way */
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

/*
 * A thread's row. Once the process has exited, a thread that had not ended by then shows what it
 * did at the exit (a worker blocked to the end: waiting), as the waits by call site count it.
 */
void waiter_line(char *out, size_t size, const struct thread_view *w, const struct waiter_layout *l)
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
	const char *now = w->ended ? "ended" : w->wait_kind != 0 ? "waiting" : "running";
	waiter_columns_line(out, size, l, tid, w->name, now, running, waited, waits, kinds,
			    longest);
}

/* The title; `program` is the pid asked for, whose run the process shown may be a child of. */
/*
 * The title: whose figures, what the program is (the header's notes), how long, the task counts
 * and the long-poll threshold. Where it is wider than `width`, if not 0, parts are left out:
 * the notes first, then "taskprobe top:" and the threshold.
 */
void title_line(char *out, size_t size, const struct live_snapshot *s, enum program_state state,
		pid_t program, int width)
{
	char elapsed[16], long_poll[16], whose[80] = "", notes[64] = "";
	live_format_ns(elapsed, sizeof elapsed, s->elapsed_ns);
	live_format_ns(long_poll, sizeof long_poll, s->header.long_poll_ns);
	char rank[48];
	tp_live_mpi_rank_words(s->header.mpi_rank, s->header.mpi_size, rank, sizeof rank);
	if (s->header.pid != (uint32_t)program)
		snprintf(whose, sizeof whose, "%s, started by %d's run", rank, (int)program);
	else
		snprintf(whose, sizeof whose, "%s", rank);
	if (s->header.notes & TP_LIVE_NOTE_LIBGOMP_ON_LIBOMP)
		snprintf(notes, sizeof notes, " (libgomp program on libomp)");
	static const char *const said[] = {
		[PROGRAM_RUNNING] = "running",
		[PROGRAM_EXITING] = "exiting after",
		[PROGRAM_EXITED] = "exited after",
		[PROGRAM_GONE] = "gone (killed?) after",
	};
	int len = 0;
	for (int with_notes = notes[0] != '\0'; with_notes >= 0; with_notes--) {
		len = snprintf(out, size,
			       "taskprobe top: %s (pid %u%s)%s %s %s | tasks %llu spawned, %llu "
			       "alive, %llu done | long poll >= %s",
			       s->comm, s->header.pid, whose, with_notes ? notes : "", said[state],
			       elapsed, (unsigned long long)s->spawned,
			       (unsigned long long)s->alive, (unsigned long long)s->done,
			       long_poll);
		if (width <= 0 || len <= width)
			return;
	}
	snprintf(out, size, "%s (pid %u%s) %s %s | %llu spawned, %llu alive, %llu done", s->comm,
		 s->header.pid, whose, said[state], elapsed, (unsigned long long)s->spawned,
		 (unsigned long long)s->alive, (unsigned long long)s->done);
}

/* What the statistics could not count, in words ("; " between two), or "". */
void losses_line(char *out, size_t size, const struct live_snapshot *s)
{
	tp_live_losses_words(out, size, &s->header);
}

/* The waits table: per call site of the program's waits (any thread's), most time first. */
const char WAITS_TITLE[] = "WAITS BY CALL SITE (every thread's; most time waited first)";

static void wait_columns_line(char *out, size_t size, const char *site, int site_width,
			      const char *kind, const char *waits, const char *total,
			      const char *longest, const char *threads, const char *now)
{
	int n = snprintf(out, size, "%-*s", site_width, site);
	if (n >= 0 && (size_t)n < size)
		snprintf(out + n, size - (size_t)n, "  %-9s %8s %8s %8s %7s %7s", kind, waits,
			 total, longest, threads, now);
}

/* The last column counts the threads waiting at the site now; once the program has exited, those
 * that were waiting there when it exited (a worker blocked to the end): said so. */
void wait_header(char *out, size_t size, int site_width, bool exited)
{
	wait_columns_line(out, size, "SITE", site_width, "KIND", "WAITS", "TOTAL", "LONGEST",
			  "THREADS", now_heading(exited));
}

void wait_line(char *out, size_t size, const struct wait_view *w, int site_width)
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
int widest_wait_site(const struct live_snapshot *s)
{
	int w = (int)strlen("SITE");
	for (unsigned i = 0; i < s->n_waits; i++)
		if ((int)strlen(s->waits[i].text) > w)
			w = (int)strlen(s->waits[i].text);
	return w;
}

/* What the console says when it has nothing to show: why, and what to set. */
#define NOTHING_WHY                                                                                \
	": tasks come from an executor taskprobe adapts (OpenMP); TASKPROBE_WORKERS=GLOB makes "   \
	"named threads workers; joins, sleeps, select and read are not waits here)"
static const char NOTHING_YET[] =
	"(no task spawned, and no thread waited in an interposed wait yet" NOTHING_WHY;
static const char NOTHING_AT_ALL[] =
	"(no task spawned, and no thread waited in an interposed wait" NOTHING_WHY;
static const char NO_TASK[] = "(no task spawned: the program's waits follow, by call site)";

const char *no_site_words(const struct live_snapshot *s)
{
	if (s->n_waits > 0)
		return NO_TASK;
	return s->header.exited ? NOTHING_AT_ALL : NOTHING_YET;
}

int widest_site(const struct live_snapshot *s)
{
	int w = (int)strlen("SITE");
	for (unsigned i = 0; i < s->n_sites; i++)
		if ((int)strlen(s->sites[i].text) > w)
			w = (int)strlen(s->sites[i].text);
	return w;
}
