// SPDX-License-Identifier: MIT
/* Symbols of (non-PIE) target programs, from their symbol tables by nm (harness.h). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness_internal.h"

uint64_t tp_symbol_address(const char *path, const char *symbol)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "nm -P '%s'", path) > 0);
	FILE *p = popen(cmd, "r");
	free(cmd);
	cr_assert(p != NULL);
	char name[512], type[8];
	unsigned long long addr = 0, found = 0;
	char line[1024];
	while (fgets(line, sizeof line, p) != NULL)
		if (sscanf(line, "%511s %7s %llx", name, type, &addr) == 3 &&
		    strcmp(name, symbol) == 0)
			found = addr;
	pclose(p);
	cr_assert(found != 0, "no symbol %s in %s", symbol, path);
	return found;
}

const char *tp_symbol_at(const char *path, uint64_t pc)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "nm -P -S --defined-only '%s'", path) > 0);
	FILE *p = popen(cmd, "r");
	free(cmd);
	cr_assert(p != NULL);
	static char found[512];
	snprintf(found, sizeof found, "?");
	char name[512], type[8], line[1024];
	unsigned long long addr, size;
	while (fgets(line, sizeof line, p) != NULL)
		if (sscanf(line, "%511s %7s %llx %llx", name, type, &addr, &size) == 4 &&
		    pc - 1 >= addr && pc - 1 < addr + size)
			snprintf(found, sizeof found, "%s", name);
	pclose(p);
	return found;
}
