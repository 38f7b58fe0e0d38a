// SPDX-License-Identifier: MIT
/* POSIX semaphore waits, kind 3, object the sem_t. sem_trywait never blocks and is not a wait. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

#include "probes.h"
#include "real_symbol.h"
#include "waits.h"

static int (*real_sem_trywait)(sem_t *sem);
TP_RESOLVED_AT_LOAD(real_sem_trywait, "sem_trywait", NULL);

/*
 * sem_wait's wait `w`, made as glibc makes it (a pending cancellation acted on, then the
 * semaphore taken if it can be, else the wait) with `wait`, the real sem_wait, for the second
 * part: a semaphore taken at once (a producer ahead of its consumer: most waits of a loop that
 * posts and waits) is a wait that never blocked, whose end and start are one moment
 * (tp_wait_took_at_once): one clock read for the two. errno as sem_wait leaves it.
 */
static int sem_wait_at_once(int (*wait)(sem_t *), sem_t *sem, struct tp_wait *w)
{
	int (*trywait)(sem_t *) = TP_REAL(real_sem_trywait, "sem_trywait", NULL);
	if (trywait != NULL) {
		pthread_testcancel(); /* sem_wait is a cancellation point, blocking or not */
		int saved_errno = errno;
		if (trywait(sem) == 0) {
			tp_wait_took_at_once(w);
			return 0;
		}
		errno = saved_errno;
	}
	return wait(sem);
}

TP_INTERPOSE_WAIT_BY(int, sem_wait, (sem_t * sem), (sem), NULL, TP_FAIL_ERRNO, TP_WAIT_SEMAPHORE,
		     sem, -1, tp_wait_result_errno, sem_wait_at_once(fn, sem, &wait_))

TP_INTERPOSE_WAIT(int, sem_timedwait, (sem_t * sem, const struct timespec *deadline),
		  (sem, deadline), NULL, TP_FAIL_ERRNO, TP_WAIT_SEMAPHORE, sem,
		  tp_timeout_from_deadline(CLOCK_REALTIME, deadline), tp_wait_result_errno)

TP_INTERPOSE_WAIT(int, sem_clockwait,
		  (sem_t * sem, clockid_t clock, const struct timespec *deadline),
		  (sem, clock, deadline), NULL, TP_FAIL_ERRNO, TP_WAIT_SEMAPHORE, sem,
		  tp_timeout_from_deadline(clock, deadline), tp_wait_result_errno)
