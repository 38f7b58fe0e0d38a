// SPDX-License-Identifier: MIT
/*
 * The live statistics' file (live_file.h): its directory chosen and made, stale files of gone
 * processes swept, the file made under an unfinished name, given its space, mapped and renamed
 * once whole; removed at the end.
 */
#define _GNU_SOURCE
#include "live_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "process.h"
#include "real_symbol.h"
#include "settings.h"
#include "taskprobe_live.h"
#include "warn.h"

/* The directory of this process's file (taskprobe_live.h), absolute, chosen at start. */
static char live_dir[PATH_MAX - sizeof TP_LIVE_FILE_PREFIX - TP_LIVE_PID_DIGITS];
/* The file's path, and the file made there (give_space checks it is still the one). */
static char live_path[PATH_MAX];
static dev_t live_dev;
static ino_t live_ino;

/* Whether `path` is a directory of the calling user's own that no other user can write. */
static bool users_own_directory(const char *path, struct stat *st)
{
	return lstat(path, st) == 0 && S_ISDIR(st->st_mode) && st->st_uid == geteuid() &&
	       (st->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* `path` made (mode 0700) if missing; whether it is then the user's own (said if not). */
static bool made_users_own(const char *path)
{
	struct stat st;
	if (mkdir(path, 0700) != 0 && errno != EEXIST)
		return false;
	if (users_own_directory(path, &st))
		return true;
	if (lstat(path, &st) == 0)
		tp_warn("live statistics: %.300s is not this user's own directory (owner %u, mode "
			"%03o): another user made it",
			path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
	return false;
}

/* The random part of a directory made beside a taken name (mkdtemp's). */
#define RANDOM_SUFFIX ".XXXXXX"
_Static_assert(sizeof RANDOM_SUFFIX - 2 == TP_LIVE_BESIDE_RANDOM, "the readers' length");

/*
 * When another user made the per-user directory's name first: one of this user's own beside it,
 * named with random characters (an earlier run's, if there is one), which the console looks in
 * too. `path` holds the name taken; it gets the one used.
 */
static bool beside_taken_name(char *path, size_t size)
{
	char *slash = strrchr(path, '/');
	if (slash == NULL || slash == path)
		return false;
	*slash = '\0';
	char name[NAME_MAX + 1];
	snprintf(name, sizeof name, "%s.", slash + 1);
	size_t name_length = strlen(name);
	DIR *d = opendir(path);
	struct dirent *e;
	bool found = false;
	while (d != NULL && !found && (e = readdir(d)) != NULL) {
		char candidate[PATH_MAX];
		struct stat st;
		found = strncmp(e->d_name, name, name_length) == 0 &&
			strlen(e->d_name) == name_length + TP_LIVE_BESIDE_RANDOM &&
			snprintf(candidate, sizeof candidate, "%s/%s", path, e->d_name) <
				(int)sizeof candidate &&
			users_own_directory(candidate, &st);
		if (found)
			snprintf(slash + 1, size - (size_t)(slash + 1 - path), "%s", e->d_name);
	}
	if (d != NULL)
		closedir(d);
	*slash = '/';
	if (!found) {
		size_t length = strlen(path);
		if (length + sizeof RANDOM_SUFFIX > size)
			return false;
		memcpy(path + length, RANDOM_SUFFIX, sizeof RANDOM_SUFFIX);
		if (mkdtemp(path) == NULL)
			return false;
	}
	tp_warn("live statistics: using %.300s instead", path);
	return true;
}

/*
 * Chooses the file's directory (taskprobe_live.h): TASKPROBE_LIVE_DIR, made absolute (the
 * program may change its working directory before it ends); else the user's own one, made if
 * missing. False, said, when there is none.
 */
static bool choose_live_directory(void)
{
	const char *chosen = tp_settings()->live_dir;
	if (chosen != NULL) {
		char cwd[PATH_MAX];
		if (chosen[0] == '/')
			snprintf(live_dir, sizeof live_dir, "%s", chosen);
		else if (getcwd(cwd, sizeof cwd) == NULL ||
			 snprintf(live_dir, sizeof live_dir, "%s/%s", cwd, chosen) >=
				 (int)sizeof live_dir)
			live_dir[0] = '\0';
		if (live_dir[0] == '\0')
			tp_warn("live statistics off: TASKPROBE_LIVE_DIR=\"%.300s\" cannot be made "
				"absolute",
				chosen);
		return live_dir[0] != '\0';
	}
	const char *runtime = secure_getenv("XDG_RUNTIME_DIR");
	struct stat st;
	if (runtime != NULL && runtime[0] == '/' && users_own_directory(runtime, &st) &&
	    snprintf(live_dir, sizeof live_dir, "%s/" TP_LIVE_XDG_SUBDIR, runtime) <
		    (int)sizeof live_dir &&
	    made_users_own(live_dir))
		return true;
	const char *base = TP_LIVE_SHM_DIR;
	if (access(base, W_OK | X_OK) != 0) {
		const char *tmp = secure_getenv("TMPDIR");
		base = tmp != NULL && tmp[0] == '/' ? tmp : TP_LIVE_TMP_DIR;
	}
	if (snprintf(live_dir, sizeof live_dir, "%s/" TP_LIVE_USER_DIR_PREFIX "%u", base,
		     (unsigned)geteuid()) < (int)sizeof live_dir &&
	    (made_users_own(live_dir) || beside_taken_name(live_dir, sizeof live_dir)))
		return true;
	tp_warn("live statistics off: no directory of this user's own for them in %.300s", base);
	return false;
}

/* An unfinished file this old is one whose maker is gone (making it takes microseconds). */
#define UNFINISHED_STALE_S 60

/* Whether the process `pid` that started at `start_ticks` (0: unknown) is gone. */
static bool process_gone(long pid, uint64_t start_ticks)
{
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		return true;
	if (start_ticks == 0)
		return false;
	char path[64], text[1536];
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, text, sizeof text);
	tp_real_close(fd);
	/* the pid is another process's now */
	return n > 0 && tp_process_start_ticks_of(text, (size_t)n) != start_ticks;
}

/*
 * Whether the file open as `fd`, named for `pid` in its directory, is a stale one: the calling
 * user's, of the same pid namespace (`namespace`), of a process that is gone (killed by a
 * signal, exec'ed into a program without the shim, or unable to remove it: it dropped its
 * privileges, or a system call filter forbade it). Only files kept on purpose stay
 * (TASKPROBE_LIVE=keep). An unfinished one (its maker killed while making it) says no
 * namespace: it is stale when old.
 */
static bool stale(int fd, long pid, bool unfinished, uint64_t namespace)
{
	struct stat st;
	struct tp_live_header h;
	struct timespec now;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return false;
	if (unfinished) {
		if (clock_gettime(CLOCK_REALTIME, &now) != 0 ||
		    now.tv_sec - st.st_mtime < UNFINISHED_STALE_S)
			return false;
	} else if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
		   memcmp(h.magic, TP_LIVE_MAGIC, sizeof h.magic) != 0 || h.pid != (uint32_t)pid ||
		   h.pid_namespace != namespace || h.kept != 0) {
		return false;
	}
	return process_gone(pid, unfinished ? 0 : h.start_ticks);
}

/*
 * Removes the stale files in `dir` (see stale): a program killed by a signal leaves its file, in
 * memory on /dev/shm, until its pid's next process with statistics replaces it.
 */
static void remove_stale_files(const char *dir, uint64_t namespace)
{
	if (namespace == 0)
		return; /* a gone pid cannot be told from another namespace's */
	int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dir_fd >= 0 ? fdopendir(dir_fd) : NULL;
	if (d == NULL) {
		if (dir_fd >= 0)
			tp_real_close(dir_fd);
		return;
	}
	const size_t prefix = sizeof TP_LIVE_FILE_PREFIX - 1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char *end;
		if (strncmp(e->d_name, TP_LIVE_FILE_PREFIX, prefix) != 0)
			continue;
		long pid = strtol(e->d_name + prefix, &end, 10);
		bool unfinished = strcmp(end, TP_LIVE_UNFINISHED_SUFFIX) == 0;
		if ((*end != '\0' && !unfinished) || pid <= 0 || pid == (long)tp_process()->pid)
			continue;
		int fd = openat(dir_fd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		struct stat before, now;
		/* the name still the file judged: not one a new process with the pid just made */
		if (stale(fd, pid, unfinished, namespace) && fstat(fd, &before) == 0 &&
		    fstatat(dir_fd, e->d_name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now.st_ino == before.st_ino && now.st_dev == before.st_dev)
			unlinkat(dir_fd, e->d_name, 0);
		tp_real_close(fd);
	}
	closedir(d);
}

/*
 * Makes this process's file under its unfinished name (live_path with TP_LIVE_UNFINISHED_SUFFIX,
 * in `unfinished`): tp_live_file_make renames it to live_path once whole, so that a reader, or a
 * sweep of stale files, never finds a file half made (a program killed while making it leaves only
 * an unfinished one).
 */
static int make_file(char *unfinished, size_t size)
{
	snprintf(live_path, sizeof live_path, "%s/" TP_LIVE_FILE_PREFIX "%d", live_dir,
		 (int)tp_process()->pid);
	snprintf(unfinished, size, "%s" TP_LIVE_UNFINISHED_SUFFIX, live_path);
	for (int attempt = 0; attempt < 2; attempt++) {
		int fd = open(unfinished, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
		/* one an earlier process with this pid left */
		struct stat st;
		if (errno != EEXIST || lstat(unfinished, &st) != 0 || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid() || unlink(unfinished) != 0)
			break;
	}
	tp_warn("live statistics off: cannot make %.300s (%s)", unfinished, strerror(errno));
	return -1;
}

void *tp_live_file_make(void (*fill)(void *m))
{
	char unfinished[PATH_MAX + sizeof TP_LIVE_UNFINISHED_SUFFIX];
	struct rlimit file_size;
	if (getrlimit(RLIMIT_FSIZE, &file_size) == 0 && file_size.rlim_cur != RLIM_INFINITY &&
	    file_size.rlim_cur < TP_LIVE_FILE_SIZE) {
		/* the file's size past it would raise SIGXFSZ, which kills by default */
		tp_warn("live statistics off: the file size limit (ulimit -f: %llu KiB) is below "
			"their file's %llu KiB",
			(unsigned long long)file_size.rlim_cur / 1024,
			(unsigned long long)TP_LIVE_FILE_SIZE / 1024);
		return NULL;
	}
	int fd = make_file(unfinished, sizeof unfinished);
	if (fd < 0)
		return NULL;
	struct stat st;
	void *m = MAP_FAILED;
	int err = 0;
	if (ftruncate(fd, (off_t)TP_LIVE_FILE_SIZE) != 0 ||
	    fallocate(fd, 0, 0, (off_t)TP_LIVE_STACKS_SPACE_OFFSET) != 0 ||
	    fallocate(fd, 0, (off_t)TP_LIVE_STACKS_SPACE_END,
		      (off_t)(TP_LIVE_ROWS_OFFSET - TP_LIVE_STACKS_SPACE_END)) != 0 ||
	    fstat(fd, &st) != 0)
		err = errno;
	else
		m = mmap(NULL, TP_LIVE_FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED && err == 0)
		err = errno;
	tp_real_close(fd);
	if (m == MAP_FAILED) {
		tp_warn("live statistics off: cannot reserve %.300s (%s)", unfinished,
			strerror(err));
		unlink(unfinished);
		return NULL;
	}
	live_dev = st.st_dev;
	live_ino = st.st_ino;
	fill(m);
	/* whole: under its name (one an earlier process with this pid left is replaced) */
	if (rename(unfinished, live_path) != 0) {
		tp_warn("live statistics off: cannot name %.300s (%s)", live_path, strerror(errno));
		munmap(m, TP_LIVE_FILE_SIZE);
		unlink(unfinished);
		return NULL;
	}
	return m;
}

bool tp_live_file_directory(void)
{
	if (!choose_live_directory())
		return false;
	remove_stale_files(live_dir, tp_process()->pid_namespace);
	return true;
}

bool tp_live_file_allocate(uint64_t offset, uint64_t length)
{
	int fd = open(live_path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	struct stat st;
	bool ok = fstat(fd, &st) == 0 && st.st_dev == live_dev && st.st_ino == live_ino &&
		  fallocate(fd, 0, (off_t)offset, (off_t)length) == 0;
	tp_real_close(fd);
	return ok;
}

void tp_live_file_remove(void)
{
	unlink(live_path);
}
