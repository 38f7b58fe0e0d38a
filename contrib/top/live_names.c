// SPDX-License-Identifier: MIT
/* Names for the code addresses of a process's live statistics (live_names.h). */
#define _GNU_SOURCE
#include "live_names.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "source_lines.h"
#include "symbolize.h"

/* The modules of the process named last, as its file lists them. */
static struct tp_live_module modules[TP_LIVE_MODULES];
static bool usable[TP_LIVE_MODULES]; /* a regular file that can be read: named from */
static unsigned n_modules;
static struct live_id process;

/* What an address named is: a stack frame's or a site's return address, or a function's entry. */
enum name_kind { FRAME, SITE, FUNCTION };

/* Names given, by address: a bounded cache (a name not cached is made again). */
#define NAMES_CACHED 8192
static struct {
	uint64_t pc;
	enum name_kind kind;
	char text[TP_LIVE_SITE_TEXT];
} names[NAMES_CACHED];

static void forget_names(void)
{
	memset(names, 0, sizeof names);
}

/*
 * Whether module `m`'s file may be read to name its addresses: a regular file (the path comes
 * from the process's file: never a fifo or a device, whoever runs the console).
 */
static bool readable_module(const struct tp_live_module *m)
{
	struct stat st;
	return m->path[0] == '/' && stat(m->path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(m->path, R_OK) == 0;
}

void live_names_modules(const struct live_file *f)
{
	struct live_id id = live_id(f);
	bool another = id.pid != process.pid || id.started_ns != process.started_ns;
	if (another) {
		process = id;
		n_modules = 0;
		memset(modules, 0, sizeof modules);
		memset(usable, 0, sizeof usable);
		forget_names();
	}
	static struct tp_live_module read_now[TP_LIVE_MODULES];
	ssize_t got = pread(f->fd, read_now, sizeof read_now, (off_t)TP_LIVE_MODULES_OFFSET);
	unsigned whole = got > 0 ? (unsigned)((size_t)got / sizeof read_now[0]) : 0;
	/* entries are published as sites and frames need them: some may be empty between */
	bool changed = another;
	for (unsigned i = 0; i < whole; i++) {
		if (read_now[i].state != TP_LIVE_ENTRY_READY ||
		    modules[i].state == TP_LIVE_ENTRY_READY)
			continue;
		modules[i] = read_now[i];
		modules[i].path[sizeof modules[i].path - 1] = '\0';
		usable[i] = readable_module(&modules[i]);
		changed = true;
	}
	if (!changed)
		return;
	n_modules = whole;
	struct tp_source_module session[TP_LIVE_MODULES];
	size_t k = 0;
	for (unsigned i = 0; i < n_modules; i++)
		if (usable[i] && modules[i].state == TP_LIVE_ENTRY_READY)
			session[k++] = (struct tp_source_module){modules[i].path, modules[i].bias};
	tp_source_lines_use_modules(session, k);
	forget_names(); /* an address named before may lie in a module known now */
}

/* The module of the table holding `pc`, or NULL. */
static const struct tp_live_module *module_holding(uint64_t pc)
{
	for (unsigned i = 0; i < n_modules; i++)
		if (modules[i].state == TP_LIVE_ENTRY_READY && pc >= modules[i].start &&
		    pc < modules[i].end)
			return usable[i] ? &modules[i] : NULL;
	return NULL;
}

static void name_code(uint64_t pc, uint32_t module, enum name_kind kind, char *out, size_t size)
{
	unsigned slot = tp_hash_slot(pc, 32) % NAMES_CACHED;
	if (names[slot].pc == pc && names[slot].kind == kind) {
		snprintf(out, size, "%s", names[slot].text);
		return;
	}
	const struct tp_live_module *m = module < n_modules && usable[module] ? &modules[module]
									      : module_holding(pc);
	char text[TP_LIVE_SITE_TEXT];
	if (m != NULL && kind == FUNCTION)
		tp_symbolize_function_in_module(m->path, m->bias, pc, text, sizeof text);
	else if (m != NULL)
		tp_symbolize_in_module(m->path, m->bias, pc, kind == SITE, text, sizeof text);
	else if (kind == FUNCTION) /* outside every module: no name (symbolize.h) */
		text[0] = '\0';
	else
		snprintf(text, sizeof text, "%#llx", (unsigned long long)pc);
	names[slot].pc = pc;
	names[slot].kind = kind;
	snprintf(names[slot].text, sizeof names[slot].text, "%s", text);
	snprintf(out, size, "%s", text);
}

void live_name(uint64_t pc, uint32_t module, bool site, char *out, size_t size)
{
	name_code(pc, module, site ? SITE : FRAME, out, size);
}

void live_name_function(uint64_t entry, uint32_t module, char *out, size_t size)
{
	name_code(entry, module, FUNCTION, out, size);
}
