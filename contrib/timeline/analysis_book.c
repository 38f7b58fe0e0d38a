// SPDX-License-Identifier: MIT
/*
 * The analysis's bookkeeping (analysis_private.h): its memory, counted against its bound, its
 * duration histograms, its maps by process and id, the path nodes and their accumulators, the
 * sites and processes; the analysis made and freed.
 */
#define _GNU_SOURCE
#include "analysis_private.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hash.h"
#include "taskprobe_live.h"

void analysis_memory(size_t *task, size_t *node, size_t *edge)
{
	*task = sizeof(struct task) + sizeof(struct key *); /* and its hash bucket */
	*node = sizeof(struct node);
	*edge = sizeof(struct edge);
}

/* The converter's resident memory in bytes (0 when unknown). */
static size_t resident(void)
{
	FILE *f = fopen("/proc/self/statm", "re");
	unsigned long pages = 0;
	if (f != NULL) {
		if (fscanf(f, "%*u %lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* Whether the analysis may take `size` bytes more: its own bound, and the converter's resident
 * memory in all, read every MiB the analysis takes. */
bool room(struct analysis *a, size_t size)
{
	if (a->bytes + size > ANALYSIS_MAX_BYTES || a->over_resident)
		return false;
	if (a->bytes > a->resident_checked + (1u << 20) || a->bytes < a->resident_checked) {
		a->resident_checked = a->bytes;
		a->over_resident = resident() > a->resident_max;
	}
	return !a->over_resident;
}

void *take(struct analysis *a, size_t size)
{
	if (!room(a, size))
		return NULL;
	void *p = calloc(1, size);
	if (p != NULL) {
		a->bytes += size;
		a->peak_bytes = a->bytes > a->peak_bytes ? a->bytes : a->peak_bytes;
	}
	return p;
}

void give(struct analysis *a, void *p, size_t size)
{
	if (p == NULL)
		return;
	a->bytes -= size;
	free(p);
}

/* ---- durations ---- */

static unsigned hist_index(uint64_t v)
{
	unsigned b = v == 0 ? 0 : 63 - (unsigned)__builtin_clzll(v);
	return b < TP_LIVE_BUCKETS ? b : TP_LIVE_BUCKETS - 1;
}

void hist_add(struct analysis *a, struct hist *h, uint64_t v)
{
	if (h->bucket == NULL) {
		h->bucket = take(a, TP_LIVE_BUCKETS * sizeof *h->bucket);
		if (h->bucket == NULL)
			return;
	}
	h->bucket[hist_index(v)]++;
	h->count++;
}

/* The median, or UINT64_MAX when empty. */
uint64_t hist_median(const struct hist *h)
{
	if (h->count == 0 || h->bucket == NULL)
		return UINT64_MAX;
	return tp_live_quantile(h->bucket, 0.5, 0);
}

/* ---- maps of tasks and threads, by process and id ---- */

static size_t key_hash(uint64_t process, uint64_t id)
{
	return (size_t)tp_hash_pair(id, process);
}

struct key *map_find(const struct map *m, uint64_t process, uint64_t id)
{
	if (m->size == 0)
		return NULL;
	for (struct key *k = m->bucket[key_hash(process, id) & (m->size - 1)]; k != NULL;
	     k = k->next)
		if (k->id == id && k->process == process)
			return k;
	return NULL;
}

bool map_add(struct analysis *a, struct map *m, struct key *k)
{
	if (m->count >= m->size) {
		size_t size = m->size ? 2 * m->size : 1024;
		struct key **b = take(a, size * sizeof *b);
		if (b == NULL)
			return false;
		for (size_t i = 0; i < m->size; i++)
			for (struct key *e = m->bucket[i], *next; e != NULL; e = next) {
				next = e->next;
				size_t j = key_hash(e->process, e->id) & (size - 1);
				e->next = b[j];
				b[j] = e;
			}
		give(a, m->bucket, m->size * sizeof *b);
		m->bucket = b;
		m->size = size;
	}
	size_t j = key_hash(k->process, k->id) & (m->size - 1);
	k->next = m->bucket[j];
	m->bucket[j] = k;
	m->count++;
	return true;
}

void map_remove(struct map *m, struct key *k)
{
	struct key **at = &m->bucket[key_hash(k->process, k->id) & (m->size - 1)];
	while (*at != k)
		at = &(*at)->next;
	*at = k->next;
	m->count--;
}

/* ---- path nodes ---- */

void unref(struct analysis *a, struct node *n)
{
	while (n != NULL && --n->refs == 0) {
		struct node *prev = n->prev;
		give(a, n, sizeof *n);
		a->nodes--;
		n = prev;
	}
}

/* *slot = n, counted. */
void hold(struct analysis *a, struct node **slot, struct node *n)
{
	ref(n);
	unref(a, *slot);
	*slot = n;
}

/* `acc` joins a path ending with `n` at `ns`, whose placed length is `placed`: the longest path
 * picks its node, the placed length is the larger whichever path is longer. */
void acc_fold(struct analysis *a, struct acc *acc, struct node *n, uint64_t ns, uint64_t placed)
{
	if (n != NULL && (acc->n == NULL || n->path > acc->n->path))
		hold(a, &acc->n, n);
	acc->ns = max_u64(acc->ns, ns);
	acc->placed = max_u64(acc->placed, placed);
}

void acc_fold_node(struct analysis *a, struct acc *acc, struct node *n, uint64_t ns)
{
	acc_fold(a, acc, n, ns, n != NULL ? n->placed : 0);
}

void acc_join(struct analysis *a, struct acc *acc, const struct acc *other)
{
	acc_fold(a, acc, other->n, other->ns, other->placed);
}

void acc_clear(struct analysis *a, struct acc *acc)
{
	unref(a, acc->n);
	*acc = (struct acc){0};
}

/* A fragment [start, end] after `prev` (and a placed path `placed` long), of `task` on `th`:
 * in its site's row, or in a mutual exclusion's its sync site's (its section's time on the path
 * is the section's). */
struct node *node_new(struct analysis *a, struct node *prev, uint64_t placed,
		      const struct task *task, const struct thread *th, uint32_t pid,
		      uint64_t start, uint64_t end, uint64_t latency)
{
	struct node *n = take(a, sizeof *n);
	if (n == NULL)
		return NULL;
	a->nodes++;
	a->peak_nodes = a->nodes > a->peak_nodes ? a->nodes : a->peak_nodes;
	n->prev = ref(prev);
	n->path = path_of(prev) + (end - start);
	n->burdened = (prev != NULL ? prev->burdened : 0) + latency + (end - start);
	n->placed = placed + (end - start);
	n->start = start;
	n->end = end;
	n->task = task->k.id;
	n->site = task->section_site != 0 ? task->section_site : task->site;
	n->tid = (uint32_t)th->k.id;
	n->pid = pid;
	n->process = th->k.process;
	return n;
}

/* ---- sites and processes ---- */

static size_t site_id_slot(const struct analysis *a, uint64_t scope, uint64_t id)
{
	size_t mask = a->index.size - 1, i = tp_hash_pair(id, scope) & mask;
	for (uint32_t k; (k = a->index.by_id[i]) != 0; i = (i + 1) & mask)
		if (a->sites[k].id == id && a->sites[k].scope == scope)
			break;
	return i;
}

static uint64_t site_text_hash(uint64_t scope, const char *text, size_t len)
{
	uint64_t h = tp_hash_mix(TP_HASH_TEXT_BASIS, scope);
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * TP_HASH_TEXT_PRIME;
	return tp_hash_finish(h);
}

/* The slot of the lowest site of `scope` whose text is `text` (`len` bytes), or the free slot
 * where it would go. */
static size_t site_text_slot(const struct analysis *a, uint64_t scope, const char *text, size_t len)
{
	size_t mask = a->index.size - 1, i = site_text_hash(scope, text, len) & mask;
	for (uint32_t k; (k = a->index.by_text[i]) != 0; i = (i + 1) & mask)
		if (a->sites[k].scope == scope && strlen(a->sites[k].text) == len &&
		    memcmp(a->sites[k].text, text, len) == 0)
			break;
	return i;
}

/* Room in the index for one more site; false when out of memory. */
static bool site_index_room(struct analysis *a)
{
	struct site_index *x = &a->index;
	if ((x->used_ids + 1) * 2 <= x->size)
		return true;
	size_t size = x->size ? 2 * x->size : 256;
	uint32_t *by_id = calloc(size, sizeof *by_id), *by_text = calloc(size, sizeof *by_text);
	if (by_id == NULL || by_text == NULL) {
		free(by_id);
		free(by_text);
		return false;
	}
	struct site_index old = *x;
	x->by_id = by_id;
	x->by_text = by_text;
	x->size = size;
	for (size_t i = 0; i < old.size; i++) {
		uint32_t k = old.by_id[i];
		if (k != 0)
			x->by_id[site_id_slot(a, a->sites[k].scope, a->sites[k].id)] = k;
		k = old.by_text[i];
		if (k != 0)
			x->by_text[site_text_slot(a, a->sites[k].scope, a->sites[k].text,
						  strlen(a->sites[k].text))] = k;
	}
	free(old.by_id);
	free(old.by_text);
	return true;
}

uint32_t site_of(struct analysis *a, uint64_t scope, uint64_t id)
{
	if (id == 0)
		return 0;
	if (a->index.size > 0) {
		uint32_t k = a->index.by_id[site_id_slot(a, scope, id)];
		if (k != 0)
			return a->sites[k].same != 0 ? a->sites[k].same : k;
	}
	/* a site's bytes with its text's, counted as the analysis's (and never given back) */
	size_t bytes = sizeof(struct site) + 2 * sizeof(uint32_t) + SITE_TEXT_BYTES;
	if (a->n_sites > ANALYSIS_MAX_SITES || !room(a, bytes) || !site_index_room(a))
		return 0;
	a->bytes += bytes;
	if (a->n_sites == a->cap_sites) {
		size_t cap = a->cap_sites ? 2 * a->cap_sites : 64;
		struct site *s = realloc(a->sites, cap * sizeof *s);
		if (s == NULL)
			return 0;
		a->sites = s;
		a->cap_sites = cap;
	}
	uint32_t k = (uint32_t)a->n_sites++;
	a->sites[k] = (struct site){.scope = scope, .id = id};
	a->index.by_id[site_id_slot(a, scope, id)] = k;
	a->index.used_ids++;
	return k;
}

struct proc *proc_of(struct analysis *a, const struct timeline_event *e)
{
	uint64_t key = e->process != 0 ? e->process : e->pid;
	for (size_t i = 0; i < a->n_procs; i++)
		if (a->procs[i].process == key)
			return &a->procs[i];
	struct proc *p = realloc(a->procs, (a->n_procs + 1) * sizeof *p);
	if (p == NULL)
		return NULL;
	a->procs = p;
	p = &a->procs[a->n_procs++];
	*p = (struct proc){.process = key, .pid = e->pid, .first_ns = UINT64_MAX};
	snprintf(p->comm, sizeof p->comm, "%s", e->comm);
	return p;
}

struct analysis *analysis_new(size_t resident_max)
{
	struct analysis *a = calloc(1, sizeof *a);
	if (a == NULL)
		return NULL;
	a->resident_max = resident_max;
	a->sites = calloc(64, sizeof *a->sites);
	if (a->sites == NULL) {
		free(a);
		return NULL;
	}
	a->cap_sites = 64;
	a->n_sites = 1; /* [0]: no site */
	return a;
}

void analysis_site(struct analysis *a, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	uint32_t i = site_of(a, scope, id);
	if (i == 0 || a->sites[i].text != NULL || a->sites[i].same != 0)
		return;
	/* the call addresses of one construct (an unrolled loop's) are one site: the first */
	uint32_t *first = &a->index.by_text[site_text_slot(a, scope, text, len)];
	if (*first != 0 && *first < i) {
		a->sites[i].same = *first;
		return;
	}
	a->sites[i].text = strndup(text, len);
	if (a->sites[i].text != NULL && *first == 0)
		a->index.used_texts++;
	if (a->sites[i].text != NULL)
		*first = i;
}

void analysis_free(struct analysis *a)
{
	if (a == NULL)
		return;
	for (size_t i = 0; i < a->tasks.size; i++)
		for (struct key *k = a->tasks.bucket[i], *next; k != NULL; k = next) {
			next = k->next;
			struct task *t = (struct task *)k;
			acc_clear(a, &t->in);
			unref(a, t->last);
			acc_clear(a, &t->kids);
			acc_clear(a, &t->desc);
			for (struct edge *e = t->successors, *n; e != NULL; e = n) {
				n = e->next;
				free(e);
			}
			free(t);
		}
	for (size_t i = 0; i < a->threads.size; i++)
		for (struct key *k = a->threads.bucket[i], *next; k != NULL; k = next) {
			next = k->next;
			struct thread *th = (struct thread *)k;
			unref(a, th->in);
			unref(a, th->last);
			free(th);
		}
	for (size_t i = 0; i < a->mutexes.size; i++)
		for (struct key *k = a->mutexes.bucket[i], *next; k != NULL; k = next) {
			next = k->next;
			acc_clear(a, &((struct mutex *)k)->released);
			free(k);
		}
	for (size_t i = 0; i < a->n_procs; i++) {
		unref(a, a->procs[i].span);
		unref(a, a->procs[i].frozen);
	}
	for (size_t i = 0; i < a->n_sites; i++) {
		acc_clear(a, &a->sites[i].fork);
		free(a->sites[i].by_thread);
		free(a->sites[i].text);
		free(a->sites[i].task_time.bucket);
		free(a->sites[i].spawn_gap.bucket);
		free(a->sites[i].start_delay.bucket);
	}
	free(a->tasks.bucket);
	free(a->threads.bucket);
	free(a->mutexes.bucket);
	free(a->index.by_id);
	free(a->index.by_text);
	free(a->sites);
	free(a->procs);
	free(a);
}
