// SPDX-License-Identifier: MIT
/*
 * main's last call a tail call into a wait: main returns what pthread_mutex_lock returns, so the
 * compiler jumps to it and main's frame is gone while it waits; the mutex is held by another
 * thread, which lets it go once main waits for it (glibc's lock word says a thread waits: 2), or
 * after HOLD_MOST_MS. The wait's only frame outside the system libraries is the program's entry
 * code (_start). Prints "locked" first; exits 0.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

#define HOLD_MOST_MS   10000
#define LOCK_CONTENDED 2 /* glibc's lock word of a mutex a thread waits for */

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static sem_t locked;
static pthread_t holding; /* not main's: a local whose address escaped would keep its frame */

static void *holder(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&held);
	sem_post(&locked);
	const struct timespec tick = {0, 1000000L};
	for (int ms = 0; ms < HOLD_MOST_MS &&
			 __atomic_load_n(&held.__data.__lock, __ATOMIC_RELAXED) != LOCK_CONTENDED;
	     ms++)
		nanosleep(&tick, NULL);
	pthread_mutex_unlock(&held);
	return NULL;
}

int main(void)
{
	sem_init(&locked, 0, 0);
	if (pthread_create(&holding, NULL, holder, NULL) != 0)
		return 1;
	pthread_detach(holding); /* main ends in its wait: it joins nothing */
	while (sem_wait(&locked) != 0)
		;
	puts("locked");
	fflush(stdout);
	return pthread_mutex_lock(&held); /* a tail call: 0 once the holder lets go */
}
