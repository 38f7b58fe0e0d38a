// SPDX-License-Identifier: MIT
/*
 * A plug-in that waits (omp_plugin_host loads it: its plugin_run): a condition variable's wait
 * of 1 ms that times out, in a function of its own. Built twice, the second (-DOTHER) with its
 * waiting function named apart and code of its own before it (its wait's call lies elsewhere),
 * so that omp_plugin_host loads it where the first lay once that one is unloaded: a wait of
 * each, told apart by name. Returns 1 (timed out), else 0.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

long plugin_run(void);

#ifdef OTHER
#define WAITING other_waiting
/* Code before the wait, so that its call is not where the first build's lies. */
__attribute__((noinline)) static unsigned long mixed(unsigned long x)
{
	for (int round = 0; round < 8; round++)
		x = (x ^ (x >> 31)) * 0x9e3779b97f4a7c15u + (unsigned long)round;
	return x;
}
#else
#define WAITING  waiting
#define mixed(x) (x)
#endif
static volatile unsigned long seed = 1, sink;

__attribute__((noinline)) static long WAITING(void)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&lock);
	int result = pthread_cond_timedwait(&never, &lock, &until);
	pthread_mutex_unlock(&lock);
	return result == ETIMEDOUT;
}

long plugin_run(void)
{
	sink = mixed(seed);
	return WAITING();
}
