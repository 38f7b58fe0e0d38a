// SPDX-License-Identifier: MIT
/*
 * A program whose cleanup deletes thread-specific data keys it never made (a `static
 * pthread_key_t` left 0 and deleted, a number kept from an earlier run of its setup): keys 0 to
 * N - 1 (argv[1]) deleted with pthread_key_delete (argv[3] "pthread", the default) or with
 * C11's tss_delete ("tss"). Then it makes three keys of its own and starts T threads (argv[2])
 * at once, each setting its own value in each key; each key's destructor checks that the value
 * it gets is the one its thread set. It prints what each delete returned and whether errno was
 * kept, and what the destructors got; it fails (1) when a destructor got another value.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

enum { KEYS = 3, MAX_THREADS = 64 };

static pthread_key_t keys[KEYS];
/* Thread i's value in key k: &values[i][k]. */
static char values[MAX_THREADS][KEYS];
static int threads;
static unsigned own_values, foreign_values;

static void destructor(void *value)
{
	char *v = value;
	bool own = v >= &values[0][0] && v < &values[0][0] + sizeof values;
	__atomic_add_fetch(own ? &own_values : &foreign_values, 1, __ATOMIC_RELAXED);
}

static void *thread_main(void *arg)
{
	long i = (long)arg;
	for (int k = 0; k < KEYS; k++)
		if (pthread_setspecific(keys[k], &values[i][k]) != 0)
			return (void *)1;
	return NULL;
}

static const char *error_name(int error)
{
	return error == 0 ? "0" : error == EINVAL ? "EINVAL" : strerror(error);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 8;
	threads = argc > 2 ? atoi(argv[2]) : 4;
	bool tss = argc > 3 && strcmp(argv[3], "tss") == 0;
	if (threads < 1 || threads > MAX_THREADS)
		return 2;

	for (int key = 0; key < n; key++) {
		errno = EDOM;
		if (tss) {
			tss_delete((tss_t)key);
			if (errno != EDOM)
				printf("tss_delete(%d): errno changed\n", key);
			continue;
		}
		int ret = pthread_key_delete((pthread_key_t)key);
		printf("pthread_key_delete(%d): %s%s\n", key, error_name(ret),
		       errno == EDOM ? "" : ", errno changed");
	}
	if (tss)
		printf("tss_delete of keys 0 to %d\n", n - 1);

	for (int k = 0; k < KEYS; k++)
		if (pthread_key_create(&keys[k], destructor) != 0)
			return 3;
	pthread_t tids[MAX_THREADS];
	for (long i = 0; i < threads; i++)
		if (pthread_create(&tids[i], NULL, thread_main, (void *)i) != 0)
			return 4;
	int failed = 0;
	for (int i = 0; i < threads; i++) {
		void *ret;
		pthread_join(tids[i], &ret);
		failed += ret != NULL;
	}
	printf("%d threads ended, %d failed to set a value\n", threads, failed);
	printf("destructors: %u got their thread's value, %u another\n", own_values,
	       foreign_values);
	for (int k = 0; k < KEYS; k++)
		printf("its own key %d deleted: %s\n", k, error_name(pthread_key_delete(keys[k])));
	return foreign_values == 0 && own_values == (unsigned)(threads * KEYS) ? 0 : 1;
}
