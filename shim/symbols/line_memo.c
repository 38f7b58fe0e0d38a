// SPDX-License-Identifier: MIT
/*
 * The names tp_source_line has given, by address (line_memo.h): a table of open addressing,
 * allocated at the first answer kept. A report names a few hundred addresses at most; past the
 * table's room an answer is not kept, and is read again from DWARF when asked for again.
 */
#include "line_memo.h"

#include <stdlib.h>
#include <string.h>

#define SLOTS    2048u           /* a power of two */
#define KEPT_MAX (SLOTS / 4 * 3) /* probes stay short */

struct answer {
	uintptr_t address; /* 0: a free slot (no code lies at address 0) */
	char *name;        /* NULL: the address has no name */
};

static struct answer *answers;
static size_t kept;

static size_t slot_of(uintptr_t address)
{
	return (size_t)((address * 0x9e3779b97f4a7c15ull) >> 40) & (SLOTS - 1);
}

/* The slot holding `address`, or the free one where it would go. */
static struct answer *find(uintptr_t address)
{
	size_t i = slot_of(address);
	while (answers[i].address != 0 && answers[i].address != address)
		i = (i + 1) & (SLOTS - 1);
	return &answers[i];
}

bool tp_line_memo_find(uintptr_t address, bool *named, char *out, size_t size)
{
	if (answers == NULL || address == 0)
		return false;
	const struct answer *a = find(address);
	if (a->address == 0)
		return false;
	*named = a->name != NULL;
	if (*named && size > 0) {
		size_t length = strnlen(a->name, size - 1);
		memcpy(out, a->name, length);
		out[length] = '\0';
	}
	return true;
}

void tp_line_memo_keep(uintptr_t address, const char *name)
{
	if (address == 0 || kept >= KEPT_MAX)
		return;
	if (answers == NULL && (answers = calloc(SLOTS, sizeof *answers)) == NULL)
		return;
	struct answer *a = find(address);
	if (a->address != 0)
		return;
	char *copy = name != NULL ? strdup(name) : NULL;
	if (name != NULL && copy == NULL)
		return;
	*a = (struct answer){.address = address, .name = copy};
	kept++;
}

void tp_line_memo_forget(void)
{
	if (answers == NULL)
		return;
	for (size_t i = 0; i < SLOTS; i++)
		free(answers[i].name);
	free(answers);
	answers = NULL;
	kept = 0;
}
