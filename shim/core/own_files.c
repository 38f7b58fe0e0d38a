// SPDX-License-Identifier: MIT
/* The files the shim writes and the descriptors it keeps (own_files.h). */
#define _GNU_SOURCE
#include "own_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "process.h"
#include "real_symbol.h"
#include "spin_lock.h"

static struct tp_own_fd *kept[TP_OWN_FDS_MAX];
static unsigned kept_count; /* the close family's one check while the shim keeps none */
static int registry_lock;

bool tp_output_path(const char *pattern, char *path, size_t size)
{
	size_t k = 0;
	for (const char *p = pattern; *p != '\0'; p++) {
		char piece[24] = {*p, '\0'};
		if (p[0] == '%' && p[1] == 'p') {
			snprintf(piece, sizeof piece, "%d", (int)tp_process()->pid);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			p++;
		}
		size_t n = strlen(piece);
		if (k + n >= size)
			return false;
		memcpy(path + k, piece, n);
		k += n;
	}
	path[k] = '\0';
	return true;
}

static const char *open_failure(int err)
{
	if (err == ELOOP)
		return "it is a symbolic link, which taskprobe does not follow";
	if (err == ENXIO) /* opened without blocking (below) */
		return "it is a fifo no process reads, or a device that is not there";
	return strerror(err);
}

int tp_output_open(const char *path, int flags, bool devices, bool *made, const char **why)
{
	/* O_NOCTTY: a terminal named by the setting never becomes the program's controlling one */
	flags |= O_NOCTTY;
	int fd = open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		*made = true;
		return fd;
	}
	if (errno != EEXIST) {
		*why = open_failure(errno);
		return -1;
	}
	/* without blocking: a fifo planted under the name must not hold the program here */
	fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		*why = open_failure(errno);
		return -1;
	}
	struct stat st = {0};
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		/*
		 * A character device (/dev/null, a terminal) is written as the shell's `2>` would:
		 * only root makes one, and the open just passed the kernel's check of the user's
		 * right to write it, whoever owns it. A fifo's (or socket's) other end may be
		 * anyone's and a write to it may wait for good: refused, as are directories.
		 */
		if (!(devices && S_ISCHR(st.st_mode))) {
			*why = S_ISREG(st.st_mode) ? "it is another user's file"
			       : devices           ? "it is neither a regular file nor a character "
						     "device"
						   : "it is not a regular file";
			tp_real_close(fd);
			errno = EPERM;
			return -1;
		}
	}
	(void)tp_real_fcntl(fd, F_SETFL, flags & O_APPEND);
	*made = false;
	return fd;
}

/* The lowest number a kept descriptor may have: TP_OWN_FD_FLOOR, or less under a low limit. */
static int fd_floor(void)
{
	struct rlimit files;
	if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY &&
	    files.rlim_cur <= TP_OWN_FD_FLOOR)
		return (int)files.rlim_cur / 2;
	return TP_OWN_FD_FLOOR;
}

bool tp_own_fd_keep(struct tp_own_fd *owned, int fd)
{
	int floor = fd_floor();
	if (fd < floor) {
		int moved = tp_real_fcntl(fd, F_DUPFD_CLOEXEC, floor);
		if (moved >= 0) {
			tp_real_close(fd);
			fd = moved;
		}
	}
	tp_spin_lock(&registry_lock);
	unsigned i = 0;
	while (i < TP_OWN_FDS_MAX && kept[i] != NULL && kept[i] != owned)
		i++;
	if (i == TP_OWN_FDS_MAX) {
		tp_spin_unlock(&registry_lock);
		tp_real_close(fd);
		return false;
	}
	__atomic_store_n(&owned->fd, fd, __ATOMIC_RELEASE);
	if (kept[i] == NULL) {
		__atomic_store_n(&kept[i], owned, __ATOMIC_RELEASE);
		__atomic_add_fetch(&kept_count, 1, __ATOMIC_RELEASE);
	}
	tp_spin_unlock(&registry_lock);
	return true;
}

/* Takes `owned` out of the registry; its number is then the program's to close. */
static int unregister(struct tp_own_fd *owned)
{
	tp_spin_lock(&registry_lock);
	for (unsigned i = 0; i < TP_OWN_FDS_MAX; i++)
		if (kept[i] == owned) {
			__atomic_store_n(&kept[i], NULL, __ATOMIC_RELEASE);
			__atomic_sub_fetch(&kept_count, 1, __ATOMIC_RELEASE);
		}
	int fd = __atomic_exchange_n(&owned->fd, -1, __ATOMIC_ACQ_REL);
	tp_spin_unlock(&registry_lock);
	return fd;
}

void tp_own_fd_close(struct tp_own_fd *owned)
{
	tp_spin_lock(&owned->lock);
	int fd = unregister(owned);
	if (fd >= 0)
		tp_real_close(fd); /* no longer kept: the close family passes it on */
	tp_spin_unlock(&owned->lock);
}

void tp_own_fd_forget(struct tp_own_fd *owned)
{
	(void)unregister(owned);
}

int tp_own_fd_use(struct tp_own_fd *owned)
{
	tp_spin_lock(&owned->lock);
	return __atomic_load_n(&owned->fd, __ATOMIC_ACQUIRE);
}

void tp_own_fd_done(struct tp_own_fd *owned)
{
	tp_spin_unlock(&owned->lock);
}

/*
 * A child made without fork handlers (vfork, _Fork, a raw clone) has its own copies of the
 * descriptors but its parent's memory (a vfork child shares it): the registry is the parent's,
 * and the child's copies are the program's, to close or replace as it would without the shim.
 * Asked only when a call names a kept number.
 */
static bool kept_by_this_process(void)
{
	return tp_process_is_current();
}

bool tp_own_fd_is(int fd)
{
	if (__atomic_load_n(&kept_count, __ATOMIC_ACQUIRE) == 0 || fd < 0)
		return false;
	for (unsigned i = 0; i < TP_OWN_FDS_MAX; i++) {
		struct tp_own_fd *owned = __atomic_load_n(&kept[i], __ATOMIC_ACQUIRE);
		if (owned != NULL && __atomic_load_n(&owned->fd, __ATOMIC_ACQUIRE) == fd)
			return kept_by_this_process();
	}
	return false;
}

/* The gates the calling thread is inside (nested: a signal handler's unwind in an unwind). */
static __thread unsigned gates_entered __attribute__((tls_model("initial-exec")));

void tp_own_fd_gate_enter(struct tp_own_fd_gate *gate)
{
	if (gates_entered++ > 0) {
		/* inside already: a move waits for this thread's outer use, not the other way */
		__atomic_add_fetch(&gate->users, 1, __ATOMIC_SEQ_CST);
		return;
	}
	for (unsigned spins = 0;;) {
		__atomic_add_fetch(&gate->users, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&gate->moving, __ATOMIC_SEQ_CST) == 0)
			return;
		__atomic_sub_fetch(&gate->users, 1, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&gate->moving, __ATOMIC_RELAXED) > 0)
			tp_spin_turn(&spins);
	}
}

void tp_own_fd_gate_leave(struct tp_own_fd_gate *gate)
{
	__atomic_sub_fetch(&gate->users, 1, __ATOMIC_SEQ_CST);
	gates_entered--;
}

/* A move begins: users coming wait, and those inside leave first (but this thread). */
static void gate_close(struct tp_own_fd_gate *gate)
{
	__atomic_add_fetch(&gate->moving, 1, __ATOMIC_SEQ_CST);
	for (unsigned spins = 0;
	     gates_entered == 0 && __atomic_load_n(&gate->users, __ATOMIC_SEQ_CST) > 0;)
		tp_spin_turn(&spins);
}

void tp_own_fd_make_way(int fd)
{
	if (!tp_own_fd_is(fd))
		return;
	int saved_errno = errno;
	for (unsigned i = 0; i < TP_OWN_FDS_MAX; i++) {
		struct tp_own_fd *owned = __atomic_load_n(&kept[i], __ATOMIC_ACQUIRE);
		if (owned == NULL)
			continue;
		/*
		 * No use of its mirror's users is under way: waited for before the lock, which a
		 * user inside may take (libunwind closing its pipe, tp_own_fd_close), and asked
		 * again under it
		 */
		struct tp_own_fd_gate *gate = __atomic_load_n(&owned->fd, __ATOMIC_ACQUIRE) == fd
						      ? owned->gate
						      : NULL;
		if (gate != NULL)
			gate_close(gate);
		tp_spin_lock(&owned->lock); /* no write of the owner's is under way */
		if (__atomic_load_n(&owned->fd, __ATOMIC_ACQUIRE) == fd) {
			int moved = tp_real_fcntl(fd, F_DUPFD_CLOEXEC, fd_floor());
			if (moved >= 0)
				__atomic_store_n(&owned->fd, moved, __ATOMIC_RELEASE);
			else
				(void)unregister(owned); /* the owner finds none: it stops */
			if (owned->mirror != NULL)
				__atomic_store_n(owned->mirror, moved >= 0 ? moved : -1,
						 __ATOMIC_RELEASE);
			tp_real_close(fd); /* no longer kept: the close family passes it on */
		}
		tp_spin_unlock(&owned->lock);
		if (gate != NULL)
			__atomic_sub_fetch(&gate->moving, 1, __ATOMIC_SEQ_CST);
	}
	errno = saved_errno;
}

unsigned tp_own_fds_within(unsigned first, unsigned last, int fds[TP_OWN_FDS_MAX])
{
	unsigned n = 0;
	if (__atomic_load_n(&kept_count, __ATOMIC_ACQUIRE) == 0)
		return 0;
	for (unsigned i = 0; i < TP_OWN_FDS_MAX; i++) {
		struct tp_own_fd *owned = __atomic_load_n(&kept[i], __ATOMIC_ACQUIRE);
		int fd = owned != NULL ? __atomic_load_n(&owned->fd, __ATOMIC_ACQUIRE) : -1;
		if (fd < 0 || (unsigned)fd < first || (unsigned)fd > last)
			continue;
		unsigned at = n++;
		for (; at > 0 && fds[at - 1] > fd; at--) /* ascending */
			fds[at] = fds[at - 1];
		fds[at] = fd;
	}
	return n > 0 && kept_by_this_process() ? n : 0;
}

void tp_own_fds_child_after_fork(void)
{
	registry_lock = 0;
	/* the other threads inside a gate, or moving, are not in the child: only this one */
	for (unsigned i = 0; i < TP_OWN_FDS_MAX; i++)
		if (kept[i] != NULL) {
			kept[i]->lock = 0;
			if (kept[i]->gate != NULL) {
				kept[i]->gate->users = (int)gates_entered;
				kept[i]->gate->moving = 0;
			}
		}
}
