// SPDX-License-Identifier: MIT
/*
 * Waves of threads, one wave after another: in each, WAVE_THREADS threads name themselves
 * "wave-W-T", wait once on a semaphore that the main thread posts, and end; the next wave starts
 * once they are joined. With TASKPROBE_WORKERS='wave-*' each is a worker that parks once. Waves
 * is argv[1] (default 4).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

#define WAVE_THREADS 2

static sem_t go;

struct member {
	int wave, index;
};

static void *member(void *arg)
{
	const struct member *m = arg;
	char name[16];
	snprintf(name, sizeof name, "wave-%d-%d", m->wave, m->index);
	prctl(PR_SET_NAME, name);
	while (sem_wait(&go) != 0)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	int waves = argc > 1 ? atoi(argv[1]) : 4;
	sem_init(&go, 0, 0);
	for (int w = 1; w <= waves; w++) {
		pthread_t threads[WAVE_THREADS];
		struct member members[WAVE_THREADS];
		for (int t = 0; t < WAVE_THREADS; t++) {
			members[t] = (struct member){w, t + 1};
			if (pthread_create(&threads[t], NULL, member, &members[t]) != 0)
				return 1;
		}
		for (int t = 0; t < WAVE_THREADS; t++)
			sem_post(&go);
		for (int t = 0; t < WAVE_THREADS; t++)
			pthread_join(threads[t], NULL);
	}
	printf("thread_waves: %d waves of %d threads\n", waves, WAVE_THREADS);
	return 0;
}
