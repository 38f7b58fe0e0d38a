// SPDX-License-Identifier: MIT
/*
 * What the timeline calls things: site texts, kept once per (scope, site id) in an append-only
 * pool of names (the text as the input said it, and JSON-escaped), so that a site's later spawns
 * and its polls allocate nothing; the names of tasks, waits and threads made of them; and the
 * --site and --thread filters, which match those names.
 */
#define _GNU_SOURCE
#include "timeline_private.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "taskprobe_contract.h"
#include "taskprobe_live.h"

/* JSON string contents: quotes, backslashes and control bytes escaped, non-ASCII as '?'.
 * Writes at most 6 bytes per byte of `s` (of `len` bytes) to `to`, returns the count. */
size_t json_escape(char *to, const char *s, size_t len)
{
	char *t = to;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			*t++ = '\\';
			*t++ = (char)c;
		} else if (c < 0x20) {
			t += sprintf(t, "\\u%04x", c);
		} else {
			*t++ = c < 0x80 ? (char)c : '?';
		}
	}
	return (size_t)(t - to);
}

static uint64_t site_hash(uint64_t scope, uint64_t id)
{
	return tp_hash_pair(scope ^ scope << 40, id);
}

static uint64_t site_slot_hash(const void *context, const void *slot)
{
	(void)context;
	const struct site *e = slot;
	return site_hash(e->scope, e->id);
}

/* Room for `need` more bytes in the pool (its first byte is the "none" offset 0). */
static bool pool_reserve(struct sites *m, size_t need)
{
	if (m->pool_len == 0)
		m->pool_len = 1;
	if (m->pool_len + need <= m->pool_cap)
		return true;
	if (m->pool_len + need > MAX_NAMES_BYTES)
		return false;
	size_t cap = m->pool_cap ? m->pool_cap : 4096;
	while (cap < m->pool_len + need)
		cap *= 2;
	char *pool = realloc(m->pool, cap);
	if (pool == NULL)
		return false;
	m->pool = pool;
	m->pool_cap = cap;
	return true;
}

/* The slot of site `id` of `scope`, or the free one where it would go; NULL: no table yet. */
static struct site *site_slot(const struct sites *m, uint64_t scope, uint64_t id)
{
	const struct table *x = &m->table;
	if (x->size == 0)
		return NULL;
	size_t i = table_home(x, site_hash(scope, id));
	for (; table_used(x, i); i = table_next(x, i)) {
		struct site *e = table_slot(x, i);
		if (e->scope == scope && e->id == id)
			break;
	}
	return table_slot(x, i);
}

/* The text of site `id` of `scope` as the input said it (NUL-terminated), or NULL. */
const char *site_text(const struct sites *m, uint64_t scope, uint64_t id)
{
	const struct site *e = site_slot(m, scope, id);
	return e != NULL && e->text != 0 ? m->pool + e->text : NULL;
}

/*
 * The name (offset of the escaped text in the pool) of site `id` of `scope`: `text` (of `len`
 * bytes; NULL when the sample has none) kept on first sight, the text kept before when the
 * sample has none. 0 when there is no text, or no room for it.
 */
uint32_t site_name(struct sites *m, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	struct site *e = site_slot(m, scope, id);
	if (e != NULL && e->text != 0 &&
	    (text == NULL || (e->text_len == len && memcmp(m->pool + e->text, text, len) == 0)))
		return e->name;
	if (text == NULL)
		return 0;
	/* a new site, or a new text for it: both forms appended to the pool */
	bool added = e == NULL || e->text == 0;
	if (added && (m->table.used == MAX_SITES || !table_room(&m->table))) {
		m->refused++;
		return 0;
	}
	if (!pool_reserve(m, (size_t)len * 7 + 2)) {
		m->refused++;
		return 0;
	}
	if (added)
		e = table_claim(&m->table, site_hash(scope, id));
	e->scope = scope;
	e->id = id;
	e->text = (uint32_t)m->pool_len;
	e->text_len = len;
	memcpy(m->pool + m->pool_len, text, len);
	m->pool_len += len;
	m->pool[m->pool_len++] = '\0';
	e->name = (uint32_t)m->pool_len;
	m->pool_len += json_escape(m->pool + m->pool_len, text, len);
	m->pool[m->pool_len++] = '\0';
	return e->name;
}

static const char *wait_kind(unsigned kind)
{
	static const char *const names[] = TP_WAIT_KIND_NAMES;
	return kind <= TP_WAIT_KINDS ? names[kind] : "?";
}

/* A task's name (JSON-escaped) into `buf`: its site's text, else its site's id, else none's. */
const char *task_name_text(const struct timeline *t, uint64_t site, uint32_t name, char buf[32])
{
	if (site != 0 && name != 0)
		return t->sites.pool + name;
	if (site != 0) {
		snprintf(buf, 32, "site %" PRIu64, site);
		return buf;
	}
	return TP_LIVE_NO_SITE_TEXT;
}

/* Whether the site filter keeps a task of this site (its name holds one of the texts). */
bool site_kept(const struct timeline *t, uint64_t site, uint32_t name)
{
	if (t->options.n_sites == 0)
		return true;
	char buf[32];
	const char *text = task_name_text(t, site, name, buf);
	bool kept = false;
	for (size_t i = 0; i < t->options.n_sites; i++)
		if (strstr(text, t->sites_wanted[i]) != NULL)
			kept = t->site_matched[i] = true;
	return kept;
}

bool thread_kept(const struct timeline *t, uint64_t tid)
{
	if (t->options.n_tids == 0)
		return true;
	bool kept = false;
	for (size_t i = 0; i < t->options.n_tids; i++)
		if (t->options.tids[i] == tid)
			kept = t->tid_matched[i] = true;
	return kept;
}

size_t timeline_unmatched(const struct timeline *t, FILE *out)
{
	size_t n = 0;
	for (size_t i = 0; i < t->options.n_tids; i++)
		if (!t->tid_matched[i] && ++n)
			fprintf(out,
				"taskprobe-timeline: --thread %" PRIu64
				" matched no thread of the input\n",
				t->options.tids[i]);
	for (size_t i = 0; i < t->options.n_sites; i++)
		if (!t->site_matched[i] && ++n)
			fprintf(out, "taskprobe-timeline: --site %s matched no task of the input\n",
				t->options.sites[i]);
	return n;
}

/* What waits: its kind, or for an MPI wait its call (`MPI_Allreduce`), its number its object. */
static const char *wait_what(const struct open_slice *slice)
{
	static const char *const calls[] = TP_MPI_CALL_NAMES;
	if (slice->wait_kind == TP_WAIT_MPI)
		return slice->id >= 1 && slice->id <= TP_MPI_CALLS ? calls[slice->id] : "MPI call";
	return wait_kind(slice->wait_kind);
}

/* A wait slice's name: "KIND at SITE" (the site's escaped text), or "wait KIND" with no site;
 * an MPI wait's, "MPI_CALL at SITE" or "MPI_CALL". */
void wait_name(const struct timeline *t, const struct open_slice *slice, char *out, size_t size)
{
	if (slice->name != 0)
		snprintf(out, size, "%s at %s", wait_what(slice), t->sites.pool + slice->name);
	else if (slice->wait_kind == TP_WAIT_MPI)
		snprintf(out, size, "%s", wait_what(slice));
	else
		snprintf(out, size, "wait %s", wait_kind(slice->wait_kind));
}

/*
 * The name of the thread whose first event is `e`: its own, else, for a recording's thread that
 * set none (its name its process's), its start routine's ("worker (pool.c:58)", "libomp.so.5
 * thread" for a stripped library's), unless the routine has none (outside every module).
 */
const char *thread_name(const struct timeline *t, const struct timeline_event *e)
{
	const char *routine = NULL;
	if (e->type == TP_RECORD_THREAD_START && e->named_as_process && e->start_routine_site != 0)
		routine = site_text(&t->sites, e->site_scope, e->start_routine_site);
	return routine != NULL && routine[0] != '\0' ? routine : e->comm;
}

void sites_init(struct sites *m)
{
	table_init(&m->table, sizeof(struct site), sizeof(uint64_t), 64, site_slot_hash, NULL);
}

void sites_free(struct sites *m)
{
	table_free(&m->table);
	free(m->pool);
}
