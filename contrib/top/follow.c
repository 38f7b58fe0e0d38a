// SPDX-License-Identifier: MIT
/* Following the program the console shows (follow.h). */
#define _GNU_SOURCE
#include "follow.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void sleep_ms(unsigned ms)
{
	struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000};
	nanosleep(&t, NULL);
}

void follow_until_ended(pid_t pid, uint64_t start_ticks)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd >= 0) {
		/* readable once the process ended (a pidfd of a later process with the pid: ended) */
		struct pollfd ended = {.fd = pidfd, .events = POLLIN};
		while (!live_process_ended(pid, start_ticks) && poll(&ended, 1, -1) < 0 &&
		       errno == EINTR)
			;
		close(pidfd);
	}
	while (!live_process_ended(pid, start_ticks))
		sleep_ms(FOLLOW_GONE_CHECK_MS);
}

bool follow_ended(const struct live_file *f)
{
	return live_process_ended(f->pid, f->header.start_ticks);
}

enum program_state follow_state(const struct live_snapshot *s, bool ended, uint64_t since_exit_ms)
{
	if (!s->header.exited)
		return ended ? PROGRAM_GONE : PROGRAM_RUNNING;
	return ended || since_exit_ms >= FOLLOW_SETTLE_MS ? PROGRAM_EXITED : PROGRAM_EXITING;
}

void follow_settle(const struct live_file *f)
{
	enum { STEP_MS = 10 };
	for (unsigned waited = 0; !follow_ended(f) && waited < FOLLOW_SETTLE_MS; waited += STEP_MS)
		sleep_ms(STEP_MS);
}

bool follow_open(struct live_file *f, pid_t pid, const struct follow *w, unsigned wait_ms,
		 char *why, size_t why_size)
{
	for (unsigned waited = 0;; waited += FOLLOW_CHECK_MS) {
		enum live_open_result r = live_open(f, pid, w->dir, why, why_size);
		if (r == LIVE_OPENED)
			return true;
		/* a file not there yet, or an earlier process's its next one replaces */
		if ((r != LIVE_MISSING && r != LIVE_STALE) || waited >= wait_ms)
			return false;
		sleep_ms(FOLLOW_CHECK_MS);
	}
}

/* The next image's file, if it is there now. */
static bool exec_followed(struct live_file *f, const struct follow *w)
{
	char why[1024];
	struct live_file next;
	if (live_process_gone(f->pid) || !live_replaced(f) ||
	    !follow_open(&next, f->pid, w, 0, why, sizeof why))
		return false;
	live_close(f);
	*f = next;
	return true;
}

bool follow_exec(struct live_file *f, const struct follow *w, unsigned within_ms)
{
	if (within_ms == 0)
		return exec_followed(f, w);
	for (unsigned waited = 0; !follow_ended(f) && waited < within_ms;
	     waited += FOLLOW_CHECK_MS) {
		sleep_ms(FOLLOW_CHECK_MS);
		if (exec_followed(f, w))
			return true;
	}
	return false;
}

/* The run's processes shown so far (--children), whose last figures are not shown again. */
static struct live_id *shown_ids;
static size_t n_shown, shown_capacity;

/* Lists `f` as shown, once; false when the list cannot grow (then nothing is followed). */
static bool mark_shown(const struct live_file *f)
{
	struct live_id id = live_id(f);
	if (live_id_listed(id, shown_ids, n_shown))
		return true;
	if (n_shown == shown_capacity) {
		size_t capacity = shown_capacity > 0 ? 2 * shown_capacity : 16;
		struct live_id *grown = realloc(shown_ids, capacity * sizeof *grown);
		if (grown == NULL)
			return false;
		shown_ids = grown;
		shown_capacity = capacity;
	}
	shown_ids[n_shown++] = id;
	return true;
}

bool follow_child(struct live_file *f, const struct follow *w, const struct live_snapshot *s,
		  bool ended)
{
	if (!w->children || w->dir == NULL)
		return false;
	bool showing_run = f->pid == w->run;
	if (showing_run ? s->spawned > 0 : !ended)
		return false;
	if (!mark_shown(f))
		return false;
	struct live_file child;
	if (!live_open_child(&child, w->dir, shown_ids, n_shown,
			     w->once ? LIVE_BUSIEST : LIVE_FIRST_STARTED, NULL))
		return false;
	live_close(f);
	*f = child;
	return true;
}

bool follow_another(struct live_file *f, const struct follow *w, bool backwards)
{
	if (!w->children || w->dir == NULL)
		return false;
	struct live_id shown = live_id(f);
	struct live_file other;
	if (!live_open_child(&other, w->dir, &shown, 1, backwards ? LIVE_PREVIOUS : LIVE_NEXT, f))
		return false;
	live_close(f);
	*f = other;
	return true;
}

/* Whether the run is over: the process shown has ended, and it is the run's or that has too. */
static bool run_over(const struct live_file *f, const struct follow *w, bool ended)
{
	return ended && (!w->children || f->pid == w->run || live_process_gone(w->run));
}

bool follow_next_process(struct live_file *f, const struct follow *w, const struct live_snapshot *s)
{
	for (;;) {
		bool over = run_over(f, w, true);
		if (follow_child(f, w, s, true))
			return true;
		if (over)
			return false;
		sleep_ms(FOLLOW_CHECK_MS);
	}
}
