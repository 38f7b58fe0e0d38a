// SPDX-License-Identifier: MIT
/*
 * Mutex contention at known lines, made certain: a thread locks a mutex the main thread holds,
 * and the main thread lets go only once the kernel shows that thread blocked in a futex wait
 * on that mutex (/proc/self/task/TID/syscall), HOLD_MS later. ROUNDS rounds (argv[1], default
 * 3), each a lock at contender_locks' line. Then the cases whose results must be the real
 * functions': uncontended locks (UNCONTENDED of them, no wait), an error-checking mutex locked
 * twice, a recursive one, robust ones whose owner died (free, and while another thread waited), a
 * timed lock that times out on a held mutex, a clock lock with a clock it refuses; each result
 * printed, and errno kept across the calls. The same output with and without the shim.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define HOLD_MS     20
#define UNCONTENDED 100
#define ERRNO_MARK  4242

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pid_t contender_tid;

/* Sleeps `ms` milliseconds (nanosleep: no wait of taskprobe's). */
static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, ms % 1000 * 1000000};
	while (nanosleep(&t, &t) != 0)
		;
}

/* Returns once thread `tid` is blocked in a futex wait on `mutex` (its lock word). */
static void until_blocked_on(pid_t tid, pthread_mutex_t *mutex)
{
	char path[64], text[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
	for (;;) {
		FILE *f = fopen(path, "r");
		size_t n = f != NULL ? fread(text, 1, sizeof text - 1, f) : 0;
		if (f != NULL)
			fclose(f);
		text[n] = '\0';
		char *word;
		if (strtol(text, &word, 10) == SYS_futex &&
		    strtoul(word, NULL, 16) == (uintptr_t)&mutex->__data.__lock)
			return;
		sleep_ms(1);
	}
}

/* The round in which the main thread holds `held` for the contender to block on, and the last
 * round whose lock the contender took. */
static long round_held, round_done;

__attribute__((noinline)) static void contender_locks(void)
{
	pthread_mutex_lock(&held); /* the contended lock */
	pthread_mutex_unlock(&held);
}

static void *contender(void *rounds)
{
	__atomic_store_n(&contender_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	for (long i = 1; i <= (long)rounds; i++) {
		while (__atomic_load_n(&round_held, __ATOMIC_ACQUIRE) != i)
			sleep_ms(1);
		contender_locks();
		__atomic_store_n(&round_done, i, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* ROUNDS contended locks by another thread, each held HOLD_MS after it blocked. */
static void contention(long rounds)
{
	pthread_t t;
	pthread_create(&t, NULL, contender, (void *)rounds);
	pid_t tid;
	while ((tid = __atomic_load_n(&contender_tid, __ATOMIC_ACQUIRE)) == 0)
		sleep_ms(1);
	for (long i = 1; i <= rounds; i++) {
		pthread_mutex_lock(&held); /* free: the contender's last round is done */
		__atomic_store_n(&round_held, i, __ATOMIC_RELEASE);
		until_blocked_on(tid, &held);
		sleep_ms(HOLD_MS);
		pthread_mutex_unlock(&held);
		while (__atomic_load_n(&round_done, __ATOMIC_ACQUIRE) != i)
			sleep_ms(1);
	}
	pthread_join(t, NULL);
}

static pthread_mutex_t robust;
static void *die_holding(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&robust);
	return NULL;
}

static pid_t main_tid;
static int robust_held;
static void *die_holding_later(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&robust);
	__atomic_store_n(&robust_held, 1, __ATOMIC_RELEASE);
	until_blocked_on(main_tid, &robust);
	return NULL;
}

/* A timed lock, its deadline past, of a mutex the main thread holds: ETIMEDOUT. */
static void *lock_timed(void *mutex)
{
	struct timespec past = {0, 0};
	return (void *)(long)pthread_mutex_timedlock(mutex, &past); /* times out */
}

static void make(pthread_mutex_t *m, int type, int robustness)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, type);
	pthread_mutexattr_setrobust(&a, robustness);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

static void say(const char *what, int result)
{
	printf("%s: %s%s\n", what, result == 0 ? "0" : strerrorname_np(result),
	       errno == ERRNO_MARK ? "" : " (errno changed)");
	errno = ERRNO_MARK;
}

/*
 * A mutex of `type` locked twice by its owner, then unlocked as many times as it was locked
 * (`held`: an error-checking mutex's second lock fails; unlocking it again would be a misuse a
 * sanitizer reports, and unlock is no interposed function).
 */
static void locked_twice(const char *type_name, int type, int held)
{
	pthread_mutex_t m;
	make(&m, type, PTHREAD_MUTEX_STALLED);
	char what[64];
	for (int i = 0; i < 2; i++) {
		snprintf(what, sizeof what, "%s lock%s", type_name, i ? " again" : "");
		say(what, pthread_mutex_lock(&m));
	}
	for (int i = 0; i < held; i++) {
		snprintf(what, sizeof what, "%s unlock%s", type_name, i ? " again" : "");
		say(what, pthread_mutex_unlock(&m));
	}
}

/* The cases whose results are the real functions' own. */
static void results(void)
{
	errno = ERRNO_MARK;
	pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;
	int fails = 0;
	for (int i = 0; i < UNCONTENDED; i++) {
		fails += pthread_mutex_lock(&free_lock) != 0; /* uncontended: no wait */
		pthread_mutex_unlock(&free_lock);
	}
	say("uncontended locks failed", fails);

	locked_twice("errorcheck", PTHREAD_MUTEX_ERRORCHECK, 1);
	locked_twice("recursive", PTHREAD_MUTEX_RECURSIVE, 2);

	pthread_t t;
	make(&robust, PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_ROBUST);
	pthread_create(&t, NULL, die_holding, NULL);
	pthread_join(t, NULL);
	say("robust lock, its owner dead", pthread_mutex_lock(&robust));
	say("robust unlock, not made consistent", pthread_mutex_unlock(&robust));
	say("robust lock, not recoverable", pthread_mutex_lock(&robust));
	/* and again, timed (a lock tried first was left held: this one timed out, a lock hung) */
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 2;
	say("robust timed lock, not recoverable", pthread_mutex_timedlock(&robust, &deadline));

	make(&robust, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_MUTEX_ROBUST);
	main_tid = (pid_t)syscall(SYS_gettid);
	pthread_create(&t, NULL, die_holding_later, NULL);
	while (!__atomic_load_n(&robust_held, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	int died = pthread_mutex_lock(&robust); /* the owner dies while this waits */
	say("robust lock, its owner dying meanwhile", died);
	say("robust consistent", pthread_mutex_consistent(&robust));
	say("robust unlock", pthread_mutex_unlock(&robust));
	pthread_join(t, NULL);

	pthread_mutex_t timed = PTHREAD_MUTEX_INITIALIZER;
	void *timed_out;
	pthread_mutex_lock(&timed);
	pthread_create(&t, NULL, lock_timed, &timed);
	pthread_join(t, &timed_out);
	say("timed lock of a mutex another thread holds", (int)(long)timed_out);
	pthread_mutex_unlock(&timed);

	struct timespec past = {0, 0};
	say("clock lock with a process clock",
	    pthread_mutex_clocklock(&free_lock, CLOCK_PROCESS_CPUTIME_ID, &past));
	say("clock lock, monotonic, free",
	    pthread_mutex_clocklock(&free_lock, CLOCK_MONOTONIC, &past));
	say("unlock", pthread_mutex_unlock(&free_lock));
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 3;
	contention(rounds);
	printf("contended %ld\n", rounds);
	results();
	return 0;
}
