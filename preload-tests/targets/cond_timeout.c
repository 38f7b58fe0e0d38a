/* Condition waits that time out: realtime and monotonic timedwait, and clockwait. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static struct timespec in_ms(clockid_t clock, long ms)
{
	struct timespec t;
	clock_gettime(clock, &t);
	t.tv_nsec += ms * 1000000;
	t.tv_sec += t.tv_nsec / 1000000000;
	t.tv_nsec %= 1000000000;
	return t;
}

int main(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t realtime = PTHREAD_COND_INITIALIZER, monotonic;
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&monotonic, &attr);

	pthread_mutex_lock(&m);
	struct timespec t = in_ms(CLOCK_REALTIME, 40);
	int r = pthread_cond_timedwait(&realtime, &m, &t);
	printf("timedwait realtime: %s\n", strerror(r));
	t = in_ms(CLOCK_MONOTONIC, 40);
	r = pthread_cond_timedwait(&monotonic, &m, &t);
	printf("timedwait monotonic: %s\n", strerror(r));
	t = in_ms(CLOCK_MONOTONIC, 40);
	r = pthread_cond_clockwait(&realtime, &m, CLOCK_MONOTONIC, &t);
	printf("clockwait monotonic: %s\n", strerror(r));
	pthread_mutex_unlock(&m);
	return 0;
}
