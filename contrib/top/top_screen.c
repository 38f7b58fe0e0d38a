// SPDX-License-Identifier: MIT
/* The full-screen view (ncurses): its tables, keys and refreshes (top_views.h, top_screen.h). */
#define _GNU_SOURCE
#include "top_screen.h"

#include <ctype.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <time.h>
#include <unistd.h>

#include "top_lines.h"

#define KEY_CHECK_MS  FOLLOW_CHECK_MS /* keys are looked at as often as the program's end */
#define KEY_ESCAPE    27
#define KEY_CONTROL_C 3
#define KEY_CONTROL_Z 26

attr_t style(const struct screen *sc, enum colour_pair pair)
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

void put_line(int y, const char *text, attr_t attributes, bool fill)
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
	"  Ctrl-Z                 suspend the console (fg resumes it; the program runs on)",
	"  ?, h                   this help; again (or Esc) to leave it",
	"  Up/Down, k/j           select a site; in its detail, scroll",
	"  Enter                  a site's detail: its figures, histograms and stacks",
	"  p                      where the loss is: parallel regions' load balance, sync sites",
	"  Esc, Left, Backspace   back from the detail (or this help) to the tables",
	"  < >                    sort by the column before, after",
	"  r                      reverse the order",
	"  n, N                   the run's next (previous) process: an MPI job's ranks by rank, a",
	"                         script's programs that spawned tasks (taskprobe top -- PROGRAM)",
	"  space, R               refresh now",
};

const struct live_snapshot *shown(const struct screen *sc)
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

static uint64_t monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A new snapshot shown; false (with `why`) when the file can no longer be read. */
static bool take_snapshot(struct screen *sc, char *why, size_t why_size)
{
	int next = sc->have_previous ? 1 - sc->current : sc->current;
	const struct live_snapshot *previous = sc->have_previous ? shown(sc) : NULL;
	if (previous == NULL)
		sc->exit_seen_ms = 0;
	uint64_t now = monotonic_ms();
	bool ended = follow_ended(sc->file); /* before the figures: then they are its last */
	if (!live_snapshot(sc->file, previous, &sc->snapshots[next], why, why_size))
		return false;
	if (!sc->chosen && follow_child(sc->file, &sc->follow, &sc->snapshots[next], false)) {
		previous = NULL;
		sc->exit_seen_ms = 0;
		ended = follow_ended(sc->file);
		if (!live_snapshot(sc->file, NULL, &sc->snapshots[next], why, why_size))
			return false;
	}
	sc->state = follow_state(&sc->snapshots[next], ended,
				 sc->exit_seen_ms != 0 ? now - sc->exit_seen_ms : 0);
	if (sc->snapshots[next].header.exited && sc->exit_seen_ms == 0)
		sc->exit_seen_ms = now;
	live_mpi_job_words(sc->file, sc->follow.dir, sc->snapshots[next].mpi_job,
			   sizeof sc->snapshots[next].mpi_job);
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
	column_set shown = site_columns_fitting(site_wanted, COLS);
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
	/* no row left empty below the last site while sites are scrolled out above (the window
	 * grown since it scrolled: a taller terminal, fewer threads or waits below it) */
	if (sc->first_site > (int)s->n_sites - site_rows)
		sc->first_site = (int)s->n_sites > site_rows ? (int)s->n_sites - site_rows : 0;
	for (int i = 0; i < site_rows; i++) {
		int k = sc->first_site + i;
		if (k >= (int)s->n_sites) {
			put_line(y++, s->n_sites == 0 && i == 0 ? no_site_words(s) : "", 0, false);
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
		waiter_header(line, sizeof line, &waiters, s->header.exited);
		put_line(y++, line, style(sc, PAIR_HEADER), true);
		for (unsigned i = 0; i < s->n_threads && y < bottom; i++) {
			waiter_line(line, sizeof line, &s->threads[i], &waiters);
			put_line(y++, line, 0, false);
		}
	} else {
		struct worker_layout workers = worker_layout(s, COLS);
		worker_header(line, sizeof line, &workers, s->header.exited);
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
		wait_header(header, sizeof header, 0, s->header.exited);
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
		wait_header(line, sizeof line, wait_width, s->header.exited);
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
	title_line(line, sizeof line, s, sc->state, sc->options->pid, COLS);
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
	/* an MPI rank's job across ranks, in the line of its own communication's split (which
	 * --once's and --batch's figures keep) or of its factors (a rank of MPI alone: none) */
	if (s->mpi_job[0] != '\0')
		put_line(s->factors.valid ? 3 : 2, s->mpi_job, 0, false);
	losses_line(line, sizeof line, s);
	/* the sort, and what a "?" in SPAN% means when the path gave up sites (--once's line) */
	char sort[512], other[400];
	int at = snprintf(sort, sizeof sort, "sorted by %s, %s", live_column_name(sc->sort),
			  sc->ascending ? "ascending" : "descending");
	tp_live_path_other_words(other, sizeof other, s->path_other_ns, s->path_ns);
	if (at + 2 + (int)strlen(other) > COLS) /* cut, it would lose what "?" means */
		tp_live_path_other_brief_words(other, sizeof other, s->path_other_ns, s->path_ns);
	if (other[0] != '\0' && at > 0 && (size_t)at < sizeof sort)
		snprintf(sort + at, sizeof sort - (size_t)at, "; %s", other);
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
		 sc->said != NULL ? sc->said
		 : sc->help       ? FOOTER_HELP
		 : sc->losses     ? FOOTER_LOSSES
		 : sc->detail     ? FOOTER_DETAIL
				  : FOOTER_TABLES,
		 style(sc, PAIR_FOOTER), true);
	refresh();
}

/*
 * Ctrl-Z (a key in raw mode, as Ctrl-C is): the console stops as a program in a terminal does, its
 * terminal given back first, and is drawn whole again once continued (fg). The stop goes to the
 * console's process group, so that `taskprobe top -- PROGRAM`'s launcher, the shell's job, stops
 * too and its shell takes the terminal back (vim does the same); the program, in a group of its
 * own, runs on, as after q. In a group no shell controls (orphaned) the kernel drops the stop.
 */
static void suspend(void)
{
	endwin();
	fflush(stdout);
	kill(0, SIGTSTP);
	/* continued: the terminal is the console's again */
	clearok(curscr, TRUE);
	refresh();
}

/*
 * n, N: another of the run's processes (an MPI job's ranks), whose figures start afresh; or why
 * there is none, in the footer.
 */
static void show_another(struct screen *sc, bool backwards, bool *refresh_now)
{
	if (!sc->follow.children || sc->follow.dir == NULL) {
		sc->said = "n, N: only a run's processes can be chosen (taskprobe top -- PROGRAM)";
	} else if (!follow_another(sc->file, &sc->follow, backwards)) {
		sc->said = "n, N: no other process of the run has spawned a task or is an MPI rank";
	} else {
		sc->have_previous = false;
		sc->detail = false;
		sc->chosen = true;
		*refresh_now = true;
	}
}

/* Handles a key; false to quit. Sets *refresh_now for keys that want fresh figures. */
static bool on_key(struct screen *sc, int key, bool *refresh_now)
{
	const struct live_snapshot *s = shown(sc);
	sc->said = NULL;
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
		case KEY_CONTROL_Z:
			suspend();
			return true;
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
	case KEY_CONTROL_Z:
		suspend();
		break;
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
	case 'n':
	case 'N':
		show_another(sc, key == 'N', refresh_now);
		break;
	case KEY_RESIZE:
		break;
	default:
		return true;
	}
	select_index(sc);
	return true;
}

/*
 * Whether the full-screen view can be: keys to read (standard input a terminal), a terminal to
 * draw on with cursor addressing at least; else why not, in `why`.
 */
bool terminal_usable(char *why, size_t size)
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

/*
 * Whether the terminal the keys come from hung up (closed: its window, its tmux server, its ssh
 * connection): getch() then returns at once, at every turn, and the console would spin. The
 * kernel's hangup signal reaches only the session's leader, which may be the launcher (`tmux new
 * 'taskprobe top -- ./app'`): its trap ends the program once the console ended.
 */
static bool terminal_hung_up(void)
{
	struct pollfd keys = {.fd = STDIN_FILENO, .events = POLLIN};
	return poll(&keys, 1, 0) == 1 && (keys.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
}

int run_screen(struct live_file *f, const struct options *o)
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
		if (key == ERR && terminal_hung_up())
			break;
		bool refresh_now = false;
		if (key != ERR && !on_key(&sc, key, &refresh_now))
			break;
		bool ended = sc.state != PROGRAM_RUNNING;
		if (ended &&
		    follow_exec(f, &sc.follow, 0)) { /* an exec made the program a new file */
			sc.have_previous = false;
			ended = false;
			refresh_now = true;
		}
		/* an exiting program's figures move until its process ended */
		bool last_shown = ended && sc.state != PROGRAM_EXITING;
		if (refresh_now || monotonic_ms() - last >= o->interval_ms) {
			/* an ended program's last figures stay an interval: then the run's next */
			if (last_shown && !sc.chosen &&
			    follow_child(f, &sc.follow, shown(&sc), true)) {
				sc.have_previous = false;
				last_shown = false;
			}
			if ((!last_shown || refresh_now) && !take_snapshot(&sc, why, sizeof why)) {
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
