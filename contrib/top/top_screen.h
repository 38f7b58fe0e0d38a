// SPDX-License-Identifier: MIT
/*
 * What the full-screen view's files share: top_screen.c (the tables, keys, refreshes) and
 * top_detail.c (a site's detail, and where the loss is).
 */
#pragma once

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>

#include "follow.h"
#include "live_view.h"
#include "top_views.h"

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
	enum program_state state; /* of the snapshot shown */
	const char *said;         /* the answer to the last key, in the footer until the next */
	/* the process shown is the user's choice (n, N): kept when it ends, not followed by the
	 * run's next */
	bool chosen;
	uint64_t exit_seen_ms; /* when a snapshot first showed the exit mark, 0 none did */
};

/*
 * The screen's first row below the title, the figures, the two lines of the POP factors and the
 * sort order (or what is lost).
 */
#define TABLES_TOP 5

attr_t style(const struct screen *sc, enum colour_pair pair);
/* Line `y` of the screen: `text` (what fits, no word cut), filled to the edge if `fill`. */
void put_line(int y, const char *text, attr_t attributes, bool fill);
/* The snapshot shown. */
const struct live_snapshot *shown(const struct screen *sc);

/* The selected site's detail (a task site's, or a wait site's), scrolled (top_detail.c). */
void draw_detail(struct screen *sc);
/* Where the loss is (p): the parallel regions' load balance, the sync sites (top_detail.c). */
void draw_losses(struct screen *sc);
