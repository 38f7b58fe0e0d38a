// SPDX-License-Identifier: MIT
/* POSIX semaphore waits, kind 3, object the sem_t. sem_trywait never blocks and is not a wait. */
#define _GNU_SOURCE
#include <semaphore.h>
#include <time.h>

#include "probes.h"
#include "real_symbol.h"
#include "waits.h"

TP_INTERPOSE_WAIT(int, sem_wait, (sem_t * sem), (sem), NULL, TP_FAIL_ERRNO, TP_WAIT_SEMAPHORE, sem,
		  -1, tp_wait_result_errno)

TP_INTERPOSE_WAIT(int, sem_timedwait, (sem_t * sem, const struct timespec *deadline),
		  (sem, deadline), NULL, TP_FAIL_ERRNO, TP_WAIT_SEMAPHORE, sem,
		  tp_timeout_from_deadline(CLOCK_REALTIME, deadline), tp_wait_result_errno)

TP_INTERPOSE_WAIT(int, sem_clockwait,
		  (sem_t * sem, clockid_t clock, const struct timespec *deadline),
		  (sem, clock, deadline), NULL, TP_FAIL_ERRNO, TP_WAIT_SEMAPHORE, sem,
		  tp_timeout_from_deadline(clock, deadline), tp_wait_result_errno)
