// SPDX-License-Identifier: MIT
/*
 * OpenMP tasks, then, from the program's own destructor, which runs among its libraries'
 * destructors at exit: the base names of the shared objects mapped in the process at that
 * moment, on stdout after a line "mapped at the destructors:", one a line, in the order of
 * /proc/self/maps (a name repeated for each of its mappings is printed once in a row).
 */
#include <stdio.h>
#include <string.h>

static volatile long sink;

__attribute__((noinline)) static void spawn_some(int n)
{
	for (int i = 0; i < n; i++) {
#pragma omp task firstprivate(i)
		sink += i;
	}
#pragma omp taskwait
}

__attribute__((destructor)) static void list_mappings(void)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	if (maps == NULL)
		return;
	char line[4096], last[4096] = "";
	printf("mapped at the destructors:\n");
	while (fgets(line, sizeof line, maps) != NULL) {
		const char *path = strchr(line, '/');
		if (path == NULL)
			continue;
		const char *base = strrchr(path, '/') + 1;
		if (strcmp(base, last) != 0)
			fputs(base, stdout);
		snprintf(last, sizeof last, "%s", base);
	}
	fclose(maps);
	fflush(stdout);
}

int main(void)
{
#pragma omp parallel
#pragma omp single
	spawn_some(16);
	printf("tasks done\n");
	return 0;
}
