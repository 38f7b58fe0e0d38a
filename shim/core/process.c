// SPDX-License-Identifier: MIT
/* This process's identity (process.h). */
#define _GNU_SOURCE
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "real_symbol.h"

static struct tp_process self;
static bool filtered; /* a system call filter was installed (tp_process_filtered) */
static bool strict;   /* a thread took seccomp's strict mode (tp_process_strict) */

/* /proc/PID/stat's fields after the command: state is field 3, the thread count field 20,
 * starttime field 22. */
#define STAT_FIELD_AFTER_COMMAND 3
#define STAT_FIELD_THREADS       20
#define STAT_FIELD_START_TIME    22
/* /proc/self/stat is well under this (52 fields of at most 20 digits, a 16-byte command). */
#define STAT_TEXT_MAX 1536

/* Field `wanted` (a number, from STAT_FIELD_AFTER_COMMAND) of a /proc/PID/stat text; 0 if none. */
static uint64_t stat_field_of(const char *stat, size_t length, int wanted)
{
	const char *end = stat + length;
	const char *p = memrchr(stat, ')', length);
	if (p == NULL)
		return 0;
	p++;
	for (int field = STAT_FIELD_AFTER_COMMAND; field <= wanted; field++) {
		while (p < end && *p == ' ')
			p++;
		if (p >= end)
			return 0;
		if (field == wanted) {
			uint64_t value = 0;
			for (; p < end && *p >= '0' && *p <= '9'; p++)
				value = value * 10 + (uint64_t)(*p - '0');
			return value;
		}
		while (p < end && *p != ' ')
			p++;
	}
	return 0;
}

uint64_t tp_process_start_ticks_of(const char *stat, size_t length)
{
	return stat_field_of(stat, length, STAT_FIELD_START_TIME);
}

size_t tp_process_read_start(const char *path, char *text, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = -1;
	if (fd >= 0) {
		do
			n = read(fd, text, size - 1);
		while (n < 0 && errno == EINTR);
		tp_real_close(fd);
	}
	size_t length = n > 0 ? (size_t)n : 0;
	text[length] = '\0';
	return length;
}

static uint64_t read_start_ticks(void)
{
	char text[STAT_TEXT_MAX + 1];
	size_t length = tp_process_read_start("/proc/self/stat", text, sizeof text);
	return length > 0 ? tp_process_start_ticks_of(text, length) : 0;
}

unsigned tp_process_threads(void)
{
	char text[STAT_TEXT_MAX + 1];
	size_t length = tp_process_read_start("/proc/self/stat", text, sizeof text);
	return length > 0 ? (unsigned)stat_field_of(text, length, STAT_FIELD_THREADS) : 0;
}

static void read_identity(void)
{
	int saved_errno = errno;
	struct stat st;
	self.pid = getpid();
	self.start_ticks = read_start_ticks();
	self.pid_namespace = stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
	errno = saved_errno;
}

const struct tp_process *tp_process(void)
{
	return &self;
}

int tp_process_is_current(void)
{
	return tp_process_filtered() || self.pid == getpid();
}

bool tp_process_filtered(void)
{
	return __atomic_load_n(&filtered, __ATOMIC_RELAXED);
}

void tp_process_before_seccomp(void)
{
	__atomic_store_n(&filtered, true, __ATOMIC_RELAXED);
}

void tp_process_before_seccomp_strict(void)
{
	__atomic_store_n(&strict, true, __ATOMIC_RELAXED);
}

bool tp_process_strict(void)
{
	return __atomic_load_n(&strict, __ATOMIC_RELAXED);
}

/*
 * A thread's CPU-time clock id is made of its id (the kernel's encoding: ~tid << 3, then
 * CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED in the low bits), and pthread_getcpuclockid computes it
 * from the id the C library keeps for the thread, with no system call (glibc and musl alike).
 */
#define THREAD_SCHED_CLOCK_BITS 6

pid_t tp_process_libc_tid(void)
{
	clockid_t clock;
	if (pthread_getcpuclockid(pthread_self(), &clock) != 0 ||
	    (clock & 7) != THREAD_SCHED_CLOCK_BITS)
		return 0;
	pid_t tid = (pid_t) ~(clock >> 3);
	return tid > 0 ? tid : 0;
}

void tp_process_start(void)
{
	read_identity();
}

/*
 * Under a system call filter the child asks nothing: its one thread's id, which the C library
 * set at the fork, is its pid; its start time is unknown; its pid namespace is its parent's.
 */
void tp_process_child_after_fork(void)
{
	if (!tp_process_filtered()) {
		read_identity();
		return;
	}
	self.pid = tp_process_libc_tid();
	self.start_ticks = 0;
}

bool tp_process_parent_started_with(const char *variable)
{
	if (tp_process_filtered())
		return false;
	char path[64], chunk[4096];
	snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	/* the characters of "variable=" matched from the start of an entry; -1: none here */
	size_t length = strlen(variable);
	ssize_t n, matched = 0;
	bool found = false;
	while (!found && (n = read(fd, chunk, sizeof chunk)) > 0)
		for (ssize_t i = 0; i < n && !found; i++) {
			char wanted = (size_t)matched < length ? variable[matched] : '=';
			if (chunk[i] == '\0')
				matched = 0;
			else if (matched >= 0 && chunk[i] == wanted)
				found = (size_t)++matched == length + 1;
			else
				matched = -1;
		}
	tp_real_close(fd);
	return found;
}
