// SPDX-License-Identifier: MIT
/*
 * Each kind of wait interrupted by SIGALRM every 10 ms, with the handler installed with
 * SA_RESTART (argv[1] = restart) or without (norestart). The handler itself waits (a poll with
 * no timeout and a sem_trywait-like sem_timedwait in the past) and, from its third call on,
 * releases the wait (sem_post, a futex wake, a pipe write), so that a restarted wait ends.
 * Prints each call's result and errno: the same with and without anything preloaded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static sem_t sem, handler_sem;
static unsigned word;
static int pipe_fds[2];
static volatile sig_atomic_t calls, handler_results_bad;

static void on_alarm(int sig)
{
	(void)sig;
	int saved = errno;
	/* waits inside the handler: they return at once */
	struct timespec past = {0, 0};
	if (poll(NULL, 0, 0) != 0 || sem_timedwait(&handler_sem, &past) != -1 || errno != ETIMEDOUT)
		handler_results_bad = 1;
	if (++calls >= 3) {
		sem_post(&sem);
		__atomic_store_n(&word, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		(void)!write(pipe_fds[1], "x", 1);
	}
	errno = saved;
}

/*
 * Each timed wait through a call site of its own, called once first, unarmed, where it returns
 * at once: a tool's work at a site's first wait (naming it, setting up an unwinder: tens of ms
 * under a sanitizer on a loaded machine) is done before the timed call, whose wait must be in
 * the kernel by the handler's third call.
 */
static __attribute__((noinline)) long wait_sem(void)
{
	return sem_wait(&sem);
}

static __attribute__((noinline)) long wait_futex(void)
{
	return syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

static __attribute__((noinline)) long wait_poll(struct pollfd *pfd, int timeout)
{
	return poll(pfd, 1, timeout);
}

static __attribute__((noinline)) long wait_epoll(int ep, struct epoll_event *out, int timeout)
{
	return epoll_wait(ep, out, 1, timeout);
}

static void arm(long ms)
{
	struct itimerval t = {{0, ms * 1000}, {0, ms * 1000}};
	calls = 0;
	setitimer(ITIMER_REAL, &t, NULL);
}

static void report(const char *what, long result)
{
	int e = errno;
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("%-22s result %ld errno %s\n", what, result, result < 0 ? strerrorname_np(e) : "-");
	/* back to the starting state */
	while (sem_trywait(&sem) == 0)
		;
	word = 0;
	char buf[64];
	while (read(pipe_fds[0], buf, sizeof buf) > 0)
		;
}

int main(int argc, char **argv)
{
	int restart = argc > 1 && strcmp(argv[1], "restart") == 0;
	struct sigaction sa = {.sa_handler = on_alarm, .sa_flags = restart ? SA_RESTART : 0};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	sem_init(&sem, 0, 0);
	sem_init(&handler_sem, 0, 0);
	if (pipe2(pipe_fds, O_NONBLOCK) != 0)
		return 1;
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN}, out;
	epoll_ctl(ep, EPOLL_CTL_ADD, pipe_fds[0], &ev);
	struct pollfd pfd = {.fd = pipe_fds[0], .events = POLLIN};
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;

	sem_post(&sem);
	wait_sem();
	word = 1;
	wait_futex(); /* EAGAIN: the word is not 0 */
	word = 0;
	wait_poll(&pfd, 0);
	wait_epoll(ep, &out, 0);

	arm(10);
	report("sem_wait", wait_sem());
	arm(10);
	report("futex wait", wait_futex());
	arm(10);
	report("poll", wait_poll(&pfd, -1));
	arm(10);
	report("epoll_wait", wait_epoll(ep, &out, -1));
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_nsec += 100 * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&m);
	arm(10);
	int r = pthread_cond_timedwait(&c, &m, &deadline);
	report("pthread_cond_timedwait", r == 0 ? 0 : -r);
	pthread_mutex_unlock(&m);
	printf("handler waits %s\n", handler_results_bad ? "failed" : "returned at once");
	return 0;
}
