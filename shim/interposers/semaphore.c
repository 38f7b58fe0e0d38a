// SPDX-License-Identifier: MIT
/* POSIX semaphore waits, kind 3, object the sem_t. sem_trywait never blocks and is not a wait. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <time.h>

#include "probes.h"
#include "real_symbol.h"
#include "waits.h"

static int (*real_sem_trywait)(sem_t *sem);
TP_RESOLVED_AT_LOAD(real_sem_trywait, "sem_trywait", NULL);

/*
 * sem_wait's first part, made as glibc makes it: a pending cancellation acted on (sem_wait is a
 * cancellation point, blocking or not), then the semaphore taken if it can be. Taken (a producer
 * ahead of its consumer: most waits of a loop that posts and waits), the wait never blocked: its
 * events are fired at once (tp_wait_at_once) and true returned; else errno is as it was, and the
 * real sem_wait waits.
 */
static bool sem_taken_at_once(sem_t *sem, const void *caller)
{
	int (*trywait)(sem_t *) = TP_REAL(real_sem_trywait, "sem_trywait", NULL);
	if (trywait == NULL)
		return false;
	pthread_testcancel();
	int saved_errno = errno;
	if (trywait(sem) == 0) {
		tp_wait_at_once(TP_WAIT_SEMAPHORE, sem, -1, caller);
		return true;
	}
	errno = saved_errno;
	return false;
}

TP_INTERPOSE_WAIT_TRIED(int, sem_wait, (sem_t * sem), (sem), NULL, TP_FAIL_ERRNO, TP_WAIT_SEMAPHORE,
			sem, -1, tp_wait_result_errno,
			if (sem_taken_at_once(sem, caller_)) return 0)

TP_INTERPOSE_WAIT(int, sem_timedwait, (sem_t * sem, const struct timespec *deadline),
		  (sem, deadline), NULL, TP_FAIL_ERRNO, TP_WAIT_SEMAPHORE, sem,
		  tp_timeout_from_deadline(CLOCK_REALTIME, deadline), tp_wait_result_errno)

TP_INTERPOSE_WAIT(int, sem_clockwait,
		  (sem_t * sem, clockid_t clock, const struct timespec *deadline),
		  (sem, clock, deadline), NULL, TP_FAIL_ERRNO, TP_WAIT_SEMAPHORE, sem,
		  tp_timeout_from_deadline(clock, deadline), tp_wait_result_errno)
