// SPDX-License-Identifier: MIT
/* Whose a live statistics file is: the processes the console looks at, from /proc (live_view.h). */
#define _GNU_SOURCE
#include "live_private.h"
#include "live_view.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- whose file --- */

bool live_parse_pid(const char *text, pid_t *pid)
{
	uint64_t value = 0;
	if (text[0] == '\0' || strlen(text) > 10)
		return false;
	for (const char *c = text; *c != '\0'; c++) {
		if (*c < '0' || *c > '9')
			return false;
		value = value * 10 + (uint64_t)(*c - '0');
	}
	uint64_t most = INT_MAX;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	unsigned long long pid_max;
	if (f != NULL) {
		if (fscanf(f, "%llu", &pid_max) == 1 && pid_max > 0 && pid_max - 1 < most)
			most = pid_max - 1; /* pids are below pid_max */
		fclose(f);
	}
	if (value < 1 || value > most)
		return false;
	*pid = (pid_t)value;
	return true;
}

/* Up to `size` - 1 bytes of a /proc file, NUL-terminated; false when it cannot be read. */
static bool read_proc(const char *path, char *buf, size_t size, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	size_t used = 0;
	while (used + 1 < size) {
		ssize_t n = read(fd, buf + used, size - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	buf[used] = '\0';
	if (len != NULL)
		*len = used;
	return used > 0;
}

#define ENVIRON_MAX (1u << 20)

/*
 * The state and the start time (starttime, 0 unknown) of process `pid`, from /proc/PID/stat;
 * false when it cannot be read (the process is gone, or hidden).
 */
static bool read_stat(pid_t pid, char *state, uint64_t *start_ticks)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	/* "pid (comm) state ppid ...": starttime is field 22, the 20th after the comm */
	const char *after_comm;
	if (!read_proc(path, buf, sizeof buf, NULL) || (after_comm = strrchr(buf, ')')) == NULL ||
	    sscanf(after_comm + 1, " %c", state) != 1)
		return false;
	const char *field = after_comm + 1;
	for (int i = 0; i < 19 && field != NULL; i++)
		field = strchr(field + 1, ' ');
	unsigned long long ticks;
	*start_ticks = field != NULL && sscanf(field, " %llu", &ticks) == 1 ? ticks : 0;
	return true;
}

void process_read(struct process *p, pid_t pid)
{
	*p = (struct process){.uid = geteuid()};
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if (read_proc(path, buf, sizeof buf, NULL)) {
		const char *uid = strstr(buf, "\nUid:");
		unsigned real, effective;
		if (uid != NULL && sscanf(uid, "\nUid: %u %u", &real, &effective) == 2) {
			p->uid = (uid_t)effective;
			p->known = true;
		}
	}
	if (!p->known)
		return;
	char state;
	read_stat(pid, &state, &p->start_ticks);
	struct stat st;
	snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)pid);
	if (stat(path, &st) == 0)
		p->pid_namespace = (uint64_t)st.st_ino;
	snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
	char *env = malloc(ENVIRON_MAX);
	size_t len;
	if (env != NULL && read_proc(path, env, ENVIRON_MAX, &len)) {
		p->environ = env;
		p->environ_len = len;
	} else {
		free(env);
	}
}

void process_free(struct process *p)
{
	free(p->environ);
	p->environ = NULL;
}

const char *process_getenv(const struct process *p, const char *name)
{
	const char *value = NULL;
	if (p->environ == NULL) {
		value = getenv(name);
	} else {
		size_t name_len = strlen(name);
		for (size_t at = 0; at < p->environ_len;) {
			const char *entry = p->environ + at;
			size_t len = strlen(entry); /* within: the buffer ends with a NUL */
			if (len > name_len && memcmp(entry, name, name_len) == 0 &&
			    entry[name_len] == '=')
				value = entry + name_len + 1; /* the last one wins, as in getenv */
			at += len + 1;
		}
	}
	return value != NULL && value[0] != '\0' ? value : NULL;
}

bool live_process_gone(pid_t pid)
{
	return kill(pid, 0) != 0 && errno == ESRCH;
}

bool live_process_ended(pid_t pid, uint64_t start_ticks)
{
	char state;
	uint64_t ticks;
	if (!read_stat(pid, &state, &ticks))
		return live_process_gone(pid);
	/* a zombie (its parent has not waited for it yet), or the pid another process's now */
	return state == 'Z' || state == 'X' || (start_ticks != 0 && ticks != start_ticks);
}
