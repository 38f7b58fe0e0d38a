// SPDX-License-Identifier: MIT
/*
 * Condition variable waits, kind 2, object the pthread_cond_t. glibc keeps the pre-2.3.2
 * condition variables under the same names, so the real functions are asked for by version.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>

#include "probes.h"
#include "real_symbol.h"
#include "waits.h"

#if defined(__x86_64__)
#define COND_VERSION "GLIBC_2.3.2"
#else
#define COND_VERSION NULL /* later ports have one version only */
#endif

/*
 * The clock of pthread_cond_timedwait's deadline is an attribute of the condition variable;
 * glibc (2.25 and later) keeps it in bit 1 of __wrefs.
 */
static clockid_t cond_clock(const pthread_cond_t *cond)
{
	return (cond->__data.__wrefs & 2) ? CLOCK_MONOTONIC : CLOCK_REALTIME;
}

TP_INTERPOSE_WAIT(int, pthread_cond_wait, (pthread_cond_t * cond, pthread_mutex_t *mutex),
		  (cond, mutex), COND_VERSION, TP_FAIL_ERROR_NUMBER, TP_WAIT_CONDVAR, cond, -1,
		  tp_wait_result_error_number)

TP_INTERPOSE_WAIT(int, pthread_cond_timedwait,
		  (pthread_cond_t * cond, pthread_mutex_t *mutex, const struct timespec *deadline),
		  (cond, mutex, deadline), COND_VERSION, TP_FAIL_ERROR_NUMBER, TP_WAIT_CONDVAR,
		  cond, tp_timeout_from_deadline(cond_clock(cond), deadline),
		  tp_wait_result_error_number)

TP_INTERPOSE_WAIT(int, pthread_cond_clockwait,
		  (pthread_cond_t * cond, pthread_mutex_t *mutex, clockid_t clock,
		   const struct timespec *deadline),
		  (cond, mutex, clock, deadline), NULL, TP_FAIL_ERROR_NUMBER, TP_WAIT_CONDVAR, cond,
		  tp_timeout_from_deadline(clock, deadline), tp_wait_result_error_number)
