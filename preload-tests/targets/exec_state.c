// SPDX-License-Identifier: MIT
/*
 * Prints what a program is given when it starts: its arguments (the first as its name), its
 * environment (sorted), its open descriptors (where each leads, but for the standard ones,
 * which are its caller's), and the signals it ignores and blocks. Usage: exec_state [ARGS...]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		printf("arg %d %s\n", i, argv[i]);
	size_t n = 0;
	while (environ[n] != NULL)
		n++;
	qsort(environ, n, sizeof *environ, by_text);
	for (size_t i = 0; i < n; i++)
		printf("env %s\n", environ[i]);
	DIR *d = opendir("/proc/self/fd");
	if (d == NULL)
		return 1;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		char path[300], target[4096];
		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
			continue;
		snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
		ssize_t len = readlink(path, target, sizeof target - 1);
		target[len > 0 ? len : 0] = '\0';
		printf("fd %s %s\n", e->d_name, atoi(e->d_name) > 2 ? target : "");
	}
	closedir(d);
	FILE *status = fopen("/proc/self/status", "r");
	char line[256];
	while (status != NULL && fgets(line, sizeof line, status) != NULL)
		if (strncmp(line, "SigIgn:", 7) == 0 || strncmp(line, "SigBlk:", 7) == 0)
			fputs(line, stdout);
	if (status != NULL)
		fclose(status);
	return 0;
}
