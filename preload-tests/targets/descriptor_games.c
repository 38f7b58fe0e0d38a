// SPDX-License-Identifier: MIT
/*
 * A program that passes a semaphore FIRST_WAITS times, then plays with descriptors it does not
 * know while another thread waits on a semaphore in a loop: ROUNDS (argv[2], default 200) times it lists /proc/self/fd and, for every
 * descriptor there that it did not open itself, asks about it (fcntl F_GETFD), copies it (fcntl
 * F_DUPFD, dup) and closes it, each of which must fail with EBADF as on a number not open (it is
 * not the program's), then dup2()s its own file (argv[1], made here) onto that number (which must
 * succeed), writes "program\n" through it and closes it (which must succeed). Then it closes
 * every descriptor from 3 up with close_range and closefrom, and the other thread waits as many
 * times again. With argv[3] "raw", every call is made through syscall() (SYS_close, SYS_dup2 or
 * SYS_dup3, SYS_close_range, SYS_fcntl, SYS_dup: what programs do where the C library had no close_range, and
 * libraries that call the kernel themselves), closefrom too. Prints "ok, its first descriptor
 * N" (its file's number: 3 where it was started with 0, 1 and 2 alone), or what went wrong.
 * Exit status 0.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WAITS_PER_PHASE 20000
#define FIRST_WAITS     16
#define FDS_MAX         64

static int phase_waits_done;
static int go_on; /* the second phase may begin */

static void *wait_in_a_loop(void *unused)
{
	(void)unused;
	sem_t sem;
	sem_init(&sem, 0, 0);
	for (int phase = 0; phase < 2; phase++) {
		while (phase == 1 && !__atomic_load_n(&go_on, __ATOMIC_ACQUIRE))
			usleep(1000);
		for (int i = 0; i < WAITS_PER_PHASE; i++) {
			sem_post(&sem);
			sem_wait(&sem);
		}
		__atomic_add_fetch(&phase_waits_done, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* The descriptors open now that the program did not open (not `own`, not the listing's). */
static int foreign_fds(int own, int fds[FDS_MAX])
{
	DIR *d = opendir("/proc/self/fd");
	if (d == NULL)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && n < FDS_MAX) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] != '.' && fd > STDERR_FILENO && fd != own && fd != dirfd(d))
			fds[n++] = fd;
	}
	closedir(d);
	return n;
}

static bool raw; /* the calls made through syscall() */

static int close_it(int fd)
{
	return raw ? (int)syscall(SYS_close, fd) : close(fd);
}

static int dup2_it(int from, int to)
{
	if (!raw)
		return dup2(from, to);
#ifdef SYS_dup2
	return (int)syscall(SYS_dup2, from, to);
#else
	return (int)syscall(SYS_dup3, from, to, 0);
#endif
}

/* Whether asking about `fd` and copying it fail as they do on a number not open (EBADF). */
static bool not_open(int fd)
{
	errno = 0;
	if (raw)
		return syscall(SYS_fcntl, fd, F_GETFD) < 0 && errno == EBADF &&
		       syscall(SYS_fcntl, fd, F_DUPFD, 10) < 0 && errno == EBADF &&
		       syscall(SYS_dup, fd) < 0 && errno == EBADF;
	return fcntl(fd, F_GETFD) < 0 && errno == EBADF && fcntl(fd, F_DUPFD, 10) < 0 &&
	       errno == EBADF && dup(fd) < 0 && errno == EBADF;
}

static int close_range_it(unsigned first, unsigned last)
{
	return raw ? (int)syscall(SYS_close_range, first, last, 0) : close_range(first, last, 0);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int rounds = argc > 2 ? atoi(argv[2]) : 200;
	raw = argc > 3 && strcmp(argv[3], "raw") == 0;
	int own = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (own < 0) {
		perror(argv[1]);
		return 1;
	}
	/* a few waits of its own first: a consumer that samples wait stacks has its unwinder (and
	 * its pipe) before the rounds look for descriptors */
	sem_t first;
	sem_init(&first, 0, 0);
	for (int i = 0; i < FIRST_WAITS; i++) {
		sem_post(&first);
		sem_wait(&first);
	}
	pthread_t waiter;
	pthread_create(&waiter, NULL, wait_in_a_loop, NULL);
	const char *wrong = NULL;
	for (int r = 0; r < rounds && wrong == NULL; r++) {
		int fds[FDS_MAX];
		int n = foreign_fds(own, fds);
		for (int i = 0; i < n && wrong == NULL; i++) {
			if (!not_open(fds[i]))
				wrong = "asked about or copied a descriptor it never opened";
			else if (close_it(fds[i]) == 0)
				wrong = "closed a descriptor it never opened";
			else if (dup2_it(own, fds[i]) != fds[i])
				wrong = "dup2 onto a free number failed";
			else if (write(fds[i], "program\n", 8) != 8)
				wrong = "writing its own file failed";
			else if (close_it(fds[i]) != 0)
				wrong = "closing its own copy failed";
		}
	}
	while (__atomic_load_n(&phase_waits_done, __ATOMIC_ACQUIRE) < 1)
		usleep(1000);
	if (wrong == NULL && close_range_it(STDERR_FILENO + 1, ~0U) != 0)
		wrong = "close_range failed";
	if (raw)
		(void)close_range_it(STDERR_FILENO + 1, ~0U);
	else
		closefrom(STDERR_FILENO + 1);
	if (wrong == NULL && fcntl(own, F_GETFD) != -1)
		wrong = "its file is still open";
	__atomic_store_n(&go_on, 1, __ATOMIC_RELEASE);
	pthread_join(waiter, NULL);
	if (wrong != NULL)
		printf("%s\n", wrong);
	else
		printf("ok, its first descriptor %d\n", own);
	return 0;
}
