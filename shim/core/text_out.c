// SPDX-License-Identifier: MIT
/* The shim's text into the program's descriptors (text_out.h). */
#define _GNU_SOURCE
#include "text_out.h"

#include "process.h"
#include "real_symbol.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What descriptor 2 was at start: 0 not looked at yet, 1 a file (below), 2 none (closed). */
static int stderr_state;
static dev_t stderr_dev;
static ino_t stderr_ino;

void tp_stderr_start(void)
{
	struct stat st;
	if (__atomic_load_n(&stderr_state, __ATOMIC_ACQUIRE) != 0)
		return;
	if (fstat(STDERR_FILENO, &st) == 0) {
		stderr_dev = st.st_dev;
		stderr_ino = st.st_ino;
		__atomic_store_n(&stderr_state, 1, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&stderr_state, 2, __ATOMIC_RELEASE);
	}
}

int tp_stderr_fd(void)
{
	/* a warning before the shim's constructor ran (another library's constructor) is early */
	tp_stderr_start();
	if (tp_process_filtered())
		return -1; /* its checks are system calls the program's filter may refuse */
	struct stat st;
	int saved_errno = errno;
	/*
	 * The file at 2 now, compared with the one at start. The program may dup2 another onto it
	 * between this check and the write; its own threads race it the same way.
	 */
	bool same = __atomic_load_n(&stderr_state, __ATOMIC_ACQUIRE) == 1 &&
		    fstat(STDERR_FILENO, &st) == 0 && st.st_dev == stderr_dev &&
		    st.st_ino == stderr_ino;
	errno = saved_errno;
	return same ? STDERR_FILENO : -1;
}

/* Whether `length` more bytes at `fd`'s position stay within RLIMIT_FSIZE. */
static bool within_file_size_limit(int fd, const struct stat *st, size_t length)
{
	struct rlimit limit;
	if (!S_ISREG(st->st_mode) || getrlimit(RLIMIT_FSIZE, &limit) != 0 ||
	    limit.rlim_cur == RLIM_INFINITY)
		return true;
	int flags = tp_real_fcntl(fd, F_GETFL, 0);
	off_t at = flags >= 0 && (flags & O_APPEND) ? st->st_size : lseek(fd, 0, SEEK_CUR);
	return at >= 0 && (uint64_t)at + length <= (uint64_t)limit.rlim_cur;
}

/*
 * SIGPIPE (a pipe or socket nobody reads) and SIGXFSZ (past the file size limit) are raised in
 * the writing thread by the write that fails; both kill by default, and a handler of the
 * program's would see a signal of the shim's. send(MSG_NOSIGNAL) does not take a pipe, and
 * checking for a reader first (poll, fstat) leaves a window before the write. So the writing
 * thread blocks both around its writes, and a signal its write raised (pending now, not before)
 * is taken back with sigtimedwait before the mask is put back as it was: the program's signal
 * state is left as it found it, whether it blocks, ignores or handles them (a blocked signal is
 * kept pending even when ignored). A process-directed SIGPIPE that another process sends during
 * the write is taken back with ours: the one thing this may change, and kill's SIGPIPE is rare.
 */
static const int guarded_signals[] = {SIGPIPE, SIGXFSZ};

enum tp_text_written tp_text_write(int fd, const char *text, size_t length)
{
	struct stat st;
	if (tp_process_filtered())
		return TP_TEXT_FAILED; /* said before the filter came, if at all (process.h) */
	if (fstat(fd, &st) != 0)
		return TP_TEXT_FAILED;
	if (!within_file_size_limit(fd, &st, length))
		return TP_TEXT_NO_ROOM;
	sigset_t guarded, before, pending_before, pending_after;
	sigemptyset(&guarded);
	for (size_t i = 0; i < sizeof guarded_signals / sizeof guarded_signals[0]; i++)
		sigaddset(&guarded, guarded_signals[i]);
	if (pthread_sigmask(SIG_BLOCK, &guarded, &before) != 0)
		return TP_TEXT_FAILED;
	if (sigpending(&pending_before) != 0) {
		pthread_sigmask(SIG_SETMASK, &before, NULL);
		return TP_TEXT_FAILED;
	}
	while (length > 0) {
		ssize_t n = write(fd, text, length);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		text += n;
		length -= (size_t)n;
	}
	int err = errno;
	if (sigpending(&pending_after) == 0)
		for (size_t i = 0; i < sizeof guarded_signals / sizeof guarded_signals[0]; i++) {
			int sig = guarded_signals[i];
			if (!sigismember(&pending_after, sig) || sigismember(&pending_before, sig))
				continue;
			sigset_t one;
			sigemptyset(&one);
			sigaddset(&one, sig);
			const struct timespec now = {0, 0};
			while (sigtimedwait(&one, NULL, &now) < 0 && errno == EINTR)
				;
		}
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	errno = err;
	return length == 0 ? TP_TEXT_WRITTEN : TP_TEXT_FAILED;
}
