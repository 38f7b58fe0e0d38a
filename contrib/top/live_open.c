// SPDX-License-Identifier: MIT
/*
 * Finding and opening a process's live statistics (live_view.h): where its shim put them, checked
 * against the file and the process before anything is read; the run's other processes' files;
 * the files of ended processes removed.
 */
#define _GNU_SOURCE
#include "live_private.h"
#include "live_view.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- the file --- */

/* Checks a header read once (`h`) against the file's size and the process; else `why`. */
static enum live_open_result check_header(const struct tp_live_header *h, uint64_t file_size,
					  pid_t pid, const struct process *p, const char *path,
					  char *why, size_t why_size)
{
	char shown[SHOWN_PATH_SIZE];
	shown_path(shown, path);
	if (file_size < sizeof *h || memcmp(h->magic, TP_LIVE_MAGIC, sizeof h->magic) != 0) {
		snprintf(why, why_size, "%s is not ready yet, or not taskprobe's live statistics",
			 shown);
		return LIVE_MISSING;
	}
	if (h->version != TP_LIVE_VERSION) {
		snprintf(why, why_size,
			 "%s has another layout (version %u): use the taskprobe of the program's "
			 "libtaskprobe.so",
			 shown, h->version);
		return LIVE_BAD;
	}
	const struct {
		const char *name;
		uint64_t value, layout;
	} sizes[] = {
		{"header_size", h->header_size, sizeof *h},
		{"file_size", h->file_size, TP_LIVE_FILE_SIZE},
		{"rows_offset", h->rows_offset, TP_LIVE_ROWS_OFFSET},
		{"rows_stride", h->rows_stride, TP_LIVE_ROWS_STRIDE},
	};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		if (sizes[i].value != sizes[i].layout) {
			snprintf(why, why_size,
				 "%s is damaged: its %s is %llu, where version %u's layout has "
				 "%llu: refused",
				 shown, sizes[i].name, (unsigned long long)sizes[i].value,
				 TP_LIVE_VERSION, (unsigned long long)sizes[i].layout);
			return LIVE_BAD;
		}
	if (file_size < h->file_size) {
		snprintf(why, why_size,
			 "%s is damaged or cut short: it says %llu bytes and has %llu: refused",
			 shown, (unsigned long long)h->file_size, (unsigned long long)file_size);
		return LIVE_BAD;
	}
	if (h->pid != (uint32_t)pid) {
		snprintf(why, why_size, "%s names pid %u, not %d: refused", shown, h->pid,
			 (int)pid);
		return LIVE_STALE;
	}
	if (h->pid_namespace != 0 && p->pid_namespace != 0 &&
	    h->pid_namespace != p->pid_namespace) {
		snprintf(why, why_size,
			 "%s is of a process of another pid namespace, not of pid %d: refused",
			 shown, (int)pid);
		return LIVE_STALE;
	}
	if (h->start_ticks != 0 && p->start_ticks != 0 && h->start_ticks != p->start_ticks) {
		snprintf(why, why_size,
			 "%s is of an earlier process with pid %d (started at tick %llu, this one "
			 "at %llu): refused",
			 shown, (int)pid, (unsigned long long)h->start_ticks,
			 (unsigned long long)p->start_ticks);
		return LIVE_STALE;
	}
	return LIVE_OPENED;
}

/*
 * Opens pid's file in the directory open as `dirfd` (`dir` its name): a regular file of the
 * process's owner, whose header names the process; maps the size it has.
 */
static enum live_open_result open_at(struct live_file *f, pid_t pid, const struct process *p,
				     int dirfd, const char *dir, char *why, size_t why_size)
{
	char name[sizeof TP_LIVE_FILE_PREFIX + TP_LIVE_PID_DIGITS], shown[SHOWN_PATH_SIZE];
	snprintf(name, sizeof name, TP_LIVE_FILE_PREFIX "%d", (int)pid);
	snprintf(f->path, sizeof f->path, "%s/%s", dir, name);
	shown_path(shown, f->path);
	/* not a link, and no waiting on a FIFO put in its place */
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		int error = errno;
		if (error == ENOENT) {
			snprintf(why, why_size,
				 "no live statistics for pid %d (%s): start it with `taskprobe "
				 "run` or TASKPROBE_LIVE=1 (as the same user)",
				 (int)pid, strerror(error));
			return LIVE_MISSING;
		}
		snprintf(why, why_size, "cannot open %s: %s%s", shown, strerror(error),
			 error == EACCES ? " (another user's: run taskprobe top as its owner)"
					 : "");
		return error == EACCES ? LIVE_FOREIGN : LIVE_BAD;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(why, why_size, "%s is not a regular file: refused", shown);
		return LIVE_BAD;
	}
	if (st.st_uid != p->uid) {
		close(fd);
		snprintf(why, why_size,
			 "%s belongs to uid %u, not to uid %u, %s: refused (run taskprobe top as "
			 "the program's owner)",
			 shown, (unsigned)st.st_uid, (unsigned)p->uid,
			 p->known ? "the process's owner" : "yours (the process is gone)");
		return LIVE_FOREIGN;
	}
	/* one look at the header and at the size: everything after uses these copies */
	struct tp_live_header h;
	memset(&h, 0, sizeof h);
	uint64_t file_size = (uint64_t)st.st_size;
	if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
		file_size = 0;
	enum live_open_result r = check_header(&h, file_size, pid, p, f->path, why, why_size);
	if (r != LIVE_OPENED) {
		close(fd);
		return r;
	}
	void *m = mmap(NULL, h.file_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		snprintf(why, why_size, "cannot map %s: %s", shown, strerror(errno));
		close(fd);
		return LIVE_BAD;
	}
	f->map = m;
	f->size = h.file_size;
	f->fd = fd;
	f->header = h;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->pid = pid;
	return LIVE_OPENED;
}

/*
 * Opens pid's file in `dir`. With `own_dir` the directory is used only when it is the owner's
 * own: a directory of the process's owner that no other user can write (one that is not is
 * ignored, said in `why`); `follow`: its name may be a link (a setting, as given).
 */
static enum live_open_result open_in(struct live_file *f, pid_t pid, const struct process *p,
				     const char *dir, bool own_dir, bool follow, char *why,
				     size_t why_size)
{
	char shown[SHOWN_PATH_SIZE];
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (dirfd < 0) {
		int error = errno;
		snprintf(why, why_size,
			 "no live statistics for pid %d (%s: %s): start it with `taskprobe run` or "
			 "TASKPROBE_LIVE=1 (as the same user)",
			 (int)pid, shown_path(shown, dir), strerror(error));
		return error == EACCES ? LIVE_FOREIGN : LIVE_MISSING;
	}
	struct stat st;
	if (own_dir &&
	    (fstat(dirfd, &st) != 0 || st.st_uid != p->uid || (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		close(dirfd);
		snprintf(why, why_size,
			 "no live statistics for pid %d: %s is ignored (not a directory of uid %u "
			 "that only it can write)",
			 (int)pid, shown_path(shown, dir), (unsigned)p->uid);
		return LIVE_MISSING;
	}
	enum live_open_result r = open_at(f, pid, p, dirfd, dir, why, why_size);
	close(dirfd);
	return r;
}

/* How telling a result's sentence is: of the places looked in, the most telling is said. */
static int telling(enum live_open_result r)
{
	return r == LIVE_MISSING ? 0 : 1;
}

/*
 * A place the process's shim may have put its file: `dir`, which must be a directory of the
 * user's own (`own_dir`), a link to it followed or not (`follow`); true to look no further.
 */
typedef bool each_dir_fn(const char *dir, bool own_dir, bool follow, void *context);

/*
 * Visits the directories the process `pid` (`p`) may have used (taskprobe_live.h, live_open),
 * in its shim's order; then, for a library from before the user's own directory, the shared
 * ones.
 */
static void each_default_dir(pid_t pid, const struct process *p, each_dir_fn *visit, void *context)
{
	char dir[8192];
	const char *chosen = process_getenv(p, "TASKPROBE_LIVE_DIR");
	if (chosen != NULL) {
		/* made absolute by the shim from its working directory at start: most likely now's */
		char cwd[4096];
		ssize_t n = -1;
		if (chosen[0] != '/' && p->known) {
			char link[64];
			snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
			n = readlink(link, cwd, sizeof cwd - 1);
		}
		if (n > 0) {
			cwd[n] = '\0';
			snprintf(dir, sizeof dir, "%s/%s", cwd, chosen);
		} else {
			snprintf(dir, sizeof dir, "%s", chosen);
		}
		visit(dir, true, true, context); /* the shim uses only it */
		return;
	}
	const char *xdg = process_getenv(p, "XDG_RUNTIME_DIR");
	if (xdg != NULL && xdg[0] == '/') {
		snprintf(dir, sizeof dir, "%s/" TP_LIVE_XDG_SUBDIR, xdg);
		if (visit(dir, true, false, context))
			return;
	}
	const char *tmp = process_getenv(p, "TMPDIR");
	const char *bases[] = {TP_LIVE_SHM_DIR, tmp != NULL && tmp[0] == '/' ? tmp : NULL,
			       TP_LIVE_TMP_DIR};
	for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
		if (bases[b] == NULL ||
		    (b == 2 && tmp != NULL && strcmp(tmp, TP_LIVE_TMP_DIR) == 0))
			continue;
		char own[64];
		snprintf(own, sizeof own, TP_LIVE_USER_DIR_PREFIX "%u", (unsigned)p->uid);
		snprintf(dir, sizeof dir, "%s/%s", bases[b], own);
		if (visit(dir, true, false, context))
			return;
		/* the ones the shim made when another user had taken that name: "NAME.XXXXXX" */
		DIR *d = opendir(bases[b]);
		struct dirent *e;
		size_t own_len = strlen(own);
		bool done = false;
		while (!done && d != NULL && (e = readdir(d)) != NULL) {
			if (strncmp(e->d_name, own, own_len) != 0 || e->d_name[own_len] != '.' ||
			    strlen(e->d_name + own_len + 1) != TP_LIVE_BESIDE_RANDOM)
				continue;
			snprintf(dir, sizeof dir, "%s/%s", bases[b], e->d_name);
			done = visit(dir, true, false, context);
		}
		if (d != NULL)
			closedir(d);
		if (done)
			return;
	}
	/* a library from before the user's own directory: the file in the shared one itself */
	for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++)
		if (bases[b] != NULL && visit(bases[b], false, false, context))
			return;
}

/* What open_in_default_dirs looks for, and the most telling sentence said so far. */
struct looking {
	struct live_file *f;
	pid_t pid;
	const struct process *p;
	char *why;
	size_t why_size;
	enum live_open_result said;
	bool any_said, opened;
};

static bool look_in(const char *dir, bool own_dir, bool follow, void *context)
{
	struct looking *l = context;
	char sentence[1024];
	enum live_open_result r = open_in(l->f, l->pid, l->p, dir, own_dir, follow, sentence,
					  sizeof sentence);
	if (r == LIVE_OPENED)
		return l->opened = true;
	if (!l->any_said || telling(r) > telling(l->said) ||
	    (telling(r) == telling(l->said) && strstr(sentence, "is ignored") != NULL)) {
		l->said = r;
		snprintf(l->why, l->why_size, "%s", sentence);
		l->any_said = true;
	}
	return false;
}

/* Opens the file of `pid` (`p`) in the first of each_default_dir's places that has it. */
static enum live_open_result open_in_default_dirs(struct live_file *f, pid_t pid,
						  const struct process *p, char *why,
						  size_t why_size)
{
	struct looking l = {
		.f = f, .pid = pid, .p = p, .why = why, .why_size = why_size, .said = LIVE_MISSING};
	each_default_dir(pid, p, look_in, &l);
	return l.opened ? LIVE_OPENED : l.said;
}

enum live_open_result live_open(struct live_file *f, pid_t pid, const char *dir, char *why,
				size_t why_size)
{
	memset(f, 0, sizeof *f);
	f->fd = -1;
	struct process p;
	process_read(&p, pid);
	enum live_open_result r = dir != NULL ? open_in(f, pid, &p, dir, false, true, why, why_size)
					      : open_in_default_dirs(f, pid, &p, why, why_size);
	/* nothing found for a pid that nothing has: that is what to say first */
	if (r == LIVE_MISSING && !p.known && kill(pid, 0) != 0 && errno == ESRCH)
		snprintf(why, why_size,
			 "no process %d: nothing runs with that pid, and it left no live "
			 "statistics (start a program with `taskprobe top -- PROGRAM` or "
			 "`taskprobe run`)",
			 (int)pid);
	process_free(&p);
	return r;
}

void live_close(struct live_file *f)
{
	if (f->map != NULL)
		munmap((void *)f->map, f->size);
	if (f->fd >= 0)
		close(f->fd);
	f->map = NULL;
	f->fd = -1;
}

/* Removes `f`, open, if its header names process `pid` started at `start_ticks` in namespace
 * `namespace` and not kept, and the name is still the file's; closes it. */
static bool remove_named(struct live_file *f, uint64_t start_ticks, uint64_t namespace)
{
	struct stat st;
	/* check_header lets an unknown start time or namespace pass: here they must be the same */
	bool removed = false;
	if (f->header.start_ticks == start_ticks && f->header.pid_namespace == namespace &&
	    f->header.kept == 0 && lstat(f->path, &st) == 0 && st.st_dev == f->dev &&
	    st.st_ino == f->ino)
		removed = unlink(f->path) == 0;
	live_close(f);
	return removed;
}

/* The caller, as the owner of a gone process's statistics: its uid and pid namespace. */
static struct process gone_process(uint64_t start_ticks)
{
	struct process p = {.uid = geteuid(), .start_ticks = start_ticks};
	struct stat st;
	if (stat("/proc/self/ns/pid", &st) == 0)
		p.pid_namespace = (uint64_t)st.st_ino;
	return p;
}

bool live_remove_ended(pid_t pid, uint64_t start_ticks)
{
	/* the process is gone: its owner was the caller, its directories the caller's (the
	 * environment it started with, in the working directory it started in) */
	struct process p = gone_process(start_ticks);
	struct live_file f;
	memset(&f, 0, sizeof f);
	f.fd = -1;
	char why[1024];
	if (start_ticks == 0 || open_in_default_dirs(&f, pid, &p, why, sizeof why) != LIVE_OPENED)
		return false;
	return remove_named(&f, start_ticks, p.pid_namespace);
}

/* Removes the statistics in `dir` of the caller's processes that have ended (each_dir_fn). */
static bool sweep(const char *dir, bool own_dir, bool follow, void *context)
{
	(void)context;
	struct process p = gone_process(0); /* any start time: the header's is asked after */
	DIR *d = own_dir && p.pid_namespace != 0 ? opendir(dir) : NULL; /* a shared one: left */
	const size_t prefix = sizeof TP_LIVE_FILE_PREFIX - 1;
	struct dirent *e;
	while (d != NULL && (e = readdir(d)) != NULL) {
		char *end, why[1024];
		if (strncmp(e->d_name, TP_LIVE_FILE_PREFIX, prefix) != 0)
			continue;
		long pid = strtol(e->d_name + prefix, &end, 10);
		struct live_file f = {.fd = -1};
		if (*end != '\0' || pid <= 0 || pid > INT32_MAX ||
		    open_in(&f, (pid_t)pid, &p, dir, true, follow, why, sizeof why) != LIVE_OPENED)
			continue;
		if (live_process_ended((pid_t)pid, f.header.start_ticks))
			remove_named(&f, f.header.start_ticks, p.pid_namespace);
		else
			live_close(&f);
	}
	if (d != NULL)
		closedir(d);
	return false;
}

void live_remove_all_ended(void)
{
	struct process self;
	process_read(&self, getpid());
	each_default_dir(getpid(), &self, sweep, NULL);
	process_free(&self);
}

struct live_id live_id(const struct live_file *f)
{
	return (struct live_id){f->pid, f->header.ns_at_start};
}

bool live_id_listed(struct live_id id, const struct live_id *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i].pid == id.pid && ids[i].started_ns == id.started_ns)
			return true;
	return false;
}

/* Whether the statistics of `a` began after those of `b` (the pid telling equal starts apart). */
static bool began_after(struct live_id a, struct live_id b)
{
	return a.started_ns != b.started_ns ? a.started_ns > b.started_ns : a.pid > b.pid;
}

/* A process's place in the order a user goes through a run's (n, N): an MPI job's ranks by
 * rank, as the process says it now (once its MPI_Init ended; read as the snapshots are, safe from
 * a file that shrinks), the others after them. */
struct place {
	uint64_t rank; /* UINT64_MAX: no MPI rank */
	struct live_id id;
};

static struct place place_of(const struct live_file *f)
{
	uint32_t rank;
	return (struct place){live_mpi_rank(f, &rank) ? rank : UINT64_MAX, live_id(f)};
}

static bool placed_after(struct place a, struct place b)
{
	return a.rank != b.rank ? a.rank > b.rank : began_after(a.id, b.id);
}

/* A process as a choice is judged: its place and the tasks it spawned, read once a scan. */
struct candidate {
	struct place place;
	uint64_t spawned;
};

/*
 * Whether `candidate` is a better choice than `best` (NULL: none yet) by `choice`; `from`: the
 * process the next and previous are of.
 */
static bool better(enum live_choice choice, const struct candidate *candidate,
		   const struct candidate *best, struct place from)
{
	struct place c = candidate->place;
	/* one that spawned no task is no program's but an MPI rank's: its threads and waits */
	if (candidate->spawned == 0 && c.rank == UINT64_MAX)
		return false;
	if (best == NULL)
		return true;
	struct place b = best->place;
	switch (choice) {
	case LIVE_BUSIEST: /* of equals (an MPI job's ranks of MPI alone), the first placed */
		return candidate->spawned != best->spawned ? candidate->spawned > best->spawned
							   : placed_after(b, c);
	case LIVE_FIRST_STARTED:
		return began_after(b.id, c.id);
	case LIVE_NEXT: /* the first after `from`, or the first of all */
		if (placed_after(c, from) != placed_after(b, from))
			return placed_after(c, from);
		return placed_after(b, c);
	case LIVE_PREVIOUS: /* the last before `from`, or the last of all */
		if (placed_after(from, c) != placed_after(from, b))
			return placed_after(from, c);
		return placed_after(c, b);
	}
	return false;
}

void live_each_in_dir(const char *dir, live_visit *visit, void *context)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const size_t prefix = sizeof TP_LIVE_FILE_PREFIX - 1;
		pid_t pid;
		if (strncmp(e->d_name, TP_LIVE_FILE_PREFIX, prefix) != 0 ||
		    !live_parse_pid(e->d_name + prefix, &pid))
			continue;
		struct live_file f;
		char why[1024];
		if (live_open(&f, pid, dir, why, sizeof why) == LIVE_OPENED && !visit(&f, context))
			live_close(&f);
	}
	closedir(d);
}

/* live_open_child's choice so far. */
struct choosing {
	struct live_file *f;
	const struct live_id *except;
	size_t n_except;
	enum live_choice choice;
	struct place from;
	bool found;
	struct candidate chosen;
};

static bool choose(struct live_file *candidate, void *context)
{
	struct choosing *c = context;
	if (live_id_listed(live_id(candidate), c->except, c->n_except))
		return false;
	struct candidate judged = {place_of(candidate), live_spawned(candidate)};
	if (!better(c->choice, &judged, c->found ? &c->chosen : NULL, c->from))
		return false;
	if (c->found)
		live_close(c->f);
	*c->f = *candidate;
	c->found = true;
	c->chosen = judged;
	return true;
}

bool live_open_child(struct live_file *f, const char *dir, const struct live_id *except,
		     size_t n_except, enum live_choice choice, const struct live_file *from)
{
	struct choosing c = {.f = f,
			     .except = except,
			     .n_except = n_except,
			     .choice = choice,
			     .from = from != NULL ? place_of(from) : (struct place){0}};
	live_each_in_dir(dir, choose, &c);
	return c.found;
}

bool live_replaced(const struct live_file *f)
{
	struct stat st;
	return stat(f->path, &st) == 0 && (st.st_dev != f->dev || st.st_ino != f->ino);
}
