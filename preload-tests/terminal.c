// SPDX-License-Identifier: MIT
/*
 * A terminal for tests of full-screen programs (harness.h, tp_terminal_*): a tmux server on a
 * socket of the test's own, with one window running the command; keys sent and the screen read
 * with tmux's send-keys and capture-pane, as a person types and looks.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness_internal.h"

#define RUNUSER             "/usr/sbin/runuser"
#define TMUX                "/usr/bin/tmux"
#define SCREEN_POLL         100 /* ms between two looks at the screen */
#define SCREEN_SETTLE       30  /* ms between two looks at a screen that shows what is waited for */
#define SCREEN_SETTLE_LOOKS 10

/*
 * Runs a tmux command on the terminal's server (as nobody for an unprivileged one). tmux runs a
 * window's command with $SHELL, else the user's login shell, which for nobody is nologin: the
 * window would end at once, and the server with it, where SHELL is unset (CI's environment).
 */
static char *tmux(struct tp_terminal *t, const char *arguments)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "%s/usr/bin/env SHELL=/bin/sh %s -S '%s' %s 2>&1",
			   t->unprivileged ? RUNUSER " -u nobody -- " : "", TMUX, t->socket,
			   arguments) > 0);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p, "%s", cmd);
	char *text = tp_read_stream(p, NULL);
	int status = pclose(p);
	cr_assert_eq(status, 0, "%s: %s", cmd, text);
	free(cmd);
	return text;
}

/* The terminal a test has open, ended when the test's process exits (a failed assertion too). */
static struct tp_terminal open_terminal;
static bool terminal_open;

static void kill_server(const struct tp_terminal *t)
{
	char *cmd;
	if (asprintf(&cmd, "%s%s -S '%s' kill-server >/dev/null 2>&1; rm -rf '%s'",
		     t->unprivileged ? RUNUSER " -u nobody -- " : "", TMUX, t->socket, t->dir) < 0)
		return;
	if (system(cmd) != 0)
		fprintf(stderr, "note: %s did not end cleanly\n", t->socket);
	free(cmd);
}

static void end_open_terminal(void)
{
	if (terminal_open)
		kill_server(&open_terminal);
	terminal_open = false;
}

void tp_terminal_start(struct tp_terminal *t, const char *command, unsigned columns, unsigned lines,
		       bool unprivileged)
{
	tp_require_program(TMUX, "tmux");
	memset(t, 0, sizeof *t);
	t->unprivileged = unprivileged && geteuid() == 0;
	if (t->unprivileged)
		tp_require_program(RUNUSER, "util-linux");
	snprintf(t->dir, sizeof t->dir, "%s/terminal-XXXXXX",
		 t->unprivileged ? tp_unprivileged_out() : "/tmp");
	cr_assert_not_null(mkdtemp(t->dir));
	if (t->unprivileged)
		cr_assert_eq(chmod(t->dir, 01777), 0);
	snprintf(t->socket, sizeof t->socket, "%s/socket", t->dir);
	/* the command in a script: no quoting of its line into tmux's */
	char *script;
	cr_assert(asprintf(&script, "%s/command", t->dir) > 0);
	FILE *f = fopen(script, "w");
	cr_assert_not_null(f);
	fprintf(f, "%s\necho \"[exit $?]\"\nexec sleep 3600\n", command);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(script, 0755), 0);
	char *arguments;
	cr_assert(asprintf(&arguments,
			   "-f /dev/null new-session -d -x %u -y %u 'exec sh %s' \\; "
			   "set-option -g status off",
			   columns, lines, script) > 0);
	static bool at_exit;
	if (!at_exit)
		at_exit = atexit(end_open_terminal) == 0;
	open_terminal = *t;
	terminal_open = true;
	free(tmux(t, arguments));
	free(arguments);
	free(script);
}

char *tp_terminal_screen(struct tp_terminal *t, bool attributes)
{
	return tmux(t, attributes ? "capture-pane -p -e" : "capture-pane -p");
}

char *tp_terminal_history(struct tp_terminal *t)
{
	return tmux(t, "capture-pane -p -S -");
}

/*
 * The screen once two looks SCREEN_SETTLE apart saw the same (SCREEN_SETTLE_LOOKS at most), or
 * NULL if one no longer shows `text`: a look may catch a frame half drawn (its first line new,
 * its rows the frame before's), as a person never reads it, and more often on a loaded machine.
 */
static char *settled(struct tp_terminal *t, char *screen, const char *text)
{
	for (unsigned look = 0; look < SCREEN_SETTLE_LOOKS; look++) {
		tp_sleep_ms(SCREEN_SETTLE);
		char *again = tp_terminal_screen(t, false);
		bool same = strcmp(again, screen) == 0;
		free(screen);
		screen = again;
		if (strstr(screen, text) == NULL) {
			free(screen);
			return NULL;
		}
		if (same)
			break;
	}
	return screen;
}

char *tp_terminal_wait_for(struct tp_terminal *t, const char *text, unsigned timeout_ms)
{
	char *screen = NULL;
	for (unsigned waited = 0;; waited += SCREEN_POLL) {
		free(screen);
		screen = tp_terminal_screen(t, false);
		if (strstr(screen, text) != NULL && (screen = settled(t, screen, text)) != NULL)
			return screen;
		if (screen == NULL)
			screen = tp_terminal_screen(t, false);
		if (waited >= timeout_ms)
			break;
		tp_sleep_ms(SCREEN_POLL);
	}
	cr_assert_fail("the terminal did not show \"%s\" in %u ms; it shows:\n%s", text, timeout_ms,
		       screen);
	return NULL;
}

void tp_terminal_keys(struct tp_terminal *t, const char *keys)
{
	/* each key quoted for the shell: "<" and ">" are keys too */
	char *arguments = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&arguments, &len);
	fputs("send-keys", f);
	char *copy = strdup(keys);
	for (char *key = strtok(copy, " "); key != NULL; key = strtok(NULL, " "))
		fprintf(f, " '%s'", key);
	fclose(f);
	free(tmux(t, arguments));
	free(arguments);
	free(copy);
}

void tp_terminal_resize(struct tp_terminal *t, unsigned columns, unsigned lines)
{
	char *arguments;
	cr_assert(asprintf(&arguments, "resize-window -x %u -y %u", columns, lines) > 0);
	free(tmux(t, arguments));
	free(arguments);
}

void tp_terminal_stop(struct tp_terminal *t)
{
	kill_server(t);
	terminal_open = false;
}
