// SPDX-License-Identifier: MIT
/* Reading live statistics into snapshots (live_view.h). */
#define _GNU_SOURCE
#include "live_view.h"
#include "live_names.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "shown_text.h"
#include "taskprobe_contract.h"

/* --- text --- */

static bool text_utf8;

void live_text_utf8(bool utf8)
{
	text_utf8 = utf8;
}

size_t live_escape(char *out, size_t size, const char *in, size_t len, bool keep_newlines)
{
	return tp_shown_text(out, size, in, len,
			     (keep_newlines ? TP_SHOWN_NEWLINES : 0) |
				     (text_utf8 ? TP_SHOWN_UTF8 : 0));
}

/* A path, escaped, for a sentence (the directory may come from the process's environment). */
#define SHOWN_PATH_SIZE 512
static const char *shown_path(char out[SHOWN_PATH_SIZE], const char *path)
{
	live_escape(out, SHOWN_PATH_SIZE, path, strlen(path), false);
	return out;
}

/* --- whose file --- */

bool live_parse_pid(const char *text, pid_t *pid)
{
	uint64_t value = 0;
	if (text[0] == '\0' || strlen(text) > 10)
		return false;
	for (const char *c = text; *c != '\0'; c++) {
		if (*c < '0' || *c > '9')
			return false;
		value = value * 10 + (uint64_t)(*c - '0');
	}
	uint64_t most = INT_MAX;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	unsigned long long pid_max;
	if (f != NULL) {
		if (fscanf(f, "%llu", &pid_max) == 1 && pid_max > 0 && pid_max - 1 < most)
			most = pid_max - 1; /* pids are below pid_max */
		fclose(f);
	}
	if (value < 1 || value > most)
		return false;
	*pid = (pid_t)value;
	return true;
}

/* Up to `size` - 1 bytes of a /proc file, NUL-terminated; false when it cannot be read. */
static bool read_proc(const char *path, char *buf, size_t size, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	size_t used = 0;
	while (used + 1 < size) {
		ssize_t n = read(fd, buf + used, size - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	buf[used] = '\0';
	if (len != NULL)
		*len = used;
	return used > 0;
}

#define ENVIRON_MAX (1u << 20)

/* What the console knows of a process: whose it is, when it started, its shim's settings. */
struct process {
	bool known;             /* there, and its status read (else: gone, or hidden) */
	uid_t uid;              /* its effective uid; the caller's when not known */
	uint64_t start_ticks;   /* /proc/PID/stat's starttime, 0 unknown */
	uint64_t pid_namespace; /* the inode of /proc/PID/ns/pid, 0 unknown */
	char *environ;          /* its environment as it started (NUL-separated), or NULL */
	size_t environ_len;
};

/*
 * The state and the start time (starttime, 0 unknown) of process `pid`, from /proc/PID/stat;
 * false when it cannot be read (the process is gone, or hidden).
 */
static bool read_stat(pid_t pid, char *state, uint64_t *start_ticks)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	/* "pid (comm) state ppid ...": starttime is field 22, the 20th after the comm */
	const char *after_comm;
	if (!read_proc(path, buf, sizeof buf, NULL) || (after_comm = strrchr(buf, ')')) == NULL ||
	    sscanf(after_comm + 1, " %c", state) != 1)
		return false;
	const char *field = after_comm + 1;
	for (int i = 0; i < 19 && field != NULL; i++)
		field = strchr(field + 1, ' ');
	unsigned long long ticks;
	*start_ticks = field != NULL && sscanf(field, " %llu", &ticks) == 1 ? ticks : 0;
	return true;
}

static void process_read(struct process *p, pid_t pid)
{
	*p = (struct process){.uid = geteuid()};
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if (read_proc(path, buf, sizeof buf, NULL)) {
		const char *uid = strstr(buf, "\nUid:");
		unsigned real, effective;
		if (uid != NULL && sscanf(uid, "\nUid: %u %u", &real, &effective) == 2) {
			p->uid = (uid_t)effective;
			p->known = true;
		}
	}
	if (!p->known)
		return;
	char state;
	read_stat(pid, &state, &p->start_ticks);
	struct stat st;
	snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)pid);
	if (stat(path, &st) == 0)
		p->pid_namespace = (uint64_t)st.st_ino;
	snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
	char *env = malloc(ENVIRON_MAX);
	size_t len;
	if (env != NULL && read_proc(path, env, ENVIRON_MAX, &len)) {
		p->environ = env;
		p->environ_len = len;
	} else {
		free(env);
	}
}

static void process_free(struct process *p)
{
	free(p->environ);
	p->environ = NULL;
}

/*
 * A setting of the process's shim: from its environment, or the caller's when it cannot be read
 * (a gone process's kept file). NULL when unset or empty.
 */
static const char *process_getenv(const struct process *p, const char *name)
{
	const char *value = NULL;
	if (p->environ == NULL) {
		value = getenv(name);
	} else {
		size_t name_len = strlen(name);
		for (size_t at = 0; at < p->environ_len;) {
			const char *entry = p->environ + at;
			size_t len = strlen(entry); /* within: the buffer ends with a NUL */
			if (len > name_len && memcmp(entry, name, name_len) == 0 &&
			    entry[name_len] == '=')
				value = entry + name_len + 1; /* the last one wins, as in getenv */
			at += len + 1;
		}
	}
	return value != NULL && value[0] != '\0' ? value : NULL;
}

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
 * Looks in the directories the process's shim may have used (taskprobe_live.h, live_open),
 * in its order; then, for a library from before the user's own directory, the shared ones.
 */
static enum live_open_result open_in_default_dirs(struct live_file *f, pid_t pid,
						  const struct process *p, char *why,
						  size_t why_size)
{
	enum live_open_result said = LIVE_MISSING;
	char sentence[1024];
	bool any_said = false;
#define TRY(dir, own_dir, follow)                                                                  \
	do {                                                                                       \
		enum live_open_result r_ = open_in(f, pid, p, dir, own_dir, follow, sentence,      \
						   sizeof sentence);                               \
		if (r_ == LIVE_OPENED)                                                             \
			return r_;                                                                 \
		if (!any_said || telling(r_) > telling(said) ||                                    \
		    (telling(r_) == telling(said) && strstr(sentence, "is ignored") != NULL)) {    \
			said = r_;                                                                 \
			snprintf(why, why_size, "%s", sentence);                                   \
			any_said = true;                                                           \
		}                                                                                  \
	} while (0)
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
		TRY(dir, true, true); /* the shim uses only it */
		return said;
	}
	const char *xdg = process_getenv(p, "XDG_RUNTIME_DIR");
	if (xdg != NULL && xdg[0] == '/') {
		snprintf(dir, sizeof dir, "%s/" TP_LIVE_XDG_SUBDIR, xdg);
		TRY(dir, true, false);
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
		TRY(dir, true, false);
		/* the ones the shim made when another user had taken that name: "NAME.XXXXXX" */
		DIR *d = opendir(bases[b]);
		struct dirent *e;
		size_t own_len = strlen(own);
		while (d != NULL && (e = readdir(d)) != NULL) {
			if (strncmp(e->d_name, own, own_len) != 0 || e->d_name[own_len] != '.' ||
			    strlen(e->d_name + own_len + 1) != TP_LIVE_BESIDE_RANDOM)
				continue;
			snprintf(dir, sizeof dir, "%s/%s", bases[b], e->d_name);
			TRY(dir, true, false);
		}
		if (d != NULL)
			closedir(d);
	}
	/* a library from before the user's own directory: the file in the shared one itself */
	for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++)
		if (bases[b] != NULL)
			TRY(bases[b], false, false);
#undef TRY
	return said;
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

/* --- reading the map --- */

/*
 * A file that shrinks under the console (another process's doing: the program never shrinks
 * it) makes a read of its map raise SIGBUS. Its size is looked at before each read, and a read
 * is guarded: a SIGBUS inside it ends the read, which fails; one elsewhere is as without a
 * handler.
 */
static sigjmp_buf bus_jump;
static volatile sig_atomic_t bus_guarded;

static void on_sigbus(int signal_number)
{
	if (bus_guarded) {
		bus_guarded = 0;
		siglongjmp(bus_jump, 1);
	}
	signal(signal_number, SIG_DFL); /* the fault happens again, unhandled */
}

/* Runs `read` (reading f's map) guarded; false when the file is shorter or a SIGBUS came. */
static bool guarded_read(const struct live_file *f, void (*read)(void *), void *arg, char *why,
			 size_t why_size)
{
	static bool installed;
	char shown[SHOWN_PATH_SIZE];
	struct stat st;
	if (fstat(f->fd, &st) != 0 || (uint64_t)st.st_size < f->size) {
		snprintf(
			why, why_size,
			"%s shrank to %llu bytes (from %llu): damaged, not by the program: stopped",
			shown_path(shown, f->path), (unsigned long long)st.st_size,
			(unsigned long long)f->size);
		return false;
	}
	if (!installed) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_sigbus;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, NULL);
		installed = true;
	}
	if (sigsetjmp(bus_jump, 1) != 0) {
		snprintf(why, why_size,
			 "%s shrank while it was read (SIGBUS): damaged, not by the program: "
			 "stopped",
			 shown_path(shown, f->path));
		return false;
	}
	bus_guarded = 1;
	read(arg);
	bus_guarded = 0;
	return true;
}

/* Slot `i`'s rows, or NULL before they have space (the offsets: the header checked at open). */
static const struct tp_live_site_stats *slot_rows(const struct live_file *f, unsigned i)
{
	const struct tp_live_thread *slots = (const void *)(f->map + TP_LIVE_THREADS_OFFSET);
	if (!__atomic_load_n(&slots[i].rows_ready, __ATOMIC_ACQUIRE))
		return NULL;
	return (const void *)(f->map + f->header.rows_offset + (uint64_t)i * f->header.rows_stride);
}

struct spawned_read {
	const struct live_file *f;
	uint64_t spawned;
};

static void read_spawned(void *arg)
{
	struct spawned_read *r = arg;
	for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
		const struct tp_live_site_stats *rows = slot_rows(r->f, i);
		for (uint32_t row = 0; rows != NULL && row < TP_LIVE_SITES; row++)
			r->spawned += __atomic_load_n(&rows[row].spawned, __ATOMIC_RELAXED);
	}
}

uint64_t live_spawned(const struct live_file *f)
{
	struct spawned_read r = {f, 0};
	char why[1024];
	return guarded_read(f, read_spawned, &r, why, sizeof why) ? r.spawned : 0;
}

bool live_process_gone(pid_t pid)
{
	return kill(pid, 0) != 0 && errno == ESRCH;
}

bool live_process_ended(pid_t pid, uint64_t start_ticks)
{
	char state;
	uint64_t ticks;
	if (!read_stat(pid, &state, &ticks))
		return live_process_gone(pid);
	/* a zombie (its parent has not waited for it yet), or the pid another process's now */
	return state == 'Z' || state == 'X' || ticks != start_ticks;
}

bool live_remove_ended(pid_t pid, uint64_t start_ticks)
{
	/* the process is gone: its owner was the caller, its directories the caller's (the
	 * environment it started with, in the working directory it started in) */
	struct process p = {.uid = geteuid(), .start_ticks = start_ticks};
	struct stat st;
	if (stat("/proc/self/ns/pid", &st) == 0)
		p.pid_namespace = (uint64_t)st.st_ino;
	struct live_file f;
	memset(&f, 0, sizeof f);
	f.fd = -1;
	char why[1024];
	if (start_ticks == 0 || open_in_default_dirs(&f, pid, &p, why, sizeof why) != LIVE_OPENED)
		return false;
	/* check_header lets an unknown start time or namespace pass: here they must be the same */
	bool removed = false;
	if (f.header.start_ticks == start_ticks && f.header.pid_namespace == p.pid_namespace &&
	    f.header.kept == 0 && lstat(f.path, &st) == 0 && st.st_dev == f.dev &&
	    st.st_ino == f.ino)
		removed = unlink(f.path) == 0;
	live_close(&f);
	return removed;
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

/* Whether `candidate` (which spawned `spawned`) is a better choice than `best` by `choice`. */
static bool better(enum live_choice choice, const struct live_file *candidate, uint64_t spawned,
		   const struct live_file *best, uint64_t best_spawned)
{
	if (spawned == 0)
		return false;
	if (best == NULL)
		return true;
	if (choice == LIVE_BUSIEST)
		return spawned > best_spawned;
	return candidate->header.ns_at_start < best->header.ns_at_start;
}

bool live_open_child(struct live_file *f, const char *dir, const struct live_id *except,
		     size_t n_except, enum live_choice choice)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return false;
	bool found = false;
	uint64_t found_spawned = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const size_t prefix = sizeof TP_LIVE_FILE_PREFIX - 1;
		pid_t pid;
		if (strncmp(e->d_name, TP_LIVE_FILE_PREFIX, prefix) != 0 ||
		    !live_parse_pid(e->d_name + prefix, &pid))
			continue;
		struct live_file candidate;
		char why[1024];
		if (live_open(&candidate, pid, dir, why, sizeof why) != LIVE_OPENED)
			continue;
		if (live_id_listed(live_id(&candidate), except, n_except)) {
			live_close(&candidate);
			continue;
		}
		uint64_t spawned = live_spawned(&candidate);
		if (better(choice, &candidate, spawned, found ? f : NULL, found_spawned)) {
			if (found)
				live_close(f);
			*f = candidate;
			found = true;
			found_spawned = spawned;
		} else {
			live_close(&candidate);
		}
	}
	closedir(d);
	return found;
}

bool live_replaced(const struct live_file *f)
{
	struct stat st;
	return stat(f->path, &st) == 0 && (st.st_dev != f->dev || st.st_ino != f->ino);
}

static uint64_t load64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static uint32_t load32(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Now in the process's clock (taskprobe_live.h); `rate` its ns_per_tsc_2_32 now. */
static uint64_t process_now(const struct tp_live_header *h, uint64_t rate)
{
#if defined(__x86_64__)
	/* the counter's rate, once the process has timed it (until then its times are CLOCK_MONOTONIC) */
	if (h->clock == TP_LIVE_CLOCK_TSC && rate != 0)
		return tp_live_tsc_ns(__rdtsc(), h->tsc_at_start, h->ns_at_start, rate);
#else
	(void)h;
	(void)rate;
#endif
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void add_row(struct site_view *v, const struct tp_live_site_stats *r)
{
	v->spawned += load64(&r->spawned);
	v->done += load64(&r->done);
	v->polls += load64(&r->polls);
	v->busy_ns += load64(&r->busy_ns);
	v->idle_ns += load64(&r->idle_ns);
	v->delay_ns += load64(&r->delay_ns);
	v->delays += load64(&r->delays);
	uint64_t longest = load64(&r->longest_poll_ns);
	if (longest > v->longest_poll_ns)
		v->longest_poll_ns = longest;
	v->long_polls += load64(&r->long_polls);
	v->blocking_waits += load64(&r->blocking_waits);
	v->blocking_ns += load64(&r->blocking_ns);
	v->sync_waited_ns += load64(&r->sync_waited_ns);
	v->sync_waits += load64(&r->sync_waits);
	uint64_t first = load64(&r->first_spawn_ns), last = load64(&r->last_done_ns);
	if (first != 0 && (v->first_spawn_ns == 0 || first < v->first_spawn_ns))
		v->first_spawn_ns = first;
	if (last > v->last_done_ns)
		v->last_done_ns = last;
	for (unsigned b = 0; b < TP_LIVE_BUCKETS; b++) {
		v->poll_histogram[b] += load64(&r->poll_histogram[b]);
		v->delay_histogram[b] += load64(&r->delay_histogram[b]);
	}
	for (unsigned b = 0; b < TP_LIVE_COST_BUCKETS; b++) {
		v->spawn_gap_histogram[b + TP_LIVE_COST_SHIFT] += __atomic_load_n(
			&r->spawn_gap_histogram[b], __ATOMIC_RELAXED);
		v->start_delay_histogram[b + TP_LIVE_COST_SHIFT] += __atomic_load_n(
			&r->start_delay_histogram[b], __ATOMIC_RELAXED);
		v->task_time_histogram[b + TP_LIVE_COST_SHIFT] += __atomic_load_n(
			&r->task_time_histogram[b], __ATOMIC_RELAXED);
	}
}

static const struct thread_view *previous_thread(const struct live_snapshot *previous,
						 uint32_t slot, uint32_t generation)
{
	if (previous == NULL)
		return NULL;
	for (unsigned i = 0; i < previous->n_threads; i++)
		if (previous->threads[i].slot == slot &&
		    previous->threads[i].generation == generation)
			return &previous->threads[i];
	return NULL;
}

static double share(uint64_t part, uint64_t whole)
{
	double s = whole > 0 ? (double)part / (double)whole : 0;
	return s < 0 ? 0 : s > 1 ? 1 : s;
}

struct snapshot_read {
	const struct live_file *f;
	const struct live_snapshot *previous;
	struct live_snapshot *out;
	struct site_view *by_row[TP_LIVE_SITES];
};

/*
 * A text field of the map (`size` bytes), copied once, read up to its NUL or its end, escaped.
 * The copy is the one read: the field may change meanwhile.
 */
static void copy_text(char *out, size_t out_size, const char *field, size_t size,
		      bool keep_newlines)
{
	char raw[TP_LIVE_SITE_TEXT];
	if (size > sizeof raw)
		size = sizeof raw;
	memcpy(raw, field, size);
	live_escape(out, out_size, raw, size, keep_newlines);
}

/*
 * The task graph's figures, over every slot ever taken (a slot's outlive its threads), read as
 * the exit report reads them (tp_live_graph_read), and each parallel region's.
 */
static void read_graph(struct snapshot_read *r, const struct tp_live_thread *slots)
{
	struct live_snapshot *out = r->out;
	static struct tp_live_graph g; /* a thread's computation each: too large a local */
	tp_live_graph_read((const struct tp_live_header *)r->f->map, slots, out->now_ns, &g);
	out->work_ns = g.work_ns;
	out->graph_threads = g.threads;
	out->graph_first_ns = g.first_ns;
	out->graph_last_ns = g.last_ns;
	out->longest = g.longest;
	out->span_ns = g.span_ns;
	out->factors = tp_live_graph_factors(&g);
	out->roi_pairs = g.roi_pairs;
	for (uint32_t row = 1; row < TP_LIVE_SITES; row++)
		if (r->by_row[row] != NULL && r->by_row[row]->by_executor)
			r->by_row[row]->region = tp_live_region_read(
				slots, r->f->map, r->f->header.rows_offset,
				r->f->header.rows_stride, row, out->now_ns);
	/* the path's time by site: never more than the path, whatever a torn read gave */
	uint64_t kept = 0;
	for (unsigned k = 0; k < TP_LIVE_PATH_SITES; k++) {
		uint64_t v = out->longest.sites[k], ns = v & TP_LIVE_PATH_NS_MASK;
		struct site_view *site = r->by_row[(v >> TP_LIVE_PATH_ROW_SHIFT) % TP_LIVE_SITES];
		if (v == 0 || site == NULL || kept + ns > out->longest.ns)
			continue;
		site->path_ns += ns;
		site->path_fragments += out->longest.fragments[k];
		kept += ns;
	}
	out->path_other_ns = out->longest.ns - kept;
}

/*
 * A thread's waits (thread_view's), its wait going on now (wait_kind, wait_for_ns: read
 * already) added, and its running time to `now_ns` or its end.
 */
static void read_thread_waits(struct thread_view *w, const struct tp_live_thread *t,
			      uint64_t now_ns)
{
	w->waits = load64(&t->waits);
	w->waited_total_ns = 0;
	for (unsigned k = 0; k < TP_LIVE_WAIT_KINDS; k++) {
		w->waited_ns[k] = load64(&t->waited_ns[k]);
		if (k == w->wait_kind)
			w->waited_ns[k] += w->wait_for_ns;
		w->waited_total_ns += w->waited_ns[k];
	}
	w->longest_wait_ns = load64(&t->longest_wait_ns);
	w->longest_wait_kind = load32(&t->longest_wait_kind);
	w->longest_wait_address = load64(&t->longest_wait_address);
	w->longest_wait_module = load32(&t->longest_wait_module);
	if (w->wait_kind != 0 && w->wait_for_ns > w->longest_wait_ns) {
		w->longest_wait_ns = w->wait_for_ns;
		w->longest_wait_kind = w->wait_kind;
		w->longest_wait_address = w->wait_address;
		w->longest_wait_module = w->wait_module;
	}
	uint64_t started = load64(&t->started_ns), ended = load64(&t->ended_ns);
	uint64_t end = w->ended && ended != 0 ? ended : now_ns;
	uint64_t alive = end > started ? end - started : 0;
	w->running_ns = alive > w->waited_total_ns ? alive - w->waited_total_ns : 0;
}

/* The snapshot's reading of the map (guarded_read): every value copied once, then used. */
static void read_snapshot(void *arg)
{
	struct snapshot_read *r = arg;
	const struct live_file *f = r->f;
	struct live_snapshot *out = r->out;
	const struct tp_live_header *h = (const struct tp_live_header *)f->map;
	const struct tp_live_site *sites = (const void *)(f->map + TP_LIVE_SITES_OFFSET);
	const struct tp_live_thread *slots = (const void *)(f->map + TP_LIVE_THREADS_OFFSET);
	/* what the process changes as it runs; the rest as checked at open */
	out->header = f->header;
	bool exited = __atomic_load_n(&h->exited, __ATOMIC_ACQUIRE) != 0;
	out->header.exited = exited;
	out->header.exited_ns = load64(&h->exited_ns);
	out->header.ns_per_tsc_2_32 = load64(&h->ns_per_tsc_2_32);
	out->header.threads_uncounted = load64(&h->threads_uncounted);
	out->header.tasks_untracked = load64(&h->tasks_untracked);
	out->header.events_dropped = load64(&h->events_dropped);
	out->header.stacks_dropped = load64(&h->stacks_dropped);
	out->header.threads_without_space = load64(&h->threads_without_space);
	out->header.waiting_threads_unlisted = load64(&h->waiting_threads_unlisted);
	out->header.notes = load32(&h->notes);
	live_escape(out->comm, sizeof out->comm, f->header.comm, sizeof f->header.comm, false);
	out->now_ns = exited ? out->header.exited_ns
			     : process_now(&out->header, out->header.ns_per_tsc_2_32);
	out->elapsed_ns = out->now_ns > out->header.ns_at_start
				  ? out->now_ns - out->header.ns_at_start
				  : 0;

	/* sites: rows summed over every slot that has them */
	for (uint32_t row = 0; row < TP_LIVE_SITES; row++) {
		if (__atomic_load_n(&sites[row].state, __ATOMIC_ACQUIRE) != TP_LIVE_ENTRY_READY)
			continue;
		/* a sync construct's site is no task site: a table of its own */
		uint32_t sync_kind = load32(&sites[row].sync_kind);
		struct site_view *v = sync_kind != 0 ? &out->syncs[out->n_syncs++]
						     : &out->sites[out->n_sites++];
		v->sync_kind = sync_kind;
		v->mutex_kind = load32(&sites[row].mutex_kind);
		v->row = row;
		v->site_id = load32(&sites[row].site_id);
		v->by_executor = load32(&sites[row].by_executor) != 0;
		v->address = load64(&sites[row].address);
		v->module = load32(&sites[row].module);
		copy_text(v->text, sizeof v->text, sites[row].text, sizeof sites[row].text, false);
		r->by_row[row] = v;
	}
	for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
		const struct tp_live_site_stats *rows = slot_rows(f, i);
		for (uint32_t row = 0; rows != NULL && row < TP_LIVE_SITES; row++)
			if (r->by_row[row] != NULL)
				add_row(r->by_row[row], &rows[row]);
	}

	/*
	 * The spawn stacks, of sites there are: read, not through the map, whose pages of them
	 * have no space until a first stack is sampled (a read of the map would give them some,
	 * from the program's file system, or a SIGBUS where it is full).
	 */
	static struct tp_live_stack stacks[TP_LIVE_STACKS];
	ssize_t got = pread(f->fd, stacks, sizeof stacks, (off_t)TP_LIVE_STACKS_OFFSET);
	size_t whole = got > 0 ? (size_t)got / sizeof stacks[0] : 0;
	for (unsigned i = 0; i < whole; i++) {
		uint32_t site = stacks[i].site, wait_entry = site & ~TP_LIVE_STACK_OF_WAIT_SITE;
		bool of_wait = (site & TP_LIVE_STACK_OF_WAIT_SITE) != 0;
		if (stacks[i].state != TP_LIVE_ENTRY_READY ||
		    (of_wait ? wait_entry >= TP_LIVE_WAIT_SITES : site >= TP_LIVE_SITES))
			continue; /* beyond the sites: never from the shim, a damaged file */
		struct stack_view *k = &out->stacks[out->n_stacks++];
		k->row = stacks[i].site;
		k->samples = stacks[i].samples;
		k->depth = stacks[i].depth < TP_LIVE_STACK_FRAMES ? stacks[i].depth
								  : TP_LIVE_STACK_FRAMES;
		memcpy(k->pcs, stacks[i].pcs, k->depth * sizeof k->pcs[0]);
	}

	/* the waits' call sites: read, not through the map (their figures are atomics anyway) */
	static struct tp_live_wait_site wait_sites[TP_LIVE_WAIT_SITES];
	got = pread(f->fd, wait_sites, sizeof wait_sites, (off_t)TP_LIVE_WAITS_OFFSET);
	whole = got > 0 ? (size_t)got / sizeof wait_sites[0] : 0;
	for (unsigned i = 0; i < whole; i++) {
		if (wait_sites[i].state != TP_LIVE_ENTRY_READY || wait_sites[i].waits == 0)
			continue;
		struct wait_view *w = &out->waits[out->n_waits++];
		w->entry = TP_LIVE_STACK_OF_WAIT_SITE | i;
		w->address = wait_sites[i].address;
		w->module = wait_sites[i].module;
		w->kind = wait_sites[i].kind;
		w->waits = wait_sites[i].waits;
		w->total_ns = wait_sites[i].total_ns;
		w->longest_ns = wait_sites[i].longest_ns;
		w->waiting = wait_sites[i].waiting;
		w->thread_bits = wait_sites[i].threads;
		w->threads = (unsigned)__builtin_popcountll(w->thread_bits);
	}

	read_graph(r, slots);

	/* threads: every slot in use; after the exit, the ended ones too */
	const struct live_snapshot *previous = r->previous;
	uint64_t since_previous = previous != NULL && out->now_ns > previous->now_ns
					  ? out->now_ns - previous->now_ns
					  : out->elapsed_ns;
	for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
		const struct tp_live_thread *t = &slots[i];
		uint32_t use = __atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE);
		if (use != TP_LIVE_SLOT_LIVE && !(use == TP_LIVE_SLOT_ENDED && exited))
			continue;
		struct thread_view *w = &out->threads[out->n_threads++];
		w->slot = i;
		w->ended = use == TP_LIVE_SLOT_ENDED;
		w->generation = load32(&t->generation);
		w->tid = load32(&t->tid);
		uint32_t worker = load32(&t->worker);
		w->worker = worker == TP_LIVE_WORKER;
		w->was_worker = worker == TP_LIVE_WORKER || worker == TP_LIVE_WORKER_ENDED;
		char raw_name[sizeof t->name];
		memcpy(raw_name, t->name, sizeof raw_name);
		copy_text(w->name, sizeof w->name, raw_name, sizeof raw_name, false);
		/* the process's own name: a thread that set none (named by its start routine) */
		w->unnamed = strncmp(raw_name, f->header.comm, sizeof raw_name) == 0;
		w->start_routine = load64(&t->start_routine);
		w->start_module = load32(&t->start_module);
		w->state = load32(&t->state);
		uint32_t site = load32(&t->site);
		/* never beyond the table from the shim: a damaged file */
		w->site = site < TP_LIVE_SITES ? site : TP_LIVE_OVERFLOW;
		uint64_t since = load64(&t->state_since);
		w->state_for_ns = out->now_ns > since ? out->now_ns - since : 0;
		w->wait_kind = load32(&t->wait_kind);
		uint64_t wait_since = load64(&t->wait_since);
		w->wait_for_ns = w->wait_kind != 0 && out->now_ns > wait_since
					 ? out->now_ns - wait_since
					 : 0;
		w->wait_task = load64(&t->wait_task);
		w->wait_address = w->wait_kind != 0 ? load64(&t->wait_address) : 0;
		w->wait_module = load32(&t->wait_module);
		w->polls = load64(&t->polls);
		read_thread_waits(w, t, out->now_ns);
		w->busy_ns = load64(&t->busy_ns) +
			     (w->state == TP_LIVE_POLLING ? w->state_for_ns : 0);
		w->parked_ns = load64(&t->parked_ns) +
			       (w->state == TP_LIVE_PARKED ? w->state_for_ns : 0);
		/* over the last interval, or since the thread took its slot */
		const struct thread_view *before = previous_thread(previous, i, w->generation);
		uint64_t taken = load64(&t->taken_ns);
		uint64_t interval = before != NULL        ? since_previous
				    : out->now_ns > taken ? out->now_ns - taken
							  : 0;
		/* a state read while it changed can make a figure step back: no share then */
		uint64_t busy = before == NULL                 ? w->busy_ns
				: w->busy_ns > before->busy_ns ? w->busy_ns - before->busy_ns
							       : 0;
		uint64_t parked = before == NULL ? w->parked_ns
				  : w->parked_ns > before->parked_ns
					  ? w->parked_ns - before->parked_ns
					  : 0;
		w->busy_share = share(busy, interval);
		w->parked_share = share(parked, interval);
		/* what is neither busy nor blocked: spinning, looking for work, the runtime's */
		w->spinning_share = w->was_worker ? 1 - w->busy_share - w->parked_share : 0;
		if (w->spinning_share < 0)
			w->spinning_share = 0;
		struct site_view *v = r->by_row[w->site];
		if (w->state == TP_LIVE_POLLING && v != NULL) {
			v->polling_now++;
			if (w->state_for_ns > v->longest_now_ns)
				v->longest_now_ns = w->state_for_ns;
		}
	}
}

/*
 * The snapshot's sites and stacks named (the shim keeps them as addresses: live_names.h), out of
 * the guarded read: naming reads the modules' files, never the map.
 */
/* Sync sites by the time tasks waited there, most first. */
static int by_time_synced(const void *a, const void *b)
{
	const struct site_view *x = a, *y = b;
	return x->sync_waited_ns > y->sync_waited_ns ? -1 : x->sync_waited_ns < y->sync_waited_ns;
}

static void name_addresses(const struct live_file *f, struct live_snapshot *out)
{
	live_names_modules(f);
	char name[TP_LIVE_SITE_TEXT];
	for (unsigned i = 0; i < out->n_sites + out->n_syncs; i++) {
		struct site_view *v = i < out->n_sites ? &out->sites[i]
						       : &out->syncs[i - out->n_sites];
		if (v->address == 0 || v->text[0] != '\0')
			continue;
		live_name(v->address, v->module, true, name, sizeof name);
		live_escape(v->text, sizeof v->text, name, strlen(name), false);
	}
	for (unsigned i = 0; i < out->n_waits; i++) {
		struct wait_view *w = &out->waits[i];
		if (w->address == 0) {
			snprintf(w->text, sizeof w->text, "(sites beyond the first %d)",
				 TP_LIVE_WAIT_SITES - 1);
			continue;
		}
		live_name(w->address, w->module, true, name, sizeof name);
		live_escape(w->text, sizeof w->text, name, strlen(name), false);
	}
	for (unsigned i = 0; i < out->n_threads; i++) {
		struct thread_view *w = &out->threads[i];
		if (!w->unnamed || w->start_routine == 0)
			continue;
		live_name_function(w->start_routine, w->start_module, name, sizeof name);
		if (name[0] != '\0') /* else the routine has no name: the process's stays */
			live_escape(w->name, sizeof w->name, name, strlen(name), false);
	}
	for (unsigned i = 0; i < out->n_threads; i++) {
		struct thread_view *w = &out->threads[i];
		if (w->wait_address != 0) {
			live_name(w->wait_address, w->wait_module, true, name, sizeof name);
			live_escape(w->wait_site, sizeof w->wait_site, name, strlen(name), false);
		}
		if (w->longest_wait_address != 0) {
			live_name(w->longest_wait_address, w->longest_wait_module, true, name,
				  sizeof name);
			live_escape(w->longest_wait_site, sizeof w->longest_wait_site, name,
				    strlen(name), false);
		}
	}
	for (unsigned i = 0; i < out->n_stacks; i++) {
		struct stack_view *k = &out->stacks[i];
		char frames[LIVE_STACK_TEXT_SHOWN];
		size_t used = 0;
		frames[0] = '\0';
		for (uint32_t d = 0; d < k->depth && used + 1 < sizeof frames; d++) {
			live_name(k->pcs[d], TP_LIVE_NO_MODULE, false, name, sizeof name);
			int n = snprintf(frames + used, sizeof frames - used, "%s%s",
					 d > 0 ? "\n" : "", name);
			if (n < 0 || (size_t)n >= sizeof frames - used)
				break;
			used += (size_t)n;
		}
		live_escape(k->text, sizeof k->text, frames, used, true);
	}
}

/* The wait sites by total time waited, most first. */
static int by_time_waited(const void *a, const void *b)
{
	const struct wait_view *x = a, *y = b;
	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

/* Adds the figures of site `from` to site `to`'s (two call addresses of one construct). */
static void merge_site(struct site_view *to, const struct site_view *from)
{
	to->spawned += from->spawned;
	to->done += from->done;
	to->polls += from->polls;
	to->busy_ns += from->busy_ns;
	to->idle_ns += from->idle_ns;
	to->delay_ns += from->delay_ns;
	to->delays += from->delays;
	to->long_polls += from->long_polls;
	to->blocking_waits += from->blocking_waits;
	to->blocking_ns += from->blocking_ns;
	to->polling_now += from->polling_now;
	to->path_ns += from->path_ns;
	to->path_fragments += from->path_fragments;
	/* a region of two call addresses (an unrolled loop's): the busier one's balance */
	if (from->region.computation_ns > to->region.computation_ns) {
		to->region.load_balance = from->region.load_balance;
		to->region.threads = from->region.threads;
	}
	to->region.computation_ns += from->region.computation_ns;
	if (from->longest_poll_ns > to->longest_poll_ns)
		to->longest_poll_ns = from->longest_poll_ns;
	if (from->longest_now_ns > to->longest_now_ns)
		to->longest_now_ns = from->longest_now_ns;
	if (from->first_spawn_ns != 0 &&
	    (to->first_spawn_ns == 0 || from->first_spawn_ns < to->first_spawn_ns))
		to->first_spawn_ns = from->first_spawn_ns;
	if (from->last_done_ns > to->last_done_ns)
		to->last_done_ns = from->last_done_ns;
	for (unsigned b = 0; b < TP_LIVE_BUCKETS; b++) {
		to->poll_histogram[b] += from->poll_histogram[b];
		to->delay_histogram[b] += from->delay_histogram[b];
		to->task_time_histogram[b] += from->task_time_histogram[b];
		to->spawn_gap_histogram[b] += from->spawn_gap_histogram[b];
		to->start_delay_histogram[b] += from->start_delay_histogram[b];
	}
}

/*
 * Sites of one name made one: the shim keeps a site per call address, and a compiler that
 * unrolls a loop copies its one construct's call. The rows merged away point to the one kept
 * (the threads' and stacks' rows too).
 */
static void merge_sites_of_one_name(struct live_snapshot *out)
{
	uint32_t kept_row[TP_LIVE_SITES];
	for (uint32_t row = 0; row < TP_LIVE_SITES; row++)
		kept_row[row] = row;
	unsigned n = 0;
	for (unsigned i = 0; i < out->n_sites; i++) {
		struct site_view *v = &out->sites[i];
		unsigned k = 0;
		while (k < n && !(v->address != 0 && out->sites[k].address != 0 &&
				  strcmp(out->sites[k].text, v->text) == 0))
			k++;
		if (k < n) {
			merge_site(&out->sites[k], v);
			kept_row[v->row] = out->sites[k].row;
		} else if (k != i) {
			out->sites[n++] = *v;
		} else {
			n++;
		}
	}
	out->n_sites = n;
	for (unsigned i = 0; i < out->n_threads; i++)
		out->threads[i].site = kept_row[out->threads[i].site % TP_LIVE_SITES];
	for (unsigned i = 0; i < out->n_stacks; i++)
		if (!(out->stacks[i].row & TP_LIVE_STACK_OF_WAIT_SITE))
			out->stacks[i].row = kept_row[out->stacks[i].row % TP_LIVE_SITES];
}

/*
 * Wait sites of one text (one kind) made one: the shim keeps a site per call address, and one
 * source line may hold two calls of a wait (both branches of a condition, an unrolled loop). The
 * stacks of those merged away are the kept one's.
 */
static void merge_wait_sites_of_one_name(struct live_snapshot *out)
{
	unsigned n = 0;
	for (unsigned i = 0; i < out->n_waits; i++) {
		const struct wait_view *w = &out->waits[i];
		unsigned k = 0;
		while (k < n &&
		       !(w->address != 0 && out->waits[k].address != 0 &&
			 w->kind == out->waits[k].kind && strcmp(out->waits[k].text, w->text) == 0))
			k++;
		if (k == n) {
			out->waits[n++] = *w;
			continue;
		}
		struct wait_view *to = &out->waits[k];
		to->waits += w->waits;
		to->total_ns += w->total_ns;
		to->waiting += w->waiting;
		if (w->longest_ns > to->longest_ns)
			to->longest_ns = w->longest_ns;
		to->thread_bits |= w->thread_bits;
		to->threads = (unsigned)__builtin_popcountll(to->thread_bits);
		for (unsigned s = 0; s < out->n_stacks; s++)
			if (out->stacks[s].row == w->entry)
				out->stacks[s].row = to->entry;
	}
	out->n_waits = n;
}

bool live_snapshot(const struct live_file *f, const struct live_snapshot *previous,
		   struct live_snapshot *out, char *why, size_t why_size)
{
	memset(out, 0, sizeof *out);
	struct snapshot_read r = {.f = f, .previous = previous, .out = out};
	if (!guarded_read(f, read_snapshot, &r, why, why_size))
		return false;
	const struct tp_live_header *h = &out->header;
	name_addresses(f, out);
	merge_sites_of_one_name(out);
	merge_wait_sites_of_one_name(out);
	qsort(out->waits, out->n_waits, sizeof out->waits[0], by_time_waited);
	qsort(out->syncs, out->n_syncs, sizeof out->syncs[0], by_time_synced);

	for (unsigned i = 0; i < out->n_sites; i++) {
		struct site_view *v = &out->sites[i];
		v->alive = v->spawned > v->done ? v->spawned - v->done : 0;
		out->alive += v->alive;
		out->spawned += v->spawned;
		out->done += v->done;
		/* read as the exit report reads them (tp_live_quantile) */
		v->delay_p50_ns = tp_live_quantile(v->delay_histogram, 0.50, 0);
		v->delay_p99_ns = tp_live_quantile(v->delay_histogram, 0.99, 0);
		v->poll_p50_ns = tp_live_quantile(v->poll_histogram, 0.50, v->longest_poll_ns);
		v->poll_p99_ns = tp_live_quantile(v->poll_histogram, 0.99, v->longest_poll_ns);
		struct tp_live_granularity g = tp_live_granularity_of(
			v->task_time_histogram, v->spawn_gap_histogram, v->start_delay_histogram,
			v->done, v->by_executor);
		v->spawn_p50_ns = g.spawn_ns;
		v->start_p50_ns = g.start_ns;
		v->task_p50_ns = g.task_ns;
		if (v->long_polls > 0)
			v->warnings |= WARN_LONG_POLLS;
		if (v->blocking_waits > 0)
			v->warnings |= WARN_BLOCKS;
		if (!v->by_executor && v->done == 0 && v->alive > 0 && v->first_spawn_ns != 0 &&
		    out->now_ns > v->first_spawn_ns + LIVE_NEVER_ENDS_NS)
			v->warnings |= WARN_NEVER_ENDS;
		if (v->longest_now_ns >= h->long_poll_ns)
			v->warnings |= WARN_LONG_POLL_NOW;
		/* the verdict --analyze and the exit report give, on the median task's time (its
		 * polls added up: a task that waits for its children runs in several) */
		if (g.too_small)
			v->warnings |= WARN_TOO_SMALL;
	}
	return true;
}

const struct site_view *live_site(const struct live_snapshot *s, uint32_t row)
{
	for (unsigned i = 0; i < s->n_sites; i++)
		if (s->sites[i].row == row)
			return &s->sites[i];
	return NULL;
}

static const char *const column_names[COLUMNS] = {
	"site",    "spawned", "alive",   "done",  "polls",  "busy",  "delay50",
	"delay99", "idle",    "longest", "span%", "onpath", "spawn", "warnings",
};

const char *live_column_name(enum site_column column)
{
	return column < COLUMNS ? column_names[column] : "?";
}

enum site_column live_column_by_name(const char *name)
{
	for (unsigned c = 0; c < COLUMNS; c++)
		if (strcasecmp(name, column_names[c]) == 0)
			return (enum site_column)c;
	return COLUMNS;
}

/* The longest of a site's polls: ended, or going on now. */
static uint64_t longest(const struct site_view *v)
{
	return v->longest_now_ns > v->longest_poll_ns ? v->longest_now_ns : v->longest_poll_ns;
}

static uint64_t warning_weight(const struct site_view *v)
{
	return v->long_polls + v->blocking_waits +
	       ((v->warnings & (WARN_NEVER_ENDS | WARN_LONG_POLL_NOW)) ? 1u << 30 : 0);
}

static uint64_t sort_value(const struct site_view *v, enum site_column c)
{
	switch (c) {
	case COLUMN_SPAWNED:
		return v->spawned;
	case COLUMN_ALIVE:
		return v->alive;
	case COLUMN_DONE:
		return v->done;
	case COLUMN_POLLS:
		return v->polls;
	case COLUMN_BUSY:
		return v->busy_ns;
	case COLUMN_DELAY_P50:
		return v->delay_p50_ns;
	case COLUMN_DELAY_P99:
		return v->delay_p99_ns;
	case COLUMN_IDLE:
		return v->idle_ns;
	case COLUMN_LONGEST:
		return longest(v);
	case COLUMN_SPAN:
		return v->path_ns;
	case COLUMN_ON_PATH:
		return v->path_fragments;
	case COLUMN_SPAWN:
		return v->spawn_p50_ns;
	case COLUMN_WARNINGS:
		return warning_weight(v);
	default:
		return 0;
	}
}

static enum site_column sort_column;
static bool sort_ascending;

static int compare_sites(const void *a, const void *b)
{
	const struct site_view *x = a, *y = b;
	int order;
	if (sort_column == COLUMN_SITE) {
		order = strcmp(x->text, y->text);
	} else {
		uint64_t vx = sort_value(x, sort_column), vy = sort_value(y, sort_column);
		order = vx < vy ? -1 : vx > vy;
	}
	if (order == 0)
		order = x->row < y->row ? -1 : x->row > y->row; /* stable between refreshes */
	return sort_ascending ? order : -order;
}

void live_sort_sites(struct live_snapshot *s, enum site_column column, bool ascending)
{
	sort_column = column;
	sort_ascending = ascending;
	qsort(s->sites, s->n_sites, sizeof s->sites[0], compare_sites);
}

void live_format_ns(char *out, size_t size, uint64_t ns)
{
	if (ns < 1000)
		snprintf(out, size, "%uns", (unsigned)ns);
	else if (ns < 1000000)
		snprintf(out, size, "%.1fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(out, size, "%.1fms", (double)ns / 1e6);
	else if (ns < 1000000000000ull)
		snprintf(out, size, "%.2fs", (double)ns / 1e9);
	else
		snprintf(out, size, "%.0fs", (double)ns / 1e9);
}

void live_format_warnings(char *out, size_t size, const struct site_view *v, int width)
{
	char items[5][32];
	unsigned n = 0;
	if (v->warnings & WARN_LONG_POLL_NOW) {
		char t[16];
		live_format_ns(t, sizeof t, v->longest_now_ns);
		snprintf(items[n++], sizeof items[0], "polling %s now", t);
	}
	if (v->warnings & WARN_LONG_POLLS)
		snprintf(items[n++], sizeof items[0], "long %llu",
			 (unsigned long long)v->long_polls);
	if (v->warnings & WARN_BLOCKS)
		snprintf(items[n++], sizeof items[0], "blocks %llu",
			 (unsigned long long)v->blocking_waits);
	if (v->warnings & WARN_NEVER_ENDS)
		snprintf(items[n++], sizeof items[0], "never ends");
	if (v->warnings & WARN_TOO_SMALL)
		snprintf(items[n++], sizeof items[0], "too small");
	/* the most that fit whole, with room for " +N" when some do not */
	size_t used = 0, all = 0;
	for (unsigned i = 0; i < n; i++)
		all += (i > 0 ? 2 : 0) + strlen(items[i]);
	unsigned shown = n;
	if (width > 0 && all > (size_t)width) {
		size_t room = (size_t)width > 3 ? (size_t)width - 3 : 0; /* " +N" */
		size_t len = 0;
		for (shown = 0; shown < n; shown++) {
			size_t next = len + (shown > 0 ? 2 : 0) + strlen(items[shown]);
			if (next > room)
				break;
			len = next;
		}
	}
	out[0] = '\0';
	for (unsigned i = 0; i < shown && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%s", i > 0 ? ", " : "",
					 items[i]);
	if (shown < n && used < size)
		snprintf(out + used, size - used, "%s+%u", used > 0 ? " " : "", n - shown);
}

void live_format_too_small(char *out, size_t size, const struct site_view *v)
{
	out[0] = '\0';
	if (!(v->warnings & WARN_TOO_SMALL))
		return;
	/* in the exit report's words, figure for figure */
	struct tp_live_granularity g = {v->task_p50_ns, v->spawn_p50_ns, v->start_p50_ns, 1};
	tp_live_granularity_words(out, size, v->text, &g);
}

bool live_without_tasks(const struct live_snapshot *s)
{
	for (unsigned i = 0; i < s->n_threads; i++)
		if (s->threads[i].was_worker)
			return false;
	return s->n_sites == 0;
}

void live_format_figures(char *out, size_t size, const struct live_snapshot *s, int width)
{
	bool ended = s->header.exited;
	if (live_without_tasks(s)) {
		uint64_t waits = 0;
		for (unsigned i = 0; i < s->n_waits; i++)
			waits += s->waits[i].waits;
		uint64_t threads = s->n_threads + s->header.waiting_threads_unlisted;
		snprintf(out, size, "no task or worker %s; %llu thread%s, %llu wait%s%s",
			 ended ? "was seen" : "seen yet", (unsigned long long)threads,
			 threads == 1 ? "" : "s", (unsigned long long)waits, waits == 1 ? "" : "s",
			 ended ? "" : " so far");
		return;
	}
	if (s->work_ns == 0 || s->span_ns == 0) {
		snprintf(out, size, "task graph: no task of a parallel region %s",
			 ended ? "was polled" : "polled yet");
		return;
	}
	char work[16], span[16], elapsed[16];
	uint64_t wall = s->graph_last_ns > s->graph_first_ns ? s->graph_last_ns - s->graph_first_ns
							     : 0;
	live_format_ns(work, sizeof work, s->work_ns);
	live_format_ns(span, sizeof span, s->span_ns);
	live_format_ns(elapsed, sizeof elapsed, wall);
	double parallelism = (double)s->work_ns / (double)s->span_ns,
	       speedup = wall > 0 ? (double)s->work_ns / (double)wall : 0;
	/* the fragments going on now lengthen the path unburdened (as the exit report says) */
	uint64_t burdened_ns = s->longest.burdened_ns + (s->span_ns - s->longest.ns);
	char burdened[16];
	live_format_ns(burdened, sizeof burdened, burdened_ns);
	double burdened_parallelism = burdened_ns > 0 ? (double)s->work_ns / (double)burdened_ns
						      : 0;
	int n = snprintf(
		out, size,
		"work %s, span %s: parallelism %.2f (no number of workers runs this faster "
		"than %.2fx); burdened span %s: parallelism %.2f; measured %.2fx on %u "
		"worker%s (%s from the first task's poll to the last's)",
		work, span, parallelism, parallelism, burdened, burdened_parallelism, speedup,
		s->graph_threads, s->graph_threads == 1 ? "" : "s", elapsed);
	if (width > 0 && n > width) /* the figures alone, on a narrow terminal */
		snprintf(out, size,
			 "work %s, span %s: parallelism %.2f, burdened %.2f; measured %.2fx on %u",
			 work, span, parallelism, burdened_parallelism, speedup, s->graph_threads);
}

void live_format_factors(char *out, size_t size, const struct live_snapshot *s, int line)
{
	tp_live_factors_words(out, size, &s->factors, line);
}

void live_format_sync_header(char *out, size_t size, int width)
{
	snprintf(out, size, "%-*s  %-11s  %10s  %6s  %s", width, "SYNC SITE", "KIND", "WAITED",
		 "WAITS", "OF THE CRITICAL PATH");
}

void live_format_sync(char *out, size_t size, const struct live_snapshot *s,
		      const struct site_view *v, int width)
{
	char waited[24], share[16] = "-";
	if (v->sync_kind == 4 && s->span_ns > 0)
		snprintf(share, sizeof share, "%.1f%%",
			 100.0 * (double)v->path_ns / (double)s->span_ns);
	snprintf(out, size, "%-*.*s  %-11s  %10s  %6llu  %s", width, width, v->text,
		 tp_live_sync_kind_words(v->sync_kind, v->mutex_kind),
		 tp_live_duration_words(v->sync_waited_ns, waited, sizeof waited),
		 (unsigned long long)v->sync_waits, share);
}

void live_format_roi(char *out, size_t size, const struct live_snapshot *s)
{
	if (s->roi_pairs == 0)
		snprintf(out, size, "%s", "");
	else if (s->roi_pairs == 1)
		snprintf(out, size, "%s", "region of interest: omp_control_tool");
	else
		snprintf(out, size, "region of interest: omp_control_tool, %u start/stop pairs",
			 s->roi_pairs);
}

void live_format_region_header(char *out, size_t size, int width)
{
	snprintf(out, size, "%-*s  %12s  %12s  %7s", width, "PARALLEL REGION", "LOAD BALANCE",
		 "COMPUTATION", "THREADS");
}

bool live_format_region(char *out, size_t size, const struct site_view *v, int width)
{
	if (!v->by_executor || v->region.threads == 0) {
		snprintf(out, size, "%s", "");
		return false;
	}
	char computation[24];
	snprintf(out, size, "%-*.*s  %12.3f  %12s  %7u", width, width, v->text,
		 v->region.load_balance,
		 tp_live_duration_words(v->region.computation_ns, computation, sizeof computation),
		 v->region.threads);
	return true;
}

/* A share below this many per cent is "<1%". */
#define SHARE_SHOWN_MIN 1.0
void live_format_span_share(char *out, size_t size, const struct live_snapshot *s,
			    const struct site_view *v)
{
	double share = s->longest.ns > 0 ? 100.0 * (double)v->path_ns / (double)s->longest.ns : 0;
	if (v->path_ns == 0)
		snprintf(out, size, "-");
	else if (share < SHARE_SHOWN_MIN)
		snprintf(out, size, "<1%%");
	else
		snprintf(out, size, "%.0f%%", share);
}

const char *live_wait_kind_name(uint32_t kind)
{
	static const char *const names[] = TP_WAIT_KIND_NAMES;
	if (kind == 0)
		return "";
	return kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}
