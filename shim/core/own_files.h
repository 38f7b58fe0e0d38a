// SPDX-License-Identifier: MIT
/*
 * The files the shim writes for the user (a recording, a report) and the descriptors it keeps
 * open for them, as LTTng-UST's fd tracker keeps its own: out of the program's reach.
 *
 * Opening: a path from a setting is never followed through a symbolic link (a link planted in a
 * shared directory would aim a root program at any file), a file the shim makes is mode 0600
 * (the umask applies on top), and an existing file is written only when it is a regular file of
 * the user's own; what the caller does with an existing one (append, continue) is its choice,
 * never truncation.
 *
 * Keeping: a descriptor the shim keeps is moved to TP_OWN_FD_FLOOR or above, close-on-exec, and
 * the close family (interposers/descriptors.c) never closes or replaces it: the program's
 * close() of its number fails with EBADF, as it would without the shim, where that number is
 * not open; a dup2() onto its number first moves the shim's descriptor to another, then does
 * what the program asked. The owner uses the descriptor only between tp_own_fd_use and
 * tp_own_fd_done, so that it is never moved under a write. In a child made without fork
 * handlers (vfork, _Fork, a raw clone), whose memory is its parent's (a vfork child shares it),
 * the copies of the kept descriptors are the child's to close or replace: its calls leave the
 * parent's registry alone.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* A kept descriptor is moved at least this high, out of the way of the program's. */
#define TP_OWN_FD_FLOOR 1000

/* The most descriptors the shim keeps at once (a recording, libunwind's pipe; the report opens its
 * file at exit). */
#define TP_OWN_FDS_MAX 6 /* a recording's, a report's, libunwind's pipe's two ends, two spare */

/*
 * Users of kept descriptors that read their numbers from a mirror, without the lock, in code of
 * their own (libunwind writes a byte to its pipe to check an address it reads): between
 * tp_own_fd_gate_enter and tp_own_fd_gate_leave no descriptor with this gate is moved, so that
 * such a write never lands in the program's file that took the number (a dup2 onto it). Users
 * do not exclude each other; a move waits for the users inside to leave, and users coming wait
 * for the move. A thread inside (a signal handler of the program's that dup2()s onto the number
 * while the thread unwinds) does not wait for itself.
 */
struct tp_own_fd_gate {
	int users;  /* threads inside */
	int moving; /* moves under way */
};
void tp_own_fd_gate_enter(struct tp_own_fd_gate *gate);
void tp_own_fd_gate_leave(struct tp_own_fd_gate *gate);

struct tp_own_fd {
	int fd;                      /* -1: none */
	int lock;                    /* held by its user, and while it is moved */
	struct tp_own_fd_gate *gate; /* its mirror's users (below), or NULL */
	/*
	 * Where a library the shim loaded keeps the number too (libunwind's pipe: spawn_stack.c),
	 * or NULL: written when the descriptor moves, or -1 when it is given up, so that the
	 * library never uses a number that is the program's again.
	 */
	int *mirror;
};
#define TP_OWN_FD_NONE                                                                             \
	{                                                                                          \
		.fd = -1, .lock = 0                                                                \
	}

/*
 * `pattern` with every %p replaced by the pid and %% by a percent sign, into `path`; false when
 * it does not fit.
 */
bool tp_output_path(const char *pattern, char *path, size_t size);

/*
 * Opens `path` for writing (`flags`: O_WRONLY or O_RDWR, O_APPEND if wanted), as said above:
 * made (O_EXCL, 0600; *made true) or, when it exists, opened only if it is a regular file owned
 * by the calling user, or with `devices` a character device the user may write, such as
 * /dev/null (*made false). -1 with errno, and a reason in `why`, when refused.
 */
int tp_output_open(const char *path, int flags, bool devices, bool *made, const char **why);

/* Keeps `fd` in `owned` (moved high, close-on-exec, guarded); false, fd closed, if it cannot. */
bool tp_own_fd_keep(struct tp_own_fd *owned, int fd);
/* Closes and forgets the descriptor of `owned`. */
void tp_own_fd_close(struct tp_own_fd *owned);
/* Forgets it without closing it: a forked child's copy, which the parent still writes. */
void tp_own_fd_forget(struct tp_own_fd *owned);

/* The descriptor to write to, held from moving until tp_own_fd_done; -1 when there is none. */
int tp_own_fd_use(struct tp_own_fd *owned);
void tp_own_fd_done(struct tp_own_fd *owned);

/* For the close family: whether `fd` is one the shim keeps. */
bool tp_own_fd_is(int fd);
/*
 * For dup2 and dup3 onto `fd`: if the shim keeps `fd`, moves it to another number (or, when no
 * number is free, gives it up: the program's call must succeed as it would without the shim).
 */
void tp_own_fd_make_way(int fd);
/*
 * The descriptors the shim keeps within [first, last], ascending, into `fds` (at most
 * TP_OWN_FDS_MAX); their count.
 */
unsigned tp_own_fds_within(unsigned first, unsigned last, int fds[TP_OWN_FDS_MAX]);

/* In a forked child, from the lifecycle (lifecycle.c): the kept descriptors' locks free. */
void tp_own_fds_child_after_fork(void);
