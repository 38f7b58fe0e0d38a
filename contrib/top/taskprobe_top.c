// SPDX-License-Identifier: MIT
/*
 * taskprobe-top: a live console of a program's tasks, from its live statistics
 * (TASKPROBE_LIVE, dtrace/taskprobe_live.h), without root. A full-screen view (ncurses) of the
 * spawn sites and the workers, refreshed every interval; a site's detail view; or plain-text
 * snapshots (--once, or when there is no terminal to draw on). Started by `taskprobe top`;
 * taskprobe-top(1).
 */
#define _GNU_SOURCE
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "follow.h"
#include "live_view.h"
#include "top_options.h"
#include "top_views.h"

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
		live_remove_all_ended();
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
