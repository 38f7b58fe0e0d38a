// SPDX-License-Identifier: MIT
/*
 * Waits on descriptors: epoll waits (kind 4, object the epoll fd) and poll/ppoll (kind 5, object
 * the pollfd array). The _FORTIFY_SOURCE entry points that most distribution binaries call instead
 * of poll/ppoll are interposed as well.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <time.h>

#include "probes.h"
#include "real_symbol.h"
#include "waits.h"

/* An epoll fd as the wait's object. */
static const void *fd_object(int fd)
{
	return (const void *)(uintptr_t)(unsigned)fd;
}

TP_INTERPOSE_WAIT(int, epoll_wait, (int epfd, struct epoll_event *events, int max, int timeout),
		  (epfd, events, max, timeout), NULL, TP_FAIL_ERRNO, TP_WAIT_EPOLL, fd_object(epfd),
		  tp_timeout_from_ms(timeout), tp_wait_result_errno)

TP_INTERPOSE_WAIT(int, epoll_pwait,
		  (int epfd, struct epoll_event *events, int max, int timeout,
		   const sigset_t *mask),
		  (epfd, events, max, timeout, mask), NULL, TP_FAIL_ERRNO, TP_WAIT_EPOLL,
		  fd_object(epfd), tp_timeout_from_ms(timeout), tp_wait_result_errno)

TP_INTERPOSE_WAIT(int, epoll_pwait2,
		  (int epfd, struct epoll_event *events, int max, const struct timespec *timeout,
		   const sigset_t *mask),
		  (epfd, events, max, timeout, mask), NULL, TP_FAIL_ERRNO, TP_WAIT_EPOLL,
		  fd_object(epfd), tp_timeout_from_relative(timeout), tp_wait_result_errno)

TP_INTERPOSE_WAIT(int, poll, (struct pollfd * fds, nfds_t nfds, int timeout), (fds, nfds, timeout),
		  NULL, TP_FAIL_ERRNO, TP_WAIT_POLL, fds, tp_timeout_from_ms(timeout),
		  tp_wait_result_errno)

TP_INTERPOSE_WAIT(int, ppoll,
		  (struct pollfd * fds, nfds_t nfds, const struct timespec *timeout,
		   const sigset_t *mask),
		  (fds, nfds, timeout, mask), NULL, TP_FAIL_ERRNO, TP_WAIT_POLL, fds,
		  tp_timeout_from_relative(timeout), tp_wait_result_errno)

TP_INTERPOSE_WAIT(int, __poll_chk, (struct pollfd * fds, nfds_t nfds, int timeout, size_t fdslen),
		  (fds, nfds, timeout, fdslen), NULL, TP_FAIL_ERRNO, TP_WAIT_POLL, fds,
		  tp_timeout_from_ms(timeout), tp_wait_result_errno)

TP_INTERPOSE_WAIT(int, __ppoll_chk,
		  (struct pollfd * fds, nfds_t nfds, const struct timespec *timeout,
		   const sigset_t *mask, size_t fdslen),
		  (fds, nfds, timeout, mask, fdslen), NULL, TP_FAIL_ERRNO, TP_WAIT_POLL, fds,
		  tp_timeout_from_relative(timeout), tp_wait_result_errno)
